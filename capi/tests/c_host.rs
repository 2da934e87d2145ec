//! The C foreign host (`tests/c_host/main.c`, written against `include/particle_fog.h` alone),
//! compiled here with the system C compiler against the C ABI as a dynamic library and run on the
//! machine's Vulkan device (lavapipe without a GPU) under the validation layer. See its header
//! comment for what it checks; it exits 0 only when every check held. The library is the example
//! `c_abi_library` (a `cdylib` of this crate's functions), which `cargo test` builds before any
//! test runs; the package's own `cdylib` it does not build.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder cargo built the examples into (`target/<profile>/examples`, beside the test
/// binary's `deps`).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent().and_then(Path::parent).expect("target/<profile>").join("examples")
}

#[test]
fn a_c_host_renders_removes_and_fades_the_fog_through_the_c_abi() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let libs = library_dir();
    assert!(libs.join("libc_abi_library.so").exists(), "no libc_abi_library.so in {}", libs.display());
    let out = std::env::temp_dir().join(format!("pf-c-host-{}", std::process::id()));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let compiled = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c_host/main.c"))
        .arg("-o")
        .arg(&out)
        .arg(format!("-L{}", libs.display()))
        .arg(format!("-Wl,-rpath,{}", libs.display()))
        .args(["-lc_abi_library", "-lvulkan", "-lm"])
        .output()
        .unwrap_or_else(|e| panic!("{cc} (./run test installs a C compiler and libvulkan-dev): {e}"));
    assert!(
        compiled.status.success(),
        "compiling the C host:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let overrides = std::env::temp_dir().join(format!("pf-c-host-{}-overrides.xml", std::process::id()));
    let run = Command::new(&out).arg(&overrides).output().expect("the C host runs");
    let _ = std::fs::remove_file(&out);
    let saved = std::fs::read_to_string(&overrides).unwrap_or_default();
    let _ = std::fs::remove_file(&overrides);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "the C host failed ({}):\n{stdout}\n{stderr}", run.status);
    assert!(stdout.contains("c_host: ok"), "{stdout}");
    assert!(
        saved.contains("42424242-4242-4242-4242-424242424242") && saved.contains("billboards"),
        "the overrides file holds the object's \"never fog\": {saved}"
    );
}
