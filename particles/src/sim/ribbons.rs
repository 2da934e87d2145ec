//! Ribbon links (made at creation in `llviewerpartsource.cpp`, mended by the `LLViewerPart`
//! destructor in `llviewerpartsim.cpp`, drawn by `llvopartgroup.cpp`).
//!
//! A new RIBBON particle of a source that remembers a previous particle becomes that particle's
//! *parent* (the previous one is its *child*) and takes as its axis the emitter's local +Z in
//! region axes (`Q * (0,0,1)`). The very first ribbon particle of a source, or the first after
//! the remembered one died, keeps a zero axis. Every new particle becomes the source's "last
//! particle". When a particle dies its neighbours are spliced together (`parent.child = child`,
//! `child.parent = parent`) and the source forgets it if it was the last particle, as the
//! viewer's destructor does.

use glam::Vec3;

use super::emit::SourceState;
use super::Particle;
use crate::types::PartFlags;

/// Links a freshly created particle `p` (not yet stored) behind the source's last particle.
pub(crate) fn link_new(src: &mut SourceState, p: &mut Particle) {
    if p.flags.contains(PartFlags::RIBBON) {
        if let Some(prev) = src.last_part.and_then(|s| index_of(&src.particles, s)) {
            src.particles[prev].parent = Some(p.serial);
            p.child = Some(src.particles[prev].serial);
            p.axis = src.rot * Vec3::Z;
        }
    }
    src.last_part = Some(p.serial);
}

/// Splices every particle whose flags word is exactly DEAD out of its ribbon, then removes the
/// dead particles. Returns how many were removed.
pub(crate) fn remove_dead(src: &mut SourceState) -> u32 {
    let dead: Vec<usize> = (0..src.particles.len()).filter(|&i| is_dead(&src.particles[i])).collect();
    if dead.is_empty() {
        return 0;
    }
    for &i in &dead {
        let (serial, parent, child) = {
            let p = &src.particles[i];
            (p.serial, p.parent, p.child)
        };
        if let Some(j) = parent.and_then(|s| index_of(&src.particles, s)) {
            src.particles[j].child = child;
        }
        if let Some(j) = child.and_then(|s| index_of(&src.particles, s)) {
            src.particles[j].parent = parent;
        }
        if src.last_part == Some(serial) {
            src.last_part = None;
        }
    }
    src.particles.retain(|p| !is_dead(p));
    dead.len() as u32
}

/// The viewer marks a particle for deletion by overwriting its whole flags word with DEAD.
pub(crate) fn is_dead(p: &Particle) -> bool {
    p.flags.0 == PartFlags::DEAD
}

/// Index of the particle with `serial` (particles are kept in ascending serial order).
fn index_of(particles: &[Particle], serial: u32) -> Option<usize> {
    particles.binary_search_by_key(&serial, |p| p.serial).ok()
}
