"""The one helper module of robodyn's tests (tests/ is on sys.path: ``from helpers import``).

* random models drawn by hypothesis: :func:`trees` draws a :class:`TreeSpec` (number of
  bodies, parent of each, joint type of each from every kind the builder takes, axes,
  placements, physical inertias, optional friction and armature, an optional floating
  base and mimic joints) so a failure shrinks to a minimal tree and its printed repr
  rebuilds it; :func:`states` draws (q, v, a) for a model the same way;
* random models from a seed (fixed cases, not property tests): kinematic trees in the
  spirit of Featherstone's autoTree and random states; :func:`random_joint_pair` builds
  one random tree of any joint types (spherical, planar, helical, cylindrical, free
  anywhere) twice, with robodyn's builder and with Pinocchio's, from one description;
* an independent forward kinematics: world poses by chaining the Model's joint
  placements with exp3 and the quaternion formula, no robodyn kinematics involved;
* one tolerance convention: :func:`assert_close` (error relative to max(1, |want|));
* example-robot-data: where its URDFs are, which ones Pinocchio loads, and a pair of the
  same URDF loaded by robodyn and by Pinocchio;
* :func:`figure_problems`: the audit of a figure's readability (title, units, legends);
* :func:`on_python_loop`: a controller as simulate's Python loop runs it (the parity tests
  of the compiled rollout).
"""

from __future__ import annotations

import dataclasses
import functools
import glob
import math
import os
import re
import sysconfig

import numpy as np
from hypothesis import strategies as st

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
    _add_to_pinocchio(pm, spec, T_tool)
    model = b.build()
    return model, pm, pm.createData(), PinocchioMap(model, pm)


def _add_to_pinocchio(pm, spec: list, T_tool: np.ndarray) -> None:
    """Add the bodies of ``spec`` [(name, parent, kind, unit axis, T, inertia, (pitch, unit
    axis2))] to the Pinocchio model ``pm`` with Pinocchio's joint of each type, and the
    frame "tool" at T_tool on the last body (see :func:`random_joint_pair`)."""
    import pinocchio as pin

    from robodyn.model.model import planar_basis

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


# ------------------------------------------------------------------ hypothesis trees
#: every joint type the builder takes ("floating" is "free"); fixed links are merged
TREE_KINDS = ("revolute", "continuous", "prismatic", "fixed", "free", "spherical", "planar",
              "helical", "cylindrical", "universal")  # fmt: skip
PLAIN_KINDS = ("revolute", "continuous", "prismatic")
#: the multi-dof and screw joints of MR Table 2.1 beyond the URDF's
MR_KINDS = ("spherical", "planar", "helical", "cylindrical", "universal")


@dataclasses.dataclass(frozen=True, repr=False)
class BodySpec:
    """One body of a :class:`TreeSpec` and its inboard joint; plain numbers only.

    ``parent``: index of the parent in ``TreeSpec.bodies`` (always lower), -1 for the
    world. The joint frame sits at ``exp3(rotvec), p`` in the parent's frame; the inertia
    has ``mass``, ``com`` and principal second moments ``moments`` = (s1, s2, s3) > 0 (so
    the principal moments of inertia s2 + s3, s1 + s3, s1 + s2 obey the triangle
    inequality) along axes turned by ``exp3(inertia_rotvec)``. ``mimic``: (leader index,
    multiplier, offset)."""

    parent: int = -1
    kind: str = "revolute"
    axis: tuple = (0.0, 0.0, 1.0)
    rotvec: tuple = (0.0, 0.0, 0.0)
    p: tuple = (0.0, 0.0, 0.0)
    mass: float = 1.0
    com: tuple = (0.0, 0.0, 0.0)
    moments: tuple = (0.1, 0.1, 0.1)
    inertia_rotvec: tuple = (0.0, 0.0, 0.0)
    pitch: float = 0.0
    axis2: tuple = (0.0, 1.0, 0.0)
    damping: float = 0.0
    friction: float = 0.0
    armature: float = 0.0
    mimic: tuple | None = None

    def __repr__(self) -> str:  # the fields that differ from the defaults: short, eval-able
        parts = [f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self)
                 if getattr(self, f.name) != f.default]  # fmt: skip
        return f"BodySpec({', '.join(parts)})"

    def inertia(self) -> RigidInertia:
        R = exp3(np.array(self.inertia_rotvec))
        s1, s2, s3 = self.moments
        Ic = R @ np.diag([s2 + s3, s1 + s3, s1 + s2]) @ R.T
        return RigidInertia(self.mass, np.array(self.com), 0.5 * (Ic + Ic.T))


