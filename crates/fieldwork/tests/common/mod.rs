//! Shared test support: a seeded PRNG, data-file parsing, and the
//! differential harness every backend is tested through.
#![allow(dead_code)]

use std::fmt::Debug;

/// SplitMix64 (Steele, Lea, Flood 2014): a small, seeded, reproducible PRNG
/// for test inputs. Not for keys.
#[derive(Clone, Debug)]
pub struct Rng(u64);

/// The same generator as a `rand_core` 0.10 source, for the APIs that take
/// one (`random` of the field types).
impl fieldwork::rand_core::TryRng for Rng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(Rng::next_u64(self) as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(Rng::next_u64(self))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for b in dst {
            *b = Rng::next_u64(self) as u8;
        }
        Ok(())
    }
}

impl Rng {
    /// A generator seeded from `seed` (tests print it so failures reproduce).
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value with a random number of random bits set: dense, sparse, or
    /// near the edges, so edge patterns appear often.
    pub fn next_u64_shaped(&mut self) -> u64 {
        let x = self.next_u64();
        match self.next_u64() % 8 {
            0 => x & self.next_u64() & self.next_u64(), // sparse
            1 => x | self.next_u64() | self.next_u64(), // dense
            2 => 1u64 << (x % 64),                      // one bit
            3 => !(1u64 << (x % 64)),                   // all but one
            4 => x >> (self.next_u64() % 64),           // short
            _ => x,
        }
    }
}

/// Lines of a data file in tests/data, without comments and blank lines,
/// split on whitespace.
pub fn data_lines(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

/// The definition of the product of binary polynomials: XOR of `a·x^i` for
/// every set bit `i` of `b`, one bit at a time (no word products at all) —
/// the reference every backend is tested against.
pub fn mul_bitwise(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + b.len()];
    for i in 0..64 * b.len() {
        if (b[i / 64] >> (i % 64)) & 1 == 1 {
            let (w, s) = (i / 64, i % 64);
            for (j, &x) in a.iter().enumerate() {
                out[w + j] ^= x << s;
                if s != 0 {
                    out[w + j + 1] ^= x >> (64 - s);
                }
            }
        }
    }
    out
}

/// A big-endian hex string as a `u128`.
pub fn hex_u128(s: &str) -> u128 {
    u128::from_str_radix(s, 16).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// A backend's function, boxed.
pub type BackendFn<'a, I, O> = Box<dyn Fn(&I) -> O + 'a>;

/// One backend under test: a name and, if the CPU supports it, the function.
pub struct Candidate<'a, I, O> {
    pub name: &'a str,
    pub f: Option<BackendFn<'a, I, O>>,
}

impl<'a, I, O> Candidate<'a, I, O> {
    pub fn new(name: &'a str, f: Option<impl Fn(&I) -> O + 'a>) -> Self {
        Candidate {
            name,
            f: f.map(|f| Box::new(f) as Box<dyn Fn(&I) -> O + 'a>),
        }
    }
}

/// Runs every available candidate on every input and compares it with
/// `reference`. Candidates the CPU lacks are skipped (and said so on stderr),
/// not compiled out. Returns how many comparisons were made, so a caller can
/// assert the test did work.
pub fn differential<I: Debug, O: PartialEq + Debug>(
    what: &str,
    reference: impl Fn(&I) -> O,
    candidates: &[Candidate<'_, I, O>],
    inputs: impl IntoIterator<Item = I>,
) -> usize {
    for c in candidates.iter().filter(|c| c.f.is_none()) {
        eprintln!(
            "{what}: backend {} not usable on this CPU/cap, skipped",
            c.name
        );
    }
    let live: Vec<&Candidate<'_, I, O>> = candidates.iter().filter(|c| c.f.is_some()).collect();
    let mut compared = 0;
    for input in inputs {
        let want = reference(&input);
        for c in &live {
            let Some(f) = &c.f else { continue };
            let got = f(&input);
            assert_eq!(
                got, want,
                "{what}: backend {} differs on input {input:?}",
                c.name
            );
            compared += 1;
        }
    }
    compared
}

/// One [`Candidate`] per backend name of the keyed type `T`
/// ([`Backends::NAMES`](fieldwork::hazmat::Backends::NAMES), every one this
/// build has): `run(name, input)` on the backend named, or no function
/// (reported and skipped by [`differential`]) where this CPU or the cap
/// lacks it, as `probe` (any valid key or key and nonce) shows. The one
/// generic way an area's differential test reaches every backend.
pub fn backend_candidates<'a, T, I, O>(
    probe: T::Input<'_>,
    run: impl Fn(&'static str, &I) -> O + Copy + 'a,
) -> Vec<Candidate<'a, I, O>>
where
    T: fieldwork::hazmat::Backends,
{
    T::NAMES
        .iter()
        .map(|&name| {
            let usable = T::with_backend(name, probe).is_some();
            Candidate::new(name, usable.then_some(move |input: &I| run(name, input)))
        })
        .collect()
}

/// Bytes between two inaccessible pages (`mmap` with `PROT_NONE` around
/// one read-write page): a read or write past either end of a slice placed
/// against a guard faults, so the kernels' partial-register loads and
/// stores (masked, no stack copy) are shown to stay inside the buffer.
#[cfg(unix)]
pub struct Guarded {
    base: *mut u8,
    page: usize,
}

#[cfg(unix)]
impl Guarded {
    pub fn new() -> Guarded {
        // SAFETY: plain POSIX calls; the result is checked.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
            let base = libc::mmap(
                core::ptr::null_mut(),
                3 * page,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(base, libc::MAP_FAILED);
            let base = base.cast::<u8>();
            let rw = libc::mprotect(
                base.add(page).cast(),
                page,
                libc::PROT_READ | libc::PROT_WRITE,
            );
            assert_eq!(rw, 0);
            Guarded { base, page }
        }
    }

    /// `len` bytes ending at the guard after the page (`end`) or starting
    /// at the guard before it.
    pub fn slice(&mut self, len: usize, end: bool) -> &mut [u8] {
        assert!(len <= self.page);
        let start = if end { 2 * self.page - len } else { self.page };
        // SAFETY: `start .. start + len` lies in the read-write page.
        unsafe { core::slice::from_raw_parts_mut(self.base.add(start), len) }
    }
}

#[cfg(unix)]
impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`.
        unsafe { libc::munmap(self.base.cast(), 3 * self.page) };
    }
}

/// Every backend (and forced schedule) of the keyed type `T` that this CPU
/// runs for `input`, best first (`fieldwork::hazmat`: the default's backend
/// unless a tuning table picks a schedule for this core); the names it
/// cannot run are said on stderr, as [`differential`] does, not compiled
/// out. Panics if the portable backend is missing (it always runs).
pub fn every_backend<T: fieldwork::hazmat::Backends>(input: T::Input<'_>) -> Vec<T> {
    let mut all = Vec::new();
    for name in T::NAMES {
        match T::with_backend(name, input) {
            Some(v) => all.push(v),
            None => eprintln!("backend {name} not usable on this CPU/cap, skipped"),
        }
    }
    assert!(
        all.iter().any(|v| v.backend() == "portable"),
        "no portable backend among {:?}",
        T::NAMES
    );
    all
}
