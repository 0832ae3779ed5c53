//! The modules of src/, and those of each of its folders, form no import circle, and the data flows one way: ingest knows
//! nothing of rules or reports; no function outside tests is longer than 80 lines. Read
//! from the source here, in Rust: the tests need nothing beyond the toolchain.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// A file's code before its tests, without comment lines.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let before_tests = text.split("#[cfg(test)]").next().unwrap_or("");
    before_tests
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Top-level module -> the top-level modules it names through `crate::`.
fn module_graph() -> Graph {
    graph_of(&src(), "crate::")
}

/// The folder modules of src/ (those with a mod.rs).
fn folder_modules() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(src())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("mod.rs").exists())
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    out.sort();
    out
}

/// src/FOLDER/'s modules (its files and its folders) -> those of them each names.
fn folder_graph(folder: &str) -> Graph {
    graph_of(&src().join(folder), &format!("crate::{folder}::"))
}

/// The modules of `dir` (its files and folders), whose path is `prefix` -> those of them
/// each names: `PREFIX x` and `PREFIX {x, y}` from anywhere in it, `super::x` from a file
/// directly in it.
fn graph_of(dir: &Path, prefix: &str) -> Graph {
    let is_module = |m: &str| {
        !["main", "lib", "mod"].contains(&m)
            && (dir.join(format!("{m}.rs")).exists() || dir.join(m).is_dir())
    };
    let prefix = regex::escape(prefix);
    let single = regex::Regex::new(&format!(r"{prefix}(\w+)")).unwrap();
    let group = regex::Regex::new(&format!(r"{prefix}\{{([^}}]*)\}}")).unwrap();
    let sibling = regex::Regex::new(r"\bsuper::(\w+)").unwrap();
    let sibling_group = regex::Regex::new(r"\bsuper::\{([^}]*)\}").unwrap();
    let word = regex::Regex::new(r"\w+").unwrap();
    let mut graph = Graph::new();
    for path in rust_files(dir) {
        let rel = path.strip_prefix(dir).unwrap();
        let module = rel.iter().next().unwrap().to_string_lossy();
        let module = module.trim_end_matches(".rs").to_string();
        if !is_module(&module) {
            continue;
        }
        let code = code(&path);
        let mut used: Vec<String> = single
            .captures_iter(&code)
            .map(|c| c[1].to_string())
            .collect();
        let mut groups: Vec<&str> = group
            .captures_iter(&code)
            .map(|g| g.get(1).unwrap().as_str())
            .collect();
        if path.parent() == Some(dir) {
            used.extend(sibling.captures_iter(&code).map(|c| c[1].to_string()));
            groups.extend(
                sibling_group
                    .captures_iter(&code)
                    .map(|g| g.get(1).unwrap().as_str()),
            );
        }
        for g in groups {
            used.extend(word.find_iter(g).map(|w| w.as_str().to_string()));
        }
        let deps = graph.entry(module.clone()).or_default();
        deps.extend(used.into_iter().filter(|m| *m != module && is_module(m)));
    }
    graph
}

/// A cycle, as the modules along it, if there is one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        state: &mut BTreeMap<String, bool>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), true);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next) {
                Some(true) => {
                    let at = stack.iter().position(|m| m == next).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(false) => {}
                None => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        state.insert(node.to_string(), false);
        stack.pop();
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node)
            && let Some(c) = visit(node, graph, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn modules_are_acyclic_and_ingest_does_not_depend_on_report() {
    let graph = module_graph();
    assert_eq!(find_cycle(&graph), None, "{graph:#?}");
    // Within each folder too: a walk of `gpulint run` never climbs back up.
    let folders = folder_modules();
    for needed in ["commands", "ingest", "profile"] {
        assert!(folders.iter().any(|f| f == needed), "{folders:?}");
    }
    for folder in &folders {
        let inner = folder_graph(folder);
        assert_eq!(find_cycle(&inner), None, "src/{folder}: {inner:#?}");
    }
    assert!(folder_graph("commands")["run"].contains("lint"));
    let ingest = &graph["ingest"];
    for later in ["report", "rules", "fold", "origin", "app"] {
        assert!(!ingest.contains(later), "ingest -> {ingest:?}");
    }
    // The report's data flows down: commands -> pipeline -> rules, roofline, fold ->
    // ingest, and nothing climbs back up to the commands.
    for (module, later) in &graph {
        if module != "commands" {
            assert!(!later.contains("commands"), "{module} -> {later:?}");
        }
    }
    for upper in ["commands", "cli", "profile", "report"] {
        assert!(!graph["pipeline"].contains(upper), "pipeline -> {upper}");
    }
    for lower in ["rules", "roofline", "fold", "ingest", "report"] {
        assert!(!graph[lower].contains("pipeline"), "{lower} -> pipeline");
    }
    // The check itself finds a cycle where there is one.
    let mut looped = Graph::new();
    looped.entry("a".into()).or_default().insert("b".into());
    looped.entry("b".into()).or_default().insert("a".into());
    assert!(find_cycle(&looped).is_some());
}

#[test]
fn no_function_is_longer_than_80_lines() {
    let start = regex::Regex::new(r"^(\s*)(pub(\([a-z]+\))? )?fn (\w+)").unwrap();
    let mut long = Vec::new();
    for path in rust_files(&src()) {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.split('\n').collect();
        for (i, line) in lines.iter().enumerate() {
            // Tests inline in the file end what is checked; a test module declared in a
            // file of its own (`#[cfg(test)] mod meta_tests;`) does not.
            if line.starts_with("#[cfg(test)]")
                && !lines.get(i + 1).is_some_and(|l| l.ends_with(';'))
            {
                break;
            }
            let Some(c) = start.captures(line) else {
                continue;
            };
            let close = format!("{}}}", &c[1]);
            if let Some(end) = lines[i + 1..].iter().position(|l| *l == close) {
                let length = end + 2;
                if length > 80 {
                    long.push(format!(
                        "{}:{} {} {length} lines",
                        path.display(),
                        i + 1,
                        &c[4]
                    ));
                }
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}
