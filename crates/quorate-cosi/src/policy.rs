//! Verification policies: which participation masks a verifier accepts.
//!
//! A policy is a predicate on the mask (the CFRG draft's "function that takes a bitmask and
//! returns true or false"). Whatever the policy, a mask with no participant is never
//! accepted (bford's documentation warns that `ThresholdPolicy(0)` accepts empty
//! signatures; we close that hole in [`crate::Roster::verify`]).
//!
//! * [`Policy::Complete`]: every witness signed (kyber's default).
//! * [`Policy::Threshold`]`(t)`: at least `t ≥ 1` witnesses signed.
//! * [`Policy::Group`]`{k, members}`: at least `k` of the members are satisfied, where a
//!   member is a witness (satisfied if it signed) or a nested group (C2SP tlog-policy style
//!   `group <name> <k> members…`, and Sigsum's nested quorums).

use crate::error::CosiError;
use crate::mask::Mask;

/// Nesting limit of groups (protects evaluation from unbounded recursion).
pub const MAX_POLICY_DEPTH: usize = 32;

/// A member of a [`Policy::Group`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyMember {
    /// Witness at this 0-based roster index.
    Witness(usize),
    /// A nested `k`-of-`members` group.
    Group {
        /// How many members must be satisfied (`1 ≤ k ≤ members.len()`).
        k: usize,
        /// The members.
        members: Vec<PolicyMember>,
    },
}

/// Which participation masks are acceptable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// All witnesses must have signed.
    Complete,
    /// At least `t ≥ 1` witnesses must have signed.
    Threshold(usize),
    /// At least `k` of `members` must be satisfied.
    Group {
        /// How many members must be satisfied (`1 ≤ k ≤ members.len()`).
        k: usize,
        /// The members.
        members: Vec<PolicyMember>,
    },
}

impl Policy {
    /// Checks the policy is meaningful for a roster of `n` witnesses: `1 ≤ t ≤ n`;
    /// `1 ≤ k ≤ |members|` in every group; witness indices `< n`; no witness listed twice
    /// directly in the same group; nesting at most [`MAX_POLICY_DEPTH`].
    pub fn validate(&self, n: usize) -> Result<(), CosiError> {
        match self {
            Policy::Complete => Ok(()),
            Policy::Threshold(t) => {
                if *t == 0 {
                    Err(CosiError::InvalidPolicy {
                        reason: "threshold 0 would accept anything",
                    })
                } else if *t > n {
                    Err(CosiError::InvalidPolicy {
                        reason: "threshold exceeds the roster size",
                    })
                } else {
                    Ok(())
                }
            }
            Policy::Group { k, members } => validate_group(*k, members, n, 1),
        }
    }

    /// Whether `mask` satisfies the policy. An empty mask never does. Witness indices
    /// outside the mask count as absent; groups nested deeper than [`MAX_POLICY_DEPTH`] are
    /// unsatisfied.
    pub fn is_satisfied(&self, mask: &Mask) -> bool {
        let count = mask.count();
        if count == 0 {
            return false;
        }
        match self {
            Policy::Complete => count == mask.n(),
            Policy::Threshold(t) => count >= *t,
            Policy::Group { k, members } => group_satisfied(*k, members, mask, 1),
        }
    }
}

fn validate_group(
    k: usize,
    members: &[PolicyMember],
    n: usize,
    depth: usize,
) -> Result<(), CosiError> {
    if depth > MAX_POLICY_DEPTH {
        return Err(CosiError::InvalidPolicy {
            reason: "groups nested too deeply",
        });
    }
    if k == 0 || k > members.len() {
        return Err(CosiError::InvalidPolicy {
            reason: "group needs 1 <= k <= number of members",
        });
    }
    let mut seen = std::collections::HashSet::new();
    for m in members {
        match m {
            PolicyMember::Witness(i) => {
                if *i >= n {
                    return Err(CosiError::InvalidPolicy {
                        reason: "group names a witness outside the roster",
                    });
                }
                if !seen.insert(*i) {
                    return Err(CosiError::InvalidPolicy {
                        reason: "group lists the same witness twice",
                    });
                }
            }
            PolicyMember::Group { k, members } => validate_group(*k, members, n, depth + 1)?,
        }
    }
    Ok(())
}

fn group_satisfied(k: usize, members: &[PolicyMember], mask: &Mask, depth: usize) -> bool {
    if depth > MAX_POLICY_DEPTH || k == 0 {
        return false;
    }
    let mut got = 0usize;
    for m in members {
        let ok = match m {
            PolicyMember::Witness(i) => mask.contains(*i),
            PolicyMember::Group { k, members } => group_satisfied(*k, members, mask, depth + 1),
        };
        if ok {
            got += 1;
            if got >= k {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(n: usize, idx: &[usize]) -> Mask {
        Mask::from_indices(n, idx.iter().copied()).expect("mask")
    }

    #[test]
    fn complete_and_threshold() {
        assert!(Policy::Complete.is_satisfied(&Mask::full(5)));
        assert!(!Policy::Complete.is_satisfied(&mask(5, &[0, 1, 2, 3])));
        assert!(Policy::Threshold(3).is_satisfied(&mask(5, &[0, 2, 4])));
        assert!(!Policy::Threshold(3).is_satisfied(&mask(5, &[0, 4])));
        assert!(Policy::Threshold(0).validate(5).is_err());
        assert!(Policy::Threshold(6).validate(5).is_err());
        assert!(!Policy::Complete.is_satisfied(&Mask::empty(0)));
    }

    #[test]
    fn nested_groups() {
        use PolicyMember::{Group, Witness};
        // 2 of { witness 0, 2-of-{1,2,3}, 1-of-{4,5} }
        let p = Policy::Group {
            k: 2,
            members: vec![
                Witness(0),
                Group {
                    k: 2,
                    members: vec![Witness(1), Witness(2), Witness(3)],
                },
                Group {
                    k: 1,
                    members: vec![Witness(4), Witness(5)],
                },
            ],
        };
        assert!(p.validate(6).is_ok());
        assert!(p.validate(5).is_err());
        assert!(p.is_satisfied(&mask(6, &[0, 5])));
        assert!(p.is_satisfied(&mask(6, &[1, 3, 4])));
        assert!(!p.is_satisfied(&mask(6, &[0, 1])));
        assert!(!p.is_satisfied(&mask(6, &[1, 2])));
        assert!(!p.is_satisfied(&mask(6, &[])));
        let dup = Policy::Group {
            k: 1,
            members: vec![Witness(1), Witness(1)],
        };
        assert!(dup.validate(6).is_err());
        let bad_k = Policy::Group {
            k: 3,
            members: vec![Witness(1), Witness(2)],
        };
        assert!(bad_k.validate(6).is_err());
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut m = PolicyMember::Witness(0);
        for _ in 0..100 {
            m = PolicyMember::Group {
                k: 1,
                members: vec![m],
            };
        }
        let p = Policy::Group {
            k: 1,
            members: vec![m],
        };
        assert!(p.validate(1).is_err());
        assert!(!p.is_satisfied(&Mask::full(1)));
    }
}
