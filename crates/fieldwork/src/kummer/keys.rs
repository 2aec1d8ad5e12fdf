//! The safe layer of Kummer DH: [`SecretKey`], [`PublicKey`],
//! [`SharedSecret`] and [`KummerError`], on top of the raw
//! [`scalarmult`] / [`scalarmult_base`].
//!
//! # Public-key validation: the surface equation
//!
//! The ladder works on the *squared* Kummer surface of Bernstein,
//! Chuengsatiansup, Lange & Schwabe (*Kummer strikes back*, ePrint 2014/134,
//! §2–§3), which comes from Gaudry's theta Kummer surface (*Fast genus 2
//! arithmetic based on Theta functions*, J. Math. Cryptology 2007, §3) by
//! squaring the coordinates. With squared theta constants
//! `(a : b : c : d) = NEUTRAL = (−11 : 22 : 19 : 3)` and their Hadamard
//! transform `(A : B : C : D) = (33 : −11 : −17 : −49)`, the surface is
//!
//! ```text
//! 4E²·xyzt = (x² + y² + z² + t² − F(xt + yz) − G(xz + yt) − H(xy + zt))²
//!
//! F = (a² − b² − c² + d²)/(ad − bc) = −715/−451  =   65/41
//! G = (a² − b² + c² − d²)/(ac − bd) =  −11/−275  =    1/25
//! H = (a² + b² − c² − d²)/(ab − cd) =  235/−299  = −235/299
//! E² = abcd·(ABCD)² / ((ad − bc)(ac − bd)(ab − cd))²
//!    = −86143543794/93926925625
//! ```
//!
//! (Gaudry's quartic `x⁴ + … + 2E·xyzt − F(x²t² + y²z²) − …` in the
//! unsquared coordinates; moving `2E·xyzt` across and squaring gives the
//! form above in `x², y², z², t²`.) Multiplying by `S = 306475 = 41·25·299`,
//! the common denominator (`S² = 93926925625`), gives the integer form the
//! code evaluates:
//!
//! ```text
//! Q = 306475(x² + y² + z² + t²) − 485875(xt + yz) − 12259(xz + yt) + 240875(xy + zt)
//! K = Q² + 344574175176·xyzt           (344574175176 = −4E²S² = 2³·3³·7⁴·11²·17²·19)
//! ```
//!
//! and a point is on the surface when `K ≡ 0 (mod p)`. A 48-byte key holds
//! the ratios `u = (x/y, x/z, x/t)`; projectively the point is
//! `(u1·u2·u3 : u2·u3 : u1·u3 : u1·u2)`, the ladder's `R1`.
//!
//! The constants are not only transcribed: the unit tests recover the
//! quartic from the ladder alone (the 35 quartic monomials evaluated at 48
//! outputs of `scalarmult_base`, whose null space mod p is one-dimensional
//! and proportional to `K`), with big-integer arithmetic independent of the
//! field code here.
//!
//! # What is accepted
//!
//! [`PublicKey::from_bytes`] accepts exactly the encodings the ladder can
//! produce for a point with `x·y·z·t ≠ 0`: three canonical ratios (each
//! `< p`), all nonzero, on the surface.
//!
//! - The all-zero encoding is rejected ([`KummerError::ZeroCoordinate`]):
//!   the encoder writes it for *every* point with `Y·Z·T = 0` (and for
//!   `X = 0`), so it names no single point, and decoded it is the ladder
//!   input `(0 : 0 : 0 : 0)`, which is not a projective point (it satisfies
//!   every homogeneous equation). Any single zero ratio is rejected too: the
//!   encoder never writes one next to a nonzero ratio.
//! - The neutral element's encoding (`ff…ff3f ae a1 … 4a 51 55 … 55`) is on
//!   the surface and is accepted as a public key — [`SecretKey::public_key`]
//!   produces it for a secret key that is 0 modulo the group order, and
//!   every public key the library produces must parse. It can never yield a
//!   shared secret: `k·neutral = neutral` for every `k`, and
//!   [`SecretKey::diffie_hellman`] rejects a neutral (or all-zero) result.
//!   That check on the *result* is what makes the exchange contributory; it
//!   also catches any small-order input.
#![forbid(unsafe_code)]

