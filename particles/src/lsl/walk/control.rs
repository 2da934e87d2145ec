//! Control flow of the walk: conditions, `if` (the branches of one on a run-time condition walked
//! whole), loops, `switch`, and the statements that leave a body.

use std::collections::HashSet;

use crate::lsl::eval::{Env, Eval, Value};
use crate::lsl::expr::Parser;
use crate::lsl::lexer::Tok;
use crate::lsl::memory::value_bytes;
use crate::lsl::script::ident;
use crate::lsl::LslError;

use super::{invalidate, Mode, Walker, MAX_NESTING};

impl Walker<'_> {
    /// Evaluates the parenthesised condition at the cursor (of an `if` or `switch`, evaluated
    /// once) and moves past it. A condition this importer cannot read is a run-time value.
    pub(super) fn condition(
        &mut self,
        p: &mut Parser<'_>,
        env: &mut Env,
        mode: Mode,
    ) -> Result<Eval, LslError> {
        if !p.at_punct("(") {
            return Err(p.error("expected `(`"));
        }
        let close = self.closing(p.pos);
        self.expression_calls(p.pos..close, env, mode)?;
        let mut inner = Parser::new(&self.toks[..close], p.pos + 1);
        let value = self.value_to(&mut inner, env, close);
        p.pos = close + 1;
        Ok(value)
    }

    pub(super) fn if_statement(
        &mut self,
        p: &mut Parser<'_>,
        env: &mut Env,
        mode: Mode,
    ) -> Result<(), LslError> {
        let start = p.pos;
        p.pos += 1;
        let known = truth(&self.condition(p, env, mode)?);
        if known.is_none() && mode == Mode::Straight {
            return self.branches(p, env, start);
        }
        let (then_mode, else_mode) = match known {
            Some(true) => (mode, Mode::Dead),
            Some(false) => (Mode::Dead, mode),
            None => (mode.max(Mode::Maybe), mode.max(Mode::Maybe)),
        };
        self.statement(p, env, then_mode)?;
        if ident(p, 0).as_deref() == Some("else") {
            p.pos += 1;
            self.statement(p, env, else_mode)?;
        }
        Ok(())
    }

    /// The two branches of an `if` (token `start`) on a run-time condition, reached in straight
    /// code, with the cursor on the first. Each runs as a whole or not at all, so each is walked
    /// as straight code (what it assigns is known to the statements after it inside, and a
    /// particle call there sees it). After the `if`, a variable the `if` may assign keeps a value
    /// only where every branch that can fall through leaves it the same (a branch that returns
    /// hands its globals on where the body ends, `BodyState::exits`). The branches are walked
    /// on `env` itself: only the variables the `if` may assign are saved and restored between
    /// them, and that copying is charged to the import's budget.
    fn branches(&mut self, p: &mut Parser<'_>, env: &mut Env, start: usize) -> Result<(), LslError> {
        let end = self.sub_statement_end(start);
        let names: Vec<String> = self
            .range_writes(start..end)
            .iter()
            .filter(|n| env.locals.contains_key(*n) || env.globals.contains_key(*n))
            .cloned()
            .collect();
        let before = saved(env, &names);
        self.body.branch_names.push(names.clone());
        let then_falls = self.branch(p, env)?;
        let after_then = saved(env, &names);
        restore(env, &names, before);
        let else_falls = if ident(p, 0).as_deref() == Some("else") {
            p.pos += 1;
            self.branch(p, env)?
        } else {
            true
        };
        self.body.branch_names.pop();
        for (name, then_value) in names.iter().zip(after_then) {
            let merged = match (then_falls, else_falls) {
                (false, true) => continue,
                (true, true) if then_value.is_ok() && variable(env, name) == Some(&then_value) => continue,
                (true, false) => then_value,
                _ => Err(format!("run-time value: `{name}` is assigned in a branch")),
            };
            set_variable(env, name, merged);
        }
        Ok(())
    }

    /// Walks the sub-statement at the cursor, which runs as a whole or not at all, as straight
    /// code on `env`; returns whether it can fall through (false when it always leaves the body
    /// with `return` or `state`). A return, jump or state change inside makes the rest of the
    /// enclosing body code that may run, and what the body returns a run-time value (a jump label
    /// inside invalidates what the rest of the body assigns, as anywhere: [`Walker::label`]).
    fn branch(&mut self, p: &mut Parser<'_>, env: &mut Env) -> Result<bool, LslError> {
        let outer: HashSet<String> = env.locals.keys().cloned().collect();
        let saved_exit = std::mem::replace(&mut self.body.exit, Mode::Straight);
        let saved_returned = self.body.returned.take();
        self.statement(p, env, Mode::Straight)?;
        let left = self.body.exit;
        self.body.exit = saved_exit.max(left.min(Mode::Maybe));
        self.body.returned = saved_returned;
        env.locals.retain(|name, _| outer.contains(name));
        Ok(left != Mode::Dead)
    }

    /// `while (c) s` and `for (a; b; c) s`: everything assigned in the header or the body is a
    /// run-time value before the loop runs (a later iteration sees it changed) and after it (it
    /// may run any number of times).
    pub(super) fn loop_statement(
        &mut self,
        p: &mut Parser<'_>,
        env: &mut Env,
        mode: Mode,
    ) -> Result<(), LslError> {
        p.pos += 1;
        let header = p.pos;
        let close = self.closing(header);
        p.pos = close + 1;
        let body_end = self.sub_statement_end(p.pos);
        let changed = self.range_writes(header..body_end);
        if mode != Mode::Dead {
            invalidate(env, &changed, "changed in a loop");
        }
        self.side_effects(header..close, env, mode.max(Mode::Maybe))?;
        self.loop_body(p, env, mode, &changed)
    }

    /// A loop's body at the cursor, given what the loop assigns (already run-time values): one
    /// pass of it runs as a whole, so in straight code it is walked as a [`Walker::branch`], and
    /// what it assigns is a run-time value again afterwards.
    fn loop_body(
        &mut self,
        p: &mut Parser<'_>,
        env: &mut Env,
        mode: Mode,
        changed: &HashSet<String>,
    ) -> Result<(), LslError> {
        if mode != Mode::Straight {
            return self.statement(p, env, mode.max(Mode::Maybe));
        }
        self.branch(p, env)?;
        invalidate(env, changed, "changed in a loop");
        Ok(())
    }

    /// Firestorm's `switch (x) { case 1: ... break; default: ... }`: which case runs is taken as
    /// unknown, so the whole body may run.
    pub(super) fn switch_statement(
        &mut self,
        p: &mut Parser<'_>,
        env: &mut Env,
        mode: Mode,
    ) -> Result<(), LslError> {
        p.pos += 1;
        let _case_value = self.condition(p, env, mode)?;
        self.statement(p, env, mode.max(Mode::Maybe))
    }

    /// `case expr:`, `default:` (inside a `switch`) or `break;`: skipped up to `end`.
    pub(super) fn skip_label(&mut self, p: &mut Parser<'_>, end: &str) {
        while p.peek(0).is_some_and(|t| *t != Tok::Punct(";") && *t != Tok::Punct("{")) {
            let done = p.at_punct(end);
            p.pos += 1;
            if done {
                return;
            }
        }
        if p.at_punct(";") {
            p.pos += 1;
        }
    }

    /// `do s while (c);`
    pub(super) fn do_statement(
        &mut self,
        p: &mut Parser<'_>,
        env: &mut Env,
        mode: Mode,
    ) -> Result<(), LslError> {
        p.pos += 1;
        let body_end = self.sub_statement_end(p.pos);
        let end = self.statement_end(body_end, self.toks.len());
        let changed = self.range_writes(p.pos..end);
        if mode != Mode::Dead {
            invalidate(env, &changed, "changed in a loop");
        }
        self.loop_body(p, env, mode, &changed)?;
        self.side_effects(p.pos..end, env, mode.max(Mode::Maybe))?;
        p.pos = end + 1;
        Ok(())
    }

    /// Token index just past the sub-statement starting at `start` (a block, or up to its `;`,
    /// through `if`/`else` and loop headers).
    pub(super) fn sub_statement_end(&self, start: usize) -> usize {
        self.sub_statement_end_at(start, 0)
    }

    fn sub_statement_end_at(&self, start: usize, depth: usize) -> usize {
        let len = self.toks.len();
        let keyword = match self.toks.get(start).map(|t| &t.tok) {
            None => return start,
            Some(Tok::Punct("{")) => return self.closing(start) + 1,
            Some(Tok::Ident(k)) if depth < MAX_NESTING => k.as_str(),
            Some(_) => return self.statement_end(start, len) + 1,
        };
        match keyword {
            "if" => {
                let after = self.sub_statement_end_at(self.closing(start + 1) + 1, depth + 1);
                match self.toks.get(after).map(|t| &t.tok) {
                    Some(Tok::Ident(e)) if e == "else" => self.sub_statement_end_at(after + 1, depth + 1),
                    _ => after,
                }
            }
            "while" | "for" => self.sub_statement_end_at(self.closing(start + 1) + 1, depth + 1),
            "do" => self.statement_end(self.sub_statement_end_at(start + 1, depth + 1), len) + 1,
            _ => self.statement_end(start, len) + 1,
        }
    }

    /// `return ...;` and `state s;` (`certain`: in straight code the rest of the body never runs)
    /// or `jump l;` (the rest may be skipped).
    pub(super) fn exit_statement(
        &mut self,
        p: &mut Parser<'_>,
        env: &mut Env,
        mode: Mode,
        certain: bool,
    ) -> Result<(), LslError> {
        let end = self.statement_end(p.pos, self.toks.len());
        // Effects of a returned expression (`return f();`) still happen.
        self.expression_calls(p.pos..end, env, mode)?;
        let is_return = ident(p, 0).as_deref() == Some("return");
        if is_return && mode == Mode::Straight && self.body.returned.is_none() {
            let mut q = Parser::new(self.toks, p.pos + 1);
            self.body.returned = Some(self.value_to(&mut q, env, end));
        }
        if mode == Mode::Straight && certain && !self.body.branch_names.is_empty() {
            self.body.exits.push(globals_at_exit(env, &self.body.branch_names));
        }
        if mode != Mode::Dead {
            let after = if mode == Mode::Straight && certain { Mode::Dead } else { Mode::Maybe };
            self.body.exit = self.body.exit.max(after);
        }
        p.pos = end + 1;
        Ok(())
    }
}

