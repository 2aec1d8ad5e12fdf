//! Poly1305, the one-time authenticator over the prime 2^130 − 5 (RFC 8439).
//!
//! *Status: planned (issue "Poly1305 and ChaCha20-Poly1305"); no items yet.*
//!
//! Poly1305 evaluates `Σ mᵢ·r^(n−i+1) mod 2^130 − 5` (each 16-byte block with
//! a 1 appended) and adds the one-time pad `s`. Vectorised forms process
//! blocks in parallel with precomputed powers of `r`: the 4-way scheme of
//! Goll & Gueron (AVX2), wider complete-decimation Horner schemes on AVX-512,
//! and 52-bit limbs with the AVX-512 IFMA multiply-add.
