//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`, `vaes`,
//! `vpclmulqdq`, `aes`, `pclmulqdq`, `ssse3`, `sse4.1` — capability token
//! [`VaesAvx512`].
//!
//! The stitched AES-GCM kernel: counter-mode AES with VAES on zmm (four
//! blocks per `vaesenc`) and GHASH with VPCLMULQDQ in the same loop, 16
//! blocks (256 bytes) per iteration, so the AES unit (port 0 for 512-bit
//! `vaesenc` on this Intel core) and the carry-less multiplier (port 5)
//! work at the same time. Encryption hashes the previous iteration's
//! ciphertext while it encrypts the next counters (the ciphertext of this
//! iteration is not ready yet); decryption hashes the ciphertext it is
//! about to decrypt.
//!
//! GHASH is POLYVAL on byte-reversed blocks (RFC 8452 appendix A; see
//! [`crate::ghash`]): one `vpshufb` per register, then aggregated reduction
//! over the 16 blocks (Gueron & Kounavis, Intel white paper 323640): block
//! `j` meets `H^(16−j)`, three `vpclmulqdq` per four blocks (Karatsuba; the
//! powers' `h₀ ⊕ h₁` are prepared once per call), the accumulator enters
//! lane 0 of the first register only, and the four lanes are reduced
//! together on zmm (two folds by 0xc2…, as in [`crate::ghash`]) before
//! their XOR.
//!
//! Counters: each lane holds its counter block byte-reversed, so GCM's
//! big-endian 32-bit counter is the lane's low dword and `inc32` is a
//! `vpaddd` that wraps exactly as SP 800-38D's does; one `vpshufb` per
//! register turns it back into the block.
//!
//! The last 1–256 bytes (any length, including a partial block) go
//! through the same code with byte-masked loads and stores; a partial
//! block is zero-padded for GHASH by the mask.
#![allow(unsafe_code)]

use super::Direction;
use crate::aes::RoundKeys;
use crate::cpu::VaesAvx512;
use core::arch::x86_64::{
    __m128i, __m512i, _MM_PERM_BADC, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_xor_si128,
    _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_xor_si256, _mm512_add_epi32,
    _mm512_aesenc_epi128, _mm512_aesenclast_epi128, _mm512_bslli_epi128, _mm512_bsrli_epi128,
    _mm512_castsi512_si128, _mm512_castsi512_si256, _mm512_clmulepi64_epi128,
    _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_mask_storeu_epi8,
    _mm512_maskz_loadu_epi8, _mm512_maskz_mov_epi8, _mm512_shuffle_epi8, _mm512_shuffle_epi32,
    _mm512_storeu_si512, _mm512_ternarylogic_epi64, _mm512_xor_si512, _mm512_zextsi128_si512,
};

/// Entries of the power table: `H^32 … H^1`, then four zeros so that a
/// tail's last register may read past `H^1`.
pub(super) const TABLE: usize = 36;

/// The power table for [`crypt`]: `table[i]` = the dot-power of
/// `H^(32−i)` for `i < 32` (so `H^r … H^1` are the last `r` of the 32),
/// zeros after.
pub(super) fn power_table(powers: &[u128; 32]) -> [u128; TABLE] {
    let mut t = [0u128; TABLE];
    for (i, v) in t.iter_mut().take(32).enumerate() {
        *v = powers[31 - i];
    }
    t
}

#[inline(always)]
fn from_u128s(v: [u128; 4]) -> __m512i {
    // SAFETY: same size, every bit pattern valid for both.
    unsafe { core::mem::transmute::<[u128; 4], __m512i>(v) }
}

#[inline(always)]
fn to_u128(v: __m128i) -> u128 {
    // SAFETY: same size, every bit pattern valid for both.
    unsafe { core::mem::transmute::<__m128i, u128>(v) }
}

#[inline(always)]
fn from_u128(v: u128) -> __m128i {
    // SAFETY: same size, every bit pattern valid for both.
    unsafe { core::mem::transmute::<u128, __m128i>(v) }
}

