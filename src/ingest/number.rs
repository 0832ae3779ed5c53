//! Numbers and units as ncu prints them, normalised to base units.
//!
//! ncu groups thousands with the locale's separator ("8,388,608", or "8.388.608" on a
//! European-locale machine) and, unless run with `--print-units base`, scales values to
//! a readable unit (`usecond`, `Mbyte`, `Gbyte/s`, `Ghz`). Internally every time is in
//! nanoseconds (ncu's base for durations), sizes in bytes, rates per second and
//! frequencies in hertz.

/// How a file writes its numbers. Decided once per file from the values it holds,
/// because "1.504" alone cannot tell a thousands separator from a decimal point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NumberStyle {
    /// `1,234.56`
    #[default]
    PointDecimal,
    /// `1.234,56`
    CommaDecimal,
}

/// What a cell says, once read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell {
    /// A finite number, already scaled to the base unit.
    Value(f64),
    /// Empty, `n/a`, `nan` or `-`: the metric was not collected for this launch.
    Absent,
}

/// Looks at one value and says which style it proves, if any.
pub fn style_evidence(raw: &str) -> Option<NumberStyle> {
    let s = raw.trim().trim_start_matches(['-', '+']);
    let bytes = s.as_bytes();
    if bytes.is_empty()
        || !bytes
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b',' || *b == b'.')
    {
        return None;
    }
    let commas = s.matches(',').count();
    let points = s.matches('.').count();
    match (commas, points) {
        (0, 0) => None,
        // Both present: whichever comes last is the decimal mark.
        (_, _) if commas > 0 && points > 0 => {
            if s.rfind(',') > s.rfind('.') {
                Some(NumberStyle::CommaDecimal)
            } else {
                Some(NumberStyle::PointDecimal)
            }
        }
        // Repeated marks can only be group separators.
        (c, 0) if c > 1 => Some(NumberStyle::PointDecimal),
        (0, p) if p > 1 => Some(NumberStyle::CommaDecimal),
        // A single mark followed by anything but exactly three digits is a decimal mark.
        (1, 0) => {
            let after = s.len() - s.rfind(',').unwrap_or(0) - 1;
            (after != 3).then_some(NumberStyle::CommaDecimal)
        }
        (0, 1) => {
            let after = s.len() - s.rfind('.').unwrap_or(0) - 1;
            (after != 3).then_some(NumberStyle::PointDecimal)
        }
        _ => None,
    }
}

/// Parses one cell. `Err` carries a short reason for the caller to place in a file.
pub fn parse_cell(raw: &str, unit: &str, style: NumberStyle) -> Result<Cell, String> {
    // ncu's text output marks a value it could not collect as "(!) nan" or "(!) n/a"
    // (seen on a launch that failed, ncu 2023.2).
    let s = aggregate_value(raw).trim();
    let s = s.strip_prefix("(!)").map_or(s, str::trim_start);
    if s.is_empty() || s == "-" {
        return Ok(Cell::Absent);
    }
    // ncu writes "no data" where it could not collect a metric (seen in --set full exports).
    if ["n/a", "nan", "-nan", "(nan)", "no data"]
        .iter()
        .any(|absent| s.eq_ignore_ascii_case(absent))
    {
        return Ok(Cell::Absent);
    }
    let number =
        parse_plain_number(s, style).ok_or_else(|| format!("value {s:?} is not a number"))?;
    if !number.is_finite() {
        return Err(format!("value {s:?} is not a finite number"));
    }
    let scale =
        unit_scale(unit).ok_or_else(|| format!("unit {unit:?} is not one gpulint knows"))?;
    Ok(Cell::Value(number * scale))
}

/// The aggregate of a metric with instance values, without the list that follows it:
/// `16 (16)` and `16 (0: 16)` (`--print-metric-instances values` or `details`), `40 (1
/// instances)` (the GUI). Empty when only instances are shown (`(0.00; 0; 0)`): no
/// aggregate, not collected.
pub(crate) fn aggregate_value(cell: &str) -> &str {
    let trimmed = cell.trim();
    match trimmed.find('(') {
        Some(open) if trimmed.ends_with(')') && !trimmed.starts_with("(!)") => {
            trimmed[..open].trim_end()
        }
        _ => cell,
    }
}

