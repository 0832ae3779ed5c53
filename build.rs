//! Embeds every `rules/*.toml` in the binary, so gpulint works without its source tree.

use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("rules/ directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        // The kernel-origin patterns live beside the rules but are not a rule.
        .filter(|p| p.file_name().is_some_and(|n| n != "origins.toml"))
        .collect();
    files.sort();
    let mut out = String::from("pub static EMBEDDED_RULES: &[(&str, &str)] = &[\n");
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().unwrap().to_string_lossy();
        out.push_str(&format!(
            "    (\"rules/{name}\", include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n");
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("embedded_rules.rs"),
        out,
    )
    .unwrap();
}
