//! Message templates: text with `{expression}` or `{expression:.N}` holes, filled from a
//! launch's metrics and the rule's parameters.

use super::expr::{self, Expr};
use crate::error::Result;

#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    Hole { expr: Expr, decimals: Option<usize> },
}

#[derive(Debug, Clone)]
pub struct Template {
    pieces: Vec<Piece>,
}

impl Template {
    pub fn parse(src: &str) -> std::result::Result<Self, String> {
        let mut pieces = Vec::new();
        let mut rest = src;
        while let Some(open) = rest.find('{') {
            pieces.push(Piece::Text(rest[..open].to_string()));
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| format!("unclosed `{{` in {src:?}"))?
                + open;
            let inner = &rest[open + 1..close];
            let (body, decimals) = match inner.rsplit_once(":.") {
                Some((b, d)) => (
                    b,
                    Some(
                        d.parse::<usize>()
                            .map_err(|_| format!("bad precision `:.{d}`"))?,
                    ),
                ),
                None => (inner, None),
            };
            let expr = expr::parse(body).map_err(|e| format!("{e} in `{{{inner}}}`"))?;
            pieces.push(Piece::Hole { expr, decimals });
            rest = &rest[close + 1..];
        }
        pieces.push(Piece::Text(rest.to_string()));
        Ok(Template { pieces })
    }

    pub fn check(&self, mut f: impl FnMut(&Expr) -> Result<()>) -> Result<()> {
        for p in &self.pieces {
            if let Piece::Hole { expr, .. } = p {
                f(expr)?;
            }
        }
        Ok(())
    }

    pub fn variables(&self, out: &mut Vec<String>) {
        for p in &self.pieces {
            if let Piece::Hole { expr, .. } = p {
                expr.variables(out);
            }
        }
    }

    /// The text with each hole as `N`: how the rule's docs show a value a finding fills in.
    pub fn generic(&self) -> String {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Hole { .. } => out.push('N'),
            }
        }
        out
    }

    pub fn render(&self, lookup: &dyn super::expr::Lookup) -> String {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Hole { expr, decimals } => match expr.eval(lookup) {
                    Ok(v) => out.push_str(&format_number(v, *decimals)),
                    Err(_) => out.push('?'),
                },
            }
        }
        out
    }
}

/// Formats with the given decimals, grouping thousands of whole numbers for readability.
pub fn format_number(v: f64, decimals: Option<usize>) -> String {
    let d = decimals.unwrap_or(if v.fract() == 0.0 { 0 } else { 2 });
    let s = format!("{v:.d$}");
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (s, None),
    };
    let (sign, digits) = int
        .strip_prefix('-')
        .map_or(("", int.as_str()), |d| ("-", d));
    let mut grouped = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_holes_with_precision() {
        let t = Template::parse("uses {a:.1} of 32 ({a / 32 * 100:.1}%), {n} sectors").unwrap();
        let lookup = |k: &str| match k {
            "a" => Some(4.0),
            "n" => Some(8388608.0),
            _ => None,
        };
        assert_eq!(
            t.render(&lookup),
            "uses 4.0 of 32 (12.5%), 8,388,608 sectors"
        );
    }

    #[test]
    fn missing_values_render_as_question_mark() {
        let t = Template::parse("x = {x:.1}").unwrap();
        assert_eq!(t.render(&|_: &str| None), "x = ?");
    }
}
