//! LLSD XML documents whose top level is a map: how the viewer keeps settings.xml and the per-user
//! state beside it (`LLSDSerialize::toPrettyXML`, `indra/llcommon/llsdserialize_xml.cpp`).
//!
//! One reader and one writer for every such file, so each gets the care settings.xml gets:
//!
//! * [`read_file`]: only a regular file of at most [`crate::MAX_FILE_BYTES`], checked before it
//!   is opened (`crate::input`);
//! * [`parse_map`]: the nesting checked by a linear scan before the (recursive) XML parser runs,
//!   a root that is not `<llsd><map>`, an unknown LLSD element or a key without value refused
//!   with file and line ([`SettingsError::Xml`], [`SettingsError::Malformed`]); lines found through
//!   an index built once;
//! * [`to_xml_string`]: the viewer's layout (header, one element per line, keys indented 4);
//! * [`save`]: atomically, through links, keeping the file's mode ([`crate::save`]).
//!
//! What a file's entries mean is its owner's business: [`crate::SettingsFile`] reads our settings
//! and keeps foreign keys; other files keep what they do not know the same way.

use std::path::Path;

use roxmltree::{Document, Node};

use crate::entry::malformed;
use crate::lines::LineIndex;
use crate::llsd::{element_children, line_of, write_map_entry, Llsd, LlsdParseError, MAX_DEPTH};
use crate::nesting::first_too_deep;
use crate::SettingsError;

/// Indentation of the top-level keys, as the viewer's pretty formatter writes them.
pub(crate) const TOP_LEVEL_INDENT: usize = 4;
/// The document header the viewer writes.
pub(crate) const XML_HEADER: &str = "<?xml version=\"1.0\" ?>\n<llsd>\n<map>\n";
/// The document trailer the viewer writes.
pub(crate) const XML_TRAILER: &str = "</map>\n</llsd>\n";

/// One top-level entry of a document, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct MapEntry {
    /// The entry's key.
    pub key: String,
    /// Its value.
    pub value: Llsd,
    /// The 1-based line of its `<key>`, for messages.
    pub line: u32,
}

/// The text of the LLSD file at `path` (links followed): a regular file of at most
/// [`crate::MAX_FILE_BYTES`], valid UTF-8.
pub fn read_file(path: &Path) -> Result<String, SettingsError> {
    crate::input::read_settings_text(path)
}

/// The top-level entries of an LLSD document (`<llsd><map>...</map></llsd>`), in file order; a
/// key held twice is listed twice. `path` is used in messages.
pub fn parse_map(path: &Path, text: &str) -> Result<Vec<MapEntry>, SettingsError> {
    let mut entries = Vec::new();
    visit_entries(path, text, |key, node, lines| {
        let value = Llsd::from_xml(node).map_err(|e| malformed(path, e))?;
        // The value follows its key; the key's line is where a reader looks.
        let line = node.prev_sibling_element().map_or_else(|| lines.line_of(node), |k| lines.line_of(k));
        entries.push(MapEntry { key, value, line });
        Ok(())
    })?;
    Ok(entries)
}

/// A document holding `entries` at the top level, in the viewer's layout.
pub fn to_xml_string<'a>(entries: impl IntoIterator<Item = (&'a str, &'a Llsd)>) -> String {
    let mut out = String::from(XML_HEADER);
    for (key, value) in entries {
        write_map_entry(&mut out, key, value, TOP_LEVEL_INDENT);
    }
    out.push_str(XML_TRAILER);
    out
}

/// Writes `text` to the file `path` names, atomically (see [`crate::save`]).
pub fn save(path: &Path, text: &str) -> Result<(), SettingsError> {
    crate::save::write_atomically(path, text.as_bytes())
}

/// Calls `f` with each top-level key, its value node and the document's line index, in order.
pub(crate) fn visit_entries<F>(path: &Path, text: &str, mut f: F) -> Result<(), SettingsError>
where
    F: FnMut(String, Node<'_, '_>, &LineIndex) -> Result<(), SettingsError>,
{
    let lines = LineIndex::new(text);
    check_nesting(path, text, &lines)?;
    let doc = Document::parse(text).map_err(|e| SettingsError::Xml {
        path: path.to_owned(),
        line: e.pos().row,
        column: e.pos().col,
        message: e.to_string(),
    })?;
    let map = top_level_map(&doc).map_err(|e| malformed(path, e))?;
    let mut children = element_children(map);
    while let Some(key_node) = children.next() {
        let (name, value_node) = key_and_value(key_node, children.next()).map_err(|e| malformed(path, e))?;
        f(name, value_node, &lines)?;
    }
    Ok(())
}

