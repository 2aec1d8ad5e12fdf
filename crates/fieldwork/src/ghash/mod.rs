//! GHASH and POLYVAL: polynomial hashing over GF(2^128).
//!
//! *Status: in progress (issue 5). [`Polyval`] and [`GHash`] (streaming,
//! any split of the input gives the same result) and the one-shot
//! [`polyval`] / [`ghash`] run on portable, PCLMULQDQ and VPCLMULQDQ
//! backends with aggregated reduction; the white paper's algorithm
//! progression, the `universal-hash` traits and AES-GCM are not yet here.*
//!
//! GHASH (NIST SP 800-38D) evaluates the polynomial `Σ Xᵢ·H^(n−i+1)` in
//! GF(2^128) defined by `x^128 + x^7 + x^2 + x + 1`, with GCM's reflected bit
//! order. POLYVAL (RFC 8452) is the same hash in the un-reflected field
//! `x^128 + x^127 + x^126 + x^121 + 1`, which suits little-endian machines:
//! `dot(a, b) = a·b·x^(−128)` and `POLYVAL(H, X₁…Xₙ) = dot(…dot(dot(X₁, H) ⊕
//! X₂, H)… ⊕ Xₙ, H)`. GHASH is computed as POLYVAL with byte-reversed blocks
//! and the key `mulX(ByteReverse(H))` (RFC 8452, appendix A).
//!
//! The techniques come from Gueron & Kounavis, *Intel Carry-Less
//! Multiplication Instruction and its Usage for Computing the GCM Mode*
//! (Intel white paper 323640, rev. 2.02): Karatsuba for the 128×128 product,
//! reduction by two carry-less multiplications by the constant 0xc2…01
//! (here a Montgomery reduction, which is where POLYVAL's `x^(−128)` comes
//! from), and *aggregated reduction* — summing `Xᵢ·H^k` over many blocks
//! with precomputed powers of H and reducing once.
//!
//! ```
//! use fieldwork::ghash::{polyval, Polyval};
//!
//! let h = [7u8; 16];
//! let data = [1u8; 100];
//! let mut p = Polyval::new(&h);
//! p.update(&data[..33]);
//! p.update(&data[33..]);
//! assert_eq!(p.finalize(), polyval(&h, &data));
//! ```

#[cfg(target_arch = "x86_64")]
mod clmul;
mod portable;
#[cfg(target_arch = "x86_64")]
mod vpclmul;

use crate::cpu;
use zeroize::Zeroize;

/// Blocks per aggregated step of the widest kernel; the key holds this
/// many powers of H.
const POWERS: usize = 32;

/// `C = x^63 + x^62 + x^57`: the high word of POLYVAL's reduction constant
/// 0xc2000000000000000000000000000001.
pub(crate) const C_HI: u64 = 0xc200_0000_0000_0000;

/// `v·x^(−64)` folded once: `swap64(v) ⊕ v₀·C` (see [`mont_reduce`]).
#[inline(always)]
fn fold(v: u128) -> u128 {
    let d0 = v as u64 as u128;
    // d0·C for C = x^63 + x^62 + x^57, as shifts: constant time.
    let t = (d0 << 63) ^ (d0 << 62) ^ (d0 << 57);
    v.rotate_left(64) ^ t
}

/// Montgomery reduction: `(hi·x^128 + lo)·x^(−128) mod P` for POLYVAL's
/// `P = x^128 + x^127 + x^126 + x^121 + 1`.
///
/// Adding `d₀·P` to `T = hi·x^128 + d₁·x^64 + d₀` clears its low word;
/// dividing by x^64 leaves `hi·x^64 + (d₁ + d₀·x^64 + d₀·C)` with
/// `C = x^63 + x^62 + x^57`. Twice, and the low half is folded into `hi`.
/// (The white paper's reduction by two multiplications by 0xc2…, §
/// "reduction with carry-less multiplication".)
#[inline(always)]
pub(crate) fn mont_reduce(lo: u128, hi: u128) -> u128 {
    hi ^ fold(fold(lo))
}

/// `dot(a, b) = a·b·x^(−128)` on the portable backend.
#[inline]
fn dot_portable(a: u128, b: u128) -> u128 {
    let (lo, hi) = portable::clmul128(a, b);
    mont_reduce(lo, hi)
}

/// `v·x mod P`: RFC 8452's `mulX_POLYVAL`, constant time.
fn mul_x(v: u128) -> u128 {
    let top = (v >> 127).wrapping_neg(); // all ones if bit 127 is set
    (v << 1) ^ (top & 0xc200_0000_0000_0000_0000_0000_0000_0001)
}

