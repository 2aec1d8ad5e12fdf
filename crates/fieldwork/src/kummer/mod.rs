//! Diffie–Hellman on a genus-2 Kummer surface over GF(2^127 − 1).
//!
//! *Status: planned (issue "Kummer-surface Diffie–Hellman"); no items yet.*
//!
//! The method of Bernstein, Chuengsatiansup, Lange & Schwabe, *Kummer strikes
//! back: new DH speed records* (ASIACRYPT 2014): a Montgomery-like ladder on
//! the Gaudry–Schost Kummer surface, where each step is two Hadamard
//! transforms, coordinate-wise products and multiplications by small
//! constants — four independent field operations at a time, which maps onto
//! SIMD lanes. Scalars are 251 bits; points are encoded as 48 bytes (three
//! coordinate ratios), compatible with the authors' `kummer` software.
