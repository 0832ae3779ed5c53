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

/// A kernel name short enough for one line: the signature, with anonymous namespaces
/// written `(anon)`; past 60 characters, the template arguments folded to `<…>` (or the
/// name cut) and a tag from the full name added, so two kernels that differ only in what
/// was left out still read differently: `at::elementwise_kernel<…4f1c>`.
pub fn short_name(full: &str) -> String {
    const ANON: &str = "\u{1}";
    const MAX: usize = 60;
    const HEAD: usize = 50;
    let base = signature(full)
        .replace("(anonymous namespace)", ANON)
        .replace("<unnamed>", ANON);
    if base.chars().count() <= MAX {
        return base.replace(ANON, "(anon)");
    }
    let tag = name_tag(full);
    let template = base.find('<').filter(|_| base.ends_with('>'));
    let head = template.map_or(base.as_str(), |open| &base[..open]);
    let cut = head.chars().count() > HEAD;
    let head: String = head.chars().take(HEAD).collect();
    let shown = match (template, cut) {
        (Some(_), true) => format!("{head}…<…{tag}>"),
        (Some(_), false) => format!("{head}<…{tag}>"),
        (None, _) => format!("{head}…{tag}"),
    };
    shown.replace(ANON, "(anon)")
}

/// Four hex digits from the whole name (FNV-1a): stable across runs and machines.
fn name_tag(full: &str) -> String {
    let hash = full.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    format!("{:04x}", (hash >> 16) ^ (hash & 0xffff))
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
        assert!(short_name(&full).contains('…') && short_name(&full).chars().count() <= 60);
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
