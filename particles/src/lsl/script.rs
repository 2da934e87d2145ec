//! Script structure: globals, functions, states and event handlers, and the particle calls in them.
//!
//! Pass 1 walks the top level (LSL grammar: global variables, user functions, `default { ... }` and
//! `state name { ... }` blocks of event handlers) and evaluates the global initialisers in order.
//! Pass 2 walks each handler or function body token by token. It does not execute the body: it
//! records local declarations and top-level assignments in source order (an assignment inside a
//! branch, a loop header or after `if (...)`/`else` makes the variable a run-time value, as do `++`,
//! `--` and compound assignments there), treats parameters as run-time values, and evaluates the
//! arguments of every `llParticleSystem` / `llLinkParticleSystem` call it meets.

use super::constants::is_link_constant;
use super::eval::{Env, Eval, Value};
use super::expr::{Expr, Parser, TYPE_NAMES};
use super::lexer::{Tok, Token};
use super::LslError;

/// The particle functions this importer looks for.
const PARTICLE_FUNCTIONS: [&str; 2] = ["llParticleSystem", "llLinkParticleSystem"];

/// The link argument of a call.
#[derive(Clone, Debug, PartialEq)]
pub enum RawLink {
    /// Written as a `LINK_*` constant.
    Named(String, i32),
    /// Any other expression, evaluated.
    Value(Eval),
}

/// One particle call, evaluated in its environment.
#[derive(Clone, Debug, PartialEq)]
pub struct RawCall {
    /// 1-based line of the function name.
    pub line: u32,
    /// Function name.
    pub function: &'static str,
    /// Link argument (`llLinkParticleSystem` only).
    pub link: Option<RawLink>,
    /// The rule list.
    pub rules: Eval,
}

/// A handler or function body: parameter names and the token range inside its braces.
struct Body {
    params: Vec<String>,
    start: usize,
    end: usize,
}

/// Finds and evaluates every particle call in `toks` (already bracket-checked).
pub fn scan(toks: &[Token]) -> Result<Vec<RawCall>, LslError> {
    let mut env = Env::default();
    let mut bodies = Vec::new();
    let mut p = Parser::new(toks, 0);
    while p.peek(0).is_some() {
        top_level_item(&mut p, &mut env, &mut bodies)?;
    }
    mark_changed_globals(toks, &bodies, &mut env);
    let mut calls = Vec::new();
    for body in &bodies {
        scan_body(toks, body, &env, &mut calls)?;
    }
    calls.sort_by_key(|c| c.line);
    Ok(calls)
}

/// A global assigned (or incremented) in any body is a run-time value everywhere: which handler runs
/// first is not known from the text. Within a body, a tracked assignment makes it known again.
fn mark_changed_globals(toks: &[Token], bodies: &[Body], env: &mut Env) {
    let tok = |i: Option<usize>| i.and_then(|i| toks.get(i)).map(|t| &t.tok);
    for body in bodies {
        for i in body.start..body.end {
            let Some(Tok::Ident(name)) = tok(Some(i)) else {
                continue;
            };
            if !env.globals.contains_key(name) {
                continue;
            }
            let next = tok(Some(i + 1));
            let prev = tok(i.checked_sub(1));
            let assigned =
                matches!(next, Some(Tok::Punct("=" | "+=" | "-=" | "*=" | "/=" | "%=" | "++" | "--")))
                    || matches!(prev, Some(Tok::Punct("++" | "--")));
            if assigned && !matches!(prev, Some(Tok::Punct("."))) {
                let reason = format!("run-time value: global `{name}` is changed by the script");
                env.globals.insert(name.clone(), Err(reason));
            }
        }
    }
}

fn ident(p: &Parser<'_>, ahead: usize) -> Option<String> {
    match p.peek(ahead) {
        Some(Tok::Ident(s)) => Some(s.clone()),
        _ => None,
    }
}

fn is_type(name: &Option<String>) -> bool {
    name.as_deref().is_some_and(|n| TYPE_NAMES.contains(&n))
}

