//! The Firestorm viewer's LSL preprocessor, as far as a script's text decides it.
//!
//! Firestorm (and viewers derived from it) runs scripts through a C preprocessor (boost::wave) when
//! "Enable LSL preprocessor" is on; many creators use it. Directives are lines whose first
//! non-blank character is `#` (a trailing `\` continues one onto the next line):
//!
//! | Directive | Here |
//! |---|---|
//! | `#define NAME body` | object-like macro: later uses of `NAME` are replaced by `body`'s tokens (recursively, never inside its own expansion, as in C) |
//! | `#define NAME(args) body` | function-like macro: not expanded; a note says so, and its uses read as run-time calls |
//! | `#undef NAME` | ends a macro |
//! | `#ifdef`, `#ifndef`, `#if`, `#elif`, `#else`, `#endif` | conditional lines; `#if` takes `defined NAME`, `defined(NAME)`, integers, macros and LSL's integer operators, other names are 0 (the C rule) |
//! | `#include "file"` | not read (the importer has the script's text only): a note names it, and names it may define stay unknown |
//! | `#error` | the viewer refuses to compile: an error |
//! | `#warning`, `#pragma`, `#line`, a lone `#` | ignored |
//!
//! Directive lines and lines of inactive branches become blank lines, so the lexer's lines and
//! columns stay those of the script. Macros apply by line: from the line after their `#define` to
//! their `#undef`. Sources: Firestorm `fslslpreproc.cpp`; the C standard's rules for object-like
//! macros and `#if`.

use std::collections::{HashMap, HashSet};

use super::eval::{Env, Value};
use super::expr::Parser;
use super::lexer::{tokens, Tok, Token};
use super::LslError;

/// Most tokens a script may have after macro expansion (a hostile `#define` chain could otherwise
/// double the script at every level). Far above what a 1 MiB script holds.
const MAX_EXPANDED_TOKENS: usize = 2_000_000;

/// Something the preprocessor could not resolve; the rest of the script is still imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// 1-based line of the directive.
    pub line: u32,
    /// What was not resolved.
    pub message: String,
}

/// One `#define` of a name, live on lines `from_line..to_line` (exclusive ends).
#[derive(Clone, Debug)]
struct MacroSpan {
    from_line: u32,
    to_line: u32,
    /// Body tokens; `None` for a function-like macro or a body that is not LSL.
    body: Option<Vec<Token>>,
}

/// The script after the line pass: text to lex, macros by name, notes.
#[derive(Debug, Default)]
pub struct Preprocessed {
    /// The script with directive and inactive lines blanked.
    pub text: String,
    macros: HashMap<String, Vec<MacroSpan>>,
    /// Unresolved includes, unexpanded macros, conditions not understood.
    pub notes: Vec<Note>,
    /// True when an `#include` was met in an active region.
    pub has_include: bool,
}

/// One open `#if` group.
struct Group {
    /// The lines around the group are active.
    parent_active: bool,
    /// Some branch of the group was taken.
    taken: bool,
    /// The current branch is active.
    active: bool,
    line: u32,
    seen_else: bool,
}

/// Line-pass state.
struct Pass {
    out: Preprocessed,
    /// Macros defined now, with the index of their live span (`None`: no span, e.g. function-like).
    live: HashMap<String, Option<usize>>,
    groups: Vec<Group>,
}

/// Runs the line pass over `src`.
pub fn preprocess(src: &str) -> Result<Preprocessed, LslError> {
    let mut pass = Pass { out: Preprocessed::default(), live: HashMap::new(), groups: Vec::new() };
    let lines: Vec<&str> = src.split('\n').collect();
    let starts = code_line_starts(&lines);
    let mut i = 0;
    while i < lines.len() {
        let line_no = line_number(i);
        let trimmed = lines[i].trim_start();
        if !(starts[i] && trimmed.starts_with('#')) {
            if pass.active() {
                pass.out.text.push_str(lines[i]);
            }
            pass.out.text.push('\n');
            i += 1;
            continue;
        }
        let mut directive = trimmed[1..].to_owned();
        while directive.trim_end().ends_with('\\') && i + 1 < lines.len() {
            let cut = directive.trim_end().len() - 1;
            directive.truncate(cut);
            directive.push(' ');
            pass.out.text.push('\n');
            i += 1;
            directive.push_str(lines[i]);
        }
        pass.out.text.push('\n');
        pass.directive(directive.trim(), line_no)?;
        i += 1;
    }
    if let Some(g) = pass.groups.last() {
        return Err(LslError::new(g.line, 1, "#if, #ifdef or #ifndef without #endif"));
    }
    // The text has one '\n' per source line; drop the one after the last line.
    pass.out.text.pop();
    for (name, span) in pass.live.drain() {
        if let Some(k) = span {
            if let Some(s) = pass.out.macros.get_mut(&name).and_then(|v| v.get_mut(k)) {
                s.to_line = u32::MAX;
            }
        }
    }
    Ok(pass.out)
}

