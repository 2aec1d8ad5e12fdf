//! Reproduction code (feature `reproduce`, x86-64): AES-128-GCM encryption
//! as built for Table 1 of S. Gueron and M. E. Kounavis, *Intel
//! Carry-Less Multiplication Instruction and its Usage for Computing the
//! GCM Mode* (Intel white paper 323640 rev. 2.02, 2014; the text is
//! `../shared/seeds/002_77ac94d0d136631a.txt`), so that `peer-bench
//! --reproduce gueron-kounavis` can set its rows beside the printed
//! cycles per byte. Production AES-GCM ([`super::Aes128Gcm`]) does not use
//! this module. Not part of the stable API.
//!
//! # The rows ([`Table1Row`])
//!
//! Every row runs AES-CTR with AES-NI on 4 counter blocks at a time (the
//! paper's Figure 9: the counter kept byte-swapped per 64-bit half so that
//! `paddd` increments it, `pshufb` back per block) with the round keys of
//! fieldwork's `aes` module, and differs in GHASH:
//!
//! 1. **Fig. 5 + Fig. 9**: GHASH one block at a time by Figure 5's `gfmul`
//!    (Algorithm 1, the shift by one, Algorithm 5, 32-bit lanes), blocks
//!    byte-swapped only.
//! 2. **Fig. 7 + Fig. 11**: one block at a time by Figure 7's `gfmul`
//!    (Algorithm 2, Algorithm 4), every block, the key, the length block
//!    and the result bit-reflected by Figure 11's `REFLECT` (two `pshufb`).
//! 3. **Fig. 8 + Fig. 12 + Fig. 5**: the four counter blocks encrypted,
//!    then their ciphertext hashed by Figure 8's `reduce4` (aggregated
//!    reduction: Karatsuba products with `H⁴ … H¹`, one Algorithm 5); the
//!    powers (computed on every call, as Figure 12 does) and leftover blocks
//!    by Figure 5. AAD in groups of four the same way.
//! 4. **Fig. 15 + Fig. 6**: as row 3, but the loop hashes the *previous*
//!    four ciphertext blocks while it encrypts the current four (Figure
//!    15's software pipeline: the first quad only encrypted, the last
//!    hashed after the loop, "FINAL_REDUCTION"), with each `h₀ ⊕ h₁` of
//!    Karatsuba prepared once per call. Figure 15 is assembly that
//!    interleaves `aesenc` and `pclmulqdq` by hand; here both are in one
//!    loop body and the compiler schedules them.
//!
//! Rows 5 and 6 (OpenSolaris' bit-by-bit `gfmul`, Figure 2, and Brian
//! Gladman's 64 KiB-table GCM) are other people's code without AES-NI or
//! PCLMULQDQ, and out of scope here: the page names what stands in for them
//! (fieldwork's portable backend, constant-time and table-free).
//!
//! # Where the paper is not followed
//!
//! - The key is expanded by fieldwork's `aes::aesni::expand` in
//!   [`Table1Gcm::new`] (the paper: "the key was pre-expanded, and the key
//!   expansion overhead was not counted"); H, its powers and `E(K, Y0)`
//!   are computed on every [`Table1Gcm::encrypt`] call, as in the figures.
//! - AES-128 only (Table 1 is AES128-GCM); encryption only (Table 1 times
//!   `AES_GCM_encrypt`); IVs of any non-empty length, as the figures
//!   (GHASH of the IV for lengths other than 12 bytes). No length limits
//!   are checked (the figures check none); do not use beyond SP 800-38D's.
//! - Partial blocks are zero-padded through a stack buffer rather than the
//!   figures' byte loops or Figure 15's shift pairs.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// `reproduce` feature: the white paper's Table 1 rows, fixed-size blocks, not a production path.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use crate::aes::RoundKeys;
use crate::cpu::AesClmul;
use crate::ghash::reproduce::paper::{
    gfmul_fig5, gfmul_fig7, karatsuba_halves, powers4_fig5, reduce4_fig8, reduce4_halves,
    reflect_bits,
};
use crate::simd::{from_u128 as to_x, to_u128 as from_x};
use core::arch::x86_64::{
    __m128i, _mm_add_epi32, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_loadu_si128,
    _mm_shuffle_epi8, _mm_storeu_si128, _mm_xor_si128,
};
use core::fmt;
use zeroize::Zeroize;

type V = __m128i;

