//! LSL expressions: the syntax tree and a precedence-climbing parser.
//!
//! Operator precedence follows the LSL grammar (C-like; `lsl-definitions` and the wiki's
//! "Operators" page), lowest first: `|| &&`, `|`, `^`, `&`, `== !=`, `< <= > >=`, `<< >>`, `+ -`,
//! `* / %`, then the unary operators (`-`, `!`, `~`, casts such as `(float)`), then postfix member
//! access (`v.x`). Vector and rotation literals `<x, y, z>` / `<x, y, z, s>` are read with `>` disabled
//! as a comparison at their top level, which is how LSL itself resolves the ambiguity.

use super::lexer::{Tok, Token};
use super::LslError;

/// The type keywords of LSL (`quaternion` is the old spelling of `rotation`).
pub const TYPE_NAMES: [&str; 8] =
    ["integer", "float", "string", "key", "vector", "rotation", "quaternion", "list"];

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Integer literal.
    Int(i32),
    /// Float literal.
    Float(f64),
    /// String literal.
    Str(String),
    /// Name of a constant or variable.
    Ident(String),
    /// `<x,y,z>` (3 items) or `<x,y,z,s>` (4 items).
    Vector(Vec<Expr>),
    /// `[a, b, ...]`.
    List(Vec<Expr>),
    /// Function call: the name and the token index of the name (where the walker records the
    /// value a user function returned there, when it followed the call).
    Call(String, usize),
    /// `(type) expr`.
    Cast(String, Box<Expr>),
    /// Prefix operator: `-`, `!`, `~`, `++`, `--`.
    Unary(&'static str, Box<Expr>),
    /// Infix operator.
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// Member access `expr.x` (x, y, z or s).
    Member(Box<Expr>, String),
}

/// Binding power of an infix operator, or `None` for tokens that end an expression.
fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "||" | "&&" => 1,
        "|" => 2,
        "^" => 3,
        "&" => 4,
        "==" | "!=" => 5,
        "<" | "<=" | ">" | ">=" => 6,
        "<<" | ">>" => 7,
        "+" | "-" => 8,
        "*" | "/" | "%" => 9,
        _ => return None,
    })
}

/// Deepest expression tree accepted (nesting plus operator-chain length). Bounds the recursion of
/// the parser and the evaluator so that a hostile script cannot overflow the stack.
const MAX_EXPR_DEPTH: usize = 200;