/// The value of the variable `name` (the local shadowing the global), if it exists.
fn variable<'e>(env: &'e Env, name: &str) -> Option<&'e Eval> {
    env.locals.get(name).or_else(|| env.globals.get(name))
}

/// Replaces the value of the existing variable `name` (the local shadowing the global).
fn set_variable(env: &mut Env, name: &str, value: Eval) {
    if let Some(slot) = env.locals.get_mut(name).or_else(|| env.globals.get_mut(name)) {
        *slot = value;
    }
}

/// Bytes charged to the import's budget for each variable saved around a branch, above its
/// value's own: the work of saving, restoring and comparing it, whatever its value (a run-time
/// value has no size of its own), so that many branches over many variables stay bounded.
const SAVED_VARIABLE_BYTES: usize = 16;

/// Copies of the values of the variables `names` (each existing), charged to the import's budget.
fn saved(env: &Env, names: &[String]) -> Vec<Eval> {
    let values: Vec<Eval> = names
        .iter()
        .map(|n| variable(env, n).cloned().unwrap_or_else(|| Err(format!("run-time value: `{n}`"))))
        .collect();
    charge_saved(env, values.iter());
    values
}

/// Charges copies of saved values to the import's budget (a spent budget is the meter's fatal
/// error, reported after the statement).
fn charge_saved<'v>(env: &Env, values: impl Iterator<Item = &'v Eval>) {
    let bytes = values.map(|v| SAVED_VARIABLE_BYTES + v.as_ref().map_or(0, value_bytes)).sum();
    let _ = env.meter.charge(bytes);
}

