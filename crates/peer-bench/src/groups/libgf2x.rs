//! `libgf2x`: Debian's NTL through the system `libgf2x.so.3` and through
//! fieldwork's drop-in (`crates/fieldwork-gf2x-abi`), in one process, and
//! the cost of the drop-in's C entry point.
//!
//! The NTL shim (`shim/ntl_shim.cpp`, built by `build.rs` as a shared
//! library linked to the system NTL) is loaded twice with `dlmopen`, each
//! copy in a link-map namespace of its own with its own NTL, GMP and C++
//! runtime:
//!
//! * `NTL + system libgf2x`: a fresh namespace; the loader resolves NTL's
//!   `libgf2x.so.3` as usual (Debian's generic gf2x 1.3.0).
//! * `NTL + fieldwork libgf2x`: a fresh namespace into which fieldwork's
//!   library is loaded first; the loader then satisfies NTL's `libgf2x.so.3`
//!   with it (same soname), exactly as `LD_LIBRARY_PATH` would for a
//!   separate program.
//!
//! Each namespace's `gf2x_toom_gpl_status` is read and checked, so the rows
//! cannot silently time the same library twice, and both must give
//! fieldwork's product before anything is timed.
//!
//! Rows: NTL `GF2X` `mul` (independent calls) at 1–65 536 words, NTL `GF2E`
//! `mul` for the five NIST binary fields, and `gf2x_mul` on one word, chained,
//! called directly as `fieldwork::gf2x::mul_into` (slices; the reference)
//! and `mul_fixed::<1>` (arrays, no length dispatch), and through each
//! library's C entry point: the drop-in's per-call overhead (issue 28's
//! target: ≤ 5 cycles) is its time less the direct call's.
//!
//! Our library is found as `$FIELDWORK_GF2X_ABI_SO`, else next to the
//! peer-bench executable (`libfieldwork_gf2x_abi.so`, or in its `deps/`,
//! where building peer-bench with `system-peers` puts it).

use crate::harness::{Case, Impl};
use crate::util::Rng;
use std::ffi::{CStr, CString, c_char, c_int, c_long, c_void};
use std::hint::black_box;
use std::path::PathBuf;

/// NTL `GF2X` sizes in words (issue 28's rows).
const WORDS: &[usize] = &[1, 4, 16, 64, 1024, 16384, 65536];

/// The NIST binary fields' moduli as exponent lists (FIPS 186-4).
const NIST: &[(u32, &[c_long])] = &[
    (163, &[163, 7, 6, 3, 0]),
    (233, &[233, 74, 0]),
    (283, &[283, 12, 7, 5, 0]),
    (409, &[409, 87, 0]),
    (571, &[571, 10, 5, 2, 0]),
];

const RTLD_NOW: c_int = 2;
const LM_ID_NEWLM: c_long = -1;
const RTLD_DI_LMID: c_int = 1;

