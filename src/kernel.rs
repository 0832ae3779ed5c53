//! A kernel's identity and its names: a leaf every stage uses (ingest, fold, rules,
//! baseline, diff, reports), so that none of them borrows another's helpers.

/// A grid or block size.
pub type Dim3 = [u64; 3];

/// One kernel configuration: the kernel of this name in this file, launched with this
/// grid and block. Same-named kernels with other shapes are other configurations.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KernelKey {
    pub file: String,
    pub name: String,
    pub grid: Option<Dim3>,
    pub block: Option<Dim3>,
}

/// The name without `void` and without the parameter list (the first `(` outside
/// template arguments); template arguments stay.
pub fn signature(full: &str) -> &str {
    let name = full.trim();
    let name = name.strip_prefix("void ").unwrap_or(name);
    // ncu writes anonymous namespaces as "(anonymous namespace)": not a parameter list.
    let mut depth = 0i32;
    for (i, ch) in name.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 && i > 0 && !name[i..].starts_with("(anonymous namespace)") => {
                return &name[..i];
            }
            _ => {}
        }
    }
    name
}

/// A kernel's function name as ncu's `-k` matches it by default: no `void`, no
/// parameters, no template arguments, and never shortened for display.
pub fn base_name(full: &str) -> String {
    let sig = signature(full);
    // GCC's anonymous namespace, `<unnamed>`, is part of the name, not a template list.
    let cut = sig
        .match_indices('<')
        .map(|(i, _)| i)
        .find(|&i| !sig[i..].starts_with("<unnamed>"))
        .unwrap_or(sig.len());
    sig[..cut].to_string()
}

/// A kernel name short enough for one line: the signature, with long template argument
/// lists folded to `<…>` and anonymous namespaces written `(anon)`.
pub fn short_name(full: &str) -> String {
    const ANON: &str = "\u{1}";
    let base = signature(full)
        .replace("(anonymous namespace)", ANON)
        .replace("<unnamed>", ANON);
    let shown = if base.chars().count() <= 60 {
        base
    } else if let (Some(open), true) = (base.find('<'), base.ends_with('>')) {
        format!("{}<…>", &base[..open])
    } else {
        let head: String = base.chars().take(57).collect();
        format!("{head}…")
    };
    shown.replace(ANON, "(anon)")
}

/// "(256,1,1)", or "(?)" when unknown.
pub fn dim3(d: Option<Dim3>) -> String {
    match d {
        Some([x, y, z]) => format!("({x},{y},{z})"),
        None => "(?)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names_are_never_shortened() {
        let triton = format!(
            "triton_poi_fused_{}_0",
            "add_mul_native_layer_norm_".repeat(3)
        );
        let full = format!("{triton}(float *, float *, int)");
        assert!(triton.len() > 60);
        assert_eq!(base_name(&full), triton);
        assert!(short_name(&full).ends_with('…'));
        assert_eq!(
            base_name("void at::native::elementwise_kernel<128, 4, F>(int, F)"),
            "at::native::elementwise_kernel"
        );
        assert_eq!(
            base_name("void (anonymous namespace)::k<1>(int)"),
            "(anonymous namespace)::k"
        );
        assert_eq!(
            base_name(
                "void at::native::<unnamed>::vectorized_layer_norm_kernel<c10::Half, float>(int)"
            ),
            "at::native::<unnamed>::vectorized_layer_norm_kernel"
        );
    }
}
