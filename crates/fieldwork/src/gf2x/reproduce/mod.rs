//! Reproduction code (feature `reproduce`): every multiplication strategy
//! of Su & Fan's Table 1 (C. Su and H. Fan, *Impact of Intel's new
//! instruction sets on software implementation of GF(2)\[x\]
//! multiplication*, IPL 2012) as a callable kernel on every backend, so that
//! `peer-bench --filter sufan` can reproduce the table and tests can check
//! every strategy on every backend. Production code keeps only the formulas
//! it uses (`gf2x/sufan.rs`). Not part of the stable API.
//!
//! The formulas and their counts are documented in [`sufan`];
//! [`strategies`] lists them; `counts` (with `std`) sets the word-addition
//! counts beside the figures the paper prints.

#[cfg(target_arch = "x86_64")]
mod clmul;
#[cfg(feature = "std")]
pub mod counts;
pub mod sufan;
#[cfg(feature = "std")]
mod tally;

#[cfg(target_arch = "x86_64")]
use crate::cpu::Clmul;
use crate::gf2x::Dispatch;
#[cfg(target_arch = "x86_64")]
use crate::gf2x::Kind;
use crate::gf2x::portable::PortableWord;

/// One strategy: a formula for one operand size.
#[derive(Clone, Copy, Debug)]
pub struct Strategy {
    /// Su & Fan's label (`"5-1"`), with `m` for a factored variant.
    pub name: &'static str,
    /// Operand size in words.
    pub words: usize,
    /// Word (64×64) products it computes.
    pub products: usize,
    /// What it is.
    pub description: &'static str,
    /// The kernel's function name (`s5_1_co`): its PCLMULQDQ kernel is the
    /// symbol `fieldwork_crypto::gf2x::reproduce::clmul::tf::<kernel>`, read
    /// by [`compiled_products`].
    pub kernel: &'static str,
    portable: fn(&[u64], &[u64], &mut [u64]) -> bool,
    #[cfg(target_arch = "x86_64")]
    clmul: fn(Clmul, &[u64], &[u64], &mut [u64]) -> bool,
}

/// The Table 5 strategies compiled with VEX (non-destructive) encoding:
/// (kernel name, entry).
#[cfg(target_arch = "x86_64")]
type VexFn = fn(crate::cpu::Avx2Clmul, &[u64], &[u64], &mut [u64]) -> bool;
#[cfg(target_arch = "x86_64")]
macro_rules! vex_table {
    ($($f:ident),*) => { &[$((stringify!($f), clmul::vex::$f as VexFn)),*] };
}
#[cfg(target_arch = "x86_64")]
const VEX: &[(&str, VexFn)] = vex_table!(
    s3_1, s3_1m, s3_school, s4_1, s4_2, s4_2m, s5_1_co, s7_1_co, s7_2, s9_1_co, s9_1, s9_2
);

/// The Table 4 strategies with the listing's hand-placed 256-bit `vxorpd`
/// additions (its `_USE_AVX_` paths): (kernel name, entry).
#[cfg(target_arch = "x86_64")]
const VXORPD: &[(&str, VexFn)] = &[
    ("s4_1", clmul::vxorpd::s4_1),
    ("s7_2", clmul::vxorpd::s7_2),
    ("s9_1_co", clmul::vxorpd::s9_1_co),
    ("s9_2", clmul::vxorpd::s9_2),
];

/// A strategy's VEX-encoded kernel with the token that allows it
/// ([`Strategy::vex`]).
#[derive(Clone, Copy, Debug)]
pub struct VexKernel {
    #[cfg(target_arch = "x86_64")]
    token: crate::cpu::Avx2Clmul,
    #[cfg(target_arch = "x86_64")]
    f: VexFn,
}

impl VexKernel {
    /// `out = a·b`; false unless `a.len() == b.len()` is the strategy's
    /// word count and `out` twice that.
    pub fn mul(&self, a: &[u64], b: &[u64], out: &mut [u64]) -> bool {
        #[cfg(target_arch = "x86_64")]
        return (self.f)(self.token, a, b, out);
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (a, b, out);
            false
        }
    }
}

impl Strategy {
    /// This strategy's kernel compiled with AVX enabled (VEX,
    /// non-destructive encoding: Su & Fan's Table 5 `-mavx` build), if it
    /// has such a build (the Table 4–5 strategies and the 3- and 4-word
    /// ones) and `backend` is a VPCLMULQDQ backend (whose token proves AVX).
    pub fn vex(&self, backend: Dispatch) -> Option<VexKernel> {
        self.avx_build(backend, false)
    }

    /// This strategy with the listing's hand-placed 256-bit `vxorpd`
    /// additions (Su & Fan's Table 4 "with AVX" rows: 4-1, 7-2, 9-1 and
    /// 9-2; `_USE_AVX_` in the listing), on a VPCLMULQDQ backend (whose
    /// token proves AVX); none for the other strategies.
    pub fn vxorpd(&self, backend: Dispatch) -> Option<VexKernel> {
        self.avx_build(backend, true)
    }