use core::fmt;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::encoding::point_from_ratios;
use super::field::{Fe, P};
use super::{scalarmult, scalarmult_base};

/// `S = 306475 = 41·25·299`: the coefficient of `x² + y² + z² + t²` in `Q`
/// (the common denominator of F, G, H).
const SURFACE_S: i64 = 306_475;
/// `S·F`, `F = 65/41`: the coefficient of `−(xt + yz)`.
const SURFACE_SF: i64 = 485_875;
/// `S·G`, `G = 1/25`: the coefficient of `−(xz + yt)`.
const SURFACE_SG: i64 = 12_259;
/// `S·H`, `H = −235/299`: the coefficient of `−(xy + zt)`.
const SURFACE_SH: i64 = -240_875;
/// `4E²·S²`: `K = Q² − 4E²S²·xyzt`.
const SURFACE_4E2S2: i64 = -344_574_175_176;

/// The encoding of the neutral element `(−11 : 22 : 19 : 3)`: the ratios
/// `−1/2`, `−11/19`, `−11/3` mod p.
// Evaluated at compile time: an index out of range is a build error.
#[allow(clippy::indexing_slicing)]
const NEUTRAL_ENCODING: [u8; 48] = {
    let ratios: [u128; 3] = [
        0x3fff_ffff_ffff_ffff_ffff_ffff_ffff_ffff,
        0x4a1a_f286_bca1_af28_6bca_1af2_86bc_a1ae,
        0x5555_5555_5555_5555_5555_5555_5555_5551,
    ];
    let mut out = [0u8; 48];
    let mut i = 0;
    while i < 3 {
        let b = ratios[i].to_le_bytes();
        let mut j = 0;
        while j < 16 {
            out[16 * i + j] = b[j];
            j += 1;
        }
        i += 1;
    }
    out
};

/// The three 16-byte coordinates of a 48-byte point.
fn coordinates(point: &[u8; 48]) -> [[u8; 16]; 3] {
    let mut out = [[0u8; 16]; 3];
    for (o, c) in out.iter_mut().zip(point.as_chunks::<16>().0) {
        *o = *c;
    }
    out
}

/// The 16 bytes of coordinate `i` (0, 1 or 2) of a 48-byte point.
#[cfg(test)]
fn coordinate_bytes(point: &[u8; 48], i: usize) -> [u8; 16] {
    coordinates(point)[i]
}

/// The surface quartic `K(x, y, z, t)` of the module docs; zero exactly on
/// the surface.
fn surface_quartic(point: [Fe; 4]) -> Fe {
    let [x, y, z, t] = point;
    let squares = x.square().add(y.square()).add(z.square()).add(t.square());
    let xt_yz = x.mul(t).add(y.mul(z));
    let xz_yt = x.mul(z).add(y.mul(t));
    let xy_zt = x.mul(y).add(z.mul(t));
    let q = Fe::small(SURFACE_S)
        .mul(squares)
        .sub(Fe::small(SURFACE_SF).mul(xt_yz))
        .sub(Fe::small(SURFACE_SG).mul(xz_yt))
        .sub(Fe::small(SURFACE_SH).mul(xy_zt));
    let xyzt = x.mul(y).mul(z).mul(t);
    q.square().sub(Fe::small(SURFACE_4E2S2).mul(xyzt))
}

/// Whether two 48-byte strings are equal, reading every byte whatever the
/// contents (no early exit).
fn ct_eq_48(a: &[u8; 48], b: &[u8; 48]) -> bool {
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    core::hint::black_box(diff) == 0
}

/// Why a Kummer public key or shared secret was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KummerError {
    /// A 16-byte coordinate of a public key is not below p = 2^127 − 1 (this
    /// includes any coordinate with bit 127 set): the encoding is not the
    /// canonical one the ladder writes.
    NonCanonical {
        /// Which coordinate: 0 (x/y, bytes 0..16), 1 (x/z) or 2 (x/t).
        coordinate: usize,
    },
    /// A coordinate ratio of a public key is zero. The all-zero encoding
    /// stands for every point with `Y·Z·T = 0` at once, and no point has
    /// one zero ratio beside nonzero ones.
    ZeroCoordinate {
        /// Which coordinate: 0 (x/y), 1 (x/z) or 2 (x/t).
        coordinate: usize,
    },
    /// The public key's coordinates do not satisfy the surface equation.
    NotOnSurface,
    /// The Diffie–Hellman result has `Y·Z·T = 0` (the 48 zero bytes): no
    /// usable shared secret.
    DegenerateResult,
    /// The Diffie–Hellman result is the neutral element (the secret key is 0
    /// modulo the peer point's order, e.g. the peer sent the neutral
    /// element or a small-order point).
    NeutralResult,
}

