"""The one helper module of robodyn's tests (tests/ is on sys.path: ``from helpers import``).

* random models: kinematic trees in the spirit of Featherstone's autoTree (every joint
  type, fixed links the builder merges, an optional floating base, optional mimic joints,
  friction and armature) and random states; :func:`random_joint_pair` builds one random
  tree of any joint types (spherical, planar, helical, cylindrical, free anywhere) twice,
  with robodyn's builder and with Pinocchio's, from one description;
* an independent forward kinematics: world poses by chaining the Model's joint
  placements with exp3 and the quaternion formula, no robodyn kinematics involved;
* one tolerance convention: :func:`assert_close` (error relative to max(1, |want|));
* example-robot-data: where its URDFs are, which ones Pinocchio loads, and a pair of the
  same URDF loaded by robodyn and by Pinocchio;
* :func:`figure_problems`: the audit of a figure's readability (title, units, legends).
"""

from __future__ import annotations

import functools
import glob
import os
import re
import sysconfig

import numpy as np

from robodyn.inertia import RigidInertia, point
from robodyn.model.builder import ModelBuilder
from robodyn.model.configuration import random_configuration
from robodyn.spatial import exp3, quat_to_rotation, transform


def random_inertia(rng: np.random.Generator) -> RigidInertia:
    """A physical inertia: moments from positive second moments (triangle inequality holds)."""
    s = rng.uniform(0.01, 0.3, 3)
    R = exp3(rng.normal(size=3))
    Ic = R @ np.diag([s[1] + s[2], s[0] + s[2], s[0] + s[1]]) @ R.T
    return RigidInertia(rng.uniform(0.2, 3.0), rng.normal(size=3) * 0.2, Ic)


def random_placement(rng: np.random.Generator) -> np.ndarray:
    return transform(exp3(rng.normal(size=3)), rng.normal(size=3) * 0.4)


def random_tree(
    seed: int,
    n: int = 6,
    *,
    floating: bool = False,
    mimic: bool = False,
    fixed: bool = True,
    damping: bool = False,
    gravity=None,
    explicit: bool = False,
    kinds=("revolute", "continuous", "prismatic"),
):
    """A random tree of ``n`` moving bodies (plus mimics and merged fixed links).

    ``explicit=True`` builds the same tree with the mimic joints as ordinary joints.
    ``kinds``: the joint types drawn (the first ``len(kinds)`` bodies take each in turn);
    any of :data:`JOINT_KINDS`, helical joints with a random pitch.

    Returns
    -------
    (Model, list of (mimic joint name, leader joint name, multiplier, offset))
    """
    rng = np.random.default_rng(seed)
    g = rng.normal(size=3) * 5.0 if gravity is None else gravity
    b = ModelBuilder("tree", gravity=g)
    links: list[str] = []
    movable: list[str] = []  # joints that may lead a mimic
    if floating:
        b.add_body("base", "world", joint_type="free", inertia=random_inertia(rng))
        links.append("base")
    kinds = list(kinds)
    for k in range(n):
        parent = str(rng.choice(links)) if links and (floating or rng.random() < 0.8) else "world"
        kind = kinds[k % len(kinds)] if k < len(kinds) else str(rng.choice(kinds))
        extra = {}
        if damping:
            extra = dict(
                damping=rng.uniform(0.1, 1), friction=rng.uniform(0.1, 1),
                armature=rng.uniform(0.01, 0.5),
            )  # fmt: skip
        if kind == "helical":
            extra["pitch"] = float(rng.uniform(-0.5, 0.5))
        if kind == "universal":
            extra["axis2"] = rng.normal(size=3)
        b.add_body(
            f"l{k}", parent, joint_type=kind, axis=rng.normal(size=3),
            T=random_placement(rng), inertia=random_inertia(rng), **extra,
        )  # fmt: skip
        links.append(f"l{k}")
        if kind in ("revolute", "continuous", "prismatic"):  # a mimic's leader has one dof
            movable.append(f"l{k}_joint")
        if fixed and rng.random() < 0.3:
            b.add_body(
                f"f{k}", f"l{k}", joint_type="fixed", T=random_placement(rng),
                inertia=random_inertia(rng),
            )  # fmt: skip
            links.append(f"f{k}")
    mimics = []
    if mimic and movable:
        for k in range(2):
            lead = str(rng.choice(movable))
            mult, off = float(rng.uniform(-2, 2)), float(rng.uniform(-0.5, 0.5))
            kind = "prismatic" if rng.random() < 0.3 else "revolute"
            b.add_body(
                f"m{k}", str(rng.choice(links)), joint_type=kind, axis=rng.normal(size=3),
                T=random_placement(rng), inertia=random_inertia(rng),
                **({} if explicit else dict(mimic=lead, multiplier=mult, offset=off)),
            )  # fmt: skip
            mimics.append((f"m{k}_joint", lead, mult, off))
            links.append(f"m{k}")
    b.add_frame("tool", links[-1], T=random_placement(rng))
    return b.build(), mimics


