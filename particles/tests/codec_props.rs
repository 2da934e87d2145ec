//! Properties of the PSYS codec.
//!
//! * `decode(encode(x))` equals `x` up to quantisation. Tolerance per field, from its encoding's step:
//!   - U 8.8 fields (ages, radius, speeds, particle max age): truncation, `0 <= x - d < 1/256`;
//!   - burst rate: the same, except that values below 3/256 s decode as the 0.01 s floor;
//!   - U 3.5 fields (angles, scales): `0 <= x - d < 1/32`;
//!   - S 8.7 fields (omega, acceleration): `|x - d| < 1/128` (truncation after the +256 bias,
//!     whose f32 addition may round up by half an ulp of 256);
//!   - colours: rounding, `|x - d| <= 0.5/255` (plus f32 noise);
//!   - glow: truncation, `|x - d| < 1/255`;
//!   - integers, flags (tail bits as announced), blend bytes and UUIDs: exact.
//! * `encode(decode(b)) == b` for every block `b` that `encode` produced.
//! * `decode` never panics, on arbitrary bytes or on mutations of valid blocks, and a decoded
//!   system re-encodes to a block that decodes to the same system.

use glam::{Vec2, Vec3, Vec4};
use particles::codec::fixed::{Fixed, S8_7, U3_5, U8_8};
use particles::codec::{decode, encode, Decoded, BURST_RATE_FLOOR_S};
use particles::{PartData, PartFlags, PartSysData, SysFlags, Uuid};
use proptest::prelude::*;

fn in_range(format: Fixed) -> impl Strategy<Value = f32> {
    format.min_value()..=format.max_value()
}

fn vec3(format: Fixed) -> impl Strategy<Value = Vec3> {
    [in_range(format), in_range(format), in_range(format)].prop_map(Vec3::from_array)
}

fn vec2(format: Fixed) -> impl Strategy<Value = Vec2> {
    [in_range(format), in_range(format)].prop_map(Vec2::from_array)
}

fn color() -> impl Strategy<Value = Vec4> {
    [0.0f32..=1.0, 0.0f32..=1.0, 0.0f32..=1.0, 0.0f32..=1.0].prop_map(Vec4::from_array)
}

/// Zero half the time, so that every layout (86, 96, 98) is exercised.
fn glow() -> impl Strategy<Value = f32> {
    prop_oneof![Just(0.0f32), 0.0f32..=1.0]
}

fn blend_pair() -> impl Strategy<Value = (u8, u8)> {
    prop_oneof![Just((7u8, 9u8)), any::<(u8, u8)>()]
}

fn part() -> impl Strategy<Value = PartData> {
    (
        any::<u32>(),
        in_range(U8_8),
        (color(), color()),
        (vec2(U3_5), vec2(U3_5)),
        (glow(), glow()),
        blend_pair(),
    )
        .prop_map(|(flags, max_age, (c0, c1), (s0, s1), (g0, g1), (bs, bd))| PartData {
            flags: PartFlags(flags),
            max_age,
            start_color: c0,
            end_color: c1,
            start_scale: s0,
            end_scale: s1,
            start_glow: g0,
            end_glow: g1,
            blend_func_source: bs,
            blend_func_dest: bd,
        })
}

/// Any system whose values lie in the wire's representable ranges, with a non-zero CRC.
fn system() -> impl Strategy<Value = PartSysData> {
    (
        (1..=u32::MAX, any::<u32>(), any::<u8>(), any::<u8>()),
        [in_range(U8_8), in_range(U8_8), in_range(U8_8), in_range(U8_8)],
        [in_range(U8_8), in_range(U8_8), in_range(U3_5), in_range(U3_5)],
        (vec3(S8_7), vec3(S8_7)),
        (any::<[u8; 16]>(), any::<[u8; 16]>()),
        part(),
    )
        .prop_map(
            |(
                (crc, flags, pattern, count),
                u88,
                [speed_min, speed_max, inner, outer],
                (omega, accel),
                (img, target),
                part,
            )| {
                let [max_age, start_age, burst_rate, burst_radius] = u88;
                PartSysData {
                    crc,
                    flags: SysFlags(flags),
                    pattern,
                    max_age,
                    start_age,
                    inner_angle: inner,
                    outer_angle: outer,
                    burst_rate,
                    burst_radius,
                    burst_speed_min: speed_min,
                    burst_speed_max: speed_max,
                    burst_part_count: count,
                    angular_velocity: omega,
                    part_accel: accel,
                    part_image_id: Uuid(img),
                    target_uuid: Uuid(target),
                    part,
                }
            },
        )
}

/// Unsigned fixed point: truncation, so the decoded value is at most one step below.
fn truncated(format: Fixed, x: f32, d: f32) -> bool {
    d <= x && x - d < format.step()
}

fn within(x: f32, d: f32, tolerance: f32) -> bool {
    (x - d).abs() <= tolerance
}