@dataclasses.dataclass(frozen=True)
class TreeSpec:
    """A kinematic tree as plain numbers (what :func:`trees` draws); ``build()`` makes the
    Model: body k is ``"b{k}"`` on joint ``"j{k}"``, frame ``"tool"`` on the last body.
    Its repr is Python that rebuilds it: ``from helpers import BodySpec, TreeSpec``."""

    bodies: tuple
    gravity: tuple = (0.0, 0.0, 0.0)
    tool_rotvec: tuple = (0.0, 0.0, 0.0)
    tool_p: tuple = (0.0, 0.0, 0.0)

    @property
    def floating(self) -> bool:
        """One free joint from the world carries every body (momentum is conserved)."""
        return self.bodies[0].kind == "free" and all(b.parent >= 0 for b in self.bodies[1:])

    def build(self, T_base=None, *, explicit: bool = False):
        """The Model. ``T_base`` (4x4): the whole robot moved by it in the world (every
        joint on the world placed at ``T_base @ T``, gravity turned by its rotation), so
        the motion relative to gravity is the same. ``explicit``: mimic joints as ordinary
        joints."""
        T_base = np.eye(4) if T_base is None else np.asarray(T_base, dtype=float)
        b = ModelBuilder("hypothesis_tree", gravity=T_base[:3, :3] @ np.array(self.gravity))
        for k, s in enumerate(self.bodies):
            T = transform(exp3(np.array(s.rotvec)), np.array(s.p))
            extra = {}
            if s.mimic is not None and not explicit:
                lead, mult, off = s.mimic
                extra = dict(mimic=f"j{lead}", multiplier=mult, offset=off)
            b.add_body(
                f"b{k}", f"b{s.parent}" if s.parent >= 0 else "world", joint_name=f"j{k}",
                joint_type=s.kind, axis=s.axis, T=T_base @ T if s.parent < 0 else T,
                inertia=s.inertia(), pitch=s.pitch, axis2=s.axis2, damping=s.damping,
                friction=s.friction, armature=s.armature, **extra,
            )  # fmt: skip
        T_tool = transform(exp3(np.array(self.tool_rotvec)), np.array(self.tool_p))
        b.add_frame("tool", f"b{len(self.bodies) - 1}", T=T_tool)
        return b.build()

    @functools.cached_property
    def model(self):
        """``build()``, once."""
        return self.build()

    def pinocchio(self):
        """The same tree built by Pinocchio from these numbers (as :func:`random_joint_pair`
        does): (pinocchio.Model, pinocchio.Data, PinocchioMap to :attr:`model`). Fixed and
        mimic joints are not translated."""
        import pinocchio as pin

        from robodyn.convert import PinocchioMap

        if any(b.kind == "fixed" or b.mimic is not None for b in self.bodies):
            raise ValueError("TreeSpec.pinocchio: fixed and mimic joints are not translated")
        pm = pin.Model()
        pm.gravity = pin.Motion(np.r_[self.gravity, 0.0, 0.0, 0.0])
        unit = lambda x: np.array(x) / np.linalg.norm(x)  # noqa: E731
        spec = [
            (f"b{k}", f"b{s.parent}" if s.parent >= 0 else "world", s.kind, unit(s.axis),
             transform(exp3(np.array(s.rotvec)), np.array(s.p)), s.inertia(),
             (s.pitch, unit(s.axis2)))
            for k, s in enumerate(self.bodies)
        ]  # fmt: skip
        T_tool = transform(exp3(np.array(self.tool_rotvec)), np.array(self.tool_p))
        _add_to_pinocchio(pm, spec, T_tool)
        return pm, pm.createData(), PinocchioMap(self.model, pm)


def _floats(lo: float, hi: float):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def _vec3(lo: float, hi: float):
    return st.tuples(_floats(lo, hi), _floats(lo, hi), _floats(lo, hi))


@st.composite
def unit_vectors(draw) -> tuple:
    """A direction from two angles (shrinks to z)."""
    theta, phi = draw(_floats(0.0, math.pi)), draw(_floats(-math.pi, math.pi))
    return (math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta))


def _not_parallel(axis, d) -> tuple:
    """``d``, or a direction normal to ``axis`` when d is nearly parallel to it."""
    a, d = np.array(axis), np.array(d)
    if np.linalg.norm(np.cross(a, d)) > 0.3:
        return tuple(float(x) for x in d)
    n = np.cross(a, np.eye(3)[int(np.argmin(np.abs(a)))])
    return tuple(float(x) for x in n / np.linalg.norm(n))


