"""The ``viz`` section of ``robodyn bench``: the 3-D viewer's pages in headless Chromium.

For the bundled Panda (stick figure) and Talos (example-robot-data, 45 bodies, 53 STL
meshes): the time to build the page in Python, its size, and the load-to-first-frame time
(navigation start to the first drawn frame, median of 3 loads). For Talos playing a
10,000-sample trajectory: the same, and the frames drawn per second while it plays at
1x for 3 s (``--quick``: the Panda, standing and playing 1,000 samples for 1 s), and the
median time to draw one frame (21 frames drawn at once, waiting for the rasteriser).
Headless Chromium draws with its software WebGL (SwiftShader) here, so frames per second
are a floor for a machine with a GPU.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

from . import robots
from .common import _row

__all__ = ["run_viz"]


def _wave(q0, n: int, first: int) -> tuple[np.ndarray, np.ndarray]:
    """A trajectory of n samples over 20 s: every joint from ``first`` on swinging."""
    t = np.linspace(0.0, 20.0, n)
    Q = np.tile(q0, (n, 1))
    Q[:, first:] += 0.4 * np.sin(np.outer(t, np.linspace(0.5, 2.0, len(q0) - first)))
    return t, Q


def _pages(cfg):
    """(name, model, view kwargs) of the measured pages, and why Talos is absent (or None).
    ``--quick``: the bundled Panda only, standing and playing 1,000 samples."""
    from .. import models
    from ..errors import ModelWarning
    from ..model.configuration import neutral
    from ..model.urdf import load_urdf

    panda = models.load("panda")
    if cfg.quick:
        return [("panda", panda, {}), ("panda 1k", panda, {"trajectory": _wave(
            neutral(panda), 1000, 0)})], None  # fmt: skip
    out = [("panda", panda, {})]
    d = robots.erd_dir()  # read where it lives: a test patches it there
    if d is None:
        return out, "talos: example-robot-data is not installed"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        talos = load_urdf(os.path.join(d, robots._ERD_FILES["talos"]), floating_base=True,
                          invalid_inertia="keep")  # fmt: skip
    q = neutral(talos)
    q[2] = 1.08  # standing on the ground
    out.append(("talos", talos, {"q": q}))
    out.append(("talos 10k", talos, {"trajectory": _wave(q, 10_000, 7)}))
    return out, None


def _load_ms(ctx, url: str) -> float:
    page = ctx.new_page()
    try:
        page.goto(url)
        page.wait_for_function("window.robodyn && window.robodyn.ready", timeout=120_000)
        return float(page.evaluate("robodyn.firstFrameMs"))
    finally:
        page.close()


_FPS_JS = """async (ms) => {
  robodyn.setFrame(0);
  const r0 = robodyn.renders, f0 = robodyn.frame, t0 = performance.now();
  robodyn.play();
  await new Promise(r => setTimeout(r, ms));
  const n = robodyn.renders - r0, dt = performance.now() - t0, f = robodyn.frame;
  robodyn.pause();
  return [n / dt * 1000, f - f0];
}"""


_RENDER_JS = """() => {
  const out = [], F = robodyn.frameCount;
  for (let i = 0; i < 21; i++) {
    robodyn.setFrame(Math.floor(i * (F - 1) / 20));
    out.push(robodyn.renderNow());
  }
  out.sort((a, b) => a - b);
  return out[10];
}"""


def run_viz(cfg, prog) -> list[dict]:
    """Rows of the viz section (page size, load to first frame, frames per second)."""
    import tempfile
    from pathlib import Path

    from ..viz import show
    from ..viz.browser import headless_chromium

    pages, why = _pages(cfg)
    rows: list[dict] = []
    play_ms = 1000 if cfg.quick else 3000
    with tempfile.TemporaryDirectory() as tmp:
        built = []
        for name, model, kw in pages:
            prog.show(f"viz: {name} page")
            t0 = time.perf_counter()
            view = show(model, **kw)
            build_s = time.perf_counter() - t0
            path = view.save(Path(tmp) / f"{name.replace(' ', '_')}.html")
            built.append((name, view, path, build_s))
        try:
            with headless_chromium(1280, 720) as ctx:
                for name, view, path, build_s in built:
                    prog.show(f"viz: {name} in Chromium")
                    loads = [_load_ms(ctx, path.resolve().as_uri()) for _ in range(3)]
                    r = _row("viz", name, "page", "robodyn",
                             call=f"rd.viz.show: {len(view.scene.t)} frames, "
                                  f"{len(view.scene.meshes)} meshes",
                             median_s=float(np.median(loads)) / 1000, build_s=build_s,
                             size_mb=len(view.html.encode()) / 1e6, fps=None)  # fmt: skip
                    if len(view.scene.t) > 1:
                        page = ctx.new_page()
                        page.goto(path.resolve().as_uri())
                        page.wait_for_function("window.robodyn && window.robodyn.ready")
                        fps, advanced = page.evaluate(_FPS_JS, play_ms)
                        render_ms = page.evaluate(_RENDER_JS)
                        page.close()
                        r["fps"], r["frames_advanced"] = float(fps), int(advanced)
                        r["render_ms"] = float(render_ms)
                    rows.append(r)
                    prog.step()
        except RuntimeError as exc:  # no Chromium or no Playwright: one line, no timings
            for name, view, _, build_s in built:
                rows.append(_row("viz", name, "page", "robodyn", status=f"skipped: {exc}",
                                 build_s=build_s, size_mb=len(view.html.encode()) / 1e6,
                                 fps=None))  # fmt: skip
    if why:
        rows.append(_row("viz", "talos", "page", "robodyn", status=f"skipped: {why}"))
    return rows


def viz_lines(rows: list[dict]) -> list[str]:
    """The report's lines for the viz rows."""
    out = []
    for r in rows:
        if r["status"] != "ok":
            out.append(f"{r['model']:<10} {r['status']}")
            continue
        fps = ""
        if r.get("fps") is not None:
            fps = f", playing {r['fps']:.1f} frames/s ({r['render_ms']:.0f} ms to draw a frame)"
        out.append(
            f"{r['model']:<10} {r['size_mb']:6.2f} MB, built in {r['build_s']:.2f} s, first "
            f"frame {1000 * r['median_s']:.0f} ms after navigation{fps}  ({r['call']})"
        )
    return out
