//! The memory a script has, and a bound on the work of evaluating one.
//!
//! A Second Life script runs in 64 KiB (Mono; 16 KiB under the old LSO engine), code and data
//! together (wiki "LSL Script Memory", "Stack-Heap Collision"). A list or string that would not fit
//! stops the script with a *Stack-Heap Collision* before any later line runs, so the importer treats
//! such a value as a fatal error of the script, located at the statement that builds it.
//!
//! Sizes here are lower bounds of what the simulator spends, so that no value a real script can hold
//! is refused: 4 bytes for an integer, a float or a list element only known at run time, 12 for a
//! vector, 16 for a rotation, 2 a character for strings and keys (Mono stores UTF-16); a list is the
//! sum of its elements, with no per-element overhead (Mono adds some).
//!
//! Separately, every value the evaluator builds or copies is charged to a budget of
//! [`EVAL_BUDGET_BYTES`] per import, so that a hostile script (say 10,000 statements each copying a
//! 60 KiB list) finishes in bounded time and memory; spending it is also a fatal error.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::eval::{Item, Value};

/// Memory of a Mono script, bytes: no list or string of a running script is larger.
pub const SCRIPT_MEMORY_BYTES: usize = 64 * 1024;
/// Bytes of values the evaluator may build or copy in one import: 1024 scripts' worth of memory,
/// far above what any real script needs (a few hundred KiB) and a few seconds of work at most.
pub const EVAL_BUDGET_BYTES: u64 = 1024 * SCRIPT_MEMORY_BYTES as u64;

/// Lower bound of the simulator memory `v` occupies, bytes (see the module docs).
pub fn value_bytes(v: &Value) -> usize {
    match v {
        Value::Int(_) | Value::Float(_) => 4,
        Value::Vector(_) => 12,
        Value::Rot(_) => 16,
        Value::Str(s) | Value::Key(s) => text_bytes(s),
        Value::RunTimeKey(_) => text_bytes(super::constants::NULL_KEY_TEXT),
        Value::List(items) => items.iter().map(item_bytes).sum(),
    }
}

/// Lower bound of the memory of one list element, bytes.
pub fn item_bytes(item: &Item) -> usize {
    match item {
        Item::Known(v) => value_bytes(v),
        Item::Unknown(_) | Item::Splice(_) => 4,
    }
}

/// Bytes of a string of `s`'s characters in UTF-16 (surrogate pairs count twice).
pub fn text_bytes(s: &str) -> usize {
    2 * s.encode_utf16().count()
}

#[derive(Debug, Default)]
struct MeterState {
    spent: Cell<u64>,
    fatal: RefCell<Option<String>>,
}

/// The budget and the first fatal error of one import, shared by every environment cloned from
/// the first (cloning a [`Meter`] shares it).
#[derive(Clone, Debug, Default)]
pub struct Meter(Rc<MeterState>);

impl Meter {
    /// The first fatal error met, if any: once set, evaluation stops producing values.
    pub fn fatal(&self) -> Option<String> {
        self.0.fatal.borrow().clone()
    }

    /// Records a fatal error (the first one wins) and returns it as an evaluation error.
    pub fn fail(&self, message: String) -> String {
        let mut slot = self.0.fatal.borrow_mut();
        slot.get_or_insert(message).clone()
    }

    /// Charges `bytes` of work; fails once the budget is spent.
    pub fn charge(&self, bytes: usize) -> Result<(), String> {
        let spent = self.0.spent.get().saturating_add(bytes as u64);
        self.0.spent.set(spent);
        if spent > EVAL_BUDGET_BYTES {
            return Err(self.fail(format!(
                "the script needs more than {EVAL_BUDGET_BYTES} bytes of evaluation: too large to import"
            )));
        }
        Ok(())
    }

    /// Checks that a list or string of `bytes` fits in a script's memory.
    pub fn fits(&self, what: &str, bytes: usize) -> Result<(), String> {
        if bytes > SCRIPT_MEMORY_BYTES {
            return Err(self.fail(format!(
                "a {what} of at least {bytes} bytes does not fit in the {SCRIPT_MEMORY_BYTES} bytes a \
                 script has (the simulator stops the script with a Stack-Heap Collision)"
            )));
        }
        Ok(())
    }

    /// Charges a value that was built or copied and checks that it fits.
    pub fn admit(&self, v: &Value) -> Result<(), String> {
        let bytes = value_bytes(v);
        self.charge(bytes)?;
        match v {
            Value::List(_) => self.fits("list", bytes),
            Value::Str(_) | Value::Key(_) => self.fits("string", bytes),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_the_documented_lower_bounds() {
        assert_eq!(value_bytes(&Value::Str("ab\u{1F600}".into())), 8, "an astral character is a pair");
        let list = Value::List(vec![
            Item::Known(Value::Int(1)),
            Item::Known(Value::Vector([0.0; 3])),
            Item::Unknown("x".into()),
        ]);
        assert_eq!(value_bytes(&list), 4 + 12 + 4);
    }

    #[test]
    fn the_first_fatal_error_is_kept_and_shared_by_clones() {
        let m = Meter::default();
        let clone = m.clone();
        assert!(clone.fits("list", SCRIPT_MEMORY_BYTES).is_ok());
        let e = clone.fits("list", SCRIPT_MEMORY_BYTES + 1).expect_err("too big");
        assert!(e.contains("Stack-Heap Collision"), "{e}");
        let _ = m.fits("string", SCRIPT_MEMORY_BYTES * 2);
        assert_eq!(m.fatal(), Some(e));
    }

    #[test]
    fn budget_is_spent_across_charges() {
        let m = Meter::default();
        assert!(m.charge(EVAL_BUDGET_BYTES as usize).is_ok());
        assert!(m.charge(1).is_err());
        assert!(m.fatal().is_some_and(|f| f.contains("too large")));
    }
}
