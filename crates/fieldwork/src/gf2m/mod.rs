//! Binary fields GF(2^m) in polynomial and normal basis.
//!
//! *Status: planned (issue "Binary fields"); this module has no items yet.*
//!
//! GF(2^m) is GF(2)\[x\] modulo an irreducible polynomial f(x) of degree m.
//! An element is a polynomial of degree < m, stored in `ceil(m/64)` words in
//! the layout of [`crate::gf2x`]. Multiplication is a [`crate::gf2x`] product
//! followed by reduction modulo f; for the sparse NIST moduli (trinomials and
//! pentanomials) reduction is a few shifts and XORs per word.
//!
//! | field | modulus f(x) | words |
//! |---|---|---|
//! | B-163 / K-163 | x^163 + x^7 + x^6 + x^3 + 1 | 3 |
//! | B-233 / K-233 | x^233 + x^74 + 1 | 4 |
//! | B-283 / K-283 | x^283 + x^12 + x^7 + x^5 + 1 | 5 |
//! | B-409 / K-409 | x^409 + x^87 + 1 | 7 |
//! | B-571 / K-571 | x^571 + x^10 + x^5 + x^2 + 1 | 9 |
//!
//! (FIPS 186-4, appendix D.1.3.) Beyond the fixed NIST types, any irreducible
//! modulus is accepted at run time. Squaring is linear (bit spreading);
//! inversion by Itoh–Tsujii or the extended Euclidean algorithm in constant
//! time; the square root is `a^(2^(m−1))`; the trace and half-trace solve
//! quadratics `z² + z = c` for point decompression.
//!
//! Normal bases (a submodule when it lands) represent elements by their
//! coordinates on `{β, β², β⁴, …, β^(2^(m−1))}`, where squaring is a cyclic
//! shift; multiplication uses the Gaussian normal bases of type T and the
//! algorithms of Reyhani-Masoleh–Hasan and Fan–Dai.