@st.composite
def trees(
    draw,
    *,
    min_bodies: int = 1,
    max_bodies: int = 6,
    kinds=TREE_KINDS,
    floating: bool | None = None,
    mimic: bool | None = False,
    damping: bool | None = False,
    gravity: bool = True,
    require=(),
) -> TreeSpec:
    """A random tree (Featherstone's autoTree drawn by hypothesis): a failure shrinks to a
    short chain of z-axis revolute joints at the parent's origin with default inertias.

    ``kinds``: the joint types drawn (the first body never "fixed"; fixed links are merged
    into their parent by the builder). ``floating``: body 0 is a free joint from the world
    and every other body hangs below it (True), no such base (False; free joints drawn
    from ``kinds`` may still float anywhere), or either (None). ``mimic``: add one or two
    revolute or prismatic mimic joints led by 1-dof joints (None: maybe). ``damping``:
    draw joint damping, Coulomb friction and armature (None: maybe) for every joint but a
    free one. ``gravity``: a random gravity vector, else none. ``require``: joint types
    that appear at least once (the first bodies after a floating base take them, in a
    drawn order).

    Examples
    --------
    >>> @given(trees(max_bodies=4, floating=True), st.data())      # doctest: +SKIP
    ... def test_something(tree, data):
    ...     q, v, a = data.draw(states(tree.model))
    """
    floating = draw(st.booleans()) if floating is None else floating
    mimic = draw(st.booleans()) if mimic is None else mimic
    damping = draw(st.booleans()) if damping is None else damping
    first = ["free"] if floating else []
    first += draw(st.permutations(require)) if require else []
    n = draw(st.integers(max(min_bodies, len(first)), max(max_bodies, len(first))))
    moving = [k for k in kinds if k != "fixed"]
    bodies: list[BodySpec] = []
    for k in range(n):
        if k == 0:
            parent = -1
            kind = first[0] if first else draw(st.sampled_from(moving))
        else:  # shrinks to a chain (the previous body); up to the world or the base
            parent = k - 1 - draw(st.integers(0, k - 1 if floating else k))
            kind = first[k] if k < len(first) else draw(st.sampled_from(kinds))
        bodies.append(draw(_bodies(parent, kind, damping)))
    if mimic:
        leaders = [k for k, b in enumerate(bodies) if b.kind in PLAIN_KINDS]
        for _ in range(draw(st.integers(1, 2)) if leaders else 0):
            lead = draw(st.sampled_from(leaders))
            parent = len(bodies) - 1 - draw(st.integers(0, len(bodies) - (1 if floating else 0)))
            kind = draw(st.sampled_from(("revolute", "prismatic")))
            s = draw(_bodies(parent, kind, damping))
            m = (lead, draw(_floats(-2.0, 2.0)), draw(_floats(-0.5, 0.5)))
            bodies.append(dataclasses.replace(s, mimic=m))
    g = draw(_vec3(-10.0, 10.0)) if gravity else (0.0, 0.0, 0.0)
    return TreeSpec(tuple(bodies), g, draw(_vec3(-math.pi, math.pi)), draw(_vec3(-0.4, 0.4)))


@st.composite
def _bodies(draw, parent: int, kind: str, damping: bool) -> BodySpec:
    axis = draw(unit_vectors())
    extra = {}
    if kind == "helical":
        extra["pitch"] = draw(_floats(-0.5, 0.5))
    if kind == "universal":
        extra["axis2"] = _not_parallel(axis, draw(unit_vectors()))
    if damping and kind != "free":  # a free joint has no motor: nothing pushes back on it
        extra.update(damping=draw(_floats(0.1, 1.0)), friction=draw(_floats(0.1, 1.0)),
                     armature=draw(_floats(0.01, 0.5)))  # fmt: skip
    return BodySpec(
        parent=parent, kind=kind, axis=axis, rotvec=draw(_vec3(-math.pi, math.pi)),
        p=draw(_vec3(-0.5, 0.5)), mass=draw(_floats(0.2, 3.0)), com=draw(_vec3(-0.2, 0.2)),
        moments=draw(_vec3(0.01, 0.3)), inertia_rotvec=draw(_vec3(-math.pi, math.pi)), **extra,
    )  # fmt: skip


