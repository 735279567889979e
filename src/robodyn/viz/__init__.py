"""See the robot: a 3-D viewer in one self-contained HTML page.

``rd.viz.show(model, q=None, trajectory=None, frames=True, com=False, out=None)`` returns a
:class:`View`; in Jupyter it displays inline, ``out=path`` writes the page. The page
carries three.js (vendored, MIT), the viewer script and the scene: it works offline and
fetches nothing. Body poses for every frame are computed here with
:func:`robodyn.body_poses` (one batched call); the page only draws them.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from ..model.model import Model
from .page import page_html
from .scene import MAX_FRAMES, Scene, as_trajectory, build_scene, resolve_mesh

__all__ = ["show", "View", "Scene", "build_scene", "resolve_mesh", "MAX_FRAMES"]


class View:
    """A rendered page: ``.html`` (the whole document), ``.save(path)``, ``_repr_html_``.

    Attributes
    ----------
    html : str
        The self-contained HTML document.
    scene : Scene
        What it shows (shapes, poses, missing meshes, notes).
    path : pathlib.Path or None
        Where :func:`show` wrote it (``out=``).
    """

    def __init__(self, html_text: str, scene: Scene, path: Path | None = None):
        self.html = html_text
        self.scene = scene
        self.path = path

    @property
    def missing(self) -> list[str]:
        """Visuals that could not be drawn (missing or unreadable meshes), and why."""
        return list(self.scene.missing)

    @property
    def notes(self) -> list[str]:
        """What the page adapted (a decimated trajectory)."""
        return list(self.scene.notes)

    def save(self, path) -> Path:
        """Write the page to ``path`` (UTF-8) and return the path."""
        p = Path(path)
        p.write_text(self.html, encoding="utf-8")
        self.path = p
        return p

    def open(self) -> None:
        """Open the written page in the default web browser (:meth:`save` first)."""
        import webbrowser

        if self.path is None:
            raise ValueError("save the page first (show(..., out=path) or View.save(path))")
        webbrowser.open(self.path.resolve().as_uri())

    def _repr_html_(self) -> str:
        # an iframe keeps the page's script and ids apart from the notebook's
        return (
            '<iframe style="width:100%;height:520px;border:1px solid #ddd" '
            f'srcdoc="{html.escape(self.html, quote=True)}"></iframe>'
        )

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path else ""
        return (
            f"View({self.scene.model_name!r}, frames={len(self.scene.t)}, "
            f"{len(self.html) / 1e6:.2f} MB, missing={len(self.scene.missing)}{where})"
        )


def show(
    model: Model,
    q=None,
    trajectory=None,
    frames: bool = True,
    com: bool = False,
    out=None,
    *,
    inertia: bool = False,
    visuals: bool = True,
    markers=None,
    search_path=(),
    max_frames: int = MAX_FRAMES,
) -> View:
    """A 3-D view of ``model`` at ``q``, or playing ``trajectory``, as one HTML page.

    Parameters
    ----------
    model : Model
        Any robodyn model; a URDF model draws its ``<visual>`` geometry (boxes, cylinders,
        spheres, STL/OBJ/DAE meshes read with trimesh) with its colours, other bodies a
        stick figure from joint to joint.
    q : array_like, shape (nq,), optional
        The configuration shown (default: neutral).
    trajectory : Trajectory or (t, q) pair, optional
        Samples to play: ``t`` (K,) in s, ``q`` (K, nq). The page has play/pause, a time
        slider, a speed control and a readout of t and q.
    frames : bool
        Draw a triad (x red, y green, z blue) at each body frame and marked frame.
    com : bool
        Draw each body's centre of mass as a ball whose volume is proportional to its mass.
    out : path-like, optional
        Write the page there.
    inertia : bool
        Draw each body's equivalent inertia ellipsoid on its principal axes.
    visuals : bool
        False: the stick figure only.
    markers : sequence of str, optional
        Frames marked with a magenta ball (default: the end-effector frame(s)).
    search_path : sequence of path-like
        Folders where ``package://`` and relative mesh names are looked up (before
        ``$ROS_PACKAGE_PATH`` and the URDF's folder and its parents). Nothing is fetched.
    max_frames : int
        Frame budget: a longer trajectory is decimated evenly, and the page says so.

    Returns
    -------
    View
        ``.html``, ``.save(path)``, ``.missing`` (meshes not drawn), ``.notes``;
        displays inline in Jupyter.

    Raises
    ------
    ValueError
        q or a trajectory of the wrong width (naming both sizes), non-finite values.
    """
    if not isinstance(model, Model):
        raise TypeError(f"model must be a robodyn Model, got {type(model).__name__}")
    if isinstance(search_path, (str, os.PathLike)):
        search_path = [search_path]
    t, Q = as_trajectory(model, q, trajectory)
    scene = build_scene(
        model,
        t,
        Q,
        frames=frames,
        com=com,
        inertia=inertia,
        visuals=visuals,
        markers=markers,
        search_path=search_path,
        max_frames=max_frames,
    )
    view = View(page_html(scene), scene)
    if out is not None:
        view.save(out)
    return view
