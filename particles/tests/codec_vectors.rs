//! Analytic expectations for the PSYS codec: the viewer's unit-test vector (`llpartdata_test.cpp`),
//! worked fixed-point quantisation examples, clamping, and every "no system" and rejection path.

use glam::{Vec2, Vec3, Vec4};
use particles::codec::{
    self, decode, encode, parse_hex, Decoded, NoSystemReason, RejectReason, LEGACY_BLOCK_SIZE,
};
use particles::types::blend;
use particles::{PartFlags, PartSysData, Uuid};

/// `llpartdata_test.cpp`'s `msg[]`: the 96-byte extended block, then 4 unrelated bytes.
const VIEWER_TEST_MSG: &str = "
    44000000 01000000 00000000 01 0000 0000 00 00 1900 0000 0001 0001 01
    008000800080 008000800080
    5e120ba15805dc5766b7f5ac4bd18f86 00000000000000000000000000000000
    14000000 02050200 000a ffffffff ffff0000 20 20 00 00 02 01
    00000000";

fn viewer_block() -> Vec<u8> {
    let mut msg = parse_hex(VIEWER_TEST_MSG).expect("vector is valid hex");
    assert_eq!(msg.len(), 100);
    msg.truncate(96);
    msg
}

fn system(block: &[u8]) -> PartSysData {
    match decode(block) {
        Decoded::System(sys) => sys,
        other => panic!("expected a system, got {other:?}"),
    }
}