/// A row of the paper's Table 1 (rows 1–4: the ones built from its
/// figures); see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Table1Row {
    /// Row 1: Fig. 5 + Fig. 9 (one block at a time, schoolbook + Alg. 5).
    Fig5Fig9,
    /// Row 2: Fig. 7 + Fig. 11 (one block at a time, Karatsuba + Alg. 4,
    /// bit-reflected input).
    Fig7Fig11,
    /// Row 3: Fig. 8 + Fig. 12 + Fig. 5 (aggregated every four blocks).
    Fig8Fig12,
    /// Row 4: Fig. 15 + Fig. 6 (aggregated, AES of one quad beside GHASH
    /// of the previous).
    Fig15,
}

impl Table1Row {
    /// Rows 1–4 in the table's order.
    pub const ALL: [Table1Row; 4] = [
        Table1Row::Fig5Fig9,
        Table1Row::Fig7Fig11,
        Table1Row::Fig8Fig12,
        Table1Row::Fig15,
    ];

    /// The row's number in Table 1.
    pub const fn number(self) -> u8 {
        match self {
            Table1Row::Fig5Fig9 => 1,
            Table1Row::Fig7Fig11 => 2,
            Table1Row::Fig8Fig12 => 3,
            Table1Row::Fig15 => 4,
        }
    }

    /// The row's "Code Reference" column, e.g. `Fig. 5 + Fig. 9`.
    pub const fn name(self) -> &'static str {
        match self {
            Table1Row::Fig5Fig9 => "Fig. 5 + Fig. 9",
            Table1Row::Fig7Fig11 => "Fig. 7 + Fig. 11",
            Table1Row::Fig8Fig12 => "Fig. 8 + Fig. 12 + Fig. 5",
            Table1Row::Fig15 => "Fig. 15 + Fig. 6",
        }
    }
}

impl fmt::Display for Table1Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An AES-128 key expanded for the Table 1 rows (AES-NI and PCLMULQDQ);
/// the round keys are wiped on drop.
#[derive(Clone)]
pub struct Table1Gcm {
    token: AesClmul,
    rk: RoundKeys,
}

impl fmt::Debug for Table1Gcm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Table1Gcm { .. }")
    }
}

impl Table1Gcm {
    /// Expands `key`, or `None` if this CPU (after `FIELDWORK_MAX_ISA`)
    /// lacks AES-NI, PCLMULQDQ, SSSE3 or SSE4.1.
    pub fn new(key: &[u8; 16]) -> Option<Table1Gcm> {
        let token = AesClmul::get()?;
        Some(Table1Gcm {
            token,
            rk: crate::aes::aesni::expand(token, key),
        })
    }

    /// AES-128-GCM encryption of `buf` in place under `iv` (non-empty) and
    /// `aad` by the Table 1 row `row`; returns the 16-byte tag. Same
    /// ciphertext and tag as [`super::Aes128Gcm`]. Constant time in the key
    /// and the data.
    pub fn encrypt(&self, row: Table1Row, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let _ = self.token;
        // SAFETY: the token proves AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
        unsafe {
            match row {
                Table1Row::Fig5Fig9 => encrypt_row::<1>(&self.rk, iv, aad, buf),
                Table1Row::Fig7Fig11 => encrypt_row::<2>(&self.rk, iv, aad, buf),
                Table1Row::Fig8Fig12 => encrypt_row::<3>(&self.rk, iv, aad, buf),
                Table1Row::Fig15 => encrypt_row::<4>(&self.rk, iv, aad, buf),
            }
        }
    }
}

/// `BSWAP_MASK`: the 16 bytes reversed (`pshufb`).
const BSWAP_MASK: u128 = 0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f;
/// `BSWAP_EPI64`: each 64-bit half's bytes reversed.
const BSWAP_EPI64: u128 = 0x0809_0a0b_0c0d_0e0f_0001_0203_0405_0607;
/// `ONE = _mm_set_epi32(0, 1, 0, 0)`: the counter's dword after
/// `BSWAP_EPI64`.
const ONE: u128 = 1 << 64;

/// One block through the AES rounds (AES-128: 10).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn aes1(rk: &RoundKeys, b: V) -> V {
    let mut x = _mm_xor_si128(b, to_x(rk.rk[0]));
    for r in 1..rk.rounds {
        x = _mm_aesenc_si128(x, to_x(rk.rk[r]));
    }
    _mm_aesenclast_si128(x, to_x(rk.rk[rk.rounds]))
}

