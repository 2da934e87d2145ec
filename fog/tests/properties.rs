//! Properties over arbitrary descriptors (they come from outside: any bit pattern may arrive):
//! classification never panics, the score and weights stay in range, unreadable numbers never
//! convert, and the hysteresis weight never jumps.

use fog::classify::{classify, one_shot_weight, Classifier, SystemContext, TextureVerdict};
use glam::{Vec2, Vec3, Vec4};
use particles::types::{PartSysData, Uuid};
use proptest::prelude::*;
use settings::Settings;

fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -20.0f32..20.0,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => any::<f32>(),
    ]
}

fn any_system() -> impl Strategy<Value = PartSysData> {
    (
        (any::<u8>(), any::<u8>(), any::<u32>(), any::<u8>(), any::<u8>()),
        proptest::collection::vec(any_f32(), 26),
    )
        .prop_map(|((pattern, count, flags, src, dst), f)| {
            let mut s = PartSysData {
                pattern,
                burst_part_count: count,
                max_age: f[0],
                start_age: f[1],
                inner_angle: f[2],
                outer_angle: f[3],
                burst_rate: f[4],
                burst_radius: f[5],
                burst_speed_min: f[6],
                burst_speed_max: f[7],
                angular_velocity: Vec3::new(f[8], f[9], f[10]),
                part_accel: Vec3::new(f[11], f[12], f[13]),
                part_image_id: Uuid([7; 16]),
                ..Default::default()
            };
            s.part.flags = particles::PartFlags(flags);
            s.part.max_age = f[14];
            s.part.start_color = Vec4::new(f[15], f[16], f[17], f[18]);
            s.part.end_color = Vec4::new(0.5, 0.5, 0.5, f[19]);
            s.part.start_scale = Vec2::new(f[20], f[21]);
            s.part.end_scale = Vec2::new(f[22], f[23]);
            s.part.start_glow = f[24];
            s.part.end_glow = f[25];
            s.part.blend_func_source = src;
            s.part.blend_func_dest = dst;
            s
        })
}

fn soft() -> SystemContext {
    let texture = TextureVerdict {
        softness: 0.9,
        shape_is_soft: true,
        mean_alpha: 0.3,
        is_default_texture: false,
        rotationally_symmetric: true,
    };
    SystemContext { texture: Some(texture), ..Default::default() }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn scores_and_weights_stay_in_range(sys in any_system()) {
        let settings = Settings { particle_fog: true, ..Settings::default() };
        let a = classify(&sys, &soft(), &settings);
        prop_assert!((0.0..=1.0).contains(&a.score), "score {}", a.score);
        prop_assert!(a.emission.is_finite() && a.emission >= 0.0);
        let w = one_shot_weight(&a, &settings);
        prop_assert!((0.0..=1.0).contains(&w));
        for (name, v) in a.factors.named() {
            prop_assert!((0.0..=1.0).contains(&v), "{} = {}", name, v);
        }
    }

    #[test]
    fn unreadable_numbers_never_convert(sys in any_system(), which in 0usize..4) {
        let mut sys = sys;
        match which {
            0 => sys.burst_speed_max = f32::NAN,
            1 => sys.part.max_age = f32::INFINITY,
            2 => sys.part.start_scale.x = f32::NAN,
            _ => sys.part.start_glow = f32::NAN,
        }
        if which == 0 {
            sys.pattern = particles::types::pattern::EXPLODE;
        }
        let settings = Settings { particle_fog: true, ..Settings::default() };
        let a = classify(&sys, &soft(), &settings);
        prop_assert!(!a.exclusions.is_empty(), "{:?}", a);
    }

    #[test]
    fn weights_never_jump(systems in proptest::collection::vec(any_system(), 1..6), dts in proptest::collection::vec(0.0f32..0.2, 1..40)) {
        let settings = Settings { particle_fog: true, ..Settings::default() };
        let mut c = Classifier::new();
        let mut last = vec![0.0f32; systems.len()];
        for (frame, dt) in dts.iter().enumerate() {
            let i = frame % systems.len();
            c.upsert(i, &systems[(frame / 3) % systems.len()], soft());
            c.update(&settings, 1, *dt);
            for (id, w) in last.iter_mut().enumerate() {
                let now = c.weight(&id);
                prop_assert!((0.0..=1.0).contains(&now));
                prop_assert!((now - *w).abs() <= dt + 1e-6, "jump {} with dt {}", now - *w, dt);
                *w = now;
            }
        }
    }
}