def _quaternion(r) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of the rotation vector r (identity at 0)."""
    r = np.asarray(r, dtype=float)
    t = float(np.linalg.norm(r))
    if t < 1e-12:
        return np.array([1.0, 0.0, 0.0, 0.0])
    return np.concatenate([[math.cos(t / 2)], math.sin(t / 2) * r / t])


@st.composite
def configurations(draw, model) -> np.ndarray:
    """A configuration of ``model`` (shrinks to the neutral one): angles in [-pi, pi],
    lengths in [-1, 1], quaternions of rotation vectors in the ball of radius pi."""
    u = np.array(draw(st.lists(_floats(-1.0, 1.0), min_size=model.nq, max_size=model.nq)))
    q = np.zeros(model.nq)
    angle = {1: (0,), 5: (0,), 6: (0,), 7: (0,), 8: (0, 1)}  # q entries that are angles
    for i in range(1, model.nb):
        a, nq, jt = int(model.jnt_qadr[i]), int(model.jnt_nq[i]), int(model.jnt_type[i])
        if model.jnt_mimic[i] >= 0 or nq == 0:
            continue
        if jt == 3:  # free: position, quaternion
            q[a : a + 3] = u[a : a + 3]
            q[a + 3 : a + 7] = _quaternion(math.pi * u[a + 3 : a + 6])
        elif jt == 4:
            q[a : a + 4] = _quaternion(math.pi * u[a : a + 3])
        else:
            q[a : a + nq] = u[a : a + nq]
            for k in angle.get(jt, ()):
                q[a + k] *= math.pi
    return q


@st.composite
def states(draw, model, scale: float = 2.0) -> tuple:
    """(q, v, a): a configuration and velocity, acceleration entries in [-scale, scale]."""
    q = draw(configurations(model))
    v, a = (np.array(draw(st.lists(_floats(-scale, scale), min_size=model.nv,
                                   max_size=model.nv))) for _ in range(2))  # fmt: skip
    return q, v, a


def wrenches(model, scale: float = 2.0):
    """External wrenches on the bodies, shape (nb, 6), entries in [-scale, scale]."""
    flat = st.lists(_floats(-scale, scale), min_size=6 * model.nb, max_size=6 * model.nb)
    return flat.map(lambda x: np.array(x).reshape(model.nb, 6))


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


def coordinate_map(model, other, second=None) -> tuple[np.ndarray, np.ndarray]:
    """Where each coordinate of ``model`` sits in ``other``, a model with the same joints by
    name (perhaps in another order, perhaps with more): ``(qi, vi)`` with ``q_other[qi] = q``
    and ``v_other[vi] = v``. ``second``: joint type code -> the suffix of the joint of
    ``other`` that holds a 2-coordinate joint's second coordinate (a chain of two 1-dof
    joints, as ``to_urdf`` writes universal and cylindrical joints); by default one joint
    holds them all."""
    qi, vi = np.zeros(model.nq, np.int64), np.zeros(model.nv, np.int64)
    for i in range(1, model.nb):
        nq, nv = int(model.jnt_nq[i]), int(model.jnt_nv[i])
        if nq == 0:
            continue
        qa, va = int(model.jnt_qadr[i]), int(model.jnt_vadr[i])
        k = other.joint_id(model.joint_names_all[i])
        suffix = (second or {}).get(int(model.jnt_type[i]))
        if suffix is None:
            qi[qa : qa + nq] = other.jnt_qadr[k] + np.arange(nq)
            vi[va : va + nv] = other.jnt_vadr[k] + np.arange(nv)
        else:
            k2 = other.joint_id(model.joint_names_all[i] + suffix)
            qi[qa : qa + 2] = other.jnt_qadr[k], other.jnt_qadr[k2]
            vi[va : va + 2] = other.jnt_vadr[k], other.jnt_vadr[k2]
    return qi, vi


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


# ------------------------------------------------------------------ simulate's two roads
class _OnPythonLoop:
    """A controller without its ``_c_law``: its state, sensor and law, called from
    :func:`robodyn.simulate`'s Python loop."""

    def __init__(self, ctrl):
        self.ctrl = ctrl
        self.state_size = getattr(ctrl, "state_size", 0)
        self.uses_wrench = getattr(ctrl, "uses_wrench", False)

    def __call__(self, *args, **kwargs):
        return self.ctrl(*args, **kwargs)


def on_python_loop(ctrl):
    """The same controller as robodyn.simulate's Python loop runs it (None: zero torque):
    the compiled rollout's parity tests compare the two roads with it."""
    if ctrl is None:
        return lambda t, q, v: np.zeros(np.shape(v))
    return _OnPythonLoop(ctrl)


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


def expect_count(items, n: int, what: str) -> list:
    """``items`` as a list, after checking that there are exactly ``n`` of them (the number
    typed in the test): an oracle's robot list that shrinks (a URDF that stops loading, an
    exception swallowed) or grows unnoticed fails, naming what it found."""
    items = list(items)
    if len(items) != n:
        names = [it[0] if isinstance(it, tuple) else it for it in items]
        raise AssertionError(f"{what}: expected {n}, found {len(items)}: {names}")
    return items


