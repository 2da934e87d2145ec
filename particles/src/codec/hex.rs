//! Hex text <-> bytes, for blocks pasted from packet logs and the CLI.

/// Why a text is not a hex byte string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    /// A character that is neither a hex digit nor whitespace.
    #[error("invalid hex character {found:?} at character {position} (only 0-9, a-f, A-F and whitespace are allowed)")]
    InvalidChar {
        /// The offending character.
        found: char,
        /// Its index in the text, counted in characters from 0.
        position: usize,
    },
    /// An odd number of hex digits: the last byte is incomplete.
    #[error("odd number of hex digits ({digits}): every byte needs two")]
    OddLength {
        /// How many digits the text holds.
        digits: usize,
    },
}

/// Parses hex text into bytes. Whitespace anywhere (spaces, newlines, tabs) is ignored; case is
/// free; nothing else is accepted (no `0x`, no separators).
pub fn parse_hex(text: &str) -> Result<Vec<u8>, HexError> {
    let mut digits = Vec::with_capacity(text.len());
    for (position, found) in text.chars().enumerate() {
        if found.is_whitespace() {
            continue;
        }
        let digit = found.to_digit(16).ok_or(HexError::InvalidChar { found, position })?;
        digits.push(digit as u8);
    }
    if digits.len() % 2 != 0 {
        return Err(HexError::OddLength { digits: digits.len() });
    }
    Ok(digits.chunks_exact(2).map(|pair| pair[0] << 4 | pair[1]).collect())
}

/// Lowercase hex, two digits a byte, no separators.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_with_whitespace_and_either_case() {
        assert_eq!(parse_hex(" 0a FF\n1b\t2C "), Ok(vec![0x0a, 0xff, 0x1b, 0x2c]));
        assert_eq!(parse_hex(""), Ok(vec![]));
        assert_eq!(parse_hex("  \n"), Ok(vec![]));
    }

    #[test]
    fn rejects_bad_text_with_a_position() {
        assert_eq!(parse_hex("0a 0g"), Err(HexError::InvalidChar { found: 'g', position: 4 }));
        assert_eq!(parse_hex("0x0a"), Err(HexError::InvalidChar { found: 'x', position: 1 }));
        assert_eq!(parse_hex("abc"), Err(HexError::OddLength { digits: 3 }));
        let text = parse_hex("é").expect_err("non-ascii").to_string();
        assert!(text.contains("'é'") && text.contains("character 0"), "{text}");
    }

    #[test]
    fn to_hex_is_lowercase_and_round_trips() {
        let bytes = [0x00, 0x7f, 0x80, 0xab, 0xff];
        assert_eq!(to_hex(&bytes), "007f80abff");
        assert_eq!(parse_hex(&to_hex(&bytes)), Ok(bytes.to_vec()));
    }
}
