"""The robot model: a frozen kinematic tree stored as flat, read-only numpy arrays.

Layout (MuJoCo-style names ``object_attribute``, shapes in the comments):

* Body 0 is the fixed, massless world. Every other body ``i`` has exactly one inboard
  joint, also indexed ``i``, and ``body_parent[i] < i``. Bodies are numbered depth first,
  so the subtree of ``i`` is the contiguous range ``i .. body_subtree_end[i] - 1``.
* Joint ``i`` places body ``i`` in its parent: ``T_{parent,i}(q) = T(jnt_R[i], jnt_p[i])
  @ X_J(q_i)`` where ``X_J`` is a rotation about ``jnt_axis[i]`` (revolute), a translation
  along it (prismatic), the identity (``JOINT_FIXED``: the world, or a body kept welded
  to its parent by ``ModelBuilder.build(merge_fixed=False)``), or the full pose
  (``JOINT_FREE``, q = [x, y, z, qw, qx, qy, qz], v = body twist [omega_b, v_b]; on any
  body, not only the root). The joints of MR Table 2.1 beyond R and P: ``JOINT_SPHERICAL``
  (q = unit quaternion [qw, qx, qy, qz], v = omega_b), ``JOINT_PLANAR`` (q = (phi, x, y),
  v = planar body twist (omega_n, v_1, v_2) in the plane normal to ``jnt_axis``),
  ``JOINT_HELICAL`` (q = theta, screw of pitch ``jnt_pitch`` m/rad),
  ``JOINT_CYLINDRICAL`` (q = (theta, d)) and ``JOINT_UNIVERSAL`` (q = (theta_1, theta_2):
  ``Rot(jnt_axis, theta_1) Rot(jnt_axis2, theta_2)``). Each but the universal joint has a
  motion subspace constant in body coordinates, :meth:`Model.joint_subspace`.
* Inertia is (m, c, I_c): ``body_mass``, ``body_com`` (in the body frame) and
  ``body_inertia`` (about the CoM, body axes). Fixed-joint children are merged into
  their parent body; their frames survive as operational frames (``frame_*``).
* A mimic joint follows its leader: ``q_i = jnt_mimic_mult[i] * q_leader +
  jnt_mimic_offset[i]``; it owns no coordinate (``jnt_nq[i] = jnt_nv[i] = 0``) and
  ``jnt_mimic[i]`` is the leader's body index (-1 for ordinary joints).

The compiled core takes the model packed into one flat array
(:func:`robodyn.kernels._pack.packed`), never the Model itself.
"""

from __future__ import annotations

import functools
from dataclasses import MISSING, dataclass, field, fields
from typing import NamedTuple

import numpy as np

from ..errors import ModelError
from . import joints as _joints
from .actuators import Actuators
from .actuators import with_actuators as _with_actuators
from .compose import lock_joints as _lock_joints
from .joints import (
    JOINT_CYLINDRICAL,
    JOINT_FIXED,  # noqa: F401 (re-exported, as all of _joints.__all__)
    JOINT_FREE,
    JOINT_HELICAL,
    JOINT_PLANAR,
    JOINT_PRISMATIC,
    JOINT_REVOLUTE,
    JOINT_SPHERICAL,
    JOINT_TYPE_NAMES,
    JOINT_UNIVERSAL,
    planar_basis,
)
from .parameters import with_parameters as _with_parameters
from .poe_export import to_mr as _to_mr
from .urdf_export import to_urdf as _to_urdf

__all__ = [
    *_joints.__all__,  # the joint type codes and their names, re-exported
    "planar_basis",
    "CSpace",
    "Model",
    "ModelArrays",
    "built",
    "finished",
    "replaced",
]

#: the factors of each joint's configuration space (for :attr:`Model.cspace`)
_JOINT_SPACE = {
    JOINT_REVOLUTE: ("T",),
    JOINT_PRISMATIC: ("R",),
    JOINT_FREE: ("R", "R", "R", "S^3"),
    JOINT_SPHERICAL: ("S^3",),
    JOINT_PLANAR: ("R", "R", "T"),
    JOINT_HELICAL: ("T",),
    JOINT_CYLINDRICAL: ("T", "R"),
    JOINT_UNIVERSAL: ("T", "T"),
}


