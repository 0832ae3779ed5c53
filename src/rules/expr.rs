//! The condition language of rule files: arithmetic, comparisons and `&&`/`||`/`!` over
//! metric keys and rule parameters. Every value is an f64; a comparison gives 1 or 0.
//! `&&` and `||` short-circuit, so `has_x && x > 3` style guards are unnecessary: a
//! metric that is absent makes the evaluation report it as missing instead.

use std::fmt;

use crate::metrics::KeyId;

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(f64),
    Var(Var),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Min,
    Max,
    Abs,
    Ceil,
    Floor,
    /// `has(key)`: 1 when the export has the metric, 0 when not.
    Has,
}

/// A name an expression reads: a metric key (whose slot is found once, when the rule is
/// read) or a rule parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    pub name: String,
    pub key: Option<KeyId>,
}

impl Var {
    pub fn new(name: String) -> Var {
        Var {
            key: KeyId::of(&name),
            name,
        }
    }
}

/// Where an expression's names get their values.
pub trait Lookup {
    fn value(&self, var: &Var) -> Option<f64>;
}

/// Any function of the name will do (tests, templates over a few values).
impl<F: Fn(&str) -> Option<f64>> Lookup for F {
    fn value(&self, var: &Var) -> Option<f64> {
        self(&var.name)
    }
}

/// Why an evaluation gave no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalError {
    /// A metric the condition needs is not in the export.
    Missing(String),
    /// A divisor was zero on this launch (the expression divided by is given).
    DivisionByZero(String),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Missing(name) => write!(f, "metric `{name}` is not in the export"),
            EvalError::DivisionByZero(divisor) => write!(f, "`{divisor}` is zero on this launch"),
        }
    }
}

impl Expr {
    pub fn eval(&self, lookup: &dyn Lookup) -> Result<f64, EvalError> {
        Ok(match self {
            Expr::Num(n) => *n,
            Expr::Var(var) => lookup
                .value(var)
                .ok_or_else(|| EvalError::Missing(var.name.clone()))?,
            Expr::Neg(e) => -e.eval(lookup)?,
            Expr::Not(e) => truth(e.eval(lookup)? == 0.0),
            Expr::Bin(Op::And, a, b) => {
                if a.eval(lookup)? == 0.0 {
                    0.0
                } else {
                    truth(b.eval(lookup)? != 0.0)
                }
            }
            Expr::Bin(Op::Or, a, b) => {
                if a.eval(lookup)? != 0.0 {
                    1.0
                } else {
                    truth(b.eval(lookup)? != 0.0)
                }
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (a.eval(lookup)?, b.eval(lookup)?);
                match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                    // A zero denominator means "nothing to measure": no judgement, and
                    // an error of its own rather than a missing metric.
                    Op::Div if y == 0.0 => return Err(EvalError::DivisionByZero(b.to_string())),
                    Op::Div => x / y,
                    Op::Lt => truth(x < y),
                    Op::Le => truth(x <= y),
                    Op::Gt => truth(x > y),
                    Op::Ge => truth(x >= y),
                    Op::Eq => truth((x - y).abs() < 1e-9),
                    Op::Ne => truth((x - y).abs() >= 1e-9),
                    Op::And | Op::Or => unreachable!("handled above"),
                }
            }
            // Presence, not value: the one call that reads an absent metric without error.
            Expr::Call(Func::Has, args) => {
                truth(matches!(&args[0], Expr::Var(var) if lookup.value(var).is_some()))
            }
            Expr::Call(func, args) => {
                let vals = args
                    .iter()
                    .map(|a| a.eval(lookup))
                    .collect::<Result<Vec<_>, _>>()?;
                match func {
                    Func::Min => vals.into_iter().fold(f64::INFINITY, f64::min),
                    Func::Max => vals.into_iter().fold(f64::NEG_INFINITY, f64::max),
                    Func::Abs => vals[0].abs(),
                    Func::Ceil => vals[0].ceil(),
                    Func::Floor => vals[0].floor(),
                    Func::Has => unreachable!("has() is evaluated without its argument's value"),
                }
            }
        })
    }

    /// Every name the expression reads.
    pub fn variables(&self, out: &mut Vec<String>) {
        match self {
            Expr::Num(_) => {}
            Expr::Var(v) => {
                if !out.contains(&v.name) {
                    out.push(v.name.clone());
                }
            }
            Expr::Neg(e) | Expr::Not(e) => e.variables(out),
            Expr::Bin(_, a, b) => {
                a.variables(out);
                b.variables(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.variables(out)),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(n) => write!(f, "{n}"),
            Expr::Var(v) => write!(f, "{}", v.name),
            Expr::Neg(e) => write!(f, "-{e}"),
            Expr::Not(e) => write!(f, "!{e}"),
            Expr::Bin(op, a, b) => {
                let s = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    Op::Mul => "*",
                    Op::Div => "/",
                    Op::Lt => "<",
                    Op::Le => "<=",
                    Op::Gt => ">",
                    Op::Ge => ">=",
                    Op::Eq => "==",
                    Op::Ne => "!=",
                    Op::And => "&&",
                    Op::Or => "||",
                };
                write!(f, "({a} {s} {b})")
            }
            Expr::Call(func, args) => {
                let name = format!("{func:?}").to_lowercase();
                let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                write!(f, "{name}({})", args.join(", "))
            }
        }
    }
}

