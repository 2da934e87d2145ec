//! Line numbers for many positions in one text, each in O(log n).
//!
//! roxmltree finds a node's line by scanning the text from its start (`Document::text_pos_at`), so
//! asking it once per entry made loading quadratic (40,000 keys took over a minute). Loops that need
//! a line per entry (warnings) use this index, built once in O(n); one-off error messages may still
//! ask roxmltree.

use roxmltree::Node;

/// The byte offset where each line of a text starts.
#[derive(Debug)]
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text` (the text the document was parsed from).
    pub(crate) fn new(text: &str) -> LineIndex {
        let after_newlines = text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1);
        LineIndex { starts: std::iter::once(0).chain(after_newlines).collect() }
    }

    /// The 1-based line holding byte `pos`, counted as roxmltree counts (by `\n`).
    pub(crate) fn line_at(&self, pos: usize) -> u32 {
        let line = self.starts.partition_point(|start| *start <= pos);
        u32::try_from(line).unwrap_or(u32::MAX)
    }

    /// The 1-based line where `node` starts.
    pub(crate) fn line_of(&self, node: Node<'_, '_>) -> u32 {
        self.line_at(node.range().start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_agree_with_roxmltree() {
        let text = "<a>\n<b/>\n\n  <c>\r\n<d/></c>\n</a>";
        let doc = roxmltree::Document::parse(text).expect("well-formed");
        let index = LineIndex::new(text);
        for node in doc.descendants() {
            assert_eq!(index.line_of(node), crate::llsd::line_of(node), "{node:?}");
        }
        assert_eq!(index.line_at(text.len()), 6);
    }
}
