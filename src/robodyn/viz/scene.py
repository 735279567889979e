"""The scene the 3-D viewer draws, computed in Python: shapes fixed to bodies, and body poses.

Every shape (a URDF ``<visual>``, a stick of the fallback figure, a frame triad, a CoM
sphere, an inertia ellipsoid, an end-effector marker) is fixed to one body ``i`` with a
constant placement ``T_i,shape``; the page only moves bodies. The poses ``T_s,i`` of
every body at every shown sample come from :func:`robodyn.body_poses` (one batched call),
so the page itself does no kinematics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..inertia import RigidInertia
from ..model.model import Model
from ..spatial import rot_x, rotation_to_quat, transform
from .meshes import (
    MAX_TRIANGLES,
    MeshNotDrawnError,
    cluster_decimate,
    probe_mesh,
    read_mesh,
    resolve_mesh,
)

__all__ = [
    "MAX_FRAMES",
    "MAX_TRIANGLES",
    "Scene",
    "build_scene",
    "resolve_mesh",
    "as_trajectory",
    "decimate",
    "ellipsoid_semi_axes",
]

#: Frame budget of a page: longer trajectories are decimated to this many frames.
MAX_FRAMES = 10_000
DEFAULT_RGBA = (0.72, 0.74, 0.78, 1.0)  # a visual without a colour
STICK_RGBA = (0.95, 0.55, 0.15, 1.0)  # the fallback stick figure
COM_RGBA = (0.1, 0.45, 0.95, 0.9)
INERTIA_RGBA = (0.2, 0.7, 0.95, 0.25)
MARKER_RGBA = (1.0, 0.0, 1.0, 1.0)  # end-effector markers: pure magenta, drawn on top
COM_BALL = 0.035  # radius of the heaviest body's CoM ball, as a fraction of the robot's size


@dataclass
class Scene:
    """Everything a page shows, as plain numbers.

    Attributes
    ----------
    shapes : list of dict
        ``{"body", "T" (16, column-major), "kind", ..., "rgba", "role"}``.
    meshes : list of dict
        ``{"positions" (n, 3) float32, "indices" (m, 3) uint32, "colors" (n, 3) uint8 or
        None, "name"}``, shared by the shapes of kind "mesh" (``"mesh"`` = index).
    markers : list of dict
        ``{"name", "body", "p" (3,)}``: end-effector markers (their frame's origin).
    t : numpy.ndarray, shape (F,)
        Shown sample times, s.
    q : numpy.ndarray, shape (F, nq)
        Shown configurations.
    poses : numpy.ndarray, shape (F, nb, 7) float32
        Body poses ``[x, y, z, qx, qy, qz, qw]`` (three.js quaternion order).
    missing : list of str
        Visuals that could not be drawn (a missing or unreadable mesh) and why.
    notes : list of str
        What was adapted (a decimated trajectory).
    center, radius : numpy.ndarray (3,), float
        A sphere holding the robot over all shown samples (m), for the camera and grid.
    """

    model_name: str
    body_names: list
    joint_names: list
    nq: int
    shapes: list = field(default_factory=list)
    meshes: list = field(default_factory=list)
    markers: list = field(default_factory=list)
    t: np.ndarray = None
    q: np.ndarray = None
    poses: np.ndarray = None
    missing: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    center: np.ndarray = None
    radius: float = 1.0
    samples: int = 1
    q_labels: list = field(default_factory=list)


# ------------------------------------------------------------------ inputs
def as_trajectory(model: Model, q=None, trajectory=None):
    """The times and configurations to show: ``(t (F,), q (F, nq))``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,), optional
        One configuration (default: ``rd.neutral(model)``), used when there is no trajectory.
    trajectory : Trajectory or (t, q) pair, optional
        Anything with ``.t`` (K,) and ``.q`` (K, nq), or a pair of arrays.

    Raises
    ------
    ValueError
        A q or trajectory whose width is not ``model.nq`` (both sizes named), times not
        matching the samples, not increasing, or values that are not finite.
    """
    from ..model.configuration import neutral

    if trajectory is not None:
        if q is not None:
            raise ValueError("give q (one configuration) or trajectory, not both")
        if hasattr(trajectory, "t") and hasattr(trajectory, "q"):
            t, Q = trajectory.t, trajectory.q
        elif isinstance(trajectory, (tuple, list)) and len(trajectory) == 2:
            t, Q = trajectory
        else:
            raise ValueError(
                "trajectory must be a robodyn Trajectory (.t, .q) or a pair (t, q) of arrays, "
                f"got {type(trajectory).__name__}"
            )
        t = np.asarray(t, dtype=float)
        Q = np.asarray(Q, dtype=float)
        if Q.ndim != 2:
            raise ValueError(
                f"trajectory q must have shape (K, nq) = (K, {model.nq}), got {Q.shape} "
                "(a batch of rollouts: show one, e.g. trajectory=(traj.t, traj.q[0]))"
            )
        if Q.shape[1] != model.nq:
            raise ValueError(
                f"trajectory q has {Q.shape[1]} columns but model {model.name!r} has "
                f"nq = {model.nq}: expected shape (K, {model.nq}), got {Q.shape}"
            )
        if t.shape != (Q.shape[0],):
            raise ValueError(
                f"trajectory t must have shape ({Q.shape[0]},) (one time per sample of q), "
                f"got {t.shape}"
            )
        if Q.shape[0] == 0:
            raise ValueError("trajectory has no samples")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(Q))):
            raise ValueError("trajectory t and q must be finite")
        if np.any(np.diff(t) < 0):
            raise ValueError("trajectory t must be non-decreasing")
        return t, Q
    if q is None:
        return np.zeros(1), neutral(model)[None, :]
    q = np.asarray(q, dtype=float)
    if q.shape != (model.nq,):
        raise ValueError(
            f"q must have shape (nq,) = ({model.nq},) for model {model.name!r}, got {q.shape}"
        )
    if not np.all(np.isfinite(q)):
        raise ValueError("q must be finite")
    return np.zeros(1), q[None, :]


def decimate(n: int, max_frames: int) -> np.ndarray:
    """Indices of at most ``max_frames`` evenly spread samples of ``n``, first and last kept."""
    if max_frames < 2:
        raise ValueError(f"max_frames must be at least 2, got {max_frames}")
    if n <= max_frames:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, max_frames)).astype(np.int64))


# ------------------------------------------------------------------ shapes
def q_labels(model: Model) -> list[str]:
    """A name for each entry of q: the joint's, with x y z qw qx qy qz for a free joint."""
    out = [""] * model.nq
    for i in range(1, model.nb):
        n, a = int(model.jnt_nq[i]), int(model.jnt_qadr[i])
        name = model.joint_names_all[i]
        if n == 1:
            out[a] = name
        elif n == 7:
            for k, c in enumerate(("x", "y", "z", "qw", "qx", "qy", "qz")):
                out[a + k] = f"{name}.{c}"
        else:
            for k in range(n):
                out[a + k] = f"{name}[{k}]"
    return out