impl fmt::Display for KummerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KummerError::NonCanonical { coordinate } => write!(
                f,
                "kummer: public key coordinate {coordinate} (bytes {}..{}) is not below 2^127 - 1",
                16 * coordinate,
                16 * coordinate + 16
            ),
            KummerError::ZeroCoordinate { coordinate } => write!(
                f,
                "kummer: public key coordinate {coordinate} (bytes {}..{}) is zero; it names no point",
                16 * coordinate,
                16 * coordinate + 16
            ),
            KummerError::NotOnSurface => {
                f.write_str("kummer: public key is not a point on the Kummer surface")
            }
            KummerError::DegenerateResult => {
                f.write_str("kummer: the shared secret is degenerate (Y·Z·T = 0)")
            }
            KummerError::NeutralResult => f.write_str(
                "kummer: the shared secret is the neutral element (zero or small-order input)",
            ),
        }
    }
}

impl core::error::Error for KummerError {}

/// A Kummer DH secret key: a 251-bit scalar in 32 little-endian bytes.
///
/// The top 5 bits of byte 31 are not used by the ladder (see
/// [`scalarmult`]); no clamping or reduction is applied.
/// The bytes are zeroized when the key is dropped (clones too), and `Debug`
/// does not show them.
///
/// # Example
///
/// ```
/// use fieldwork::kummer::SecretKey;
///
/// // In real use both keys come from `SecretKey::generate` with a
/// // cryptographically secure generator (e.g. the OS's).
/// let alice = SecretKey::from_bytes([7u8; 32]);
/// let bob = SecretKey::from_bytes([42u8; 32]);
///
/// // Each sends the other its public key (48 bytes)…
/// let (to_bob, to_alice) = (alice.public_key().to_bytes(), bob.public_key().to_bytes());
///
/// // …which the receiver validates, then both derive the same secret.
/// let a = alice.diffie_hellman(&fieldwork::kummer::PublicKey::from_bytes(&to_alice)?)?;
/// let b = bob.diffie_hellman(&fieldwork::kummer::PublicKey::from_bytes(&to_bob)?)?;
/// assert_eq!(a.as_bytes(), b.as_bytes());
/// # Ok::<(), fieldwork::kummer::KummerError>(())
/// ```
#[derive(Clone)]
pub struct SecretKey {
    bytes: [u8; 32],
}

impl SecretKey {
    /// The secret key with these 32 little-endian bytes (used as they are).
    pub fn from_bytes(bytes: [u8; 32]) -> SecretKey {
        SecretKey { bytes }
    }

    /// A fresh secret key: 32 bytes from `rng`, with the 5 unused top bits
    /// cleared.
    ///
    /// `rng` must be a cryptographically secure generator: the `CryptoRng`
    /// bound of `rand_core` 0.10 (re-exported as [`crate::rand_core`]), the
    /// version `rand` 0.10 and RustCrypto's `aead` 0.6 use, says so. For a
    /// fallible source such as the operating system's, use
    /// [`try_generate`](Self::try_generate).
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::kummer::SecretKey;
    ///
    /// let mut rng = rand::rng(); // rand 0.10's thread-local CSPRNG
    /// let (alice, bob) = (SecretKey::generate(&mut rng), SecretKey::generate(&mut rng));
    /// let ab = alice.diffie_hellman(&bob.public_key())?;
    /// let ba = bob.diffie_hellman(&alice.public_key())?;
    /// assert_eq!(ab.as_bytes(), ba.as_bytes());
    /// # Ok::<(), fieldwork::kummer::KummerError>(())
    /// ```
    pub fn generate<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> SecretKey {
        match SecretKey::try_generate(rng) {
            Ok(key) => key,
            Err(never) => match never {},
        }
    }