/// A cursor over a token slice that parses expressions.
pub struct Parser<'a> {
    toks: &'a [Token],
    /// Index of the next token.
    pub pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// Starts parsing at token `pos`.
    pub fn new(toks: &'a [Token], pos: usize) -> Self {
        Parser { toks, pos, depth: 0 }
    }

    /// The token at `pos + ahead`, if any.
    pub fn peek(&self, ahead: usize) -> Option<&'a Tok> {
        self.toks.get(self.pos + ahead).map(|t| &t.tok)
    }

    /// Line and column of the token at absolute index `i` (or of the last token).
    pub fn line_col(&self, i: usize) -> (u32, u32) {
        self.toks.get(i).or_else(|| self.toks.last()).map_or((1, 1), |t| (t.line, t.col))
    }

    /// True when the token `ahead` places on is the punctuation `p`.
    pub fn at_punct_at(&self, ahead: usize, p: &str) -> bool {
        matches!(self.peek(ahead), Some(Tok::Punct(q)) if *q == p)
    }

    /// True when the next token is the punctuation `p`.
    pub fn at_punct(&self, p: &str) -> bool {
        matches!(self.peek(0), Some(Tok::Punct(q)) if *q == p)
    }

    /// An error located at the next token (or the last one at end of input).
    pub fn error(&self, msg: impl Into<String>) -> LslError {
        let (line, col) = self.line_col(self.pos);
        let found = match self.peek(0) {
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Punct(p)) => format!("`{p}`"),
            Some(Tok::Int(i)) => format!("`{i}`"),
            Some(Tok::Float(f)) => format!("`{f}`"),
            Some(Tok::Str(s)) => format!("{s:?}"),
            None => "end of script".to_owned(),
        };
        LslError::new(line, col, format!("{}, found {found}", msg.into()))
    }

    /// Consumes the punctuation `p` or fails.
    pub fn expect(&mut self, p: &str) -> Result<(), LslError> {
        if self.at_punct(p) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(format!("expected `{p}`")))
        }
    }

    /// Parses one full expression.
    pub fn expr(&mut self) -> Result<Expr, LslError> {
        self.depth = 0;
        self.binary(1, false)
    }

    /// True when the next two tokens are `>` `>` with nothing between them.
    fn adjacent_gt(&self) -> bool {
        match (self.toks.get(self.pos), self.toks.get(self.pos + 1)) {
            (Some(a), Some(b)) => b.tok == Tok::Punct(">") && a.line == b.line && b.col == a.col + 1,
            _ => false,
        }
    }

    /// Counts one level of tree depth, failing past [`MAX_EXPR_DEPTH`].
    fn deeper(&mut self) -> Result<(), LslError> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(self.error("expression nested too deeply"));
        }
        Ok(())
    }

    fn binary(&mut self, min_prec: u8, no_gt: bool) -> Result<Expr, LslError> {
        let base = self.depth;
        let mut lhs = self.unary()?;
        while let Some(Tok::Punct(first)) = self.peek(0) {
            // `>>` is lexed as two `>` (so that vectors can close); adjacent ones shift right.
            let op: &'static str = if *first == ">" && self.adjacent_gt() { ">>" } else { first };
            let Some(prec) = precedence(op) else { break };
            if prec < min_prec || (no_gt && op.starts_with('>')) {
                break;
            }
            self.deeper()?;
            self.pos += if op == ">>" { 2 } else { 1 };
            let rhs = self.binary(prec + 1, no_gt)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        self.depth = base;
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, LslError> {
        self.deeper()?;
        let e = self.unary_inner();
        self.depth -= 1;
        e
    }

    fn unary_inner(&mut self) -> Result<Expr, LslError> {
        if let Some(Tok::Punct(op @ ("-" | "!" | "~" | "++" | "--"))) = self.peek(0) {
            self.pos += 1;
            return Ok(Expr::Unary(op, Box::new(self.unary()?)));
        }
        if self.at_punct("(") {
            if let (Some(Tok::Ident(ty)), Some(Tok::Punct(")"))) = (self.peek(1), self.peek(2)) {
                if TYPE_NAMES.contains(&ty.as_str()) {
                    self.pos += 3;
                    return Ok(Expr::Cast(ty.clone(), Box::new(self.unary()?)));
                }
            }
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Expr, LslError> {
        let base = self.depth;
        let mut e = self.primary()?;
        loop {
            if self.at_punct(".") || self.at_punct("++") || self.at_punct("--") {
                self.deeper()?;
            }
            if self.at_punct(".") {
                self.pos += 1;
                match self.peek(0) {
                    Some(Tok::Ident(f)) => {
                        self.pos += 1;
                        e = Expr::Member(Box::new(e), f.clone());
                    }
                    _ => return Err(self.error("expected a member name after `.`")),
                }
            } else if self.at_punct("++") || self.at_punct("--") {
                self.pos += 1;
                e = Expr::Unary("++", Box::new(e));
            } else {
                self.depth = base;
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, LslError> {
        let Some(tok) = self.peek(0) else {
            return Err(self.error("expected an expression"));
        };
        match tok {
            Tok::Int(i) => self.advance(Expr::Int(*i)),
            Tok::Float(f) => self.advance(Expr::Float(*f)),
            Tok::Str(s) => self.advance(Expr::Str(s.clone())),
            Tok::Ident(name) if self.peek(1) == Some(&Tok::Punct("(")) => {
                let at = self.pos;
                self.pos += 2;
                self.call_args()?;
                Ok(Expr::Call(name.clone(), at))
            }
            Tok::Ident(name) => self.advance(Expr::Ident(name.clone())),
            Tok::Punct("(") => {
                self.pos += 1;
                let e = self.binary(1, false)?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Punct("[") => {
                self.pos += 1;
                Ok(Expr::List(self.items("]", false)?))
            }
            Tok::Punct("<") => {
                self.pos += 1;
                let items = self.items(">", true)?;
                if items.len() == 3 || items.len() == 4 {
                    Ok(Expr::Vector(items))
                } else {
                    Err(self.error("a vector has 3 components and a rotation 4"))
                }
            }
            _ => Err(self.error("expected an expression")),
        }
    }

    fn advance(&mut self, e: Expr) -> Result<Expr, LslError> {
        self.pos += 1;
        Ok(e)
    }

    /// Comma-separated expressions up to and including `close`.
    fn items(&mut self, close: &str, no_gt: bool) -> Result<Vec<Expr>, LslError> {
        let mut items = Vec::new();
        if self.at_punct(close) {
            self.pos += 1;
            return Ok(items);
        }
        loop {
            items.push(self.binary(1, no_gt)?);
            if self.at_punct(close) {
                self.pos += 1;
                return Ok(items);
            }
            self.expect(",")?;
        }
    }

    /// Skips the arguments of a call whose `(` was consumed (they are never evaluated).
    fn call_args(&mut self) -> Result<(), LslError> {
        self.items(")", false).map(|_| ())
    }

    /// Parses `( a, b, ... )` after a function name and returns the arguments.
    pub fn arguments(&mut self) -> Result<Vec<Expr>, LslError> {
        self.depth = 0;
        self.expect("(")?;
        self.items(")", false)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn parse(src: &str) -> Expr {
        let toks = lex(src).expect("lexes");
        let mut p = Parser::new(&toks, 0);
        let e = p.expr().expect("parses");
        assert_eq!(p.pos, toks.len(), "whole input consumed");
        e
    }

    fn bin(op: &'static str, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    #[test]
    fn multiplication_binds_tighter_than_addition() {
        assert_eq!(parse("1 + 2 * 3"), bin("+", Expr::Int(1), bin("*", Expr::Int(2), Expr::Int(3))));
        assert_eq!(parse("(1 + 2) * 3"), bin("*", bin("+", Expr::Int(1), Expr::Int(2)), Expr::Int(3)));
    }

    #[test]
    fn vector_closes_at_greater_than_and_comparisons_work_in_parentheses() {
        let v = parse("<1, -2, (3 > 2)>");
        let Expr::Vector(items) = v else { panic!("not a vector") };
        assert_eq!(items[1], Expr::Unary("-", Box::new(Expr::Int(2))));
        assert_eq!(items[2], bin(">", Expr::Int(3), Expr::Int(2)));
        assert!(matches!(parse("<0,0,0,1>"), Expr::Vector(ref i) if i.len() == 4));
    }

    #[test]
    fn casts_calls_and_members() {
        assert_eq!(parse("(float)3"), Expr::Cast("float".into(), Box::new(Expr::Int(3))));
        assert_eq!(parse("llFrand(1.0 + x)"), Expr::Call("llFrand".into(), 0));
        assert_eq!(parse("v.z"), Expr::Member(Box::new(Expr::Ident("v".into())), "z".into()));
    }

    #[test]
    fn flag_or_is_left_associative() {
        assert_eq!(
            parse("A | B | C"),
            bin("|", bin("|", Expr::Ident("A".into()), Expr::Ident("B".into())), Expr::Ident("C".into()))
        );
    }

    #[test]
    fn hostile_nesting_is_an_error_not_a_stack_overflow() {
        for src in [
            "(".repeat(5000) + "1" + &")".repeat(5000),
            "1".to_owned() + &" + 1".repeat(5000),
            "-".repeat(5000) + "1",
            "v".to_owned() + &".x".repeat(5000),
        ] {
            let toks = lex(&src).expect("lexes");
            let e = Parser::new(&toks, 0).expr().expect_err("too deep");
            assert!(e.message.contains("too deeply"), "{e}");
        }
        let ok = "(".repeat(50) + "1" + &")".repeat(50);
        let toks = lex(&ok).expect("lexes");
        assert_eq!(Parser::new(&toks, 0).expr(), Ok(Expr::Int(1)));
    }

    #[test]
    fn malformed_expression_is_an_error_with_position() {
        let toks = lex("[1, 2,, 3]").expect("lexes");
        let e = Parser::new(&toks, 0).expr().expect_err("double comma");
        assert_eq!((e.line, e.column), (1, 7));
        let toks = lex("<1, 2>").expect("lexes");
        assert!(Parser::new(&toks, 0).expr().is_err());
    }
}