def _col_major(T: np.ndarray) -> list:
    return [float(x) for x in np.asarray(T, dtype=float).T.ravel()]


def ellipsoid_semi_axes(mass: float, moments) -> np.ndarray:
    """Semi-axes of the uniform solid ellipsoid with this mass and principal moments.

    For a solid ellipsoid ``I_1 = m (b^2 + c^2) / 5`` (and cyclic), so
    ``a^2 = 5 (I_2 + I_3 - I_1) / (2 m)``; clipped at zero for a tensor on the edge of the
    triangle inequality.
    """
    I1, I2, I3 = np.asarray(moments, dtype=float)
    sq = 2.5 / mass * np.array([I2 + I3 - I1, I1 + I3 - I2, I1 + I2 - I3])
    return np.sqrt(np.clip(sq, 0.0, None))


def _frame_tips(model: Model) -> list[int]:
    """The end-effector frame(s) to mark: a frame called ee / tool0 / ee_link, else the
    farthest frame of each leaf body when there are at most 4 (an arm, a few legs), else
    none (a humanoid's fingers and feet: pass ``markers=``)."""
    named = [k for k, n in enumerate(model.frame_names) if n in ("ee", "tool0", "ee_link")]
    if named:
        return named
    has_child = np.zeros(model.nb, bool)
    has_child[model.body_parent[1:]] = True
    tips = []
    for b in range(1, model.nb):
        if has_child[b]:
            continue
        ks = np.flatnonzero(model.frame_body == b)
        if len(ks):
            tips.append(int(ks[np.argmax(np.linalg.norm(model.frame_p[ks], axis=1))]))
    return tips if len(tips) <= 4 else []


