//! Script structure: globals, functions, states and event handlers.
//!
//! The top level is read as LSL's grammar has it (global variables, user functions,
//! `default { ... }` and `state name { ... }` blocks of event handlers) and the global initialisers
//! are evaluated in order. The bodies are walked afterwards by `walk`, which finds the particle
//! calls; this module also holds the parsing of one particle call.

use std::collections::HashMap;

use super::constants::is_link_constant;
use super::eval::{store_as, Env, Eval, Value};
use super::expr::{Expr, Parser, TYPE_NAMES};
use super::lexer::{Tok, Token};
use super::LslError;

/// The particle functions this importer looks for.
pub const PARTICLE_FUNCTIONS: [&str; 2] = ["llParticleSystem", "llLinkParticleSystem"];

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
    /// 1-based column of the function name (with the line, names the call site).
    pub column: u32,
    /// Function name.
    pub function: &'static str,
    /// Link argument (`llLinkParticleSystem` only).
    pub link: Option<RawLink>,
    /// The rule list.
    pub rules: Eval,
    /// The handler (`default.state_entry`) and the user functions followed to reach the call,
    /// outermost first; a function walked on its own is named alone.
    pub via: Vec<String>,
}

/// A handler or function body: its name, parameter names and the token range inside its braces.
#[derive(Clone, Debug)]
pub struct Body {
    /// `state.event` for a handler, the function name for a user function.
    pub name: String,
    /// Parameters: (LSL type, name).
    pub params: Vec<(String, String)>,
    /// The declared type of the value a user function returns (`None`: handlers, and functions
    /// declared without one).
    pub returns: Option<String>,
    /// First token inside the braces.
    pub start: usize,
    /// Index of the closing brace.
    pub end: usize,
}

/// A parsed script: globals after their initialisers, user functions, event handlers.
#[derive(Debug, Default)]
pub struct Program {
    /// Globals as initialised (locals empty).
    pub env: Env,
    /// User functions by name.
    pub functions: HashMap<String, Body>,
    /// Event handlers in source order.
    pub handlers: Vec<Body>,
}

/// Reads the top level of `toks` (already bracket-checked).
pub fn parse(toks: &[Token]) -> Result<Program, LslError> {
    let mut prog = Program::default();
    let mut p = Parser::new(toks, 0);
    while p.peek(0).is_some() {
        top_level_item(&mut p, &mut prog)?;
    }
    Ok(prog)
}

/// The identifier `ahead` tokens on, if any.
pub fn ident(p: &Parser<'_>, ahead: usize) -> Option<String> {
    match p.peek(ahead) {
        Some(Tok::Ident(s)) => Some(s.clone()),
        _ => None,
    }
}

/// True when `name` is an LSL type keyword.
pub fn is_type(name: &Option<String>) -> bool {
    name.as_deref().is_some_and(|n| TYPE_NAMES.contains(&n))
}

fn top_level_item(p: &mut Parser<'_>, prog: &mut Program) -> Result<(), LslError> {
    let first = ident(p, 0);
    let second = ident(p, 1);
    match (first.as_deref(), second.clone()) {
        (Some("default"), _) => {
            p.pos += 1;
            return state_block(p, "default", &mut prog.handlers);
        }
        (Some("state"), Some(state)) => {
            p.pos += 2;
            return state_block(p, &state, &mut prog.handlers);
        }
        _ => {}
    }
    let env = &mut prog.env;
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
        let ty = first.unwrap_or_default();
        env.globals.insert(name.clone(), store_as(Some(&ty), value));
        env.global_types.insert(name, ty);
        return Ok(());
    }
    let skip = usize::from(is_type(&first));
    if let (Some(name), true) = (ident(p, skip), p.at_punct_at(skip + 1, "(")) {
        p.pos += skip + 1;
        let params = parameters(p)?;
        let mut body = braced_body(p, name.clone(), params)?;
        body.returns = first.filter(|_| skip == 1);
        prog.functions.insert(name, body);
        return Ok(());
    }
    Err(p.error("expected a global variable, a function or a state"))
}

/// The value of a declared but uninitialised variable of LSL type `ty`.
pub fn default_value(ty: &str) -> Value {
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

fn state_block(p: &mut Parser<'_>, state: &str, handlers: &mut Vec<Body>) -> Result<(), LslError> {
    p.expect("{")?;
    while !p.at_punct("}") {
        let (Some(event), true) = (ident(p, 0), p.at_punct_at(1, "(")) else {
            return Err(p.error("expected an event handler"));
        };
        p.pos += 1;
        let params = parameters(p)?;
        handlers.push(braced_body(p, format!("{state}.{event}"), params)?);
    }
    p.pos += 1;
    Ok(())
}

/// `( type name, ... )`, returning each parameter's (type, name).
fn parameters(p: &mut Parser<'_>) -> Result<Vec<(String, String)>, LslError> {
    p.expect("(")?;
    let mut params = Vec::new();
    while !p.at_punct(")") {
        if !params.is_empty() {
            p.expect(",")?;
        }
        let ty = ident(p, 0);
        match (is_type(&ty), ty, ident(p, 1)) {
            (true, Some(ty), Some(name)) => params.push((ty, name)),
            _ => return Err(p.error("expected a parameter (type and name)")),
        }
        p.pos += 2;
    }
    p.pos += 1;
    Ok(params)
}

/// `{ ... }`: records the range and moves past the matching `}`.
fn braced_body(p: &mut Parser<'_>, name: String, params: Vec<(String, String)>) -> Result<Body, LslError> {
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
    Ok(Body { name, params, returns: None, start, end: p.pos - 1 })
}

/// Turns a fatal evaluation error (a value too large for a script's memory, the work budget
/// spent) into an error located at token `at`.
pub fn fatal_check(p: &Parser<'_>, env: &Env, at: usize) -> Result<(), LslError> {
    match env.meter.fatal() {
        Some(message) => {
            let (line, col) = p.line_col(at);
            Err(LslError::new(line, col, message))
        }
        None => Ok(()),
    }
}

/// `llParticleSystem(rules)` / `llLinkParticleSystem(link, rules)` at the cursor.
pub fn particle_call(p: &mut Parser<'_>, env: &Env) -> Result<RawCall, LslError> {
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
    Ok(RawCall { line, column: col, function, link, rules: env.eval(rules), via: Vec::new() })
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
        super::super::walk::run(&lex(src).expect("lexes"))
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
