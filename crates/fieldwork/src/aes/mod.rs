//! The AES block cipher (FIPS 197), for AES-GCM.
//!
//! *Status: planned (issue "GHASH, POLYVAL and AES-GCM"); no items yet.*
//!
//! AES-128/192/256 key expansion and encryption with AES-NI, and with VAES
//! on ymm/zmm so that four (zmm) blocks move through each round instruction.
//! The accelerated paths are fieldwork's own code; the portable fallback is a
//! constant-time (bitsliced) implementation.