/// The values of the globals among `names` (not hidden by a local), where a branch leaves the body,
/// charged like [`saved`].
fn globals_at_exit(env: &Env, names: &[Vec<String>]) -> Vec<(String, Eval)> {
    let globals: HashSet<&String> = names
        .iter()
        .flatten()
        .filter(|n| !env.locals.contains_key(*n) && env.globals.contains_key(*n))
        .collect();
    let state: Vec<(String, Eval)> =
        globals.into_iter().filter_map(|n| Some((n.clone(), env.globals.get(n)?.clone()))).collect();
    charge_saved(env, state.iter().map(|(_, v)| v));
    state
}

/// Puts back the values [`saved`] copied.
fn restore(env: &mut Env, names: &[String], values: Vec<Eval>) {
    for (name, value) in names.iter().zip(values) {
        set_variable(env, name, value);
    }
}

/// LSL truth of a condition value (`if (x)`), when known.
fn truth(v: &Eval) -> Option<bool> {
    match v.as_ref().ok()? {
        Value::Int(i) => Some(*i != 0),
        Value::Float(f) => Some(*f != 0.0),
        Value::Str(s) => Some(!s.is_empty()),
        Value::Vector(c) => Some(c.iter().any(|x| *x != 0.0)),
        Value::Rot(c) => Some(*c != [0.0, 0.0, 0.0, 1.0]),
        Value::List(items) => Some(!items.is_empty()),
        Value::Key(k) if k.is_empty() => Some(false),
        Value::Key(_) => None,
        Value::RunTimeKey(_) => Some(true),
    }
}
