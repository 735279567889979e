"""See the robot: a 3-D viewer in one self-contained HTML page.

``rd.viz.show(model, q=None, trajectory=None, frames=True, com=False, out=None)`` returns a
:class:`View`; in Jupyter it displays inline, ``out=path`` writes the page. The page
carries three.js (vendored, MIT), the viewer script and the scene: it works offline and
fetches nothing. Body poses for every frame are computed here with
:func:`robodyn.body_poses` (one batched call); the page only draws them.

Mesh files are read only from the allowed roots (``search_path=``, ``$ROS_PACKAGE_PATH``,
the URDF's folder and its ROS package) unless ``allow_outside=True``, and within a triangle
budget (``max_triangles=``): see :mod:`robodyn.viz.meshes`.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from .._files import atomic_write, output_path
from ..model.model import Model
from .meshes import MAX_TRIANGLES, mesh_roots, resolve_mesh
from .page import page_html
from .scene import MAX_FRAMES, Scene, as_trajectory, build_scene, check_max_triangles

__all__ = [
    "show",
    "View",
    "Scene",
    "build_scene",
    "resolve_mesh",
    "mesh_roots",
    "MAX_FRAMES",
    "MAX_TRIANGLES",
]


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
        """Visuals that could not be drawn, and why: the mesh named as the URDF writes it,
        then "not found", "could not be read", "outside the allowed roots" or "left out"
        (over the budget); never a resolved path."""
        return list(self.scene.missing)

    @property
    def notes(self) -> list[str]:
        """What the page adapted (a decimated trajectory, meshes reduced to the triangle
        budget, references of a mesh that were not read)."""
        return list(self.scene.notes)

    def save(self, path, *, overwrite: bool = False) -> Path:
        """Write the page to ``path`` (UTF-8, atomically) and return the path.

        Raises
        ------
        FileExistsError
            ``path`` exists and ``overwrite`` is False.
        ValueError
            Its folder is missing or not writable, or it is a folder.
        """
        p = output_path(path, overwrite=overwrite, name="path")
        with atomic_write(p) as tmp:
            tmp.write_text(self.html, encoding="utf-8")
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
    allow_outside: bool = False,
    max_triangles: int = MAX_TRIANGLES,
    overwrite: bool = False,
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
        Write the page there (checked before any work; an existing file only with
        ``overwrite=True``).
    inertia : bool
        Draw each body's equivalent inertia ellipsoid on its principal axes.
    visuals : bool
        False: the stick figure only.
    markers : sequence of str, optional
        Frames marked with a magenta ball (default: the end-effector frame(s)).
    search_path : sequence of path-like
        Folders where ``package://`` and relative mesh names are looked up (before
        ``$ROS_PACKAGE_PATH``, the URDF's folder and its ROS package). These are the only
        folders mesh files are read from: a name leading elsewhere (an absolute path,
        ``file:///...``, ``../`` climbing out, a symbolic link pointing out) is not drawn
        and the page says "outside the allowed roots". A mesh's own references (glTF
        buffers, OBJ ``mtllib``) are read only from its own folder. Nothing is fetched.
    max_frames : int
        Frame budget: a longer trajectory is decimated evenly, and the page says so.
    allow_outside : bool
        Read mesh files (and their references) outside those folders too: for a URDF you
        trust.
    max_triangles : int
        Triangle budget of the page, every drawn instance of a mesh counted (default
        1,500,000: every example-robot-data robot fits; the most, B1 with its Z1 arm,
        draws 1,024,351). Above it each mesh is reduced by vertex clustering to its share
        and the page's notes say which. A mesh estimated above ``max(2,000,000,
        max_triangles)`` triangles (a binary STL's header, a DAE's or glTF's instances
        counted on the file, nothing built) or a file above 128 bytes per triangle of that
        is left out unread, and the page says so. Measured on 2 cores without a GPU: a page
        of 1,500,000 triangles of a rough surface weighs 27 MB, takes 4 s to make (0.8 GB
        peak) and is ready in headless Chromium in 2.4 s, which then draws a frame in
        0.8 s (software rendering); a 100 MB binary STL (2,000,000 triangles) takes 7.5 s
        and 1.1 GB, reduced to 1,262,951 triangles in a 20 MB page (35 MB and 1.7 GB
        before the budget).
    overwrite : bool
        Replace an existing ``out``.

    Returns
    -------
    View
        ``.html``, ``.save(path)``, ``.missing`` (meshes not drawn), ``.notes``;
        displays inline in Jupyter.

    Raises
    ------
    ValueError
        q or a trajectory of the wrong width (naming both sizes), non-finite values, a
        ``max_triangles`` that is not a positive integer, an ``out`` that cannot be written.
    FileExistsError
        ``out`` exists and ``overwrite`` is False (checked before any work).
    """
    if not isinstance(model, Model):
        raise TypeError(f"model must be a robodyn Model, got {type(model).__name__}")
    if isinstance(search_path, (str, os.PathLike)):
        search_path = [search_path]
    check_max_triangles(max_triangles)
    if out is not None:
        out = output_path(out, overwrite=overwrite, name="out")
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
        allow_outside=allow_outside,
        max_triangles=max_triangles,
    )
    view = View(page_html(scene), scene)
    if out is not None:
        view.save(out, overwrite=overwrite)  # checked above too, before any work
    return view