/// The whole of GCM-AE / GCM-AD after `J0`: GHASH of `aad`, counter mode
/// over `buf` (any length) from `inc32(J0)` with the GHASH of the
/// ciphertext, the lengths block, and the full tag `AES(K, J0) ⊕ S`.
/// `table` comes from [`power_table`].
pub(super) fn seal(
    t: VaesAvx512,
    rk: &RoundKeys,
    table: &[u128; TABLE],
    dir: Direction,
    j0: &[u8; 16],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let _ = t;
    // SAFETY: the token proves every feature `seal_zmm` is compiled for.
    unsafe { seal_zmm(rk, table, dir == Direction::Encrypt, j0, aad, buf) }
}

/// The AES round keys broadcast to all four lanes, and the round count.
struct Keys {
    k: [__m512i; 15],
    nr: usize,
}

/// Constants and the GHASH powers of one call.
struct Ghash16 {
    /// Byte reversal within each 128-bit lane.
    rev: __m512i,
    /// POLYVAL's `C = x^63 + x^62 + x^57` in each lane's low word.
    c: __m512i,
    /// `H^16 … H^1`, four per register, and their Karatsuba halves.
    p: [__m512i; 4],
    px: [__m512i; 4],
}

/// `h₀ ⊕ h₁` in each lane's low word.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn karatsuba_half(v: __m512i) -> __m512i {
    _mm512_xor_si512(v, _mm512_shuffle_epi32::<_MM_PERM_BADC>(v))
}

/// Three-way XOR.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0x96>(a, b, c)
}

/// Accumulates the Karatsuba products of the four lanes of `d` and `p`.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn mul_acc(
    d: __m512i,
    p: __m512i,
    px: __m512i,
    lo: &mut __m512i,
    hi: &mut __m512i,
    mid: &mut __m512i,
) {
    *lo = _mm512_xor_si512(*lo, _mm512_clmulepi64_epi128::<0x00>(d, p));
    *hi = _mm512_xor_si512(*hi, _mm512_clmulepi64_epi128::<0x11>(d, p));
    *mid = _mm512_xor_si512(
        *mid,
        _mm512_clmulepi64_epi128::<0x00>(karatsuba_half(d), px),
    );
}

/// The four lanes' 256-bit Karatsuba sums reduced (Montgomery, two folds
/// by `C` on all lanes at once) and XORed together.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn reduce(lo: __m512i, hi: __m512i, mid: __m512i, c: __m512i) -> __m128i {
    let mid = xor3(mid, lo, hi);
    let lo = _mm512_xor_si512(lo, _mm512_bslli_epi128::<8>(mid));
    let hi = _mm512_xor_si512(hi, _mm512_bsrli_epi128::<8>(mid));
    let f1 = _mm512_xor_si512(
        _mm512_shuffle_epi32::<_MM_PERM_BADC>(lo),
        _mm512_clmulepi64_epi128::<0x00>(lo, c),
    );
    let r = xor3(
        hi,
        _mm512_shuffle_epi32::<_MM_PERM_BADC>(f1),
        _mm512_clmulepi64_epi128::<0x00>(f1, c),
    );
    let y = _mm256_xor_si256(_mm512_castsi512_si256(r), _mm512_extracti64x4_epi64::<1>(r));
    _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
}

/// Sixteen counter blocks through AES while sixteen byte-reversed blocks
/// `g` (with `acc` entering the first) are hashed: returns the keystream
/// and the new accumulator.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn aes_ghash16(
    keys: &Keys,
    gh: &Ghash16,
    ctrs: [__m512i; 4],
    g: [__m512i; 4],
    acc: __m128i,
) -> ([__m512i; 4], __m128i) {
    let k = &keys.k;
    let mut x = ctrs.map(|v| _mm512_xor_si512(_mm512_shuffle_epi8(v, gh.rev), k[0]));
    let z = _mm512_xor_si512(k[0], k[0]);
    let (mut lo, mut hi, mut mid) = (z, z, z);
    let g0 = _mm512_xor_si512(g[0], _mm512_zextsi128_si512(acc));
    let gs = [g0, g[1], g[2], g[3]];
    // Rounds 1–4, each with one register's products.
    for (r, &gc) in gs.iter().enumerate() {
        for xi in &mut x {
            *xi = _mm512_aesenc_epi128(*xi, k[r + 1]);
        }
        mul_acc(gc, gh.p[r], gh.px[r], &mut lo, &mut hi, &mut mid);
    }
    let acc = reduce(lo, hi, mid, gh.c);
    for &kr in &k[5..keys.nr] {
        for xi in &mut x {
            *xi = _mm512_aesenc_epi128(*xi, kr);
        }
    }
    let x = x.map(|v| _mm512_aesenclast_epi128(v, k[keys.nr]));
    (x, acc)
}