#: every joint type the builder takes that moves (MR Table 2.1, the URDF's and a free joint)
JOINT_KINDS = ("revolute", "continuous", "prismatic", "spherical", "planar", "helical",
               "cylindrical", "universal", "free")  # fmt: skip


def random_joint_pair(seed: int, n: int = 6, kinds=JOINT_KINDS, gravity: bool = True):
    """One random tree of ``n`` bodies with joints drawn from ``kinds`` (each at least once
    when n allows), built from one description by robodyn's ModelBuilder and by
    Pinocchio's own ``Model.addJoint`` / ``appendBodyToJoint`` with Pinocchio's joint of
    each type (RevoluteUnaligned for revolute and continuous, PrismaticUnaligned,
    Spherical, Planar, HelicalUnaligned, a composite [RevoluteUnaligned,
    PrismaticUnaligned] for a cylindrical joint, Universal, FreeFlyer anywhere), added to
    Pinocchio
    depth first. Pinocchio's planar
    joint moves in its frame's xy-plane: for a plane normal n its joint frame is turned by
    R_n = [t1, t2, n] (robodyn's planar_basis), so that body's Pinocchio frame is robodyn's
    turned by R_n, and its inertia, frames and children are expressed accordingly.

    Returns
    -------
    (Model, pinocchio.Model, pinocchio.Data, PinocchioMap); the frame "tool" exists in both.
    """
    import pinocchio as pin

    from robodyn.convert import PinocchioMap
    from robodyn.model.model import planar_basis

    rng = np.random.default_rng(seed)
    g = rng.normal(size=3) * 5.0 if gravity else np.zeros(3)
    b = ModelBuilder("pair", gravity=g)
    pm = pin.Model()
    pm.gravity = pin.Motion(np.r_[g, 0.0, 0.0, 0.0])
    kinds = list(kinds)
    spec: list[tuple] = []  # (name, parent, kind, unit axis, T, inertia, pitch)
    for k in range(n):
        parent = str(rng.choice([s[0] for s in spec])) if spec and rng.random() < 0.85 else "world"
        kind = kinds[k % len(kinds)] if k < len(kinds) else str(rng.choice(kinds))
        axis = rng.normal(size=3)
        T, inertia = random_placement(rng), random_inertia(rng)
        pitch = float(rng.uniform(-0.5, 0.5))
        axis2 = rng.normal(size=3)
        b.add_body(f"l{k}", parent, joint_name=f"j{k}", joint_type=kind, axis=axis, T=T,
                   inertia=inertia, pitch=pitch, axis2=axis2)  # fmt: skip
        spec.append((f"l{k}", parent, kind, axis / np.linalg.norm(axis), T, inertia,
                     (pitch, axis2 / np.linalg.norm(axis2))))  # fmt: skip
    T_tool = random_placement(rng)
    b.add_frame("tool", spec[-1][0], T=T_tool)
    # Pinocchio numbers joints in the order they are added and needs that order depth
    # first (its CRBA assumes contiguous subtrees): add them from a depth-first walk
    jid = {"world": 0}  # Pinocchio joint of each body
    turn = {"world": np.eye(4)}  # Pinocchio body frame = robodyn body frame @ turn
    stack = [s for s in reversed(spec) if s[1] == "world"]
    while stack:
        name, parent, kind, a, T, inertia, (pitch, a2) = stack.pop()
        stack.extend(s for s in reversed(spec) if s[1] == name)
        O = np.eye(4)
        if kind in ("revolute", "continuous"):  # an angle (Pinocchio's unbounded revolute
            jm = pin.JointModelRevoluteUnaligned(a)  # takes no axis from Python)
        elif kind == "helical":
            jm = pin.JointModelHelicalUnaligned(a, pitch)
        elif kind == "prismatic":
            jm = pin.JointModelPrismaticUnaligned(a)
        elif kind == "spherical":
            jm = pin.JointModelSpherical()
        elif kind == "universal":
            jm = pin.JointModelUniversal(a, a2)
        elif kind == "free":
            jm = pin.JointModelFreeFlyer()
        elif kind == "cylindrical":
            jm = pin.JointModelComposite()
            jm.addJoint(pin.JointModelRevoluteUnaligned(a))
            jm.addJoint(pin.JointModelPrismaticUnaligned(a))
        elif kind == "planar":
            jm = pin.JointModelPlanar()
            O[:3, :3] = np.stack([*planar_basis(a), a], axis=1)  # columns t1, t2, n
        else:
            raise ValueError(kind)
        placement = np.linalg.inv(turn[parent]) @ T @ O
        j = pm.addJoint(jid[parent], jm, pin.SE3(placement[:3, :3], placement[:3, 3]),
                        "j" + name[1:])  # fmt: skip
        Ro = O[:3, :3]
        pm.appendBodyToJoint(
            j, pin.Inertia(inertia.mass, Ro.T @ inertia.com, Ro.T @ inertia.inertia @ Ro),
            pin.SE3.Identity(),
        )  # fmt: skip
        jid[name], turn[name] = j, O
    F = np.linalg.inv(turn[spec[-1][0]]) @ T_tool
    pm.addFrame(pin.Frame("tool", jid[spec[-1][0]], pin.SE3(F[:3, :3], F[:3, 3]),
                          pin.FrameType.OP_FRAME))  # fmt: skip
    model = b.build()
    return model, pm, pm.createData(), PinocchioMap(model, pm)