/// Four blocks through the AES rounds, round by round (Figure 9's loop).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn aes4(rk: &RoundKeys, b: [V; 4]) -> [V; 4] {
    let k0 = to_x(rk.rk[0]);
    let mut x = [
        _mm_xor_si128(b[0], k0),
        _mm_xor_si128(b[1], k0),
        _mm_xor_si128(b[2], k0),
        _mm_xor_si128(b[3], k0),
    ];
    for r in 1..rk.rounds {
        let k = to_x(rk.rk[r]);
        for xi in &mut x {
            *xi = _mm_aesenc_si128(*xi, k);
        }
    }
    let k = to_x(rk.rk[rk.rounds]);
    for xi in &mut x {
        *xi = _mm_aesenclast_si128(*xi, k);
    }
    x
}

/// A GCM block (loaded little-endian) in the row's GHASH representation:
/// byte-swapped (rows 1, 3, 4) or bit-reflected by Figure 11's `REFLECT`
/// (row 2, `NAT`). An involution either way.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn domain<const NAT: bool>(v: V) -> V {
    if NAT {
        reflect_bits(v)
    } else {
        _mm_shuffle_epi8(v, to_x(BSWAP_MASK))
    }
}

/// The row's one-block `gfmul`: Figure 7 (`NAT`) or Figure 5.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn gfmul<const NAT: bool>(a: V, b: V) -> V {
    if NAT {
        gfmul_fig7(a, b)
    } else {
        gfmul_fig5(a, b)
    }
}

/// Up to 16 bytes, zero-padded, loaded little-endian.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn load_padded(c: &[u8]) -> V {
    let mut b = [0u8; 16];
    b[..c.len()].copy_from_slice(c);
    let v = to_x(u128::from_le_bytes(b));
    b.zeroize();
    v
}

/// 16 bytes loaded little-endian.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn load(c: &[u8]) -> V {
    debug_assert_eq!(c.len(), 16);
    // SAFETY: `c` has 16 bytes.
    unsafe { _mm_loadu_si128(c.as_ptr().cast()) }
}

/// 16 bytes stored.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn store(c: &mut [u8], v: V) {
    debug_assert_eq!(c.len(), 16);
    // SAFETY: `c` has 16 bytes.
    unsafe { _mm_storeu_si128(c.as_mut_ptr().cast(), v) }
}

/// GHASH of `data` (zero-padded) into `x`, one block at a time.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn hash_singles<const NAT: bool>(mut x: V, h: V, data: &[u8]) -> V {
    for c in data.chunks(16) {
        x = gfmul::<NAT>(_mm_xor_si128(x, domain::<NAT>(load_padded(c))), h);
    }
    x
}

/// The four ciphertext blocks `c` (in the reflected representation) and
/// the accumulator `x` as `reduce4`'s operands: `(X₄, X₃, X₂, X₁ ⊕ x)`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn quad_operands(c: [V; 4], x: V) -> [V; 4] {
    [c[3], c[2], c[1], _mm_xor_si128(c[0], x)]
}

/// Each of four blocks through `pshufb` by `mask` (no closure: kept
/// inline with the target features).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn shuffle4(c: [V; 4], mask: V) -> [V; 4] {
    [
        _mm_shuffle_epi8(c[0], mask),
        _mm_shuffle_epi8(c[1], mask),
        _mm_shuffle_epi8(c[2], mask),
        _mm_shuffle_epi8(c[3], mask),
    ]
}