# Every fixed-base arm of example-robot-data (relative names, typed: a robot that disappears
# or is renamed fails the tests that run on each, instead of shrinking them).
ERD_ARMS = (
    "asr_twodof_description/urdf/TwoDofs",
    "baxter_description/urdf/baxter",
    "double_pendulum_description/urdf/double_pendulum",
    "double_pendulum_description/urdf/double_pendulum_continuous",
    "double_pendulum_description/urdf/double_pendulum_simple",
    "finger_edu_description/robots/finger_edu",
    "kinova_description/robots/kinova",
    "panda_description/urdf/panda",
    "panda_description/urdf/panda_collision",
    "so_arm_description/urdf/so100",
    "so_arm_description/urdf/so101",
    "talos_data/robots/talos_left_arm",
    "ur_description/urdf/ur10_joint_limited_robot",
    "ur_description/urdf/ur10_robot",
    "ur_description/urdf/ur3_gripper",
    "ur_description/urdf/ur3_joint_limited_robot",
    "ur_description/urdf/ur3_robot",
    "ur_description/urdf/ur5_gripper",
    "ur_description/urdf/ur5_joint_limited_robot",
    "ur_description/urdf/ur5_robot",
    "xarm_description/urdf/xarm7",
    "z1_description/urdf/z1",
)


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


# ----------------------------------------------------------------------------- viewer
MESH_INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial>'


def mesh_chain_urdf(names, name: str = "r", offset: float | None = None) -> str:
    """A URDF chain of revolute joints with one link per mesh file name, the names written
    as given (repeats allowed; hostile ones too); ``offset``: each joint ``offset`` m above
    its parent (None: at its origin)."""
    origin = "" if offset is None else f'<origin xyz="0 0 {offset:g}"/>'
    links, joints = ['<link name="base"/>'], []
    for k, mesh in enumerate(names):
        links.append(f'<link name="l{k}">{MESH_INERTIAL}<visual><geometry>'
                     f'<mesh filename="{mesh}"/></geometry></visual></link>')  # fmt: skip
        parent = "base" if k == 0 else f"l{k - 1}"
        joints.append(f'<joint name="j{k}" type="revolute"><parent link="{parent}"/>'
                      f'<child link="l{k}"/>{origin}<axis xyz="0 0 1"/>'
                      '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>')  # fmt: skip
    return f'<robot name="{name}">' + "".join(links + joints) + "</robot>"


# ----------------------------------------------------------------------------- MuJoCo
#: where the MJCF files the MuJoCo oracles read are found, below site-packages
MJCF_FOLDERS = (
    "dm_control/suite/*.xml",
    "dm_control/locomotion/walkers/assets/**/*.xml",
    "dm_control/locomotion/soccer/assets/**/*.xml",
    "dm_control/third_party/**/*.xml",
    "gymnasium/envs/mujoco/assets/*.xml",
)


def mujoco_site_packages() -> str:
    """The site-packages folder holding mujoco, dm_control and gymnasium."""
    import mujoco

    return os.path.dirname(os.path.dirname(mujoco.__file__))


def mjcf_files() -> list[str]:
    """Every MJCF model shipped in dm_control (the suite, the locomotion walkers, the
    soccer boxhead, the ant, the Kinova arm and hand) and gymnasium's MuJoCo environments,
    relative to :func:`mujoco_site_packages`, sorted."""
    root = mujoco_site_packages()
    found = set()
    for pattern in MJCF_FOLDERS:
        for path in glob.glob(os.path.join(root, pattern), recursive=True):
            found.add(os.path.relpath(path, root).replace(os.sep, "/"))
    return sorted(found)