#[derive(Clone, Copy, Debug)]
enum Kernel {
    #[cfg(target_arch = "x86_64")]
    Zmm(cpu::Avx512Clmul),
    #[cfg(target_arch = "x86_64")]
    Xmm(cpu::Clmul),
    Portable,
}

impl Kernel {
    fn best() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Avx512Clmul::get() {
            return Kernel::Zmm(t);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Clmul::get() {
            return Kernel::Xmm(t);
        }
        Kernel::Portable
    }

    /// The PCLMULQDQ kernel, if usable (tests and benchmarks).
    fn pclmulqdq() -> Option<Kernel> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Clmul::get() {
            return Some(Kernel::Xmm(t));
        }
        None
    }

    fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Zmm(_) => "vpclmulqdq",
            #[cfg(target_arch = "x86_64")]
            Kernel::Xmm(_) => "pclmulqdq",
            Kernel::Portable => "portable",
        }
    }
}

/// POLYVAL (RFC 8452) with streaming input.
///
/// `update` takes any number of bytes; a final partial block is padded with
/// zeros by `finalize`, as in AES-GCM-SIV. Any split of the input into
/// `update` calls gives the same result. The key material is zeroized on
/// drop. Constant time in the key and the data.
///
/// ```
/// use fieldwork::ghash::Polyval;
///
/// let mut p = Polyval::new(&[0x42; 16]);
/// p.update(b"sixteen byte blk");
/// let tag: [u8; 16] = p.finalize();
/// assert_ne!(tag, [0; 16]);
/// ```
#[derive(Clone)]
pub struct Polyval {
    inner: State,
}

/// GHASH (NIST SP 800-38D) with streaming input; see [`Polyval`] for the
/// streaming rules. Blocks and the result use GCM's byte order.
///
/// ```
/// use fieldwork::ghash::{ghash, GHash};
///
/// let h = [0x66; 16];
/// let mut g = GHash::new(&h);
/// g.update(b"any split ");
/// g.update(b"gives the same result");
/// assert_eq!(g.finalize(), ghash(&h, b"any split gives the same result"));
/// ```
#[derive(Clone)]
pub struct GHash {
    inner: State,
}

/// The shared engine: key powers, accumulator, partial-block buffer.
#[derive(Clone)]
struct State {
    kernel: Kernel,
    /// `powers[k − 1]` = the dot-power `H^k·x^(−128(k−1))`, so that
    /// `dot(X, powers[k−1]) = X·H^k·x^(−128k)`.
    powers: [u128; POWERS],
    /// How many of `powers` are computed.
    ready: usize,
    acc: u128,
    buf: [u8; 16],
    buffered: usize,
    /// Blocks are byte-reversed (GHASH) before entering POLYVAL.
    reflect: bool,
}

impl State {
    fn new(h: u128, reflect: bool, kernel: Kernel) -> State {
        let mut powers = [0u128; POWERS];
        powers[0] = h;
        State {
            kernel,
            powers,
            ready: 1,
            acc: 0,
            buf: [0; 16],
            buffered: 0,
            reflect,
        }
    }

    /// Prepares the powers `H^1 … H^n` (at most [`POWERS`]) if not yet
    /// done: key setup is paid for the powers a message needs, so short
    /// messages stay cheap.
    fn ensure_powers(&mut self, n: usize) {
        // The zmm kernel takes 32 blocks per reduction; everything else
        // (the xmm kernel, and the zmm kernel's tails of < 32 blocks) takes
        // groups of at most 8.
        #[cfg(target_arch = "x86_64")]
        let wide = matches!(self.kernel, Kernel::Zmm(_)) && n >= POWERS;
        #[cfg(not(target_arch = "x86_64"))]
        let wide = false;
        let upto = if wide { POWERS } else { n.min(8) };
        if self.ready >= upto {
            return;
        }
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Zmm(t) => clmul::powers(t.clmul(), &mut self.powers[..upto], self.ready),
            #[cfg(target_arch = "x86_64")]
            Kernel::Xmm(t) => clmul::powers(t, &mut self.powers[..upto], self.ready),
            Kernel::Portable => {
                for k in self.ready..upto {
                    self.powers[k] = dot_portable(self.powers[k - 1], self.powers[0]);
                }
            }
        }
        self.ready = upto;
    }

    /// Absorbs whole 16-byte blocks.
    fn blocks(&mut self, data: &[u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        let n = data.len() / 16;
        self.ensure_powers(n);
        self.acc = absorb_blocks(self.kernel, &self.powers, self.acc, data, self.reflect);
    }

    fn update(&mut self, mut data: &[u8]) {
        if self.buffered > 0 {
            let take = (16 - self.buffered).min(data.len());
            self.buf[self.buffered..self.buffered + take].copy_from_slice(&data[..take]);
            self.buffered += take;
            data = &data[take..];
            if self.buffered < 16 {
                return;
            }
            let b = self.buf;
            self.blocks(&b);
            self.buffered = 0;
        }
        let whole = data.len() - data.len() % 16;
        if whole > 0 {
            self.blocks(&data[..whole]);
        }
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buffered = rest.len();
    }

    fn finalize(mut self) -> u128 {
        if self.buffered > 0 {
            let mut b = [0u8; 16];
            b[..self.buffered].copy_from_slice(&self.buf[..self.buffered]);
            self.blocks(&b);
            self.buffered = 0;
        }
        self.acc
    }
}

