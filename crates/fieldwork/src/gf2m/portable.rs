//! The portable backend: plain Rust, constant time, every target — the
//! `gf2x` fixed products on 64-bit words by masked integer multiplication
//! ([`PortableWord`]), the fields' reductions, square roots and maps, with
//! the operation bodies of `ops.rs` (through [`Backend`]'s default
//! methods). It is the reference the other backends are tested against.
#![forbid(unsafe_code)]

use super::Backend;
use super::private::Kernels;
use crate::gf2x::PortableWord;

/// The portable `gf2m` backend (see [`Backend`]).
#[derive(Clone, Copy, Debug)]
pub struct Portable;

impl Kernels for Portable {
    type K = PortableWord;
    #[inline(always)]
    fn kernels(self) -> PortableWord {
        PortableWord
    }
}

impl Backend for Portable {
    fn name(self) -> &'static str {
        "portable"
    }
}
