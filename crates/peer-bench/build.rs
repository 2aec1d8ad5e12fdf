//! With the `system-peers` feature: compiles the NTL shim and links gf2x and
//! NTL. gf2x comes from `$GF2X_DIR` (a gf2x built for this CPU, e.g.
//! `/opt/gf2x-native`, linked statically), else from `/opt/gf2x-native` if
//! `lib/libgf2x.a` is there, else from the system (Debian's generic `libgf2x-dev`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=GF2X_DIR");
    println!("cargo:rerun-if-changed=/opt/gf2x-native/lib/libgf2x.a");
    #[cfg(feature = "system-peers")]
    system_peers();
}

#[cfg(feature = "system-peers")]
fn system_peers() {
    use std::path::PathBuf;
    println!("cargo:rerun-if-changed=shim/ntl_shim.cpp");

    let native = std::env::var_os("GF2X_DIR").map(PathBuf::from).or_else(|| {
        Some(PathBuf::from("/opt/gf2x-native")).filter(|p| p.join("lib/libgf2x.a").exists())
    });
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("shim/ntl_shim.cpp")
        .flag_if_supported("-O2");
    if let Some(dir) = &native {
        build.include(dir.join("include"));
    }
    build.compile("fieldwork_peer_shim");

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
}
