//! Whose kernel is it: a library's, generated code, framework plumbing, or the user's.
//! Patterns are data (`rules/origins.toml`, extended by `origins.toml` in `--rules DIR`).
//! The origin changes what a finding means: a library's internals are not the user's to
//! edit, so they become info with a note on the call to change instead.

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Library,
    Generated,
    Helper,
    User,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct OriginsFile {
    #[serde(default)]
    library_internal_rules: Vec<String>,
    /// The rules an origin's general `call` text answers (access patterns); the others
    /// keep their own fix.
    #[serde(default)]
    call_rules: Vec<String>,
    #[serde(default)]
    origin: Vec<OriginFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OriginFile {
    name: String,
    kind: Kind,
    patterns: Vec<String>,
    #[serde(default)]
    unambiguous: Vec<String>,
    #[serde(default)]
    objects: Vec<String>,
    #[serde(default)]
    internal: Option<String>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    call: Option<String>,
    #[serde(default)]
    call_fix: Vec<CallFixFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CallFixFile {
    rules: Vec<String>,
    #[serde(default)]
    name: Option<String>,
    fix: String,
    #[serde(default)]
    note: Option<String>,
}

#[derive(Debug, Clone)]
pub struct CallFix {
    pub rules: Vec<String>,
    pub name: Option<Regex>,
    pub fix: String,
    /// Said with the finding: what the rule's own message gets wrong for this library's
    /// kernels (a cuDNN convolution is no matmul).
    pub note: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Origin {
    pub name: String,
    pub kind: Kind,
    pub patterns: Vec<Regex>,
    /// Names no one else's kernel has (`triton_poi_fused_gelu_0`): they outrank a
    /// launching object that no origin claims, which for generated code is often only a
    /// framework's dispatcher (Inductor's Triton kernels are launched from
    /// libtorch_python.so).
    pub unambiguous: Vec<Regex>,
    /// Patterns on the path of the shared object that launched the kernel (the launch
    /// trace's evidence): a library shipped as objects. Empty for header-only libraries
    /// and generated code, which any object may hold.
    pub objects: Vec<Regex>,
    pub internal: Option<String>,
    pub note: Option<String>,
    /// The fix for call-site findings that no `call_fix` names more precisely.
    pub call: Option<String>,
    pub call_fixes: Vec<CallFix>,
}

impl Origin {
    /// Whether the kernel's name (without `void`) matches one of this origin's patterns.
    fn names(&self, kernel: &str) -> bool {
        let name = crate::kernel::without_return_type(kernel);
        self.patterns.iter().any(|p| p.is_match(name))
    }

    fn names_unambiguously(&self, kernel: &str) -> bool {
        let name = crate::kernel::without_return_type(kernel);
        self.unambiguous.iter().any(|p| p.is_match(name))
    }
}

#[derive(Debug, Clone, Default)]
pub struct Origins {
    pub list: Vec<Origin>,
    pub library_internal_rules: Vec<String>,
    pub call_rules: Vec<String>,
    /// Kernel name -> the object that launched it, from the launch trace.
    launched_from: std::collections::HashMap<String, std::sync::Arc<str>>,
    /// Kernel name -> index into `list`, and whether the launching object decided it:
    /// reports ask about the same names many times, and each answer costs every pattern
    /// of every origin.
    memo: std::cell::RefCell<std::collections::HashMap<String, Decision>>,
}

/// An index into [`Origins::list`] (none: the user's), and whether the launching object
/// (true) or the name (false) decided it.
type Decision = (Option<usize>, bool);

/// What a kernel is, as reports show it, and what said so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelOrigin {
    pub kind: Kind,
    pub name: String,
    /// `launched_from` when the launch trace named the object that launched the kernel,
    /// else `name`: the kernel's name matched the origin's patterns, or none did.
    pub evidence: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launched_from: Option<String>,
}

fn regex(origin: &str, field: &str, p: &str) -> Result<Regex> {
    Regex::new(p).map_err(|e| Error::in_file(origin, format!("field `{field}`: {e}")))
}

fn parse(origin_file: &str, text: &str) -> Result<Origins> {
    let file: OriginsFile = toml::from_str(text).map_err(|e| {
        Error::in_file(
            origin_file,
            format!("malformed origins file: {}", e.message()),
        )
    })?;
    let list = file
        .origin
        .into_iter()
        .map(|o| {
            Ok(Origin {
                patterns: o
                    .patterns
                    .iter()
                    .map(|p| regex(origin_file, "origin.patterns", p))
                    .collect::<Result<_>>()?,
                unambiguous: o
                    .unambiguous
                    .iter()
                    .map(|p| regex(origin_file, "origin.unambiguous", p))
                    .collect::<Result<_>>()?,
                objects: o
                    .objects
                    .iter()
                    .map(|p| regex(origin_file, "origin.objects", p))
                    .collect::<Result<_>>()?,
                call_fixes: o
                    .call_fix
                    .into_iter()
                    .map(|c| {
                        Ok(CallFix {
                            name: c
                                .name
                                .as_deref()
                                .map(|p| regex(origin_file, "origin.call_fix.name", p))
                                .transpose()?,
                            rules: c.rules,
                            fix: c.fix,
                            note: c.note,
                        })
                    })
                    .collect::<Result<_>>()?,
                name: o.name,
                kind: o.kind,
                internal: o.internal,
                note: o.note,
                call: o.call,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Origins {
        list,
        library_internal_rules: file.library_internal_rules,
        call_rules: file.call_rules,
        launched_from: Default::default(),
        memo: Default::default(),
    })
}

/// The built-in patterns, embedded at build time.
const EMBEDDED: &str = include_str!("../rules/origins.toml");

/// The built-in origins, after those of `DIR/origins.toml` when the rules directory has one.
pub fn load(extra_dir: Option<&str>) -> Result<Origins> {
    let mut origins = parse("rules/origins.toml", EMBEDDED)?;
    if let Some(dir) = extra_dir {
        let path = std::path::Path::new(dir).join("origins.toml");
        if path.is_file() {
            let origin = path.display().to_string();
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::in_file(&origin, format!("cannot read: {e}")))?;
            let mut user = parse(&origin, &text)?;
            user.list.append(&mut origins.list);
            if user.library_internal_rules.is_empty() {
                user.library_internal_rules = origins.library_internal_rules;
            }
            if user.call_rules.is_empty() {
                user.call_rules = origins.call_rules;
            }
            origins = user;
        }
    }
    Ok(origins)
}

impl Origins {
    /// Takes the launch trace's evidence: which object launched each kernel. It outranks
    /// the name for every origin shipped as objects (`objects`).
    /// `launches` is each launch's kernel name and launching object (none where the
    /// input does not say); the first object a kernel has is kept.
    pub fn learn_launching_objects<'a>(
        &mut self,
        launches: impl Iterator<Item = (&'a String, Option<&'a std::sync::Arc<str>>)>,
    ) {
        for (name, object) in launches {
            if let Some(object) = object {
                self.launched_from
                    .entry(name.clone())
                    .or_insert_with(|| object.clone());
            }
        }
        self.memo.borrow_mut().clear();
    }

    /// The kernel's origin: the one whose `objects` match the object that launched it;
    /// else the first whose name patterns match, among those any object may hold when
    /// the launching object is known and is no library's.
    pub fn classify(&self, kernel: &str) -> Option<&Origin> {
        self.decide(kernel).0.map(|i| &self.list[i])
    }

    fn decide(&self, kernel: &str) -> Decision {
        if let Some(&hit) = self.memo.borrow().get(kernel) {
            return hit;
        }
        let object = self.launched_from.get(kernel);
        // A helper is told by what it does, whichever library launched it (XLA's autotuner
        // kernels come from the XLA plugin, like its fusions).
        let helper = || {
            self.list
                .iter()
                .position(|o| o.kind == Kind::Helper && o.names(kernel))
        };
        let unambiguous = || self.list.iter().position(|o| o.names_unambiguously(kernel));
        let by_object = || {
            object.and_then(|path| {
                self.list
                    .iter()
                    .position(|o| o.objects.iter().any(|p| p.is_match(path)))
            })
        };
        let by_name = || {
            self.list
                .iter()
                .position(|o| (object.is_none() || o.objects.is_empty()) && o.names(kernel))
        };
        let hit = if let Some(i) = helper() {
            (Some(i), false)
        } else if let Some(i) = by_object() {
            (Some(i), true)
        } else if let Some(i) = unambiguous() {
            // An object no origin claims (the framework's dispatcher) does not make a
            // generated kernel the user's.
            (Some(i), false)
        } else {
            // A known object that no library claims: header-only library code or
            // generated code by name, else the user's own (the object says so).
            match by_name() {
                Some(i) => (Some(i), false),
                None => (None, object.is_some()),
            }
        };
        self.memo.borrow_mut().insert(kernel.to_string(), hit);
        hit
    }

    pub fn describe(&self, kernel: &str) -> KernelOrigin {
        let object = self.launched_from.get(kernel);
        let (hit, by_object) = self.decide(kernel);
        let origin = hit.map(|i| &self.list[i]);
        KernelOrigin {
            kind: origin.map_or(Kind::User, |o| o.kind),
            name: origin.map_or_else(|| "user".into(), |o| o.name.clone()),
            evidence: if by_object { "launched_from" } else { "name" },
            launched_from: object.map(|o| o.to_string()),
        }
    }

    /// What said whose kernel it is, for a finding's notes: `None` when only the name did,
    /// and on the user's own kernels unless their name alone would have said otherwise.
    pub fn evidence_note(&self, kernel: &str) -> Option<String> {
        let o = self.describe(kernel);
        let object = o.launched_from.as_deref()?;
        let file = object.rsplit('/').next().unwrap_or(object);
        match (o.evidence, o.kind) {
            ("launched_from", Kind::User) => {
                let named = self.list.iter().find(|o| o.names(kernel))?;
                Some(format!(
                    "origin: yours, launched from {file}, though its name is like {}'s",
                    named.name
                ))
            }
            ("launched_from", _) => Some(format!("origin: {} (launched from {file})", o.name)),
            _ => Some(format!(
                "origin: {} by its name; launched from {file}",
                o.name
            )),
        }
    }

    /// Helper kernels and their launch counts: listed once, never linted.
    pub fn helpers<'a>(&self, kernels: impl Iterator<Item = (&'a str, u64)>) -> Vec<(String, u64)> {
        let mut out: Vec<(String, u64)> = Vec::new();
        for (name, count) in kernels {
            if self.classify(name).is_some_and(|o| o.kind == Kind::Helper) {
                match out.iter_mut().find(|(k, _)| k == name) {
                    Some((_, n)) => *n += count,
                    None => out.push((name.to_string(), count)),
                }
            }
        }
        out
    }

    /// What a kernel's origin does to a finding of `rule` on it: none on helper
    /// kernels; library internals become info; library call sites name the call to change.
    pub fn adjust(&self, kernel: &str, rule: &str) -> Adjustment {
        let keep = Adjustment::Keep {
            to_info: false,
            note: None,
            fix: None,
        };
        let Some(o) = self.classify(kernel) else {
            return keep;
        };
        let rule = rule.to_string();
        match o.kind {
            Kind::Helper => Adjustment::Drop,
            // The library's internals are not the user's to edit: the help names the call
            // to change, so that it never says what the rule says to a kernel's author.
            Kind::Library if self.library_internal_rules.contains(&rule) => Adjustment::Keep {
                to_info: true,
                note: None,
                fix: o.internal.clone(),
            },
            Kind::Library => {
                let call_fix = o.call_fixes.iter().find(|c| {
                    c.rules.contains(&rule) && c.name.as_ref().is_none_or(|n| n.is_match(kernel))
                });
                // The general call text is about access patterns: a rule with its own call
                // to name (a precision switch, say) keeps its fix.
                let general = o.call.clone().filter(|_| self.call_rules.contains(&rule));
                let note = call_fix.and_then(|c| c.note.clone());
                match call_fix.map(|c| c.fix.clone()).or(general) {
                    Some(fix) => Adjustment::Keep {
                        to_info: false,
                        note,
                        fix: Some(fix),
                    },
                    // An access-pattern finding no call explains is the library's own:
                    // never the rule's advice to a kernel's author.
                    None if self.call_rules.contains(&rule) => Adjustment::Keep {
                        to_info: true,
                        note: None,
                        fix: o.internal.clone(),
                    },
                    None => Adjustment::Keep {
                        to_info: false,
                        note: None,
                        fix: None,
                    },
                }
            }
            Kind::Generated => Adjustment::Keep {
                to_info: false,
                note: o.note.clone(),
                fix: None,
            },
            Kind::User => keep,
        }
    }
}

/// See [`Origins::adjust`].
#[derive(Debug, Clone, PartialEq)]
pub enum Adjustment {
    /// The kernel is a helper: no finding.
    Drop,
    Keep {
        /// Lower the finding to info.
        to_info: bool,
        note: Option<String>,
        /// Replace the rule's fix with this one.
        fix: Option<String>,
    },
}

#[cfg(test)]
mod tests;