fn truth(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Sym(&'static str),
}

fn tokenize(src: &str) -> Result<Vec<Tok>, String> {
    let mut toks = Vec::new();
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == '_')
            {
                i += 1;
            }
            let text: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            toks.push(Tok::Num(
                text.parse().map_err(|_| format!("bad number `{text}`"))?,
            ));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            toks.push(Tok::Ident(chars[start..i].iter().collect()));
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            let sym = ["<=", ">=", "==", "!=", "&&", "||"]
                .into_iter()
                .find(|s| *s == two);
            if let Some(s) = sym {
                toks.push(Tok::Sym(s));
                i += 2;
                continue;
            }
            let one = ["+", "-", "*", "/", "<", ">", "!", "(", ")", ","]
                .into_iter()
                .find(|s| s.starts_with(c))
                .ok_or_else(|| format!("unexpected character `{c}`"))?;
            toks.push(Tok::Sym(one));
            i += 1;
        }
    }
    Ok(toks)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

/// Parses a condition; the error says what was expected where.
pub fn parse(src: &str) -> Result<Expr, String> {
    let mut p = Parser {
        toks: tokenize(src)?,
        pos: 0,
    };
    let e = p.binary(0)?;
    if p.pos != p.toks.len() {
        return Err(format!(
            "unexpected `{}` after a complete expression",
            p.describe()
        ));
    }
    Ok(e)
}

