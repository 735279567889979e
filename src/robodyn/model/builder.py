"""Programmatic construction of a :class:`~robodyn.model.model.Model`.

Every loader (URDF, DH, product of exponentials, bundled data files) feeds
:class:`ModelBuilder`, so the checks and the normal form live in one place:

1. validation: names, parents, cycles, joint types, axes, transforms, limits, mimics, all
   reported as :class:`~robodyn.errors.ModelError` naming the element;
2. depth-first renumbering (children in insertion order, free-joint children of the world
   first) so that every subtree is a contiguous range of body indices;
3. merging of fixed-joint children into their parent body (inertias moved and added,
   grandchildren re-attached with composed placements, the merged link's frame kept as an
   operational frame, the merge recorded in ``Model.notes``);
4. coordinate bookkeeping: ``jnt_qadr/jnt_vadr`` in body order, mimic joints owning no
   coordinate, ``dof_body/dof_parent``, limits, damping, friction, armature, frames.

Free joint (a floating base, or a floating body anywhere in the tree): ``q = [x, y, z, qw,
qx, qy, qz]`` (body origin in the joint frame, unit quaternion scalar first), ``v =
[omega_b, v_b]`` (body twist). Its limits are ``-inf..inf`` for the position and ``-1..1``
for the quaternion entries; its velocity and effort limits are infinite. Continuous joints
are revolute joints with infinite position limits. The joints of MR Table 2.1: "spherical"
(q = [qw, qx, qy, qz], v = omega_b), "planar" (q = (phi, x, y) in the plane normal to the
axis, v = planar body twist (omega, v_1, v_2)), "helical" (q = theta, translation pitch *
theta along the axis), "cylindrical" (q = (theta, d)) and "universal" (q = (theta_1,
theta_2), ``R = Rot(axis, theta_1) Rot(axis2, theta_2)``); the position limits apply to the
helical angle only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..errors import ModelError
from ..inertia import compound
from . import joints
from ._native import frozen_arrays
from .model import Model, built

__all__ = ["ModelBuilder", "JOINT_TYPES", "MAX_LENGTH", "MAX_MASS", "MAX_INERTIA"]

#: The largest length (m), mass (kg) and inertia (kg m^2, = MAX_MASS MAX_LENGTH^2) a model
#: may hold. Beyond them the products the dynamics form from the model alone (m |c|^2,
#: R p, composite inertias m |p|^2 over a chain) come near the float64 range (~1.8e308) and
#: a state of ordinary size makes them overflow: a unit or export error (mm written as m
#: is 1e3, not 1e30), refused naming the element. Within them, a model's own products stay
#: below ~1e100 and what overflows is the state (which the core then reports).
MAX_LENGTH = 1e30
MAX_MASS = 1e30
MAX_INERTIA = 1e90

#: Joint type names accepted by :meth:`ModelBuilder.add_body`, with their codes in the Model.
JOINT_TYPES: dict[str, int] = {
    "revolute": joints.JOINT_REVOLUTE,
    "continuous": joints.JOINT_REVOLUTE,
    "prismatic": joints.JOINT_PRISMATIC,
    "fixed": joints.JOINT_FIXED,
    "free": joints.JOINT_FREE,
    "floating": joints.JOINT_FREE,
    "spherical": joints.JOINT_SPHERICAL,
    "planar": joints.JOINT_PLANAR,
    "helical": joints.JOINT_HELICAL,
    "cylindrical": joints.JOINT_CYLINDRICAL,
    "universal": joints.JOINT_UNIVERSAL,
}

_NQ = {joints.JOINT_FIXED: 0, joints.JOINT_REVOLUTE: 1, joints.JOINT_PRISMATIC: 1,
       joints.JOINT_FREE: 7, joints.JOINT_SPHERICAL: 4, joints.JOINT_PLANAR: 3,
       joints.JOINT_HELICAL: 1, joints.JOINT_CYLINDRICAL: 2, joints.JOINT_UNIVERSAL: 2}  # fmt: skip
_NV = {joints.JOINT_FIXED: 0, joints.JOINT_REVOLUTE: 1, joints.JOINT_PRISMATIC: 1,
       joints.JOINT_FREE: 6, joints.JOINT_SPHERICAL: 3, joints.JOINT_PLANAR: 3,
       joints.JOINT_HELICAL: 1, joints.JOINT_CYLINDRICAL: 2, joints.JOINT_UNIVERSAL: 2}  # fmt: skip
_AXIAL = (joints.JOINT_REVOLUTE, joints.JOINT_PRISMATIC, joints.JOINT_PLANAR,
          joints.JOINT_HELICAL, joints.JOINT_CYLINDRICAL, joints.JOINT_UNIVERSAL)  # fmt: skip
_ROT_TOL = 1e-6  # tolerance on R^T R = I and det R = 1 for placements
_EYE4 = np.eye(4)
_EYE4.flags.writeable = False


@dataclass
class _BodySpec:
    """One add_body call, stored raw; validated in build()."""

    name: Any
    parent: Any
    joint_name: Any
    joint_type: Any
    axis: Any
    T: Any
    inertia: Any
    lower: Any
    upper: Any
    velocity: Any
    effort: Any
    damping: Any
    friction: Any
    armature: Any
    mimic: Any
    multiplier: Any
    offset: Any
    pitch: Any = 0.0
    axis2: Any = (0.0, 1.0, 0.0)


@dataclass
class _Checked:
    """A validated body: numbers as floats, tuples of floats (axes) and float arrays."""

    name: str
    parent: str
    joint_name: str
    kind: str  # joint type name as given ("continuous" kept for the limits)
    jtype: int
    axis: tuple  # (3,) unit, floats
    T: np.ndarray  # (4, 4)
    mass: float
    com: np.ndarray  # (3,)
    inertia: np.ndarray  # (3, 3) about the CoM
    lower: float
    upper: float
    velocity: float
    effort: float
    damping: float
    friction: float
    armature: float
    mimic: str | None
    multiplier: float
    offset: float
    pitch: float = 0.0
    axis2: tuple | None = None  # (3,) unit, universal joints


class ModelBuilder:
    """Build a :class:`Model` body by body, in chained calls; :meth:`ModelBuilder.build` validates.

    Parameters
    ----------
    name : str
        Model name.
    gravity : array_like, shape (3,)
        Gravitational acceleration in the world frame (m/s^2).
    root : str
        Name of the fixed world body (body 0) that parents may reference.

    Examples
    --------
    >>> from robodyn.model.builder import ModelBuilder
    >>> m = (ModelBuilder(name="arm")
    ...      .add_body("link1", "world", joint_type="revolute", axis=(0, 0, 1))
    ...      .add_frame("tip", "link1", T=[[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    ...      .build())
    >>> m.nq, m.frame_names
    (1, ('world', 'link1', 'tip'))
    """

    def __init__(self, name: str = "robot", gravity=(0.0, 0.0, -9.81), root: str = "world"):
        self.name = name
        self.root = root
        self.gravity = gravity
        self._bodies: list[_BodySpec] = []
        self._frames: list[tuple[Any, Any, Any]] = []  # (name, body, T)

    # ------------------------------------------------------------------ recording
    def add_body(
        self,
        name: str,
        parent: str,
        *,
        joint_name: str | None = None,
        joint_type: str = "revolute",
        axis=(0.0, 0.0, 1.0),
        T=None,
        inertia=None,
        lower: float = -math.inf,
        upper: float = math.inf,
        velocity: float = math.inf,
        effort: float = math.inf,
        damping: float = 0.0,
        friction: float = 0.0,
        armature: float = 0.0,
        mimic: str | None = None,
        multiplier: float = 1.0,
        offset: float = 0.0,
        pitch: float = 0.0,
        axis2=(0.0, 1.0, 0.0),
    ) -> ModelBuilder:
        """Add a body hanging from ``parent`` by its inboard joint.

        Parameters
        ----------
        name : str
            Body (link) name.
        parent : str
            Name of the parent body, or the builder's ``root`` for the world.
        joint_name : str, optional
            Name of the inboard joint (default ``name + "_joint"``).
        joint_type : {"revolute", "continuous", "prismatic", "fixed", "free", "floating", \
"spherical", "planar", "helical", "cylindrical"}
            "floating" is "free"; see the module docstring for each joint's q and v.
        axis : array_like, shape (3,)
            Joint axis in the joint frame (normalised in build()); the plane's normal for
            a planar joint; unused by free and spherical joints.
        T : array_like, shape (4, 4), optional
            Pose of the joint frame in the parent body frame at q = 0 (identity if None).
            At q = 0 the new body frame coincides with the joint frame.
        inertia : RigidInertia, optional
            Mass, CoM and rotational inertia about the CoM in the new body's frame
            (None: massless).
        lower, upper : float
            Position limits (rad or m); ignored for continuous and free joints.
        velocity, effort : float
            Velocity and effort limits (>= 0, inf when unlimited).
        damping, friction, armature : float
            Viscous damping, Coulomb friction and rotor inertia (>= 0) of the joint dofs.
        mimic : str, optional
            Name of the leader joint: ``q = multiplier * q_leader + offset``.
        multiplier, offset : float
            Mimic coefficients.
        pitch : float
            Helical joints: translation along the axis per radian (m/rad).
        axis2 : array_like, shape (3,)
            Universal joints: the second axis, in the frame turned by the first rotation
            (``R = Rot(axis, q_1) Rot(axis2, q_2)``, Pinocchio's JointModelUniversal);
            normalised, not parallel to ``axis``.

        Returns
        -------
        ModelBuilder
            ``self``.
        """
        self._bodies.append(
            _BodySpec(
                name=name,
                parent=parent,
                joint_name=joint_name,
                joint_type=joint_type,
                axis=axis,
                T=T,
                inertia=inertia,
                lower=lower,
                upper=upper,
                velocity=velocity,
                effort=effort,
                damping=damping,
                friction=friction,
                armature=armature,
                mimic=mimic,
                multiplier=multiplier,
                offset=offset,
                pitch=pitch,
                axis2=axis2,
            )
        )
        return self

    def add_frame(self, name: str, body: str, T=None) -> ModelBuilder:
        """Add an operational frame fixed to ``body`` at pose ``T`` (4x4, in the body frame).

        Returns
        -------
        ModelBuilder
            ``self``.
        """
        self._frames.append((name, body, T))
        return self

    def set_gravity(self, g) -> ModelBuilder:
        """Set the gravitational acceleration (3,) in the world frame; returns ``self``."""
        self.gravity = g
        return self

    # ------------------------------------------------------------------ build
    def build(self, *, merge_fixed: bool = True) -> Model:
        """Validate, renumber depth first, merge fixed joints and return the frozen Model.

        Parameters
        ----------
        merge_fixed : bool
            True (the default, as Pinocchio does): a fixed-joint child is merged into its
            parent body (inertias added, its frame kept as an operational frame). False:
            it stays a body of its own with a joint of no degree of freedom (MuJoCo's
            welded bodies); every algorithm gives the same results either way.

        Returns
        -------
        Model
            Frozen, its bodies numbered depth first (every subtree a contiguous range).

        Raises
        ------
        ModelError
            Naming the offending body, joint or frame.
        """
        gravity = _finite_vector(self.gravity, 3, "model gravity")
        if not isinstance(self.root, str) or not self.root:
            raise ModelError(f"root must be a non-empty string, got {self.root!r}")
        bodies = _check_bodies(self._bodies, self.root)
        by_name = {b.name: b for b in bodies}
        frames = _check_frames(self._frames, by_name, self.root)
        _check_tree(bodies, by_name, self.root)
        _check_mimics(bodies)
        order = _dfs_order(bodies, self.root)
        return _assemble(self.name, self.root, gravity, order, frames, bool(merge_fixed))


# ============================================================================= checks
def _float_array(
    x,
    what: str,
    kind: str,
    shape: tuple,
    *,
    show: bool = False,
    wrong_shape: str = "",
    finite: bool = True,
) -> np.ndarray:
    """``x`` as a float array of ``shape`` (None: any length there), or the ModelError the
    loaders raise for bad numbers, naming ``what``: "<what> must be <kind>" (", got <x!r>"
    added when ``show``) for what is not numeric, "<what> <wrong_shape> <its shape>" for a
    wrong shape (``wrong_shape`` defaults to "must be <kind>, got shape") and "<what> has a
    non-finite number" for NaN or inf (unless ``finite`` is False)."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be {kind}" + (f", got {x!r}" if show else "")) from None
    if len(a.shape) != len(shape) or any(k not in (None, m) for k, m in zip(shape, a.shape)):
        raise ModelError(f"{what} {wrong_shape or f'must be {kind}, got shape'} {a.shape}")
    if finite and not _all_finite(a):
        raise ModelError(f"{what} has a non-finite number")
    return a


def _all_finite(a: np.ndarray) -> bool:
    """Every entry of ``a`` finite: its sum is (a NaN or inf makes the sum NaN or inf), or,
    when the sum of finite entries overflows, each one is. (A few entries are summed as
    Python floats: faster than a numpy reduction.)"""
    s = sum(a.ravel().tolist()) if a.size <= 16 else a.sum()
    return math.isfinite(s) or bool(np.all(np.isfinite(a)))


def _finite_vector(x, n: int, what: str) -> np.ndarray:
    if type(x) is tuple and len(x) == n and all(type(v) is float for v in x):
        if math.isfinite(sum(x)):  # (a loader's tuple of floats: checked as floats)
            return np.array(x)
    shape_error = f"must have shape ({n},), got"
    a = _float_array(
        x, what, f"{n} numbers", (n,), show=True, wrong_shape=shape_error, finite=False
    )
    if not _all_finite(a):
        raise ModelError(f"{what} has a non-finite number: {a.tolist()}")
    return a


def _scalar(x, what: str, *, allow_inf: bool = False, of: str = "") -> float:
    """``x`` as a float, finite unless ``allow_inf`` (never NaN), or a ModelError naming
    ``what`` (prefixed by ``of`` and a space when given: the message is built only then)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        what = f"{of} {what}" if of else what
        raise ModelError(f"{what} must be a number, got {x!r}") from None
    if v - v != 0.0 and (v != v or not allow_inf):  # (v - v is 0 for finite v only)
        what = f"{of} {what}" if of else what
        raise ModelError(f"{what} must be a finite number, got {v}")
    return v


def _bounded(x, bound: float, unit: str, what: str) -> None:
    """ModelError when an entry of ``x`` is beyond ``bound`` in magnitude (MAX_LENGTH ...)."""
    big = abs(x) if isinstance(x, float) else float(np.abs(x).max())  # (a load calls this
    if big > bound:  # for every body: the cheap forms)
        raise ModelError(
            f"{what}: {big:.3g} {unit} is beyond robodyn's bound of {bound:.0e} {unit} (the "
            "dynamics' products of such numbers overflow float64); check the units"
        )


def _finite_triple(x, what: str) -> tuple[float, float, float]:
    """:func:`_finite_vector` of 3 numbers as a tuple of floats (a loader's tuple of finite
    floats is returned as it is)."""
    if type(x) is tuple and len(x) == 3:
        a, b, c = x
        if type(a) is float and type(b) is float and type(c) is float and math.isfinite(a + b + c):
            return x
    return tuple(_finite_vector(x, 3, what).tolist())


def _unit(axis: tuple) -> tuple[tuple, float]:
    """(axis / |axis|, |axis|) of a tuple of 3 floats, without overflow or underflow of the
    squares (an axis of 1e200 is the direction of its entries, not a zero vector)."""
    x, y, z = axis
    s = max(abs(x), abs(y), abs(z))
    if s == 0.0:
        return axis, 0.0
    n = math.hypot(x / s, y / s, z / s)
    return (x / s / n, y / s / n, z / s / n), s * n


def _rigid_transform(T, what: str) -> np.ndarray:
    """A 4x4 rigid transform (rotation block re-orthonormalised), or ModelError."""
    if T is None:
        return _EYE4  # (read-only: every use of a checked transform makes a new array)
    if type(T) is np.ndarray and T.dtype == np.float64 and T.shape == (4, 4):
        a = T  # (the loaders' case: the finiteness is checked on the floats below)
    else:
        a = _float_array(T, what, "a 4x4 transform", (4, 4), show=True)
    rows = a.tolist()
    if not math.isfinite(sum(rows[0]) + sum(rows[1]) + sum(rows[2]) + sum(rows[3])):
        if not _all_finite(a):
            raise ModelError(f"{what} has a non-finite number")
    (r00, r01, r02, px), (r10, r11, r12, py), (r20, r21, r22, pz), bottom = rows
    if max(abs(px), abs(py), abs(pz)) > MAX_LENGTH:
        _bounded(a[:3, 3], MAX_LENGTH, "m", f"{what} translation")
    if max(abs(bottom[0]), abs(bottom[1]), abs(bottom[2]), abs(bottom[3] - 1.0)) > _ROT_TOL:
        raise ModelError(f"{what} is not a rigid transform: bottom row {bottom}")
    # |R^T R - 1|max over its six distinct entries (columns orthonormal), and det R
    err = max(
        abs(r00 * r00 + r10 * r10 + r20 * r20 - 1.0),
        abs(r01 * r01 + r11 * r11 + r21 * r21 - 1.0),
        abs(r02 * r02 + r12 * r12 + r22 * r22 - 1.0),
        abs(r00 * r01 + r10 * r11 + r20 * r21),
        abs(r00 * r02 + r10 * r12 + r20 * r22),
        abs(r01 * r02 + r11 * r12 + r21 * r22),
    )
    det = (
        r00 * (r11 * r22 - r12 * r21)
        - r01 * (r10 * r22 - r12 * r20)
        + r02 * (r10 * r21 - r11 * r20)
    )
    if err > _ROT_TOL or abs(det - 1.0) > _ROT_TOL:
        raise ModelError(
            f"{what} is not a rigid transform: |R^T R - I|max = {err:.3g}, det R = {det:.6g}"
        )
    if err <= 1e-15 and abs(det - 1.0) <= 1e-15:  # a rotation to round-off already
        out = a.copy()
        if bottom != [0.0, 0.0, 0.0, 1.0]:
            out[3] = (0.0, 0.0, 0.0, 1.0)
        return out
    out = np.eye(4)  # polar projection onto SO(3) removes the rounding of typed-in rotations
    U, _, Vt = np.linalg.svd(a[:3, :3])
    out[:3, :3] = U @ Vt
    out[:3, 3] = a[:3, 3]
    return out


_BULK = 12  # from this many transforms or inertias on, they are checked in array operations


def _rigid_transforms(Ts: list) -> list:
    """What :func:`_rigid_transform` returns for each of ``Ts``, checked together in array
    operations (a model of many bodies and frames); None where a transform does not clearly
    pass (it is then checked alone, which names it), or for all when they do not make an
    (n, 4, 4) array of numbers."""
    n = len(Ts)
    try:
        A = np.array([_EYE4 if T is None else T for T in Ts], dtype=float)
    except (TypeError, ValueError):
        return [None] * n
    if A.shape != (n, 4, 4):
        return [None] * n
    R = A[:, :3, :3]
    err = np.abs(np.matmul(R.transpose(0, 2, 1), R) - np.eye(3)).max(axis=(1, 2))
    det_err = np.abs(np.linalg.det(R) - 1.0)
    ok = np.isfinite(A).all(axis=(1, 2)) & (np.abs(A[:, :3, 3]).max(axis=1) <= MAX_LENGTH)
    ok &= np.abs(A[:, 3] - (0.0, 0.0, 0.0, 1.0)).max(axis=1) <= _ROT_TOL
    ok &= (err <= _ROT_TOL) & (det_err <= _ROT_TOL)
    A[:, 3] = (0.0, 0.0, 0.0, 1.0)
    rounded = np.flatnonzero(ok & ((err > 1e-15) | (det_err > 1e-15)))
    if rounded.size:  # polar projection onto SO(3), as _rigid_transform
        U, _, Vt = np.linalg.svd(A[rounded, :3, :3])
        A[rounded, :3, :3] = U @ Vt
    return [A[k] if good else None for k, good in enumerate(ok.tolist())]


def _inertias_parts(inertias: list) -> list:
    """What :func:`_inertia_parts` returns for each of ``inertias``, checked together in
    array operations; None where one does not clearly pass (it is then checked alone, which
    names it), or for all when they are not all RigidInertia-like."""
    n = len(inertias)
    try:
        masses = [0.0 if i is None else float(i.mass) for i in inertias]
        C = np.array([_ZERO3 if i is None else i.com for i in inertias], dtype=float)
        I = np.array([_ZERO33 if i is None else i.inertia for i in inertias], dtype=float)
    except (AttributeError, TypeError, ValueError):
        return [None] * n
    if C.shape != (n, 3) or I.shape != (n, 3, 3):
        return [None] * n
    M = np.array(masses)
    big_I = np.abs(I).max(axis=(1, 2))
    asym = np.abs(I - I.transpose(0, 2, 1)).max(axis=(1, 2))
    ok = np.isfinite(M) & np.isfinite(C).all(axis=1) & np.isfinite(I).all(axis=(1, 2))
    ok &= (M >= 0) & (M <= MAX_MASS) & (np.abs(C).max(axis=1) <= MAX_LENGTH)
    ok &= (big_I <= MAX_INERTIA) & (asym <= 1e-9 * np.maximum(1.0, big_I))
    I = np.where((asym > 0)[:, None, None], 0.5 * (I + I.transpose(0, 2, 1)), I)
    return [(masses[k], C[k], I[k]) if good else None for k, good in enumerate(ok.tolist())]


_ZERO3 = np.zeros(3)  # read-only constants: a massless body's parts, the world's axis
_ZERO33 = np.zeros((3, 3))
_ZERO3.setflags(write=False)
_ZERO33.setflags(write=False)


def _inertia_parts(inertia, what: str) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, com (3,), I_c (3, 3)) of a RigidInertia-like object (None: massless)."""
    if inertia is None:
        return 0.0, _ZERO3, _ZERO33
    try:
        m = float(inertia.mass)
        c = np.asarray(inertia.com, dtype=float)
        Ic = np.asarray(inertia.inertia, dtype=float)
    except (AttributeError, TypeError, ValueError):
        raise ModelError(
            f"{what} must be a RigidInertia (mass, com, inertia), got {type(inertia).__name__}"
        ) from None
    if c.shape != (3,) or Ic.shape != (3, 3):
        raise ModelError(f"{what}: com must be (3,) and inertia (3, 3), got {c.shape}, {Ic.shape}")
    (i00, i01, i02), (i10, i11, i12), (i20, i21, i22) = Ic.tolist()
    cs = c.tolist()
    total = m + sum(cs) + i00 + i01 + i02 + i10 + i11 + i12 + i20 + i21 + i22
    if not math.isfinite(total) and not (math.isfinite(m) and _all_finite(c) and _all_finite(Ic)):
        raise ModelError(f"{what} has a non-finite number")  # (a NaN or inf makes the sum
    if m < 0:  # NaN or inf; a finite sum is finite entries)
        raise ModelError(f"{what} has negative mass {m}")
    if m > MAX_MASS:
        _bounded(m, MAX_MASS, "kg", f"{what} mass")
    big_c = max(abs(cs[0]), abs(cs[1]), abs(cs[2]))
    big_I = max(
        abs(i00), abs(i01), abs(i02), abs(i10), abs(i11), abs(i12), abs(i20), abs(i21), abs(i22)
    )
    if big_c > MAX_LENGTH:
        _bounded(c, MAX_LENGTH, "m", f"{what} centre of mass")
    if big_I > MAX_INERTIA:
        _bounded(Ic, MAX_INERTIA, "kg m^2", f"{what} inertia tensor")
    asym = max(abs(i01 - i10), abs(i02 - i20), abs(i12 - i21))
    if asym > 1e-9 * max(1.0, big_I):
        raise ModelError(f"{what} is not symmetric: {Ic.tolist()}")
    # (the parts are read, never written: the Model's arrays and a merge make new ones)
    return m, c, Ic if asym == 0.0 else 0.5 * (Ic + Ic.T)  # (0.5 (I + I) = I)


def _check_bodies(specs: list[_BodySpec], root: str) -> list[_Checked]:
    """Each add_body call validated in turn (names, joint, inertia, limits, mimic) into a
    :class:`_Checked` body; the first problem raises a ModelError naming the body or joint."""
    out: list[_Checked] = []
    seen_body: set[str] = {root}
    seen_joint: dict[str, str] = {}
    n = len(specs)
    bulk = n >= _BULK  # the numbers of many bodies checked together first
    Ts = _rigid_transforms([s.T for s in specs]) if bulk else [None] * n
    parts = _inertias_parts([s.inertia for s in specs]) if bulk else [None] * n
    for s, T_ok, part in zip(specs, Ts, parts):
        jname = _check_names(s, root, seen_body, seen_joint)
        j = f"joint {jname!r} (body {s.name!r})"
        jtype, axis, T, pitch, axis2 = _check_joint(s, j, T_ok)
        m, c, Ic = (
            part if part is not None else _inertia_parts(s.inertia, f"body {s.name!r} inertia")
        )
        lower, upper, (velocity, effort, damping, friction, armature) = _check_limits(s, j, jtype)
        mult, off = _check_mimic_numbers(s, j)
        out.append(
            _Checked(s.name, s.parent, jname, s.joint_type, jtype, axis, T, m, c, Ic, lower,
                     upper, velocity, effort, damping, friction, armature, s.mimic, mult, off,
                     pitch, axis2)
        )  # fmt: skip
    return out


def _check_names(s: _BodySpec, root: str, seen_body: set[str], seen_joint: dict[str, str]) -> str:
    """The body's name, its parent's and its joint's: strings, unique (recorded in
    ``seen_body`` and ``seen_joint``), a parent given; returns the joint's name."""
    if not isinstance(s.name, str) or not s.name:
        raise ModelError(f"body name must be a non-empty string, got {s.name!r}")
    b = f"body {s.name!r}"
    if s.name in seen_body:
        raise ModelError(f"duplicate body name {s.name!r}")
    seen_body.add(s.name)
    if s.parent is None:
        raise ModelError(
            f"{b} has no parent: two roots ({root!r} and {s.name!r}); "
            f"attach it to {root!r} or to another body"
        )
    if not isinstance(s.parent, str):
        raise ModelError(f"{b}: parent must be a body name, got {s.parent!r}")
    jname = s.joint_name if s.joint_name is not None else f"{s.name}_joint"
    if not isinstance(jname, str) or not jname:
        raise ModelError(f"{b}: joint name must be a non-empty string, got {jname!r}")
    if jname in seen_joint:
        raise ModelError(
            f"duplicate joint name {jname!r} (bodies {seen_joint[jname]!r} and {s.name!r})"
        )
    seen_joint[jname] = s.name
    return jname


def _check_joint(s: _BodySpec, j: str, T_checked=None) -> tuple:
    """``(jtype, axis, T, pitch, axis2)`` of the joint ``j``: its type code, unit axis (zeros
    for a joint without one), placement (``T_checked`` when :func:`_rigid_transforms` has
    checked it), pitch (0 but for a helical joint) and second axis (None but for a
    universal joint)."""
    kind = s.joint_type
    if kind not in JOINT_TYPES:
        raise ModelError(
            f"{j}: unknown joint type {kind!r}; expected one of {', '.join(JOINT_TYPES)}"
        )
    jtype = JOINT_TYPES[kind]
    axis = _finite_triple(s.axis, f"{j} axis")  # (a tuple of floats until the Model's array)
    if jtype in _AXIAL:
        unit, n = _unit(axis)
        if n < 1e-12:
            raise ModelError(f"{j} has a zero axis {list(axis)}")
        axis = unit
    else:
        axis = (0.0, 0.0, 0.0)
    T = T_checked if T_checked is not None else _rigid_transform(s.T, f"{j} origin T")
    if (
        jtype not in (joints.JOINT_REVOLUTE, joints.JOINT_PRISMATIC, joints.JOINT_FIXED)
        and s.mimic is not None
    ):
        raise ModelError(f"{j}: a {kind} joint cannot be a mimic joint")
    pitch = _scalar(s.pitch, "pitch", of=j)
    if abs(pitch) > MAX_LENGTH:
        _bounded(pitch, MAX_LENGTH, "m/rad", f"{j} pitch")
    axis2 = None
    if jtype == joints.JOINT_UNIVERSAL:
        axis2 = _finite_triple(s.axis2, f"{j} axis2")
        unit2, n2 = _unit(axis2)
        if n2 < 1e-12:
            raise ModelError(f"{j} has a zero axis2 {list(axis2)}")
        axis2 = unit2
        if np.linalg.norm(np.cross(axis, axis2)) < 1e-6:
            raise ModelError(f"{j}: axis2 {list(axis2)} is parallel to axis")
    return jtype, axis, T, pitch if jtype == joints.JOINT_HELICAL else 0.0, axis2


def _check_limits(s: _BodySpec, j: str, jtype: int) -> tuple[float, float, tuple]:
    """``(lower, upper, (velocity, effort, damping, friction, armature))``: the position
    limits (infinite where the joint type has none), and the velocity and effort limits,
    damping, friction and armature, each >= 0."""
    lower, upper = s.lower, s.upper
    vals = (s.velocity, s.effort, s.damping, s.friction, s.armature)
    if not _plain_limits(lower, upper, vals):  # each number checked, in order, for its message
        lower = _scalar(lower, "lower limit", allow_inf=True, of=j)
        upper = _scalar(upper, "upper limit", allow_inf=True, of=j)
        if lower > upper:
            raise ModelError(f"{j}: lower limit {lower} > upper limit {upper}")
        vals = tuple(_coefficient(v, key, j) for v, key in zip(vals, _COEFFICIENTS))
    limited = jtype in (joints.JOINT_REVOLUTE, joints.JOINT_PRISMATIC, joints.JOINT_HELICAL)
    if not limited or s.joint_type == "continuous":
        lower, upper = -math.inf, math.inf
    return lower, upper, vals


_COEFFICIENTS = ("velocity", "effort", "damping", "friction", "armature")


def _plain_limits(lower, upper, vals: tuple) -> bool:
    """True when the limits and coefficients are floats that pass :func:`_check_limits` as
    they are (a loader's case, told in a few comparisons): lower <= upper (neither NaN),
    velocity and effort >= 0, damping, friction and armature finite and >= 0."""
    v, e, d, f, a = vals
    return (
        type(lower) is float and type(upper) is float and type(v) is float
        and type(e) is float and type(d) is float and type(f) is float and type(a) is float
        and lower <= upper and v >= 0.0 and e >= 0.0
        and 0.0 <= d < math.inf and 0.0 <= f < math.inf and 0.0 <= a < math.inf
    )  # fmt: skip


def _coefficient(x, key: str, j: str) -> float:
    """A velocity or effort limit (>= 0, inf allowed) or a damping, friction or armature
    coefficient (finite, >= 0) of the joint ``j``, or a ModelError naming it."""
    v = _scalar(x, key, allow_inf=key in ("velocity", "effort"), of=j)
    if v < 0:
        word = "limit" if key in ("velocity", "effort") else "coefficient"
        raise ModelError(f"{j}: negative {key} {word} {v}")
    return v


def _check_mimic_numbers(s: _BodySpec, j: str) -> tuple[float, float]:
    """The mimic multiplier and offset (finite), and the leader given by name; whether the
    leader exists is checked once every body is known (:func:`_check_mimics`)."""
    mult, off = s.multiplier, s.offset
    if type(mult) is float and type(off) is float and math.isfinite(mult + off):
        if s.mimic is None or isinstance(s.mimic, str):  # (a loader's floats: as they are)
            return mult, off
    mult = _scalar(s.multiplier, "mimic multiplier", of=j)
    off = _scalar(s.offset, "mimic offset", of=j)
    if s.mimic is not None and not isinstance(s.mimic, str):
        raise ModelError(f"{j}: mimic must be the leader joint's name, got {s.mimic!r}")
    return mult, off


def _check_frames(frames, by_name: dict[str, _Checked], root: str) -> list:
    """The frames as ``(name, body, T)``, each name new and its body existing, ``T`` a
    checked 4x4 rigid transform."""
    out = []
    names = set(by_name) | {root}
    Ts = _rigid_transforms([T for _, _, T in frames]) if len(frames) >= _BULK else None
    for k, (fname, body, T) in enumerate(frames):
        if not isinstance(fname, str) or not fname:
            raise ModelError(f"frame name must be a non-empty string, got {fname!r}")
        if fname in names:
            raise ModelError(f"duplicate frame name {fname!r} (body and frame names share one set)")
        names.add(fname)
        if body != root and body not in by_name:
            raise ModelError(f"frame {fname!r}: body {body!r} does not exist")
        checked = Ts[k] if Ts is not None else None
        if checked is None:
            checked = _rigid_transform(T, f"frame {fname!r} T")
        out.append((fname, body, checked))
    return out


def _check_tree(bodies: list[_Checked], by_name: dict[str, _Checked], root: str) -> None:
    for b in bodies:
        if b.parent != root and b.parent not in by_name:
            raise ModelError(
                f"body {b.name!r} (joint {b.joint_name!r}): parent link {b.parent!r} does not exist"
            )
    reaches: set[str] = {root}
    for b in bodies:
        path: list[str] = []
        on_path: set[str] = set()
        cur = b.name
        while cur not in reaches:
            if cur in on_path:
                k = path.index(cur)
                cyc = path[k:] + [cur]
                raise ModelError(
                    "cycle in the kinematic tree: " + " -> ".join(repr(c) for c in cyc)
                )
            path.append(cur)
            on_path.add(cur)
            cur = by_name[cur].parent
        reaches.update(path)


def _check_mimics(bodies: list[_Checked]) -> None:
    by_joint = {b.joint_name: b for b in bodies}
    for b in bodies:
        if b.mimic is None:
            continue
        j = f"mimic joint {b.joint_name!r}"
        if b.jtype not in (joints.JOINT_REVOLUTE, joints.JOINT_PRISMATIC):
            raise ModelError(f"{j}: a {b.kind} joint cannot mimic another joint")
        lead = by_joint.get(b.mimic)
        if lead is None:
            raise ModelError(f"{j}: leader joint {b.mimic!r} does not exist")
        if lead is b:
            raise ModelError(f"{j} cannot mimic itself")
        if lead.mimic is not None:
            raise ModelError(
                f"{j}: leader joint {b.mimic!r} is itself a mimic joint (of {lead.mimic!r})"
            )
        if lead.jtype not in (joints.JOINT_REVOLUTE, joints.JOINT_PRISMATIC):
            raise ModelError(f"{j}: leader joint {b.mimic!r} is a {lead.kind} joint")


def _dfs_order(bodies: list[_Checked], root: str) -> list[_Checked]:
    """Bodies in depth-first preorder; children in insertion order, free joints of the
    world first (so a floating base owns q[:7])."""
    children: dict[str, list[_Checked]] = {root: []}
    for b in bodies:
        children.setdefault(b.name, [])
    for b in bodies:
        children[b.parent].append(b)
    children[root].sort(key=lambda b: 0 if b.jtype == joints.JOINT_FREE else 1)
    order: list[_Checked] = []
    stack = list(reversed(children[root]))
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(children[b.name]))
    return order


# ============================================================================ assembly
def _moved_sum(host: tuple, child: tuple, T_hc: np.ndarray) -> tuple:
    """Compound inertia of host and child, the child's inertia (body frame {c}) moved into
    the host frame {h} with T_hc = pose of {c} in {h}: c_h = R c_c + p, I_h = R I_c R^T.

    Plain arithmetic: add_body validated each part, and a loader may keep non-physical
    inertias on purpose (load_urdf(strict=False))."""
    R, p = T_hc[:3, :3], T_hc[:3, 3]
    moved = (child[0], R @ child[1] + p, R @ child[2] @ R.T)
    return compound([host, moved])


def _axis2(spec):
    """A universal joint's second axis (zeros for every other body)."""
    return spec.axis2 if spec is not None and spec.axis2 is not None else (0.0, 0.0, 0.0)


def _assemble(name, root, gravity, order, frames, merge_fixed=True) -> Model:
    """The Model of the bodies in depth-first ``order``: fixed-joint children merged into
    their parents (when ``merge_fixed``), then the coordinates, the tree arrays and the dof
    limits laid out in body order."""
    new, frame_list, notes = _merged_bodies(root, order, frames, merge_fixed)
    coords = _coordinates(new)
    tree = _tree_arrays(new, coords)
    limits = _dof_limits(new, coords)
    return _model(name, gravity, new, frame_list, notes, coords, tree, limits)


def _merged_bodies(root, order, frames, merge_fixed: bool) -> tuple[list, list, list]:
    """``(bodies, frames, notes)``: the Model's bodies in order, each a dict (name, joint,
    parent index, jtype, axis, T in the parent, (m, c, I_c) inertia, spec), with a fixed
    joint's child merged into its parent when ``merge_fixed``; the operational frames as
    (name, body index, T_body_frame), each link's own followed by the user's on it; and
    what was merged or follows a leader, for ``Model.notes``."""
    # host[name] = (new body index, T_host_body): the body a link ends up in after merging
    # (T None: the body is its own host, the identity, multiplied by nothing)
    host: dict[str, tuple[int, np.ndarray | None]] = {root: (0, None)}
    new: list[dict] = [
        dict(name=root, joint="", parent=-1, jtype=joints.JOINT_FIXED, axis=_ZERO3, T=_EYE4,
             inertia=(0.0, _ZERO3, _ZERO33), spec=None)
    ]  # fmt: skip
    notes: list[str] = []
    frame_list: list[tuple[str, int, np.ndarray]] = []
    user_frames: dict[str, list] = {}
    for fname, body, T in frames:  # checked by _check_frames
        user_frames.setdefault(body, []).append((fname, T))

    def add_frames(link: str, h: int, T_hl: np.ndarray) -> None:
        frame_list.append((link, h, T_hl))
        for fname, T in user_frames.get(link, []):
            frame_list.append((fname, h, T_hl @ T))

    add_frames(root, 0, _EYE4)
    for b in order:
        ph, T_hp = host[b.parent]
        T_hb = b.T if T_hp is None else T_hp @ b.T  # b's joint frame in its parent's host
        if b.jtype == joints.JOINT_FIXED and merge_fixed:
            host[b.name] = (ph, T_hb)
            notes.append(_merge_fixed_child(new[ph], ph == 0, b, T_hb))
            add_frames(b.name, ph, T_hb)
            continue
        i = len(new)
        host[b.name] = (i, None)
        new.append(
            dict(name=b.name, joint=b.joint_name, parent=ph, jtype=b.jtype, axis=b.axis,
                 T=T_hb, inertia=(b.mass, b.com, b.inertia), spec=b)
        )  # fmt: skip
        add_frames(b.name, i, _EYE4)
        if b.mimic is not None:
            notes.append(
                f"mimic joint {b.joint_name!r} follows {b.mimic!r}: "
                f"q = {b.multiplier:g} * q_{b.mimic} + {b.offset:g}"
            )
    return new, frame_list, notes


def _merge_fixed_child(host: dict, world: bool, b: _Checked, T_hb: np.ndarray) -> str:
    """Merge the fixed-joint child ``b``, placed at ``T_hb`` in its host body, into ``host``
    (its inertia moved and added; the fixed ``world`` carries none); returns the note."""
    target = host["name"]
    if world:
        msg = f"fixed joint {b.joint_name!r} merged link {b.name!r} into {target!r}"
        if b.mass > 0:
            msg += f" (its mass {b.mass:g} kg is carried by the fixed world)"
        return msg
    try:
        host["inertia"] = _moved_sum(host["inertia"], (b.mass, b.com, b.inertia), T_hb)
    except ValueError as exc:
        raise ModelError(f"merging fixed link {b.name!r} into {target!r}: {exc}") from exc
    return f"fixed joint {b.joint_name!r} merged link {b.name!r} into {target!r}"


class _Coordinates(NamedTuple):
    """Where each body's joint keeps its coordinates (lists of nb), and nq, nv."""

    qadr: list[int]
    vadr: list[int]
    nq_j: list[int]  # coordinates each joint owns (0 for a mimic joint)
    nv_j: list[int]
    mimic: list[int]  # the leader's body index, -1 for an ordinary joint
    mult: list[float]
    off: list[float]
    nq: int
    nv: int


def _coordinates(new: list[dict]) -> _Coordinates:
    """q and v addresses: the non-mimic joints' in body order, then each mimic joint shares
    its leader's (and owns no coordinate). (Python lists, made arrays once: a model has a
    few dozen bodies, and numpy's per-element cost is its per-call cost.)"""
    nb = len(new)
    jnt_index = {n["joint"]: i for i, n in enumerate(new) if i > 0}
    qadr, vadr, nqj, nvj = [0] * nb, [0] * nb, [0] * nb, [0] * nb
    mimic, mult, off = [-1] * nb, [1.0] * nb, [0.0] * nb
    nq = nv = 0
    for i in range(1, nb):
        s = new[i]["spec"]
        if s.mimic is None:
            qadr[i], vadr[i] = nq, nv
            nqj[i], nvj[i] = _NQ[s.jtype], _NV[s.jtype]
            nq += nqj[i]
            nv += nvj[i]
    for i in range(1, nb):
        s = new[i]["spec"]
        if s.mimic is not None:
            lead = jnt_index[s.mimic]
            mimic[i], mult[i], off[i] = lead, s.multiplier, s.offset
            qadr[i], vadr[i] = qadr[lead], vadr[lead]
    return _Coordinates(qadr, vadr, nqj, nvj, mimic, mult, off, nq, nv)


class _Tree(NamedTuple):
    """The tree in index form: ``body_parent`` and ``body_subtree_end`` (nb), and each dof's
    owner body and the previous dof towards the root, -1 for none (nv); lists."""

    parent: list[int]
    subtree_end: list[int]
    dof_body: list[int]
    dof_parent: list[int]


def _tree_arrays(new: list[dict], c: _Coordinates) -> _Tree:
    """Parents, subtree ends (the subtree of i is the range i .. end - 1) and the dof tree."""
    nb = len(new)
    parent = [n["parent"] for n in new]
    subtree_end = list(range(1, nb + 1))
    for i in range(nb - 1, 0, -1):
        subtree_end[parent[i]] = max(subtree_end[parent[i]], subtree_end[i])
    dof_body, dof_parent = [0] * c.nv, [-1] * c.nv
    last_dof = [-1] * nb  # last dof on the path root..i
    vadr, nvj = c.vadr, c.nv_j
    for i in range(1, nb):
        prev = last_dof[parent[i]]
        for k in range(nvj[i]):
            d = vadr[i] + k
            dof_body[d] = i
            dof_parent[d] = prev
            prev = d
        last_dof[i] = prev
    return _Tree(parent, subtree_end, dof_body, dof_parent)


class _Limits(NamedTuple):
    """Position limits (nq), and velocity and effort limits, damping, friction and armature
    (nv); lists."""

    q_lower: list[float]
    q_upper: list[float]
    v_limit: list[float]
    effort: list[float]
    damping: list[float]
    friction: list[float]
    armature: list[float]


def _dof_limits(new: list[dict], c: _Coordinates) -> _Limits:
    """Each joint's limits and coefficients at its coordinates; a quaternion's entries lie in
    -1..1, the other coordinates of multi-dof joints are unlimited in position."""
    inf = math.inf
    q_lower, q_upper = [-inf] * c.nq, [inf] * c.nq
    v_limit, effort = [inf] * c.nv, [inf] * c.nv
    damping, friction, armature = [0.0] * c.nv, [0.0] * c.nv, [0.0] * c.nv
    qadr, vadr, nqj, nvj = c.qadr, c.vadr, c.nq_j, c.nv_j
    for i in range(1, len(new)):
        s = new[i]["spec"]
        if nqj[i] == 0:
            continue
        qa, va, n = qadr[i], vadr[i], nvj[i]
        if s.jtype in (joints.JOINT_FREE, joints.JOINT_SPHERICAL):
            e = qa + (3 if s.jtype == joints.JOINT_FREE else 0)  # the quaternion's entries
            q_lower[e : e + 4] = [-1.0] * 4
            q_upper[e : e + 4] = [1.0] * 4
        if s.jtype in (
            joints.JOINT_SPHERICAL,
            joints.JOINT_PLANAR,
            joints.JOINT_CYLINDRICAL,
            joints.JOINT_UNIVERSAL,
        ):
            v_limit[va : va + n], effort[va : va + n] = [s.velocity] * n, [s.effort] * n
        elif s.jtype != joints.JOINT_FREE:
            q_lower[qa], q_upper[qa] = s.lower, s.upper
            v_limit[va], effort[va] = s.velocity, s.effort
        for k in range(va, va + n):
            damping[k], friction[k], armature[k] = s.damping, s.friction, s.armature
    return _Limits(q_lower, q_upper, v_limit, effort, damping, friction, armature)


#: the Model's arrays _model makes, in the order of its items
_ARRAY_FIELDS = (
    "body_parent", "body_subtree_end", "jnt_type", "jnt_qadr", "jnt_vadr", "jnt_nq", "jnt_nv",
    "jnt_mimic", "dof_body", "dof_parent", "frame_body", "jnt_mimic_mult", "jnt_mimic_offset",
    "q_lower", "q_upper", "v_limit", "effort_limit", "dof_damping", "dof_friction",
    "dof_armature", "body_mass", "body_com", "body_inertia", "jnt_axis", "jnt_pitch",
    "jnt_axis2", "gravity", "jnt_R", "jnt_p", "frame_R", "frame_p",
)  # fmt: skip


def _model(
    name, gravity, new, frame_list, notes, c: _Coordinates, tree: _Tree, lim: _Limits
) -> Model:
    """The frozen Model of the assembled bodies, frames, coordinates, tree and limits."""
    nb, nf, nq, nv = len(new), len(frame_list), c.nq, c.nv
    T_joint = [n["T"] for n in new]
    T_frame = [f[2] for f in frame_list]
    # (values, dtype code, shape) of each of _ARRAY_FIELDS, made new, C-contiguous and
    # read-only in one call ("R", "p": the rotations and translations of 4x4 transforms):
    # numpy.array and setflags cost ~0.4 us an array, and a small robot's whole load is a
    # few dozen microseconds; the Model keeps them as they are (model.built)
    arrays = frozen_arrays((
        (tree.parent, "q", (nb,)),
        (tree.subtree_end, "q", (nb,)),
        ([n["jtype"] for n in new], "q", (nb,)),
        (c.qadr, "q", (nb,)),
        (c.vadr, "q", (nb,)),
        (c.nq_j, "q", (nb,)),
        (c.nv_j, "q", (nb,)),
        (c.mimic, "q", (nb,)),
        (tree.dof_body, "q", (nv,)),
        (tree.dof_parent, "q", (nv,)),
        ([f[1] for f in frame_list], "q", (nf,)),
        (c.mult, "d", (nb,)),
        (c.off, "d", (nb,)),
        (lim.q_lower, "d", (nq,)),
        (lim.q_upper, "d", (nq,)),
        (lim.v_limit, "d", (nv,)),
        (lim.effort, "d", (nv,)),
        (lim.damping, "d", (nv,)),
        (lim.friction, "d", (nv,)),
        (lim.armature, "d", (nv,)),
        ([n["inertia"][0] for n in new], "d", (nb,)),
        ([n["inertia"][1] for n in new], "d", (nb, 3)),
        ([n["inertia"][2] for n in new], "d", (nb, 3, 3)),
        ([n["axis"] for n in new], "d", (nb, 3)),
        ([0.0 if n["spec"] is None else n["spec"].pitch for n in new], "d", (nb,)),
        ([_axis2(n["spec"]) for n in new], "d", (nb, 3)),
        (gravity, "d", (3,)),  # (the caller's array: copied)
        (T_joint, "R", (nb, 3, 3)),
        (T_joint, "p", (nb, 3)),
        (T_frame, "R", (nf, 3, 3)),
        (T_frame, "p", (nf, 3)),
    ))  # fmt: skip
    fresh = dict(zip(_ARRAY_FIELDS, arrays))
    return built(
        name=str(name),
        body_names=tuple(n["name"] for n in new),
        joint_names_all=tuple(n["joint"] for n in new),
        frame_names=tuple(f[0] for f in frame_list),
        notes=tuple(notes),
        visuals=(),
        source=None,
        **fresh,
    )
