// Links libatenaot_runtime.so (the C ABI loader `atenaot compile` writes into
// every model directory). Set ATENAOT_LIB_DIR to that directory: it becomes a
// library search path and, for this package's own tests, examples and
// binaries, an rpath. Crates depending on this one add their own rpath (or
// use LD_LIBRARY_PATH / install the library system-wide).
use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=ATENAOT_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    match env::var("ATENAOT_LIB_DIR") {
        Ok(dir) if !dir.is_empty() => {
            let lib = Path::new(&dir).join("libatenaot_runtime.so");
            if !lib.exists() {
                panic!("ATENAOT_LIB_DIR={dir} holds no libatenaot_runtime.so (run `atenaot compile ... -o DIR` first)");
            }
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        }
        _ => println!(
            "cargo:warning=ATENAOT_LIB_DIR is not set: linking libatenaot_runtime from the default library paths"
        ),
    }
    println!("cargo:rustc-link-lib=dylib=atenaot_runtime");
}