unsafe extern "C" {
    fn dlmopen(lmid: c_long, file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    fn dlinfo(handle: *mut c_void, request: c_int, arg: *mut c_void) -> c_int;
    fn dlerror() -> *mut c_char;
}

type Gf2xMul = unsafe extern "C" fn(*mut u64, *const u64, u64, *const u64, u64) -> c_int;

/// The shim's functions in one namespace, and that namespace's `gf2x_mul`.
#[derive(Clone, Copy)]
struct Ntl {
    gf2x_new: unsafe extern "C" fn(*const u64, usize) -> *mut c_void,
    gf2x_mul: unsafe extern "C" fn(*mut c_void, *const c_void, *const c_void),
    gf2x_words: unsafe extern "C" fn(*const c_void, *mut u64, usize),
    field_new: unsafe extern "C" fn(*const c_long, usize) -> *mut c_void,
    field_use: unsafe extern "C" fn(*const c_void),
    gf2e_new: unsafe extern "C" fn(*const u64, usize) -> *mut c_void,
    gf2e_mul: unsafe extern "C" fn(*mut c_void, *const c_void, *const c_void),
    gf2e_words: unsafe extern "C" fn(*const c_void, *mut u64, usize),
    c_gf2x_mul: Gf2xMul,
}

fn last_dl_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated string owned by libc.
    let e = unsafe { dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: non-null, NUL-terminated (above).
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// Loads `path` into namespace `lmid` (or a new one).
fn load(lmid: c_long, path: &str) -> Result<*mut c_void, String> {
    let c = CString::new(path).map_err(|e| e.to_string())?;
    // SAFETY: a valid NUL-terminated path; the handle is never closed.
    let h = unsafe { dlmopen(lmid, c.as_ptr(), RTLD_NOW) };
    if h.is_null() {
        Err(format!("dlmopen {path}: {}", last_dl_error()))
    } else {
        Ok(h)
    }
}

fn sym(h: *mut c_void, name: &str) -> Result<*mut c_void, String> {
    let c = CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: a live handle and a NUL-terminated name.
    let p = unsafe { dlsym(h, c.as_ptr()) };
    if p.is_null() {
        Err(format!("dlsym {name}: {}", last_dl_error()))
    } else {
        Ok(p)
    }
}

/// The function `name` of `h` as the function-pointer type `F`.
///
/// # Safety
///
/// `F` is an `extern "C"` function pointer type matching the symbol's
/// definition.
unsafe fn func<F: Copy>(h: *mut c_void, name: &str) -> Result<F, String> {
    let p = sym(h, name)?;
    if size_of::<F>() != size_of::<*mut c_void>() {
        return Err(format!("{name}: not a function pointer type"));
    }
    // SAFETY: same size (checked); the symbol is a function of type F
    // (the caller's contract), and p is non-null.
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
}

impl Ntl {
    /// The shim in a new namespace; with `gf2x` set, that library is loaded
    /// there first and so is the `libgf2x.so.3` NTL gets. Returns the
    /// namespace and the `gf2x_toom_gpl_status` NTL's library reports.
    fn load(gf2x: Option<&str>) -> Result<(Ntl, String), String> {
        let shim_path = env!("PEER_NTL_SHIM_SO");
        let shim = match gf2x {
            None => load(LM_ID_NEWLM, shim_path)?,
            Some(lib) => {
                let first = load(LM_ID_NEWLM, lib)?;
                // One thread in this namespace: threads started inside a
                // dlmopen namespace (its own copy of libc and its malloc)
                // corrupted that namespace's heap on an AMD EPYC Zen 4
                // (`free(): invalid next size` during the 16 384-word
                // rows, 2026-11-27), while the same threaded products in a
                // normal process are byte-identical to gf2x's (ntl-check
                // in CI). The system gf2x row is single-threaded too; the
                // threaded product is the `gf2x_mul` group's.
                // SAFETY: the library exports it as `void (long)`.
                unsafe {
                    let cap: unsafe extern "C" fn(c_long) =
                        func(first, "fieldwork_gf2x_set_max_threads")?;
                    cap(1);
                }
                let mut lmid: c_long = 0;
                // SAFETY: RTLD_DI_LMID writes one Lmid_t (a long).
                let rc = unsafe { dlinfo(first, RTLD_DI_LMID, (&raw mut lmid).cast()) };
                if rc != 0 {
                    return Err(format!("dlinfo: {}", last_dl_error()));
                }
                load(lmid, shim_path)?
            }
        };
        let status = sym(shim, "gf2x_toom_gpl_status")?.cast::<*const c_char>();
        // SAFETY: gf2x_toom_gpl_status is a `const char *` holding a
        // NUL-terminated string in both libraries.
        let status = unsafe { CStr::from_ptr(*status) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: (each `func`) the shim's and gf2x's exported functions
        // have exactly these C signatures (shim/ntl_shim.cpp, gf2x.h).
        let ntl = unsafe {
            Ntl {
                gf2x_new: func(shim, "fw_ntl_gf2x_new")?,
                gf2x_mul: func(shim, "fw_ntl_gf2x_mul")?,
                gf2x_words: func(shim, "fw_ntl_gf2x_words")?,
                field_new: func(shim, "fw_ntl_gf2e_field_new")?,
                field_use: func(shim, "fw_ntl_gf2e_field_use")?,
                gf2e_new: func(shim, "fw_ntl_gf2e_new")?,
                gf2e_mul: func(shim, "fw_ntl_gf2e_mul")?,
                gf2e_words: func(shim, "fw_ntl_gf2e_words")?,
                c_gf2x_mul: func(shim, "gf2x_mul")?,
            }
        };
        Ok((ntl, status))
    }

    /// NTL's product of `a` and `b`, as words (objects leaked: a few per
    /// case, for the life of the process).
    fn product(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut w = vec![0u64; a.len() + b.len()];
        // SAFETY: the shim's contract: pointers valid for the given lengths.
        unsafe {
            let (pa, pb) = (
                (self.gf2x_new)(a.as_ptr(), a.len()),
                (self.gf2x_new)(b.as_ptr(), b.len()),
            );
            let pc = (self.gf2x_new)([0u64].as_ptr(), 1);
            (self.gf2x_mul)(pc, pa, pb);
            (self.gf2x_words)(pc, w.as_mut_ptr(), w.len());
        }
        w
    }
}

/// Our library's path (see the module doc).
fn ours_path() -> Result<String, String> {
    if let Some(p) = std::env::var_os("FIELDWORK_GF2X_ABI_SO") {
        return Ok(PathBuf::from(p).display().to_string());
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().ok_or("peer-bench has no directory")?;
    [dir.join("libfieldwork_gf2x_abi.so"), dir.join("deps/libfieldwork_gf2x_abi.so")]
        .into_iter()
        .find(|p| p.exists())
        .map(|p| p.display().to_string())
        .ok_or_else(|| {
            format!(
                "fieldwork's libgf2x not found next to {} (build it: cargo build --release -p fieldwork-gf2x-abi, or set FIELDWORK_GF2X_ABI_SO)",
                exe.display()
            )
        })
}

fn operands(an: usize, bn: usize) -> (Vec<u64>, Vec<u64>) {
    let mut rng = Rng(0x006c_6962_6766_3278 ^ (an as u64) << 20 ^ bn as u64);
    let a = (0..an).map(|_| rng.next_u64()).collect();
    let b = (0..bn).map(|_| rng.next_u64()).collect();
    (a, b)
}

/// NTL `mul(c, a, b)` on `GF2X` in namespace `ntl`, independent calls.
fn ntl_gf2x(ntl: Ntl, name: &str, a: &[u64], b: &[u64], ours: bool) -> Impl {
    // SAFETY: the shim's contract; the objects live as long as the routine.
    let (pa, pb, pc) = unsafe {
        (
            (ntl.gf2x_new)(a.as_ptr(), a.len()),
            (ntl.gf2x_new)(b.as_ptr(), b.len()),
            (ntl.gf2x_new)([0u64].as_ptr(), 1),
        )
    };
    Impl {
        name: name.into(),
        ours,
        routine: Box::new(move |n| {
            for _ in 0..n {
                // SAFETY: live objects of this namespace.
                unsafe { (ntl.gf2x_mul)(pc, black_box(pa), pb) };
            }
        }),
    }
}

/// NTL `mul(c, a, b)` on `GF2E` under `field`, independent calls.
fn ntl_gf2e(ntl: Ntl, name: &str, field: *mut c_void, a: &[u64], b: &[u64], ours: bool) -> Impl {
    // SAFETY: the shim's contract; elements made under their field.
    let (pa, pb, pc) = unsafe {
        (ntl.field_use)(field);
        (
            (ntl.gf2e_new)(a.as_ptr(), a.len()),
            (ntl.gf2e_new)(b.as_ptr(), b.len()),
            (ntl.gf2e_new)([0u64].as_ptr(), 1),
        )
    };
    Impl {
        name: name.into(),
        ours,
        routine: Box::new(move |n| {
            // SAFETY: the field is this namespace's; then live elements of it.
            unsafe { (ntl.field_use)(field) };
            for _ in 0..n {
                // SAFETY: as above.
                unsafe { (ntl.gf2e_mul)(pc, black_box(pa), pb) };
            }
        }),
    }
}

/// A chained one-word product through a C `gf2x_mul`.
fn c_entry(f: Gf2xMul, name: &str, ours: bool) -> Impl {
    let (mut a, b) = operands(1, 1);
    let mut out = [0u64; 2];
    Impl {
        name: name.into(),
        ours,
        routine: Box::new(move |n| {
            for _ in 0..n {
                // SAFETY: one-word operands, a two-word output.
                let _ = unsafe { f(out.as_mut_ptr(), a.as_ptr(), 1, b.as_ptr(), 1) };
                a[0] = out[0];
            }
            black_box(&out);
        }),
    }
}

/// The cases (see the module doc).
pub fn cases() -> Result<Vec<Case>, String> {
    let ours_so = ours_path()?;
    let (sys, sys_status) = Ntl::load(None)?;
    let (fw, fw_status) = Ntl::load(Some(&ours_so))?;
    if !fw_status.starts_with("fieldwork") || sys_status.starts_with("fieldwork") {
        return Err(format!(
            "wrong libraries loaded: system namespace says {sys_status:?}, ours says {fw_status:?}"
        ));
    }
    let sys_name = "NTL + system libgf2x";
    let fw_name = "NTL + fieldwork libgf2x";

    // Both namespaces must compute fieldwork's product.
    for &(an, bn) in &[
        (1, 1),
        (3, 3),
        (17, 5),
        (64, 64),
        (1000, 1000),
        (16384, 16384),
    ] {
        let (a, b) = operands(an, bn);
        let mut want = vec![0u64; an + bn];
        fieldwork::gf2x::mul_into(&mut want, &a, &b).map_err(|e| e.to_string())?;
        if sys.product(&a, &b) != want || fw.product(&a, &b) != want {
            return Err(format!(
                "an NTL product disagrees with fieldwork at {an}×{bn} words"
            ));
        }
    }

    let mut cases = Vec::new();
    for &n in WORDS {
        let (a, b) = operands(n, n);
        cases.push(Case {
            group: "libgf2x",
            size: format!("NTL GF2X mul, {n} words"),
            bytes: None,
            impls: vec![
                ntl_gf2x(fw, fw_name, &a, &b, true),
                ntl_gf2x(sys, sys_name, &a, &b, false),
            ],
            heavy: false,
            per_second: None,
        });
    }
    for &(m, exps) in NIST {
        let words = m.div_ceil(64) as usize;
        let (mut a, mut b) = operands(words, words);
        let top = m as usize - 64 * (words - 1);
        if top < 64 {
            a[words - 1] &= (1u64 << top) - 1;
            b[words - 1] &= (1u64 << top) - 1;
        }
        let mut fields = [std::ptr::null_mut(); 2];
        let mut products = Vec::new();
        for (k, ntl) in [fw, sys].iter().enumerate() {
            // SAFETY: the shim's contract.
            unsafe {
                fields[k] = (ntl.field_new)(exps.as_ptr(), exps.len());
                if fields[k].is_null() {
                    return Err(format!("NTL rejected the modulus of degree {m}"));
                }
                (ntl.field_use)(fields[k]);
                let (pa, pb) = (
                    (ntl.gf2e_new)(a.as_ptr(), words),
                    (ntl.gf2e_new)(b.as_ptr(), words),
                );
                let pc = (ntl.gf2e_new)([0u64].as_ptr(), 1);
                (ntl.gf2e_mul)(pc, pa, pb);
                let mut w = vec![0u64; words];
                (ntl.gf2e_words)(pc, w.as_mut_ptr(), words);
                products.push(w);
            }
        }
        if products[0] != products[1] {
            return Err(format!("the two NTLs disagree in GF(2^{m})"));
        }
        cases.push(Case {
            group: "libgf2x",
            size: format!("NTL GF2E mul, GF(2^{m})"),
            bytes: None,
            impls: vec![
                ntl_gf2e(fw, fw_name, fields[0], &a, &b, true),
                ntl_gf2e(sys, sys_name, fields[1], &a, &b, false),
            ],
            heavy: false,
            per_second: None,
        });
    }

    // The C entry point's cost: fieldwork's mul_into called directly on
    // slices whose lengths the compiler cannot see (the reference), then
    // each library's gf2x_mul through a function pointer.
    let (mut a, b) = operands(1, 1);
    let (a1, b1) = (a.clone(), b.clone());
    let mut out = [0u64; 2];
    cases.push(Case {
        group: "libgf2x",
        size: "gf2x_mul entry, 1 word (chained)".into(),
        bytes: None,
        impls: vec![
            Impl {
                name: "fieldwork gf2x::mul_into (Rust, direct)".into(),
                ours: true,
                routine: Box::new(move |n| {
                    for _ in 0..n {
                        // Lengths hidden from the optimiser, as a C
                        // caller's are from the library.
                        let (o, x, y) = black_box((&mut out[..], &a[..], &b[..]));
                        let _ = fieldwork::gf2x::mul_into(o, x, y);
                        a[0] = out[0];
                    }
                    black_box(&out);
                }),
            },
            Impl {
                name: "fieldwork gf2x::mul_fixed::<1> (Rust, arrays)".into(),
                ours: true,
                routine: Box::new(move |n| {
                    let (mut x, y) = ([a1[0]], [b1[0]]);
                    for _ in 0..n {
                        let p: [u64; 2] = fieldwork::gf2x::mul_fixed(&black_box(x), &y);
                        x[0] = p[0];
                    }
                    black_box(x);
                }),
            },
            c_entry(fw.c_gf2x_mul, "fieldwork libgf2x gf2x_mul (C ABI)", true),
            c_entry(sys.c_gf2x_mul, "system libgf2x gf2x_mul (C ABI)", false),
        ],
        heavy: false,
        per_second: None,
    });
    Ok(cases)
}