/// Whether a value, as the GUI writes it (2 decimals in the unit it chose for the whole
/// column), kept fewer than three significant digits: `0.08`, `0.00`. An integer (`0`,
/// `40`) is a count, exact as written.
pub(crate) fn few_significant_digits(text: &str) -> bool {
    let t = text.trim();
    let t = t.strip_prefix('-').unwrap_or(t);
    let b = t.as_bytes();
    b.len() == 4
        && b[0] == b'0'
        && (b[1] == b'.' || b[1] == b',')
        && b[2..].iter().all(u8::is_ascii_digit)
}

/// A cell that is only a finite number in ncu's plain form (digits, a point, a sign, an
/// exponent, commas grouping thousands), in a file that uses a decimal point; `None` for
/// anything else, which [`parse_cell`] then reads.
pub(crate) fn plain_value(cell: &[u8], style: NumberStyle) -> Option<f64> {
    let plain = |b: &u8| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E' | b',');
    if style != NumberStyle::PointDecimal
        || !cell.first().is_some_and(u8::is_ascii_digit)
        || !cell.iter().all(plain)
    {
        return None;
    }
    // Without the group commas, on the stack: a long count is still under 32 digits.
    let mut digits = [0u8; 32];
    let mut n = 0;
    for &b in cell.iter().filter(|b| **b != b',') {
        *digits.get_mut(n)? = b;
        n += 1;
    }
    std::str::from_utf8(&digits[..n])
        .ok()?
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// Parses a number with group separators in the given style. `inf` and `nan` spelled out
/// parse, so the caller can refuse them with a clear message.
pub fn parse_plain_number(s: &str, style: NumberStyle) -> Option<f64> {
    let (group, decimal) = match style {
        NumberStyle::PointDecimal => (',', '.'),
        NumberStyle::CommaDecimal => ('.', ','),
    };
    let s = s.trim();
    // Most cells are plain ("1234", "12.5"): parsed without building a cleaned copy.
    let plain = |b: u8| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'e' | b'E');
    if decimal == '.' && !s.is_empty() && s.bytes().all(|b| plain(b) || b == b'.') {
        return s.parse::<f64>().ok();
    }
    let mut cleaned = String::with_capacity(s.len());
    for ch in s.trim().chars() {
        if ch == group {
            continue;
        } else if ch == decimal {
            cleaned.push('.');
        } else {
            cleaned.push(ch);
        }
    }
    let lower = cleaned.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "+inf" | "infinity" => return Some(f64::INFINITY),
        "-inf" | "-infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    // Refuse what Rust would accept but ncu never prints ("1e5" is fine, "0x10" is not).
    if !cleaned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
    {
        return None;
    }
    cleaned.parse::<f64>().ok()
}

/// The factor that turns a value in `unit` into the base unit. `None` for a unit with a
/// scale prefix gpulint does not know; plain units (`sector`, `inst`, `%`) are 1.
pub fn unit_scale(unit: &str) -> Option<f64> {
    let unit = unit.trim();
    if unit.is_empty() {
        return Some(1.0);
    }
    // The numerator carries an SI scale ("Gbyte/s", "Kbyte/block", "inst/cycle"); a time
    // denominator turns a rate into one per second ("cycle/nsecond" is GHz).
    let (numerator, denominator) = unit.split_once('/').unwrap_or((unit, ""));
    let per_second = match denominator {
        "nsecond" | "ns" => 1e9,
        "usecond" | "us" => 1e6,
        "msecond" | "ms" => 1e3,
        _ => 1.0,
    };
    numerator_scale(numerator).map(|scale| scale * per_second)
}