MJCF_COMPARED = "compared"
MJCF_NO_JOINT = "loads without a joint: nothing to compare"
_C, _NONE = MJCF_COMPARED, MJCF_NO_JOINT
_NO_MESH = "MuJoCo refuses: Error opening file"  # the mesh it names is not shipped
#: every file of :func:`mjcf_files` with its outcome, typed: compared (MuJoCo compiles it and it
#: has joints), loaded without a joint, or refused by MuJoCo with the message's start (checked by
#: tests/oracle/test_oracle_mjcf.py: a file that appears, disappears or changes fails)
MJCF_EXPECTED = {
    "dm_control/suite/acrobot.xml": _C,
    "dm_control/suite/ball_in_cup.xml": _C,
    "dm_control/suite/cartpole.xml": _C,
    "dm_control/suite/cheetah.xml": _C,
    "dm_control/suite/dog.xml": _C,
    "dm_control/suite/finger.xml": _C,
    "dm_control/suite/fish.xml": _C,
    "dm_control/suite/hopper.xml": _C,
    "dm_control/suite/humanoid.xml": _C,
    "dm_control/suite/humanoid_CMU.xml": _C,
    "dm_control/suite/lqr.xml": _NONE,  # a template the suite fills in code
    "dm_control/suite/manipulator.xml": _C,
    "dm_control/suite/pendulum.xml": _C,
    "dm_control/suite/point_mass.xml": _C,
    "dm_control/suite/quadruped.xml": _C,
    "dm_control/suite/reacher.xml": _C,
    "dm_control/suite/stacker.xml": _C,
    "dm_control/suite/swimmer.xml": _C,
    "dm_control/suite/walker.xml": _C,
    # the fruit fly's build folder: sources whose meshes are not shipped, and a defaults file
    "dm_control/locomotion/walkers/assets/build_fruitfly/assets/drosophila.xml": _NO_MESH,
    "dm_control/locomotion/walkers/assets/build_fruitfly/assets/drosophila_defaults.xml": _NONE,
    "dm_control/locomotion/walkers/assets/build_fruitfly/assets/drosophila_fused.xml": _C,
    "dm_control/locomotion/walkers/assets/build_fruitfly/floor.xml": _NO_MESH,
    "dm_control/locomotion/walkers/assets/build_fruitfly/fruitfly.xml": _NO_MESH,
    "dm_control/locomotion/walkers/assets/dog_v2/dog.xml": _C,
    "dm_control/locomotion/walkers/assets/dog_v2/dog_base.xml": _NONE,  # defaults only
    # the dog's scene includes dog.xml, which defines its own grid texture again
    "dm_control/locomotion/walkers/assets/dog_v2/scene.xml": "MuJoCo refuses: repeated name",
    "dm_control/locomotion/walkers/assets/fruitfly_v2/floor.xml": _C,
    "dm_control/locomotion/walkers/assets/fruitfly_v2/fruitfly.xml": _C,
    "dm_control/locomotion/walkers/assets/humanoid_CMU_V2019.xml": _C,
    "dm_control/locomotion/walkers/assets/humanoid_CMU_V2020.xml": _C,
    "dm_control/locomotion/walkers/assets/jumping_ball/jumping_ball_with_head.xml": _C,
    "dm_control/locomotion/walkers/assets/rodent.xml": _C,
    "dm_control/locomotion/soccer/assets/boxhead/boxhead.xml": _C,
    "dm_control/third_party/ant/ant.xml": _C,
    "dm_control/third_party/kinova/common.xml": _NONE,  # the arm's and hand's shared assets
    "dm_control/third_party/kinova/jaco_arm.xml": _C,
    "dm_control/third_party/kinova/jaco_hand.xml": _C,
    "gymnasium/envs/mujoco/assets/ant.xml": _C,
    "gymnasium/envs/mujoco/assets/half_cheetah.xml": _C,
    "gymnasium/envs/mujoco/assets/hopper.xml": _C,
    "gymnasium/envs/mujoco/assets/humanoid.xml": _C,
    "gymnasium/envs/mujoco/assets/humanoidstandup.xml": _C,
    "gymnasium/envs/mujoco/assets/inverted_double_pendulum.xml": _C,
    "gymnasium/envs/mujoco/assets/inverted_pendulum.xml": _C,
    "gymnasium/envs/mujoco/assets/point.xml": _C,
    "gymnasium/envs/mujoco/assets/pusher.xml": _C,
    "gymnasium/envs/mujoco/assets/pusher_v5.xml": _C,
    "gymnasium/envs/mujoco/assets/reacher.xml": _C,
    "gymnasium/envs/mujoco/assets/swimmer.xml": _C,
    "gymnasium/envs/mujoco/assets/walker2d.xml": _C,
    "gymnasium/envs/mujoco/assets/walker2d_v5.xml": _C,
}


