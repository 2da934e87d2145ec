//! Constant evaluation of LSL expressions.
//!
//! Evaluates what is knowable without running the script: literals, named constants, variables whose
//! value is known, `+ - * / %`, bitwise and comparison operators, casts and member access, following
//! LSL's typing rules (wiki "Operators", "Typecast"): integer arithmetic wraps at 32 bits and
//! truncates on division, an integer mixed with a float is promoted to float, `vector * vector` is
//! the dot product and `vector % vector` the cross product, `list + x` appends. Anything else (a
//! function call, a parameter, a variable assigned at run time) is *unresolved*: the error side of
//! [`Eval`] carries a readable reason. Inside a list each element is resolved separately, so one
//! run-time element never hides its neighbours; a run-time list joined with `+` becomes a
//! [`Item::Splice`] of unknown length.

use std::collections::HashMap;

use super::constants;
use super::expr::Expr;
use super::memory::{item_bytes, Meter};

/// A known LSL value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `integer`.
    Int(i32),
    /// `float` (kept in double precision while evaluating).
    Float(f64),
    /// `string`.
    Str(String),
    /// `key`.
    Key(String),
    /// `vector`.
    Vector([f64; 3]),
    /// `rotation` (x, y, z, s).
    Rot([f64; 4]),
    /// `list`.
    List(Vec<Item>),
    /// A valid, non-null `key` only known at run time: the object's own (`llGetKey()`) or its
    /// owner's (`llGetOwner()`), with the run-time reason. Whether it equals `""` or `NULL_KEY` is
    /// known (it never does), and so is its truth; anything else about it is a run-time value, and
    /// in a list it is a run-time element.
    RunTimeKey(String),
}

/// Functions whose result is a valid, non-null key known only at run time.
const RUN_TIME_KEYS: [&str; 2] = ["llGetKey", "llGetOwner"];

/// One element of a list value.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A known element.
    Known(Value),
    /// One element only known at run time (reason).
    Unknown(String),
    /// A run-time list of unknown length joined in with `+` (reason).
    Splice(String),
}

/// A value, or the reason it is only known at run time.
pub type Eval = Result<Value, String>;

impl Value {
    /// LSL type name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::Key(_) | Value::RunTimeKey(_) => "key",
            Value::Vector(_) => "vector",
            Value::Rot(_) => "rotation",
            Value::List(_) => "list",
        }
    }
}

/// Variables visible at a point of the script: locals (and parameters) shadow globals.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// Global variables, by name.
    pub globals: HashMap<String, Eval>,
    /// Locals and parameters of the current handler or function.
    pub locals: HashMap<String, Eval>,
    /// Declared LSL type of each global (`float`, `key` ...).
    pub global_types: HashMap<String, String>,
    /// Declared LSL type of each local and parameter (entries of locals gone out of scope are
    /// never read: a name is looked up here only while it is a local).
    pub local_types: HashMap<String, String>,
    /// What the user calls of the statement being read returned, by the token index of the call's
    /// name: filled by the walker where it followed a call and knows its result, emptied after
    /// each statement (a call without an entry is a run-time value).
    pub returns: HashMap<usize, Eval>,
    /// The import's memory checks and work budget, shared by every clone.
    pub meter: Meter,
}

impl Env {
    /// The declared type of the variable `name` as seen here (the local shadowing the global).
    pub fn type_of(&self, name: &str) -> Option<&str> {
        if self.locals.contains_key(name) {
            self.local_types.get(name).map(String::as_str)
        } else {
            self.global_types.get(name).map(String::as_str)
        }
    }

    fn lookup(&self, name: &str) -> Eval {
        if let Some(v) = self.locals.get(name).or_else(|| self.globals.get(name)) {
            return v.clone();
        }
        constants::lookup(name).ok_or_else(|| format!("unknown identifier `{name}`"))
    }

    /// Evaluates `e` in this environment. Every list or string built is checked against the
    /// memory a script has; after a fatal error (see [`Meter`]) nothing more is evaluated.
    pub fn eval(&self, e: &Expr) -> Eval {
        if let Some(fatal) = self.meter.fatal() {
            return Err(fatal);
        }
        let v = self.eval_node(e)?;
        self.meter.admit(&v)?;
        Ok(v)
    }