class CSpace(NamedTuple):
    """A configuration space: its topology as a product of R, S^3 and T factors, and its
    dimension."""

    topology: str
    dim: int

    def __str__(self) -> str:
        return f"{self.topology} (dimension {self.dim})"


class ModelArrays(NamedTuple):
    """The flat arrays of a :class:`Model`, as compiled kernels take them."""

    body_parent: np.ndarray  # (nb,) int64, -1 for the world
    body_subtree_end: np.ndarray  # (nb,) int64, subtree of i is i .. end-1
    body_mass: np.ndarray  # (nb,)
    body_com: np.ndarray  # (nb, 3) centre of mass in the body frame
    body_inertia: np.ndarray  # (nb, 3, 3) rotational inertia about the CoM, body axes
    jnt_type: np.ndarray  # (nb,) int64, JOINT_*
    jnt_axis: np.ndarray  # (nb, 3) unit axis in the joint frame
    jnt_R: np.ndarray  # (nb, 3, 3) rotation of the joint frame in the parent body frame
    jnt_p: np.ndarray  # (nb, 3) origin of the joint frame in the parent body frame
    jnt_qadr: np.ndarray  # (nb,) int64, first index of the joint in q
    jnt_vadr: np.ndarray  # (nb,) int64, first index of the joint in v
    jnt_nq: np.ndarray  # (nb,) int64
    jnt_nv: np.ndarray  # (nb,) int64
    jnt_mimic: np.ndarray  # (nb,) int64, leader body or -1
    jnt_mimic_mult: np.ndarray  # (nb,)
    jnt_mimic_offset: np.ndarray  # (nb,)
    dof_body: np.ndarray  # (nv,) int64, body whose joint owns the dof
    dof_parent: np.ndarray  # (nv,) int64, previous dof towards the root, -1 at the root
    dof_damping: np.ndarray  # (nv,) viscous friction coefficient
    dof_friction: np.ndarray  # (nv,) Coulomb friction torque/force
    dof_armature: np.ndarray  # (nv,) rotor inertia added to M's diagonal
    gravity: np.ndarray  # (3,) in the world frame
    frame_body: np.ndarray  # (nf,) int64, body the frame is fixed to
    frame_R: np.ndarray  # (nf, 3, 3) frame orientation in its body
    frame_p: np.ndarray  # (nf, 3) frame origin in its body


def _index(names: tuple, name, kind: str, kinds: str, listed: tuple | None = None) -> int:
    """Position of ``name`` in ``names``, or a ModelError "no <kind> named <name>; <kinds>:"
    followed by ``listed`` (by default ``names``)."""
    try:
        return names.index(name)
    except ValueError:
        shown = ", ".join(names if listed is None else listed)
        raise ModelError(f"no {kind} named {name!r}; {kinds}: {shown}") from None


def _readonly(a: np.ndarray, dtype) -> np.ndarray:
    """``a`` as a read-only C-contiguous array of ``dtype`` that nothing else can write: a
    copy, unless ``a`` already is one (read-only and owning its data: another Model's
    array, shared by ``dataclasses.replace``, or a builder's frozen fresh array)."""
    if (
        type(a) is np.ndarray
        and a.dtype == dtype
        and not a.flags.writeable
        and a.base is None
        and a.flags.c_contiguous
    ):
        return a
    a = np.ascontiguousarray(a, dtype=dtype).copy()
    a.flags.writeable = False
    return a


_INT_FIELDS = frozenset(
    ("body_parent", "body_subtree_end", "jnt_type", "jnt_qadr", "jnt_vadr", "jnt_nq", "jnt_nv",
     "jnt_mimic", "dof_body", "dof_parent", "frame_body")
)  # fmt: skip


def built(**fields) -> Model:
    """The Model of arrays a builder made, without ``__post_init__``'s copies and checks:
    every array fresh (owned by nothing else), frozen, C-contiguous and of its dtype
    (int64 for the index arrays, float64 for the others), every field given, the bodies
    in depth-first order with body 0 the world. :class:`ModelBuilder` makes them so
    (tests/test_builder.py holds it); anything else goes through ``Model(...)``."""
    model = object.__new__(Model)
    model.__dict__.update(_field_defaults())  # (a field the builder does not know: its
    model.__dict__.update(fields)  # default)
    return model


