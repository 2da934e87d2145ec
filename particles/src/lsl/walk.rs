//! Walking handler bodies statement by statement, following user functions in call order.
//!
//! Not an interpreter: a body is read once, in source order, with each statement in one of three
//! modes. *Straight* statements run for certain, in order: an assignment gives its variable the
//! value (globals included), and a statement that is a call of a user function, `f(...);`, walks
//! `f`'s body there and then, so that `SetParticles(); llParticleSystem(Particles);` sees what
//! `SetParticles` assigned. A branch of an `if` on a run-time value, and one pass of a loop's body,
//! runs as a whole or not at all, so in straight code it is walked as straight code of its own:
//! a particle call inside it sees what it assigned before. After the `if`, a variable keeps a
//! value only where every branch that goes on leaves it the same (a branch that always returns
//! does not go on); what a loop assigns anywhere in it is a run-time value before and after it.
//! *Maybe* statements may or may not run (anything after a `return`, `state` or `jump` that may
//! have been taken, a `switch` body, code reached from a *Maybe* call): a variable they assign
//! becomes a run-time value. *Dead* statements never run (the untaken branch of an `if` on a
//! constant): they are skipped.
//! A call passes the values of its arguments (converted to the parameters' types, as LSL passes
//! them), and what a function returns for certain (its first `return` in straight code) is the
//! value of the call: `llParticleSystem(Smoke(2.0))` reads the list `Smoke` builds. A user call
//! inside a larger expression is followed as straight code when the order of the expression's
//! calls cannot matter (it calls one user function, or none that assigns a global); otherwise,
//! and in loop headers, it is followed as *Maybe* and its value is a run-time value. The
//! parameters of event handlers are run-time values.
//!
//! Which handler runs first: `default`'s `state_entry` runs when the script starts, from the
//! initialised globals. Every other handler starts from the globals `state_entry` left, except that
//! a global any other handler (or a function it calls) assigns is a run-time value, since that
//! handler may have run before. A user function no live statement reaches is walked on its own,
//! with every global the script assigns anywhere a run-time value. A particle call reached several
//! times with the same values is reported once; with different values, once per distinct result.
//!
//! Each reach of a call is returned; `import` keeps one report per distinct result.
//!
//! Bounds: statements nest at most [`MAX_NESTING`] deep, calls are followed at most
//! [`MAX_CALL_DEPTH`] deep (recursion is never followed) and at most [`MAX_STEPS`] statements are
//! walked; past the last two a call's effects are taken as run-time values instead of followed.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::eval::{store_as, Env, Eval};
use super::expr::{Expr, Parser};
use super::lexer::{Tok, Token};
use super::script::{
    default_value, fatal_check, ident, is_type, particle_call, Body, Program, RawCall, PARTICLE_FUNCTIONS,
};
use super::LslError;

mod control;
mod writes;

use writes::{direct_writes, user_calls, Writes};

/// Deepest nesting of blocks and sub-statements accepted (real scripts stay under 30).
const MAX_NESTING: usize = 200;
/// Deepest chain of user calls followed.
const MAX_CALL_DEPTH: usize = 32;
/// Tokens of bodies walked in one import before calls stop being followed.
const MAX_STEPS: usize = 20_000_000;

/// How certainly a statement runs; ordered from most to least certain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    #[default]
    Straight,
    Maybe,
    Dead,
}

/// What the walk knows of the body (handler or function) being walked; each body starts afresh.
#[derive(Default)]
struct BodyState {
    /// Least certain return/state/jump/label met so far.
    exit: Mode,
    /// A jump label was met.
    label_seen: bool,
    /// What the body returns for certain: the value of its first `return` in straight code
    /// (`None` until then, and when a return may have been taken earlier).
    returned: Option<Eval>,
    /// What each `if` on a run-time condition being walked may assign, outermost first.
    branch_names: Vec<Vec<String>>,
    /// The values of those of them that are globals where a branch left the body for certain
    /// (`return`, `state`): the body hands them on as well as the values it ends with.
    exits: Vec<Vec<(String, Eval)>>,
}