    /// `a op b` on evaluated operands (also used for `+=` and the other compound assignments),
    /// checked like [`Env::eval`].
    pub fn combine(&self, op: &str, a: Eval, b: Eval) -> Eval {
        if let Some(fatal) = self.meter.fatal() {
            return Err(fatal);
        }
        let v = combine(op, a, b)?;
        self.meter.admit(&v)?;
        Ok(v)
    }

    fn eval_node(&self, e: &Expr) -> Eval {
        match e {
            Expr::Int(i) => Ok(Value::Int(*i)),
            Expr::Float(f) => Ok(Value::Float(*f)),
            Expr::Str(s) => Ok(Value::Str(s.clone())),
            Expr::Ident(name) => self.lookup(name),
            Expr::Vector(items) => self.vector(items),
            Expr::List(items) => self.list(items),
            Expr::Call(name, _) if RUN_TIME_KEYS.contains(&name.as_str()) => {
                Ok(Value::RunTimeKey(format!("run-time value: {name}(...)")))
            }
            Expr::Call(name, at) => match self.returns.get(at) {
                Some(returned) => returned.clone(),
                None => Err(format!("run-time value: {name}(...)")),
            },
            Expr::Cast(ty, inner) => cast(ty, self.eval(inner)?),
            Expr::Unary(op, inner) => unary(op, self.eval(inner)?),
            Expr::Binary(op, a, b) => self.binary(op, a, b),
            Expr::Member(inner, field) => member(self.eval(inner)?, field),
        }
    }

    /// A list literal, checked element by element so that it never grows past a script's memory.
    fn list(&self, exprs: &[Expr]) -> Eval {
        let mut items = Vec::new();
        let mut bytes = 0;
        for e in exprs {
            let part = self.list_item(e);
            bytes += part.iter().map(item_bytes).sum::<usize>();
            self.meter.fits("list", bytes)?;
            items.extend(part);
        }
        Ok(Value::List(items))
    }

    fn list_item(&self, e: &Expr) -> Vec<Item> {
        match self.eval(e) {
            Ok(Value::List(items)) => items,
            Ok(Value::RunTimeKey(reason)) => vec![Item::Unknown(reason)],
            Ok(v) => vec![Item::Known(v)],
            Err(reason) => vec![Item::Unknown(reason)],
        }
    }

    fn vector(&self, items: &[Expr]) -> Eval {
        let mut c = Vec::with_capacity(items.len());
        for item in items {
            c.push(match self.eval(item)? {
                Value::Int(i) => f64::from(i),
                Value::Float(f) => f,
                other => return Err(format!("type error: {} in a vector", other.type_name())),
            });
        }
        match c[..] {
            [x, y, z] => Ok(Value::Vector([x, y, z])),
            [x, y, z, s] => Ok(Value::Rot([x, y, z, s])),
            _ => Err("type error: vector arity".to_owned()),
        }
    }

    fn binary(&self, op: &str, a: &Expr, b: &Expr) -> Eval {
        combine(op, self.eval(a), self.eval(b))
    }
}

/// `a op b` on evaluated operands.
fn combine(op: &str, a: Eval, b: Eval) -> Eval {
    if op == "+" {
        if let Some(joined) = join_lists(&a, &b) {
            return Ok(joined);
        }
    }
    binary(op, a?, b?)
}

/// `list + x` where one side is a list and the other may be unresolved.
fn join_lists(a: &Eval, b: &Eval) -> Option<Value> {
    let part = |v: &Eval| match v {
        Ok(Value::List(items)) => items.clone(),
        Ok(Value::RunTimeKey(reason)) => vec![Item::Unknown(reason.clone())],
        Ok(other) => vec![Item::Known(other.clone())],
        Err(reason) => vec![Item::Splice(reason.clone())],
    };
    let is_list = |v: &Eval| matches!(v, Ok(Value::List(_)));
    if !(is_list(a) || is_list(b)) {
        return None;
    }
    let mut items = part(a);
    items.extend(part(b));
    Some(Value::List(items))
}