def finished(model: Model, **changes) -> Model:
    """``model``, just made by :func:`built` and not yet handed to anyone, with the fields
    ``__post_init__`` does not check (``notes``, ``visuals``, ``source``, ``name``) set in
    place (a loader's last step: :func:`replaced` without its copy of every field)."""
    if not changes.keys() <= _UNCHECKED:
        raise ValueError(f"finished() sets only {sorted(_UNCHECKED)}, got {sorted(changes)}")
    model.__dict__.update(changes)
    return model


_UNCHECKED = frozenset(("notes", "visuals", "source", "name"))


def replaced(model: Model, **changes) -> Model:
    """``dataclasses.replace(model, **changes)`` for the fields ``__post_init__`` does not
    check (``notes``, ``visuals``, ``source``, ``name``): the arrays are shared as they are
    (read-only, checked when ``model`` was made), not checked and frozen again."""
    if not changes.keys() <= _UNCHECKED:
        raise ValueError(f"replaced() changes only {sorted(_UNCHECKED)}, got {sorted(changes)}")
    new = object.__new__(Model)
    fields = model.__dict__  # (a frozen dataclass keeps its fields in its __dict__)
    new.__dict__.update({name: fields[name] for name in _field_names()}, **changes)
    return new


@functools.cache
def _field_defaults() -> dict:
    """The Model's fields that have a plain default, with it."""
    return {f.name: f.default for f in fields(Model) if f.default is not MISSING}


@functools.cache
def _field_names() -> tuple[str, ...]:
    """The names of Model's fields (dataclasses.fields builds a new tuple on every call)."""
    return tuple(f.name for f in fields(Model))


