#!/usr/bin/env python3
"""Renders a scene written by `particle-fog render --export-mitsuba DIR` with Mitsuba 3 and
compares it with the renderer's own radiance (`<scene>_hdr.exr`) over the opaque surfaces.

    python3 tools/mitsuba_compare.py DIR SCENE [--spp N] [--max-depth D] [--fog] [--block N]
        [--size WxH] [--out FILE.json]

The host's ambient and emission (the meshes' `host_terms_<n>` area emitters) do not light other
surfaces in the host renderer, so they are rendered at max_depth 1 (seen directly), each light
(`sun`, `light_<n>`) alone at the depth asked, and the renders added (render/src/mitsuba/mod.rs
says why). The host fades each local light to 0 at its range (`(1 - (d / range)^4)^2`, d the
distance from the light), which Mitsuba's emitters cannot: each local light's render is multiplied
by that window at the surface each pixel sees (the `position` AOV; the light's position and range
come from the `range_window` comment the export writes before its emitter). That is exact for
direct light on opaque surfaces (`max_depth` 2), the comparison this script makes.
The surfaces compared are the pixels whose every sample hits the same object (from Mitsuba's
`shape_index` and `depth` AOVs): a silhouette pixel mixes two surfaces in Mitsuba, which averages
its area, but not in the host, which takes its centre.

Prints one JSON object: the relative RMSE over the surfaces (sqrt(sum (h - m)^2 / sum m^2) over
pixels and channels, Mitsuba's the reference), the pixels compared, and the noise: the same
measure between two Mitsuba renders of different seeds, divided by 2 (the noise of their mean, the
image compared).
With `--block N` both are compared as sums over N x N pixels of the pixels compared, which
divides Mitsuba's noise by N (and averages the host's per-ray jitter). Writes
`<scene>_mitsuba.exr` (Mitsuba's image) beside the inputs.

With `--fog`, the particle fog's light instead: the scene's surfaces made black (they still
occlude and shadow) and its host terms removed, each light rendered alone through the medium at
the depth asked (2: single scattering), against the radiance the frame adds in front of its
surfaces (`<scene>_fog.exr`, R, G, B) over the pixels where the particle fog's transmittance
(its A) is below 0.98. The range window is not applied inside the medium: compare scenes whose
local lights reach well past the cloud, or none (the sun alone).
Exit status 3 when Mitsuba is missing, with the command that installs it.
"""
import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

INSTALL = "python3 -m pip install --user mitsuba numpy"


def emitter_ids(path):
    """The ids of the scene's lights (every emitter but the host terms)."""
    root = ET.parse(path).getroot()
    return [e.get("id", "") for e in root.iter("emitter") if not e.get("id", "").startswith("host_terms_")]


def range_windows(path):
    """Each local light's position and range, by emitter id, from the export's comments."""
    with open(path) as f:
        text = f.read()
    pattern = r'<!-- range_window (\S+) position="([^"]+)" range_m="([^"]+)" -->'
    return {
        light: ([float(v) for v in position.split(",")], float(range_m))
        for light, position, range_m in re.findall(pattern, text)
    }


def window(positions, light):
    """The host's range window of `light` (position, range) at each pixel's surface point."""
    import numpy as np

    (centre, range_m) = light
    d = np.linalg.norm(positions - np.array(centre), axis=-1)
    w = np.clip(1.0 - (d / range_m) ** 4, 0.0, 1.0)
    return (w * w)[:, :, None]


def resized(root, size):
    """Sets the film of `root` to `size` (width, height) when given."""
    if size:
        for film in root.iter("film"):
            for item in film.iter("integer"):
                if item.get("name") in ("width", "height"):
                    item.set("value", str(size[0] if item.get("name") == "width" else size[1]))
    return root


SIZE = None


def variant_xml(path, keep):
    """The scene's XML with only the emitters `keep(id)` accepts."""
    tree = ET.parse(path)
    root = resized(tree.getroot(), SIZE)
    for parent in root.iter():
        for child in list(parent):
            if child.tag == "emitter" and not keep(child.get("id", "")):
                parent.remove(child)
    return ET.tostring(root, encoding="unicode")


def fog_only(text):
    """`text` with every surface black: what a render of it shows is the medium's light."""
    root = ET.fromstring(text)
    for rgb in root.iter("rgb"):
        if rgb.get("name") == "reflectance":
            rgb.set("value", "0, 0, 0")
    return ET.tostring(root, encoding="unicode")


def render(mi, text, base, spp, depth, seed):
    import os
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".xml", dir=base, delete=False) as f:
        f.write(text)
        name = f.name
    try:
        scene = mi.load_file(name, spp=str(spp), max_depth=str(depth))
    finally:
        os.unlink(name)
    import numpy as np

    return np.array(mi.render(scene, seed=seed, spp=spp), dtype=np.float64)[:, :, :3]


