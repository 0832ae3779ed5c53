//! What the README and docs/ quote about the tool's output is what the tool prints: counts,
//! commands and options are run here, so a change that makes a sentence false fails.

mod common;

use common::{gpulint, transcript};

/// The README and the pages of docs/ it links to, as one text.
fn readme() -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    ["README.md", "docs/usage.md", "docs/results.md"]
        .iter()
        .map(|f| std::fs::read_to_string(format!("{root}/{f}")).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The number written just before `words` in `text` ("53 metrics" -> 53).
fn number_before(text: &str, words: &str) -> usize {
    let at = text
        .find(words)
        .unwrap_or_else(|| panic!("README no longer says {words:?}"));
    let digits: String = text[..at]
        .trim_end()
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

fn count(args: &[&str]) -> usize {
    let out = gpulint(args);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .split(',')
        .count()
}

#[test]
fn readme_metric_counts_are_what_gpulint_metrics_prints() {
    let text = readme().replace('\n', " ");
    let all = count(&["metrics"]);
    let lean = count(&["metrics", "--no-roofline"]);
    assert_eq!(
        number_before(&text, " metrics, "),
        all,
        "`gpulint metrics` prints {all}"
    );
    assert_eq!(number_before(&text, " without the roofline"), lean);
    assert_eq!(
        number_before(&text, " metrics, which CUPTI's host-side count puts at"),
        all
    );
}

/// docs/time-at-stake.md lists every rule that has a stake, with the expression its file
/// gives, verbatim.
#[test]
fn time_at_stake_doc_gives_each_rules_own_expression() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/time-at-stake.md"
    ))
    .unwrap();
    let rules = gpulint::load_rules(None).unwrap();
    let mut checked = 0;
    for r in rules.iter().filter(|r| r.stake_source().trim() != "0") {
        let stake = r.stake_source().trim();
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", r.slug)))
            .unwrap_or_else(|| panic!("docs/time-at-stake.md has no row for {}", r.slug));
        assert!(
            row.contains(&format!("`{stake}`")),
            "{}: the doc says {row:?}, the rule {stake:?}",
            r.slug
        );
        checked += 1;
    }
    assert!(checked >= 12, "{checked}");
}

/// docs/rules.md documents every field a rule file may have, and nothing else: the field
/// list comes from the parser, which refuses unknown fields.
#[test]
fn rules_doc_lists_every_rule_file_field() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    let parser =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/rules/parse.rs"))
            .unwrap();
    let body = parser
        .split("struct RuleFile {")
        .nth(1)
        .and_then(|b| b.split("\n}").next())
        .unwrap();
    let field = regex::Regex::new(r"(?m)^    (\w+): ").unwrap();
    let fields: Vec<&str> = field
        .captures_iter(body)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    assert!(fields.len() > 15, "{fields:?}");
    for f in fields {
        let (table, plain) = (format!("| `{f}` |"), format!("| `[{f}]` |"));
        let array = format!("| `[[{f}]]` |");
        assert!(
            doc.contains(&table) || doc.contains(&plain) || doc.contains(&array),
            "docs/rules.md does not document the rule-file field `{f}`"
        );
    }
    assert!(doc.contains("a `launch` rule judges the launch's shape"));
}

/// The README: `gpulint metrics --chip NAME` prints the list for a chip or a GPU name and
/// says on stderr what that chip cannot give, with no other option.
#[test]
fn readme_metrics_chip_claims_hold() {
    let text = readme().replace('\n', " ");
    assert!(text.contains("says on stderr what that chip cannot give"));
    let out = gpulint(&["metrics", "--chip", "ga10b"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("chip ga10b has no metric for dram_"),
        "{}",
        transcript(&out)
    );
    let by_gpu = gpulint(&["metrics", "--chip", "rtx 4090"]);
    assert_eq!(
        by_gpu.stdout,
        gpulint(&["metrics", "--chip", "ad102"]).stdout
    );
}

/// The fixtures' notes point only at files in this repository (a fresh clone has no
/// `../shared`), and every `fixtures/...` path they name exists.
#[test]
fn fixture_notes_point_inside_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = regex::Regex::new(r"`(fixtures/[\w./-]+)`").unwrap();
    let mut notes = Vec::new();
    for dir in std::fs::read_dir(root.join("fixtures")).unwrap() {
        let dir = dir.unwrap().path();
        for f in std::fs::read_dir(&dir).into_iter().flatten() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|x| x == "md") {
                notes.push(f);
            }
        }
    }
    assert!(notes.len() >= 4, "{notes:?}");
    for note in notes {
        let text = std::fs::read_to_string(&note).unwrap();
        assert!(
            !text.contains("../shared"),
            "{} points outside the repository",
            note.display()
        );
        for c in path.captures_iter(&text) {
            assert!(
                root.join(&c[1]).exists(),
                "{} names {}, which does not exist",
                note.display(),
                &c[1]
            );
        }
    }
}
