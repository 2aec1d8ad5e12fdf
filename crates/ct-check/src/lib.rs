//! Machine checks of fieldwork's constant-time claim (issue 27).
//!
//! - `ct-check` (src/main.rs) runs every secret-handling operation of the
//!   library under valgrind memcheck with its secret inputs marked
//!   undefined (the ctgrind method of Adam Langley, as in SUPERCOP's
//!   TIMECOP): any branch, memory address or system-call argument that
//!   depends on a secret is reported. `.ci/run` runs it at
//!   `FIELDWORK_MAX_ISA=portable`, `clmul` and `avx2` (scripts/ct-check.sh).
//! - `dudect` (src/bin/dudect.rs) times the same operations natively with
//!   two classes of secrets (fixed and random, interleaved) and applies
//!   Welch's t-test to the cycle counts, after Reparaz, Balasch and
//!   Verbauwhede, *Dude, is my code constant time?* (2017): for the
//!   backends valgrind cannot execute (VAES/VPCLMULQDQ, AVX-512).
//!
//! Both include deliberately leaky variants ([`ops::LEAKY`], selected by
//! `--leaky`) that must be reported, to show that each check can fail.

pub mod ops;
pub mod valgrind;
