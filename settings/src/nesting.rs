//! A linear pre-scan of element nesting, run before the XML parser sees the text.
//!
//! roxmltree's tokenizer recurses once per nested element (`parse_element` -> `parse_content`), so a
//! document 20,000 elements deep overflows the stack inside `Document::parse`, before any LLSD
//! check can run. This scan walks the text once, without recursion, and reports the first start
//! tag deeper than the limit. It knows what can hide a `<` or `>`: comments, CDATA sections,
//! processing instructions, declarations and quoted attribute values. On malformed text it may
//! count differently from the parser, but never lower for anything the parser accepts, so the
//! parser never recurses deeper than the limit; the parser then reports the malformation itself.

/// The byte offset of the first start tag nested deeper than `limit` elements (counting itself and
/// its enclosing elements), if any.
pub(crate) fn first_too_deep(text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(offset) = bytes[at..].iter().position(|b| *b == b'<') {
        let start = at + offset;
        let rest = &bytes[start..];
        at = if rest.starts_with(b"<!--") {
            skip_past(bytes, start + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip_past(bytes, start + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            skip_past(bytes, start + 2, b"?>")
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            skip_past(bytes, start + 2, b">")
        } else if rest.starts_with(b"<!") {
            skip_past(bytes, start + 2, b">")
        } else {
            // The parser enters every element, a self-closing one too.
            if depth + 1 > limit {
                return Some(start);
            }
            let (end, self_closing) = start_tag_end(bytes, start + 1);
            if !self_closing {
                depth += 1;
            }
            end
        };
    }
    None
}

/// The offset just past the first `pattern` at or after `from` (the end of the text if none).
fn skip_past(bytes: &[u8], from: usize, pattern: &[u8]) -> usize {
    let from = from.min(bytes.len());
    bytes[from..]
        .windows(pattern.len())
        .position(|w| w == pattern)
        .map_or(bytes.len(), |p| from + p + pattern.len())
}

/// The offset just past the `>` closing a start tag whose name begins at `from`, skipping quoted
/// attribute values, and whether the tag closes itself (`/>`).
fn start_tag_end(bytes: &[u8], from: usize) -> (usize, bool) {
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate().skip(from) {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return (i + 1, i > from && bytes[i - 1] == b'/'),
            (None, _) => {}
        }
    }
    (bytes.len(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The depth of the deepest element according to roxmltree, for well-formed `text`.
    fn parser_depth(text: &str) -> usize {
        let doc = roxmltree::Document::parse(text).expect("well-formed");
        doc.descendants()
            .filter(|n| n.is_element())
            .map(|n| n.ancestors().filter(|a| a.is_element()).count())
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn agrees_with_the_parser_on_what_hides_tags() {
        let cases = [
            "<a><b/><c><d/></c></a>",
            "<a><!-- <x><y><z> --><b x=\"/>\" y='>'><c/></b></a>",
            "<a><![CDATA[<x><y><z>]]><b><?pi <x>?><c>t &lt; &gt; x > y</c></b></a>",
            "<?xml version=\"1.0\" ?>\n<a>\n  <b attr = 'q\"/>'\n  ><c></c></b></a>",
        ];
        for text in cases {
            let depth = parser_depth(text);
            assert_eq!(first_too_deep(text, depth), None, "{text}");
            assert!(first_too_deep(text, depth - 1).is_some(), "{text}");
        }
    }

    #[test]
    fn reports_the_first_tag_past_the_limit() {
        let text = format!("<r>{}{}</r>", "<a>".repeat(20_000), "</a>".repeat(20_000));
        assert_eq!(first_too_deep(&text, 3), Some("<r><a><a>".len()));
        assert_eq!(first_too_deep("<a><b", 1), Some(3), "an unclosed tag still counts");
    }
}