@functools.cache
def mujoco_pair(rel: str):
    """(MjSpec, MjModel, robodyn Model) of one file of :func:`mjcf_files`, each parsed by its
    own library (cached: the MuJoCo oracles share them)."""
    import warnings

    import mujoco

    from robodyn.model.mjcf import load_mjcf

    path = os.path.join(mujoco_site_packages(), rel)
    spec = mujoco.MjSpec.from_file(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MuJoCo's deprecation of settotalmass
        m = spec.compile()
        model = load_mjcf(path)  # its ModelWarning is asserted in tests/test_mjcf.py
    return spec, m, model


class MujocoMap:
    """robodyn's coordinates to MuJoCo's, joints matched by name (MuJoCo's unnamed joint k
    is robodyn's ``"joint{k}"``, as :func:`robodyn.load_mjcf` names it).

    * q: a hinge's or slide's qpos is robodyn's q plus MuJoCo's ``qpos0`` (the joint's
      ``ref``); a ball's and a free joint's qpos are robodyn's q; a mimic joint's is
      ``mult q_leader + offset`` (plus its qpos0);
    * v: MuJoCo's qvel is ``T v`` with T the identity on hinge, slide and ball dofs, a
      mimic's row ``mult`` times its leader's, and for a free joint ``[[0, R], [1, 0]]``
      (``[v_world; omega_b]`` from ``[omega_b; v_b]``, R the body's rotation in MuJoCo's
      data); accelerations ``qacc = T a + b`` with ``b = [R (omega_b x v_b); 0]``;
      generalized forces ``tau = T^T tau_mj``, mass matrices ``M = T^T M_mj T``.
    """

    def __init__(self, model, m) -> None:
        import mujoco

        from robodyn.model import model as rdm

        mj = mujoco.mjtJoint
        kinds = {rdm.JOINT_REVOLUTE: mj.mjJNT_HINGE, rdm.JOINT_PRISMATIC: mj.mjJNT_SLIDE,
                 rdm.JOINT_SPHERICAL: mj.mjJNT_BALL, rdm.JOINT_FREE: mj.mjJNT_FREE}  # fmt: skip
        self.m, self.nq, self.nv = m, model.nq, model.nv
        # (robodyn qadr, vadr, nq, nv, MuJoCo qposadr, dofadr, free body or -1, mult, offset)
        self.plan = []
        seen = []
        for i in range(1, model.nb):
            if model.jnt_nq[i] == 0 and model.jnt_mimic[i] < 0:
                continue
            name = model.joint_names_all[i]
            j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
            if j < 0 and re.fullmatch(r"joint\d+", name):
                j = int(name[5:])
            assert 0 <= j < m.njnt and m.jnt_type[j] == kinds[int(model.jnt_type[i])], name
            src = int(model.jnt_mimic[i]) if model.jnt_mimic[i] >= 0 else i
            nq, nv = int(model.jnt_nq[src]), int(model.jnt_nv[src])
            free = int(model.jnt_type[i]) == rdm.JOINT_FREE
            mult = model.jnt_mimic_mult[i] if src != i else 1.0
            off = model.jnt_mimic_offset[i] if src != i else 0.0
            self.plan.append((int(model.jnt_qadr[src]), int(model.jnt_vadr[src]), nq, nv,
                              int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j]),
                              int(m.jnt_bodyid[j]) if free else -1, mult, off))  # fmt: skip
            seen += range(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + nv)
        assert sorted(seen) == list(range(m.nv)), "every MuJoCo dof is one of robodyn's"

    def q0(self) -> np.ndarray:
        """robodyn's q at MuJoCo's ``qpos0``: zero on hinges and slides, ``qpos0`` itself on
        ball and free joints."""
        q = np.zeros(self.nq)
        for qa, _, nq, _, mq, _, body, _, _ in self.plan:
            if body >= 0 or nq == 4:
                q[qa : qa + nq] = self.m.qpos0[mq : mq + nq]
        return q

    def qpos(self, q) -> np.ndarray:
        out = self.m.qpos0.copy()
        for qa, _, nq, _, mq, _, body, mult, off in self.plan:
            if body >= 0 or nq == 4:  # free and ball joints: the same coordinates
                out[mq : mq + nq] = q[qa : qa + nq]
            else:
                out[mq] += mult * q[qa] + off
        return out

    def maps(self, d, v) -> tuple[np.ndarray, np.ndarray]:
        """(T, b) at the state MuJoCo's data ``d`` holds (after its kinematics)."""
        T, b = np.zeros((self.m.nv, self.nv)), np.zeros(self.m.nv)
        for _, va, _, nv, _, md, body, mult, _ in self.plan:
            if body < 0:
                T[md : md + nv, va : va + nv] = mult * np.eye(nv)
                continue
            R = d.xmat[body].reshape(3, 3)
            T[md : md + 3, va + 3 : va + 6] = R
            T[md + 3 : md + 6, va : va + 3] = np.eye(3)
            b[md : md + 3] = R @ np.cross(v[va : va + 3], v[va + 3 : va + 6])
        return T, b


