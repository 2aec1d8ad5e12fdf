//! GHASH and POLYVAL: polynomial hashing over GF(2^128).
//!
//! *Status: planned (issue "GHASH, POLYVAL and AES-GCM"); no items yet.*
//!
//! GHASH (NIST SP 800-38D) evaluates the polynomial `Σ Xᵢ·H^(n−i+1)` in
//! GF(2^128) defined by `x^128 + x^7 + x^2 + x + 1`, with GCM's reflected bit
//! order. POLYVAL (RFC 8452) is the same hash in the un-reflected field
//! `x^128 + x^127 + x^126 + x^121 + 1`, which suits little-endian machines.
//!
//! The techniques come from Gueron & Kounavis, *Intel Carry-Less
//! Multiplication Instruction and its Usage for Computing the GCM Mode*
//! (Intel white paper 323640, rev. 2.02): Karatsuba for the 128×128 product,
//! reduction by shift-and-XOR or by two carry-less multiplications by the
//! constant 0xc2…01, and *aggregated reduction* — summing `Xᵢ·H^k` over many
//! blocks with precomputed powers of H and reducing once.