    /// As [`generate`](Self::generate), from a fallible generator (a
    /// `rand_core` 0.10 `TryCryptoRng`, such as `rand::rngs::SysRng`, the
    /// operating system's generator through `getrandom`).
    ///
    /// # Errors
    ///
    /// The generator's own error, if it could not deliver 32 bytes; no key
    /// material is kept then.
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::kummer::SecretKey;
    /// use rand::rngs::SysRng;
    ///
    /// let key = SecretKey::try_generate(&mut SysRng)?;
    /// assert!(key.as_bytes()[31] < 8);
    /// # Ok::<(), rand::rngs::SysError>(())
    /// ```
    pub fn try_generate<R: rand_core::TryCryptoRng + ?Sized>(
        rng: &mut R,
    ) -> Result<SecretKey, R::Error> {
        let mut key = SecretKey { bytes: [0u8; 32] };
        rng.try_fill_bytes(&mut key.bytes)?;
        key.bytes[31] &= 0x07;
        Ok(key)
    }

    /// The 32 bytes of the key (for storage; handle with care).
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.bytes
    }

    /// The public key `secret · BASE_POINT` ([`scalarmult_base`]).
    /// Constant time.
    pub fn public_key(&self) -> PublicKey {
        PublicKey {
            bytes: scalarmult_base(&self.bytes),
        }
    }

    /// The shared secret `secret · their_public`.
    ///
    /// The ladder runs in constant time, and the result is compared with the
    /// two rejected values (all zero, neutral) without early exit.
    ///
    /// # Errors
    ///
    /// [`KummerError::NeutralResult`] when the result is the neutral element
    /// (the secret is 0 modulo the order of the peer's point: a zero secret,
    /// the group order, or a neutral or small-order public key), and
    /// [`KummerError::DegenerateResult`] when it has `Y·Z·T = 0`. Both
    /// values are known to an attacker, so they must not be used as keys.
    pub fn diffie_hellman(&self, their_public: &PublicKey) -> Result<SharedSecret, KummerError> {
        // Built in place so that drop zeroizes it on the error path too.
        checked(SharedSecret(scalarmult(&self.bytes, &their_public.bytes)))
    }

    /// Two independent exchanges at once: `[a.diffie_hellman(pa),
    /// b.diffie_hellman(pb)]` for `pairs = [(a, pa), (b, pb)]`, with the same
    /// results and errors as two calls.
    ///
    /// For servers doing many exchanges: on the AVX-512 IFMA backend the two
    /// ladders run interleaved and share one inversion
    /// ([`Dispatch::scalarmult_pair`](super::Dispatch::scalarmult_pair)), so a
    /// pair costs about 0.85 of two single calls (measured in `peer-bench`,
    /// README "Kummer"). Constant time in both secrets and both public keys;
    /// one result's error does not affect the other's secret.
    ///
    /// ```
    /// use fieldwork::kummer::SecretKey;
    ///
    /// let (a, b, c) = (
    ///     SecretKey::from_bytes([1; 32]),
    ///     SecretKey::from_bytes([2; 32]),
    ///     SecretKey::from_bytes([3; 32]),
    /// );
    /// let (pb, pc) = (b.public_key(), c.public_key());
    /// let [ab, ac] = SecretKey::diffie_hellman_pair([(&a, &pb), (&a, &pc)]);
    /// assert_eq!(ab.unwrap().as_bytes(), b.diffie_hellman(&a.public_key()).unwrap().as_bytes());
    /// assert_eq!(ac.unwrap().as_bytes(), c.diffie_hellman(&a.public_key()).unwrap().as_bytes());
    /// ```
    pub fn diffie_hellman_pair(
        pairs: [(&SecretKey, &PublicKey); 2],
    ) -> [Result<SharedSecret, KummerError>; 2] {
        let [(a, pa), (b, pb)] = pairs;
        let mut both =
            super::Dispatch::best().scalarmult_pair([&a.bytes, &b.bytes], [&pa.bytes, &pb.bytes]);
        let out = both.map(|b| checked(SharedSecret(b)));
        both.zeroize();
        out
    }
}