/// LSL's implicit conversion of a value stored in a variable of type `ty` (initialisation,
/// assignment, argument passing): an integer into a float (`float f = 1; f / 2` is 0.5), a string
/// into a key and a key into a string. Nothing else converts implicitly.
pub fn store_as(ty: Option<&str>, v: Eval) -> Eval {
    Ok(match (ty, v?) {
        (Some("float"), Value::Int(i)) => Value::Float(f64::from(i)),
        (Some("key"), Value::Str(s)) => Value::Key(s),
        (Some("string"), Value::Key(s)) => Value::Str(s),
        (_, v) => v,
    })
}

fn cast(ty: &str, v: Value) -> Eval {
    Ok(match (ty, v) {
        ("key", v @ Value::RunTimeKey(_)) => v,
        (_, Value::RunTimeKey(reason)) => return Err(reason),
        ("integer", Value::Int(i)) => Value::Int(i),
        ("integer", Value::Float(f)) => Value::Int(float_to_int(f)),
        ("integer", Value::Str(s) | Value::Key(s)) => Value::Int(parse_int_prefix(&s)),
        ("float", Value::Int(i)) => Value::Float(f64::from(i)),
        ("float", Value::Float(f)) => Value::Float(f),
        ("float", Value::Str(s) | Value::Key(s)) => Value::Float(s.trim().parse().unwrap_or(0.0)),
        ("string", Value::Int(i)) => Value::Str(i.to_string()),
        ("string", Value::Float(f)) => Value::Str(format!("{f:.6}")),
        ("string" | "key", Value::Str(s) | Value::Key(s)) if ty == "key" => Value::Key(s),
        ("string", Value::Str(s) | Value::Key(s)) => Value::Str(s),
        ("vector", v @ Value::Vector(_)) | ("rotation" | "quaternion", v @ Value::Rot(_)) => v,
        ("list", Value::List(items)) => Value::List(items),
        ("list", v) => Value::List(vec![Item::Known(v)]),
        (ty, v) => return Err(format!("unsupported cast: ({ty}) of a {}", v.type_name())),
    })
}

/// LSL's float-to-integer conversion: truncation toward zero; out of range gives `i32::MIN`.
pub fn float_to_int(f: f64) -> i32 {
    if f.is_finite() && f > f64::from(i32::MIN) - 1.0 && f < f64::from(i32::MAX) + 1.0 {
        f.trunc() as i32
    } else {
        i32::MIN
    }
}

/// `(integer)"..."`: leading decimal or hex digits, 0 when there are none.
fn parse_int_prefix(s: &str) -> i32 {
    let t = s.trim_start();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let digits: String = hex.chars().take_while(char::is_ascii_hexdigit).collect();
        return u32::from_str_radix(&digits, 16).map_or(0, |v| v as i32);
    }
    let (neg, rest) = t.strip_prefix('-').map_or((false, t), |r| (true, r));
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let v = digits.parse::<i64>().unwrap_or(0) as i32;
    if neg {
        v.wrapping_neg()
    } else {
        v
    }
}

/// True for text in a key's form: 36 characters, hexadecimal digits in groups of 8-4-4-4-12.
fn is_uuid_text(t: &str) -> bool {
    t.len() == 36
        && t.char_indices()
            .all(|(i, c)| if matches!(i, 8 | 13 | 18 | 23) { c == '-' } else { c.is_ascii_hexdigit() })
}

fn unary(op: &str, v: Value) -> Eval {
    match (op, v) {
        ("!", Value::RunTimeKey(_)) => Ok(Value::Int(0)),
        (_, Value::RunTimeKey(reason)) => Err(reason),
        ("-", Value::Int(i)) => Ok(Value::Int(i.wrapping_neg())),
        ("-", Value::Float(f)) => Ok(Value::Float(-f)),
        ("-", Value::Vector(c)) => Ok(Value::Vector(c.map(|x| -x))),
        ("-", Value::Rot(c)) => Ok(Value::Rot(c.map(|x| -x))),
        ("!", Value::Int(i)) => Ok(Value::Int(i32::from(i == 0))),
        ("~", Value::Int(i)) => Ok(Value::Int(!i)),
        ("++" | "--", _) => Err("run-time value: increment/decrement".to_owned()),
        (op, v) => Err(format!("type error: `{op}` on a {}", v.type_name())),
    }
}