@dataclass(frozen=True, eq=False, repr=False)
class Model:
    """An immutable kinematic tree of rigid bodies (see the module docstring for the layout).

    Build one with :class:`robodyn.ModelBuilder`, :func:`robodyn.load_urdf`,
    :func:`robodyn.from_mr`, :func:`robodyn.from_dh` or :func:`robodyn.models.load`;
    never by hand. All arrays are read-only.
    """

    name: str
    body_names: tuple[str, ...]  # (nb,)
    joint_names_all: tuple[str, ...]  # (nb,) name of the inboard joint of each body
    frame_names: tuple[str, ...]  # (nf,)
    body_parent: np.ndarray  # (nb,)
    body_subtree_end: np.ndarray  # (nb,)
    body_mass: np.ndarray  # (nb,)
    body_com: np.ndarray  # (nb, 3)
    body_inertia: np.ndarray  # (nb, 3, 3)
    jnt_type: np.ndarray  # (nb,)
    jnt_axis: np.ndarray  # (nb, 3)
    jnt_R: np.ndarray  # (nb, 3, 3)
    jnt_p: np.ndarray  # (nb, 3)
    jnt_qadr: np.ndarray  # (nb,)
    jnt_vadr: np.ndarray  # (nb,)
    jnt_nq: np.ndarray  # (nb,)
    jnt_nv: np.ndarray  # (nb,)
    jnt_mimic: np.ndarray  # (nb,)
    jnt_mimic_mult: np.ndarray  # (nb,)
    jnt_mimic_offset: np.ndarray  # (nb,)
    dof_body: np.ndarray  # (nv,)
    dof_parent: np.ndarray  # (nv,)
    q_lower: np.ndarray  # (nq,) -inf where unlimited
    q_upper: np.ndarray  # (nq,) +inf where unlimited
    v_limit: np.ndarray  # (nv,) inf where unlimited
    effort_limit: np.ndarray  # (nv,) inf where unlimited
    dof_damping: np.ndarray  # (nv,)
    dof_friction: np.ndarray  # (nv,)
    dof_armature: np.ndarray  # (nv,)
    gravity: np.ndarray  # (3,)
    frame_body: np.ndarray  # (nf,)
    frame_R: np.ndarray  # (nf, 3, 3)
    frame_p: np.ndarray  # (nf, 3)
    notes: tuple[str, ...] = field(default=())  # what the builder merged or adapted
    # URDF models: each <visual> as (body, T_body_geometry (4, 4), UrdfGeometry), and the file
    # read (mesh paths are relative to it); only the 3-D viewer (robodyn.viz) uses them.
    visuals: tuple = field(default=())
    source: str | None = None
    jnt_pitch: np.ndarray | None = None  # (nb,) helical pitch (m/rad), 0 for other joints
    jnt_axis2: np.ndarray | None = None  # (nb, 3) a universal joint's second axis, else 0
    # the motors and gearheads of the dofs (Model.with_actuators, MR sec. 8.9), or None; their
    # reflected inertia is already part of dof_armature
    actuators: Actuators | None = None

    # Not a field: the kernels' packed arrays, set on the instance on first use by
    # robodyn.kernels._pack.packed (a class attribute, so the hot path reads
    # ``model._rd_packed`` without a dict lookup or a try).
    _rd_packed = None

    def __post_init__(self) -> None:
        if self.jnt_pitch is None:
            object.__setattr__(self, "jnt_pitch", np.zeros(len(self.body_names)))
        if self.jnt_axis2 is None:
            object.__setattr__(self, "jnt_axis2", np.zeros((len(self.body_names), 3)))
        d = self.__dict__  # (the frozen fields are set in it, as object.__setattr__ would)
        for name in _field_names():
            v = d[name]
            if name in _INT_FIELDS:
                frozen = _readonly(v, np.int64)
            elif isinstance(v, np.ndarray):
                frozen = _readonly(v, np.float64)
            else:
                continue
            if frozen is not v:
                d[name] = frozen
        nb = len(self.body_names)
        if self.body_parent.shape != (nb,) or self.body_parent[0] != -1:
            raise ModelError("body 0 must be the world with parent -1")
        parents = self.body_parent.tolist()
        if not all(0 <= p < i for i, p in enumerate(parents[1:], 1)):
            raise ModelError("bodies must be in topological order (body_parent[i] < i)")

    # ------------------------------------------------------------------ sizes (int)
    nb = property(lambda self: len(self.body_names), doc="Number of bodies, the world included.")
    nq = property(lambda self: len(self.q_lower), doc="Number of configuration coordinates.")
    nv = property(
        lambda self: len(self.dof_body), doc="Number of velocity coordinates (degrees of freedom)."
    )
    nf = property(lambda self: len(self.frame_names), doc="Number of operational frames.")

    @property
    def floating_base(self) -> bool:
        """True when body 1 hangs on a free joint."""
        return self.nb > 1 and int(self.jnt_type[1]) == JOINT_FREE

    @property
    def cspace(self) -> CSpace:
        """Topology and dimension of the configuration space (MR section 2.3), from the joints.

        A revolute or helical joint adds a circle T (its limits, if any, cut it to an
        interval), a prismatic joint R, a cylindrical joint T x R, a planar joint R^2 x T, a
        spherical joint S^3 (unit quaternions, covering SO(3) twice) and a free joint R^3 x
        S^3; like factors are gathered as R^a x (S^3)^b x T^c. Mimic joints add nothing.

        Returns
        -------
        CSpace
            ``(topology, dim)``, e.g. ``CSpace("R^3 x S^3 x T^12", 18)`` for a quadruped on
            a floating base; ``dim`` is nv, the manifold's dimension.
        """
        count = {"R": 0, "S^3": 0, "T": 0}
        for i in range(1, self.nb):
            if self.jnt_nv[i] == 0:
                continue
            for key in _JOINT_SPACE[int(self.jnt_type[i])]:
                count[key] += 1
        parts = []
        for key, k in count.items():
            if k:
                parts.append(f"{key}^{k}" if key != "S^3" else ("S^3" if k == 1 else f"(S^3)^{k}"))
        return CSpace(" x ".join(parts) if parts else "point", self.nv)

    def joint_subspace(self, i: int, q=None) -> np.ndarray:
        """Motion subspace ``S_i`` (6, jnt_nv[i]) of joint i in body-i coordinates.

        Constant for every joint type but the universal one: revolute ``[a; 0]``, prismatic
        ``[0; a]``, free ``1_6``, spherical ``[1_3; 0]``, planar ``[n, 0, 0; 0, t1, t2]``
        (:func:`planar_basis`), helical ``[a; h a]``, cylindrical ``[a, 0; 0, a]``;
        universal ``[Rot(a2, theta_2)^T a1, a2; 0, 0]`` at the configuration ``q`` (nq,).
        The joint twist is ``S_i v_i`` (a mimic joint's single column is its own,
        unscaled).
        """
        jt, a = int(self.jnt_type[i]), np.asarray(self.jnt_axis[i], dtype=float)
        if jt == JOINT_UNIVERSAL:
            if q is None:
                raise ModelError(
                    f"joint {self.joint_names_all[i]!r}: a universal joint's motion subspace "
                    "depends on q; pass q"
                )
            from ..spatial import exp3

            a2 = np.asarray(self.jnt_axis2[i], dtype=float)
            u = exp3(a2 * float(q[int(self.jnt_qadr[i]) + 1])).T @ a
            return np.stack([np.r_[u, 0.0, 0.0, 0.0], np.r_[a2, 0.0, 0.0, 0.0]], axis=1)
        z = np.zeros(3)
        if jt == JOINT_REVOLUTE:
            cols = [np.r_[a, z]]
        elif jt == JOINT_PRISMATIC:
            cols = [np.r_[z, a]]
        elif jt == JOINT_FREE:
            return np.eye(6)
        elif jt == JOINT_SPHERICAL:
            return np.eye(6)[:, :3]
        elif jt == JOINT_PLANAR:
            t1, t2 = planar_basis(a)
            cols = [np.r_[a, z], np.r_[z, t1], np.r_[z, t2]]
        elif jt == JOINT_HELICAL:
            cols = [np.r_[a, float(self.jnt_pitch[i]) * a]]
        elif jt == JOINT_CYLINDRICAL:
            cols = [np.r_[a, z], np.r_[z, a]]
        else:
            return np.zeros((6, 0))
        return np.stack(cols, axis=1)

    @property
    def joint_names(self) -> tuple[str, ...]:
        """Names of the joints that own coordinates, in q order (the free joint included)."""
        return tuple(
            self.joint_names_all[i]
            for i in np.argsort(self.jnt_qadr, kind="stable")
            if self.jnt_nq[i] > 0
        )

    @property
    def total_mass(self) -> float:
        """Sum of the body masses (kg)."""
        return float(self.body_mass.sum())

    # ------------------------------------------------------------------ lookup
    def body_id(self, name: str) -> int:
        """Index of the body called ``name`` (ModelError listing the names if absent)."""
        return _index(self.body_names, name, "body", "bodies")

    def frame_id(self, frame: str | int) -> int:
        """Index of an operational frame given by name or index."""
        if isinstance(frame, (int, np.integer)):
            if not 0 <= int(frame) < self.nf:
                raise ModelError(f"frame index {frame} out of range 0..{self.nf - 1}")
            return int(frame)
        return _index(self.frame_names, frame, "frame", "frames")

    def joint_id(self, name: str) -> int:
        """Body index of the joint called ``name``."""
        return _index(self.joint_names_all, name, "joint", "joints", self.joint_names)

    def arrays(self) -> ModelArrays:
        """The flat arrays the compiled kernels take (cached; the Model is immutable)."""
        cached = self.__dict__.get("_arrays")
        if cached is None:
            cached = ModelArrays(**{k: getattr(self, k) for k in ModelArrays._fields})
            object.__setattr__(self, "_arrays", cached)
        return cached

    def with_parameters(self, pi, **kwargs) -> Model:
        """A copy with the inertial (and joint) parameters ``pi`` of
        :func:`robodyn.parameters`; see :func:`robodyn.ident.with_parameters`."""
        return _with_parameters(self, pi, **kwargs)

    def with_actuators(self, gear_ratio, rotor_inertia=0.0, *, efficiency=1.0,
                       stall_torque=None, free_speed=None) -> Model:  # fmt: skip
        """A copy driven by electric motors behind gearheads (MR sec. 8.9).

        Joint j's motor turns ``G_j`` times faster than the joint and its torque reaches
        the joint as ``tau = eta G tau_m`` (MR sec. 8.9.1); the rotor's apparent inertia
        ``G^2 I_rotor`` (MR sec. 8.9.2) is added to ``dof_armature``, so ``M(q)``, inverse
        and forward dynamics, energies and simulations include it. The returned model's
        ``actuators`` (:class:`robodyn.model.actuators.Actuators`) maps motor and joint
        torques and speeds and gives the speed-dependent torque limit
        ``eta G tau_stall max(0, 1 - |G v| / omega_0)`` that
        ``rd.simulate(..., clip_torque=True)`` clips to. This model is unchanged (frozen).

        Parameters
        ----------
        gear_ratio : float or array_like (nv,)
            G > 0 (e.g. 100 for a 100:1 reduction). A scalar applies to every dof but a
            free joint's (a floating base has no motor: G = 1, no rotor, no limit).
        rotor_inertia : float or array_like (nv,)
            I_rotor >= 0, the rotor's inertia about its axis, kg m^2 (motor side).
        efficiency : float or array_like (nv,)
            eta in (0, 1] of the gearhead.
        stall_torque : float or array_like (nv,), optional
            The motor's stall torque tau_stall > 0, N m (motor side): the model's
            ``effort_limit`` becomes ``eta G tau_stall`` on those dofs.
        free_speed : float or array_like (nv,), optional
            The motor's no-load speed omega_0 > 0, rad/s (motor side; needs
            ``stall_torque``): the torque limit falls linearly to zero at joint speed
            ``omega_0 / G``, which becomes the model's ``v_limit``.

        Returns
        -------
        Model
            With ``actuators`` set; a model that had motors has them replaced (its
            armature loses their reflected inertia first; limits they set stay where the
            new motors give none).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-positive (or non-finite) gear ratio,
            stall torque or no-load speed, a negative rotor inertia, an efficiency outside
            (0, 1], or free_speed without stall_torque (each named).

        Examples
        --------
        >>> import numpy as np, robodyn as rd
        >>> arm = rd.models.load("planar_2r")
        >>> geared = arm.with_actuators(gear_ratio=[100.0, 50.0], rotor_inertia=1e-5)
        >>> np.diag(rd.mass_matrix(geared, [0, 0]) - rd.mass_matrix(arm, [0, 0]))
        array([0.1  , 0.025])
        >>> geared.actuators.motor_torque([10.0, 5.0])  # tau_m = tau / (eta G)
        array([0.1, 0.1])
        """
        return _with_actuators(self, gear_ratio, rotor_inertia, efficiency=efficiency,
                               stall_torque=stall_torque, free_speed=free_speed)  # fmt: skip

    def to_mr(self, frame: str | int = "ee"):
        """``(M, Slist, Mlist, Glist)`` of a serial chain; see :func:`robodyn.model.poe.to_mr`."""
        return _to_mr(self, frame)

    def to_urdf(self, path=None, *, overwrite: bool = False):
        """Write the model as URDF (returns the path; the text when ``path`` is None);
        see :func:`robodyn.to_urdf`."""
        return _to_urdf(self, path, overwrite=overwrite)

    def lock_joints(self, names, q) -> Model:
        """The reduced model with the joints ``names`` fixed at ``q`` (their bodies merged
        into their parents, frames kept); see :func:`robodyn.lock_joints`."""
        return _lock_joints(self, names, q)

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        base = "floating" if self.floating_base else "fixed"
        return (
            f"Model({self.name!r}, nq={self.nq}, nv={self.nv}, bodies={self.nb - 1}, "
            f"frames={self.nf}, mass={self.total_mass:.4g} kg, {base} base)"
        )

    def __str__(self) -> str:
        lines = [repr(self)]
        lines.append(f"  gravity: {np.array2string(self.gravity, precision=4)}")
        lines.append(
            "  body                      joint                     type       parent  mass"
        )
        for i in range(1, self.nb):
            t = JOINT_TYPE_NAMES[int(self.jnt_type[i])]
            if self.jnt_mimic[i] >= 0:
                t = "mimic"
            lines.append(
                f"  {self.body_names[i]:<25} {self.joint_names_all[i]:<25} {t:<10} "
                f"{self.body_names[self.body_parent[i]]:<7} {self.body_mass[i]:.4g}"
            )
        return "\n".join(lines)
