//! What the three stitched AES-GCM kernels ([`super::vaes512`],
//! [`super::vaes256`], [`super::aesni`]) share besides the GHASH sums
//! (which live in `crate::ghash::aggregate`): the key ([`Key`]: round keys,
//! power table, the kernel's own tables, wiped on drop; the hash of a
//! non-96-bit IV), the counter-mode
//! round-1 table, the declaration of their target-feature helpers
//! ([`target_fns`]), the reduction-unit schedule of their loops, and the
//! tag.
//!
//! # The round-1 table
//!
//! AES round 1 (AddRoundKey 0, SubBytes, ShiftRows, MixColumns,
//! AddRoundKey 1) is `L(S(C ⊕ k₀)) ⊕ k₁` with `S` byte by byte and `L`
//! (MixColumns ∘ ShiftRows) linear. For two counter blocks `C`, `D` that
//! differ only in their last byte, `round1(C) ⊕ round1(D) = round1[C₁₅] ⊕
//! round1[D₁₅]`, where `round1[b]` is round 1 of the block `0¹⁵ ‖ b`. So
//! within a run of 256 counter blocks, round 1 of block `C` is the run's
//! base `round1(D) ⊕ round1[D₁₅]` XORed with `round1[C₁₅]`: the vector
//! kernels start AES at round 2 with one XOR per register, loading the
//! table at the public counter's last byte (no secret-dependent address),
//! where the counter advance and round 1 took two operations, one of them
//! an AES round on the port that bounds the loop. (Counter-mode caching of
//! the first round, as surveyed by Bernstein & Schwabe, "New AES software
//! speed records", INDOCRYPT 2008.)
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// indices are loop counters over the fixed power and round-1 tables (`POWERS`, `ROUND1` entries).
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use crate::aes::RoundKeys;
use crate::cpu::AesClmul;
use zeroize::Zeroize;

/// Entries of the power table: `H^32 … H^1`, then four zeros so that a
/// group's last register may read past `H^1`.
pub(super) const TABLE: usize = 36;

/// A stitched kernel's key, made once per key: the AES-NI key schedule,
/// the power table ([`power_table`]), the kernel's second per-key table
/// (`X` entries) and the counter-mode round-1 table (`R` entries: [`ROUND1`],
/// or none for the xmm kernel, which runs AES from round 0). The tables
/// are wiped on drop (the round keys by their own `Drop`).
///
/// Each kernel names its instance `Key` and implements `gcm::Backend` for
/// it, whose `seal` (`#[inline]`) forwards to the kernel module's own
/// `seal` function, which calls the kernel's `#[target_feature]` entry: a
/// plain function of the kernel's module keeps the entry's only callers in
/// the kernel's codegen unit, where the entry stays internal and compiles
/// exactly as it did with a key type per kernel. (With `seal` a method of
/// this generic type, the compiler put it in this module's unit and the
/// entries became external; their register allocation changed.)
#[derive(Clone)]
pub(super) struct Key<K, const X: usize, const R: usize, const L: usize> {
    /// The kernel's proof of its features, and its settings.
    pub(super) kernel: K,
    pub(super) rk: RoundKeys,
    /// The round keys broadcast to the kernel's `L` lanes (`L` = 4 for
    /// zmm, 2 for ymm; none for the xmm kernel, which reads `rk`): the
    /// kernel's AES rounds take them straight from here as memory
    /// operands, so no call builds (and leaves behind) a copy in its frame.
    pub(super) wide: Wide<L>,
    pub(super) powers: [u128; TABLE],
    /// The ymm kernel's Karatsuba half-sums of the powers, the zmm
    /// kernel's uniform loop powers; none for the xmm kernel.
    pub(super) second: [u128; X],
    pub(super) round1: [u128; R],
}

/// Round keys `0 … 14`, each repeated in `L` 128-bit lanes, 64-byte
/// aligned (so the key types are too): a zmm round key then never
/// straddles two cache lines, nor a ymm one. Reads are unaligned loads
/// all the same ([`Keys`]). The Python binding boxes its keys, as PyO3's
/// objects are only 16-byte aligned.
#[derive(Clone)]
#[repr(align(64))]
pub(super) struct Wide<const L: usize>(pub(super) [[u128; L]; 15]);

const _: () = assert!(core::mem::align_of::<Wide<4>>() == 64);

impl<const L: usize> Wide<L> {
    /// `rk`'s round keys (all 15 slots) broadcast to `L` lanes.
    fn new(rk: &RoundKeys) -> Self {
        Wide(core::array::from_fn(|r| [rk.rk[r]; L]))
    }
}

