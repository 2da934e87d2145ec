//! Tokeniser for LSL source text.
//!
//! Splits a whole script into identifiers, integer / float / string literals and punctuation, skipping
//! `//` and `/* */` comments, with the 1-based line and column of each token. Literal forms follow the
//! LSL grammar (`secondlife/lsl-definitions`, and the wiki's "Integer"/"Float"/"String" pages):
//! integers in decimal or `0x` hex (wrapping to 32 bits), floats as `1.`, `.5`, `1e3`, `1.5e-3`,
//! strings with the escapes `\n`, `\t` (four spaces, as LSL stores it), `\"` and `\\` (any other
//! escaped character stands for itself). After tokenising, brackets `()`, `[]` and `{}` are checked
//! for balance so that every later stage can rely on them. `>>` stays two `>` tokens (the expression
//! parser joins adjacent ones into a shift) so that a vector literal can close before a `>`.

use super::LslError;

/// Spaces LSL substitutes for a `\t` escape in a string literal.
const TAB_AS_SPACES: &str = "    ";

/// One lexical token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Identifier or keyword.
    Ident(String),
    /// Integer literal (already wrapped to 32 bits).
    Int(i32),
    /// Float literal.
    Float(f64),
    /// String literal with escapes resolved.
    Str(String),
    /// Punctuation or operator.
    Punct(&'static str),
}

/// A token with its source position (1-based).
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Line, 1-based.
    pub line: u32,
    /// Column in characters, 1-based.
    pub col: u32,
}

/// Operators of two characters, tried before single characters.
const PUNCT2: [&str; 14] =
    ["==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "<<"];
/// Single-character punctuation (`:` only appears in Firestorm's `switch` extension:
/// `case 1:`, `default:`).
const PUNCT1: [&str; 24] = [
    "+", "-", "*", "/", "%", "=", "!", "<", ">", "&", "|", "^", "~", "(", ")", "[", "]", "{", "}", ",", ";",
    ".", "@", ":",
];

struct Cursor {
    chars: Vec<char>,
    pos: usize,
    line: u32,
    col: u32,
}

impl Cursor {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }
}

/// Tokenises `src` and checks that brackets balance (the importer itself expands macros between
/// the two steps).
#[cfg(test)]
pub fn lex(src: &str) -> Result<Vec<Token>, LslError> {
    let out = tokens(src)?;
    check_brackets(&out)?;
    Ok(out)
}

/// Tokenises `src` without checking brackets (macro bodies, `#if` conditions).
pub fn tokens(src: &str) -> Result<Vec<Token>, LslError> {
    let mut cur = Cursor { chars: src.chars().collect(), pos: 0, line: 1, col: 1 };
    let mut out = Vec::new();
    while let Some(c) = cur.peek(0) {
        let (line, col) = (cur.line, cur.col);
        if c.is_whitespace() {
            cur.bump();
        } else if c == '/' && cur.peek(1) == Some('/') {
            while cur.peek(0).is_some_and(|c| c != '\n') {
                cur.bump();
            }
        } else if c == '/' && cur.peek(1) == Some('*') {
            skip_block_comment(&mut cur, line, col)?;
        } else {
            let tok = if c.is_ascii_alphabetic() || c == '_' {
                Tok::Ident(take_while(&mut cur, |c| c.is_ascii_alphanumeric() || c == '_'))
            } else if c.is_ascii_digit() || (c == '.' && cur.peek(1).is_some_and(|d| d.is_ascii_digit())) {
                lex_number(&mut cur, line, col)?
            } else if c == '"' {
                lex_string(&mut cur, line, col)?
            } else {
                lex_punct(&mut cur, line, col)?
            };
            out.push(Token { tok, line, col });
        }
    }
    Ok(out)
}

fn take_while(cur: &mut Cursor, f: impl Fn(char) -> bool) -> String {
    let mut s = String::new();
    while let Some(c) = cur.peek(0).filter(|&c| f(c)) {
        s.push(c);
        cur.bump();
    }
    s
}

fn skip_block_comment(cur: &mut Cursor, line: u32, col: u32) -> Result<(), LslError> {
    cur.bump();
    cur.bump();
    loop {
        match cur.bump() {
            None => return Err(LslError::new(line, col, "unterminated /* comment")),
            Some('*') if cur.peek(0) == Some('/') => {
                cur.bump();
                return Ok(());
            }
            Some(_) => {}
        }
    }
}

fn lex_number(cur: &mut Cursor, line: u32, col: u32) -> Result<Tok, LslError> {
    if cur.peek(0) == Some('0') && matches!(cur.peek(1), Some('x' | 'X')) {
        cur.bump();
        cur.bump();
        let digits = take_while(cur, |c| c.is_ascii_hexdigit());
        let v = u64::from_str_radix(&digits, 16)
            .map_err(|_| LslError::new(line, col, "malformed hexadecimal integer"))?;
        // LSL integers are 32-bit; wider hex literals keep their low 32 bits.
        return Ok(Tok::Int(v as u32 as i32));
    }
    let mut text = take_while(cur, |c| c.is_ascii_digit());
    let mut is_float = false;
    if cur.peek(0) == Some('.') {
        is_float = true;
        cur.bump();
        text.push('.');
        text.push_str(&take_while(cur, |c| c.is_ascii_digit()));
    }
    let exp_follows = matches!(cur.peek(0), Some('e' | 'E'))
        && (cur.peek(1).is_some_and(|c| c.is_ascii_digit())
            || (matches!(cur.peek(1), Some('+' | '-')) && cur.peek(2).is_some_and(|c| c.is_ascii_digit())));
    if exp_follows {
        is_float = true;
        text.push('e');
        cur.bump();
        if let Some(sign) = cur.peek(0).filter(|&c| c == '+' || c == '-') {
            text.push(sign);
            cur.bump();
        }
        text.push_str(&take_while(cur, |c| c.is_ascii_digit()));
    }
    if cur.peek(0).is_some_and(|c| c.is_ascii_alphabetic() || c == '_') {
        return Err(LslError::new(line, col, "malformed number"));
    }
    if is_float {
        let text = if text.starts_with('.') { format!("0{text}") } else { text };
        text.parse::<f64>().map(Tok::Float).map_err(|_| LslError::new(line, col, "malformed float"))
    } else {
        // A decimal literal too wide for 32 bits wraps like the hex form.
        let v: u64 = text.parse().unwrap_or(u64::MAX);
        Ok(Tok::Int(v as u32 as i32))
    }
}