fn top_level_item(p: &mut Parser<'_>, env: &mut Env, bodies: &mut Vec<Body>) -> Result<(), LslError> {
    let first = ident(p, 0);
    let second = ident(p, 1);
    match first.as_deref() {
        Some("default") => {
            p.pos += 1;
            return state_block(p, bodies);
        }
        Some("state") if second.is_some() => {
            p.pos += 2;
            return state_block(p, bodies);
        }
        _ => {}
    }
    if is_type(&first) && second.is_some() && !p.at_punct_at(2, "(") {
        p.pos += 2;
        let name = second.unwrap_or_default();
        let value = if p.at_punct("=") {
            p.pos += 1;
            let at = p.pos;
            let value = env.eval(&p.expr()?);
            fatal_check(p, env, at)?;
            value
        } else {
            Ok(default_value(first.as_deref().unwrap_or_default()))
        };
        p.expect(";")?;
        env.globals.insert(name, value);
        return Ok(());
    }
    let skip = usize::from(is_type(&first));
    if ident(p, skip).is_some() && p.at_punct_at(skip + 1, "(") {
        p.pos += skip + 1;
        let params = parameters(p)?;
        bodies.push(braced_body(p, params)?);
        return Ok(());
    }
    Err(p.error("expected a global variable, a function or a state"))
}

/// The value of a declared but uninitialised variable of LSL type `ty`.
fn default_value(ty: &str) -> Value {
    match ty {
        "integer" => Value::Int(0),
        "float" => Value::Float(0.0),
        "key" => Value::Key(String::new()),
        "vector" => Value::Vector([0.0; 3]),
        "rotation" | "quaternion" => Value::Rot([0.0, 0.0, 0.0, 1.0]),
        "list" => Value::List(Vec::new()),
        _ => Value::Str(String::new()),
    }
}

fn state_block(p: &mut Parser<'_>, bodies: &mut Vec<Body>) -> Result<(), LslError> {
    p.expect("{")?;
    while !p.at_punct("}") {
        if ident(p, 0).is_none() || !p.at_punct_at(1, "(") {
            return Err(p.error("expected an event handler"));
        }
        p.pos += 1;
        let params = parameters(p)?;
        bodies.push(braced_body(p, params)?);
    }
    p.pos += 1;
    Ok(())
}

/// `( type name, ... )`, returning the names.
fn parameters(p: &mut Parser<'_>) -> Result<Vec<String>, LslError> {
    p.expect("(")?;
    let mut names = Vec::new();
    while !p.at_punct(")") {
        if !names.is_empty() {
            p.expect(",")?;
        }
        match (is_type(&ident(p, 0)), ident(p, 1)) {
            (true, Some(name)) => names.push(name),
            _ => return Err(p.error("expected a parameter (type and name)")),
        }
        p.pos += 2;
    }
    p.pos += 1;
    Ok(names)
}

/// `{ ... }`: records the range and moves past the matching `}`.
fn braced_body(p: &mut Parser<'_>, params: Vec<String>) -> Result<Body, LslError> {
    p.expect("{")?;
    let start = p.pos;
    let mut depth = 1usize;
    while depth > 0 {
        match p.peek(0) {
            Some(Tok::Punct("{")) => depth += 1,
            Some(Tok::Punct("}")) => depth -= 1,
            None => return Err(p.error("expected `}`")),
            _ => {}
        }
        p.pos += 1;
    }
    Ok(Body { params, start, end: p.pos - 1 })
}

/// Walk state of one body.
struct Walk {
    env: Env,
    braces: usize,
    parens: usize,
}