/// A kernel's round keys (`V` = one register of them, 15 entries) as its
/// rounds read them: straight from the key, by plain loads the compiler
/// may fold into the AES instructions (zmm and xmm kernels), or inside
/// `asm!` blocks that load each key into a scratch register for a whole
/// round (ymm kernel: [`Keys::round8`], [`Keys::last_round8_xor`]). A loop
/// iteration reads them through [`Keys::fresh`], so that the compiler
/// cannot hoist plain loads out of the loop: loaded once before the loop,
/// the keys did not fit the ymm kernel's sixteen registers and were copied
/// to its frame, which nothing wipes.
#[derive(Clone, Copy)]
pub(super) struct Keys<'a, V> {
    /// The first of 15 registers' worth of keys, `16 L` bytes each, at
    /// any 16-byte boundary.
    at: *const V,
    table: core::marker::PhantomData<&'a [u128]>,
}

/// `p` as a pointer the compiler has not seen: an empty `asm!` block takes
/// it and returns it, and, not being `pure`, is neither merged with
/// another nor moved out of a loop. Loads through the result are neither
/// hoisted past it nor merged with loads through `p` before it.
#[inline(always)]
#[allow(clippy::pointers_in_nomem_asm_block)] // the block reads nothing: it only hides `p`
pub(super) fn unseen<T>(p: *const T) -> *const T {
    let mut p = p;
    // SAFETY: no instruction; `p` comes back unchanged.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) p, options(nomem, nostack, preserves_flags));
    }
    p
}

impl<'a, V: Copy> Keys<'a, V> {
    /// The keys in `table`: 15 entries of `V`'s size (a [`Wide`] table,
    /// or the key schedule itself for the xmm kernel).
    pub(super) fn new<T>(table: &'a [T; 15]) -> Self {
        const { assert!(core::mem::size_of::<V>() == core::mem::size_of::<T>()) };
        Keys {
            at: table.as_ptr().cast(),
            table: core::marker::PhantomData,
        }
    }

    /// The same keys behind a pointer the compiler has not seen
    /// ([`unseen`]): loads through the result cannot be hoisted past it.
    #[inline(always)]
    pub(super) fn fresh(self) -> Self {
        Keys {
            at: unseen(self.at),
            ..self
        }
    }

    /// Round key `r` (clamped to 14), by an unaligned load.
    #[inline(always)]
    pub(super) fn at(self, r: usize) -> V {
        // SAFETY: entry `r.min(14)` of the 15 lies in the borrowed table.
        unsafe { self.at.add(r.min(14)).read_unaligned() }
    }
}

impl Keys<'_, core::arch::x86_64::__m128i> {
    /// The xmm kernel's last round with `v` folded into its key:
    /// `aesenclast(x, k_r ⊕ v)` in one `asm!` block, so that `k_r ⊕ v`
    /// (the key, to whoever knows the data) lives only in the block's
    /// scratch register and is never spilled.
    #[inline]
    #[target_feature(enable = "aes,sse2")]
    pub(super) fn last_round_xor(
        self,
        x: core::arch::x86_64::__m128i,
        r: usize,
        v: core::arch::x86_64::__m128i,
    ) -> core::arch::x86_64::__m128i {
        let mut x = x;
        // SAFETY: the pointer is round key `r.min(14)` of the borrowed
        // table (`movdqu` needs no alignment); the block writes only its
        // register operands.
        unsafe {
            core::arch::asm!(
                "movdqu {t}, xmmword ptr [{p}]",
                "pxor {t}, {v}",
                "aesenclast {x}, {t}",
                x = inout(xmm_reg) x,
                v = in(xmm_reg) v,
                t = out(xmm_reg) _,
                p = in(reg) self.at.add(r.min(14)),
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        x
    }
}

impl Keys<'_, core::arch::x86_64::__m256i> {
    /// `vaesenc` of `x` with round key `r` (clamped to 14) as its memory
    /// operand, in an `asm!` block: the key never occupies a register the
    /// compiler could hoist out of a loop or spill.
    #[inline]
    #[target_feature(enable = "avx2,vaes,aes")]
    pub(super) fn round(
        self,
        x: core::arch::x86_64::__m256i,
        r: usize,
    ) -> core::arch::x86_64::__m256i {
        // SAFETY: the pointer is round key `r.min(14)` of the borrowed
        // table (a VEX memory operand needs no alignment).
        unsafe { vaesenc_at(x, self.at.add(r.min(14))) }
    }

    /// [`Keys::round`] on eight registers, the key loaded once into a
    /// scratch register of the same `asm!` block (eight memory operands
    /// cost Zen 4 a fifth of the ymm loop's speed).
    #[inline]
    #[target_feature(enable = "avx2,vaes,aes")]
    pub(super) fn round8(self, x: &mut [core::arch::x86_64::__m256i; 8], r: usize) {
        // SAFETY: as in `round`.
        unsafe { vaesenc8_at(x, self.at.add(r.min(14))) }
    }

    /// [`Keys::round8`] or, for other counts, [`Keys::round`] per register.
    #[inline]
    #[target_feature(enable = "avx2,vaes,aes")]
    pub(super) fn round_regs<const M: usize>(
        self,
        x: &mut [core::arch::x86_64::__m256i; M],
        r: usize,
    ) {
        if let Ok(x8) = <&mut [core::arch::x86_64::__m256i; 8]>::try_from(&mut x[..]) {
            self.round8(x8, r);
        } else {
            for xi in x {
                *xi = self.round(*xi, r);
            }
        }
    }

    /// [`Keys::last_round_xor`] of the eight registers `x` with the 256
    /// bytes at `data`, the key loaded once: `x[c]` becomes the last round
    /// of `x[c]` XORed with bytes `32c … 32c + 31`.
    ///
    /// # Safety
    /// `data` is valid for a read of 256 bytes.
    #[inline]
    #[target_feature(enable = "avx2,vaes,aes")]
    pub(super) unsafe fn last_round8_xor(
        self,
        x: &mut [core::arch::x86_64::__m256i; 8],
        r: usize,
        data: *const u8,
    ) {
        // SAFETY: as in `round`; `data` is the caller's.
        unsafe { vaesenclast8_xor_at(x, self.at.add(r.min(14)), data) }
    }

    /// The last round with `v` folded into its key: `vaesenclast(x, k_r ⊕
    /// v)`, which is `AES(…) ⊕ v` — counter mode's output straight from
    /// the state before the last round, no register ever holding the
    /// keystream alone.
    #[inline]
    #[target_feature(enable = "avx2,vaes,aes")]
    pub(super) fn last_round_xor(
        self,
        x: core::arch::x86_64::__m256i,
        r: usize,
        v: core::arch::x86_64::__m256i,
    ) -> core::arch::x86_64::__m256i {
        // SAFETY: as in `round`.
        unsafe { vaesenclast_xor_at(x, self.at.add(r.min(14)), v) }
    }
}