fn line_number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// For each line, whether it starts outside a block comment and a string literal (only such a
/// line can be a directive).
fn code_line_starts(lines: &[&str]) -> Vec<bool> {
    let (mut in_comment, mut in_string) = (false, false);
    let mut starts = Vec::with_capacity(lines.len());
    for line in lines {
        starts.push(!in_comment && !in_string);
        let b = line.as_bytes();
        let mut k = 0;
        while k < b.len() {
            match (in_comment, in_string, b[k], b.get(k + 1)) {
                (true, _, b'*', Some(b'/')) => (in_comment, k) = (false, k + 1),
                (false, true, b'\\', _) => k += 1,
                (false, true, b'"', _) => in_string = false,
                (false, false, b'"', _) => in_string = true,
                (false, false, b'/', Some(b'/')) => break,
                (false, false, b'/', Some(b'*')) => (in_comment, k) = (true, k + 1),
                _ => {}
            }
            k += 1;
        }
    }
    starts
}

impl Pass {
    fn active(&self) -> bool {
        self.groups.last().is_none_or(|g| g.active)
    }

    fn note(&mut self, line: u32, message: String) {
        self.out.notes.push(Note { line, message });
    }

    fn directive(&mut self, text: &str, line: u32) -> Result<(), LslError> {
        let name_len = text.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(text.len());
        let (name, rest) = text.split_at(name_len);
        let rest = rest.trim();
        match name {
            "if" | "ifdef" | "ifndef" => {
                let parent_active = self.active();
                let active = parent_active && self.condition(name, rest, line);
                self.groups.push(Group { parent_active, taken: active, active, line, seen_else: false });
                Ok(())
            }
            "elif" | "else" | "endif" => self.branch(name, rest, line),
            _ if !self.active() => Ok(()),
            "define" => self.define(rest, line),
            "undef" => {
                self.undefine(rest.split_whitespace().next().unwrap_or_default(), line);
                Ok(())
            }
            "include" => {
                self.out.has_include = true;
                self.note(line, format!("#include {rest} not read: names it defines are unknown"));
                Ok(())
            }
            "error" => Err(LslError::new(line, 1, format!("#error {rest}"))),
            "" | "warning" | "pragma" | "line" => Ok(()),
            other => Err(LslError::new(line, 1, format!("unknown preprocessor directive #{other}"))),
        }
    }

    fn branch(&mut self, name: &str, rest: &str, line: u32) -> Result<(), LslError> {
        let Some(top) = self.groups.last() else {
            return Err(LslError::new(line, 1, format!("#{name} without #if")));
        };
        if top.seen_else && name != "endif" {
            return Err(LslError::new(line, 1, format!("#{name} after #else")));
        }
        let (parent_active, taken) = (top.parent_active, top.taken);
        let active = match name {
            "endif" => {
                self.groups.pop();
                return Ok(());
            }
            "else" => parent_active && !taken,
            _ => parent_active && !taken && self.condition("if", rest, line),
        };
        if let Some(top) = self.groups.last_mut() {
            top.active = active;
            top.taken |= active;
            top.seen_else = name == "else";
        }
        Ok(())
    }

    /// The truth of `#ifdef rest`, `#ifndef rest` or `#if rest`.
    fn condition(&mut self, kind: &str, rest: &str, line: u32) -> bool {
        let first = rest.split_whitespace().next().unwrap_or_default();
        match kind {
            "ifdef" => self.live.contains_key(first),
            "ifndef" => !self.live.contains_key(first),
            _ => self.if_expression(rest, line).unwrap_or_else(|why| {
                self.note(line, format!("#if {rest}: {why}; taken as false"));
                false
            }),
        }
    }