impl Drop for State {
    fn drop(&mut self) {
        // Only the computed powers hold key material.
        self.powers[..self.ready].zeroize();
        self.acc.zeroize();
        self.buf.zeroize();
    }
}

/// `acc` after absorbing the whole blocks of `data` on `kernel`, whose
/// powers must be ready in `powers` (see [`State::ensure_powers`]).
#[inline]
fn absorb_blocks(
    kernel: Kernel,
    powers: &[u128; POWERS],
    acc: u128,
    data: &[u8],
    reflect: bool,
) -> u128 {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Zmm(t) => vpclmul::update(t, powers, acc, data, reflect),
        #[cfg(target_arch = "x86_64")]
        Kernel::Xmm(t) => clmul::update(t, powers, acc, data, reflect),
        Kernel::Portable => portable::update(powers[0], acc, data, reflect),
    }
}

/// GHASH key material for AES-GCM (crate-internal): the POLYVAL-domain
/// key `mulX(ByteReverse(H))` and every power its kernel uses, computed
/// once per key so that each message starts hashing at once. The
/// accumulator is POLYVAL's (byte-reversed GHASH state).
#[derive(Clone)]
pub(crate) struct GcmHashKey {
    kernel: Kernel,
    /// `powers[k − 1]` = the dot-power of `H^k` (see [`State::powers`]).
    pub(crate) powers: [u128; POWERS],
}

impl GcmHashKey {
    fn with_kernel(h: &[u8; 16], kernel: Kernel) -> GcmHashKey {
        let mut s = State::new(mul_x(u128::from_be_bytes(*h)), true, kernel);
        s.ensure_powers(POWERS);
        GcmHashKey {
            kernel,
            powers: s.powers,
        }
    }

    /// Portable kernel (only `H^1` is used).
    pub(crate) fn portable(h: &[u8; 16]) -> GcmHashKey {
        GcmHashKey::with_kernel(h, Kernel::Portable)
    }

    /// PCLMULQDQ kernel: `H^1 … H^8`.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn xmm(h: &[u8; 16], t: cpu::Clmul) -> GcmHashKey {
        GcmHashKey::with_kernel(h, Kernel::Xmm(t))
    }

    /// VPCLMULQDQ kernel: `H^1 … H^32`.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn zmm(h: &[u8; 16], t: cpu::Avx512Clmul) -> GcmHashKey {
        GcmHashKey::with_kernel(h, Kernel::Zmm(t))
    }

    /// `acc` after absorbing `data` in GCM's byte order, a final partial
    /// block padded with zeros (SP 800-38D's `A ∥ 0^v`, `C ∥ 0^u`).
    pub(crate) fn update_padded(&self, acc: u128, data: &[u8]) -> u128 {
        let whole = data.len() & !15;
        let mut acc = acc;
        if whole > 0 {
            acc = absorb_blocks(self.kernel, &self.powers, acc, &data[..whole], true);
        }
        if whole < data.len() {
            let mut b = [0u8; 16];
            b[..data.len() - whole].copy_from_slice(&data[whole..]);
            acc = absorb_blocks(self.kernel, &self.powers, acc, &b, true);
            b.zeroize();
        }
        acc
    }

    /// `acc` after one block given as POLYVAL's element (already
    /// byte-reversed), e.g. the lengths block.
    pub(crate) fn update_element(&self, acc: u128, x: u128) -> u128 {
        self.update_padded(acc, &x.to_be_bytes())
    }
}

impl Drop for GcmHashKey {
    fn drop(&mut self) {
        self.powers.zeroize();
    }
}