fn member(v: Value, field: &str) -> Eval {
    let idx = match field {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        "s" => 3,
        _ => return Err(format!("unknown member `.{field}`")),
    };
    match v {
        Value::Vector(c) if idx < 3 => Ok(Value::Float(c[idx])),
        Value::Rot(c) => Ok(Value::Float(c[idx])),
        other => Err(format!("type error: `.{field}` on a {}", other.type_name())),
    }
}

fn binary(op: &str, a: Value, b: Value) -> Eval {
    use Value::{Float, Int, Key, Rot, RunTimeKey, Str, Vector};
    match (&a, &b) {
        // A valid key that is never NULL_KEY: it differs from any text that is not another one.
        (RunTimeKey(_), Str(t) | Key(t)) | (Str(t) | Key(t), RunTimeKey(_))
            if matches!(op, "==" | "!=") && (!is_uuid_text(t) || t == constants::NULL_KEY_TEXT) =>
        {
            return Ok(Int(i32::from(op == "!=")));
        }
        (RunTimeKey(reason), _) | (_, RunTimeKey(reason)) => return Err(reason.clone()),
        _ => {}
    }
    let scalar = match (&a, &b) {
        (Int(i), _) | (_, Int(i)) => f64::from(*i),
        (Float(f), _) | (_, Float(f)) => *f,
        _ => 0.0,
    };
    match (a, b) {
        (Int(x), Int(y)) => int_op(op, x, y),
        (Int(x), Float(y)) => float_op(op, f64::from(x), y),
        (Float(x), Int(y)) => float_op(op, x, f64::from(y)),
        (Float(x), Float(y)) => float_op(op, x, y),
        (Vector(x), Vector(y)) => vector_op(op, x, y),
        (Vector(v), Int(_) | Float(_)) | (Int(_) | Float(_), Vector(v)) if op == "*" => {
            Ok(Vector(v.map(|c| c * scalar)))
        }
        (Vector(v), Int(_) | Float(_)) if op == "/" && scalar != 0.0 => Ok(Vector(v.map(|c| c / scalar))),
        (Str(x), Str(y)) if op == "+" => Ok(Str(x + &y)),
        // Strings and keys compare by their text, a key with a string as well (`key k = "";
        // if (k != "") ...` is the common test for "no target").
        (Str(x) | Key(x), Str(y) | Key(y)) if op == "==" => Ok(Int(i32::from(x == y))),
        (Str(x) | Key(x), Str(y) | Key(y)) if op == "!=" => Ok(Int(i32::from(x != y))),
        (Rot(_), _) | (_, Rot(_)) => Err(format!("unsupported: rotation arithmetic `{op}`")),
        (x, y) => Err(format!("type error: {} {op} {}", x.type_name(), y.type_name())),
    }
}

fn int_op(op: &str, x: i32, y: i32) -> Eval {
    let b = |c: bool| Ok(Value::Int(i32::from(c)));
    match op {
        "+" => Ok(Value::Int(x.wrapping_add(y))),
        "-" => Ok(Value::Int(x.wrapping_sub(y))),
        "*" => Ok(Value::Int(x.wrapping_mul(y))),
        "/" | "%" if y == 0 => Err("math error: division by zero".to_owned()),
        "/" => Ok(Value::Int(x.wrapping_div(y))),
        "%" => Ok(Value::Int(x.wrapping_rem(y))),
        "|" => Ok(Value::Int(x | y)),
        "&" => Ok(Value::Int(x & y)),
        "^" => Ok(Value::Int(x ^ y)),
        "<<" => Ok(Value::Int(x.wrapping_shl(y as u32))),
        ">>" => Ok(Value::Int(x.wrapping_shr(y as u32))),
        "&&" => b(x != 0 && y != 0),
        "||" => b(x != 0 || y != 0),
        _ => compare(op, f64::from(x), f64::from(y)),
    }
}

