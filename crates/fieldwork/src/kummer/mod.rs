//! Diffie–Hellman on a genus-2 Kummer surface over GF(2^127 − 1).
//!
//! Two layers: the safe key types [`SecretKey`], [`PublicKey`] (validated:
//! canonical, nonzero, on the surface) and [`SharedSecret`] (degenerate and
//! neutral results rejected), zeroized on drop; and the raw
//! SUPERCOP-compatible [`scalarmult`] / [`scalarmult_base`]. Backends
//! ([`Backend`]): AVX-512 IFMA (both ladder points in one zmm, 43/43/41-bit
//! limbs), AVX2 (four coordinates per ymm) and portable (`u128`); all
//! constant time, all giving the same bytes. For throughput,
//! [`Backend::scalarmult_pair`] computes two independent products at once.
//!
//! ```
//! use fieldwork::kummer::{PublicKey, SecretKey};
//!
//! let alice = SecretKey::from_bytes([0x11; 32]);
//! let bob = SecretKey::from_bytes([0x22; 32]);
//! // Public keys travel as 48 bytes and are validated on arrival.
//! let to_bob = PublicKey::from_bytes(alice.public_key().as_bytes())?;
//! let to_alice = PublicKey::from_bytes(bob.public_key().as_bytes())?;
//! let k1 = bob.diffie_hellman(&to_bob)?;
//! let k2 = alice.diffie_hellman(&to_alice)?;
//! assert_eq!(k1.as_bytes(), k2.as_bytes());
//! # Ok::<(), fieldwork::kummer::KummerError>(())
//! ```
//!
//! The method of Bernstein, Chuengsatiansup, Lange & Schwabe, *Kummer strikes
//! back: new DH speed records* (ASIACRYPT 2014, ePrint 2014/134): a
//! Montgomery-like ladder on the Gaudry–Schost Kummer surface, where each
//! step is two Hadamard transforms, coordinate-wise products and
//! multiplications by small constants — four independent field operations at
//! a time, which maps onto SIMD lanes. Scalars are 251 bits; points are
//! encoded as 48 bytes (three coordinate ratios), compatible with the
//! authors' `kummer` software in SUPERCOP.
//!
//! # The ladder
//!
//! Everything is mod p = 2^127 − 1; `H(x, y, z, t) = (x+y+z+t, x+y−z−t,
//! x−y+z−t, x−y−z+t)`; `⊙` is the coordinate-wise product. With the input
//! point's ratios `u = (x/y, x/z, x/t)`, `R0 = NEUTRAL = (−11, 22, 19, 3)`
//! and `R1 = (u1·u2·u3, u2·u3, u1·u3, u1·u2)` (the point, projectively), for
//! each scalar bit from 250 down to 0: swap R0 and R1 by mask when the bit
//! differs from the previous one; `A = H(R0)`, `B = H(R1)`; `B = B ⊙ A`,
//! `A = A ⊙ A`; both `⊙ CH` with `CH = (−833, 2499, 1617, 561)`; `H` again;
//! square both; `R1 = B ⊙ (1, u1, u2, u3)` (differential addition),
//! `R0 = A ⊙ CD` with `CD = (−114, 57, 66, 418)` (doubling). A final masked
//! swap undoes the last one. The output `(X : Y : Z : T)` is encoded as
//! X/Y, X/Z, X/T with one inversion (`r = X·(Y·Z·T)^(p−2)`, then three
//! products), by a fixed addition chain; when `Y·Z·T = 0` every ratio is 0.
//!
//! # Key generation: a comb on the Jacobian
//!
//! [`scalarmult_base`] (and so [`SecretKey::public_key`]) does not run the
//! ladder: it computes `k·D` on the Jacobian of the genus-2 curve under
//! the surface, for the base point's preimage `D`, by a fixed-base comb
//! (35 mixed additions over a 144 KiB table of multiples of `D`, signed
//! odd 7-bit digits, constant-time row scans) and maps the result to the
//! surface with one linear map; the curve, the map and the table were
//! derived from the surface and checked against the ladder by
//! `scripts/kummer_fixed_base/derive.py`. Details, formulas and the
//! exceptional cases in `fixed_base.rs`. The result is byte for byte the
//! ladder's (tested on edge and random scalars); [`Backend::scalarmult_base`]
//! still runs the named backend's ladder.
//!
//! It runs on every backend, on AVX-512 IFMA machines too (its row scans
//! on AVX2), and is faster than each backend's ladder. Measured history:
//! `docs/notes/kummer-fixed-base.md`.
//!
//! Rejected before it: a right-to-left ladder over a table of `2^i·P`
//! (Oliveira, López, Hışıl, Faz-Hernández and Rodríguez-Henríquez, *How
//! to (pre-)compute a ladder*, SAC 2017). It drops the doubling, the cheap
//! half of a Kummer step, and the addition left needs a variable
//! difference: per bit 4 products, 1 square and 3 transforms against the
//! ladder's 2, 3 and 4 — no gain, so not written.
//!
//! # Example: the raw functions
//!
//! ```
//! use fieldwork::kummer::{scalarmult, scalarmult_base};
//!
//! let (a, b) = ([7u8; 32], [42u8; 32]);
//! let (pa, pb) = (scalarmult_base(&a), scalarmult_base(&b));
//! assert_eq!(scalarmult(&a, &pb), scalarmult(&b, &pa));
//! ```

