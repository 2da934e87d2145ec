//! `lsl`: import of `llParticleSystem` / `llLinkParticleSystem` calls from creator scripts.
//!
//! # Algorithm
//!
//! 1. `preprocess`: the Firestorm viewer's preprocessor lines (`#define`, `#undef`, `#ifdef`,
//!    `#ifndef`, `#if`, `#elif`, `#else`, `#endif`, `#include`) are applied line by line, keeping
//!    every line in place; object-like macros are expanded in the tokens. An `#include` cannot be
//!    read (the importer has the script's text only) and is listed in [`Import::notes`], like a
//!    function-like macro; the rest of the script is still imported.
//! 2. `lexer`: the script is tokenised (comments skipped, strings with escapes, every LSL number
//!    form) and its brackets checked; a failure is an [`LslError`] with line and column.
//! 3. `script`: the top level is parsed as LSL's grammar has it (globals, user functions,
//!    `default` / `state` blocks of event handlers); global initialisers are evaluated in order.
//! 4. `walk`: each handler is walked statement by statement, without running it: declarations and
//!    assignments are tracked in source order, a statement calling a user function walks that
//!    function there (so globals it assigns reach a later particle call), `if` on a constant takes
//!    one branch, and each branch of an `if` on a run-time value, like one pass of a loop's body,
//!    is walked as straight code (it runs as a whole or not at all), so a particle call inside it
//!    sees what it assigned; after it, a variable keeps a value only where every way on leaves it
//!    the same, and what a loop assigns is a run-time value. A user function's value is what its
//!    first `return` in straight code gives.
//!    `default`'s `state_entry` runs first; later handlers start from the globals it leaves, except
//!    those another handler changes. Every particle call's arguments are parsed (`expr`) and
//!    evaluated (`eval`). What cannot be known without running the script (function results such
//!    as `llFrand`/`llGetKey`, parameters, notecard data) is *unresolved*, with a reason; it never
//!    fails the import. Lists and strings larger than a script's 64 KiB memory stop the import with
//!    an error at their statement, as the simulator stops such a script (`memory`).
//! 5. `rules`: each evaluated rule list is applied pair by pair to `PartSysData::default()` (the
//!    defaults of LL's `LLPartSysData` constructor), later duplicates overwriting earlier ones, with
//!    the clamps below.
//!
//! # Clamps (Second Life behaviour; where SL and OpenSim differ, SL wins)
//!
//! Sources: the LL shared setters in `indra/llmessage/llpartdata.cpp` 154-198 and 399-419, the
//! ranges of LL's `lsl-definitions`, and OpenSim's `LSL_Api.cs` where the two grids differ.
//!
//! | Rule | Clamp | Why |
//! |---|---|---|
//! | START/END_COLOR, START/END_ALPHA, START/END_GLOW | each channel to [0, 1] | documented range, U8 on the wire |
//! | START/END_SCALE | x and y to [0, 4.0] m, z ignored | LL setter caps at `MAX_PART_SCALE` 4.0 (OpenSim's cap of 7.96 loses). No lower clamp to 0.03125: the setter has none, and values below 1/32 m quantise to 0 on the wire anyway |
//! | PART_MAX_AGE | [0, 30] s | LL setter and lsl-definitions (OpenSim has no clamp) |
//! | BURST_RADIUS | [0, 50] m | LL setter |
//! | BURST_SPEED_MIN/MAX | [-100, 100] m/s, then negatives to 0 | LL setter; the U 8.8 wire field clamps negatives to 0 |
//! | SRC_ACCEL | each axis [-100, 100] m/s^2 | LL shared code |
//! | BURST_PART_COUNT | [0, 255] | one byte on the wire; SL's handling is not public, OpenSim wraps mod 256 (300 -> 44), which no creator means, so we saturate |
//! | SRC_MAX_AGE, BURST_RATE | [0, 255.996] s | U 8.8 wire capacity (larger values would wrap); the viewer's 0.01 s rate floor is applied at decode, not here |
//! | INNER/OUTERANGLE, ANGLE_BEGIN/END | [0, 7.96875] rad | U 3.5 wire capacity |
//! | SRC_OMEGA | each axis [-256, 255.99] rad/s | S 8.7 wire capacity |
//! | BLEND_FUNC_SOURCE/DEST | must pass `blend::is_valid_for_scripts`, else default + warning | LL `validBlendFunc` |
//! | PATTERN | must fit a byte, else default + warning | U8 wire field; kept raw otherwise, with a warning naming what the viewer draws when it is not one of the five patterns (as `psys encode` warns) |
//!
//! INNER/OUTERANGLE clear `SysFlags::USE_NEW_ANGLE` and ANGLE_BEGIN/END set it (as
//! OpenSim's `SetParticleSystem` does).
//! Every clamp that changes a value adds a warning to the call.
//!
//! NaN and infinities (`(float)"nan"`, `(float)"inf"`) are carried the way the wire carries them,
//! so the descriptor is what a viewer receives and every later stage (JSON, `psys encode`,
//! classification, the GPU) sees finite numbers: an infinity clamps to its rule's range end like
//! any out-of-range value, and NaN becomes 0, which is what the codec writes for it in every
//! fixed-point, colour and glow field (`codec::fixed`). Each is a warning.
//!
//! # Reporting conventions
//!
//! - A rule whose value is a run-time value is listed in [`LslCall::unresolved`] by its constant name
//!   and keeps its default. A run-time rule code is listed as `(rule code)`; a run-time list joined in
//!   with `+` as `(list segment)` (the pairs after it are read assuming it has an even length, with a
//!   warning); a rule list that is itself a run-time value as `(rule list)`, and the call's system is
//!   all defaults.
//! - `llParticleSystem([])` gives a call with `empty = true` and a default `system` (switch off).
//! - A call reached several times (a function called from two handlers) is listed once per
//!   distinct result, with [`LslCall::via`] naming the handler and functions that reach it.
//! - A value stored in a variable takes the variable's declared type, as LSL converts it: an
//!   integer into a float (`float f = 1; f / 2` is 0.5), a string into a key and back. A user
//!   function gets its arguments' values (so converted), and a call's value is what the function
//!   returns for certain: `llParticleSystem(Smoke(2.0))` reads the list `Smoke` returns. Where the
//!   order of an expression's user calls could matter (two or more, one of them assigning a
//!   global: LSL evaluates operators right to left but lists and arguments left to right), they
//!   are followed as code that may run and their values are run-time values.
//! - Limitations: a global changed by one handler is a run-time value in every handler but
//!   `default`'s `state_entry`; `switch` (a Firestorm extension) takes every case as a possible
//!   branch. The object's and its owner's keys (`llGetKey()`, `llGetOwner()`) are run-time values
//!   known to be valid and never `NULL_KEY`, so comparing one with `""`, `NULL_KEY` or any text that
//!   is not a key gives a known result (the common `if (target != "")`).