/// Elements a document may nest: `<llsd>`, the top-level `<map>`, an entry's value nesting at most
/// [`MAX_DEPTH`] containers, and the scalar inside the deepest one.
const MAX_ELEMENT_DEPTH: usize = MAX_DEPTH + 3;

/// Refuses a document nested deeper than [`MAX_ELEMENT_DEPTH`] before the XML parser, which
/// recurses per element, sees it.
fn check_nesting(path: &Path, text: &str, lines: &LineIndex) -> Result<(), SettingsError> {
    let Some(at) = first_too_deep(text, MAX_ELEMENT_DEPTH) else {
        return Ok(());
    };
    let reason = format!(
        "elements nested deeper than {MAX_ELEMENT_DEPTH} levels: an LLSD value may nest at most \
         {MAX_DEPTH} (the limit)"
    );
    Err(SettingsError::Malformed { path: path.to_owned(), line: lines.line_at(at), reason })
}

/// The `<map>` under `<llsd>`, or why the document is not a settings file.
fn top_level_map<'a, 'i>(doc: &'a Document<'i>) -> Result<Node<'a, 'i>, LlsdParseError> {
    let root = doc.root_element();
    let line = line_of(root);
    if root.tag_name().name() != "llsd" {
        let reason = format!("root element is <{}>, expected <llsd>", root.tag_name().name());
        return Err(LlsdParseError { line, reason });
    }
    let mut children = element_children(root);
    match (children.next(), children.next()) {
        (Some(map), None) if map.tag_name().name() == "map" => Ok(map),
        (Some(other), None) => Err(LlsdParseError {
            line: line_of(other),
            reason: format!("<llsd> holds <{}>, expected <map>", other.tag_name().name()),
        }),
        (None, _) => Err(LlsdParseError { line, reason: "<llsd> holds no <map>".to_owned() }),
        (Some(_), Some(extra)) => Err(LlsdParseError {
            line: line_of(extra),
            reason: "<llsd> holds more than one value".to_owned(),
        }),
    }
}

/// A `<key>` node's name and the value node after it.
fn key_and_value<'a, 'i>(
    key: Node<'a, 'i>,
    value: Option<Node<'a, 'i>>,
) -> Result<(String, Node<'a, 'i>), LlsdParseError> {
    // The line is looked up only for an error: finding it scans the text before the key.
    let err = |reason: String| LlsdParseError { line: line_of(key), reason };
    if key.tag_name().name() != "key" {
        return Err(err(format!("<map> holds <{}> where a <key> was expected", key.tag_name().name())));
    }
    let name: String = key.children().filter_map(|c| c.text()).collect();
    let value = value.ok_or_else(|| err(format!("<key>{name}</key> has no value after it")))?;
    Ok((name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_with_their_key_lines_and_write_back_the_same() {
        let text = "<?xml version=\"1.0\" ?>\n<llsd>\n<map>\n    <key>a</key>\n    <integer>1</integer>\n    \
                    <key>b</key>\n    <map>\n      <key>c</key>\n      <string>x &amp; y</string>\n    </map>\n\
                    </map>\n</llsd>\n";
        let path = Path::new("state.xml");
        let entries = parse_map(path, text).expect("parses");
        let keys: Vec<(&str, u32)> = entries.iter().map(|e| (e.key.as_str(), e.line)).collect();
        assert_eq!(keys, [("a", 4), ("b", 6)]);
        assert_eq!(entries[1].value.get("c"), Some(&Llsd::String("x & y".to_owned())));
        let written = to_xml_string(entries.iter().map(|e| (e.key.as_str(), &e.value)));
        assert_eq!(written, text, "the viewer's layout, unchanged");
        let err = parse_map(path, "<llsd><array/></llsd>").expect_err("not a map");
        assert!(err.to_string().starts_with("state.xml:1:"), "{err}");
    }
}
