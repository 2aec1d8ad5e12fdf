//! Helpers shared by the crate's unit tests (the integration tests have
//! their own in `tests/common`).

extern crate std;
use std::{vec, vec::Vec};

/// One step of SplitMix64 (Steele, Lea & Flood, 2014): advances `state`
/// and returns the next output. Reproducible test inputs from a seed.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `n` pseudo-random words from an xorshift64* state (must be nonzero).
pub(crate) fn words(state: &mut u64, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| {
            *state ^= *state >> 12;
            *state ^= *state << 25;
            *state ^= *state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
        .collect()
}

/// The product by the bit-by-bit definition (no word products).
pub(crate) fn mul_bitwise(a: &[u64], b: &[u64]) -> Vec<u64> {
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

/// The byte ranges of a value's secret fields, as offsets from the value's
/// start, for [`assert_zeroized_on_drop`]. Built from references to the
/// fields while the value is alive; only addresses are taken, so the
/// implementations are safe code.
pub(crate) struct Spans {
    base: usize,
    spans: Vec<Span>,
}

struct Span {
    what: &'static str,
    offset: usize,
    len: usize,
    /// Checked to hold a nonzero byte before the drop (so that the test
    /// can fail); off for storage that may hold uninitialised bytes while
    /// the value lives (a third-party type wiped whole by its `Drop`).
    nonzero_before: bool,
}

impl Spans {
    fn add<T: ?Sized>(&mut self, what: &'static str, field: &T, nonzero_before: bool) {
        let addr = core::ptr::from_ref(field).cast::<u8>().addr();
        self.spans.push(Span {
            what,
            offset: addr - self.base,
            len: core::mem::size_of_val(field),
            nonzero_before,
        });
    }

    /// A field holding key material: nonzero while the value lives (the
    /// test picks such keys), zero after the drop.
    pub(crate) fn secret<T: ?Sized>(&mut self, what: &'static str, field: &T) {
        self.add(what, field, true);
    }

    /// A field whose type's own `Drop` wipes all of its bytes (the `aes`
    /// crate's key schedules, `zeroize_flat_type`): zero after the drop;
    /// not read before it (a union may hold bytes never written).
    pub(crate) fn wiped_whole<T: ?Sized>(&mut self, what: &'static str, field: &T) {
        self.add(what, field, false);
    }
}

/// A type whose secret fields the drop test knows (implemented under
/// `cfg(test)` next to each type, which alone sees its private fields).
pub(crate) trait SecretSpans {
    fn secret_spans(&self, s: &mut Spans);
}

/// The bytes of each secret span of `value` (name, before, after): read
/// while it lives, then after `drop_in_place` in a slot that stays
/// allocated.
#[allow(unsafe_code)]
pub(crate) fn secret_bytes_around_drop<T: SecretSpans>(
    value: T,
) -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    let mut slot = core::mem::MaybeUninit::new(value);
    let base = slot.as_ptr().cast::<u8>();
    let mut spans = Spans {
        base: base.addr(),
        spans: Vec::new(),
    };
    // SAFETY: the slot was initialised by `MaybeUninit::new` just above.
    unsafe { slot.assume_init_ref() }.secret_spans(&mut spans);
    assert!(!spans.spans.is_empty(), "a type with no secret spans");
    let read = |s: &Span| -> Vec<u8> {
        (s.offset..s.offset + s.len)
            // SAFETY: each span lies inside the slot (it was taken from a
            // field of the value in it) and the slot outlives these reads;
            // the bytes read were written: a field of the live value
            // (spans with `nonzero_before`: plain integers and arrays of
            // them, no padding), or by its `Drop`'s zeroize.
            .map(|i| unsafe { core::ptr::read_volatile(base.add(i)) })
            .collect()
    };
    let before: Vec<Vec<u8>> = spans
        .spans
        .iter()
        .map(|s| {
            if s.nonzero_before {
                read(s)
            } else {
                Vec::new()
            }
        })
        .collect();
    // SAFETY: the slot holds an initialised `T`, dropped exactly once here
    // and never used as a `T` again (`MaybeUninit` does not drop it).
    unsafe { core::ptr::drop_in_place(slot.as_mut_ptr()) };
    spans
        .spans
        .iter()
        .zip(before)
        .map(|(s, b)| (s.what, b, read(s)))
        .collect()
}

/// Drops `value` in place and asserts that every secret span is zero
/// afterwards (and held a nonzero byte before, where it is readable).
pub(crate) fn assert_zeroized_on_drop<T: SecretSpans>(name: &str, value: T) {
    for (what, before, after) in secret_bytes_around_drop(value) {
        if !before.is_empty() {
            assert!(
                before.iter().any(|&b| b != 0),
                "{name}: {what} is all zero before the drop: the test cannot fail"
            );
        }
        assert!(
            after.iter().all(|&b| b == 0),
            "{name}: {what} not zeroized on drop: {after:02x?}"
        );
    }
}

/// Every 16-byte chunk (at 8-byte steps) of `value`'s secret spans that
/// hold a nonzero byte, named by its span: what a stack probe looks for
/// when a kernel may have spilled any part of its key object.
#[allow(unsafe_code)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn secret_chunks<T: SecretSpans>(value: &T) -> Vec<(&'static str, [u8; 16])> {
    let base = core::ptr::from_ref(value).cast::<u8>();
    let mut spans = Spans {
        base: base.addr(),
        spans: Vec::new(),
    };
    value.secret_spans(&mut spans);
    let mut out = Vec::new();
    for s in spans.spans.iter().filter(|s| s.nonzero_before) {
        let mut off = s.offset;
        while off + 16 <= s.offset + s.len {
            let mut c = [0u8; 16];
            for (i, b) in c.iter_mut().enumerate() {
                // SAFETY: the span lies inside `value` (taken from one of
                // its fields, plain integers and arrays of them) and
                // `value` is borrowed for the whole loop.
                *b = unsafe { core::ptr::read_volatile(base.add(off + i)) };
            }
            if c != [0; 16] {
                out.push((s.what, c));
            }
            off += 8;
        }
    }
    out
}
