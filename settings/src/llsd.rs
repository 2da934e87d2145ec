//! A small LLSD value tree with the XML reader and the pretty writer the viewer's `settings.xml` needs.
//!
//! LLSD XML (Linden Lab Structured Data, `indra/llcommon/llsdserialize_xml.cpp`) has eleven value
//! elements: `undef`, `boolean`, `integer` (32-bit signed), `real` (64-bit), `string`, `uuid`,
//! `date`, `uri`, `binary` (with an `encoding` attribute, base64 by default), `array` and `map`
//! (alternating `<key>` and value children). Empty elements (`<string />`) mean the type's zero value.
//!
//! Reading is strict about structure (an unknown element, a map key without a value, an integer that
//! does not parse are errors with a line number) and lenient about text the viewer itself accepts
//! (`<boolean>true</boolean>` and `<boolean>1</boolean>`). Writing follows the viewer's pretty
//! formatter: one element per line, nested content indented, `&`, `<`, `>` escaped. Values whose
//! exact text matters only to other programs (`uuid`, `date`, `uri`, `binary`) are kept as text, so a
//! read-write cycle never changes them.

use roxmltree::Node;

/// One LLSD value.
#[derive(Debug, Clone, PartialEq)]
pub enum Llsd {
    /// `<undef />`.
    Undef,
    /// `<boolean>`: `1`/`true` or `0`/`false`/empty.
    Boolean(bool),
    /// `<integer>`: a 32-bit signed integer.
    Integer(i32),
    /// `<real>`: a 64-bit float.
    Real(f64),
    /// `<string>`: text, whitespace kept verbatim.
    String(String),
    /// `<uuid>`: kept as its text.
    Uuid(String),
    /// `<date>`: kept as its text (ISO 8601).
    Date(String),
    /// `<uri>`: kept as its text.
    Uri(String),
    /// `<binary encoding="...">`: the encoding name and the encoded text (whitespace trimmed).
    Binary {
        /// The `encoding` attribute (`base64` when absent).
        encoding: String,
        /// The encoded payload.
        data: String,
    },
    /// `<array>`.
    Array(Vec<Llsd>),
    /// `<map>`: entries in document order.
    Map(Vec<(String, Llsd)>),
}

/// A structural problem in an LLSD element: the 1-based line and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlsdParseError {
    /// 1-based line of the offending element.
    pub line: u32,
    /// What was wrong.
    pub reason: String,
}

/// The default encoding of `<binary>` in LLSD XML.
const DEFAULT_BINARY_ENCODING: &str = "base64";
/// The deepest nesting of `<array>`/`<map>` read, counted from the value being parsed: a settings
/// entry is a map (1) whose `Value` may be an array of maps (3); the viewer's own files nest at most
/// four levels. Reading recurses once per level, so the limit also bounds the stack a hostile file
/// can use (20,000 levels overflowed it); writing, comparing and dropping the tree recurse the same.
pub const MAX_DEPTH: usize = 64;
/// Spaces added per nesting level by the pretty writer.
const INDENT_STEP: usize = 2;