fn numerator_scale(numerator: &str) -> Option<f64> {
    let time = match numerator {
        "nsecond" | "ns" => Some(1.0),
        "usecond" | "us" => Some(1e3),
        "msecond" | "ms" => Some(1e6),
        "second" | "s" => Some(1e9),
        _ => None,
    };
    if let Some(t) = time {
        return Some(t);
    }
    // ncu scales by powers of 1000 with an SI prefix on the base word: Kbyte, Mhz, Gcycle.
    const BASES: [&str; 11] = [
        "byte", "hz", "cycle", "inst", "sector", "warp", "thread", "request", "block", "pass",
        "bit",
    ];
    let n = numerator.as_bytes();
    for base in BASES {
        let Some(split) = n.len().checked_sub(base.len()) else {
            continue;
        };
        if n[split..].eq_ignore_ascii_case(base.as_bytes()) {
            return match n[..split] {
                [] => Some(1.0),
                [prefix] => match prefix.to_ascii_lowercase() {
                    b'k' => Some(1e3),
                    b'm' => Some(1e6),
                    b'g' => Some(1e9),
                    b't' => Some(1e12),
                    b'p' => Some(1e15),
                    _ => None,
                },
                _ => None,
            };
        }
    }
    Some(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_cells_read_as_the_full_conversion_reads_them() {
        let p = NumberStyle::PointDecimal;
        for cell in ["0", "12.5", "8,388,608", "1e5", "3.25E-3", "1,234.5", "007"] {
            let full = match parse_cell(cell, "", p) {
                Ok(Cell::Value(v)) => Some(v),
                _ => None,
            };
            assert_eq!(plain_value(cell.as_bytes(), p), full, "{cell}");
        }
        for other in ["-1", "n/a", "16 (16)", "", "1,5", "inf", "1e999"] {
            let got = plain_value(other.as_bytes(), p);
            if let Some(v) = got {
                assert_eq!(parse_cell(other, "", p), Ok(Cell::Value(v)), "{other}");
            }
        }
        assert_eq!(plain_value(b"12,5", NumberStyle::CommaDecimal), None);
        assert_eq!(plain_value("1".repeat(40).as_bytes(), p), None);
    }

    #[test]
    fn values_the_gui_rounded_away_are_told() {
        for coarse in ["0.08", "0.00", "-0.50", "0,21"] {
            assert!(few_significant_digits(coarse), "{coarse}");
        }
        for exact in ["0", "40", "1.31", "22200", "11.26", "0.125", ""] {
            assert!(!few_significant_digits(exact), "{exact}");
        }
    }

    #[test]
    fn instance_values_come_off_the_aggregate() {
        assert_eq!(aggregate_value("16 (16)"), "16");
        assert_eq!(aggregate_value("11.11 (0; 0; 4.5)"), "11.11");
        assert_eq!(aggregate_value("16 (0: 16)"), "16");
        assert_eq!(aggregate_value("0 (0 (+0): 0; 17 (+17): 0)"), "0");
        assert_eq!(aggregate_value("40 (1 instances)"), "40");
        assert_eq!(aggregate_value("(0.00; 0; 0)"), "");
        assert_eq!(aggregate_value("12.5"), "12.5");
        assert_eq!(aggregate_value("(!) n/a"), "(!) n/a");
        let p = NumberStyle::PointDecimal;
        assert_eq!(parse_cell("16 (0: 16)", "", p), Ok(Cell::Value(16.0)));
        assert_eq!(parse_cell("(49.36; 0; 0)", "%", p), Ok(Cell::Absent));
        assert_eq!(parse_cell("(!) nan", "%", p), Ok(Cell::Absent));
    }

    #[test]
    fn thousands_in_both_locales() {
        let p = NumberStyle::PointDecimal;
        let c = NumberStyle::CommaDecimal;
        assert_eq!(
            parse_cell("8,388,608", "sector", p),
            Ok(Cell::Value(8_388_608.0))
        );
        assert_eq!(
            parse_cell("8.388.608", "sector", c),
            Ok(Cell::Value(8_388_608.0))
        );
        assert_eq!(parse_cell("1.234,5", "", c), Ok(Cell::Value(1234.5)));
        assert_eq!(parse_cell("53.91", "%", p), Ok(Cell::Value(53.91)));
    }

    #[test]
    fn scaled_units_become_base_units() {
        let p = NumberStyle::PointDecimal;
        assert_eq!(parse_cell("174.88", "us", p), Ok(Cell::Value(174_880.0)));
        assert_eq!(parse_cell("2", "msecond", p), Ok(Cell::Value(2e6)));
        let Ok(Cell::Value(kb)) = parse_cell("8.19", "Kbyte", p) else {
            panic!()
        };
        assert!((kb - 8190.0).abs() < 1e-6);
        assert_eq!(parse_cell("1.98", "Ghz", p), Ok(Cell::Value(1.98e9)));
        assert_eq!(parse_cell("1.01", "Tbyte/s", p), Ok(Cell::Value(1.01e12)));
        assert_eq!(
            parse_cell("1.02", "Kbyte/block", p),
            Ok(Cell::Value(1020.0))
        );
        // ncu before 2023 prints clocks per nanosecond or microsecond.
        assert_eq!(
            parse_cell("1.5", "cycle/nsecond", p),
            Ok(Cell::Value(1.5e9))
        );
        assert_eq!(
            parse_cell("874", "cycle/usecond", p),
            Ok(Cell::Value(874e6))
        );
    }

    #[test]
    fn absent_values_are_not_zero() {
        for s in [
            "", " ", "n/a", "N/A", "nan", "-", "no data", "No Data", "(!) nan", "(!) n/a",
        ] {
            assert_eq!(
                parse_cell(s, "", NumberStyle::PointDecimal),
                Ok(Cell::Absent)
            );
        }
    }

    #[test]
    fn garbage_and_infinity_are_errors() {
        assert!(parse_cell("12abc", "", NumberStyle::PointDecimal).is_err());
        assert!(parse_cell("inf", "", NumberStyle::PointDecimal).is_err());
        assert!(parse_cell("0x10", "", NumberStyle::PointDecimal).is_err());
    }

    #[test]
    fn style_is_proven_only_by_unambiguous_values() {
        assert_eq!(style_evidence("1,504"), None);
        assert_eq!(style_evidence("1.504"), None);
        assert_eq!(style_evidence("53.91"), Some(NumberStyle::PointDecimal));
        assert_eq!(style_evidence("53,91"), Some(NumberStyle::CommaDecimal));
        assert_eq!(style_evidence("8,388,608"), Some(NumberStyle::PointDecimal));
        assert_eq!(style_evidence("8.388.608"), Some(NumberStyle::CommaDecimal));
        assert_eq!(style_evidence("1,234.5"), Some(NumberStyle::PointDecimal));
    }
}

/// Properties of the number and unit readers over any input.
#[cfg(test)]
mod properties {
    use super::{Cell, NumberStyle, parse_cell, parse_plain_number, style_evidence};
    use proptest::prelude::{prop, prop_assert, prop_assert_eq, proptest};

    proptest! {
        /// Thousands separators in both locales, and back.
        #[test]
        fn grouped_numbers_round_trip(n in 0u64..10_000_000_000_000, frac in 0u32..100) {
            let int = n.to_string();
            let mut grouped_us = String::new();
            let mut grouped_eu = String::new();
            for (i, ch) in int.chars().enumerate() {
                if i > 0 && (int.len() - i) % 3 == 0 {
                    grouped_us.push(',');
                    grouped_eu.push('.');
                }
                grouped_us.push(ch);
                grouped_eu.push(ch);
            }
            let us = format!("{grouped_us}.{frac:02}");
            let eu = format!("{grouped_eu},{frac:02}");
            let want = n as f64 + frac as f64 / 100.0;
            let got_us = parse_plain_number(&us, NumberStyle::PointDecimal).unwrap();
            let got_eu = parse_plain_number(&eu, NumberStyle::CommaDecimal).unwrap();
            prop_assert!((got_us - want).abs() <= want * 1e-12 + 1e-9);
            prop_assert_eq!(got_us, got_eu);
            prop_assert_eq!(style_evidence(&us), Some(NumberStyle::PointDecimal));
            prop_assert_eq!(style_evidence(&eu), Some(NumberStyle::CommaDecimal));
        }

        /// Every unit prefix scales by its power of 1000, for every base unit.
        #[test]
        fn every_prefix_scales(v in 0.0f64..1e6, p in 0usize..5, base in prop::sample::select(vec!["byte", "hz", "cycle", "inst", "sector", "byte/s"])) {
            let prefixes = ["", "K", "M", "G", "T"];
            let (head, tail) = base.split_once('/').map_or((base, ""), |(a, b)| (a, b));
            let unit = if tail.is_empty() { format!("{}{head}", prefixes[p]) } else { format!("{}{head}/{tail}", prefixes[p]) };
            let text = format!("{v}");
            let got = parse_cell(&text, &unit, NumberStyle::PointDecimal).unwrap();
            let want = v * 1000f64.powi(p as i32);
            match got {
                Cell::Value(x) => prop_assert!((x - want).abs() <= want * 1e-12 + 1e-9, "{} {} -> {}", text, unit, x),
                Cell::Absent => prop_assert!(false, "absent"),
            }
        }

        /// Time units all land in nanoseconds.
        #[test]
        fn times_land_in_nanoseconds(v in 0.0f64..1e6, u in 0usize..4) {
            let units = [("nsecond", 1.0), ("usecond", 1e3), ("msecond", 1e6), ("second", 1e9)];
            let got = parse_cell(&format!("{v}"), units[u].0, NumberStyle::PointDecimal).unwrap();
            prop_assert_eq!(got, Cell::Value(v * units[u].1));
        }

        /// Any string: parse or refuse, never panic.
        #[test]
        fn any_cell_text_is_safe(s in ".{0,40}", unit in ".{0,12}") {
            let _ = parse_cell(&s, &unit, NumberStyle::PointDecimal);
            let _ = parse_cell(&s, &unit, NumberStyle::CommaDecimal);
            let _ = style_evidence(&s);
        }
    }
}
