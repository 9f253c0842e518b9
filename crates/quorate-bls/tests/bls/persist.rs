//! A node seals a hot party's state and an offline custodian keeps its cold key in a file:
//! both must rebuild an equivalent party, also after a committed refresh.

use quorate_bls::kzg::ceremony;
use quorate_bls::{combine, Client, ColdParty, HotParty, VerifiedColdKeys};
use quorate_core::{transcript::SessionId, PartyId, ThresholdParams};
use rand_core::OsRng;

#[test]
fn rebuilt_hot_and_cold_parties_sign_after_a_refresh() {
    let mut rng = OsRng;
    let params = ThresholdParams::new(2, 3).expect("params");
    let crs = ceremony::run_in_process(3, 2, &SessionId::new(b"persist".to_vec())).expect("crs");
    let cold: Vec<ColdParty> = PartyId::range(3)
        .map(|i| ColdParty::register(i, &mut rng))
        .collect();
    // Every cold party is reloaded from its secret bytes: same key, same pads.
    let mut cold: Vec<ColdParty> = cold
        .iter()
        .map(|c| ColdParty::from_secret_bytes(c.index(), &*c.secret_bytes()).expect("reload"))
        .zip(&cold)
        .map(|(reloaded, original)| {
            assert_eq!(reloaded.public_key(), original.public_key());
            reloaded
        })
        .collect();
    assert!(ColdParty::from_secret_bytes(PartyId::range(1).next().unwrap(), &[0; 32]).is_err());
    let regs: Vec<_> = cold.iter().map(|c| c.registration(&mut rng)).collect();
    let client = Client::generate(&mut rng);
    let keys = VerifiedColdKeys::verify(&regs, &mut rng).expect("cold keys");
    let reg = client
        .register(&crs, params, &keys, &mut rng)
        .expect("register");
    let mut hot = Vec::new();
    let mut pads = Vec::new();
    for (c, payload) in cold.iter_mut().zip(&reg.payloads) {
        let pad = c
            .add_client(&client.public_key(), &client.proof_of_possession())
            .expect("pad");
        hot.push(
            HotParty::register(
                &crs,
                c.index(),
                &reg.public,
                &reg.authorization,
                payload,
                &pad,
                &mut rng,
            )
            .expect("hot"),
        );
        pads.push(pad);
    }
    let mut public = reg.public;
    let refresh = client.refresh(&crs, &public, &mut rng).expect("refresh");
    let next = public
        .refreshed(&crs, &refresh.public, &mut rng)
        .expect("refreshed");
    let mut pending = Vec::new();
    for (h, share) in hot.iter().zip(&refresh.shares) {
        let mut p = h
            .refresh(&crs, &refresh.public, share, &mut rng)
            .expect("check");
        p.accept_record(&next).expect("record");
        pending.push(p);
    }
    let confirmations: Vec<_> = pending.iter().map(|p| p.confirmation()).collect();
    for (h, mut p) in hot.iter_mut().zip(pending) {
        for c in &confirmations {
            p.add_confirmation(c).expect("confirm");
        }
        h.commit(p).expect("commit");
    }
    public = next.into_record();
    // Seal and reload every hot party from its payload, the record and K_i.
    let hot: Vec<HotParty> = hot
        .iter()
        .zip(&pads)
        .map(|(h, pad)| {
            let bytes = h.to_payload().to_bytes();
            let payload = quorate_bls::HotRegistration::from_bytes(&bytes).expect("decode");
            HotParty::restore(&crs, h.index(), h.public(), &payload, pad, &mut rng).expect("reload")
        })
        .collect();
    let msg = b"after reload";
    let mut partials = Vec::new();
    for i in [1, 2] {
        let cp = cold[i]
            .partial_sign(public.public_key(), msg)
            .expect("cold");
        partials.push(hot[i].partial_sign(msg, &cp).expect("hot"));
    }
    let sig = combine(&crs, &public, msg, &partials, &mut rng).expect("combine");
    assert!(client.public_key().verify(msg, &sig));
}