def random_state(model, rng: np.random.Generator, size: int | None = None):
    """(q, v, a) with q from random_configuration and Gaussian v, a."""
    q = random_configuration(model, rng, size)
    shape = (model.nv,) if size is None else (size, model.nv)
    return q, rng.normal(size=shape), rng.normal(size=shape)


def random_model(
    seed: int, n: int = 5, floating: bool = False, mimic: bool = False, gravity: bool = True
):
    """The model of :func:`random_tree` with friction and armature; ``gravity=False``: none."""
    g = None if gravity else np.zeros(3)
    return random_tree(seed, n, floating=floating, mimic=mimic, damping=True, gravity=g)[0]


def point_mass_2r(m1=1.3, m2=0.7, L1=0.9, L2=0.6, g=9.81):
    """Course notes 000: 2R arm, point masses at the link tips, gravity along -y."""
    T2 = np.eye(4)
    T2[0, 3] = L1
    return (
        ModelBuilder(name="2r_points", gravity=(0.0, -g, 0.0))
        .add_body("link1", "world", axis=(0, 0, 1), inertia=point(m1, (L1, 0, 0)))
        .add_body("link2", "link1", axis=(0, 0, 1), T=T2, inertia=point(m2, (L2, 0, 0)))
        .add_frame(
            "ee", "link2", T=np.array([[1, 0, 0, L2], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])
        )
        .build()
    )