/// One `asm!` block over the eight ymm registers of `$x` (operands `x0` …
/// `x7`), the template lines given, then the further operands (`pure,
/// readonly`: the compiler may move or drop it, never split a key's load
/// from its use).
#[cfg(not(feature = "valgrind-isa"))]
macro_rules! asm_on8 {
    ($x:expr, [$($line:literal),+ $(,)?], $($operand:tt)+) => {{
        let [x0, x1, x2, x3, x4, x5, x6, x7] = $x;
        core::arch::asm!(
            $($line),+,
            x0 = inout(ymm_reg) *x0,
            x1 = inout(ymm_reg) *x1,
            x2 = inout(ymm_reg) *x2,
            x3 = inout(ymm_reg) *x3,
            x4 = inout(ymm_reg) *x4,
            x5 = inout(ymm_reg) *x5,
            x6 = inout(ymm_reg) *x6,
            x7 = inout(ymm_reg) *x7,
            $($operand)+
            options(pure, readonly, nostack, preserves_flags),
        )
    }};
}

/// `vaesenc x, x, [p]` in one `asm!` block.
///
/// # Safety
/// `p` is valid for a read of a `__m256i` (any alignment).
#[cfg(not(feature = "valgrind-isa"))]
#[inline]
#[target_feature(enable = "avx2,vaes,aes")]
unsafe fn vaesenc_at(
    x: core::arch::x86_64::__m256i,
    p: *const core::arch::x86_64::__m256i,
) -> core::arch::x86_64::__m256i {
    let mut x = x;
    // SAFETY: the caller's; the block writes only its register operand.
    unsafe {
        core::arch::asm!(
            "vaesenc {x}, {x}, ymmword ptr [{p}]",
            x = inout(ymm_reg) x,
            p = in(reg) p,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// `vaesenclast x, x, ([p] ⊕ v)` in one `asm!` block.
///
/// # Safety
/// `p` is valid for a read of a `__m256i` (any alignment).
#[cfg(not(feature = "valgrind-isa"))]
#[inline]
#[target_feature(enable = "avx2,vaes,aes")]
unsafe fn vaesenclast_xor_at(
    x: core::arch::x86_64::__m256i,
    p: *const core::arch::x86_64::__m256i,
    v: core::arch::x86_64::__m256i,
) -> core::arch::x86_64::__m256i {
    let mut x = x;
    // SAFETY: the caller's; the block writes only its register operands.
    unsafe {
        core::arch::asm!(
            "vpxor {v}, {v}, ymmword ptr [{p}]",
            "vaesenclast {x}, {x}, {v}",
            x = inout(ymm_reg) x,
            v = inout(ymm_reg) v => _,
            p = in(reg) p,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// `vaesenc` of the eight registers `x` with the key at `p`, loaded once.
///
/// # Safety
/// `p` is valid for a read of a `__m256i` (any alignment).
#[cfg(not(feature = "valgrind-isa"))]
#[inline]
#[target_feature(enable = "avx2,vaes,aes")]
unsafe fn vaesenc8_at(
    x: &mut [core::arch::x86_64::__m256i; 8],
    p: *const core::arch::x86_64::__m256i,
) {
    // SAFETY: the caller's; the block writes only its register operands.
    unsafe {
        asm_on8!(
            x,
            [
                "vmovdqu {k}, ymmword ptr [{p}]",
                "vaesenc {x0}, {x0}, {k}",
                "vaesenc {x1}, {x1}, {k}",
                "vaesenc {x2}, {x2}, {k}",
                "vaesenc {x3}, {x3}, {k}",
                "vaesenc {x4}, {x4}, {k}",
                "vaesenc {x5}, {x5}, {k}",
                "vaesenc {x6}, {x6}, {k}",
                "vaesenc {x7}, {x7}, {k}",
            ],
            k = out(ymm_reg) _,
            p = in(reg) p,
        );
    }
}

/// `vaesenclast x[c], x[c], ([p] ⊕ data[32c..32c + 32])` for the eight
/// registers, the key loaded once ([`Keys::last_round8_xor`]).
///
/// # Safety
/// `p` is valid for a read of a `__m256i`, `data` of 256 bytes (any
/// alignment).
#[cfg(not(feature = "valgrind-isa"))]
#[inline]
#[target_feature(enable = "avx2,vaes,aes")]
unsafe fn vaesenclast8_xor_at(
    x: &mut [core::arch::x86_64::__m256i; 8],
    p: *const core::arch::x86_64::__m256i,
    data: *const u8,
) {
    // SAFETY: the caller's; the block writes only its register operands.
    unsafe {
        asm_on8!(
            x,
            [
                "vmovdqu {k}, ymmword ptr [{p}]",
                "vpxor {t}, {k}, ymmword ptr [{d}]",
                "vaesenclast {x0}, {x0}, {t}",
                "vpxor {t}, {k}, ymmword ptr [{d} + 32]",
                "vaesenclast {x1}, {x1}, {t}",
                "vpxor {t}, {k}, ymmword ptr [{d} + 64]",
                "vaesenclast {x2}, {x2}, {t}",
                "vpxor {t}, {k}, ymmword ptr [{d} + 96]",
                "vaesenclast {x3}, {x3}, {t}",
                "vpxor {t}, {k}, ymmword ptr [{d} + 128]",
                "vaesenclast {x4}, {x4}, {t}",
                "vpxor {t}, {k}, ymmword ptr [{d} + 160]",
                "vaesenclast {x5}, {x5}, {t}",
                "vpxor {t}, {k}, ymmword ptr [{d} + 192]",
                "vaesenclast {x6}, {x6}, {t}",
                "vpxor {t}, {k}, ymmword ptr [{d} + 224]",
                "vaesenclast {x7}, {x7}, {t}",
            ],
            k = out(ymm_reg) _,
            t = out(ymm_reg) _,
            p = in(reg) p,
            d = in(reg) data,
        );
    }
}

/// The four ymm round functions under the test-only `valgrind-isa`
/// feature: the emulated forms of [`crate::vex256`] (valgrind runs no ymm
/// AES instruction), one key load per register.
#[cfg(feature = "valgrind-isa")]
mod emulated {
    use core::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_xor_si256};

    /// `vaesenc x, x, [p]`.
    ///
    /// # Safety
    /// `p` is valid for a read of a `__m256i` (any alignment).
    #[inline]
    #[target_feature(enable = "avx2,vaes,aes")]
    pub(super) unsafe fn vaesenc_at(x: __m256i, p: *const __m256i) -> __m256i {
        // SAFETY: the caller's.
        crate::vex256::_mm256_aesenc_epi128(x, unsafe { _mm256_loadu_si256(p) })
    }

    /// `vaesenclast x, x, ([p] ⊕ v)`.
    ///
    /// # Safety
    /// As [`vaesenc_at`]'s.
    #[inline]
    #[target_feature(enable = "avx2,vaes,aes")]
    pub(super) unsafe fn vaesenclast_xor_at(x: __m256i, p: *const __m256i, v: __m256i) -> __m256i {
        // SAFETY: the caller's.
        let k = unsafe { _mm256_loadu_si256(p) };
        crate::vex256::_mm256_aesenclast_epi128(x, _mm256_xor_si256(k, v))
    }

    /// [`vaesenc_at`] on eight registers.
    ///
    /// # Safety
    /// As [`vaesenc_at`]'s.
    #[inline]
    #[target_feature(enable = "avx2,vaes,aes")]
    pub(super) unsafe fn vaesenc8_at(x: &mut [__m256i; 8], p: *const __m256i) {
        for xi in x {
            // SAFETY: the caller's.
            *xi = unsafe { vaesenc_at(*xi, p) };
        }
    }

    /// [`vaesenclast_xor_at`] on eight registers with the 256 bytes at
    /// `data`.
    ///
    /// # Safety
    /// As [`vaesenc_at`]'s; `data` is valid for a read of 256 bytes.
    #[inline]
    #[target_feature(enable = "avx2,vaes,aes")]
    pub(super) unsafe fn vaesenclast8_xor_at(
        x: &mut [__m256i; 8],
        p: *const __m256i,
        data: *const u8,
    ) {
        for (c, xi) in x.iter_mut().enumerate() {
            // SAFETY: the caller's: block `c` lies in the 256 bytes.
            *xi =
                unsafe { vaesenclast_xor_at(*xi, p, _mm256_loadu_si256(data.add(32 * c).cast())) };
        }
    }
}

#[cfg(feature = "valgrind-isa")]
use emulated::{vaesenc_at, vaesenc8_at, vaesenclast_xor_at, vaesenclast8_xor_at};

/// A stitched kernel, as its [`Key`] (the `kernel` field) sees it.
pub(super) trait Kernel: Copy {
    /// The xmm AES-NI and PCLMULQDQ token the kernel's features imply: the
    /// key schedule, the powers and `J0` use it.
    fn aes_clmul(self) -> AesClmul;

    /// What the kernel's second table ([`Key::second`]) holds, for the
    /// zeroize-on-drop tests.
    #[cfg(test)]
    const SECOND: &'static str = "(none)";
}

impl<K: Kernel, const X: usize, const R: usize, const L: usize> Key<K, X, R, L> {
    /// Expands `key` (16, 24 or 32 bytes) and builds the tables: from
    /// `H`'s ascending powers `H^1 … H^32`, which `powers` computes from
    /// `H` (on the kernel's width) and which are wiped afterwards, the power
    /// table, then the second table by `second` (from the ascending powers
    /// and the power table) and the round-1 table by `round1`.
    pub(super) fn with_tables(
        kernel: K,
        key: &[u8],
        powers: impl FnOnce(u128) -> [u128; 32],
        second: impl FnOnce(&[u128; 32], &[u128; TABLE]) -> [u128; X],
        round1: impl FnOnce(AesClmul, &RoundKeys) -> [u128; R],
    ) -> Self {
        let aes = kernel.aes_clmul();
        let rk = crate::aes::aesni::expand(aes, key);
        let mut ascending = powers(hash_key(aes, &rk));
        let table = power_table(&ascending);
        let key = Key {
            kernel,
            second: second(&ascending, &table),
            round1: round1(aes, &rk),
            powers: table,
            wide: Wide::new(&rk),
            rk,
        };
        ascending.zeroize();
        key
    }

    /// GHASH of `data` (zero-padded) into `acc` with the power table's
    /// `H^1 … H^8` (`gcm::Backend::ghash_padded`): `J0` of an IV other than
    /// 96 bits (a path no bulk data takes).
    pub(super) fn hash_padded(&self, acc: u128, data: &[u8]) -> u128 {
        let t = self.kernel.aes_clmul().clmul();
        let mut ascending: [u128; 8] = core::array::from_fn(|i| self.powers[31 - i]);
        let acc = crate::ghash::gcm_update_clmul(t, &ascending, acc, data);
        ascending.zeroize();
        acc
    }
}

impl<K, const X: usize, const R: usize, const L: usize> Drop for Key<K, X, R, L> {
    fn drop(&mut self) {
        self.wide.0.zeroize();
        self.powers.zeroize();
        self.second.zeroize();
        self.round1.zeroize();
    }
}

#[cfg(test)]
impl<K: Kernel, const X: usize, const R: usize, const L: usize> crate::test_util::SecretSpans
    for Key<K, X, R, L>
{
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.rk.secret_spans(s);
        if L > 0 {
            s.secret("broadcast round keys", &self.wide.0);
        }
        s.secret("H power table", &self.powers);
        if X > 0 {
            s.secret(K::SECOND, &self.second);
        }
        if R > 0 {
            s.secret("round-1 table", &self.round1);
        }
    }
}

/// Declares a stitched kernel's helper functions `#[inline]` with the
/// kernel's target features (the string before the `;`), so that they
/// inline into its entry point, which has the same features; a helper may
/// take const parameters (`fn f<const NR: usize>(…)`, the AES round count
/// 10, 12 or 14, so that the round loops unroll) or lifetimes. (The ymm
/// kernel's helpers are `#[inline(always)]` and take its token instead; see
/// [`super::vaes256`].) After `entry`, the same without the `#[inline]`
/// hint: a kernel's entry points, each with its own inlining attribute.
macro_rules! target_fns {
    ($features:literal; $($(#[$m:meta])* fn $name:ident $(<$($l:lifetime),+>)? $(<$(const $g:ident: $gt:ty),+>)? ($($args:tt)*) $(-> $ret:ty)? $body:block)*) => {
        $(
            $(#[$m])*
            #[inline]
            #[target_feature(enable = $features)]
            fn $name $(<$($l),+>)? $(<$(const $g: $gt),+>)? ($($args)*) $(-> $ret)? $body
        )*
    };
    (entry $features:literal; $($(#[$m:meta])* fn $name:ident $(<$(const $g:ident: $gt:ty),+>)? ($($args:tt)*) $(-> $ret:ty)? $body:block)*) => {
        $(
            $(#[$m])*
            #[target_feature(enable = $features)]
            fn $name $(<$(const $g: $gt),+>)? ($($args)*) $(-> $ret)? $body
        )*
    };
}
pub(super) use target_fns;

/// The `gcm::Backend` methods of a stitched kernel's `Key` that forward
/// to the kernel (inside its `impl Backend for Key`): `ghash_padded` to
/// [`Key::hash_padded`], `seal` (`#[inline]`) to `$entry`, a function of
/// the kernel's module (see [`Key`] for why).
macro_rules! forward_to_kernel {
    ($entry:ident) => {
        fn ghash_padded(&self, acc: u128, data: &[u8]) -> u128 {
            self.hash_padded(acc, data)
        }

        #[doc = concat!("[`", stringify!($entry), "`], forwarded (see [`stitch::Key`]).")]
        #[inline]
        fn seal(&self, dir: Direction, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
            $entry(self, dir, j0, aad, buf)
        }
    };
}
pub(super) use forward_to_kernel;

/// The power table: `table[i]` = the dot-power of `H^(32−i)` for `i < 32`
/// (so `H^n … H^1` are its entries `32 − n … 31`), zeros after, from the
/// ascending powers `H^1 … H^32`.
pub(super) fn power_table(powers: &[u128; 32]) -> [u128; TABLE] {
    let mut t = [0u128; TABLE];
    for (i, v) in t.iter_mut().take(32).enumerate() {
        *v = powers[31 - i];
    }
    t
}

/// The GHASH key of the AES key `rk`: `H = AES(K, 0^128)` in POLYVAL's
/// domain ([`crate::ghash::gcm_key`]); the block is wiped.
fn hash_key(t: AesClmul, rk: &RoundKeys) -> u128 {
    let mut h = [0u8; 16];
    crate::aes::aesni::encrypt_blocks(t, rk, core::slice::from_mut(&mut h));
    let key = crate::ghash::gcm_key(&h);
    h.zeroize();
    key
}

/// Blocks per loop iteration of the zmm and ymm kernels.
pub(super) const STEP_BLOCKS: usize = 16;

/// The most bytes the xmm and ymm kernels' tail functions take: the
/// short-message path's 256 bytes of associated data or text, and a
/// loop's last `STEP − 1` bytes (each kernel asserts `STEP ≤ TAIL`).
pub(super) const TAIL: usize = 256;

/// Entries of the counter-mode round-1 table (module docs): one per value
/// of a counter block's last byte.
pub(super) const ROUND1: usize = 256;

/// Whether the round-1 table serves the `STEP_BLOCKS` counters from the
/// public counter `n`: their last byte runs from `n mod 256` up without
/// wrapping, so their other fifteen bytes are all those of `n`'s block.
#[inline(always)]
pub(super) fn round1_cached(n: u32) -> bool {
    (n & 0xff) as usize <= ROUND1 - STEP_BLOCKS
}

/// The counter blocks' 256-block run (bytes 0–14, i.e. the counter without
/// its last byte) that `n` lies in: the round-1 base is per run.
#[inline(always)]
pub(super) fn round1_run(n: u32) -> u32 {
    n >> 8
}

/// The round-1 base of the run of counter `n`: AES round 1 of its counter
/// block (`J0`'s first twelve bytes, `n` big-endian; `j0` holds `J0`'s
/// bytes little-endian) XORed with `round1[n mod 256]`, so that round 1 of
/// any block `C` of the run is `base ⊕ round1[C₁₅]` (module docs).
///
/// The round keys and the table entry are read from the key at each call
/// by volatile loads ([`key_reg`]): loaded normally, the compiler hoisted
/// them out of the kernels' loops and spilled them to the frame, which
/// nothing wipes.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(super) fn round1_base(rk: &RoundKeys, round1: &[u128; ROUND1], j0: u128, n: u32) -> u128 {
    use core::arch::x86_64::{_mm_aesenc_si128, _mm_xor_si128};
    let block = crate::simd::from_u128(counter_block_le(j0, n));
    let x = _mm_aesenc_si128(_mm_xor_si128(block, key_reg(&rk.rk, 0)), key_reg(&rk.rk, 1));
    crate::simd::to_u128(_mm_xor_si128(x, key_reg(round1, (n & 0xff) as usize)))
}

/// AES rounds 1 and 2 of `block` (bytes little-endian), the round keys
/// read as in [`round1_base`].
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(super) fn round2(rk: &RoundKeys, block: u128) -> u128 {
    use core::arch::x86_64::{_mm_aesenc_si128, _mm_xor_si128};
    let x = _mm_xor_si128(crate::simd::from_u128(block), key_reg(&rk.rk, 0));
    let x = _mm_aesenc_si128(_mm_aesenc_si128(x, key_reg(&rk.rk, 1)), key_reg(&rk.rk, 2));
    crate::simd::to_u128(x)
}

/// `AES(K, J0)`, the tag's mask, for a kernel of `NR` rounds (`j0`'s
/// bytes little-endian), in one `asm!` block: the round keys are memory
/// operands of the AES instructions, so no key is ever in a register the
/// compiler could move or spill, and the result is produced where the
/// block stands. (Written with intrinsics, the compiler moved the last
/// round to the kernel's end and kept the state before it and the last
/// round key in the frame until then, or loaded keys early and spilled
/// them.) `VEX`: the VEX encodings, for kernels whose upper register
/// halves are in use (a legacy SSE instruction there costs a transition
/// on Intel cores); else the SSE ones, for the xmm kernel.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(super) fn tag_mask<const NR: usize, const VEX: bool>(
    rk: &RoundKeys,
    j0: u128,
) -> core::arch::x86_64::__m128i {
    const { assert!(NR == 10 || NR == 12 || NR == 14) };
    let mut x = crate::simd::from_u128(j0);
    let p = rk.rk.as_ptr();
    // The chain in one encoding (each instruction's head, up to its
    // memory operand): round 0's XOR, rounds 1 … NR − 1, the last round.
    macro_rules! chain {
        ($xor:literal, $enc:literal, $last:literal) => {
            core::arch::asm!(
                concat!($xor, " xmmword ptr [{p}]"),
                "2:",
                "add {p}, 16",
                concat!($enc, " xmmword ptr [{p}]"),
                "dec {n}",
                "jnz 2b",
                concat!($last, " xmmword ptr [{p} + 16]"),
                x = inout(xmm_reg) x,
                p = inout(reg) p => _,
                n = inout(reg) NR - 1 => _,
                options(readonly, nostack),
            )
        };
    }
    // SAFETY: the block reads `rk.rk[0..=NR]` (16-byte aligned `u128`s,
    // `NR < 15`) and writes only its declared registers and the flags.
    unsafe {
        if VEX {
            chain!(
                "vpxor {x}, {x},",
                "vaesenc {x}, {x},",
                "vaesenclast {x}, {x},"
            );
        } else {
            chain!("pxor {x},", "aesenc {x},", "aesenclast {x},");
        }
    }
    x
}

/// Entry `i` of a key table by a volatile 16-byte load: a load the
/// compiler may neither hoist nor merge, so the value is never kept (and
/// spilled) beyond its use.
#[inline(always)]
fn key_reg<const N: usize>(table: &[u128; N], i: usize) -> core::arch::x86_64::__m128i {
    let i = i.min(N - 1);
    // SAFETY: `i < N`: an element of `table`, 16-byte aligned (`u128`),
    // read as the 16-byte vector of the same size.
    unsafe { core::ptr::read_volatile(table.as_ptr().add(i).cast()) }
}

/// The counter block of the public counter `n`: `J0`'s first twelve bytes,
/// then `n` big-endian (`j0` and the result hold the bytes little-endian).
#[inline(always)]
pub(super) fn counter_block_le(j0: u128, n: u32) -> u128 {
    (j0 & (u128::MAX >> 32)) | (u128::from(n.swap_bytes()) << 96)
}

/// The tag bytes from the hash `s` in POLYVAL's (byte-reversed) domain
/// and `AES(K, J0)` read little-endian: `AES(K, J0) ⊕ GHASH`, in GCM's
/// byte order — on xmm (the reversal by `pshufb`) and written by one
/// 16-byte store. (Through general registers it was two 8-byte stores,
/// from which a caller's 16-byte reload of the returned tag cannot
/// forward: `vaes-avx512-split`'s ymm path, whose caller copies the tag,
/// paid about 10 cycles a call on Zen 4.)
#[inline]
#[target_feature(enable = "ssse3")]
pub(super) fn tag_bytes(
    s: core::arch::x86_64::__m128i,
    tag_mask: core::arch::x86_64::__m128i,
) -> [u8; 16] {
    use core::arch::x86_64::*;
    let mut tag = [0u8; 16];
    let rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let v = _mm_xor_si128(_mm_shuffle_epi8(s, rev), tag_mask);
    // SAFETY: the store writes the 16 bytes of `tag`.
    unsafe { _mm_storeu_si128(tag.as_mut_ptr().cast(), v) };
    tag
}

/// Groups in a stitched loop's last reduction unit (at most): it meets
/// [`power_table`]'s per-lane powers `H^32 … H^1`, and no kernel's two
/// groups need more.
pub(super) const LAST_UNIT: usize = 2;

/// Where the stitched kernels' next loop group stands among the reduction
/// units. A loop's last unit is its last [`LAST_UNIT`] groups (or all of
/// them, if fewer); the groups before it form units of up to `unit`
/// groups, the first taking the remainder. A group with `k` groups of its
/// unit still to come (itself included) meets the powers that end `k`
/// groups before its table's end, so a unit's last group always meets the
/// lowest powers and ends with a reduction. The ymm and AES-NI kernels
/// reduce in pairs (`unit` 2, one table); the zmm kernel's units before
/// the last are up to four groups with uniform powers.
pub(super) struct Units {
    /// Groups still to come.
    left: usize,
    /// Groups still to come in the current unit (0: the next group starts
    /// one).
    in_unit: usize,
    /// The size of the next unit before the last: the remainder for the
    /// first, then `unit` (computed once, not divided per unit).
    next_size: usize,
    /// Groups per unit before the last (at most).
    unit: usize,
}

/// The next group's place ([`Units::next`]).
pub(super) struct Place {
    /// It starts a unit: empty sums, the accumulator enters.
    pub(super) starts: bool,
    /// It closes its unit: a reduction after it.
    pub(super) closes: bool,
    /// It belongs to the loop's last unit.
    pub(super) last: bool,
    /// Groups of its unit still to come, itself included (1 … unit).
    pub(super) in_unit: usize,
}

impl Place {
    /// The first power index of a group of `group` blocks in units of at
    /// most two groups (the ymm and AES-NI kernels; the power table's last
    /// `2·group` entries): a select between two constant indices, so that
    /// the power loads' addresses fold (computing `32 − group·in_unit` cost
    /// the ymm loop ≈ 6 % and the AES-NI loop ≈ 20 %).
    #[inline(always)]
    pub(super) fn pair_at(&self, group: usize) -> usize {
        if self.in_unit == 2 {
            32 - 2 * group
        } else {
            32 - group
        }
    }
}

impl Units {
    /// Units for `groups` groups, up to `unit` per unit before the last.
    pub(super) fn new(groups: usize, unit: usize) -> Units {
        Units {
            left: groups,
            in_unit: 0,
            next_size: groups.saturating_sub(LAST_UNIT + 1) % unit + 1,
            unit,
        }
    }

    /// The place of the next group.
    pub(super) fn next(&mut self) -> Place {
        // Every unit before the last ends with LAST_UNIT + 1 groups left.
        let last = self.left <= LAST_UNIT;
        let starts = self.in_unit == 0;
        if starts {
            self.in_unit = if last { self.left } else { self.next_size };
            self.next_size = self.unit;
        }
        let place = Place {
            starts,
            closes: self.in_unit == 1,
            last,
            in_unit: self.in_unit,
        };
        self.in_unit -= 1;
        self.left -= 1;
        place
    }
}

#[cfg(test)]
mod tests {
    use super::{ROUND1, round1_base};
    use crate::aes::aesni;
    use crate::cpu::AesClmul;
    use crate::test_util::splitmix64;

    /// The round-1 table's identity (module docs): AES round 1 of any
    /// counter block equals the base of its run XORed with the table entry
    /// of its last byte, whichever block of the run the base came from;
    /// and a base from another run does not fit (keys, `J0` and counters
    /// from a seeded SplitMix64).
    #[test]
    fn round1_base_and_table_give_round1() {
        let Some(t) = AesClmul::get() else { return };
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || splitmix64(&mut seed);
        for key_len in [16, 24, 32] {
            let key: [u8; 32] = core::array::from_fn(|_| next() as u8);
            let rk = aesni::expand(t, &key[..key_len]);
            let table: [u128; ROUND1] = aesni::round1_table(t, &rk);
            let j0 = u128::from(next()) | (u128::from(next()) << 64);
            let block = |n: u32| (j0 & (u128::MAX >> 32)) | (u128::from(n.swap_bytes()) << 96);
            for _ in 0..64 {
                let n = next() as u32;
                let m = (n & !0xff) | (next() as u32 & 0xff);
                // SAFETY: `AesClmul::get` proved AES-NI and SSE4.1.
                let (want, base, other) = unsafe {
                    (
                        aesni::round1(&rk, block(n)),
                        round1_base(&rk, &table, j0, m),
                        round1_base(&rk, &table, j0, m ^ 0x100),
                    )
                };
                assert_eq!(
                    base ^ table[(n & 0xff) as usize],
                    want,
                    "n {n:#x}, m {m:#x}"
                );
                assert_ne!(other ^ table[(n & 0xff) as usize], want, "n {n:#x}");
            }
        }
    }
}