def _stick_shapes(model: Model, bodies, r: float) -> list[dict]:
    """The fallback figure of body ``b``: a rod from its origin (its joint) to each child's
    joint and each of its frames, and a ball at the joint; fixed in body ``b``'s frame."""
    out = []
    for b in bodies:
        ends = [model.jnt_p[c] for c in range(1, model.nb) if model.body_parent[c] == b]
        ends += [model.frame_p[k] for k in np.flatnonzero(model.frame_body == b)]
        seen: list[np.ndarray] = []
        for p in ends:
            p = np.asarray(p, dtype=float)
            L = float(np.linalg.norm(p))
            if L < 1e-6 or any(np.allclose(p, s, atol=1e-6) for s in seen):
                continue
            seen.append(p)
            # a cylinder along y (three.js), from the body origin to p
            y = p / L
            a = np.array([1.0, 0, 0]) if abs(y[0]) < 0.9 else np.array([0, 0, 1.0])
            x = np.cross(y, a)
            x /= np.linalg.norm(x)
            R = np.column_stack([x, y, np.cross(x, y)])
            T = transform(R, p / 2)
            out.append(
                dict(
                    body=int(b),
                    T=_col_major(T),
                    kind="cylinder",
                    radius=r,
                    length=L,
                    rgba=STICK_RGBA,
                    role="stick",
                )
            )
        if b > 0:
            out.append(
                dict(
                    body=int(b),
                    T=_col_major(np.eye(4)),
                    kind="sphere",
                    radius=1.6 * r,
                    rgba=STICK_RGBA,
                    role="stick",
                )
            )
    return out


def check_max_triangles(max_triangles) -> int:
    """``max_triangles`` as an int, or a ValueError naming it."""
    ok = isinstance(max_triangles, (int, np.integer)) and not isinstance(max_triangles, bool)
    if not ok or max_triangles < 1:
        raise ValueError(f"max_triangles must be a positive integer, got {max_triangles!r}")
    return int(max_triangles)


def _primitive_shape(body, T_bg, g) -> dict | None:
    """A box, sphere, cylinder, capsule or (from MJCF) ellipsoid visual as a shape dict
    (None for anything else)."""
    base = dict(body=int(body), rgba=tuple(g.rgba) if g.rgba is not None else DEFAULT_RGBA,
                role="visual")  # fmt: skip
    if g.kind == "box":
        return dict(base, T=_col_major(T_bg), kind="box", size=list(g.size))
    if g.kind == "sphere":
        return dict(base, T=_col_major(T_bg), kind="sphere", radius=g.radius)
    if g.kind == "ellipsoid":  # size: the semi-axes (the page scales a unit sphere)
        return dict(base, T=_col_major(T_bg), kind="ellipsoid", size=list(g.size))
    if g.kind in ("cylinder", "capsule"):  # URDF: along z; three.js: along y
        T = T_bg @ transform(rot_x(math.pi / 2), None)
        return dict(base, T=_col_major(T), kind=g.kind, radius=g.radius, length=g.length)
    return None


def _reduce(mesh: dict, target: int) -> dict:
    V, F, C = cluster_decimate(mesh["positions"], mesh["indices"], mesh["colors"], target)
    return dict(mesh, positions=V.astype(np.float32), indices=F.astype(np.uint32), colors=C)