#[cfg(target_arch = "x86_64")]
mod avx2;
mod encoding;
mod field;
mod fixed_base;
mod fixed_base_table;
#[cfg(target_arch = "x86_64")]
mod ifma;
mod portable;

mod keys;
pub use keys::*;
#[cfg(test)]
mod field_tests;

/// The squared-surface neutral point `(11 : −22 : −19 : −3)`, scaled.
const NEUTRAL: [i64; 4] = [-11, 22, 19, 3];
/// Proportional to `1/(A² : B² : C² : D²)`.
const CH: [i64; 4] = [-833, 2499, 1617, 561];
/// Proportional to `1/(a² : b² : c² : d²)`.
const CD: [i64; 4] = [-114, 57, 66, 418];

/// The base point: x/y = 6, x/z = 0x6b373971f8a71f9d56c7af4d6b1e3068,
/// x/t = 1 (16 little-endian bytes each).
// Evaluated at compile time: an index out of range is a build error.
#[allow(clippy::indexing_slicing)]
pub const BASE_POINT: [u8; 48] = {
    let mut b = [0u8; 48];
    b[0] = 6;
    let xz = 0x6b37_3971_f8a7_1f9d_56c7_af4d_6b1e_3068u128.to_le_bytes();
    let mut i = 0;
    while i < 16 {
        b[16 + i] = xz[i];
        i += 1;
    }
    b[32] = 1;
    b
};

/// `scalar · point`, SUPERCOP's `crypto_scalarmult` for the `kummer`
/// primitive.
///
/// The scalar is the low 251 bits of the 32 little-endian bytes (the top 5
/// bits of byte 31 are ignored; no clamping, no reduction). The point is
/// three 16-byte little-endian field elements x/y, x/z, x/t; bit 127 of each
/// is ignored and values ≥ p are reduced. The output is canonical; when the
/// result has `Y·Z·T = 0` it is 48 zero bytes. Constant time in the scalar
/// and the point. Runs on [`Backend::best`].
pub fn scalarmult(scalar: &[u8; 32], point: &[u8; 48]) -> [u8; 48] {
    Backend::best().scalarmult(scalar, point)
}

/// `scalar · BASE_POINT`, SUPERCOP's `crypto_scalarmult_base`: the same
/// bytes as `scalarmult(scalar, &BASE_POINT)`, by a fixed-base comb on the
/// Jacobian under the surface (module docs, "Key generation"), on every
/// backend (1.43× the IFMA ladder on Zen 4).
pub fn scalarmult_base(scalar: &[u8; 32]) -> [u8; 48] {
    let b = Backend::best();
    match b.0 {
        #[cfg(target_arch = "x86_64")]
        BackendKind::Ifma(t) => fixed_base::scalarmult_base(t.avx2(), scalar),
        #[cfg(target_arch = "x86_64")]
        BackendKind::Avx2(t) => fixed_base::scalarmult_base(t, scalar),
        BackendKind::Portable => fixed_base::scalarmult_base(fixed_base::PortableScan, scalar),
    }
}

/// A Kummer ladder implementation usable on this CPU.
///
/// Holding a value proves the CPU supports it; [`Backend::best`] picks the
/// fastest under the `FIELDWORK_MAX_ISA` cap. Every backend gives the same
/// bytes (tested), and every one is constant time.
///
/// ```
/// use fieldwork::kummer::{Backend, BASE_POINT};
///
/// let k = [5u8; 32];
/// let fast = Backend::best().scalarmult(&k, &BASE_POINT);
/// assert_eq!(fast, Backend::portable().scalarmult(&k, &BASE_POINT));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Backend(BackendKind);

#[derive(Clone, Copy, Debug)]
enum BackendKind {
    #[cfg(target_arch = "x86_64")]
    Ifma(crate::cpu::Avx512Ifma),
    #[cfg(target_arch = "x86_64")]
    Avx2(crate::cpu::Avx2),
    Portable,
}

