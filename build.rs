//! Build script: turns `GFXPATCH_CORPUS=1` into `cfg(gfxpatch_corpus)`, so the real-world corpus
//! tests show as *ignored* (not as passed) in runs that do not ask for them.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(gfxpatch_corpus)");
    println!("cargo::rerun-if-env-changed=GFXPATCH_CORPUS");
    if std::env::var("GFXPATCH_CORPUS").is_ok_and(|v| v == "1") {
        println!("cargo::rustc-cfg=gfxpatch_corpus");
    }
}