const LEVELS: &[&[(&str, Op)]] = &[
    &[("||", Op::Or)],
    &[("&&", Op::And)],
    &[
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("<", Op::Lt),
        (">", Op::Gt),
        ("==", Op::Eq),
        ("!=", Op::Ne),
    ],
    &[("+", Op::Add), ("-", Op::Sub)],
    &[("*", Op::Mul), ("/", Op::Div)],
];

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn describe(&self) -> String {
        match self.peek() {
            Some(Tok::Num(n)) => n.to_string(),
            Some(Tok::Ident(s)) => s.clone(),
            Some(Tok::Sym(s)) => s.to_string(),
            None => "end of expression".into(),
        }
    }

    fn eat(&mut self, sym: &str) -> bool {
        if self.peek()
            == Some(&Tok::Sym(match sym {
                "(" => "(",
                ")" => ")",
                "," => ",",
                _ => return false,
            }))
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn binary(&mut self, level: usize) -> Result<Expr, String> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        loop {
            let op = match self.peek() {
                Some(Tok::Sym(s)) => LEVELS[level]
                    .iter()
                    .find(|(t, _)| t == s)
                    .map(|(_, op)| *op),
                _ => None,
            };
            let Some(op) = op else { return Ok(lhs) };
            self.pos += 1;
            let rhs = self.binary(level + 1)?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        match self.peek() {
            Some(Tok::Sym("-")) => {
                self.pos += 1;
                Ok(Expr::Neg(Box::new(self.unary()?)))
            }
            Some(Tok::Sym("!")) => {
                self.pos += 1;
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<Expr, String> {
        match self.peek().cloned() {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Ok(Expr::Num(n))
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                if !self.eat("(") {
                    return match name.as_str() {
                        "true" => Ok(Expr::Num(1.0)),
                        "false" => Ok(Expr::Num(0.0)),
                        _ => Ok(Expr::Var(Var::new(name))),
                    };
                }
                let (func, arity) = match name.as_str() {
                    "min" => (Func::Min, None),
                    "max" => (Func::Max, None),
                    "abs" => (Func::Abs, Some(1)),
                    "ceil" => (Func::Ceil, Some(1)),
                    "floor" => (Func::Floor, Some(1)),
                    "has" => (Func::Has, Some(1)),
                    _ => {
                        return Err(format!(
                            "unknown function `{name}` (known: min, max, abs, ceil, floor, has)"
                        ));
                    }
                };
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.binary(0)?);
                        if self.eat(")") {
                            break;
                        }
                        if !self.eat(",") {
                            return Err(format!(
                                "expected `,` or `)` in call of `{name}`, found `{}`",
                                self.describe()
                            ));
                        }
                    }
                }
                if arity.is_some_and(|a| a != args.len()) || args.is_empty() {
                    return Err(format!(
                        "`{name}` takes {} argument(s), got {}",
                        arity.unwrap_or(2),
                        args.len()
                    ));
                }
                if func == Func::Has && !matches!(args[0], Expr::Var(_)) {
                    return Err(format!("`has` takes a metric key, got `{}`", args[0]));
                }
                Ok(Expr::Call(func, args))
            }
            Some(Tok::Sym("(")) => {
                self.pos += 1;
                let e = self.binary(0)?;
                if !self.eat(")") {
                    return Err(format!("expected `)`, found `{}`", self.describe()));
                }
                Ok(e)
            }
            _ => Err(format!(
                "expected a number, name or `(`, found `{}`",
                self.describe()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(src: &str, vars: &[(&str, f64)]) -> Result<f64, EvalError> {
        let e = parse(src).unwrap();
        let lookup = |n: &str| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        e.eval(&lookup)
    }

    #[test]
    fn precedence_and_logic() {
        assert_eq!(eval("1 + 2 * 3", &[]), Ok(7.0));
        assert_eq!(eval("(1 + 2) * 3", &[]), Ok(9.0));
        assert_eq!(
            eval(
                "a < 3 && b >= 2 || !c",
                &[("a", 1.0), ("b", 2.0), ("c", 1.0)]
            ),
            Ok(1.0)
        );
        assert_eq!(eval("max(a, 4, 2) - min(1, a)", &[("a", 3.0)]), Ok(3.0));
        assert_eq!(eval("-a + abs(-2)", &[("a", 3.0)]), Ok(-1.0));
    }

    #[test]
    fn missing_names_are_reported_not_zero() {
        assert_eq!(eval("a > 0", &[]), Err(EvalError::Missing("a".into())));
        // Short-circuit: the right side is not needed.
        assert_eq!(eval("a > 5 && b > 0", &[("a", 1.0)]), Ok(0.0));
        assert_eq!(
            eval("a / b", &[("a", 1.0), ("b", 0.0)]),
            Err(EvalError::DivisionByZero("b".into()))
        );
        assert_eq!(
            EvalError::DivisionByZero("b".into()).to_string(),
            "`b` is zero on this launch"
        );
    }

    #[test]
    fn has_tells_an_absent_metric_from_a_zero() {
        assert_eq!(eval("has(a)", &[("a", 0.0)]), Ok(1.0));
        assert_eq!(eval("has(a)", &[]), Ok(0.0));
        assert_eq!(eval("!has(a) && b > 1", &[("b", 2.0)]), Ok(1.0));
        assert!(parse("has(a + 1)").unwrap_err().contains("metric key"));
        assert!(parse("has(a, b)").unwrap_err().contains("takes 1"));
    }

    #[test]
    fn parse_errors_say_what_was_expected() {
        assert!(parse("a <").unwrap_err().contains("expected"));
        assert!(parse("foo(1)").unwrap_err().contains("unknown function"));
        assert!(parse("a b").unwrap_err().contains("unexpected"));
        assert!(parse("a $ b").unwrap_err().contains("unexpected character"));
    }
}
