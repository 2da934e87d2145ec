//! What parts of a script assign, read off its tokens without walking them: the names a token
//! range assigns directly, and the globals that the user functions it calls assign, themselves or
//! through their own calls.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::lsl::lexer::{Tok, Token};
use crate::lsl::script::Program;

/// Entries of the per-function write sets before they fall back to "every global any function
/// assigns" (sound, less precise; only a hostile call graph gets there), and names the memo of
/// ranges holds at most.
const MAX_WRITE_ENTRIES: usize = 4_000_000;

/// Names assigned, shared between the memo and its askers.
type Names = Rc<HashSet<String>>;

/// What the token ranges of one script assign.
pub(super) struct Writes {
    /// Globals each user function assigns, itself or through the functions it calls.
    functions: HashMap<String, HashSet<String>>,
    /// What each range asked of [`Writes::of_range`] assigns, by (start, end): a function's `if`
    /// is asked again every time the function is followed.
    memo: RefCell<HashMap<(usize, usize), Names>>,
    /// Names the memo holds.
    held: Cell<usize>,
}

impl Writes {
    /// The write sets of `prog`'s user functions.
    pub(super) fn new(toks: &[Token], prog: &Program) -> Writes {
        Writes { functions: function_writes(toks, prog), memo: RefCell::default(), held: Cell::new(0) }
    }

    /// Globals the user function `name` assigns (`None` when it is not one).
    pub(super) fn of_function(&self, name: &str) -> Option<&HashSet<String>> {
        self.functions.get(name)
    }

    /// Variables tokens `range` assign, with the globals of the user functions called there
    /// (remembered per range while the memo holds fewer than [`MAX_WRITE_ENTRIES`] names).
    pub(super) fn of_range(&self, toks: &[Token], prog: &Program, range: std::ops::Range<usize>) -> Names {
        let key = (range.start, range.end);
        if let Some(names) = self.memo.borrow().get(&key) {
            return Rc::clone(names);
        }
        let mut names = direct_writes(toks, range.clone());
        for (_, f) in user_calls(toks, prog, range) {
            names.extend(self.functions.get(&f).into_iter().flatten().cloned());
        }
        let names = Rc::new(names);
        let held = self.held.get() + names.len();
        if held <= MAX_WRITE_ENTRIES {
            self.held.set(held);
            self.memo.borrow_mut().insert(key, Rc::clone(&names));
        }
        names
    }
}

/// Names assigned (`=`, `op=`, `++`, `--`, member assignment) in tokens `range`.
pub(super) fn direct_writes(toks: &[Token], range: std::ops::Range<usize>) -> HashSet<String> {
    let tok = |i: usize| toks.get(i).map(|t| &t.tok);
    let assign = |t: Option<&Tok>| matches!(t, Some(Tok::Punct("=" | "+=" | "-=" | "*=" | "/=" | "%=")));
    let step = |t: Option<&Tok>| matches!(t, Some(Tok::Punct("++" | "--")));
    let mut out = HashSet::new();
    for i in range {
        let Some(Tok::Ident(name)) = tok(i) else { continue };
        let prev = i.checked_sub(1).and_then(tok);
        if matches!(prev, Some(Tok::Punct("."))) {
            continue;
        }
        let member = matches!(tok(i + 1), Some(Tok::Punct("."))) && matches!(tok(i + 2), Some(Tok::Ident(_)));
        let next = if member { tok(i + 3) } else { tok(i + 1) };
        if assign(next) || step(next) || step(prev) {
            out.insert(name.clone());
        }
    }
    out
}

/// User functions called in tokens `range`, with the index of each name.
pub(super) fn user_calls(
    toks: &[Token],
    prog: &Program,
    range: std::ops::Range<usize>,
) -> Vec<(usize, String)> {
    range
        .filter_map(|i| match (&toks.get(i)?.tok, &toks.get(i + 1)?.tok) {
            (Tok::Ident(n), Tok::Punct("(")) if prog.functions.contains_key(n) => Some((i, n.clone())),
            _ => None,
        })
        .collect()
}

/// Globals each function assigns, through its calls too (a fixed point over the call graph).
fn function_writes(toks: &[Token], prog: &Program) -> HashMap<String, HashSet<String>> {
    let globals = |set: HashSet<String>| -> HashSet<String> {
        set.into_iter().filter(|n| prog.env.globals.contains_key(n)).collect()
    };
    let mut writes: HashMap<String, HashSet<String>> = prog
        .functions
        .iter()
        .map(|(name, b)| (name.clone(), globals(direct_writes(toks, b.start..b.end))))
        .collect();
    let callees: HashMap<&String, Vec<String>> = prog
        .functions
        .iter()
        .map(|(name, b)| (name, user_calls(toks, prog, b.start..b.end).into_iter().map(|c| c.1).collect()))
        .collect();
    let mut changed = true;
    let mut entries: usize = writes.values().map(HashSet::len).sum();
    while changed && entries <= MAX_WRITE_ENTRIES {
        changed = false;
        for (name, called) in &callees {
            let extra: HashSet<String> =
                called.iter().filter_map(|c| writes.get(c)).flatten().cloned().collect();
            let mine = writes.entry((*name).clone()).or_default();
            let before = mine.len();
            mine.extend(extra);
            entries += mine.len() - before;
            changed |= mine.len() != before;
        }
    }
    if entries > MAX_WRITE_ENTRIES {
        let every: HashSet<String> = writes.values().flatten().cloned().collect();
        writes.values_mut().for_each(|w| w.clone_from(&every));
    }
    writes
}