    fn if_expression(&self, rest: &str, line: u32) -> Result<bool, String> {
        let toks = tokens(rest).map_err(|e| e.message)?;
        let mut resolved = Vec::new();
        let mut k = 0;
        while k < toks.len() {
            let t = &toks[k];
            if t.tok == Tok::Ident("defined".into()) {
                let (name, used) = match (toks.get(k + 1).map(|t| &t.tok), toks.get(k + 2).map(|t| &t.tok)) {
                    (Some(Tok::Punct("(")), Some(Tok::Ident(n))) => (n.clone(), 4),
                    (Some(Tok::Ident(n)), _) => (n.clone(), 2),
                    _ => return Err("`defined` without a name".to_owned()),
                };
                let value = i32::from(self.live.contains_key(&name));
                resolved.push(Token { tok: Tok::Int(value), ..t.clone() });
                k += used;
            } else {
                resolved.push(t.clone());
                k += 1;
            }
        }
        let mut expanded = expand_tokens(&resolved, &self.out.macros, line)?;
        for t in &mut expanded {
            if matches!(t.tok, Tok::Ident(_)) {
                t.tok = Tok::Int(0);
            }
        }
        let mut p = Parser::new(&expanded, 0);
        let e = p.expr().map_err(|e| e.message)?;
        if p.pos != expanded.len() {
            return Err("not an expression".to_owned());
        }
        match Env::default().eval(&e)? {
            Value::Int(i) => Ok(i != 0),
            Value::Float(f) => Ok(f != 0.0),
            other => Err(format!("a {} is not a condition", other.type_name())),
        }
    }

    fn define(&mut self, rest: &str, line: u32) -> Result<(), LslError> {
        let name_len = rest.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(rest.len());
        let (name, body) = rest.split_at(name_len);
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(LslError::new(line, 1, "#define without a macro name"));
        }
        self.undefine(name, line);
        let body = if body.starts_with('(') {
            let message = format!("function-like macro {name} is not expanded: its uses are run-time values");
            self.note(line, message);
            None
        } else {
            match tokens(body) {
                Ok(toks) => Some(toks),
                Err(e) => {
                    self.note(line, format!("macro {name} is not LSL ({}): not expanded", e.message));
                    None
                }
            }
        };
        let spans = self.out.macros.entry(name.to_owned()).or_default();
        spans.push(MacroSpan { from_line: line, to_line: u32::MAX, body });
        self.live.insert(name.to_owned(), Some(spans.len() - 1));
        Ok(())
    }

    fn undefine(&mut self, name: &str, line: u32) {
        if let Some(Some(k)) = self.live.remove(name) {
            if let Some(span) = self.out.macros.get_mut(name).and_then(|v| v.get_mut(k)) {
                span.to_line = line;
            }
        }
    }
}

impl Preprocessed {
    /// Replaces every use of a live object-like macro in `toks` by its body.
    pub fn expand(&self, toks: Vec<Token>) -> Result<Vec<Token>, LslError> {
        if self.macros.is_empty() {
            return Ok(toks);
        }
        let mut out = Vec::with_capacity(toks.len());
        for t in toks {
            let line = t.line;
            expand_one(t, &self.macros, line, &mut HashSet::new(), &mut out)
                .map_err(|m| LslError::new(line, 1, m))?;
        }
        Ok(out)
    }
}

/// Expands the macros in `toks` as they are defined on `line` (used for `#if` conditions).
fn expand_tokens(
    toks: &[Token],
    macros: &HashMap<String, Vec<MacroSpan>>,
    line: u32,
) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    for t in toks {
        expand_one(t.clone(), macros, line, &mut HashSet::new(), &mut out)?;
    }
    Ok(out)
}

