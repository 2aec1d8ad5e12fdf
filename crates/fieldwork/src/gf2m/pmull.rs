//! Target features: `neon`, `aes` (AES + PMULL) — capability token
//! [`NeonAes`].
//!
//! The fields' operations compiled with PMULL on AArch64: the `gf2x` fixed
//! kernel of the field's size ([`PmullWord`]: the product on two-word
//! q-register digits, four `PMULL`/`PMULL2` per digit product), the
//! word-level reduction on general registers (a shifted-operand `EOR` per
//! folded term), and whatever loop the caller's
//! [`Computation`](super::Computation) puts around them, inlined into one
//! `#[target_feature]` entry point ([`Pmull::run`]), as `clmul.rs` does
//! with PCLMULQDQ. Squares are one `PMULL` a word.
//!
//! Square roots, traces and the Frobenius and half-trace maps run the
//! portable bodies (masks on general registers) inside the same entry
//! point; inversion is Itoh–Tsujii over these products and maps, and the
//! divstep candidate the portable body with `PMULL` word products. Batches
//! take one element at a time. Not built yet: the maps with NEON
//! `BSL`/`AND` on two rows a register, and the divstep threshold (untimed:
//! no hardware).
#![allow(unsafe_code)]

use crate::cpu::NeonAes;
use crate::gf2x::PmullWord;

super::simd_backend!(
    /// The PMULL `gf2m` backend (see [`Backend`](super::Backend)); holding
    /// one proves the instructions.
    Pmull(NeonAes), PmullWord, "pmull", "neon,aes"
);