def _read_meshes(files, uses, opts, missing_of, notes) -> dict:
    """Probe every mesh file, then read each within the page's triangle budget.

    ``files`` maps a real path to the name the URDF gives it; ``uses`` to how many visuals
    draw it. Returns ``{path: mesh dict}``; a file not drawn gets its reason in
    ``missing_of[path]``."""
    budget = int(opts["max_triangles"])
    probes = {}
    for path in files:
        try:
            probes[path] = probe_mesh(path, budget)
        except MeshNotDrawnError as exc:
            missing_of[path] = exc.reason
        except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
            missing_of[path] = "could not be read"
    # every file read is reduced at once to its share of the budget: few held at full size
    drawn = sum(p.triangles * uses[path] for path, p in probes.items())
    share = min(1.0, budget / drawn) if drawn else 1.0
    out = {}
    for path, probe in probes.items():
        try:
            mesh = read_mesh(probe, max_triangles=budget, allow_outside=opts["allow_outside"])
        except MeshNotDrawnError as exc:
            missing_of[path] = exc.reason
            notes += [f"{files[path]}: {ref} not read ({why})" for ref, why in exc.refused]
            continue
        for ref, why in mesh.pop("refused"):
            notes.append(f"{files[path]}: {ref} not read ({why})")
        n = len(mesh["indices"])
        mesh["triangles"] = n
        if share < 1.0:
            mesh = _reduce(mesh, int(n * share))
        out[path] = mesh
    # an estimate below the truth (OBJ polygons) could leave the page over: reduce again
    drawn = sum(len(m["indices"]) * uses[p] for p, m in out.items())
    if drawn > budget:
        out = {p: _reduce(m, int(len(m["indices"]) * budget / drawn)) for p, m in out.items()}
    for path, m in out.items():
        if len(m["indices"]) < m["triangles"]:
            notes.append(
                f"{files[path]}: {m['triangles']:,} triangles reduced to {len(m['indices']):,} "
                f"(page budget max_triangles={budget:,})"
            )
    return out


def _visual_shapes(model, opts, scene) -> set:
    """The shapes of the URDF's visuals, added to ``scene`` (meshes read within the budget);
    a visual not drawn gets a line in ``scene.missing`` naming the mesh as the URDF writes
    it, never a resolved path. Returns the bodies drawn."""
    where = [f"body {model.body_names[b]!r}" for b, _, _ in model.visuals]
    paths, files, uses, reasons, missing_of = {}, {}, {}, {}, {}
    for k, (_, _, g) in enumerate(model.visuals):
        if g.kind != "mesh" or not g.filename:
            continue
        try:
            folders = [*opts["search_path"], *getattr(g, "search_path", ())]  # load_urdf's
            path = resolve_mesh(g.filename, model.source, folders,
                                allow_outside=opts["allow_outside"])  # fmt: skip
        except MeshNotDrawnError as exc:
            reasons[k] = exc.reason
            continue
        paths[k] = path
        files.setdefault(path, g.filename)
        uses[path] = uses.get(path, 0) + 1
    meshes = _read_meshes(files, uses, opts, missing_of, scene.notes)
    index: dict = {}
    drawn = set()
    for k, (body, T_bg, g) in enumerate(model.visuals):
        shape = _primitive_shape(body, T_bg, g)
        if shape is None and k in paths and paths[k] in meshes:
            key = (paths[k], tuple(g.scale or (1.0, 1.0, 1.0)))
            if key not in index:
                m = meshes[paths[k]]
                V = m["positions"] * np.asarray(key[1], dtype=np.float32)
                scene.meshes.append(dict(name=g.filename, positions=V, indices=m["indices"],
                                         colors=m["colors"]))  # fmt: skip
                index[key] = len(scene.meshes) - 1
            own = scene.meshes[index[key]]["colors"] is not None and g.rgba is None
            rgba = tuple(g.rgba) if g.rgba is not None else DEFAULT_RGBA
            shape = dict(body=int(body), rgba=rgba, role="visual", T=_col_major(T_bg),
                         kind="mesh", mesh=index[key], vertex_colors=own)  # fmt: skip
        if shape is not None:
            scene.shapes.append(shape)
            drawn.add(int(body))
            continue
        if g.kind == "mesh" and g.filename:
            why = reasons.get(k) or missing_of.get(paths.get(k), "could not be read")
            scene.missing.append(f"{where[k]}: {g.filename}: {why}")
        else:
            scene.missing.append(f"{where[k]}: a <visual> without a drawable geometry ({g.kind})")
    return drawn