/// Pushes `t`, or the expansion of the macro it names, positioned at `t`.
fn expand_one(
    t: Token,
    macros: &HashMap<String, Vec<MacroSpan>>,
    line: u32,
    open: &mut HashSet<String>,
    out: &mut Vec<Token>,
) -> Result<(), String> {
    if out.len() >= MAX_EXPANDED_TOKENS {
        return Err(format!("macros expand to more than {MAX_EXPANDED_TOKENS} tokens"));
    }
    let Tok::Ident(name) = &t.tok else {
        out.push(t);
        return Ok(());
    };
    let body = macros
        .get(name)
        .and_then(|spans| spans.iter().find(|s| s.from_line < line && line < s.to_line))
        .and_then(|s| s.body.as_ref());
    match body {
        Some(body) if !open.contains(name) => {
            open.insert(name.clone());
            for b in body {
                let placed = Token { tok: b.tok.clone(), line: t.line, col: t.col };
                expand_one(placed, macros, line, open, out)?;
            }
            open.remove(name);
            Ok(())
        }
        _ => {
            out.push(t);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> (Vec<Tok>, Vec<Note>) {
        let pre = preprocess(src).expect("preprocesses");
        assert_eq!(pre.text.split('\n').count(), src.split('\n').count(), "lines are kept");
        let toks = pre.expand(tokens(&pre.text).expect("lexes")).expect("expands");
        (toks.into_iter().map(|t| t.tok).collect(), pre.notes)
    }

    fn ints(toks: &[Tok]) -> Vec<i32> {
        toks.iter().filter_map(|t| if let Tok::Int(i) = t { Some(*i) } else { None }).collect()
    }

    #[test]
    fn object_like_macros_apply_from_their_line_to_their_undef() {
        let src = "A\n#define A 1\n#define B A + A\nB\n#undef A\nA B";
        let (toks, notes) = run(src);
        assert_eq!(ints(&toks), vec![1, 1], "B on line 4 only: after #undef A, B expands to `A + A`");
        assert_eq!(toks.first(), Some(&Tok::Ident("A".into())), "before its #define");
        assert_eq!(toks.len(), 1 + 3 + 1 + 3);
        assert!(notes.is_empty());
    }

    #[test]
    fn conditionals_nest_and_else_takes_the_untaken_branch() {
        let src = "#define X\n#ifdef X\n1\n#ifndef X\n2\n#else\n3\n#endif\n#else\n4\n#endif\n\
                   #if defined(Y) || 0\n5\n#elif !defined Y && UNKNOWN == 0 && 2 + 2 == 4\n6\n#else\n7\n#endif";
        assert_eq!(ints(&run(src).0), vec![1, 3, 6]);
    }

    #[test]
    fn a_macro_never_expands_inside_itself() {
        assert_eq!(run("#define A A + 1\nA").0.len(), 3);
        assert_eq!(
            run("#define A B\n#define B A\nA B").0,
            vec![Tok::Ident("A".into()), Tok::Ident("B".into())]
        );
    }

    #[test]
    fn includes_and_function_like_macros_are_notes() {
        let (toks, notes) = run("#include \"LIB\\lib.lsl\"\n#define F(x) x\nF(2)");
        assert_eq!(toks.len(), 4, "F(2) stays a call");
        assert_eq!(notes.len(), 2);
        assert!(notes[0].message.contains("lib.lsl") && notes[0].line == 1);
        assert!(notes[1].message.contains("function-like") && notes[1].line == 2);
    }

    #[test]
    fn continued_directive_and_hash_inside_comments_and_strings() {
        let src = "#define L [1, \\\n 2]\nL\n/*\n#define Z 9\n*/\n\"a\n#b\"";
        let (toks, _) = run(src);
        assert_eq!(ints(&toks), vec![1, 2]);
        assert_eq!(toks.last(), Some(&Tok::Str("a\n#b".into())));
    }

    #[test]
    fn structural_errors_name_the_line() {
        for (src, line) in
            [("\n#if 1\n", 2), ("#endif", 1), ("#else\n", 1), ("\n\n#error stop", 3), ("#bogus", 1)]
        {
            let e = preprocess(src).expect_err(src);
            assert_eq!(e.line, line, "{src:?}: {e}");
        }
        // Each level multiplies by ten: 2 * 10^7 tokens, past the cap.
        let mut src = "#define A A A\n".to_owned();
        for (name, inner) in
            ["B", "C", "D", "E", "F", "G", "H"].iter().zip(["A", "B", "C", "D", "E", "F", "G"])
        {
            src.push_str(&format!("#define {name}{}\n", format!(" {inner}").repeat(10)));
        }
        src.push('H');
        let e = preprocess(&src).and_then(|p| tokens(&p.text).and_then(|t| p.expand(t)));
        let e = e.expect_err("explodes");
        assert!(e.message.contains("more than"), "{e}");
    }
}
