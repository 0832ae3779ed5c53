//! Runs the cases a rule file lists under `[tests]`: launches where it must fire and
//! where it must stay quiet, as `FILE#ID` with FILE relative to the rule file.
//! `gpulint test-rules DIR` and the built-in rules' meta-test both use it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Rule;
use super::engine::{self, Judgement};
use crate::ingest::{self, Profile};

/// One case and how it went.
#[derive(Debug)]
pub struct Case {
    pub rule: String,
    pub spec: String,
    pub should_fire: bool,
    /// `None` when the rule did as its file says; else what went wrong.
    pub failure: Option<String>,
}

/// Runs every case of every rule; profiles are read once each.
pub fn run(rules: &[Rule]) -> Vec<Case> {
    let mut profiles: HashMap<PathBuf, Result<Profile, String>> = HashMap::new();
    let mut cases = Vec::new();
    for rule in rules {
        let dir = Path::new(&rule.origin).parent().unwrap_or(Path::new("."));
        let listed = rule.tests.fires.iter().map(|s| (s, true));
        for (spec, should_fire) in listed.chain(rule.tests.clean.iter().map(|s| (s, false))) {
            let failure = judge(rule, dir, spec, should_fire, &mut profiles).err();
            cases.push(Case {
                rule: rule.slug.clone(),
                spec: spec.clone(),
                should_fire,
                failure,
            });
        }
    }
    cases
}

/// A case's capture and launch number: `FILE#ID`, FILE relative to the rule file's
/// folder `dir`.
pub(crate) fn spec_path(dir: &Path, spec: &str) -> Result<(PathBuf, u64), String> {
    let (file, id) = spec
        .split_once('#')
        .ok_or_else(|| format!("{spec:?} is not FILE#LAUNCH"))?;
    let id: u64 = id
        .parse()
        .map_err(|_| format!("{spec:?}: {id:?} is not a launch number"))?;
    Ok((dir.join(file), id))
}

fn judge(
    rule: &Rule,
    dir: &Path,
    spec: &str,
    should_fire: bool,
    profiles: &mut HashMap<PathBuf, Result<Profile, String>>,
) -> Result<(), String> {
    let (path, id) = spec_path(dir, spec)?;
    let profile = profiles
        .entry(path.clone())
        .or_insert_with(|| {
            ingest::read_path(&path.display().to_string()).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(String::clone)?;
    let launch = profile
        .launches
        .iter()
        .find(|l| l.id == id)
        .ok_or_else(|| format!("{} has no launch {id}", path.display()))?;
    let judgement = engine::check_in_profile(rule, launch, &profile.launches, &profile.file);
    match (should_fire, judgement) {
        (true, Judgement::Fires(_)) | (false, Judgement::Quiet { .. }) => Ok(()),
        (true, other) => Err(format!("should fire, but: {}", describe(&other))),
        (false, other) => Err(format!("should stay quiet, but: {}", describe(&other))),
    }
}

fn describe(j: &Judgement) -> String {
    match j {
        Judgement::Fires(f) => format!("fires: {}", f.message),
        Judgement::Quiet { .. } => "stays quiet".into(),
        Judgement::Skipped(why) => format!("skipped: {why}"),
        Judgement::NotApplicable(key) => {
            format!("not applicable: needs `{key}`, which only gpulint's launch trace has")
        }
    }
}