fn rejected(block: &[u8]) -> RejectReason {
    match decode(block) {
        Decoded::Rejected(reason) => reason,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

fn no_system(block: &[u8]) -> NoSystemReason {
    match decode(block) {
        Decoded::NoSystem(reason) => reason,
        other => panic!("expected no system, got {other:?}"),
    }
}

/// `block` with `bytes` written at `offset`.
fn patched(block: &[u8], offset: usize, bytes: &[u8]) -> Vec<u8> {
    let mut out = block.to_vec();
    out[offset..offset + bytes.len()].copy_from_slice(bytes);
    out
}

/// A round trip through the encoder, for the quantisation examples.
fn requantised(sys: PartSysData) -> PartSysData {
    system(&encode(&sys))
}

#[test]
fn viewer_unit_test_vector_decodes_to_the_documented_values() {
    let sys = system(&viewer_block());
    assert_eq!(sys.crc, 1);
    assert_eq!(sys.flags.0, 0);
    assert_eq!(sys.pattern, 0x01);
    assert_eq!((sys.max_age, sys.start_age), (0.0, 0.0));
    assert_eq!((sys.inner_angle, sys.outer_angle), (0.0, 0.0));
    assert_eq!(sys.burst_rate, 0.097_656_25);
    assert_eq!(sys.burst_radius, 0.0);
    assert_eq!((sys.burst_speed_min, sys.burst_speed_max), (1.0, 1.0));
    assert_eq!(sys.burst_part_count, 1);
    assert_eq!(sys.angular_velocity, Vec3::ZERO);
    assert_eq!(sys.part_accel, Vec3::ZERO);
    assert_eq!(sys.part_image_id.to_string(), "5e120ba1-5805-dc57-66b7-f5ac4bd18f86");
    assert_eq!(sys.target_uuid, Uuid::NIL);
    let p = sys.part;
    assert_eq!(p.flags.0, 0x0002_0502);
    assert_eq!(p.flags.0, 132_354, "the viewer test's decimal value");
    assert_eq!(
        p.flags.0,
        PartFlags::DATA_BLEND | PartFlags::RIBBON | PartFlags::EMISSIVE | PartFlags::INTERP_SCALE
    );
    assert_eq!(p.max_age, 10.0);
    assert_eq!(p.start_color, Vec4::ONE);
    assert_eq!(p.end_color, Vec4::new(1.0, 1.0, 0.0, 0.0));
    assert_eq!(p.start_scale, Vec2::ONE);
    assert_eq!(p.end_scale, Vec2::ZERO);
    assert_eq!((p.start_glow, p.end_glow), (0.0, 0.0));
    assert_eq!((p.blend_func_source, p.blend_func_dest), (blend::DEST_COLOR, blend::ZERO));
}

#[test]
fn viewer_unit_test_vector_re_encodes_byte_for_byte() {
    let block = viewer_block();
    assert_eq!(codec::to_hex(&encode(&system(&block))), codec::to_hex(&block));
}

#[test]
fn viewer_unit_test_buffer_as_a_whole_is_too_long_for_the_wire() {
    // The viewer's test feeds `unpack` directly; as a PSBlock, 100 bytes is "no system".
    let msg = parse_hex(VIEWER_TEST_MSG).expect("hex");
    assert_eq!(no_system(&msg), NoSystemReason::TooLong { len: 100 });
}

#[test]
fn quantisation_examples_of_reference_2_1() {
    let base = PartSysData::default();
    let sys = requantised(PartSysData { burst_rate: 0.1, ..base });
    assert_eq!(sys.burst_rate, 0.097_656_25);

    let mut s = base;
    s.part.start_scale = Vec2::new(0.05, 0.02);
    s.inner_angle = std::f32::consts::PI;
    s.outer_angle = std::f32::consts::TAU;
    let sys = requantised(s);
    assert_eq!(sys.part.start_scale, Vec2::new(0.031_25, 0.0));
    assert_eq!((sys.inner_angle, sys.outer_angle), (3.125, 6.281_25));

    // Acceleration 0 is offset-binary 0x8000 at system offset 30 (legacy block).
    let block = encode(&base);
    assert_eq!(block.len(), LEGACY_BLOCK_SIZE);
    assert_eq!(&block[30..36], &[0x00, 0x80, 0x00, 0x80, 0x00, 0x80]);
    assert_eq!(system(&block).part_accel, Vec3::ZERO);
}

#[test]
fn values_at_or_above_the_maximum_clamp_instead_of_wrapping_to_zero() {
    let mut s = PartSysData { max_age: 256.0, burst_rate: 1.0e6, ..Default::default() };
    s.part.start_scale = Vec2::new(100.0, 8.0);
    s.part_accel = Vec3::new(300.0, 256.0, -300.0);
    s.angular_velocity = Vec3::new(f32::INFINITY, f32::NEG_INFINITY, f32::NAN);
    let sys = requantised(s);
    // 255.99609375 and 255.9921875 (the U 8.8 and S 8.7 maxima), written exactly.
    let (u8_8_max, s8_7_max) = (255.0 + 255.0 / 256.0, 255.0 + 127.0 / 128.0);
    assert_eq!(sys.max_age, u8_8_max);
    assert_eq!(sys.burst_rate, u8_8_max);
    assert_eq!(sys.part.start_scale, Vec2::splat(7.968_75));
    assert_eq!(sys.part_accel, Vec3::new(s8_7_max, s8_7_max, -256.0));
    assert_eq!(sys.angular_velocity, Vec3::new(s8_7_max, -256.0, 0.0));
}

#[test]
fn burst_rate_floor_applies_to_raw_0_to_2_in_both_layouts() {
    let legacy = encode(&PartSysData::default());
    for raw in [0u8, 1, 2] {
        assert_eq!(system(&patched(&legacy, 15, &[raw, 0])).burst_rate, 0.01);
        assert_eq!(system(&patched(&viewer_block(), 4 + 15, &[raw, 0])).burst_rate, 0.01);
    }
    assert_eq!(system(&patched(&legacy, 15, &[3, 0])).burst_rate, 3.0 / 256.0);
    // The encoder writes raw 2 for anything the viewer floors, so re-encoding is stable.
    let zero = encode(&PartSysData { burst_rate: 0.0, ..Default::default() });
    assert_eq!(&zero[15..17], &[2, 0]);
}

#[test]
fn colour_and_glow_bytes_decode_with_the_viewers_two_formulas() {
    // Extended block, DATA_GLOW set, start colour red byte 3 and start glow byte 3.
    let mut s = PartSysData::default();
    s.part.start_glow = 0.5;
    let block = encode(&s);
    assert_eq!(block.len(), 96);
    let block = patched(&block, 76 + 6, &[3]);
    let block = patched(&block, 94, &[3]);
    let p = system(&block).part;
    assert_eq!(p.start_color.x, 3.0 * (1.0f32 / 255.0));
    assert_eq!(p.start_glow, 3.0f32 / 255.0);
    assert_eq!(p.start_color.x, 0.011_764_707);
    assert_eq!(p.start_glow, 0.011_764_706);
    assert_ne!(p.start_color.x.to_bits(), p.start_glow.to_bits(), "they differ in the last bit");
    let differing = (0..=255u8).filter(|&b| f32::from(b) * (1.0f32 / 255.0) != f32::from(b) / 255.0).count();
    assert_eq!(differing, 126, "colour and glow decodes differing");
}

#[test]
fn colours_round_and_glow_truncates_on_encode() {
    let mut s = PartSysData::default();
    s.part.start_color = Vec4::new(0.5, 1.5, -0.2, 0.998);
    s.part.start_glow = 0.5;
    s.part.end_glow = 2.0;
    let block = encode(&s);
    assert_eq!(&block[76 + 6..76 + 10], &[128, 255, 0, 254]);
    assert_eq!(&block[94..96], &[127, 255]);
}

#[test]
fn every_colour_and_glow_byte_survives_decode_then_encode() {
    let mut s = PartSysData::default();
    s.part.start_glow = 0.5;
    let template = encode(&s);
    for b in 0..=255u8 {
        let block = patched(&patched(&template, 76 + 6, &[b, b, b, b]), 94, &[b.max(1), b]);
        assert_eq!(encode(&system(&block)), block, "byte {b}");
    }
}

#[test]
fn legacy_block_keeps_stray_tail_flags_and_decodes_glow_0_and_blend_7_9() {
    let stray = PartFlags::DATA_GLOW | PartFlags::DATA_BLEND | PartFlags::INTERP_COLOR;
    let block = patched(&encode(&PartSysData::default()), 68, &stray.to_le_bytes());
    assert_eq!(block.len(), LEGACY_BLOCK_SIZE);
    let sys = system(&block);
    assert_eq!(sys.part.flags.0, stray);
    assert_eq!((sys.part.start_glow, sys.part.end_glow), (0.0, 0.0));
    assert_eq!((sys.part.blend_func_source, sys.part.blend_func_dest), (7, 9));
    assert_eq!(encode(&sys), block, "and re-encodes unchanged");
}

#[test]
fn an_86_byte_prefix_of_an_extended_block_decodes_as_legacy_like_the_viewer() {
    let sys = system(&viewer_block()[..86]);
    assert_eq!(sys.crc, 68, "the system-size word read as the CRC");
    assert_eq!(sys.flags.0, 1, "the CRC read as the system flags");
}

#[test]
fn encoder_picks_the_layout_and_announces_exactly_the_tails_written() {
    let size_fields = |b: &[u8]| (b[0], b[72], b[76..80].to_vec());
    let mut s = PartSysData::default();
    s.part.flags = PartFlags(PartFlags::DATA_GLOW | PartFlags::DATA_BLEND | PartFlags::EMISSIVE);
    let legacy = encode(&s);
    assert_eq!(legacy.len(), 86);
    assert_eq!(&legacy[68..72], &s.part.flags.0.to_le_bytes(), "legacy keeps the flags word");

    s.part.start_glow = 0.5 / 255.0; // truncates to byte 0: still no glow tail
    assert_eq!(encode(&s).len(), 86);

    s.part.end_glow = 0.25;
    let glow = encode(&s);
    assert_eq!(glow.len(), 96);
    let flags = (PartFlags::DATA_GLOW | PartFlags::EMISSIVE).to_le_bytes().to_vec();
    assert_eq!(size_fields(&glow), (68, 20, flags));
    assert_eq!(&glow[94..96], &[0, 63]);

    s.part.blend_func_dest = blend::ONE;
    let both = encode(&s);
    assert_eq!(both.len(), 98);
    let flags = (PartFlags::DATA_GLOW | PartFlags::DATA_BLEND | PartFlags::EMISSIVE).to_le_bytes();
    assert_eq!(size_fields(&both), (68, 22, flags.to_vec()));
    assert_eq!(&both[94..98], &[0, 63, 7, 0]);

    s.part.end_glow = 0.0;
    let blend_only = encode(&s);
    assert_eq!(blend_only.len(), 96);
    assert_eq!(&blend_only[94..96], &[7, 0]);
    assert_eq!(system(&blend_only).part.flags.0, PartFlags::DATA_BLEND | PartFlags::EMISSIVE);
}

#[test]
fn no_system_paths() {
    let legacy = encode(&PartSysData::default());
    assert_eq!(no_system(&[]), NoSystemReason::Empty);
    assert_eq!(no_system(&[1; 99]), NoSystemReason::TooLong { len: 99 });
    assert_eq!(no_system(&[1; 255]), NoSystemReason::TooLong { len: 255 });
    assert_eq!(no_system(&patched(&legacy, 0, &[0; 4])), NoSystemReason::CrcZero { offset: 0 });
    let ext = viewer_block();
    assert_eq!(no_system(&patched(&ext, 4, &[0; 4])), NoSystemReason::CrcZero { offset: 4 });
    assert_eq!(no_system(&patched(&ext, 0, &[69, 0, 0, 0])), NoSystemReason::UnknownSystemSize { size: 69 });
    let huge = patched(&ext, 0, &i32::MAX.to_le_bytes());
    assert_eq!(no_system(&huge), NoSystemReason::UnknownSystemSize { size: i32::MAX });
    // The viewer's null test runs before its size check: CRC 0 wins over a bad system size.
    let both = patched(&patched(&ext, 0, &[12, 0, 0, 0]), 4, &[0; 4]);
    assert_eq!(no_system(&both), NoSystemReason::CrcZero { offset: 4 });
    // The size word is only consulted for 87..=98 bytes.
    assert!(matches!(decode(&ext[..87]), Decoded::Rejected(_)));
}

#[test]
fn short_blocks_are_rejected_whatever_they_hold() {
    for len in [1, 2, 3, 4, 50, 85] {
        assert_eq!(rejected(&vec![0; len]), RejectReason::TooShort { len });
        assert_eq!(rejected(&viewer_block()[..len]), RejectReason::TooShort { len });
    }
}

#[test]
fn inconsistent_sizes_are_rejected() {
    let ext = viewer_block();
    // A legacy block with trailing bytes: its CRC (1) is read as the system size, its system
    // flags as the CRC (zero would mean "no system").
    let flags = particles::SysFlags(particles::SysFlags::USE_NEW_ANGLE);
    let mut legacy_plus = encode(&PartSysData { flags, ..Default::default() });
    legacy_plus.push(0);
    assert_eq!(rejected(&legacy_plus), RejectReason::SystemSize { size: 1 });
    assert_eq!(rejected(&patched(&ext, 0, &(-1i32).to_le_bytes())), RejectReason::SystemSize { size: -1 });
    for size in [17, 0, -5, i32::MIN] {
        let block = patched(&ext, 72, &size.to_le_bytes());
        assert_eq!(rejected(&block), RejectReason::ParticleSizeTooSmall { size });
    }
}

#[test]
fn truncated_blocks_are_rejected_never_guessed() {
    let ext = viewer_block();
    let r = rejected(&ext[..90]);
    assert_eq!(r, RejectReason::Truncated { field: "start scale", offset: 90, width: 1, len: 90 });
    // Blend announced and sized, but only one of its bytes present (the viewer keeps 9).
    let r = rejected(&ext[..95]);
    assert_eq!(r, RejectReason::Truncated { field: "blend destination", offset: 95, width: 1, len: 95 });
    // Glow announced and sized, block ends before it (the viewer decodes 0/0).
    let mut s = PartSysData::default();
    s.part.start_glow = 1.0;
    let glow = encode(&s);
    let r = rejected(&glow[..94]);
    assert_eq!(r, RejectReason::Truncated { field: "start glow", offset: 94, width: 1, len: 94 });
}

#[test]
fn flags_that_disagree_with_the_particle_size_are_rejected() {
    let ext = viewer_block();
    // OpenSim's stray DATA_GLOW: size 20, both bits set; the blend bytes read as glow, no room left.
    let flags = (0x0002_0502u32 | PartFlags::DATA_GLOW).to_le_bytes();
    let r = rejected(&patched(&ext, 76, &flags));
    assert_eq!(
        r,
        RejectReason::MissingTail {
            tail: "blend",
            flag: PartFlags::DATA_BLEND,
            flags: 0x0003_0502,
            size: 20
        }
    );
    // Size 20 with no tail flag: two unknown bytes.
    let r = rejected(&patched(&ext, 76, &0x0502u32.to_le_bytes()));
    assert_eq!(r, RejectReason::UnknownParticleBytes { size: 20, extra: 2, flags: 0x0502 });
    // Size 22 in a 98-byte block announcing only the blend pair.
    let mut longer = patched(&ext, 72, &22i32.to_le_bytes());
    longer.extend_from_slice(&[0, 0]);
    let r = rejected(&longer);
    assert_eq!(r, RejectReason::UnknownParticleBytes { size: 22, extra: 2, flags: 0x0002_0502 });
    // A huge particle size, and one just short of the glow pair.
    let r = rejected(&patched(&ext, 72, &i32::MAX.to_le_bytes()));
    assert!(matches!(r, RejectReason::UnknownParticleBytes { size: i32::MAX, .. }), "{r:?}");
    let glow_flags = (PartFlags::DATA_GLOW).to_le_bytes();
    let r = rejected(&patched(&patched(&ext, 76, &glow_flags), 72, &19i32.to_le_bytes()));
    assert_eq!(
        r,
        RejectReason::MissingTail { tail: "glow", flag: PartFlags::DATA_GLOW, flags: 0x1_0000, size: 19 }
    );
}

#[test]
fn trailing_bytes_after_the_declared_data_are_rejected() {
    let mut block = viewer_block();
    block.extend_from_slice(&[0xab, 0xcd]);
    assert_eq!(rejected(&block), RejectReason::TrailingBytes { extra: 2, end: 96, len: 98 });
}

#[test]
fn reasons_name_the_field_offset_or_length() {
    let text = |block: &[u8]| match decode(block) {
        Decoded::NoSystem(r) => r.to_string(),
        Decoded::Rejected(r) => r.to_string(),
        Decoded::System(_) => panic!("expected a reason"),
    };
    let ext = viewer_block();
    assert!(text(&ext[..90]).contains("start scale (offset 90"), "{}", text(&ext[..90]));
    assert!(text(&[0; 40]).contains("40 bytes"));
    assert!(text(&[1; 120]).contains("120 bytes"));
    let t = text(&patched(&ext, 72, &5i32.to_le_bytes()));
    assert!(t.contains("particle-data size") && t.contains("offset 72") && t.contains(" 5,"), "{t}");
    let t = text(&patched(&ext, 4, &[0; 4]));
    assert!(t.contains("CRC") && t.contains("offset 4"), "{t}");
}