impl Llsd {
    /// The element name this value is written as (`integer`, `map` ...), for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Llsd::Undef => "undef",
            Llsd::Boolean(_) => "boolean",
            Llsd::Integer(_) => "integer",
            Llsd::Real(_) => "real",
            Llsd::String(_) => "string",
            Llsd::Uuid(_) => "uuid",
            Llsd::Date(_) => "date",
            Llsd::Uri(_) => "uri",
            Llsd::Binary { .. } => "binary",
            Llsd::Array(_) => "array",
            Llsd::Map(_) => "map",
        }
    }

    /// The value stored under `key` when this is a map (the first one, as the viewer does).
    pub fn get(&self, key: &str) -> Option<&Llsd> {
        match self {
            Llsd::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Parses one LLSD value element, nesting at most [`MAX_DEPTH`] levels of `<array>`/`<map>`.
    pub fn from_xml(node: Node<'_, '_>) -> Result<Llsd, LlsdParseError> {
        Llsd::from_xml_at(node, 0)
    }

    /// Parses `node`, which sits `depth` containers below the value [`Llsd::from_xml`] was given.
    fn from_xml_at(node: Node<'_, '_>, depth: usize) -> Result<Llsd, LlsdParseError> {
        // The line is looked up only for an error: finding it scans the text before the node.
        let err = |reason: String| LlsdParseError { line: line_of(node), reason };
        let name = node.tag_name().name();
        if matches!(name, "array" | "map") {
            if depth >= MAX_DEPTH {
                return Err(err(format!("<{name}> nested deeper than {MAX_DEPTH} levels (the limit)")));
            }
            return Ok(if name == "array" {
                let items = element_children(node).map(|child| Llsd::from_xml_at(child, depth + 1));
                Llsd::Array(items.collect::<Result<_, _>>()?)
            } else {
                Llsd::Map(map_entries_at(node, depth + 1)?)
            });
        }
        let text = element_text(node);
        let value = match name {
            "undef" => Llsd::Undef,
            "boolean" => Llsd::Boolean(
                parse_bool(&text)
                    .ok_or_else(|| err(format!("<boolean> holds {text:?}, expected 1, 0, true or false")))?,
            ),
            "integer" => Llsd::Integer(
                parse_integer(&text)
                    .ok_or_else(|| err(format!("<integer> holds {text:?}, not a 32-bit integer")))?,
            ),
            "real" => Llsd::Real(
                parse_real(&text).ok_or_else(|| err(format!("<real> holds {text:?}, not a number")))?,
            ),
            "string" => Llsd::String(text),
            "uuid" => Llsd::Uuid(text.trim().to_owned()),
            "date" => Llsd::Date(text.trim().to_owned()),
            "uri" => Llsd::Uri(text.trim().to_owned()),
            "binary" => Llsd::Binary {
                encoding: node.attribute("encoding").unwrap_or(DEFAULT_BINARY_ENCODING).to_owned(),
                data: text.split_whitespace().collect(),
            },
            other => return Err(err(format!("<{other}> is not an LLSD element"))),
        };
        Ok(value)
    }

    /// The value on one line, for showing it to a user: scalars as their text (strings quoted),
    /// arrays as `[1, 2, 3]`, maps as `{"key": value}`.
    pub fn compact_text(&self) -> String {
        match self {
            Llsd::Undef => "undef".to_owned(),
            Llsd::Boolean(b) => b.to_string(),
            Llsd::Integer(i) => i.to_string(),
            Llsd::Real(r) => format_real(*r),
            Llsd::String(s) => format!("{s:?}"),
            Llsd::Uuid(s) | Llsd::Date(s) | Llsd::Uri(s) => s.clone(),
            Llsd::Binary { encoding, data } => format!("binary({encoding}: {data})"),
            Llsd::Array(items) => {
                let items: Vec<String> = items.iter().map(Llsd::compact_text).collect();
                format!("[{}]", items.join(", "))
            }
            Llsd::Map(entries) => {
                let entries: Vec<String> =
                    entries.iter().map(|(k, v)| format!("{k:?}: {}", v.compact_text())).collect();
                format!("{{{}}}", entries.join(", "))
            }
        }
    }

    /// Writes this value as pretty LLSD XML at `indent` spaces, one element per line.
    pub fn write_xml(&self, out: &mut String, indent: usize) {
        let pad = " ".repeat(indent);
        match self {
            Llsd::Undef => push_line(out, &pad, "<undef />"),
            Llsd::Boolean(b) => push_elem(out, &pad, "boolean", if *b { "1" } else { "0" }),
            Llsd::Integer(i) => push_elem(out, &pad, "integer", &i.to_string()),
            Llsd::Real(r) => push_elem(out, &pad, "real", &format_real(*r)),
            Llsd::String(s) => push_elem(out, &pad, "string", &escape(s)),
            Llsd::Uuid(s) => push_elem(out, &pad, "uuid", &escape(s)),
            Llsd::Date(s) => push_elem(out, &pad, "date", &escape(s)),
            Llsd::Uri(s) => push_elem(out, &pad, "uri", &escape(s)),
            Llsd::Binary { encoding, data } => {
                let open = format!("binary encoding=\"{}\"", escape(encoding));
                push_line(out, &pad, &format!("<{open}>{}</binary>", escape(data)));
            }
            Llsd::Array(items) if items.is_empty() => push_line(out, &pad, "<array />"),
            Llsd::Array(items) => {
                push_line(out, &pad, "<array>");
                for item in items {
                    item.write_xml(out, indent + INDENT_STEP);
                }
                push_line(out, &pad, "</array>");
            }
            Llsd::Map(entries) if entries.is_empty() => push_line(out, &pad, "<map />"),
            Llsd::Map(entries) => {
                push_line(out, &pad, "<map>");
                write_map_entries(out, entries, indent + INDENT_STEP);
                push_line(out, &pad, "</map>");
            }
        }
    }
}

/// Writes `<key>k</key>` and the value for each entry at `indent` spaces.
pub fn write_map_entries(out: &mut String, entries: &[(String, Llsd)], indent: usize) {
    for (key, value) in entries {
        write_map_entry(out, key, value, indent);
    }
}

/// Writes one `<key>key</key>` and its value at `indent` spaces.
pub fn write_map_entry(out: &mut String, key: &str, value: &Llsd, indent: usize) {
    push_elem(out, &" ".repeat(indent), "key", &escape(key));
    value.write_xml(out, indent);
}

/// Reads the `<key>`/value pairs of a `<map>` element (its values nest at most [`MAX_DEPTH`] levels).
pub fn map_entries(node: Node<'_, '_>) -> Result<Vec<(String, Llsd)>, LlsdParseError> {
    map_entries_at(node, 1)
}

/// Reads the pairs of a `<map>` whose values sit `depth` containers deep.
fn map_entries_at(node: Node<'_, '_>, depth: usize) -> Result<Vec<(String, Llsd)>, LlsdParseError> {
    let mut entries = Vec::new();
    let mut children = element_children(node);
    while let Some(key_node) = children.next() {
        if key_node.tag_name().name() != "key" {
            let found = key_node.tag_name().name();
            let reason = format!("<map> holds <{found}> where a <key> was expected");
            return Err(LlsdParseError { line: line_of(key_node), reason });
        }
        let key = element_text(key_node);
        let value_node = children.next().ok_or_else(|| LlsdParseError {
            line: line_of(key_node),
            reason: format!("<key>{key}</key> has no value after it"),
        })?;
        entries.push((key, Llsd::from_xml_at(value_node, depth)?));
    }
    Ok(entries)
}

/// The 1-based line where `node` starts. This scans the document's text up to the node, so it is
/// for error messages only; a loop that needs many lines indexes the text once instead.
pub fn line_of(node: Node<'_, '_>) -> u32 {
    node.document().text_pos_at(node.range().start).row
}

/// The element children of `node` (text, comments and processing instructions skipped).
pub fn element_children<'a, 'input>(node: Node<'a, 'input>) -> impl Iterator<Item = Node<'a, 'input>> {
    node.children().filter(Node::is_element)
}

/// All text directly inside `node`, concatenated (CDATA included).
fn element_text(node: Node<'_, '_>) -> String {
    node.children().filter_map(|c| c.text()).collect()
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.trim() {
        "1" | "true" => Some(true),
        "0" | "false" | "" => Some(false),
        _ => None,
    }
}

fn parse_integer(text: &str) -> Option<i32> {
    let t = text.trim();
    if t.is_empty() {
        return Some(0);
    }
    t.parse().ok()
}

fn parse_real(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.is_empty() {
        return Some(0.0);
    }
    t.parse().ok()
}

/// Formats a real so that reading it back gives the same `f64` (shortest round-trip form).
fn format_real(r: f64) -> String {
    if r.is_nan() {
        "nan".to_owned()
    } else {
        format!("{r}")
    }
}

/// Escapes text for element content: `&`, `<`, `>`, quotes, and `\r` (which XML parsers would
/// otherwise normalise away).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
    out
}

