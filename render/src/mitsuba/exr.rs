//! A minimal OpenEXR writer: one part, scan lines in increasing y, no compression, 32-bit float
//! channels (OpenEXR 2 file layout: magic and version, the header's attributes, the line
//! offset table, then one block per scan line). Enough for Mitsuba, OpenEXR and every
//! image tool to read the frame's linear radiance exactly.

/// The EXR file of a `width` x `height` image whose channels are `channels` (name, values row by
/// row from the top, `width * height` each); channels are stored in the name order the format
/// requires.
pub fn encode(width: u32, height: u32, channels: &[(&str, &[f32])]) -> Vec<u8> {
    let mut sorted: Vec<&(&str, &[f32])> = channels.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let (w, h) = (width as usize, height as usize);
    let mut out = Vec::with_capacity(w * h * 4 * sorted.len() + 512 + h * 16);
    out.extend_from_slice(&[0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0]);
    let mut chlist = Vec::new();
    for (name, _) in &sorted {
        chlist.extend_from_slice(name.as_bytes());
        chlist.push(0);
        chlist.extend_from_slice(&PIXEL_FLOAT.to_le_bytes());
        chlist.extend_from_slice(&[0, 0, 0, 0]); // pLinear, reserved
        chlist.extend_from_slice(&1i32.to_le_bytes());
        chlist.extend_from_slice(&1i32.to_le_bytes());
    }
    chlist.push(0);
    let window: Vec<u8> =
        [0i32, 0, width as i32 - 1, height as i32 - 1].iter().flat_map(|v| v.to_le_bytes()).collect();
    attribute(&mut out, "channels", "chlist", &chlist);
    attribute(&mut out, "compression", "compression", &[0]);
    attribute(&mut out, "dataWindow", "box2i", &window);
    attribute(&mut out, "displayWindow", "box2i", &window);
    attribute(&mut out, "lineOrder", "lineOrder", &[0]);
    attribute(&mut out, "pixelAspectRatio", "float", &1f32.to_le_bytes());
    attribute(&mut out, "screenWindowCenter", "v2f", &[0; 8]);
    attribute(&mut out, "screenWindowWidth", "float", &1f32.to_le_bytes());
    out.push(0);
    let line_bytes = w * 4 * sorted.len();
    let first = out.len() + h * 8;
    for y in 0..h {
        out.extend_from_slice(&((first + y * (line_bytes + 8)) as u64).to_le_bytes());
    }
    for y in 0..h {
        out.extend_from_slice(&(y as i32).to_le_bytes());
        out.extend_from_slice(&(line_bytes as i32).to_le_bytes());
        for (_, values) in &sorted {
            let row = values.get(y * w..(y + 1) * w).unwrap_or(&[]);
            for x in 0..w {
                out.extend_from_slice(&row.get(x).copied().unwrap_or(0.0).to_le_bytes());
            }
        }
    }
    out
}

/// OpenEXR's pixel type code of 32-bit floats.
const PIXEL_FLOAT: i32 = 2;

fn attribute(out: &mut Vec<u8>, name: &str, kind: &str, value: &[u8]) {
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    out.extend_from_slice(kind.as_bytes());
    out.push(0);
    out.extend_from_slice(&(value.len() as i32).to_le_bytes());
    out.extend_from_slice(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_two_by_one_image_has_the_layout_the_format_fixes() {
        let r = [1.0f32, 2.0];
        let a = [0.5f32, 0.25];
        let bytes = encode(2, 1, &[("R", &r), ("A", &a)]);
        assert_eq!(&bytes[..8], &[0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0]);
        // The last block: y = 0, 16 bytes of data, A before R (name order).
        let tail = &bytes[bytes.len() - 24..];
        assert_eq!(&tail[..8], &[0, 0, 0, 0, 16, 0, 0, 0]);
        let floats: Vec<f32> =
            tail[8..].chunks(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
        assert_eq!(floats, [0.5, 0.25, 1.0, 2.0]);
        // The offset table's one entry points at that block.
        let table = bytes.len() - 24 - 8;
        let offset = u64::from_le_bytes(bytes[table..table + 8].try_into().expect("8 bytes"));
        assert_eq!(offset as usize, bytes.len() - 24);
    }
}
