"""One self-contained HTML page from a :class:`~robodyn.viz.scene.Scene`.

The page holds everything: the vendored three.js bundle (``vendor/three.viz.min.js``),
the viewer script (``viewer.js``) and the scene as JSON with its arrays base64-encoded.
It loads nothing at view time (no network, no other file).
"""

from __future__ import annotations

import base64
import html
import json
import zlib
from functools import cache
from importlib import resources

import numpy as np

from .scene import Scene

__all__ = ["page_html", "scene_json"]


@cache
def _asset(name: str) -> str:
    return resources.files("robodyn.viz").joinpath(name).read_text("utf-8")


def _b64(a: np.ndarray, dtype) -> str:
    """The array's little-endian bytes, byte-shuffled (every element's first byte, then every
    second byte, ...), deflated (zlib) and base64-encoded; the page undoes it with the
    browser's DecompressionStream. Shuffled smooth samples deflate to about half."""
    a = np.ascontiguousarray(a, dtype=dtype)
    planes = np.frombuffer(a.tobytes(), np.uint8).reshape(-1, a.dtype.itemsize).T
    return base64.b64encode(zlib.compress(planes.tobytes(), 6)).decode("ascii")


def scene_json(scene: Scene) -> str:
    """The scene as JSON (arrays as little-endian base64), safe inside a ``<script>``."""
    meshes = [
        {
            "name": m["name"],
            "positions": _b64(m["positions"], "<f4"),
            "indices": _b64(m["indices"], "<u4"),
            "colors": None if m["colors"] is None else _b64(m["colors"], "u1"),
        }
        for m in scene.meshes
    ]
    data = {
        "title": scene.model_name,
        "bodyNames": scene.body_names,
        "jointNames": scene.joint_names,
        "nq": scene.nq,
        "qLabels": scene.q_labels,
        "frameCount": len(scene.t),
        "samples": scene.samples,
        "t": _b64(scene.t, "<f8"),
        "q": _b64(scene.q, "<f4"),  # the readout prints 4 decimals
        # channel-major (nb * 7, F): each coordinate's time series is contiguous
        "poses": _b64(scene.poses.reshape(len(scene.t), -1).T, "<f4"),
        "shapes": scene.shapes,
        "meshes": meshes,
        "markers": scene.markers,
        "missing": scene.missing,
        "notes": scene.notes,
        "center": [float(x) for x in scene.center],
        "radius": float(scene.radius),
    }
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def page_html(scene: Scene) -> str:
    """The page: a full HTML document with the viewer, three.js and the scene inside.

    Parameters
    ----------
    scene : Scene
        What to show (:func:`robodyn.viz.scene.build_scene`).

    Returns
    -------
    str
        The HTML text: one file that needs no network (the scripts and the scene inline).
    """
    title = html.escape(f"{scene.model_name} - robodyn viewer")
    return (
        _asset("page.html")
        .replace("{{title}}", title)
        .replace("{{three}}", _asset("vendor/three.viz.min.js"))
        .replace("{{viewer}}", _asset("viewer.js"))
        .replace("{{scene}}", scene_json(scene))
    )