def surface_mask(mi, path, base, spp):
    """Pixels whose samples all hit one object (shape_index and depth AOVs, box filter), and the
    surface point each pixel sees (position AOV)."""
    import numpy as np
    import os
    import tempfile

    root = resized(ET.parse(path).getroot(), SIZE)
    for child in list(root):
        if child.tag in ("integrator", "medium") or child.get("id") == "particle_fog_bounds":
            root.remove(child)
    for sensor in root.iter("sensor"):
        for ref in list(sensor):
            if ref.tag == "ref":
                sensor.remove(ref)
    aov = ET.SubElement(root, "integrator", {"type": "aov"})
    ET.SubElement(aov, "string", {"name": "aovs", "value": "si:shape_index,dd:depth,pp:position"})
    with tempfile.NamedTemporaryFile("w", suffix=".xml", dir=base, delete=False) as f:
        f.write(ET.tostring(root, encoding="unicode"))
        name = f.name
    try:
        scene = mi.load_file(name, spp=str(spp))
        img = np.array(mi.render(scene, spp=spp), dtype=np.float64)
    finally:
        os.unlink(name)
    index, depth, positions = img[:, :, -5], img[:, :, -4], img[:, :, -3:]
    # Every sample of the pixel on one shape: the box-filtered index is a whole number, and so
    # is it for a second, odd-weighted pass (index + 1): both agree only without mixing.
    hit = depth > 0
    whole = np.abs(index - np.round(index)) < 1e-4
    h, w = index.shape
    same = np.ones_like(hit)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            shifted = np.full_like(index, -1.0)
            ys = slice(max(dy, 0), h + min(dy, 0))
            yd = slice(max(-dy, 0), h + min(-dy, 0))
            xs = slice(max(dx, 0), w + min(dx, 0))
            xd = slice(max(-dx, 0), w + min(-dx, 0))
            shifted[yd, xd] = index[ys, xs]
            same &= np.abs(shifted - index) < 1e-4
    return hit & whole & same, positions


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("scene")
    ap.add_argument("--spp", type=int, default=64)
    ap.add_argument("--max-depth", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--fog", action="store_true", help="the particle fog's light (see above)")
    ap.add_argument(
        "--block",
        type=int,
        default=1,
        help="N: compare sums over N x N pixels of the pixels compared (Mitsuba's noise falls N times)",
    )
    ap.add_argument(
        "--size",
        help="WxH: render Mitsuba at this size and average the host's frame down to it (its size a "
        "whole multiple): the host takes each pixel's centre, Mitsuba its area",
    )
    a = ap.parse_args()
    global SIZE
    if a.size:
        SIZE = tuple(int(v) for v in a.size.lower().split("x"))
    try:
        import mitsuba as mi
        import numpy as np
    except ImportError:
        print(f"Mitsuba 3 is missing: install it with\n    {INSTALL}", file=sys.stderr)
        return 3
    import os

    mi.set_variant("scalar_rgb")
    xml_path = os.path.join(a.dir, a.scene + ".xml")
    # One render per light: Mitsuba's next-event estimation picks one emitter per sample, which
    # is noise the comparison does not need; alone, a delta light is sampled every time.
    lights = emitter_ids(xml_path)
    passes = [(variant_xml(xml_path, lambda i, light=light: i == light), a.max_depth) for light in lights]
    if a.fog:
        passes = [(fog_only(text), depth) for text, depth in passes]
        weights = [1.0] * len(passes)
    else:
        passes.append((variant_xml(xml_path, lambda i: i.startswith("host_terms_")), 1))
        mask, positions = surface_mask(mi, xml_path, a.dir, 16)
        windows = range_windows(xml_path)
        weights = [window(positions, windows[light]) if light in windows else 1.0 for light in lights] + [1.0]
    images = []
    for seed in (0, 1):
        renders = (render(mi, text, a.dir, a.spp, depth, seed) for text, depth in passes)
        images.append(sum(w * img for w, img in zip(weights, renders)))
    host_file = a.scene + ("_fog.exr" if a.fog else "_hdr.exr")
    host = np.array(mi.Bitmap(os.path.join(a.dir, host_file)), dtype=np.float64)
    channels = host.shape[2]
    if SIZE:
        k = host.shape[1] // SIZE[0]
        if host.shape[1] != k * SIZE[0] or host.shape[0] != k * SIZE[1]:
            print(f"the host's frame {host.shape[1]}x{host.shape[0]} is no multiple of {a.size}", file=sys.stderr)
            return 2
        host = host.reshape(SIZE[1], k, SIZE[0], k, channels).mean(axis=(1, 3))
    if a.fog:
        mask = host[:, :, 3] < 0.98
    host = host[:, :, :3]
    mit = 0.5 * (images[0] + images[1])
    mi.Bitmap(mit.astype(np.float32)).write(os.path.join(a.dir, a.scene + "_mitsuba.exr"))

    def blocks(x):
        # Sums over a.block x a.block pixels of the compared pixels (1: the pixels themselves).
        x = np.where(mask[:, :, None], x, 0.0)
        b = a.block
        h, w = x.shape[0] // b * b, x.shape[1] // b * b
        return x[:h, :w].reshape(h // b, b, w // b, b, x.shape[2]).sum(axis=(1, 3))

    def rel(x, y):
        d = blocks(x) - blocks(y)
        return float(np.sqrt(np.sum(d * d) / max(np.sum(blocks(y) ** 2), 1e-30)))

    # The mean of two renders has half the variance of one: its noise is the seed-to-seed
    # difference's over 2.
    result = {
        "scene": a.scene,
        "spp": 2 * a.spp,
        "max_depth": a.max_depth,
        "pixels": int(mask.sum()),
        "block": a.block,
        "rel_rmse": rel(host, mit),
        "noise": rel(images[0], images[1]) / 2.0,
        "mean_host": float(host[mask].mean()) if mask.any() else 0.0,
        "mean_mitsuba": float(mit[mask].mean()) if mask.any() else 0.0,
    }
    text = json.dumps(result)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
