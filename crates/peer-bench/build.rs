//! Always: passes the locked versions of the Rust peers to the code
//! (`PEER_VERSION_<CRATE>`, read from the workspace's `Cargo.lock`), so the
//! tables name the version measured.
//!
//! With the `system-peers` feature: compiles the NTL shim and links gf2x,
//! NTL and the system OpenSSL's `libcrypto`. gf2x comes from `$GF2X_DIR` (a
//! gf2x built for this CPU, e.g. `/opt/gf2x-native`, linked statically), else
//! from `/opt/gf2x-native` if `lib/libgf2x.a` is there, else from the system
//! (Debian's generic `libgf2x-dev`).
//!
//! With the `xs233` feature: compiles `shim/xs233_shim.c` over c-xs233's
//! `gf233.h` from `$XS233_DIR`, else `target/xs233/c-xs233` (where
//! `scripts/fetch-xs233.sh` unpacks it).

/// The Rust peers whose versions the tables show.
const VERSIONED_PEERS: &[(&str, &str)] = &[
    ("aes-gcm-siv", "PEER_VERSION_AES_GCM_SIV"),
    ("aws-lc-rs", "PEER_VERSION_AWS_LC_RS"),
    ("chacha20", "PEER_VERSION_CHACHA20"),
    ("chacha20poly1305", "PEER_VERSION_CHACHA20POLY1305"),
    ("ghash", "PEER_VERSION_GHASH"),
    ("poly1305", "PEER_VERSION_POLY1305"),
    ("polyval", "PEER_VERSION_POLYVAL"),
    ("ring", "PEER_VERSION_RING"),
    ("x25519-dalek", "PEER_VERSION_X25519_DALEK"),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=GF2X_DIR");
    println!("cargo:rerun-if-changed=/opt/gf2x-native/lib/libgf2x.a");
    peer_versions();
    #[cfg(feature = "system-peers")]
    system_peers();
    #[cfg(feature = "xs233")]
    xs233();
}

/// c-xs233's field code through `shim/xs233_shim.c`, with the flags of
/// c-xs233's Makefile.
#[cfg(feature = "xs233")]
fn xs233() {
    use std::path::PathBuf;
    println!("cargo:rerun-if-changed=shim/xs233_shim.c");
    println!("cargo:rerun-if-env-changed=XS233_DIR");
    let dir = std::env::var_os("XS233_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/xs233/c-xs233"),
        PathBuf::from,
    );
    let header = dir.join("gf233.h");
    assert!(
        header.exists(),
        "{} is missing: run scripts/fetch-xs233.sh, or set XS233_DIR to c-xs233's directory",
        header.display()
    );
    println!("cargo:rerun-if-changed={}", header.display());
    cc::Build::new()
        .file("shim/xs233_shim.c")
        .include(&dir)
        .flag("-O2")
        .flag("-mpclmul")
        .flag("-mavx2")
        .compile("fieldwork_xs233_shim");
}

/// Emits `PEER_VERSION_<CRATE>` for each of [`VERSIONED_PEERS`]: the
/// version in the workspace's `Cargo.lock` (the first entry of that name), or
/// `?` when the lock file is not where a workspace member expects it.
fn peer_versions() {
    let lock_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    let lock = std::fs::read_to_string(&lock_path).unwrap_or_default();
    for (name, var) in VERSIONED_PEERS {
        let wanted = format!("name = \"{name}\"");
        let mut lines = lock.lines();
        let version = lines
            .by_ref()
            .find(|l| l.trim() == wanted)
            .and_then(|_| lines.next())
            .and_then(|l| l.trim().strip_prefix("version = "))
            .map_or("?", |v| v.trim_matches('"'));
        println!("cargo:rustc-env={var}={version}");
    }
}

