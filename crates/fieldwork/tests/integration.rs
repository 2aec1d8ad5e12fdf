//! The library's integration tests, one binary: each module below was a
//! test target of its own, and 25 targets each instantiated and optimised
//! the library's generic code again and linked their own copy of it (about
//! two minutes of a release build on two cores, natively and again for
//! AArch64). Modules that need the `reproduce` feature or x86-64 say so in
//! their own first lines. `cargo test --release -p fieldwork-crypto
//! --test integration gcm_vectors::` runs one of them.

mod common;

mod aes;
mod chacha20;
mod chachapoly;
mod gcm;
mod gcm_reproduce;
mod gcm_siv;
mod gcm_vectors;
mod gf2m;
mod gf2m_normal;
mod gf2m_normal_reproduce;
mod gf2x_clmul64;
mod gf2x_fft;
mod gf2x_mul;
mod gf2x_poly;
mod gf2x_strategies;
mod gf2x_threads;
mod ghash;
mod ghash_reproduce;
mod hostile;
mod kummer;
mod kummer_keys;
mod kummer_reproduce;
mod poly1305;
mod poly1305_reproduce;
mod zeroize_on_drop;