    /// This strategy's entry in the `vxorpd` or the VEX table, with the
    /// AVX token of `backend`.
    fn avx_build(&self, backend: Dispatch, vxorpd: bool) -> Option<VexKernel> {
        #[cfg(target_arch = "x86_64")]
        {
            let token = match backend.0 {
                Kind::Vpclmulqdq(k) => k.0.avx2_clmul(),
                Kind::VpclmulqdqYmm(k) => k.0,
                _ => return None,
            };
            let table = if vxorpd { VXORPD } else { VEX };
            let (_, f) = table.iter().find(|(k, _)| *k == self.kernel)?;
            Some(VexKernel { token, f: *f })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (backend, vxorpd);
            None
        }
    }

    /// `out = a·b` with this strategy on `backend` (the VPCLMULQDQ backends,
    /// zmm and ymm, run the PCLMULQDQ kernels: these formulas are per-word;
    /// AArch64's PMULL backend runs the portable word product: the paper's
    /// strategies are measured on x86-64). Returns
    /// false unless `a.len() == b.len() == self.words` and
    /// `out.len() == 2·self.words`.
    pub fn mul(&self, backend: Dispatch, a: &[u64], b: &[u64], out: &mut [u64]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = clmul_token(backend) {
            return (self.clmul)(t, a, b, out);
        }
        let _ = backend;
        (self.portable)(a, b, out)
    }
}

/// The PCLMULQDQ token of an x86-64 carry-less backend (the VPCLMULQDQ
/// ones, zmm and ymm, imply it).
#[cfg(target_arch = "x86_64")]
fn clmul_token(backend: Dispatch) -> Option<Clmul> {
    match backend.0 {
        Kind::Vpclmulqdq(k) => Some(k.0.clmul()),
        Kind::VpclmulqdqYmm(k) => Some(k.0.clmul()),
        Kind::Pclmulqdq(k) => Some(k.0),
        _ => None,
    }
}

/// One way of Su & Fan's appendix `ins_mul2_64` (the 2-word Karatsuba
/// product) to form the middle product `(a0 + a1)(b0 + b1)`: the listing's
/// `_XOR64`, `_SHIFT`, `_SHUF` and `_UPK`. Its fifth, `XTR`, is an empty
/// `#elif` in the text (no code survives) and is not reproduced.
#[derive(Clone, Copy, Debug)]
pub struct Mul2Variant {
    /// The listing's macro name (`"_SHIFT"`).
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    #[cfg(target_arch = "x86_64")]
    f: fn(Clmul, &[u64; 2], &[u64; 2]) -> [u64; 4],
}