#[cfg(feature = "system-peers")]
fn system_peers() {
    use std::path::PathBuf;
    println!("cargo:rerun-if-changed=shim/ntl_shim.cpp");

    // A cross build (aarch64 on this x86 host) links the target's Debian
    // multiarch packages and never the host's native gf2x.
    let cross = cross_multiarch_dir();
    let native = std::env::var_os("GF2X_DIR").map(PathBuf::from).or_else(|| {
        Some(PathBuf::from("/opt/gf2x-native"))
            .filter(|p| cross.is_none() && p.join("lib/libgf2x.a").exists())
    });
    let cross_links = cross.as_deref().map(cross_link_dir);
    if let (Some(dir), Some(links)) = (&cross, &cross_links) {
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:rustc-link-search=native={links}");
    }
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("shim/ntl_shim.cpp")
        .flag_if_supported("-O2");
    if let Some(dir) = &native {
        build.include(dir.join("include"));
    }
    build.compile("fieldwork_peer_shim");
    ntl_shim_shared(&build, cross.as_deref(), cross_links.as_deref());

    match &native {
        Some(dir) => {
            println!(
                "cargo:rustc-link-search=native={}",
                dir.join("lib").display()
            );
            println!("cargo:rustc-link-lib=static=gf2x");
            println!("cargo:rustc-env=PEER_GF2X_BUILD=gf2x native");
        }
        None => {
            println!("cargo:rustc-link-lib=dylib=gf2x");
            println!("cargo:rustc-env=PEER_GF2X_BUILD=gf2x Debian generic");
        }
    }
    println!("cargo:rustc-link-lib=dylib=ntl");
    println!("cargo:rustc-link-lib=dylib=gmp");
    // The system OpenSSL (Debian's libssl-dev) for the X25519, GMAC,
    // AES-GCM, Poly1305 and BN_GF2m peers in `src/openssl.rs`. Its symbols do not collide with aws-lc-rs's or
    // ring's C code, which both build with a symbol prefix.
    println!("cargo:rustc-link-lib=dylib=crypto");
}

/// The Debian multiarch library directory of the target
/// (`/usr/lib/aarch64-linux-gnu`) when building for an architecture other
/// than the host's, where `libssl-dev:arm64`, `libgf2x-dev:arm64`,
/// `libntl-dev:arm64` and `libgmp-dev:arm64` put their libraries; `None`
/// for a native build. The C++ compiler is the `cc` crate's choice for the
/// target (`aarch64-linux-gnu-g++` from `g++-aarch64-linux-gnu`, or
/// `$CXX_aarch64_unknown_linux_gnu`).
#[cfg(feature = "system-peers")]
fn cross_multiarch_dir() -> Option<String> {
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target == host || target.is_empty() {
        return None;
    }
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    (os == "linux" && env == "gnu").then(|| format!("/usr/lib/{arch}-linux-gnu"))
}

/// A directory in `OUT_DIR` of `libntl.so` and `libgf2x.so` links to the
/// target's runtime libraries in `dir` (`libntl.so.44`, `libgf2x.so.3`
/// from `libntl44:arm64`, `libgf2x3:arm64`): Debian's `libntl-dev` and
/// `libgf2x-dev` are not Multi-Arch, so installing the arm64 ones would
/// remove the host's, which the x86 build needs. The NTL headers are then
/// the host's (`/usr/include/NTL`; amd64's and arm64's differ only in
/// `mach_desc.h`'s floating-point limits and the configure log, which the
/// shim's `GF2X`/`GF2E` calls do not use).
#[cfg(feature = "system-peers")]
fn cross_link_dir(dir: &str) -> String {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let links = out.join("cross-lib");
    let _ = std::fs::create_dir_all(&links);
    let entries: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    for name in ["ntl", "gf2x"] {
        let dev = format!("lib{name}.so");
        let prefix = format!("{dev}.");
        let runtime = entries
            .iter()
            .filter(|e| e.starts_with(&prefix))
            .min_by_key(|e| e.len());
        let link = links.join(&dev);
        let _ = std::fs::remove_file(&link);
        if let Some(runtime) = runtime.filter(|_| !entries.contains(&dev)) {
            let _ = std::os::unix::fs::symlink(std::path::Path::new(dir).join(runtime), &link);
        }
    }
    links.display().to_string()
}

/// The same NTL shim as a shared library linked to the system NTL (and so to
/// whichever `libgf2x.so.3` the loader gives it), for the `libgf2x` group:
/// loaded twice with `dlmopen`, once over the system libgf2x and once over
/// fieldwork's, it times NTL through each library in one process. Its path
/// is `PEER_NTL_SHIM_SO`.
#[cfg(feature = "system-peers")]
fn ntl_shim_shared(build: &cc::Build, lib_dir: Option<&str>, links: Option<&str>) {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let so = out.join("libfieldwork_ntl_shim.so");
    let status = build
        .get_compiler()
        .to_command()
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&so)
        .arg("shim/ntl_shim.cpp")
        .args(lib_dir.map(|d| format!("-L{d}")))
        .args(links.map(|d| format!("-L{d}")))
        .args(["-lntl", "-lgmp"])
        .status();
    match status {
        Ok(s) if s.success() => {}
        other => panic!("building {} failed: {other:?}", so.display()),
    }
    println!("cargo:rustc-env=PEER_NTL_SHIM_SO={}", so.display());
}