def scaled_err(got, want) -> float:
    """max |got - want| / max |want| (relative to the quantity's own scale, however small:
    a fly's mass matrix in kg m^2 is ~1e-9)."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = float(np.abs(want).max(initial=0.0))
    return float(np.abs(got - want).max(initial=0.0)) / (scale if scale > 0 else 1.0)


def mujoco_frames(model, m) -> tuple[list, list, list, list]:
    """robodyn's frames of MuJoCo's sites and bodies, and their MuJoCo indices: (site
    frames, sites, body frames, bodies). Names as :func:`robodyn.load_mjcf` gives them: an
    unnamed body k is "body<k>", an unnamed site k "site<k>", a site named like a body the
    frame "<site>_site"."""
    taken = set(model.body_names) | {m.body(i).name for i in range(m.nbody)}
    site_frames = []
    for s in range(m.nsite):
        name = m.site(s).name or f"site{s}"
        site_frames.append(model.frame_id(name if name not in taken else f"{name}_site"))
    bodies = list(range(1, m.nbody))
    body_frames = [model.frame_id(m.body(i).name or f"body{i}") for i in bodies]
    return site_frames, list(range(m.nsite)), body_frames, bodies


def mujoco_errors(model, m, states: int, seed: int) -> dict[str, float]:
    """robodyn's worst errors (:func:`scaled_err`) against MuJoCo's model ``m`` on random
    states, through :class:`MujocoMap`: "rne" inverse dynamics (``mj_rne``: no armature, no
    joint friction), "M" the mass matrix (``mj_fullM``), "qacc" forward dynamics (``mj_forward``
    with ``qfrc_applied = T tau``; the Coulomb friction MuJoCo's disabled constraints leave
    out is added to robodyn's torque; with mimic joints, whose followers MuJoCo moves
    freely, the reduced ``(T^T M T) a = tau - T^T (M b + bias - passive)``), "pose" the
    world poses of the sites' and bodies' frames (``site_xpos/xmat``, ``xpos/xmat``)."""
    import mujoco

    from robodyn import dynamics as dyn
    from robodyn.kinematics import fk

    mp, d = MujocoMap(model, m), mujoco.MjData(m)
    site_frames, sites, body_frames, bodies = mujoco_frames(model, m)
    rng = np.random.default_rng(seed)
    Q = random_configuration(model, rng, size=states)
    V, A, TAU = (rng.normal(size=(states, model.nv)) for _ in range(3))
    rne_rd = dyn.inverse_dynamics(model, Q, V, A, friction=False, armature=False)
    M_rd = dyn.mass_matrix(model, Q)
    qacc_rd = dyn.forward_dynamics(model, Q, V, TAU + model.dof_friction * np.sign(V))
    poses = fk(model, Q)
    worst = dict.fromkeys(("rne", "M", "qacc", "pose"), 0.0)
    for k in range(states):
        d.qpos[:] = mp.qpos(Q[k])
        mujoco.mj_kinematics(m, d)
        T, b = mp.maps(d, V[k])
        d.qvel[:] = T @ V[k]
        d.qfrc_applied[:] = T @ TAU[k] if m.nv == model.nv else 0.0  # T^T T = 1 if square
        mujoco.mj_forward(m, d)
        M_mj = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, M_mj)
        if m.nv == model.nv:
            qacc = T.T @ (d.qacc - b)
        else:
            rhs = TAU[k] - T.T @ (M_mj @ b + d.qfrc_bias - d.qfrc_passive)
            qacc = np.linalg.solve(T.T @ M_mj @ T, rhs)
        worst["qacc"] = max(worst["qacc"], scaled_err(qacc_rd[k], qacc))
        for frames, mj, xpos, xmat in ((site_frames, sites, d.site_xpos, d.site_xmat),
                                       (body_frames, bodies, d.xpos, d.xmat)):  # fmt: skip
            P = poses[k, frames]
            err_p = np.abs(P[:, :3, 3] - xpos[mj]).max(initial=0.0)
            err_R = np.abs(P[:, :3, :3] - xmat[mj].reshape(-1, 3, 3)).max(initial=0.0)
            scale = max(1.0, np.abs(xpos).max(initial=0.0))
            worst["pose"] = max(worst["pose"], err_p / scale, err_R)
        worst["M"] = max(worst["M"], scaled_err(M_rd[k], T.T @ M_mj @ T))
        d.qacc[:] = T @ A[k] + b
        rne = np.zeros(m.nv)
        mujoco.mj_rne(m, d, 1, rne)
        worst["rne"] = max(worst["rne"], scaled_err(rne_rd[k], T.T @ rne))
    return worst