fn scan_body(toks: &[Token], body: &Body, globals: &Env, calls: &mut Vec<RawCall>) -> Result<(), LslError> {
    let mut w = Walk { env: globals.clone(), braces: 0, parens: 0 };
    for name in &body.params {
        w.env.locals.insert(name.clone(), Err(format!("run-time value: parameter `{name}`")));
    }
    let slice = &toks[..body.end];
    let mut p = Parser::new(slice, body.start);
    while let Some(tok) = p.peek(0) {
        fatal_check(&p, &w.env, p.pos)?;
        let at_stmt_start = p.pos == body.start
            || matches!(slice.get(p.pos - 1).map(|t| &t.tok), Some(Tok::Punct(";" | "{" | "}")));
        match tok {
            Tok::Punct("{") => w.braces += 1,
            Tok::Punct("}") => w.braces = w.braces.saturating_sub(1),
            Tok::Punct("(") => w.parens += 1,
            Tok::Punct(")") => w.parens = w.parens.saturating_sub(1),
            Tok::Punct("++" | "--") => mark_increment(&mut w, &p),
            Tok::Ident(name) if PARTICLE_FUNCTIONS.contains(&name.as_str()) && p.at_punct_at(1, "(") => {
                calls.push(particle_call(&mut p, &w.env)?);
                continue;
            }
            Tok::Ident(_) if is_type(&ident(&p, 0)) && ident(&p, 1).is_some() => {
                declaration(&mut p, &mut w);
                continue;
            }
            Tok::Ident(name) if assignment_op(&p).is_some() => {
                let after_dot = p.pos >= 2 && p.token(p.pos - 1) == Some(&Tok::Punct("."));
                if let (true, Some(Tok::Ident(var))) =
                    (after_dot, p.pos.checked_sub(2).and_then(|i| p.token(i)))
                {
                    let reason = format!("run-time value: `{var}` has a member assigned");
                    w.env.locals.insert(var.clone(), Err(reason));
                } else {
                    let unconditional = at_stmt_start && w.braces == 0 && w.parens == 0;
                    assignment(&mut p, &mut w, name.clone(), unconditional);
                    continue;
                }
            }
            _ => {}
        }
        p.pos += 1;
    }
    fatal_check(&p, &w.env, body.end)
}

/// Turns a fatal evaluation error (a value too large for a script's memory, the work budget
/// spent) into an error located at token `at`.
fn fatal_check(p: &Parser<'_>, env: &Env, at: usize) -> Result<(), LslError> {
    match env.meter.fatal() {
        Some(message) => {
            let (line, col) = p.line_col(at);
            Err(LslError::new(line, col, message))
        }
        None => Ok(()),
    }
}