fn check_quantised(x: &PartSysData, d: &PartSysData) -> Result<(), TestCaseError> {
    prop_assert_eq!((d.crc, d.flags, d.pattern), (x.crc, x.flags, x.pattern));
    prop_assert_eq!(d.burst_part_count, x.burst_part_count);
    prop_assert_eq!((d.part_image_id, d.target_uuid), (x.part_image_id, x.target_uuid));
    for (name, xv, dv) in [
        ("max_age", x.max_age, d.max_age),
        ("start_age", x.start_age, d.start_age),
        ("burst_radius", x.burst_radius, d.burst_radius),
        ("burst_speed_min", x.burst_speed_min, d.burst_speed_min),
        ("burst_speed_max", x.burst_speed_max, d.burst_speed_max),
        ("part.max_age", x.part.max_age, d.part.max_age),
    ] {
        prop_assert!(truncated(U8_8, xv, dv), "{name}: {xv} -> {dv}");
    }
    if x.burst_rate < 3.0 * U8_8.step() {
        prop_assert_eq!(d.burst_rate, BURST_RATE_FLOOR_S);
    } else {
        prop_assert!(
            truncated(U8_8, x.burst_rate, d.burst_rate),
            "burst_rate {} -> {}",
            x.burst_rate,
            d.burst_rate
        );
    }
    let u35 = [x.inner_angle, x.outer_angle]
        .into_iter()
        .chain(x.part.start_scale.to_array())
        .chain(x.part.end_scale.to_array());
    let d35 = [d.inner_angle, d.outer_angle]
        .into_iter()
        .chain(d.part.start_scale.to_array())
        .chain(d.part.end_scale.to_array());
    for (xv, dv) in u35.zip(d35) {
        prop_assert!(truncated(U3_5, xv, dv), "U3.5 {xv} -> {dv}");
    }
    let s87 = x.angular_velocity.to_array().into_iter().chain(x.part_accel.to_array());
    let d87 = d.angular_velocity.to_array().into_iter().chain(d.part_accel.to_array());
    for (xv, dv) in s87.zip(d87) {
        prop_assert!(within(xv, dv, S8_7.step()) && dv - xv < S8_7.step() / 2.0, "S8.7 {xv} -> {dv}");
    }
    let colours = x.part.start_color.to_array().into_iter().chain(x.part.end_color.to_array());
    let dcolours = d.part.start_color.to_array().into_iter().chain(d.part.end_color.to_array());
    for (xv, dv) in colours.zip(dcolours) {
        prop_assert!(within(xv, dv, 0.5 / 255.0 + 1e-6), "colour {xv} -> {dv}");
    }
    for (xv, dv) in [(x.part.start_glow, d.part.start_glow), (x.part.end_glow, d.part.end_glow)] {
        prop_assert!(within(xv, dv, 1.0 / 255.0), "glow {xv} -> {dv}");
    }
    let tail_bits = PartFlags::DATA_GLOW | PartFlags::DATA_BLEND;
    prop_assert_eq!(d.part.flags.0 & !tail_bits, x.part.flags.0 & !tail_bits);
    prop_assert_eq!(
        (d.part.blend_func_source, d.part.blend_func_dest),
        (x.part.blend_func_source, x.part.blend_func_dest)
    );
    Ok(())
}

/// The two systems agree except perhaps on the tail-announcing flag bits, which are layout.
fn same_system(a: &PartSysData, b: &PartSysData) -> bool {
    let strip = |s: &PartSysData| {
        let mut s = *s;
        s.part.flags.0 &= !(PartFlags::DATA_GLOW | PartFlags::DATA_BLEND);
        s
    };
    strip(a) == strip(b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decode_of_encode_is_the_input_up_to_quantisation(x in system()) {
        let block = encode(&x);
        prop_assert!(matches!(block.len(), 86 | 96 | 98), "length {}", block.len());
        match decode(&block) {
            Decoded::System(d) => check_quantised(&x, &d)?,
            other => prop_assert!(false, "encoded block did not decode: {:?}", other),
        }
    }

    #[test]
    fn encode_of_decode_is_the_identity_on_encoded_blocks(x in system()) {
        let block = encode(&x);
        let Decoded::System(d) = decode(&block) else {
            return Err(TestCaseError::fail("encoded block did not decode"));
        };
        prop_assert_eq!(encode(&d), block);
    }

    #[test]
    fn out_of_range_values_clamp_and_still_round_trip(
        x in system(),
        wild in prop::array::uniform8(prop_oneof![any::<f32>(), -1.0e6f32..1.0e6]),
    ) {
        let mut x = x;
        x.max_age = wild[0];
        x.burst_rate = wild[1];
        x.part_accel.x = wild[2];
        x.angular_velocity.y = wild[3];
        x.part.start_scale.x = wild[4];
        x.part.start_color.y = wild[5];
        x.part.end_glow = wild[6];
        x.inner_angle = wild[7];
        let block = encode(&x);
        let Decoded::System(d) = decode(&block) else {
            return Err(TestCaseError::fail("encoded block did not decode"));
        };
        prop_assert!((0.0..=U8_8.max_value()).contains(&d.max_age));
        prop_assert!((S8_7.min_value()..=S8_7.max_value()).contains(&d.part_accel.x));
        prop_assert!((0.0..=U3_5.max_value()).contains(&d.part.start_scale.x));
        prop_assert!((0.0..=1.0).contains(&d.part.end_glow));
        prop_assert_eq!(encode(&d), block);
    }

    #[test]
    fn decode_never_panics_on_arbitrary_bytes(block in prop::collection::vec(any::<u8>(), 0..=120)) {
        if let Decoded::System(d) = decode(&block) {
            prop_assert!(matches!(block.len(), 86 | 94..=98));
            let again = decode(&encode(&d));
            prop_assert!(again.system().is_some_and(|a| same_system(a, &d)), "{:?}", again);
        }
    }

    #[test]
    fn decode_never_panics_on_mutated_valid_blocks(
        x in system(),
        edits in prop::collection::vec((0usize..98, any::<u8>()), 0..4),
        cut in 0usize..=100,
        extra in prop::collection::vec(any::<u8>(), 0..3),
    ) {
        let mut block = encode(&x);
        let n = block.len();
        for (at, byte) in edits {
            block[at % n] = byte;
        }
        block.truncate(cut);
        block.extend_from_slice(&extra);
        if let Decoded::System(d) = decode(&block) {
            let again = decode(&encode(&d));
            prop_assert!(again.system().is_some_and(|a| same_system(a, &d)), "{:?}", again);
        }
    }
}