impl Mul2Variant {
    /// `out = a·b` (2 words each, `out` 4) on a PCLMULQDQ-capable x86-64
    /// `backend`; false on other backends (the variants are PCLMULQDQ code)
    /// or wrong lengths.
    pub fn mul(&self, backend: Dispatch, a: &[u64], b: &[u64], out: &mut [u64]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let (Some(t), Ok(a), Ok(b), Ok(out)) = (
            clmul_token(backend),
            <&[u64; 2]>::try_from(a),
            <&[u64; 2]>::try_from(b),
            <&mut [u64; 4]>::try_from(&mut *out),
        ) {
            *out = (self.f)(t, a, b);
            return true;
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (backend, a, b, out);
        false
    }
}

/// The `ins_mul2_64` variants, in the listing's order.
pub fn mul2_variants() -> impl Iterator<Item = Mul2Variant> {
    #[cfg(target_arch = "x86_64")]
    use clmul::mul2::{SHIFT, SHUF, UPK, XOR64, variant};
    macro_rules! v {
        ($name:literal, $v:ident, $d:literal) => {
            Mul2Variant {
                name: $name,
                description: $d,
                #[cfg(target_arch = "x86_64")]
                f: variant::<$v>,
            }
        };
    }
    [
        v!("_XOR64", XOR64, "sums by scalar XOR, moved to xmm (movq)"),
        v!(
            "_SHIFT",
            SHIFT,
            "sums by psrldq + pxor (the listing's default)"
        ),
        v!(
            "_SHUF",
            SHUF,
            "sums by pshufd + pxor (garbled in the text; shuffles reconstructed)"
        ),
        v!(
            "_UPK",
            UPK,
            "operands interleaved by unpack, one pxor, PCLMULQDQ imm 1"
        ),
    ]
    .into_iter()
}

macro_rules! strategies {
    ($($f:ident $n:literal),*) => {
        mod portable_kernels {
            use super::*;
            $(
                pub(super) fn $f(a: &[u64], b: &[u64], out: &mut [u64]) -> bool {
                    let Some((x, y, o)) = crate::gf2x::formulas::fixed_arrays!($n, a, b, out) else {
                        return false;
                    };
                    *o = sufan::$f(PortableWord, x, y);
                    true
                }
            )*
        }

        /// Every strategy, in Su & Fan's table order.
        pub fn strategies() -> impl Iterator<Item = Strategy> {
            const FNS: &[(fn(&[u64], &[u64], &mut [u64]) -> bool, ClmulFn, &str)] = &[
                $((portable_kernels::$f, clmul_fn!($f), stringify!($f))),*
            ];
            sufan::STRATEGIES.iter().zip(FNS).map(|(row, &(portable, _clmul, kernel))| Strategy {
                kernel,
                name: row.0,
                words: row.1,
                products: row.2,
                description: row.3,
                portable,
                #[cfg(target_arch = "x86_64")]
                clmul: _clmul,
            })
        }
    };
}

#[cfg(target_arch = "x86_64")]
type ClmulFn = fn(Clmul, &[u64], &[u64], &mut [u64]) -> bool;
#[cfg(not(target_arch = "x86_64"))]
type ClmulFn = ();

#[cfg(target_arch = "x86_64")]
macro_rules! clmul_fn {
    ($f:ident) => {
        clmul::$f
    };
}
#[cfg(not(target_arch = "x86_64"))]
macro_rules! clmul_fn {
    ($f:ident) => {
        ()
    };
}

/// The PCLMULQDQ instructions in each strategy's compiled kernel, read
/// from the machine code of the executable `exe` (normally
/// `std::env::current_exe()`, which must link the kernels, e.g. by calling
/// [`strategies`]) with `objdump -d -C`: `(kernel, count)` for every
/// `clmul::tf::<kernel>` symbol found. The compiler merges duplicate
/// products (see [`sufan`]), so this can be below [`Strategy::products`];
/// the page and the tests show both. LLVM also merges identical functions
/// (a kernel the production backend compiles from the same formula with
/// the same features, e.g. 3-S and 5-2): the merged copies share one
/// address, which objdump labels with one of their names, so the names
/// are taken from the symbol table (`nm -C`) by address. Errors when
/// objdump or nm cannot run.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
pub fn compiled_products(
    exe: &std::path::Path,
) -> Result<std::vec::Vec<(std::string::String, usize)>, std::string::String> {
    use std::collections::BTreeMap;
    use std::string::{String, ToString};
    use std::vec::Vec;
    let run = |tool: &str, args: &[&str]| -> Result<String, String> {
        let out = std::process::Command::new(tool)
            .args(args)
            .arg(exe)
            .output()
            .map_err(|e| std::format!("{tool}: {e}"))?;
        if !out.status.success() {
            return Err(std::format!("{tool} failed"));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    // The destructive (SSE) build; the VEX build is `clmul::vex::tf::`.
    let marker = "gf2x::reproduce::clmul::tf::";
    // Every kernel symbol by address (`ADDRESS TYPE NAME` lines).
    let mut kernels: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for line in run("nm", &["-C"])?.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(addr), Some(_), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if let (Ok(addr), Some(at)) = (u64::from_str_radix(addr, 16), name.find(marker)) {
            let kernel: String = name[at + marker.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            kernels.entry(addr).or_default().push(kernel);
        }
    }
    let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
    let mut current: Option<u64> = None;
    for line in run("objdump", &["-d", "-C", "--no-show-raw-insn"])?.lines() {
        if line.ends_with(">:") {
            // `ADDRESS <label>:`: a function's first line.
            current = line
                .split(' ')
                .next()
                .and_then(|a| u64::from_str_radix(a, 16).ok())
                .filter(|a| kernels.contains_key(a));
            if let Some(a) = current {
                counts.insert(a, 0);
            }
        } else if let Some(a) = current
            // The mnemonic (objdump writes `pclmullqlqdq`, `pclmulhqlqdq`,
            // … for the immediates; `vpclmul…` when VEX-encoded).
            && line
                .split('\t')
                .nth(1)
                .is_some_and(|m| m.starts_with("pclmul") || m.starts_with("vpclmul"))
            && let Some(n) = counts.get_mut(&a)
        {
            *n += 1;
        }
    }
    let mut found: Vec<(String, usize)> = Vec::new();
    for (addr, names) in &kernels {
        if let Some(&n) = counts.get(addr) {
            found.extend(names.iter().map(|k| (k.to_string(), n)));
        }
    }
    Ok(found)
}

// Same order as `sufan::STRATEGIES` (checked by a test).
strategies!(
    s3_1 3, s3_1m 3, s3_1h 3, s3_school 3, s4_1 4, s4_1m 4, s4_2 4, s4_2m 4, s5_1_co 5, s5_1 5, s5_2 5, s5_3 5,
    s7_1_co 7, s7_1 7, s7_2 7, s7_3 7, s9_1_co 9, s9_1 9, s9_2 9, s9_3_co 9, s9_3 9
);