/// Sixteen counter blocks through AES.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn aes16(keys: &Keys, rev: __m512i, ctrs: [__m512i; 4]) -> [__m512i; 4] {
    let k = &keys.k;
    let mut x = ctrs.map(|v| _mm512_xor_si512(_mm512_shuffle_epi8(v, rev), k[0]));
    for &kr in &k[1..keys.nr] {
        for xi in &mut x {
            *xi = _mm512_aesenc_epi128(*xi, kr);
        }
    }
    x.map(|v| _mm512_aesenclast_epi128(v, k[keys.nr]))
}

/// The Karatsuba sums of an aggregated group, before reduction.
#[derive(Clone, Copy)]
struct Sums {
    lo: __m512i,
    hi: __m512i,
    mid: __m512i,
}

/// The byte mask of register `c` of a `len`-byte (≤ 256) tail.
#[inline(always)]
fn reg_mask(len: usize, c: usize) -> u64 {
    let bytes = len.saturating_sub(64 * c).min(64);
    if bytes == 64 {
        u64::MAX
    } else {
        (1u64 << bytes) - 1
    }
}

/// Four powers from `table[i..i + 4]` (`i ≤ 32`).
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn powers4(table: &[u128; TABLE], i: usize) -> __m512i {
    debug_assert!(i + 4 <= TABLE);
    // SAFETY: `i + 4 ≤ TABLE` for every caller (tails of ≤ 16 blocks
    // start at index ≥ 32 − 17 and read at most 4 past their last block).
    unsafe { _mm512_loadu_si512(table.as_ptr().add(i.min(TABLE - 4)).cast()) }
}

/// Absorbs the ≤ 256 bytes of `data` (the last block zero-padded) into
/// `s`: block `j` meets `table[first + j]`; `inject` enters block 0.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn absorb_masked(
    data: &[u8],
    first: usize,
    inject: __m128i,
    table: &[u128; TABLE],
    rev: __m512i,
    s: &mut Sums,
) {
    debug_assert!(data.len() <= 256);
    for c in 0..data.len().div_ceil(64) {
        // SAFETY: the mask covers only bytes of `data`.
        let v = unsafe {
            _mm512_maskz_loadu_epi8(reg_mask(data.len(), c), data.as_ptr().add(64 * c).cast())
        };
        let mut g = _mm512_shuffle_epi8(v, rev);
        if c == 0 {
            g = _mm512_xor_si512(g, _mm512_zextsi128_si512(inject));
        }
        let p = powers4(table, first + 4 * c);
        mul_acc(g, p, karatsuba_half(p), &mut s.lo, &mut s.hi, &mut s.mid);
    }
}

/// Absorbs one block (POLYVAL element `x`) meeting `table[index]`.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn absorb_one(x: __m128i, index: usize, table: &[u128; TABLE], s: &mut Sums) {
    let g = _mm512_zextsi128_si512(x);
    let p = _mm512_zextsi128_si512(from_u128(table[index]));
    mul_acc(g, p, karatsuba_half(p), &mut s.lo, &mut s.hi, &mut s.mid);
}

/// One register of four counter blocks through AES.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn aes_reg(keys: &Keys, rev: __m512i, ctr: __m512i) -> __m512i {
    let k = &keys.k;
    let mut x = _mm512_xor_si512(_mm512_shuffle_epi8(ctr, rev), k[0]);
    for &kr in &k[1..keys.nr] {
        x = _mm512_aesenc_epi128(x, kr);
    }
    _mm512_aesenclast_epi128(x, k[keys.nr])
}

