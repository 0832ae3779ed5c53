//! A kernel's identity and its names: a leaf every stage uses (ingest, fold, rules,
//! baseline, diff, reports), so that none of them borrows another's helpers.

/// A grid or block size.
pub type Dim3 = [u64; 3];

/// The name as printed, trimmed, without the `void` ncu writes before it.
pub fn without_return_type(full: &str) -> &str {
    let name = full.trim();
    name.strip_prefix("void ").unwrap_or(name)
}

/// The name without `void` and without the parameter list (the first `(` outside
/// template arguments); template arguments stay.
pub fn signature(full: &str) -> &str {
    let name = without_return_type(full);
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

/// The function's own name, unqualified, without template arguments or parameters:
/// `elementwise_kernel`. It is what two demanglers agree on: ncu writes
/// `at::elementwise_kernel<128, 2, ...>(int, T3)` for the kernel that the C++ runtime
/// demangles as `at::native::elementwise_kernel<128, 2, ...>(int, ...)`.
///
/// A name the C++ runtime could not demangle reaches gpulint mangled (the launch tracer
/// keeps it so: one of cuDNN's CUTLASS kernels on the H200), where ncu demangles it; its
/// identifier is read from the mangled form.
pub fn function_identifier(full: &str) -> String {
    if let Some(identifier) = mangled_identifier(full.trim()) {
        return identifier.to_string();
    }
    let base = base_name(full);
    let last = base.rsplit("::").next().unwrap_or(&base);
    last.rsplit(' ').next().unwrap_or(last).to_string()
}

/// The function's own identifier in an Itanium-mangled name: the last source name of a
/// nested name (`_ZN2at6native13reduce_kernelI...E...` -> `reduce_kernel`), or the name
/// of a plain one (`_Z17wgrad_alg0_engineI...` -> `wgrad_alg0_engine`). A kernel is never
/// a member of a class, so what qualifies it is namespaces, which take no template
/// arguments: the first template list is the kernel's own. `None` for a name that is not
/// mangled, or whose start this does not read.
fn mangled_identifier(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("_Z")?;
    let (nested, mut rest) = match rest.strip_prefix('N') {
        Some(inner) => (true, inner),
        None => (false, rest.trim_start_matches('L')),
    };
    loop {
        // A member function's qualifiers, then `std::` or a substitution of a prefix
        // already seen (S_, S0_, ...), which names no new identifier.
        rest = rest.trim_start_matches(['r', 'V', 'K', 'R', 'O', 'L']);
        if let Some(after) = rest.strip_prefix('S') {
            rest = match after.bytes().next() {
                Some(b) if b.is_ascii_lowercase() => &after[1..],
                _ => &after[after.find('_')? + 1..],
            };
            continue;
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let length: usize = rest.get(..digits)?.parse().ok()?;
        let identifier = rest.get(digits..digits + length)?;
        rest = &rest[digits + length..];
        if !nested || !rest.starts_with(|c: char| c.is_ascii_digit() || "SrVKROL".contains(c)) {
            return Some(identifier);
        }
    }
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

    /// Pairs of names for one kernel, as ncu and the C++ runtime demangle them (the H200
    /// launch trace of LU and of a PyTorch training loop, lab/runs/2026-12-01-launch-trace.txt).
    #[test]
    fn both_demanglers_give_one_function_identifier() {
        let pairs = [
            (
                "lud_internal(float *, int, int)",
                "lud_internal(float*, int, int)",
            ),
            (
                "void scale<4>(float *, float, int)",
                "void scale<4>(float*, float, int)",
            ),
            (
                "void at::elementwise_kernel<128, 2, void at::gpu_kernel_impl_nocast<at::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)",
                "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})",
            ),
            (
                "void at::<unnamed>::distribution_elementwise_grid_stride_kernel<float, 4>(long, T3)",
                "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4>(long, at::PhiloxCudaState)",
            ),
        ];
        for (ncu, runtime) in pairs {
            assert_eq!(function_identifier(ncu), function_identifier(runtime));
        }
        assert_eq!(function_identifier(pairs[0].0), "lud_internal");
        assert_eq!(
            function_identifier(pairs[3].0),
            "distribution_elementwise_grid_stride_kernel"
        );
    }

    /// The names of fixtures/names/undemangled_cudnn_pytorch2.11_cu130.txt: one kernel as
    /// the launch tracer kept it (mangled: the C++ runtime could not demangle it) and as
    /// ncu named it, in the CNN's run on the H200; then ncu's name and the tracer's
    /// mangled name of another.
    #[test]
    fn a_mangled_name_gives_the_identifier_of_its_demangled_form() {
        let names = include_str!("../fixtures/names/undemangled_cudnn_pytorch2.11_cu130.txt");
        let lines: Vec<&str> = names.lines().collect();
        assert_eq!(function_identifier(lines[0]), "Kernel");
        assert_eq!(function_identifier(lines[0]), function_identifier(lines[1]));
        assert_eq!(function_identifier(lines[2]), "wgrad_alg0_engine");
        assert_eq!(function_identifier(lines[2]), function_identifier(lines[3]));
        for (mangled, identifier) in [
            ("_Z12lud_diagonalPfii", "lud_diagonal"),
            (
                "_ZN2at6native52_GLOBAL__N__e57809e0_19_DilatedMaxPool2d_cu_6258b57421max_pool_forward_nchwIfiEEvT0_PKT_",
                "max_pool_forward_nchw",
            ),
            ("_ZNSt6detail6kernelEv", "kernel"),
            ("_ZNK3foo3barEv", "bar"),
        ] {
            assert_eq!(function_identifier(mangled), identifier, "{mangled}");
        }
        // Not mangled, or not read: the demangled form's rules apply.
        assert_eq!(function_identifier("_Zebra(int)"), "_Zebra");
    }

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
