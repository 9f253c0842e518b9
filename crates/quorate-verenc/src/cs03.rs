//! Camenisch–Shoup verifiable encryption (in progress).
