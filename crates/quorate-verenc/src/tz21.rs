//! TZ21 verifiable encryption (in progress).