struct Walker<'a> {
    toks: &'a [Token],
    prog: &'a Program,
    /// What token ranges and user functions assign.
    writes: Writes,
    /// The index of the bracket closing each opening bracket, by the opening one's index.
    closes: HashMap<usize, usize>,
    /// Calls found: token index, the call.
    calls: Vec<(usize, RawCall)>,
    /// Functions walked from some live statement.
    reached: HashSet<String>,
    /// Bodies being walked, outermost first.
    stack: Vec<String>,
    /// What the walk knows of the body being walked.
    body: BodyState,
    steps: usize,
    nesting: usize,
}

/// Parses `toks` (already bracket-checked) and returns every particle call, evaluated.
pub fn run(toks: &[Token]) -> Result<Vec<RawCall>, LslError> {
    let prog = super::script::parse(toks)?;
    let mut w = Walker {
        toks,
        prog: &prog,
        writes: Writes::new(toks, &prog),
        closes: bracket_pairs(toks),
        calls: Vec::new(),
        reached: HashSet::new(),
        stack: Vec::new(),
        body: BodyState::default(),
        steps: 0,
        nesting: 0,
    };
    let first = prog.handlers.iter().position(|h| h.name == "default.state_entry");
    let mut after_start = prog.env.clone();
    if let Some(k) = first {
        after_start = w.walk_body(&prog.handlers[k], prog.env.clone(), Mode::Straight, None)?.0;
    }
    let later: Vec<&Body> =
        prog.handlers.iter().enumerate().filter(|(k, _)| Some(*k) != first).map(|(_, h)| h).collect();
    let changed: HashSet<String> = later.iter().flat_map(|h| w.body_writes(h)).collect();
    invalidate(&mut after_start, &changed, "changed by an event handler");
    for h in later {
        w.walk_body(h, after_start.clone(), Mode::Straight, None)?;
    }
    w.walk_unreached()?;
    Ok(in_source_order(w.calls))
}

/// The calls in source order (a call site reached several times in walk order; the caller keeps
/// one per distinct result).
fn in_source_order(mut calls: Vec<(usize, RawCall)>) -> Vec<RawCall> {
    calls.sort_by_key(|(at, _)| *at);
    calls.into_iter().map(|(_, c)| c).collect()
}

/// The index of the bracket closing each opening bracket of `toks` (brackets already checked).
fn bracket_pairs(toks: &[Token]) -> HashMap<usize, usize> {
    let mut open = Vec::new();
    let mut pairs = HashMap::new();
    for (i, t) in toks.iter().enumerate() {
        match t.tok {
            Tok::Punct("(" | "[" | "{") => open.push(i),
            Tok::Punct(")" | "]" | "}") => {
                if let Some(o) = open.pop() {
                    pairs.insert(o, i);
                }
            }
            _ => {}
        }
    }
    pairs
}

/// Marks every variable in `names` that `env` holds as a run-time value.
fn invalidate(env: &mut Env, names: &HashSet<String>, why: &str) {
    for name in names {
        let reason = Err(format!("run-time value: `{name}` is {why}"));
        if env.locals.contains_key(name) {
            env.locals.insert(name.clone(), reason);
        } else if env.globals.contains_key(name) {
            env.globals.insert(name.clone(), reason);
        }
    }
}