/// Table 1 row `ROW` (1–4) on AES-128 round keys `rk`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn encrypt_row<const ROW: u8>(rk: &RoundKeys, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    // Row 2 runs on bit-reflected values; the others on byte-swapped ones.
    const { assert!(ROW >= 1 && ROW <= 4) };
    let bswap = to_x(BSWAP_MASK);
    let bswap64 = to_x(BSWAP_EPI64);
    // H = E(K, 0), in the row's representation.
    let h = if ROW == 2 {
        domain::<true>(aes1(rk, to_x(0)))
    } else {
        domain::<false>(aes1(rk, to_x(0)))
    };
    // Y0 (SP 800-38D's J0).
    let y0 = if iv.len() == 12 {
        let mut b = [0u8; 16];
        b[..12].copy_from_slice(iv);
        b[15] = 1;
        to_x(u128::from_le_bytes(b))
    } else {
        let mut len = [0u8; 16];
        len[8..].copy_from_slice(&((iv.len() as u64) * 8).to_be_bytes());
        if ROW == 2 {
            let y = hash_singles::<true>(to_x(0), h, iv);
            domain::<true>(hash_singles::<true>(y, h, &len))
        } else {
            let y = hash_singles::<false>(to_x(0), h, iv);
            domain::<false>(hash_singles::<false>(y, h, &len))
        }
    };
    let t = aes1(rk, y0);
    let mut hs = if ROW >= 3 { powers4_fig5(h) } else { [h; 4] };
    let mut hk = karatsuba_halves(hs);
    // The AAD: in groups of four (rows 3, 4), then one block at a time.
    let mut x = to_x(0);
    let aad_quads = if ROW >= 3 { aad.len() / 64 } else { 0 };
    for g in aad[..64 * aad_quads].chunks_exact(64) {
        let c = [
            load(&g[..16]),
            load(&g[16..32]),
            load(&g[32..48]),
            load(&g[48..]),
        ];
        x = reduce4_fig8(hs, quad_operands(shuffle4(c, bswap), x));
    }
    x = if ROW == 2 {
        hash_singles::<true>(x, h, aad)
    } else {
        hash_singles::<false>(x, h, &aad[64 * aad_quads..])
    };
    // The counters, byte-swapped per half so that `paddd` counts.
    let mut ctr = _mm_add_epi32(_mm_shuffle_epi8(y0, bswap64), to_x(ONE));
    let quads = buf.len() / 64;
    let (body, rest) = buf.split_at_mut(64 * quads);
    // Row 4: the previous quad's ciphertext, hashed beside this quad's AES.
    let mut pending: Option<[V; 4]> = None;
    for g in body.chunks_exact_mut(64) {
        let mut blocks = [to_x(0); 4];
        for b in &mut blocks {
            *b = _mm_shuffle_epi8(ctr, bswap64);
            ctr = _mm_add_epi32(ctr, to_x(ONE));
        }
        if ROW == 4
            && let Some(c) = pending
        {
            x = reduce4_halves(hs, hk, quad_operands(c, x));
        }
        let ks = aes4(rk, blocks);
        let mut c = [to_x(0); 4];
        for i in 0..4 {
            let ct = _mm_xor_si128(ks[i], load(&g[16 * i..16 * i + 16]));
            store(&mut g[16 * i..16 * i + 16], ct);
            c[i] = ct;
        }
        match ROW {
            1 => {
                for ci in c {
                    x = gfmul_fig5(_mm_xor_si128(x, _mm_shuffle_epi8(ci, bswap)), h);
                }
            }
            2 => {
                for ci in c {
                    x = gfmul_fig7(_mm_xor_si128(x, reflect_bits(ci)), h);
                }
            }
            3 => x = reduce4_fig8(hs, quad_operands(shuffle4(c, bswap), x)),
            _ => pending = Some(shuffle4(c, bswap)),
        }
    }
    if let Some(c) = pending {
        // Figure 15's FINAL_REDUCTION.
        x = reduce4_halves(hs, hk, quad_operands(c, x));
    }
    // The leftover blocks, one at a time; a partial last block zero-padded.
    for c in rest.chunks_mut(16) {
        let ks = aes1(rk, _mm_shuffle_epi8(ctr, bswap64));
        ctr = _mm_add_epi32(ctr, to_x(ONE));
        let ct = _mm_xor_si128(ks, load_padded(c));
        let mut b = from_x(ct).to_le_bytes();
        let n = c.len();
        c.copy_from_slice(&b[..n]);
        b[n..].fill(0);
        let ct = to_x(u128::from_le_bytes(b));
        b.zeroize();
        x = if ROW == 2 {
            gfmul_fig7(_mm_xor_si128(x, reflect_bits(ct)), h)
        } else {
            gfmul_fig5(_mm_xor_si128(x, _mm_shuffle_epi8(ct, bswap)), h)
        };
    }
    // The length block [len(A)·8 : len(C)·8].
    let mut len = [0u8; 16];
    len[..8].copy_from_slice(&((aad.len() as u64) * 8).to_be_bytes());
    len[8..].copy_from_slice(&((buf.len() as u64) * 8).to_be_bytes());
    let tag = if ROW == 2 {
        domain::<true>(hash_singles::<true>(x, h, &len))
    } else {
        domain::<false>(hash_singles::<false>(x, h, &len))
    };
    hs.zeroize();
    hk.zeroize();
    from_x(_mm_xor_si128(tag, t)).to_le_bytes()
}