fn float_op(op: &str, x: f64, y: f64) -> Eval {
    match op {
        "+" => Ok(Value::Float(x + y)),
        "-" => Ok(Value::Float(x - y)),
        "*" => Ok(Value::Float(x * y)),
        "/" if y == 0.0 => Err("math error: division by zero".to_owned()),
        "/" => Ok(Value::Float(x / y)),
        _ => compare(op, x, y),
    }
}

fn compare(op: &str, x: f64, y: f64) -> Eval {
    let c = match op {
        "==" => x == y,
        "!=" => x != y,
        "<" => x < y,
        "<=" => x <= y,
        ">" => x > y,
        ">=" => x >= y,
        _ => return Err(format!("type error: `{op}` on numbers")),
    };
    Ok(Value::Int(i32::from(c)))
}

fn vector_op(op: &str, a: [f64; 3], b: [f64; 3]) -> Eval {
    match op {
        "+" => Ok(Value::Vector([a[0] + b[0], a[1] + b[1], a[2] + b[2]])),
        "-" => Ok(Value::Vector([a[0] - b[0], a[1] - b[1], a[2] - b[2]])),
        "*" => Ok(Value::Float(a[0] * b[0] + a[1] * b[1] + a[2] * b[2])),
        "%" => Ok(Value::Vector([
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ])),
        "==" => Ok(Value::Int(i32::from(a == b))),
        "!=" => Ok(Value::Int(i32::from(a != b))),
        _ => Err(format!("type error: vector {op} vector")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::expr::Parser;
    use super::super::lexer::lex;
    use super::*;

    fn ev(src: &str) -> Eval {
        let toks = lex(src).expect("lexes");
        let e = Parser::new(&toks, 0).expr().expect("parses");
        Env::default().eval(&e)
    }

    #[test]
    fn integer_arithmetic_wraps_and_truncates() {
        assert_eq!(ev("7 / 2"), Ok(Value::Int(3)));
        assert_eq!(ev("-7 / 2"), Ok(Value::Int(-3)));
        assert_eq!(ev("7 % 3"), Ok(Value::Int(1)));
        assert_eq!(ev("0x7FFFFFFF + 1"), Ok(Value::Int(i32::MIN)));
        assert_eq!(ev("1 + 2 * 3 - (4 - 1)"), Ok(Value::Int(4)));
        assert_eq!(ev("1 << 4 | 3"), Ok(Value::Int(19)));
        assert_eq!(ev("0x100 >> 4"), Ok(Value::Int(16)));
        assert_eq!(ev("-16 >> 2"), Ok(Value::Int(-4)), "arithmetic shift");
        assert_eq!(ev("3 > 2"), Ok(Value::Int(1)));
        assert!(ev("1 / 0").is_err_and(|r| r.contains("division")));
    }

    #[test]
    fn mixed_numbers_promote_to_float() {
        assert_eq!(ev("1 + 0.5"), Ok(Value::Float(1.5)));
        assert_eq!(ev("3 / 2.0"), Ok(Value::Float(1.5)));
        assert_eq!(ev("(float)3 / 2"), Ok(Value::Float(1.5)));
        assert_eq!(ev("(integer)-2.9"), Ok(Value::Int(-2)));
        assert_eq!(ev("(integer)\"0x10\""), Ok(Value::Int(16)));
    }

    #[test]
    fn vector_operators() {
        assert_eq!(ev("<1,2,3> + <1,1,1>"), Ok(Value::Vector([2.0, 3.0, 4.0])));
        assert_eq!(ev("<1,2,3> * 2"), Ok(Value::Vector([2.0, 4.0, 6.0])));
        assert_eq!(ev("<2,4,6> / 2"), Ok(Value::Vector([1.0, 2.0, 3.0])));
        assert_eq!(ev("<1,2,3> * <4,5,6>"), Ok(Value::Float(32.0)));
        assert_eq!(ev("<1,0,0> % <0,1,0>"), Ok(Value::Vector([0.0, 0.0, 1.0])));
        assert_eq!(ev("-<1,0,-1>"), Ok(Value::Vector([-1.0, 0.0, 1.0])));
        assert_eq!(ev("<1,2,3>.z"), Ok(Value::Float(3.0)));
        assert_eq!(ev("<1,2,3> != <1,2,3>"), Ok(Value::Int(0)));
        assert_eq!(ev("<1,2,3> != <1,2,4>"), Ok(Value::Int(1)));
        assert_eq!(ev("<0,0,0,1>"), Ok(Value::Rot([0.0, 0.0, 0.0, 1.0])));
    }

    #[test]
    fn constants_and_pi_arithmetic() {
        let Ok(Value::Float(x)) = ev("PI_BY_TWO - 30 * DEG_TO_RAD") else { panic!("float") };
        assert!((x - std::f64::consts::FRAC_PI_3).abs() < 1e-6);
        assert_eq!(ev("PSYS_PART_EMISSIVE_MASK | PSYS_PART_WIND_MASK"), Ok(Value::Int(0x108)));
        assert_eq!(ev("TRUE + TRUE"), Ok(Value::Int(2)));
        assert_eq!(ev("(key)\"abc\""), Ok(Value::Key("abc".into())));
        assert!(ev("NOT_A_CONSTANT").is_err_and(|r| r.contains("NOT_A_CONSTANT")));
    }

    #[test]
    fn strings_and_keys_compare_by_their_text() {
        assert_eq!(ev("\"a\" != \"\""), Ok(Value::Int(1)));
        assert_eq!(ev("\"a\" != \"a\""), Ok(Value::Int(0)));
        assert_eq!(ev("(key)\"\" == \"\""), Ok(Value::Int(1)));
        assert_eq!(ev("(key)\"\" != \"\""), Ok(Value::Int(0)));
        assert_eq!(ev("\"owner\" == (key)\"self\""), Ok(Value::Int(0)));
        assert_eq!(ev("(key)\"k\" != (key)\"k\""), Ok(Value::Int(0)));
        assert!(ev("\"a\" < \"b\"").is_err(), "strings have no order in LSL");
    }

    #[test]
    fn the_objects_and_owners_keys_are_run_time_but_never_empty() {
        assert_eq!(ev("llGetOwner() != \"\""), Ok(Value::Int(1)));
        assert_eq!(ev("llGetKey() == NULL_KEY"), Ok(Value::Int(0)));
        assert_eq!(ev("!llGetKey()"), Ok(Value::Int(0)));
        assert_eq!(ev("llGetOwner() == \"owner\""), Ok(Value::Int(0)), "not a key's text");
        let other = "\"0f0e0d0c-0b0a-0908-0706-050403020100\"";
        assert!(ev(&format!("llGetOwner() == {other}")).is_err_and(|r| r.contains("llGetOwner")));
        assert!(ev("(string)llGetKey()").is_err());
        assert!(ev("llGetLinkKey(2) != \"\"").is_err(), "a link's key may be NULL_KEY");
        let Ok(Value::List(items)) = ev("[PSYS_SRC_TARGET_KEY, llGetOwner()]") else { panic!("list") };
        assert!(matches!(&items[1], Item::Unknown(r) if r.contains("llGetOwner")));
        let Ok(Value::List(items)) = ev("[1] + llGetKey()") else { panic!("list") };
        assert!(matches!(&items[1], Item::Unknown(r) if r.contains("llGetKey")));
    }

    #[test]
    fn lists_keep_known_neighbours_of_run_time_elements() {
        let Ok(Value::List(items)) = ev("[1, llFrand(2.0), 3]") else { panic!("list") };
        assert_eq!(items[0], Item::Known(Value::Int(1)));
        assert!(matches!(&items[1], Item::Unknown(r) if r == "run-time value: llFrand(...)"));
        assert_eq!(items[2], Item::Known(Value::Int(3)));
        let Ok(Value::List(items)) = ev("[1] + llGetList() + [2] + 3") else { panic!("list") };
        assert_eq!(items.len(), 4);
        assert!(matches!(&items[1], Item::Splice(r) if r.contains("llGetList")));
        assert_eq!(items[3], Item::Known(Value::Int(3)));
        assert!(ev("llFrand(1.0) * 2").is_err());
        assert!(ev("<llFrand(1.0), 0, 0>").is_err());
    }
}
