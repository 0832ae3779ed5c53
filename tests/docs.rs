//! What the README and docs/ quote about the tool's output is what the tool prints: counts,
//! commands and options are run here, so a change that makes a sentence false fails.

mod common;

use common::{gpulint, transcript};

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
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
    assert_eq!(number_before(&text, " metrics in 9 replay passes"), all);
}