def build_scene(
    model: Model,
    t,
    Q,
    *,
    frames: bool = True,
    com: bool = False,
    inertia: bool = False,
    visuals: bool = True,
    markers=None,
    search_path=(),
    max_frames: int = MAX_FRAMES,
    allow_outside: bool = False,
    max_triangles: int = MAX_TRIANGLES,
) -> Scene:
    """The :class:`Scene` of ``model`` at the samples ``(t, Q)`` (see :func:`as_trajectory`).

    Parameters
    ----------
    model : Model
    t : numpy.ndarray, shape (K,)
    Q : numpy.ndarray, shape (K, nq)
    frames : bool
        A triad (x red, y green, z blue) at each body frame and marked frame.
    com : bool
        A ball at each body's centre of mass, its volume proportional to the body's mass
        (the heaviest body's radius is 3.5 % of the robot's size).
    inertia : bool
        Each body's equivalent inertia ellipsoid (uniform solid, same mass and principal
        moments), on its principal axes at the CoM.
    visuals : bool
        Draw the URDF's visual geometry (False: the stick figure only).
    markers : sequence of str, optional
        Frames to mark with a magenta ball (default: the end-effector frame(s)).
    search_path : sequence of path-like
        Folders where ``package://`` and relative mesh names are looked up; with the URDF's
        folder, its package and ``$ROS_PACKAGE_PATH`` the only folders meshes are read from
        (:func:`robodyn.viz.meshes.mesh_roots`).
    max_frames : int
        Frame budget; longer trajectories are decimated evenly (a note says so).
    allow_outside : bool
        Also read mesh files outside those folders (trusted URDFs only).
    max_triangles : int
        Triangle budget of the page (every drawn instance counted): meshes are reduced to
        share it, and the notes say which (:mod:`robodyn.viz.meshes`).

    Returns
    -------
    Scene
    """
    check_max_triangles(max_triangles)
    K = len(t)
    idx, notes = _shown_samples(K, max_frames)
    t, Q = np.asarray(t, dtype=float)[idx], np.asarray(Q, dtype=float)[idx]
    T, poses = _poses(model, Q)
    size, center, radius = _extent(model, T)
    r_stick = 0.012 * size
    scene = Scene(
        model_name=model.name,
        body_names=list(model.body_names),
        joint_names=list(model.joint_names),
        nq=model.nq,
        t=t,
        q=Q,
        poses=poses,
        notes=notes,
        samples=K,
        q_labels=q_labels(model),
    )
    opts = dict(search_path=search_path, allow_outside=bool(allow_outside),
                max_triangles=int(max_triangles))  # fmt: skip
    drawn = _visual_shapes(model, opts, scene) if visuals else set()
    # the stick figure for bodies that have no visual, or whose visuals all failed
    scene.shapes += _stick_shapes(model, [b for b in range(model.nb) if b not in drawn], r_stick)
    if frames:
        scene.shapes += _body_triads(model, size)
    scene.shapes += _mass_shapes(model, size, com, inertia, notes)
    _add_markers(scene, model, markers, frames, size, r_stick)
    scene.center = center
    scene.radius = radius
    return scene


def _shown_samples(K: int, max_frames: int):
    """The samples shown within the frame budget, and a note when some are left out."""
    idx = decimate(K, max_frames)
    notes = []
    if len(idx) < K:
        notes.append(
            f"trajectory of {K} samples shown as {len(idx)} frames (one sample in "
            f"{(K - 1) / (len(idx) - 1):.3g}; frame budget max_frames={max_frames})"
        )
    return idx, notes