/// The shared secret unless it is one of the two values an attacker knows
/// (all zero: `Y·Z·T = 0`; the neutral element), compared without early
/// exit. Takes the secret by value so that drop zeroizes it on the error
/// paths.
fn checked(shared: SharedSecret) -> Result<SharedSecret, KummerError> {
    let zero = ct_eq_48(&shared.0, &[0u8; 48]);
    let neutral = ct_eq_48(&shared.0, &NEUTRAL_ENCODING);
    if zero {
        Err(KummerError::DegenerateResult)
    } else if neutral {
        Err(KummerError::NeutralResult)
    } else {
        Ok(shared)
    }
}

impl Drop for SecretKey {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

impl ZeroizeOnDrop for SecretKey {}

#[cfg(test)]
impl crate::test_util::SecretSpans for SecretKey {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        s.secret("scalar", &self.bytes);
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretKey(<redacted>)")
    }
}

/// A Kummer DH public key: 48 bytes, the ratios x/y, x/z, x/t of a point on
/// the surface, each 16 bytes little-endian and canonical.
///
/// A value made by [`PublicKey::from_bytes`] has been validated (canonical,
/// nonzero ratios, on the surface; see the rules there); one made by
/// [`SecretKey::public_key`] is the ladder's output.
///
/// The surface (the squared Kummer surface of *Kummer strikes back*, §2–§3,
/// for the squared theta constants `(−11 : 22 : 19 : 3)`) is
///
/// ```text
/// 4E²·xyzt = (x² + y² + z² + t² − F(xt + yz) − G(xz + yt) − H(xy + zt))²
/// F = 65/41, G = 1/25, H = −235/299, 4E² = −344574175176/306475²
/// ```
///
/// with `(x : y : z : t) = (u1·u2·u3 : u2·u3 : u1·u3 : u1·u2)` for the
/// encoded ratios `u = (x/y, x/z, x/t)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey {
    bytes: [u8; 48],
}

impl PublicKey {
    /// Parses and validates a 48-byte public key.
    ///
    /// Accepted: exactly the encodings of points with `x·y·z·t ≠ 0` on the
    /// surface — each ratio canonical (`< 2^127 − 1`, so bit 127 clear) and
    /// nonzero, and the point `(u1·u2·u3 : u2·u3 : u1·u3 : u1·u2)` satisfying
    /// the surface equation. The neutral element's encoding is such a point
    /// and is accepted; [`SecretKey::diffie_hellman`] then refuses its
    /// result. Not constant time (public data).
    ///
    /// # Errors
    ///
    /// [`KummerError::NonCanonical`] for a coordinate `≥ p`,
    /// [`KummerError::ZeroCoordinate`] for a zero coordinate (the all-zero
    /// key included), [`KummerError::NotOnSurface`] otherwise when the
    /// equation fails.
    ///
    /// ```
    /// use fieldwork::kummer::{BASE_POINT, KummerError, PublicKey};
    ///
    /// assert!(PublicKey::from_bytes(&BASE_POINT).is_ok());
    /// let mut off = BASE_POINT;
    /// off[0] ^= 1;
    /// assert_eq!(PublicKey::from_bytes(&off), Err(KummerError::NotOnSurface));
    /// ```
    pub fn from_bytes(bytes: &[u8; 48]) -> Result<PublicKey, KummerError> {
        let mut ratios = [Fe(0); 3];
        for (coordinate, (ratio, c)) in ratios.iter_mut().zip(coordinates(bytes)).enumerate() {
            let value = u128::from_le_bytes(c);
            if value >= P {
                return Err(KummerError::NonCanonical { coordinate });
            }
            if value == 0 {
                return Err(KummerError::ZeroCoordinate { coordinate });
            }
            *ratio = Fe(value);
        }
        if surface_quartic(point_from_ratios(ratios)) != Fe(0) {
            return Err(KummerError::NotOnSurface);
        }
        Ok(PublicKey { bytes: *bytes })
    }

    /// The 48 bytes.
    pub fn as_bytes(&self) -> &[u8; 48] {
        &self.bytes
    }