# ------------------------------------------------------------------ tolerance
def rel_err(got, want) -> float:
    """max |got - want| / max(1, max |want|)."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    return float(np.abs(got - want).max(initial=0.0)) / scale


def assert_close(got, want, tol: float, what: str = "") -> None:
    """The one tolerance convention of the tests: error relative to max(1, |want|)."""
    err = rel_err(got, want)
    assert err <= tol, f"{what}: relative error {err:.3g} > {tol:.3g}"


# ------------------------------------------------------------------ independent kinematics
def chain_poses(model, q) -> np.ndarray:
    """World pose (nb, 4, 4) of every body by chaining ``T(jnt_R, jnt_p) X_J(q_i)`` from the
    Model's arrays: revolute ``exp3(axis q)``, prismatic ``axis q``, free joint from its
    position and quaternion, spherical from its quaternion, planar, helical and cylindrical
    as a turn about the axis and a move in the plane or along the axis; a mimic reads
    ``mult q_leader + offset``. No robodyn
    kinematics is involved, so it checks them."""
    T = np.zeros((model.nb, 4, 4))
    T[0] = np.eye(4)
    for i in range(1, model.nb):
        X = np.eye(4)
        X[:3, :3], X[:3, 3] = model.jnt_R[i], model.jnt_p[i]
        J = np.eye(4)
        lead = int(model.jnt_mimic[i])
        src = lead if lead >= 0 else i
        a = model.jnt_qadr[src]
        jt = int(model.jnt_type[i])
        if jt in (1, 2):
            x = q[a] * (model.jnt_mimic_mult[i] if lead >= 0 else 1.0)
            x += model.jnt_mimic_offset[i] if lead >= 0 else 0.0
            if jt == 1:
                J[:3, :3] = exp3(np.asarray(model.jnt_axis[i]) * x)
            else:
                J[:3, 3] = np.asarray(model.jnt_axis[i]) * x
        elif jt == 3:
            quat = np.asarray(q[a + 3 : a + 7])
            J[:3, :3] = quat_to_rotation(quat / np.linalg.norm(quat))
            J[:3, 3] = q[a : a + 3]
        elif jt == 4:  # spherical: the quaternion
            quat = np.asarray(q[a : a + 4])
            J[:3, :3] = quat_to_rotation(quat / np.linalg.norm(quat))
        elif jt in (5, 6, 7):  # planar, helical, cylindrical: a turn about the axis, then
            n = np.asarray(model.jnt_axis[i])
            J[:3, :3] = exp3(n * q[a])
            if jt == 5:  # a move in the plane normal to it
                from robodyn.model.model import planar_basis

                t1, t2 = planar_basis(n)
                J[:3, 3] = q[a + 1] * t1 + q[a + 2] * t2
            else:  # a move along it: pitch * angle, or the second coordinate
                J[:3, 3] = n * (model.jnt_pitch[i] * q[a] if jt == 6 else q[a + 1])
        elif jt == 8:  # universal: a turn about the axis, then about axis2
            J[:3, :3] = exp3(np.asarray(model.jnt_axis[i]) * q[a])
            J[:3, :3] = J[:3, :3] @ exp3(np.asarray(model.jnt_axis2[i]) * q[a + 1])
        T[i] = T[model.body_parent[i]] @ X @ J
    return T


def chain_frame_poses(model, q) -> np.ndarray:
    """World pose (nf, 4, 4) of every operational frame from :func:`chain_poses`."""
    T = chain_poses(model, q)
    out = np.zeros((model.nf, 4, 4))
    for k, (b, R, p) in enumerate(zip(model.frame_body, model.frame_R, model.frame_p)):
        F = np.eye(4)
        F[:3, :3], F[:3, 3] = R, p
        out[k] = T[b] @ F
    return out


# ------------------------------------------------------------------ example-robot-data
MIN_ERD_ROBOTS = 60  # the oracle list may not shrink silently below this


def erd_dir() -> str:
    """The example-robot-data robots folder inside site-packages."""
    for base in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        d = os.path.join(base, "cmeel.prefix", "share", "example-robot-data", "robots")
        if os.path.isdir(d):
            return d
    raise RuntimeError("example-robot-data is not installed: pip install -e '.[test]'")


@functools.lru_cache(maxsize=1)
def erd_urdfs() -> list[str]:
    """Every example-robot-data URDF file, sorted."""
    return sorted(glob.glob(os.path.join(erd_dir(), "**", "*.urdf"), recursive=True))


@functools.lru_cache(maxsize=1)
def erd_robots() -> list[tuple[str, str]]:
    """(name, path) of every example-robot-data URDF that Pinocchio loads, sorted."""
    import pinocchio as pin

    out = []
    for path in erd_urdfs():
        try:
            m = pin.buildModelFromUrdf(path)
        except Exception:  # noqa: BLE001 - Pinocchio's own loader rejects it: not an oracle
            continue
        if m.nv == 0:
            continue
        rel = os.path.relpath(path, erd_dir())
        out.append((rel.replace(os.sep, "/").replace(".urdf", ""), path))
    return out


def erd_path(fragment: str) -> str:
    """Path of the first example-robot-data URDF whose relative name contains ``fragment``."""
    for path in erd_urdfs():
        if fragment in os.path.relpath(path, erd_dir()).replace(os.sep, "/"):
            return path
    raise LookupError(fragment)


def load_pair(path: str, floating_base: bool = False):
    """Load ``path`` in robodyn and in Pinocchio: (model, pin_model, pin_data, PinocchioMap).

    invalid_inertia="keep": a few example-robot-data URDFs carry non-physical inertias;
    Pinocchio loads them as written, and so must the oracle pair. Each parses the file
    itself."""
    import warnings

    import pinocchio as pin

    from robodyn.convert import PinocchioMap
    from robodyn.errors import ModelWarning
    from robodyn.model.urdf import load_urdf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)  # asserted in test_urdf.py
        model = load_urdf(path, floating_base=floating_base, mimic=False, invalid_inertia="keep")
    if floating_base:
        pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    else:
        pm = pin.buildModelFromUrdf(path)
    return model, pm, pm.createData(), PinocchioMap(model, pm)


# ----------------------------------------------------------------------------- figures
UNIT = re.compile(r"\(.+\)|\[.+\]")  # "t (s)", "q1 (deg)"


def _inside(points: np.ndarray, box) -> np.ndarray:
    return (
        (points[:, 0] > box.x0)
        & (points[:, 0] < box.x1)
        & (points[:, 1] > box.y0)
        & (points[:, 1] < box.y1)
    )


def _dense(points: np.ndarray, n: int = 25) -> np.ndarray:
    """The polyline through ``points`` (display coordinates) sampled ``n`` times a segment."""
    if len(points) < 2:
        return points
    s = np.linspace(0.0, 1.0, n, endpoint=False)[:, None, None]
    seg = points[:-1] + s * (points[1:] - points[:-1])
    return np.concatenate([seg.reshape(-1, 2), points[-1:]])


def figure_problems(fig) -> list[str]:
    """What makes ``fig`` hard to read, one line per problem (empty: readable): a title
    that says what is shown, a unit in parentheses on every axis with data, a legend naming
    every curve and covering none, curves spanning the same x range."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)  # a figure made without pyplot has no renderer of its own
    canvas.draw()  # lay out the figure so legend and axes extents are final
    renderer = canvas.get_renderer()
    problems = []
    titles = [fig._suptitle.get_text() if fig._suptitle else ""]
    titles += [ax.get_title() for ax in fig.axes]
    if not any(t.strip() for t in titles):
        problems.append("no title")
    if any("course notes" in t.lower() for t in titles):
        problems.append(f"title names a source, not what is shown: {titles}")
    for k, ax in enumerate(fig.axes):
        if not ax.has_data():
            continue
        where = f"axes {k} ({ax.get_ylabel() or ax.get_title()!r})"
        siblings = ax.get_shared_x_axes().get_siblings(ax)
        xlabel = next((a.get_xlabel() for a in siblings if a.get_xlabel()), "")
        for axis, label in (("x", xlabel), ("y", ax.get_ylabel())):
            if not UNIT.search(label):
                problems.append(f"{where}: {axis} label {label!r} has no unit in parentheses")
        data_lines = [
            ln for ln in ax.get_lines() if ln.get_transform().contains_branch(ax.transData)
        ]
        other_lines = [ln for ln in ax.get_lines() if ln not in data_lines]
        spans = [np.nanmax(ln.get_xdata()) for ln in data_lines if len(ln.get_xdata())]
        if spans and min(spans) < 0.99 * max(spans):
            short = [
                ln.get_label() for ln in data_lines if np.nanmax(ln.get_xdata()) < 0.99 * max(spans)
            ]
            problems.append(f"{where}: curves {short} stop before the others")
        legend = ax.get_legend()
        curves = data_lines + other_lines
        if len(curves) > 1 or other_lines:
            if legend is None:
                problems.append(f"{where}: {len(curves)} curves and no legend")
            unlabelled = [ln for ln in curves if ln.get_label().startswith("_")]
            if unlabelled:
                problems.append(f"{where}: {len(unlabelled)} curve(s) without a legend entry")
        if legend is not None:
            box = legend.get_window_extent(renderer)
            for ln in curves:
                pts = ln.get_transform().transform(np.column_stack(ln.get_data()).astype(float))
                pts = pts[np.all(np.isfinite(pts), axis=1)]
                if ln.get_linestyle() not in ("None", "", " "):
                    pts = _dense(pts)
                if np.any(_inside(pts, box)):
                    problems.append(f"{where}: the legend covers curve {ln.get_label()!r}")
    return problems