impl Backend {
    /// The fastest backend usable on this CPU under the cap.
    ///
    /// # Panics
    ///
    /// On first use, if `FIELDWORK_MAX_ISA` is set to an unknown level.
    #[inline]
    pub fn best() -> Backend {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx512Ifma::get() {
            return Backend(BackendKind::Ifma(t));
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx2::get() {
            return Backend(BackendKind::Avx2(t));
        }
        Backend(BackendKind::Portable)
    }

    /// The portable, constant-time backend (64-bit limbs, `u128` products;
    /// always available).
    pub fn portable() -> Backend {
        Backend(BackendKind::Portable)
    }

    /// The AVX-512 IFMA backend, if usable.
    pub fn avx512ifma() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx512Ifma::get() {
            return Some(Backend(BackendKind::Ifma(t)));
        }
        None
    }

    /// The AVX2 backend (four coordinates per ymm), if usable.
    pub fn avx2() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx2::get() {
            return Some(Backend(BackendKind::Avx2(t)));
        }
        None
    }

    /// Every usable backend, best first (for tests and benchmarks).
    #[doc(hidden)]
    pub fn all() -> impl Iterator<Item = Backend> {
        Backend::avx512ifma()
            .into_iter()
            .chain(Backend::avx2())
            .chain(core::iter::once(Backend::portable()))
    }

    /// The backend's name: `avx512ifma`, `avx2` or `portable`.
    pub fn name(self) -> &'static str {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            BackendKind::Ifma(_) => "avx512ifma",
            #[cfg(target_arch = "x86_64")]
            BackendKind::Avx2(_) => "avx2",
            BackendKind::Portable => "portable",
        }
    }

    /// `scalar · point` on this backend (see [`scalarmult`]).
    pub fn scalarmult(self, scalar: &[u8; 32], point: &[u8; 48]) -> [u8; 48] {
        let u = encoding::decode(point);
        let r = match self.0 {
            #[cfg(target_arch = "x86_64")]
            BackendKind::Ifma(t) => ifma::ladder(t, scalar, u),
            #[cfg(target_arch = "x86_64")]
            BackendKind::Avx2(t) => avx2::ladder(t, scalar, u),
            BackendKind::Portable => portable::ladder(scalar, u),
        };
        encoding::encode(r)
    }

    /// Two independent scalar multiplications, `[scalars[0] · points[0],
    /// scalars[1] · points[1]]`, with the same bytes as two calls of
    /// [`Backend::scalarmult`].
    ///
    /// For throughput: on the AVX-512 IFMA backend the two ladders run
    /// interleaved (each fills the other's latency gaps) and share one
    /// inversion, so a pair costs well under two single calls; the AVX2
    /// backend runs both ladders' steps in one loop (a secret about 4 %
    /// cheaper than by two calls), the portable one runs them one after
    /// the other; both share the inversion.
    /// Constant time in both scalars and both points.
    ///
    /// ```
    /// use fieldwork::kummer::{Backend, BASE_POINT};
    ///
    /// let b = Backend::best();
    /// let (s, t) = ([3u8; 32], [9u8; 32]);
    /// let pt = b.scalarmult(&t, &BASE_POINT);
    /// let pair = b.scalarmult_pair([&s, &t], [&BASE_POINT, &pt]);
    /// assert_eq!(pair[0], b.scalarmult(&s, &BASE_POINT));
    /// assert_eq!(pair[1], b.scalarmult(&t, &pt));
    /// ```
    pub fn scalarmult_pair(self, scalars: [&[u8; 32]; 2], points: [&[u8; 48]; 2]) -> [[u8; 48]; 2] {
        let u = points.map(encoding::decode);
        let r = match self.0 {
            #[cfg(target_arch = "x86_64")]
            BackendKind::Ifma(t) => ifma::ladder_pair(t, scalars, u),
            #[cfg(target_arch = "x86_64")]
            BackendKind::Avx2(t) => avx2::ladder_pair(t, scalars, u),
            BackendKind::Portable => {
                let ([s0, s1], [u0, u1]) = (scalars, u);
                [portable::ladder(s0, u0), portable::ladder(s1, u1)]
            }
        };
        encoding::encode_pair(r)
    }

    /// `scalar · BASE_POINT` by this backend's ladder (the fixed-base comb
    /// of [`scalarmult_base`] gives the same bytes).
    pub fn scalarmult_base(self, scalar: &[u8; 32]) -> [u8; 48] {
        self.scalarmult(scalar, &BASE_POINT)
    }
}
