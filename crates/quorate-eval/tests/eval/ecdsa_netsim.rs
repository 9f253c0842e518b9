#![allow(clippy::unwrap_used)]
//! The real DKG and signing rounds over quorate-net's simulated LAN and WAN.

use quorate_core::{PartyId, ThresholdParams};
use quorate_ecdsa::sign::verify_prehash;
use quorate_eval::ecdsa::netsim;
use quorate_net::ComputeModel;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Duration;

fn rng_for(seed: u64) -> impl FnMut(PartyId) -> ChaCha20Rng {
    move |p| ChaCha20Rng::seed_from_u64(seed * 1000 + u64::from(p.get()))
}

#[test]
fn keygen_and_signing_over_lan_and_wan() {
    let params = ThresholdParams::new(2, 3).unwrap();
    let run = netsim::keygen(
        params,
        b"netsim-test",
        netsim::wan(),
        ComputeModel::Ignore,
        rng_for(1),
    )
    .unwrap();
    // Message rounds at 174 ms one way, nothing charged for compute: the last round's
    // messages arrive after one latency per round plus serialization at 53.4 Mbit/s.
    let rounds = netsim::DKG_MESSAGE_ROUNDS;
    assert!(
        run.latency >= rounds * netsim::WAN_ONE_WAY,
        "{:?}",
        run.latency
    );
    assert!(run.latency < rounds * netsim::WAN_ONE_WAY + Duration::from_millis(100));
    let shares = run.into_outputs().unwrap();
    let pk = shares[0].public_key();
    assert!(shares.iter().all(|s| s.public_key() == pk));

    let digest = [9u8; 32];
    let signers = [PartyId::new(1).unwrap(), PartyId::new(3).unwrap()];
    for (network, one_way) in [
        (netsim::lan(), netsim::LAN_ONE_WAY),
        (netsim::wan(), netsim::WAN_ONE_WAY),
    ] {
        let run = netsim::sign(
            &shares,
            &signers,
            &digest,
            b"netsim-sign",
            network,
            ComputeModel::Measured,
            rng_for(2),
        )
        .unwrap();
        // Three rounds of messages: at least three one-way latencies.
        assert!(run.latency >= 3 * one_way);
        assert_eq!(run.report.nodes.len(), 2);
        // Each signer sends one round-1, one round-2 and one round-3 message.
        assert_eq!(run.report.total_messages(), 6);
        let sigs = run.into_outputs().unwrap();
        assert_eq!(sigs[0], sigs[1]);
        assert!(verify_prehash(&pk, &digest, &sigs[0].to_k256().unwrap()));
    }
}

/// A wrong round-3 share, and a wrong echo digest, over the simulated LAN: one more round
/// (blame or dispute), and every honest party names the cheater.
#[test]
fn blame_and_dispute_rounds_over_the_simulated_network() {
    use quorate_ecdsa::sign::{blame, dispute, Round3Fault};
    let params = ThresholdParams::new(3, 3).unwrap();
    let shares = netsim::keygen(
        params,
        b"netsim-blame",
        netsim::lan(),
        ComputeModel::Ignore,
        rng_for(3),
    )
    .unwrap()
    .into_outputs()
    .unwrap();
    let signers: Vec<PartyId> = params.parties().collect();
    let cheater = PartyId::new(2).unwrap();
    // A fresh session id per run: a key share (and every clone of it) signs at most one
    // round-2 body per session id.
    for (run_no, (fault, check)) in [
        (Round3Fault::WrongU, blame::CHECK_BLAME),
        (Round3Fault::WrongEcho, dispute::CHECK_DISPUTE),
    ]
    .into_iter()
    .enumerate()
    {
        let run = netsim::sign_faulty(
            &shares,
            &signers,
            &[5u8; 32],
            format!("netsim-blame-sign-{run_no}").as_bytes(),
            netsim::lan(),
            ComputeModel::Ignore,
            rng_for(4),
            (cheater, fault),
        )
        .unwrap();
        // Four message rounds: at least four one-way latencies.
        assert!(run.latency >= 4 * netsim::LAN_ONE_WAY);
        for (k, out) in run.outputs.iter().enumerate() {
            if k == cheater.position() {
                continue;
            }
            let err = out.as_ref().unwrap_err();
            assert_eq!(err.culprits(), &[cheater]);
            assert_eq!(err.check(), Some(check));
        }
    }
}