fn push_line(out: &mut String, pad: &str, line: &str) {
    out.push_str(pad);
    out.push_str(line);
    out.push('\n');
}

fn push_elem(out: &mut String, pad: &str, name: &str, escaped_text: &str) {
    if escaped_text.is_empty() {
        push_line(out, pad, &format!("<{name} />"));
    } else {
        push_line(out, pad, &format!("<{name}>{escaped_text}</{name}>"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(xml: &str) -> Result<Llsd, LlsdParseError> {
        let doc = roxmltree::Document::parse(xml).expect("test XML is well-formed");
        Llsd::from_xml(doc.root_element())
    }

    fn round_trip(value: &Llsd) -> Llsd {
        let mut text = String::new();
        value.write_xml(&mut text, 0);
        parse(&text).expect("written LLSD parses")
    }

    #[test]
    fn booleans_accept_the_viewers_spellings() {
        assert_eq!(parse("<boolean>true</boolean>"), Ok(Llsd::Boolean(true)));
        assert_eq!(parse("<boolean>1</boolean>"), Ok(Llsd::Boolean(true)));
        assert_eq!(parse("<boolean>false</boolean>"), Ok(Llsd::Boolean(false)));
        assert_eq!(parse("<boolean />"), Ok(Llsd::Boolean(false)));
        assert!(parse("<boolean>yes</boolean>").is_err());
    }

    #[test]
    fn empty_elements_are_zero_values() {
        assert_eq!(parse("<string />"), Ok(Llsd::String(String::new())));
        assert_eq!(parse("<integer />"), Ok(Llsd::Integer(0)));
        assert_eq!(parse("<real />"), Ok(Llsd::Real(0.0)));
        assert_eq!(parse("<undef />"), Ok(Llsd::Undef));
    }

    #[test]
    fn integers_are_32_bit() {
        assert_eq!(parse("<integer>-2147483648</integer>"), Ok(Llsd::Integer(i32::MIN)));
        let err = parse("<integer>2147483648</integer>").expect_err("overflows i32");
        assert!(err.reason.contains("32-bit"), "{}", err.reason);
    }

    #[test]
    fn map_key_without_value_names_the_key_and_line() {
        let err = parse("<map>\n<key>A</key>\n<integer>1</integer>\n<key>B</key>\n</map>")
            .expect_err("B has no value");
        assert_eq!(err.line, 4);
        assert!(err.reason.contains("<key>B</key>"), "{}", err.reason);
    }

    #[test]
    fn special_characters_and_carriage_returns_survive() {
        let value = Llsd::String("a & b < c > d \"q\" 'x'\r\n  tail ".to_owned());
        let mut text = String::new();
        value.write_xml(&mut text, 0);
        assert!(text.contains("&amp;") && text.contains("&lt;") && text.contains("&gt;"));
        assert_eq!(round_trip(&value), value);
    }

    #[test]
    fn every_kind_round_trips() {
        let value = Llsd::Map(vec![
            ("u".into(), Llsd::Undef),
            ("b".into(), Llsd::Boolean(true)),
            ("i".into(), Llsd::Integer(-7)),
            ("r".into(), Llsd::Real(0.600_000_023_841_857_9)),
            ("s".into(), Llsd::String(String::new())),
            ("id".into(), Llsd::Uuid("89556747-24cb-43ed-920b-47caed15465f".into())),
            ("d".into(), Llsd::Date("2024-05-01T12:00:00Z".into())),
            ("uri".into(), Llsd::Uri("https://example.com/?a=1&b=2".into())),
            ("bin".into(), Llsd::Binary { encoding: "base64".into(), data: "AAEC/w==".into() }),
            ("a".into(), Llsd::Array(vec![Llsd::Real(1.5), Llsd::Array(vec![])])),
            ("m".into(), Llsd::Map(vec![])),
        ]);
        assert_eq!(round_trip(&value), value);
    }
}