mod constants;
mod eval;
mod expr;
mod lexer;
mod memory;
mod preprocess;
mod report;
mod rules;
mod script;
mod walk;

use serde::Serialize;

use crate::types::PartSysData;
use eval::Value;
use script::{RawCall, RawLink};

/// A script that does not tokenise or parse, located by 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct LslError {
    /// Line, 1-based.
    pub line: u32,
    /// Column in characters, 1-based.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

impl LslError {
    fn new(line: u32, column: u32, message: impl Into<String>) -> Self {
        LslError { line, column, message: message.into() }
    }
}

/// The link argument of `llLinkParticleSystem`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum LinkTarget {
    /// A link number (written as a number or a variable or expression holding one).
    Number(i32),
    /// A `LINK_*` constant, by name (`LINK_SET`, `LINK_THIS`, ...).
    Named(String),
}

/// A rule whose value is only known when the script runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unresolved {
    /// Rule constant name (`PSYS_SRC_BURST_RATE`), or `(rule list)`, `(rule code)`,
    /// `(list segment)` or `link`.
    pub rule: String,
    /// Why it is unresolved (`run-time value: llFrand(...)`).
    pub reason: String,
    /// 1-based line of the call.
    pub line: u32,
}

/// One particle call of a script, resolved as far as the script text allows.
#[derive(Clone, Debug, PartialEq)]
pub struct LslCall {
    /// 1-based line of the function name.
    pub line: u32,
    /// `llParticleSystem` or `llLinkParticleSystem`.
    pub function: String,
    /// Link target of `llLinkParticleSystem`; `None` for `llParticleSystem` or a run-time link.
    pub link: Option<LinkTarget>,
    /// The descriptor: defaults, then the rules in order, clamped.
    pub system: PartSysData,
    /// PSYS_SRC_TEXTURE as written (inventory name or UUID text); a UUID also sets
    /// `system.part_image_id`.
    pub texture: Option<String>,
    /// Rules only known at run time.
    pub unresolved: Vec<Unresolved>,
    /// Clamped values, type mismatches, invalid values, unknown rule codes.
    pub warnings: Vec<String>,
    /// `llParticleSystem([])`: the call switches the emitter off.
    pub empty: bool,
    /// The event handler (`default.state_entry`) and the user functions followed to reach the
    /// call, outermost first; a function no handler reaches is named alone.
    pub via: Vec<String>,
}

/// Something the Firestorm preprocessor lines of a script leave unresolved (an `#include`, a
/// function-like macro, an `#if` condition not understood); the rest is still imported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScriptNote {
    /// 1-based line of the directive.
    pub line: u32,
    /// What was left unresolved.
    pub message: String,
}

/// A whole script's import: its particle calls and the preprocessor's notes.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// Every particle call, in source order (see [`import`]).
    pub calls: Vec<LslCall>,
    /// Preprocessor directives left unresolved.
    pub notes: Vec<ScriptNote>,
}