    /// The 48 bytes, copied.
    pub fn to_bytes(&self) -> [u8; 48] {
        self.bytes
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PublicKey(")?;
        for b in &self.bytes {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

/// The result of Kummer DH: the 48-byte encoding of the shared point.
///
/// These are raw group-element bytes, not a uniformly random key: derive
/// keys from them with a hash or KDF. Zeroized on drop; `Debug` does not
/// show them; not `Clone`.
pub struct SharedSecret([u8; 48]);

impl SharedSecret {
    /// The 48 bytes.
    pub fn as_bytes(&self) -> &[u8; 48] {
        &self.0
    }
}

impl Drop for SharedSecret {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl ZeroizeOnDrop for SharedSecret {}

#[cfg(test)]
impl crate::test_util::SecretSpans for SharedSecret {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        s.secret("shared point", &self.0);
    }
}

impl fmt::Debug for SharedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SharedSecret(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::Backend;
    use super::super::portable::Portable;
    use super::super::test_rng::Rng;
    use super::*;
    use num_bigint::BigUint;
    use std::vec::Vec;

    fn ratios(point: &[u8; 48]) -> [Fe; 3] {
        core::array::from_fn(|i| Fe::from_bytes(&coordinate_bytes(point, i)))
    }

    fn on_surface(point: &[u8; 48]) -> bool {
        surface_quartic(point_from_ratios(ratios(point))) == Fe(0)
    }

    #[test]
    fn neutral_encoding_is_the_ladder_output_for_zero() {
        assert_eq!(scalarmult_base(&[0u8; 32]), NEUTRAL_ENCODING);
        // And the encoding of (−11 : 22 : 19 : 3) by its ratios.
        let n = super::super::NEUTRAL.map(Fe::small);
        for (i, d) in [n[1], n[2], n[3]].into_iter().enumerate() {
            assert_eq!(
                n[0].mul(d.invert()).to_bytes(),
                coordinate_bytes(&NEUTRAL_ENCODING, i)
            );
        }
    }

    #[test]
    fn known_points_are_on_the_surface() {
        let neutral = super::super::NEUTRAL.map(Fe::small);
        assert_eq!(surface_quartic(neutral), Fe(0));
        assert!(on_surface(&NEUTRAL_ENCODING));
        assert!(on_surface(&super::super::BASE_POINT));
        let mut rng = Rng::new(0x6b75_6d6d_6572);
        for _ in 0..200 {
            let k: [u8; 32] = rng.bytes();
            let pk = scalarmult_base(&k);
            assert!(on_surface(&pk), "k = {k:02x?}");
            assert_eq!(PublicKey::from_bytes(&pk).map(|p| p.to_bytes()), Ok(pk));
            // The projective point before encoding satisfies it too (any scaling).
            let proj = Portable.ladder(&k, ratios(&super::super::BASE_POINT));
            assert_eq!(surface_quartic(proj), Fe(0));
        }
    }

    #[test]
    fn random_strings_are_not_on_the_surface() {
        let mut rng = Rng::new(0x0ff_5eed);
        for _ in 0..5000 {
            let mut b: [u8; 48] = rng.bytes();
            for i in 0..3 {
                b[16 * i + 15] &= 0x3f; // canonical and nonzero in practice
            }
            assert!(!on_surface(&b), "{b:02x?}");
            assert_eq!(PublicKey::from_bytes(&b), Err(KummerError::NotOnSurface));
        }
    }

    #[test]
    fn ct_eq_finds_every_differing_byte() {
        let a = NEUTRAL_ENCODING;
        assert!(ct_eq_48(&a, &a));
        for i in 0..48 {
            for bit in 0..8 {
                let mut b = a;
                b[i] ^= 1 << bit;
                assert!(!ct_eq_48(&a, &b));
            }
        }
    }

    // ---- The independent derivation: the quartic from points alone. ----

    /// p as a big integer.
    fn p_big() -> BigUint {
        (BigUint::from(1u8) << 127u32) - 1u8
    }

    /// `v mod p` for a signed value.
    fn signed_mod_p(v: i128) -> BigUint {
        let p = p_big();
        let m = BigUint::from(v.unsigned_abs()) % &p;
        if v < 0 { (&p - m) % &p } else { m }
    }

    /// The 35 exponent vectors `(i, j, k, l)`, `i + j + k + l = 4`.
    fn quartic_monomials() -> Vec<[u32; 4]> {
        let mut out = Vec::new();
        for i in 0..=4u32 {
            for j in 0..=4 - i {
                for k in 0..=4 - i - j {
                    out.push([i, j, k, 4 - i - j - k]);
                }
            }
        }
        out
    }

    /// The one-dimensional null space of `rows` (mod p), by Gauss–Jordan
    /// elimination in big integers; panics unless the rank is `cols − 1`.
    fn null_vector(mut rows: Vec<Vec<BigUint>>, cols: usize) -> Vec<BigUint> {
        let p = p_big();
        let zero = BigUint::from(0u8);
        let inverse = |x: &BigUint| x.modpow(&(&p - 2u8), &p);
        let mut pivots = Vec::new();
        let mut r = 0;
        for c in 0..cols {
            let Some(pr) = (r..rows.len()).find(|&i| rows[i][c] != zero) else {
                continue;
            };
            rows.swap(r, pr);
            let inv = inverse(&rows[r][c]);
            for x in rows[r].iter_mut() {
                *x = &*x * &inv % &p;
            }
            let pivot_row = rows[r].clone();
            for (i, row) in rows.iter_mut().enumerate() {
                if i != r && row[c] != zero {
                    let f = row[c].clone();
                    for (x, y) in row.iter_mut().zip(&pivot_row) {
                        let sub = &f * y % &p;
                        *x = (&*x + &p - sub) % &p;
                    }
                }
            }
            pivots.push(c);
            r += 1;
        }
        assert_eq!(r, cols - 1, "the null space is not one-dimensional");
        let free = (0..cols).find(|c| !pivots.contains(c)).unwrap();
        let mut v = std::vec![zero; cols];
        v[free] = BigUint::from(1u8);
        for (i, &c) in pivots.iter().enumerate() {
            v[c] = (&p - &rows[i][free]) % &p;
        }
        v
    }

    /// The integer coefficients of `K = Q² − 4E²S²·xyzt` by monomial,
    /// expanded exactly (over ℤ) from the constants used above.
    fn quartic_coefficients(monomials: &[[u32; 4]]) -> Vec<i128> {
        // Q as (coefficient, exponents) terms.
        let (s, f, g, h) = (
            i128::from(SURFACE_S),
            i128::from(SURFACE_SF),
            i128::from(SURFACE_SG),
            i128::from(SURFACE_SH),
        );
        let q: [(i128, [u32; 4]); 10] = [
            (s, [2, 0, 0, 0]),
            (s, [0, 2, 0, 0]),
            (s, [0, 0, 2, 0]),
            (s, [0, 0, 0, 2]),
            (-f, [1, 0, 0, 1]),
            (-f, [0, 1, 1, 0]),
            (-g, [1, 0, 1, 0]),
            (-g, [0, 1, 0, 1]),
            (-h, [1, 1, 0, 0]),
            (-h, [0, 0, 1, 1]),
        ];
        let mut out = std::vec![0i128; monomials.len()];
        let index = |e: [u32; 4]| monomials.iter().position(|m| *m == e).unwrap();
        for (c1, e1) in q {
            for (c2, e2) in q {
                let e = core::array::from_fn(|i| e1[i] + e2[i]);
                out[index(e)] += c1 * c2;
            }
        }
        out[index([1, 1, 1, 1])] -= i128::from(SURFACE_4E2S2);
        out
    }

    #[test]
    fn the_equation_is_the_null_space_of_ladder_outputs() {
        let p = p_big();
        let monomials = quartic_monomials();
        assert_eq!(monomials.len(), 35);
        let mut rng = Rng::new(0x4e75_6c6c);
        let mut rows = Vec::new();
        for _ in 0..48 {
            let k: [u8; 32] = rng.bytes();
            let pk = scalarmult_base(&k);
            let u: Vec<BigUint> = (0..3)
                .map(|i| BigUint::from_bytes_le(&coordinate_bytes(&pk, i)))
                .collect();
            let point = [
                &u[0] * &u[1] * &u[2] % &p,
                &u[1] * &u[2] % &p,
                &u[0] * &u[2] % &p,
                &u[0] * &u[1] % &p,
            ];
            rows.push(
                monomials
                    .iter()
                    .map(|m| {
                        (0..4).fold(BigUint::from(1u8), |acc, i| {
                            acc * point[i].modpow(&BigUint::from(m[i]), &p) % &p
                        })
                    })
                    .collect::<Vec<_>>(),
            );
        }
        let v = null_vector(rows, monomials.len());
        let k: Vec<BigUint> = quartic_coefficients(&monomials)
            .into_iter()
            .map(signed_mod_p)
            .collect();
        // Proportional: v = λ·k with λ fixed by the x⁴ coefficient (S² ≠ 0).
        let i4 = monomials.iter().position(|m| *m == [4, 0, 0, 0]).unwrap();
        assert_ne!(k[i4], BigUint::from(0u8));
        let lambda = &v[i4] * k[i4].modpow(&(&p - 2u8), &p) % &p;
        for (i, m) in monomials.iter().enumerate() {
            assert_eq!(v[i], &lambda * &k[i] % &p, "monomial {m:?}");
        }
        // And K really has the 4E²S² term (the null vector is not just Q²).
        let i1111 = monomials.iter().position(|m| *m == [1, 1, 1, 1]).unwrap();
        assert_ne!(k[i1111], BigUint::from(0u8));
    }

    #[test]
    fn constants_match_the_paper_formulas() {
        // From (a : b : c : d) = NEUTRAL and (A : B : C : D) = H(a, b, c, d),
        // in exact rationals: S·F, S·G, S·H and 4E²S² as integers.
        let [a, b, c, d] = super::super::NEUTRAL.map(i128::from);
        let (aa, bb, cc, dd) = (a + b + c + d, a + b - c - d, a - b + c - d, a - b - c + d);
        let s = i128::from(SURFACE_S);
        let (fn_, fd) = (a * a - b * b - c * c + d * d, a * d - b * c);
        let (gn, gd) = (a * a - b * b + c * c - d * d, a * c - b * d);
        let (hn, hd) = (a * a + b * b - c * c - d * d, a * b - c * d);
        assert_eq!(s * fn_, i128::from(SURFACE_SF) * fd);
        assert_eq!(s * gn, i128::from(SURFACE_SG) * gd);
        assert_eq!(s * hn, i128::from(SURFACE_SH) * hd);
        // 4E²S² = 4·abcd·(ABCD)²·S² / (fd·gd·hd)².
        let den = fd * gd * hd;
        let abcd = aa * bb * cc * dd;
        assert_eq!(
            i128::from(SURFACE_4E2S2) * den * den,
            4 * a * b * c * d * abcd * abcd * s * s
        );
        // The ladder's CD and CH are 1/(a : b : c : d) and 1/(A : B : C : D).
        let cd = super::super::CD.map(i128::from);
        let ch = super::super::CH.map(i128::from);
        for (x, y) in [(cd, [a, b, c, d]), (ch, [aa, bb, cc, dd])] {
            let prod = x[0] * y[0];
            assert!((0..4).all(|i| x[i] * y[i] == prod));
        }
    }

    #[test]
    fn degenerate_result_is_rejected() {
        // Only reachable by skipping validation: the all-zero "point" takes
        // the ladder to (0 : 0 : 0 : 0), encoded as 48 zero bytes.
        let zero = PublicKey { bytes: [0u8; 48] };
        let mut rng = Rng::new(0xde9e);
        for _ in 0..8 {
            let sk = SecretKey::from_bytes(rng.bytes());
            assert_eq!(
                sk.diffie_hellman(&zero).map(|s| s.0),
                Err(KummerError::DegenerateResult)
            );
        }
    }

    #[test]
    fn debug_output() {
        let sk = SecretKey::from_bytes([0x5a; 32]);
        let shown = std::format!("{sk:?}");
        assert!(!shown.contains("5a") && !shown.contains("90"), "{shown}");
        let pk = PublicKey::from_bytes(&super::super::BASE_POINT).unwrap();
        assert_eq!(
            std::format!("{pk:?}"),
            "PublicKey(060000000000000000000000000000006830\
             1e6b4dafc7569d1fa7f87139376b01000000000000000000000000000000)"
        );
    }
}