def _poses(model: Model, Q: np.ndarray):
    """``T_s,i`` of every body at each shown sample (F, nb, 4, 4), and the same as
    ``[x, y, z, qx, qy, qz, qw]`` float32 for the page (F, nb, 7)."""
    from ..kinematics import body_poses

    T = body_poses(model, Q)  # (F, nb, 4, 4): T_s,i at each shown sample
    quat = rotation_to_quat(T[..., :3, :3])  # (w, x, y, z)
    poses = np.concatenate([T[..., :3, 3], quat[..., 1:], quat[..., :1]], axis=-1)
    return T, poses.astype(np.float32)


def _extent(model: Model, T: np.ndarray):
    """The robot's size (m: body origins over all samples, and the frames at neutral), and
    the sphere holding it (center, radius) for the camera and the grid."""
    pts = T[..., :3, 3].reshape(-1, 3)
    lo, hi = pts.min(0), pts.max(0)
    reach = max(float(np.linalg.norm(model.jnt_p[1:], axis=1).sum()) if model.nb > 1 else 0, 0)
    size = max(float(np.linalg.norm(hi - lo)), 0.5 * reach, 0.2)
    radius = max(0.5 * float(np.linalg.norm(hi - lo)), 0.5 * reach / 2, 0.15)
    return size, 0.5 * (lo + hi), radius


def _body_triads(model: Model, size: float) -> list[dict]:
    """A triad (x red, y green, z blue) at each body frame."""
    return [
        dict(body=b, T=_col_major(np.eye(4)), kind="triad", size=0.06 * size, role="frame")
        for b in range(1, model.nb)
    ]


def _mass_shapes(model: Model, size: float, com: bool, inertia: bool, notes: list) -> list:
    """Each body's CoM ball (volume proportional to its mass) and equivalent inertia
    ellipsoid; a tensor that has no ellipsoid gets a note."""
    out = []
    for b in range(1, model.nb):
        m = float(model.body_mass[b])
        if m <= 0:
            continue
        T_bc = transform(None, model.body_com[b])
        if com:
            r = COM_BALL * size * (m / float(model.body_mass.max())) ** (1 / 3)
            out.append(
                dict(body=b, T=_col_major(T_bc), kind="sphere", radius=r, rgba=COM_RGBA, role="com")
            )
        if inertia:
            try:
                moments, axes = RigidInertia(m, None, model.body_inertia[b]).principal()
            except ValueError as exc:  # a tensor kept as written (invalid_inertia="keep")
                notes.append(f"body {model.body_names[b]!r}: no inertia ellipsoid ({exc})")
                continue
            abc = ellipsoid_semi_axes(m, moments)
            T_be = transform(axes, model.body_com[b])
            out.append(
                dict(
                    body=b,
                    T=_col_major(T_be),
                    kind="ellipsoid",
                    size=[float(x) for x in abc],
                    rgba=INERTIA_RGBA,
                    role="inertia",
                )
            )
    return out


def _add_markers(scene: Scene, model: Model, markers, frames: bool, size, r_stick) -> None:
    """A magenta ball (and a triad with ``frames``) at each marked frame, default the
    end-effector frame(s)."""
    names = (
        list(markers) if markers is not None else [model.frame_names[k] for k in _frame_tips(model)]
    )
    for name in names:
        k = model.frame_id(name)
        b = int(model.frame_body[k])
        p = model.frame_p[k]
        scene.markers.append(dict(name=model.frame_names[k], body=b, p=[float(x) for x in p]))
        scene.shapes.append(
            dict(
                body=b,
                T=_col_major(transform(None, p)),
                kind="sphere",
                radius=1.5 * r_stick,
                rgba=MARKER_RGBA,
                role="marker",
            )
        )
        if frames:
            scene.shapes.append(
                dict(
                    body=b,
                    T=_col_major(transform(model.frame_R[k], p)),
                    kind="triad",
                    size=0.06 * size,
                    role="frame",
                )
            )