/// Counter mode in place over the ≤ 256 bytes of `data` from the counters
/// `ctr` (lane l of register c: counter 4c + l), absorbing the ciphertext
/// into `s` (block `j` meets `table[first + j]`, `inject` enters block 0).
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn ctr_masked(
    keys: &Keys,
    rev: __m512i,
    ctr: __m512i,
    data: &mut [u8],
    encrypt: bool,
    first: usize,
    inject: __m128i,
    table: &[u128; TABLE],
    s: &mut Sums,
) {
    debug_assert!(data.len() <= 256);
    let four = from_u128s([4; 4]);
    let mut ctr = ctr;
    let len = data.len();
    let ptr = data.as_mut_ptr();
    for c in 0..len.div_ceil(64) {
        let mask = reg_mask(len, c);
        let ks = aes_reg(keys, rev, ctr);
        ctr = _mm512_add_epi32(ctr, four);
        // SAFETY: the mask covers only bytes of `data`.
        let inp = unsafe { _mm512_maskz_loadu_epi8(mask, ptr.add(64 * c).cast()) };
        let out = _mm512_maskz_mov_epi8(mask, _mm512_xor_si512(ks, inp));
        // SAFETY: as above.
        unsafe { _mm512_mask_storeu_epi8(ptr.add(64 * c).cast(), mask, out) };
        let mut g = _mm512_shuffle_epi8(if encrypt { out } else { inp }, rev);
        if c == 0 {
            g = _mm512_xor_si512(g, _mm512_zextsi128_si512(inject));
        }
        let p = powers4(table, first + 4 * c);
        mul_acc(g, p, karatsuba_half(p), &mut s.lo, &mut s.hi, &mut s.mid);
    }
}

/// Sixteen byte-reversed blocks `g` hashed into `acc` (powers `H^16 … H^1`).
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn ghash16(gh: &Ghash16, g: [__m512i; 4], acc: __m128i) -> __m128i {
    let z = _mm512_xor_si512(gh.c, gh.c);
    let (mut lo, mut hi, mut mid) = (z, z, z);
    let g0 = _mm512_xor_si512(g[0], _mm512_zextsi128_si512(acc));
    mul_acc(g0, gh.p[0], gh.px[0], &mut lo, &mut hi, &mut mid);
    for c in 1..4 {
        mul_acc(g[c], gh.p[c], gh.px[c], &mut lo, &mut hi, &mut mid);
    }
    reduce(lo, hi, mid, gh.c)
}

/// AES of one block on xmm (for `AES(K, J0)`).
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn aes_block(rk: &RoundKeys, block: &[u8; 16]) -> u128 {
    let mut x = from_u128(u128::from_le_bytes(*block) ^ rk.rk[0]);
    for r in 1..rk.rounds {
        x = _mm_aesenc_si128(x, from_u128(rk.rk[r]));
    }
    to_u128(_mm_aesenclast_si128(x, from_u128(rk.rk[rk.rounds])))
}

