//! Gives the shared library gf2x 1.3's soname, `libgf2x.so.3`, so that a copy
//! or symlink named `libgf2x.so.3` satisfies programs linked to Debian's
//! libgf2x (their `DT_NEEDED` entry), and the dynamic loader records it under
//! that name.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libgf2x.so.3");
    }
}