fn assignment_op(p: &Parser<'_>) -> Option<&'static str> {
    match p.peek(1) {
        Some(Tok::Punct(op @ ("=" | "+=" | "-=" | "*=" | "/=" | "%="))) => Some(op),
        _ => None,
    }
}

/// `++x` / `x++`: the variable becomes a run-time value.
fn mark_increment(w: &mut Walk, p: &Parser<'_>) {
    let around = [p.pos.checked_sub(1), Some(p.pos + 1)];
    for i in around.into_iter().flatten() {
        if let Some(Tok::Ident(n)) = p.token(i) {
            w.env.locals.insert(n.clone(), Err(format!("run-time value: `{n}` changed by ++/--")));
        }
    }
}

/// `type name [= expr];`
fn declaration(p: &mut Parser<'_>, w: &mut Walk) {
    let ty = ident(p, 0).unwrap_or_default();
    let name = ident(p, 1).unwrap_or_default();
    p.pos += 2;
    let value = if p.at_punct("=") {
        p.pos += 1;
        value_until_semicolon(p, &w.env)
    } else {
        Ok(default_value(&ty))
    };
    w.env.locals.insert(name, value);
}

/// `name op expr;`
fn assignment(p: &mut Parser<'_>, w: &mut Walk, name: String, unconditional: bool) {
    let op = assignment_op(p).unwrap_or("=");
    p.pos += 2;
    let rhs = value_until_semicolon(p, &w.env);
    let value = if !unconditional {
        Err(format!("run-time value: `{name}` is assigned in a branch or loop"))
    } else if op == "=" {
        rhs
    } else {
        w.env.combine(&op[..1], w.env.eval(&Expr::Ident(name.clone())), rhs)
    };
    w.env.locals.insert(name, value);
}

/// Evaluates the expression at the cursor up to its `;`. An expression this importer cannot parse
/// is skipped (up to the `;` or the end of the block) and becomes a run-time value.
fn value_until_semicolon(p: &mut Parser<'_>, env: &Env) -> Eval {
    let start = p.pos;
    if let Ok(e) = p.expr() {
        if p.at_punct(";") {
            return env.eval(&e);
        }
    }
    p.pos = start;
    let mut depth = 0usize;
    while let Some(tok) = p.peek(0) {
        match tok {
            Tok::Punct("(" | "[") => depth += 1,
            Tok::Punct(")" | "]") => depth = depth.saturating_sub(1),
            Tok::Punct(";" | "{" | "}") if depth == 0 => break,
            _ => {}
        }
        p.pos += 1;
    }
    Err("run-time value: expression not understood".to_owned())
}

/// `llParticleSystem(rules)` / `llLinkParticleSystem(link, rules)` at the cursor.
fn particle_call(p: &mut Parser<'_>, env: &Env) -> Result<RawCall, LslError> {
    let (line, col) = p.line_col(p.pos);
    let function = if ident(p, 0).as_deref() == Some(PARTICLE_FUNCTIONS[0]) {
        PARTICLE_FUNCTIONS[0]
    } else {
        PARTICLE_FUNCTIONS[1]
    };
    p.pos += 1;
    let args = p.arguments()?;
    let (link, rules) = match (function, args.as_slice()) {
        ("llParticleSystem", [rules]) => (None, rules),
        ("llLinkParticleSystem", [link, rules]) => (Some(link_arg(link, env)), rules),
        _ => {
            let want =
                if function == PARTICLE_FUNCTIONS[0] { "(list rules)" } else { "(integer link, list rules)" };
            let msg = format!("{function} takes {want}, given {} argument(s)", args.len());
            return Err(LslError::new(line, col, msg));
        }
    };
    Ok(RawCall { line, function, link, rules: env.eval(rules) })
}

fn link_arg(e: &Expr, env: &Env) -> RawLink {
    if let Expr::Ident(name) = e {
        if is_link_constant(name) {
            if let Ok(Value::Int(v)) = env.eval(e) {
                return RawLink::Named(name.clone(), v);
            }
        }
    }
    RawLink::Value(env.eval(e))
}

#[cfg(test)]
mod tests {
    use super::super::eval::Item;
    use super::super::lexer::lex;
    use super::*;

    fn calls(src: &str) -> Result<Vec<RawCall>, LslError> {
        scan(&lex(src).expect("lexes"))
    }

    /// The rule list of the only call, as known values (panics on anything else).
    fn only_rules(src: &str) -> Vec<Item> {
        let c = calls(src).expect("parses");
        assert_eq!(c.len(), 1);
        match &c[0].rules {
            Ok(Value::List(items)) => items.clone(),
            other => panic!("not a list: {other:?}"),
        }
    }

    fn handler(body: &str) -> String {
        format!("default {{ touch_start(integer n) {{ {body} }} }}")
    }

    #[test]
    fn top_level_assignment_is_tracked_branch_assignment_is_not() {
        let items = only_rules(&handler("float a = 1.0; a = 2.0; llParticleSystem([a]);"));
        assert_eq!(items, vec![Item::Known(Value::Float(2.0))]);
        let items = only_rules(&handler("float a = 1.0; if (n) a = 2.0; llParticleSystem([a]);"));
        assert!(matches!(&items[0], Item::Unknown(r) if r.contains("branch")));
        let items = only_rules(&handler("integer a = 1; a++; llParticleSystem([a]);"));
        assert!(matches!(&items[0], Item::Unknown(r) if r.contains("++")));
        let items = only_rules(&handler("vector v = <1,2,3>; v.x = 5; llParticleSystem([v]);"));
        assert!(matches!(&items[0], Item::Unknown(r) if r.contains("member")));
        let items = only_rules(&handler("integer a = 3; a *= 2; llParticleSystem([a, n]);"));
        assert_eq!(items[0], Item::Known(Value::Int(6)));
        assert!(matches!(&items[1], Item::Unknown(r) if r.contains("parameter `n`")));
    }

    #[test]
    fn globals_are_seen_by_functions_defined_before_them() {
        let src = "f() { llParticleSystem([G]); }\ninteger G = 4;\ndefault { state_entry() { f(); } }";
        assert_eq!(only_rules(src), vec![Item::Known(Value::Int(4))]);
    }

    #[test]
    fn structural_errors_are_located() {
        let e = calls("integer x = ;").expect_err("no initialiser");
        assert_eq!((e.line, e.column), (1, 13));
        let e = calls("default {\n  foo\n}").expect_err("not a handler");
        assert_eq!((e.line, e.column), (2, 3));
        let e = calls(&handler("llParticleSystem(1, 2);")).expect_err("arity");
        assert!(e.message.contains("takes (list rules), given 2"), "{e}");
        let e = calls(&handler("llLinkParticleSystem([]);")).expect_err("arity");
        assert!(e.message.contains("(integer link, list rules)"), "{e}");
        assert!(calls("state { }").is_err());
        assert!(calls("f(integer) { }").is_err());
    }
}
