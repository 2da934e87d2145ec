//! Time-boxed exploration of the scene parser on stable Rust, from the shipped scenes
//! (`scenes/*.toml`): mutants (hostile numbers, duplicated and deleted lines, byte edits) must
//! never panic the parser or the mesh builder, and an accepted scene holds only finite
//! coordinates within `MAX_COORD_M` and a camera that looks somewhere.
//! `EXPLORE_SECONDS=600 cargo test -p render --test explore_scenes` runs longer (see the
//! `explore` crate).

use std::path::{Path, PathBuf};

use explore::{explore, Budget, Mode, Verdict};
use render::scene::{mesh_for, parse, Scene, MAX_COORD_M};

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes")
}

fn seeds() -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenes_dir())
        .expect("scenes folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files.iter().map(|p| std::fs::read(p).expect("scene")).collect()
}

fn in_range(v: glam::Vec3) -> bool {
    v.is_finite() && v.abs().max_element() <= MAX_COORD_M
}

fn check_scene(scene: &Scene) -> Result<(), String> {
    let cameras = std::iter::once((scene.camera.position, scene.camera.target))
        .chain(scene.camera_path.iter().map(|k| (k.position, k.target)));
    for (position, target) in cameras {
        if !in_range(position) || !in_range(target) || position == target {
            return Err(format!("camera {position} -> {target} accepted"));
        }
    }
    for o in &scene.objects {
        if !in_range(o.transform.position) {
            return Err(format!("object at {} accepted", o.transform.position));
        }
        let mesh = mesh_for(&o.shape);
        let finite = mesh.positions.iter().chain(&mesh.normals).flatten().all(|x| x.is_finite());
        let indexed = mesh.indices.iter().all(|&i| (i as usize) < mesh.positions.len());
        if !finite || !indexed {
            return Err(format!("non-finite or mis-indexed mesh for object {:?}", o.name));
        }
    }
    Ok(())
}

fn check(bytes: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(bytes) else { return Ok(false) };
    // Relative texture paths resolve against this (real) folder, so the seeds' textures exist.
    match parse(text, &scenes_dir().join("mutant.toml")) {
        Ok(scene) => check_scene(&scene).map(|()| true),
        Err(_) => Ok(false),
    }
}

#[test]
fn mutated_scenes_never_panic_and_accepted_ones_are_in_range() {
    let seeds = seeds();
    let summary = explore("scenes", &seeds, Mode::Text, Budget::from_env(), check);
    println!("{summary:?}");
    assert!(summary.accepted >= seeds.len() as u64, "the shipped scenes were refused: {summary:?}");
}