/// A block as POLYVAL's field element: little-endian, or byte-reversed
/// (big-endian) for GHASH.
#[inline(always)]
fn load(c: &[u8], reflect: bool) -> u128 {
    let mut b = [0u8; 16];
    b.copy_from_slice(c);
    if reflect {
        u128::from_be_bytes(b)
    } else {
        u128::from_le_bytes(b)
    }
}

impl Polyval {
    /// A POLYVAL instance keyed by `h` (16 bytes, little-endian field
    /// element), on the fastest backend.
    pub fn new(h: &[u8; 16]) -> Polyval {
        Polyval {
            inner: State::new(u128::from_le_bytes(*h), false, Kernel::best()),
        }
    }

    /// Absorbs `data` (any length; see the type docs).
    pub fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The hash, with a final partial block zero-padded.
    pub fn finalize(self) -> [u8; 16] {
        self.inner.finalize().to_le_bytes()
    }

    /// The backend in use: `vpclmulqdq`, `pclmulqdq` or `portable`.
    pub fn backend_name(&self) -> &'static str {
        self.inner.kernel.name()
    }

    #[doc(hidden)]
    pub fn new_portable(h: &[u8; 16]) -> Polyval {
        Polyval {
            inner: State::new(u128::from_le_bytes(*h), false, Kernel::Portable),
        }
    }

    #[doc(hidden)]
    pub fn new_pclmulqdq(h: &[u8; 16]) -> Option<Polyval> {
        Kernel::pclmulqdq().map(|k| Polyval {
            inner: State::new(u128::from_le_bytes(*h), false, k),
        })
    }
}

impl GHash {
    /// A GHASH instance keyed by the hash key `h` (GCM byte order), on the
    /// fastest backend.
    pub fn new(h: &[u8; 16]) -> GHash {
        GHash::with_kernel(h, Kernel::best())
    }

    fn with_kernel(h: &[u8; 16], kernel: Kernel) -> GHash {
        // RFC 8452, appendix A: GHASH(H, X) = ByteReverse(POLYVAL(
        // mulX(ByteReverse(H)), ByteReverse(X₁), …)).
        GHash {
            inner: State::new(mul_x(u128::from_be_bytes(*h)), true, kernel),
        }
    }

    /// Absorbs `data` (any length; see [`Polyval`]).
    pub fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The hash, with a final partial block zero-padded.
    pub fn finalize(self) -> [u8; 16] {
        self.inner.finalize().to_be_bytes()
    }

    /// The backend in use: `vpclmulqdq`, `pclmulqdq` or `portable`.
    pub fn backend_name(&self) -> &'static str {
        self.inner.kernel.name()
    }

    #[doc(hidden)]
    pub fn new_portable(h: &[u8; 16]) -> GHash {
        GHash::with_kernel(h, Kernel::Portable)
    }

    #[doc(hidden)]
    pub fn new_pclmulqdq(h: &[u8; 16]) -> Option<GHash> {
        Kernel::pclmulqdq().map(|k| GHash::with_kernel(h, k))
    }
}

/// One-shot POLYVAL of `data` (final partial block zero-padded).
pub fn polyval(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut p = Polyval::new(h);
    p.update(data);
    p.finalize()
}

/// One-shot GHASH of `data` (final partial block zero-padded).
pub fn ghash(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut g = GHash::new(h);
    g.update(data);
    g.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-by-bit POLYVAL dot: a·b·x^(−128) mod P, by shift-and-add and
    /// 128 halvings.
    fn dot_ref(a: u128, b: u128) -> u128 {
        // a·b mod P by shift-and-add (mul_x is v·x mod P).
        let mut r = 0u128;
        let mut v = a;
        for i in 0..128 {
            if (b >> i) & 1 == 1 {
                r ^= v;
            }
            v = mul_x(v);
        }
        // Divide by x 128 times: x^(−1) = (v + v₀·P)/x.
        for _ in 0..128 {
            let low = r & 1;
            r >>= 1;
            if low == 1 {
                // (P − 1)/x = x^127 + x^126 + x^125 + x^120.
                r ^= (1 << 127) | (1 << 126) | (1 << 125) | (1 << 120);
            }
        }
        r
    }

    #[test]
    fn reduction_matches_the_bitwise_reference() {
        let mut s = 0x1234_5678_9abc_def0_u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (u128::from(s) << 64) | u128::from(s.rotate_left(17) ^ 0x9e37)
        };
        for _ in 0..300 {
            let (a, b) = (next(), next());
            assert_eq!(dot_portable(a, b), dot_ref(a, b));
        }
        assert_eq!(
            dot_portable(u128::MAX, u128::MAX),
            dot_ref(u128::MAX, u128::MAX)
        );
    }
}
