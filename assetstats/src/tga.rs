//! A structural check of run-length-encoded TGA data before it is decoded.
//!
//! The `image` crate's TGA decoder stops at the image's last pixel and drops the rest of the packet
//! that crosses it, so a file whose packets describe more pixels than the header's width x height
//! (a corrupt or hostile file) decodes "successfully". [`check_rle`] walks the packets (TGA 2.0
//! specification, "Run-length encoded" image types 9, 10 and 11: a header byte whose top bit
//! chooses a run of `(n & 0x7F) + 1` copies of one pixel or that many literal pixels) and refuses
//! a packet that runs past the last pixel or data that ends before it. Uncompressed types pass
//! untouched; the decoder checks their length.

/// Length of the fixed TGA header, bytes.
const HEADER_LEN: usize = 18;
/// Image types 9 (colour-mapped), 10 (true-colour) and 11 (grey) are run-length encoded.
const RLE_TYPES: [u8; 3] = [9, 10, 11];
/// Top bit of a packet header: a run packet (else raw).
const RUN_PACKET: u8 = 0x80;
/// Low seven bits of a packet header: pixel count minus one.
const PACKET_COUNT_MASK: u8 = 0x7F;

/// Why RLE data does not describe exactly the header's pixels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RleFault {
    /// A packet ends past the last pixel.
    Overrun {
        /// Pixels the packets reach.
        reached: u64,
        /// Pixels the header declares.
        pixels: u64,
    },
    /// The data ends before the last pixel.
    Truncated {
        /// Pixels decoded before the data ran out.
        reached: u64,
        /// Pixels the header declares.
        pixels: u64,
    },
}

impl std::fmt::Display for RleFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RleFault::Overrun { reached, pixels } => write!(
                f,
                "TGA run-length packet overruns the image: the packets reach pixel {reached}, the header declares {pixels}"
            ),
            RleFault::Truncated { reached, pixels } => write!(
                f,
                "truncated TGA run-length data: {reached} of the header's {pixels} pixels present"
            ),
        }
    }
}

/// Checks the packets of run-length-encoded TGA `bytes`; other image types and headers too short
/// to read are left to the decoder.
pub(crate) fn check_rle(bytes: &[u8]) -> Result<(), RleFault> {
    let Some(header) = bytes.get(..HEADER_LEN) else { return Ok(()) };
    if !RLE_TYPES.contains(&header[2]) {
        return Ok(());
    }
    let u16_at = |i: usize| usize::from(u16::from_le_bytes([header[i], header[i + 1]]));
    let colour_map_bytes = if header[1] == 1 { u16_at(5) * usize::from(header[7]).div_ceil(8) } else { 0 };
    let pixels = (u16_at(12) * u16_at(14)) as u64;
    let pixel_bytes = usize::from(header[16]).div_ceil(8).max(1);
    let start = HEADER_LEN + usize::from(header[0]) + colour_map_bytes;
    walk(bytes.get(start..).unwrap_or_default(), pixels, pixel_bytes)
}

/// Walks the packets of `data` until `pixels` pixels are described.
fn walk(data: &[u8], pixels: u64, pixel_bytes: usize) -> Result<(), RleFault> {
    let (mut reached, mut at) = (0u64, 0usize);
    while reached < pixels {
        let Some(&head) = data.get(at) else { return Err(RleFault::Truncated { reached, pixels }) };
        let count = usize::from(head & PACKET_COUNT_MASK) + 1;
        let payload = if head & RUN_PACKET != 0 { pixel_bytes } else { count * pixel_bytes };
        if data.len() < at + 1 + payload {
            return Err(RleFault::Truncated { reached, pixels });
        }
        at += 1 + payload;
        reached += count as u64;
    }
    if reached > pixels {
        return Err(RleFault::Overrun { reached, pixels });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2 x 2 grey RLE TGA (type 11, 8 bits) followed by `packets`.
    fn grey_rle(packets: &[u8]) -> Vec<u8> {
        let mut t = vec![0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 8, 0];
        t.extend_from_slice(packets);
        t
    }

    #[test]
    fn packets_that_end_on_the_last_pixel_pass() {
        assert_eq!(check_rle(&grey_rle(&[0x83, 7])), Ok(()));
        assert_eq!(check_rle(&grey_rle(&[0x81, 7, 0x01, 1, 2])), Ok(()));
    }

    #[test]
    fn a_packet_past_the_last_pixel_is_an_overrun() {
        assert_eq!(check_rle(&grey_rle(&[0x84, 7])), Err(RleFault::Overrun { reached: 5, pixels: 4 }));
        assert_eq!(
            check_rle(&grey_rle(&[0x82, 7, 0x01, 1, 2])),
            Err(RleFault::Overrun { reached: 5, pixels: 4 })
        );
    }

    #[test]
    fn data_that_ends_early_is_truncated() {
        assert_eq!(check_rle(&grey_rle(&[0x81, 7])), Err(RleFault::Truncated { reached: 2, pixels: 4 }));
        assert_eq!(check_rle(&grey_rle(&[0x03, 1, 2])), Err(RleFault::Truncated { reached: 0, pixels: 4 }));
    }
}
