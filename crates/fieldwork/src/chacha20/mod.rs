//! The ChaCha20 stream cipher (RFC 8439) and XChaCha20.
//!
//! *Status: planned (issue "Poly1305 and ChaCha20-Poly1305"); no items yet.*
//!
//! ChaCha20 is an ARX (add-rotate-XOR) permutation of a 4×4 matrix of 32-bit
//! words; vector backends compute several blocks at once, one block per lane.
//! Together with [`crate::poly1305`] it forms the ChaCha20-Poly1305 AEAD.
