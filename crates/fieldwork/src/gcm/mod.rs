//! AES-GCM authenticated encryption (NIST SP 800-38D).
//!
//! *Status: planned (issue "GHASH, POLYVAL and AES-GCM"); no items yet.*
//!
//! AES in counter mode for confidentiality and GHASH over the associated data
//! and ciphertext for integrity. The accelerated kernel *stitches* the two:
//! one loop encrypts counter blocks with VAES while it hashes earlier
//! ciphertext blocks with VPCLMULQDQ, so both execution units stay busy.
//! Tags are compared in constant time; on a mismatch the plaintext is not
//! released.