/// Largest script accepted, bytes of source text: 1 MiB. A compiled script, code and data, fits in
/// 64 KiB, and the largest public creator scripts surveyed (with Firestorm `#include`s left
/// unexpanded) are under 41 KB; 1 MiB leaves room for expanded includes and comments while bounding
/// what a reader of standard input or a device file takes in.
pub const MAX_SCRIPT_BYTES: usize = 1 << 20;

/// Finds every `llParticleSystem` / `llLinkParticleSystem` call of `script`, in source order, and
/// resolves its rule list. A call reached with different values (a function called from two
/// handlers that set different globals) is listed once per distinct result. A script longer than
/// [`MAX_SCRIPT_BYTES`] is refused.
pub fn import(script: &str) -> Result<Vec<LslCall>, LslError> {
    Ok(import_script(script)?.calls)
}

/// [`import`], with the notes of the Firestorm preprocessor lines it could not resolve.
pub fn import_script(script: &str) -> Result<Import, LslError> {
    if script.len() > MAX_SCRIPT_BYTES {
        let message =
            format!("the script is {} bytes, more than the {MAX_SCRIPT_BYTES} accepted", script.len());
        return Err(LslError::new(1, 1, message));
    }
    // A byte-order mark, as Windows editors save one, is not part of the text.
    let script = script.strip_prefix('\u{feff}').unwrap_or(script);
    let pre = preprocess::preprocess(script)?;
    let tokens = pre.expand(lexer::tokens(&pre.text)?)?;
    lexer::check_brackets(&tokens)?;
    let mut calls: Vec<LslCall> = Vec::new();
    let mut sites: Vec<(u32, u32)> = Vec::new();
    for raw in walk::run(&tokens)? {
        let site = (raw.line, raw.column);
        let call = build_call(raw);
        let seen = sites.iter().zip(&calls).any(|(s, c)| *s == site && same_result(c, &call));
        if !seen {
            sites.push(site);
            calls.push(call);
        }
    }
    if pre.has_include {
        for u in calls.iter_mut().flat_map(|c| &mut c.unresolved) {
            if u.reason.starts_with("unknown identifier") {
                u.reason.push_str(" (an unresolved #include may define it)");
            }
        }
    }
    let notes = pre.notes.into_iter().map(|n| ScriptNote { line: n.line, message: n.message }).collect();
    Ok(Import { calls, notes })
}

/// [`import_script`] as the JSON report the CLI `particle-fog lsl <script.lsl>` prints:
/// `{"calls": [{"line", "function", "link", "texture", "descriptor", "hex", "unresolved",
/// "warnings", "empty", "via"}], "notes": [{"line", "message"}]}`, where `descriptor` is
/// [`crate::json::DescriptorJson`] and `hex` the encoded PSYS block (`null` and `""` for an empty
/// call).
pub fn import_report(script: &str) -> Result<serde_json::Value, LslError> {
    Ok(report::report(&import_script(script)?))
}

/// Two reports of one call site that a reader could not tell apart: same descriptor, link,
/// texture and unresolved rules (reasons may differ: "changed in a branch" or "by a handler").
fn same_result(a: &LslCall, b: &LslCall) -> bool {
    let rules = |c: &LslCall| c.unresolved.iter().map(|u| u.rule.clone()).collect::<Vec<_>>();
    a.system == b.system
        && a.link == b.link
        && a.texture == b.texture
        && a.empty == b.empty
        && a.warnings == b.warnings
        && rules(a) == rules(b)
}

fn build_call(raw: RawCall) -> LslCall {
    let mut call = LslCall {
        line: raw.line,
        function: raw.function.to_owned(),
        link: None,
        system: PartSysData::default(),
        texture: None,
        unresolved: Vec::new(),
        warnings: Vec::new(),
        empty: false,
        via: raw.via,
    };
    call.link = match raw.link {
        None => None,
        Some(RawLink::Named(name, _)) => Some(LinkTarget::Named(name)),
        Some(RawLink::Value(Ok(Value::Int(i)))) => Some(LinkTarget::Number(i)),
        Some(RawLink::Value(Ok(other))) => {
            call.warnings.push(format!("link is a {}, not an integer", other.type_name()));
            None
        }
        Some(RawLink::Value(Err(reason))) => {
            call.unresolved.push(Unresolved { rule: "link".to_owned(), reason, line: raw.line });
            None
        }
    };
    match raw.rules {
        Ok(Value::List(items)) => {
            call.empty = items.is_empty();
            let applied = rules::apply(&items, raw.line);
            call.system = applied.system;
            call.texture = applied.texture;
            call.unresolved.extend(applied.unresolved);
            call.warnings.extend(applied.warnings);
        }
        Ok(other) => call.warnings.push(format!("rule list is a {}, not a list", other.type_name())),
        Err(reason) => {
            call.unresolved.push(Unresolved { rule: "(rule list)".to_owned(), reason, line: raw.line });
        }
    }
    call
}