fn lex_string(cur: &mut Cursor, line: u32, col: u32) -> Result<Tok, LslError> {
    cur.bump();
    let mut s = String::new();
    loop {
        match cur.bump() {
            None => return Err(LslError::new(line, col, "unterminated string literal")),
            Some('"') => return Ok(Tok::Str(s)),
            Some('\\') => match cur.bump() {
                None => return Err(LslError::new(line, col, "unterminated string literal")),
                Some('n') => s.push('\n'),
                Some('t') => s.push_str(TAB_AS_SPACES),
                Some(other) => s.push(other),
            },
            Some(c) => s.push(c),
        }
    }
}

fn lex_punct(cur: &mut Cursor, line: u32, col: u32) -> Result<Tok, LslError> {
    let two: String = [cur.peek(0), cur.peek(1)].iter().flatten().collect();
    if let Some(p) = PUNCT2.iter().find(|&&p| p == two) {
        cur.bump();
        cur.bump();
        return Ok(Tok::Punct(p));
    }
    let one = cur.peek(0).map(String::from).unwrap_or_default();
    if let Some(p) = PUNCT1.iter().find(|&&p| p == one) {
        cur.bump();
        return Ok(Tok::Punct(p));
    }
    Err(LslError::new(line, col, format!("unexpected character {one:?}")))
}

/// Checks that `()`, `[]` and `{}` nest properly.
pub fn check_brackets(tokens: &[Token]) -> Result<(), LslError> {
    let mut stack: Vec<(&str, &Token)> = Vec::new();
    for t in tokens {
        let Tok::Punct(p) = t.tok else { continue };
        match p {
            "(" => stack.push((")", t)),
            "[" => stack.push(("]", t)),
            "{" => stack.push(("}", t)),
            ")" | "]" | "}" => match stack.pop() {
                Some((want, _)) if want == p => {}
                Some((want, open)) => {
                    let msg = format!(
                        "unexpected `{p}`: expected `{want}` to close the bracket at line {} column {}",
                        open.line, open.col
                    );
                    return Err(LslError::new(t.line, t.col, msg));
                }
                None => return Err(LslError::new(t.line, t.col, format!("unmatched `{p}`"))),
            },
            _ => {}
        }
    }
    match stack.pop() {
        Some((want, open)) => {
            Err(LslError::new(open.line, open.col, format!("bracket never closed (expected `{want}`)")))
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        lex(src).expect("lexes").into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn numbers_in_every_written_form() {
        assert_eq!(
            toks("1. .5 1e3 2.5e-1 42 0x1F 0xFFFFFFFF"),
            vec![
                Tok::Float(1.0),
                Tok::Float(0.5),
                Tok::Float(1000.0),
                Tok::Float(0.25),
                Tok::Int(42),
                Tok::Int(31),
                Tok::Int(-1),
            ]
        );
    }

    #[test]
    fn comments_are_skipped_but_slashes_in_strings_are_kept() {
        let t = toks("a // line\n/* block\n */ \"http://x\" b");
        assert_eq!(t, vec![Tok::Ident("a".into()), Tok::Str("http://x".into()), Tok::Ident("b".into())]);
    }

    #[test]
    fn string_escapes() {
        assert_eq!(toks(r#""a\"b\\c\nd\te""#), vec![Tok::Str("a\"b\\c\nd    e".into())]);
    }

    #[test]
    fn positions_are_one_based_lines_and_columns() {
        let t = lex("x\n  y = 1;").expect("lexes");
        assert_eq!((t[1].line, t[1].col), (2, 3));
        assert_eq!((t[3].line, t[3].col), (2, 7));
    }

    #[test]
    fn two_character_operators_win() {
        assert_eq!(
            toks("a<=b==c||d<<e"),
            vec![
                Tok::Ident("a".into()),
                Tok::Punct("<="),
                Tok::Ident("b".into()),
                Tok::Punct("=="),
                Tok::Ident("c".into()),
                Tok::Punct("||"),
                Tok::Ident("d".into()),
                Tok::Punct("<<"),
                Tok::Ident("e".into()),
            ]
        );
    }

    #[test]
    fn errors_carry_line_and_column() {
        let e = lex("default {\n  state_entry() {\n  }\n").expect_err("unclosed brace");
        assert_eq!((e.line, e.column), (1, 9));
        let e = lex("f() { g(]; }").expect_err("mismatch");
        assert_eq!((e.line, e.column), (1, 9));
        let e = lex("x = \"abc").expect_err("string");
        assert_eq!((e.line, e.column), (1, 5));
        let e = lex("a\n /* never").expect_err("comment");
        assert_eq!((e.line, e.column), (2, 2));
        let e = lex("a # b").expect_err("bad char");
        assert_eq!((e.line, e.column), (1, 3));
        let e = lex("a $ b").expect_err("bad char");
        assert_eq!((e.line, e.column), (1, 3));
    }
}