#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn seal_zmm(
    rk: &RoundKeys,
    table: &[u128; TABLE],
    encrypt: bool,
    j0: &[u8; 16],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    // Independent of everything else: its latency hides behind the rest.
    let tag_mask = aes_block(rk, j0);
    let keys = Keys {
        k: core::array::from_fn(|r| from_u128s([rk.rk[r]; 4])),
        nr: rk.rounds,
    };
    let rev = from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 4]);
    let p: [__m512i; 4] = core::array::from_fn(|c| powers4(table, 16 + 4 * c));
    let gh = Ghash16 {
        rev,
        c: from_u128s([u128::from(crate::ghash::C_HI); 4]),
        p,
        px: p.map(|v| karatsuba_half(v)),
    };
    let lengths =
        from_u128((u128::from(aad.len() as u64 * 8) << 64) | u128::from(buf.len() as u64 * 8));
    // Lane l of register c holds counter inc32^(4c + l + 1)(J0), byte-reversed.
    let j = from_u128s([u128::from_be_bytes(*j0); 4]);
    let mut ctr = _mm512_add_epi32(j, from_u128s([1, 2, 3, 4]));
    let four = from_u128s([4; 4]);
    let sixteen = from_u128s([16; 4]);
    let z = _mm512_xor_si512(rev, rev);
    let zero_sums = Sums {
        lo: z,
        hi: z,
        mid: z,
    };
    let mut acc = _mm512_castsi512_si128(z);

    // Short messages: the associated data, the ciphertext and the lengths
    // block in one aggregated reduction (at most 16 + 15 + 1 powers).
    if aad.len() <= 256 && buf.len() <= 240 {
        let (ab, cb) = (aad.len().div_ceil(16), buf.len().div_ceil(16));
        let first = 32 - (ab + cb + 1);
        let mut s = zero_sums;
        absorb_masked(aad, first, acc, table, rev, &mut s);
        ctr_masked(
            &keys,
            rev,
            ctr,
            buf,
            encrypt,
            first + ab,
            acc,
            table,
            &mut s,
        );
        absorb_one(lengths, 31, table, &mut s);
        let h = to_u128(reduce(s.lo, s.hi, s.mid, gh.c));
        return tag_bytes(h, tag_mask);
    }

    // Associated data: 16 blocks per reduction, then the rest as one group.
    let mut a = aad;
    while a.len() >= 256 {
        // SAFETY: `a` has at least 256 bytes.
        let g: [__m512i; 4] = core::array::from_fn(|c| unsafe {
            _mm512_shuffle_epi8(_mm512_loadu_si512(a.as_ptr().add(64 * c).cast()), rev)
        });
        acc = ghash16(&gh, g, acc);
        a = &a[256..];
    }
    if !a.is_empty() {
        let mut s = zero_sums;
        absorb_masked(a, 32 - a.len().div_ceil(16), acc, table, rev, &mut s);
        acc = reduce(s.lo, s.hi, s.mid, gh.c);
    }

    let ctrs_of = |c0: __m512i| {
        let c1 = _mm512_add_epi32(c0, four);
        let c2 = _mm512_add_epi32(c1, four);
        let c3 = _mm512_add_epi32(c2, four);
        [c0, c1, c2, c3]
    };
    let full = buf.len() / 256;
    let ptr = buf.as_mut_ptr();
    // SAFETY (all loads and stores below): chunk i of 256 bytes, i < full,
    // lies inside `buf`.
    let load = |i: usize, c: usize| unsafe { _mm512_loadu_si512(ptr.add(256 * i + 64 * c).cast()) };
    let store = |i: usize, c: usize, v: __m512i| unsafe {
        _mm512_storeu_si512(ptr.add(256 * i + 64 * c).cast(), v)
    };
    if encrypt {
        if full > 0 {
            let ks = aes16(&keys, rev, ctrs_of(ctr));
            ctr = _mm512_add_epi32(ctr, sixteen);
            let mut g = [z; 4];
            for c in 0..4 {
                let out = _mm512_xor_si512(ks[c], load(0, c));
                store(0, c, out);
                g[c] = _mm512_shuffle_epi8(out, rev);
            }
            for i in 1..full {
                let (ks, a) = aes_ghash16(&keys, &gh, ctrs_of(ctr), g, acc);
                acc = a;
                ctr = _mm512_add_epi32(ctr, sixteen);
                for c in 0..4 {
                    let out = _mm512_xor_si512(ks[c], load(i, c));
                    store(i, c, out);
                    g[c] = _mm512_shuffle_epi8(out, rev);
                }
            }
            acc = ghash16(&gh, g, acc);
        }
    } else {
        for i in 0..full {
            let inp: [__m512i; 4] = core::array::from_fn(|c| load(i, c));
            let g = inp.map(|v| _mm512_shuffle_epi8(v, rev));
            let (ks, a) = aes_ghash16(&keys, &gh, ctrs_of(ctr), g, acc);
            acc = a;
            ctr = _mm512_add_epi32(ctr, sixteen);
            for c in 0..4 {
                store(i, c, _mm512_xor_si512(ks[c], inp[c]));
            }
        }
    }
    // The last 0–255 bytes and the lengths block: one group.
    let tail = &mut buf[256 * full..];
    let first = 32 - (tail.len().div_ceil(16) + 1);
    let mut s = zero_sums;
    let len_block = if tail.is_empty() {
        _mm_xor_si128(lengths, acc)
    } else {
        ctr_masked(&keys, rev, ctr, tail, encrypt, first, acc, table, &mut s);
        lengths
    };
    absorb_one(len_block, 31, table, &mut s);
    let h = to_u128(reduce(s.lo, s.hi, s.mid, gh.c));
    tag_bytes(h, tag_mask)
}

/// The tag bytes: GHASH's output (the POLYVAL-domain value byte-reversed)
/// XOR `AES(K, J0)` (given in memory order, read little-endian).
#[inline(always)]
fn tag_bytes(h: u128, tag_mask: u128) -> [u8; 16] {
    (h.swap_bytes() ^ tag_mask).to_le_bytes()
}