impl Walker<'_> {
    /// Variables tokens `range` assign, with the globals of the user functions called there.
    fn range_writes(&self, range: std::ops::Range<usize>) -> Rc<HashSet<String>> {
        self.writes.of_range(self.toks, self.prog, range)
    }

    fn body_writes(&self, body: &Body) -> HashSet<String> {
        let names = self.range_writes(body.start..body.end);
        names.iter().filter(|n| self.prog.env.globals.contains_key(*n)).cloned().collect()
    }

    /// Walks one body from `env` (its locals replaced by the parameters, given `args` when the
    /// call's arguments were read); returns the final environment (locals dropped) and what the
    /// body returns for certain, and marks the body reached.
    fn walk_body(
        &mut self,
        body: &Body,
        mut env: Env,
        mode: Mode,
        args: Option<Vec<Eval>>,
    ) -> Result<(Env, Option<Eval>), LslError> {
        let args = args.filter(|a| a.len() == body.params.len());
        env.locals = match args {
            Some(args) => {
                body.params.iter().zip(args).map(|((ty, n), v)| (n.clone(), store_as(Some(ty), v))).collect()
            }
            None => body
                .params
                .iter()
                .map(|(_, n)| (n.clone(), Err(format!("run-time value: parameter `{n}`"))))
                .collect(),
        };
        env.local_types = body.params.iter().map(|(ty, n)| (n.clone(), ty.clone())).collect();
        let outer = std::mem::take(&mut self.body);
        self.steps += body.end - body.start;
        self.stack.push(body.name.clone());
        self.reached.insert(body.name.clone());
        let mut p = Parser::new(&self.toks[..body.end], body.start);
        while p.pos < body.end {
            self.statement(&mut p, &mut env, mode)?;
        }
        self.stack.pop();
        let state = std::mem::replace(&mut self.body, outer);
        for (name, value) in state.exits.into_iter().flatten() {
            if env.globals.get(&name) != Some(&value) {
                let reason = format!("run-time value: `{name}` differs where {} returns", body.name);
                env.globals.insert(name, Err(reason));
            }
        }
        let returned = state.returned;
        env.locals.clear();
        env.local_types.clear();
        Ok((env, returned))
    }

    /// Functions nothing live reached, each walked on its own.
    fn walk_unreached(&mut self) -> Result<(), LslError> {
        let mut env = self.prog.env.clone();
        let all: HashSet<String> = self
            .prog
            .handlers
            .iter()
            .chain(self.prog.functions.values())
            .flat_map(|b| self.body_writes(b))
            .collect();
        invalidate(&mut env, &all, "changed by the script");
        let mut names: Vec<&Body> = self.prog.functions.values().collect();
        names.sort_by_key(|b| b.start);
        for body in names {
            if !self.reached.contains(&body.name) {
                self.walk_body(body, env.clone(), Mode::Straight, None)?;
            }
        }
        Ok(())
    }

    /// One statement at the cursor, in `mode`; leaves the cursor after it.
    fn statement(&mut self, p: &mut Parser<'_>, env: &mut Env, mode: Mode) -> Result<(), LslError> {
        let mode = mode.max(self.body.exit);
        self.steps += 1;
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(p.error(format!("statements nested more than {MAX_NESTING} deep")));
        }
        let at = p.pos;
        let result = self.statement_inner(p, env, mode);
        self.nesting -= 1;
        env.returns.clear();
        result?;
        fatal_check(p, env, at)
    }

    fn statement_inner(&mut self, p: &mut Parser<'_>, env: &mut Env, mode: Mode) -> Result<(), LslError> {
        let keyword = ident(p, 0);
        match (p.peek(0), keyword.as_deref()) {
            (Some(Tok::Punct(";")), _) => p.pos += 1,
            (Some(Tok::Punct("{")), _) => self.block(p, env, mode)?,
            (Some(Tok::Punct("@")), _) => self.label(p, env, mode)?,
            (_, Some("if")) => self.if_statement(p, env, mode)?,
            (_, Some("while" | "for")) => self.loop_statement(p, env, mode)?,
            (_, Some("switch")) if p.at_punct_at(1, "(") => self.switch_statement(p, env, mode)?,
            (_, Some("case")) => self.skip_label(p, ":"),
            (_, Some("default" | "break")) => {
                self.skip_label(p, if keyword.as_deref() == Some("break") { ";" } else { ":" })
            }
            (_, Some("do")) => self.do_statement(p, env, mode)?,
            (_, Some("return")) => self.exit_statement(p, env, mode, true)?,
            (_, Some("jump")) => self.exit_statement(p, env, mode, false)?,
            (_, Some("state")) if p.at_punct_at(2, ";") => self.exit_statement(p, env, mode, true)?,
            (_, Some(name)) if PARTICLE_FUNCTIONS.contains(&name) && p.at_punct_at(1, "(") => {
                self.particle(p, env, mode)?
            }
            _ if is_type(&keyword) && ident(p, 1).is_some() => self.declaration(p, env, mode),
            _ => self.expression_statement(p, env, mode)?,
        }
        Ok(())
    }

    /// Index of the bracket closing the one at `open` (of the first bracket from `open` on).
    fn closing(&self, open: usize) -> usize {
        if let Some(&close) = self.closes.get(&open) {
            return close;
        }
        let mut depth = 0usize;
        for (i, t) in self.toks.iter().enumerate().skip(open) {
            match t.tok {
                Tok::Punct("(" | "[" | "{") => depth += 1,
                Tok::Punct(")" | "]" | "}") => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i;
                    }
                }
                _ => {}
            }
        }
        self.toks.len()
    }

    /// End of a simple statement: its `;` at bracket depth 0, or the `{`/`}` that cuts it short.
    fn statement_end(&self, start: usize, limit: usize) -> usize {
        let mut i = start;
        while i < limit {
            match self.toks[i].tok {
                Tok::Punct("(" | "[") => i = self.closing(i),
                Tok::Punct(";" | "{" | "}") => return i,
                _ => {}
            }
            i += 1;
        }
        limit
    }

    fn block(&mut self, p: &mut Parser<'_>, env: &mut Env, mode: Mode) -> Result<(), LslError> {
        let end = self.closing(p.pos);
        p.pos += 1;
        let outer: HashSet<String> = env.locals.keys().cloned().collect();
        while p.pos < end {
            self.statement(p, env, mode)?;
        }
        p.pos = end + 1;
        env.locals.retain(|name, _| outer.contains(name));
        Ok(())
    }

    /// `@label;`: code after a label can be reached again by a `jump`, so from the first label on,
    /// what the rest of the body assigns is a run-time value and the rest may not run.
    fn label(&mut self, p: &mut Parser<'_>, env: &mut Env, mode: Mode) -> Result<(), LslError> {
        let end = self.statement_end(p.pos, self.toks.len());
        if mode != Mode::Dead && !self.body.label_seen {
            self.body.label_seen = true;
            let body_end = self.stack_body_end().unwrap_or(end);
            invalidate(env, &self.range_writes(p.pos..body_end), "assigned after a jump label");
            self.body.exit = self.body.exit.max(Mode::Maybe);
        }
        p.pos = end + 1;
        Ok(())
    }

    fn stack_body_end(&self) -> Option<usize> {
        let name = self.stack.last()?;
        let body =
            self.prog.functions.get(name).or_else(|| self.prog.handlers.iter().find(|h| &h.name == name))?;
        Some(body.end)
    }

    fn particle(&mut self, p: &mut Parser<'_>, env: &mut Env, mode: Mode) -> Result<(), LslError> {
        let at = p.pos;
        let end = self.statement_end(at, self.toks.len());
        self.expression_calls(at + 1..end, env, mode)?;
        let mut call = particle_call(p, env)?;
        if mode != Mode::Dead {
            call.via = self.stack.clone();
            self.calls.push((at, call));
        }
        p.pos = end + 1;
        Ok(())
    }

    /// `type name [= expr];`
    fn declaration(&mut self, p: &mut Parser<'_>, env: &mut Env, mode: Mode) {
        let ty = ident(p, 0).unwrap_or_default();
        let name = ident(p, 1).unwrap_or_default();
        let end = self.statement_end(p.pos, self.toks.len());
        if mode == Mode::Dead {
            p.pos = end + 1;
            return;
        }
        let _ = self.expression_calls(p.pos + 2..end, env, mode);
        p.pos += 2;
        let value = if p.at_punct("=") {
            p.pos += 1;
            self.value_to(p, env, end)
        } else {
            Ok(default_value(&ty))
        };
        env.locals.insert(name.clone(), store_as(Some(&ty), value));
        env.local_types.insert(name, ty);
        p.pos = end + 1;
    }

    /// An assignment, a user call, or any other expression statement.
    fn expression_statement(
        &mut self,
        p: &mut Parser<'_>,
        env: &mut Env,
        mode: Mode,
    ) -> Result<(), LslError> {
        let start = p.pos;
        let end = self.statement_end(start, self.toks.len());
        p.pos = end + 1;
        if mode == Mode::Dead {
            return Ok(());
        }
        let whole_call = matches!(user_calls(self.toks, self.prog, start..start + 1).as_slice(), [_])
            && self.closing(start + 1) + 1 == end;
        if whole_call {
            let name = ident(&Parser::new(self.toks, start), 0).unwrap_or_default();
            // Calls among the arguments run first.
            self.expression_calls(start + 2..end, env, mode)?;
            let args = self.arguments(start + 1, env);
            return self.follow(&name, env, mode, args).map(drop);
        }
        let target = assignment_target(self.toks, start);
        self.expression_calls(start..end, env, mode)?;
        let mut nested = direct_writes(self.toks, start..end);
        if let Some((name, op, value_at)) = target {
            nested.remove(&name);
            let mut q = Parser::new(self.toks, value_at);
            let rhs = self.value_to(&mut q, env, end);
            let value = match (mode, op) {
                (Mode::Maybe, _) => Err(format!("run-time value: `{name}` is assigned in a branch or loop")),
                (_, Some(op)) => env.combine(&op[..1], env.eval(&Expr::Ident(name.clone())), rhs),
                (_, None) => rhs,
            };
            assign(env, &name, value);
        }
        invalidate(
            env,
            &nested,
            "changed by ++, --, a member assignment or an assignment inside an expression",
        );
        Ok(())
    }

    /// Follows the user calls in tokens `range` (in `mode`, normally Maybe), their results unread.
    fn side_effects(
        &mut self,
        range: std::ops::Range<usize>,
        env: &mut Env,
        mode: Mode,
    ) -> Result<(), LslError> {
        for (_, name) in user_calls(self.toks, self.prog, range) {
            self.follow(&name, env, mode, None)?;
        }
        Ok(())
    }

    /// Follows the user calls of an expression that a statement in `mode` evaluates once (tokens
    /// `range`), and records in `env.returns` what each returns for certain. They are followed
    /// as straight code, with their arguments, when their order cannot change what they see: the
    /// expression calls one user function, or none of those it calls assigns a global (LSL's
    /// order is mixed: operators right to left, list items and arguments left to right). They
    /// are followed last to first, so that a call's arguments are read after the calls inside
    /// them. Otherwise each is followed as code that may run, and its result is a run-time value.
    fn expression_calls(
        &mut self,
        range: std::ops::Range<usize>,
        env: &mut Env,
        mode: Mode,
    ) -> Result<(), LslError> {
        let calls = user_calls(self.toks, self.prog, range.clone());
        let independent = calls.len() == 1
            || calls.iter().all(|(_, f)| self.writes.of_function(f).is_none_or(HashSet::is_empty));
        if mode != Mode::Straight || !independent {
            return self.side_effects(range, env, mode.max(Mode::Maybe));
        }
        for (at, name) in calls.into_iter().rev() {
            let args = self.arguments(at + 1, env);
            if let Some(returned) = self.follow(&name, env, mode, args)? {
                env.returns.insert(at, returned);
            }
        }
        Ok(())
    }

    /// Walks user function `name` in `env`'s globals with `args` for its parameters (run-time
    /// values when `None`), or takes what it assigns as run-time values when it cannot be
    /// followed (recursion, depth, step budget). Returns what the function returns for certain,
    /// converted to its declared type.
    fn follow(
        &mut self,
        name: &str,
        env: &mut Env,
        mode: Mode,
        args: Option<Vec<Eval>>,
    ) -> Result<Option<Eval>, LslError> {
        if mode == Mode::Dead {
            return Ok(None);
        }
        let Some(body) = self.prog.functions.get(name) else { return Ok(None) };
        let blocked = self.stack.iter().any(|s| s == name)
            || self.stack.len() >= MAX_CALL_DEPTH
            || self.steps > MAX_STEPS;
        if blocked {
            let writes = self.writes.of_function(name).cloned().unwrap_or_default();
            invalidate(env, &writes, &format!("changed by {name}(), not followed"));
            return Ok(None);
        }
        let locals = std::mem::take(&mut env.locals);
        let local_types = std::mem::take(&mut env.local_types);
        let returns = std::mem::take(&mut env.returns);
        let caller = Env {
            globals: std::mem::take(&mut env.globals),
            locals: HashMap::new(),
            global_types: std::mem::take(&mut env.global_types),
            local_types: HashMap::new(),
            returns: HashMap::new(),
            meter: env.meter.clone(),
        };
        let (after, returned) = self.walk_body(body, caller, mode, args)?;
        env.globals = after.globals;
        env.global_types = after.global_types;
        env.locals = locals;
        env.local_types = local_types;
        env.returns = returns;
        Ok(returned.map(|v| store_as(body.returns.as_deref(), v)))
    }

    /// The values of the arguments of the call whose `(` is token `open`, in `env`; `None` when
    /// the list is not understood.
    fn arguments(&self, open: usize, env: &Env) -> Option<Vec<Eval>> {
        let close = self.closing(open);
        let mut p = Parser::new(&self.toks[..close], open + 1);
        let mut args = Vec::new();
        while p.pos < close {
            if !args.is_empty() {
                if !p.at_punct(",") {
                    return None;
                }
                p.pos += 1;
            }
            let e = p.expr().ok()?;
            args.push(env.eval(&e));
        }
        Some(args)
    }

    /// Evaluates the expression at the cursor, which must end at token `end`; anything else is a
    /// run-time value.
    fn value_to(&self, p: &mut Parser<'_>, env: &Env, end: usize) -> Eval {
        match p.expr() {
            Ok(e) if p.pos == end => env.eval(&e),
            _ => Err("run-time value: expression not understood".to_owned()),
        }
    }
}

/// Stores `value` in the local `name`, else the global, else a new local, converted to the
/// variable's declared type.
fn assign(env: &mut Env, name: &str, value: Eval) {
    let value = store_as(env.type_of(name), value);
    if !env.locals.contains_key(name) && env.globals.contains_key(name) {
        env.globals.insert(name.to_owned(), value);
    } else {
        env.locals.insert(name.to_owned(), value);
    }
}

/// `name = ...`, `name op= ...` at `start`: the name, the compound operator, and where the value
/// starts. A member assignment (`v.x = ...`), `++`/`--` and anything else are `None` (handled as
/// nested writes).
fn assignment_target(toks: &[Token], start: usize) -> Option<(String, Option<&'static str>, usize)> {
    let Tok::Ident(name) = &toks.get(start)?.tok else { return None };
    match toks.get(start + 1)?.tok {
        Tok::Punct("=") => Some((name.clone(), None, start + 2)),
        Tok::Punct(op @ ("+=" | "-=" | "*=" | "/=" | "%=")) => Some((name.clone(), Some(op), start + 2)),
        _ => None,
    }
}
