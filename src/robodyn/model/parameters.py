"""The standard inertial parameters of a model, and back (identification's unknowns).

Per moving body ``i`` (bodies 1 .. nb-1, in the model's order) the 10 standard parameters
about the body (joint) frame, the quantities inverse dynamics is linear in::

    pi_i = [m, m c_x, m c_y, m c_z, Ixx, Ixy, Ixz, Iyy, Iyz, Izz]

where ``I_o = I_c + m ([c]^T [c])`` is the rotational inertia about the body-frame origin
(parallel-axis theorem, MR eq. 8.26) and its off-diagonal entries are the tensor's own
(``-int x y dm``). Then, per dof (every one, as the model's ``dof_damping``,
``dof_friction`` and ``dof_armature``; a floating base's are 0 in a URDF model and stay
near 0 when identified), optional blocks in this order:

* ``friction=True``: viscous damping ``b`` (N m s/rad), Coulomb friction ``f_c`` (N m);
* ``offset=True``: a constant torque offset ``tau_0`` (N m; the Model has no such field);
* ``armature=True``: rotor inertia (kg m^2).

These match :func:`robodyn.inverse_dynamics`'s equation ``... + b v + f_c sgn(v) +
armature a`` so that ``regressor(model, q, v, a) @ parameters(model) ==
inverse_dynamics(model, q, v, a)``.

Note that :meth:`robodyn.RigidInertia.to_vector` orders its rotational part moments first
(``Ixx, Iyy, Izz, Ixy, Iyz, Ixz``); identification uses the order above (the usual one in
the identification literature), :func:`inertia_vector` converts.

The vector is a view of the Model's own numbers, so it lives in the model layer
(:meth:`Model.with_parameters <robodyn.model.model.Model.with_parameters>` calls
:func:`with_parameters` without reaching up into identification);
:mod:`robodyn.ident` hands the same names on.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from ..errors import ModelError, ModelWarning

__all__ = [
    "BODY_PARAMETER_NAMES",
    "ParameterLayout",
    "inertia_vector",
    "joint_dofs",
    "layout",
    "parameter_names",
    "parameters",
    "physical_violations",
    "pseudo_inertia",
    "with_parameters",
]

#: Names of the ten inertial parameters of a body, in the order of its 10-vector.
BODY_PARAMETER_NAMES = ("m", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz")
_TRIU = (np.array([0, 0, 0, 1, 1, 2]), np.array([0, 1, 2, 1, 2, 2]))  # Ixx Ixy Ixz Iyy Iyz Izz


def joint_dofs(model) -> np.ndarray:
    """Indices in v of the dofs that carry joint friction and armature columns: every dof
    (inverse dynamics applies ``dof_damping``, ``dof_friction`` and ``dof_armature`` to
    each, a free joint's included), shape (nv,), int."""
    return np.arange(model.nv)


@dataclasses.dataclass(frozen=True)
class ParameterLayout:
    """Where each group of parameters sits in the parameter vector.

    ``bodies`` 10 (nb - 1) columns first, then the joint blocks (each nj long or empty).
    """

    nb: int  # bodies, world included
    dofs: np.ndarray  # (nj,) joint dofs, indices in v
    friction: bool
    offset: bool
    armature: bool

    @property
    def n_body(self) -> int:
        return 10 * (self.nb - 1)

    def block(self, name: str) -> slice | None:
        """Slice of the ``"viscous"``, ``"coulomb"``, ``"offset"`` or ``"armature"`` block."""
        nj, start = len(self.dofs), self.n_body
        for key, on in (
            ("viscous", self.friction),
            ("coulomb", self.friction),
            ("offset", self.offset),
            ("armature", self.armature),
        ):
            if on:
                if key == name:
                    return slice(start, start + nj)
                start += nj
        return None

    @property
    def size(self) -> int:
        nj = len(self.dofs)
        return self.n_body + nj * (2 * self.friction + self.offset + self.armature)


def layout(model, *, friction=True, offset=False, armature=True) -> ParameterLayout:
    """The :class:`ParameterLayout` of ``model`` with these optional blocks."""
    return ParameterLayout(
        model.nb, joint_dofs(model), bool(friction), bool(offset), bool(armature)
    )


def inertia_vector(mass, com, inertia_c) -> np.ndarray:
    """The 10 standard parameters from (m, c, I_c), batched.

    Parameters
    ----------
    mass : array_like, shape (...,)  (kg)
    com : array_like, shape (..., 3)  centre of mass in the body frame (m)
    inertia_c : array_like, shape (..., 3, 3)  inertia about the CoM, body axes (kg m^2)

    Returns
    -------
    numpy.ndarray, shape (..., 10)
        ``[m, m c, Ixx, Ixy, Ixz, Iyy, Iyz, Izz]`` with ``I_o = I_c + m (c^T c 1 - c c^T)``.
    """
    m = np.asarray(mass, dtype=float)
    c = np.asarray(com, dtype=float)
    I_c = np.asarray(inertia_c, dtype=float)
    cc = np.einsum("...i,...i->...", c, c)
    I_o = I_c + m[..., None, None] * (
        cc[..., None, None] * np.eye(3) - np.einsum("...i,...j->...ij", c, c)
    )  # Steiner, MR eq. 8.26
    return np.concatenate([m[..., None], m[..., None] * c, I_o[..., _TRIU[0], _TRIU[1]]], -1)


def _split(pi10: np.ndarray):
    """(m, h, I_o) from (..., 10)."""
    m = pi10[..., 0]
    h = pi10[..., 1:4]
    I_o = np.zeros((*pi10.shape[:-1], 3, 3))
    I_o[..., _TRIU[0], _TRIU[1]] = pi10[..., 4:]
    I_o[..., _TRIU[1], _TRIU[0]] = pi10[..., 4:]
    return m, h, I_o


def parameters(model, *, friction: bool = True, offset: bool = False, armature: bool = True):
    """The standard parameter vector pi of ``model``.

    Parameters
    ----------
    model : Model
    friction, offset, armature : bool
        Include the joints' viscous and Coulomb friction, a torque offset (0 in a Model),
        and the armature (see the module docstring for the order).

    Returns
    -------
    numpy.ndarray, shape (P,)
        ``P = 10 (nb - 1) + nj (2 friction + offset + armature)``; units kg, kg m, kg m^2,
        N m s/rad, N m.
    """
    lay = layout(model, friction=friction, offset=offset, armature=armature)
    out = np.zeros(lay.size)
    out[: lay.n_body] = inertia_vector(
        model.body_mass[1:], model.body_com[1:], model.body_inertia[1:]
    ).ravel()
    for name, values in (
        ("viscous", model.dof_damping),
        ("coulomb", model.dof_friction),
        ("armature", model.dof_armature),
    ):
        sl = lay.block(name)
        if sl is not None:
            out[sl] = values[lay.dofs]
    return out


def parameter_names(
    model, *, friction: bool = True, offset: bool = False, armature: bool = True
) -> list[str]:
    """Names of the entries of :func:`parameters`, e.g. ``"link2.mcx"``, ``"joint3.viscous"``."""
    lay = layout(model, friction=friction, offset=offset, armature=armature)
    names = [f"{model.body_names[i]}.{p}" for i in range(1, model.nb) for p in BODY_PARAMETER_NAMES]
    joint_of_dof = [model.joint_names_all[b] for b in model.dof_body]
    for block in ("viscous", "coulomb", "offset", "armature"):
        if lay.block(block) is not None:
            names += [f"{joint_of_dof[d]}.{block}" for d in lay.dofs]
    return names


def _check_pi(model, pi, lay: ParameterLayout) -> np.ndarray:
    pi = np.asarray(pi, dtype=float)
    if pi.shape != (lay.size,):
        raise ValueError(
            f"pi must have shape ({lay.size},) for this model (10 x {model.nb - 1} bodies"
            f" + {lay.size - lay.n_body} joint columns), got {pi.shape}"
        )
    if not np.all(np.isfinite(pi)):
        raise ValueError(f"pi has non-finite entries at {np.flatnonzero(~np.isfinite(pi))}")
    return pi


def _infer_layout(model, size: int, friction, offset, armature) -> ParameterLayout:
    """The layout whose size is ``size`` (explicit flags win)."""
    if friction is not None or offset is not None or armature is not None:
        return layout(
            model,
            friction=True if friction is None else friction,
            offset=bool(offset),
            armature=True if armature is None else armature,
        )
    for f, o, a in ((True, False, True), (True, True, True), (False, False, False)):
        lay = layout(model, friction=f, offset=o, armature=a)
        if lay.size == size:
            return lay
    return layout(model)


def with_parameters(model, pi, *, friction=None, offset=None, armature=None):
    """The model with its inertias (and joint friction, armature) replaced by ``pi``.

    ``(m, c, I_c)`` come from pi by the parallel-axis theorem in reverse: ``c = h / m``,
    ``I_c = I_o - m (c^T c 1 - c c^T)``. Non-physical values (a negative mass, an inertia
    that is not positive definite, as plain least squares may give) are kept, since the
    dynamics stay linear in them, with a :class:`robodyn.ModelWarning`; a zero mass with
    a nonzero first moment cannot be stored as (m, c, I_c) and raises ModelError. A torque
    offset block is dropped (the Model has no offset) with a warning when nonzero.

    Parameters
    ----------
    model : Model
    pi : array_like, shape (P,)
        As :func:`parameters` returns it; the layout is inferred from the size unless
        ``friction``, ``offset`` or ``armature`` are given.

    Returns
    -------
    Model
    """
    lay = _infer_layout(model, np.size(pi), friction, offset, armature)
    pi = _check_pi(model, pi, lay)
    m, h, I_o = _split(pi[: lay.n_body].reshape(-1, 10))
    scale = max(1.0, float(np.abs(pi[: lay.n_body]).max(initial=0.0)))
    zero = np.abs(m) <= 1e-300
    bad = zero & ((np.abs(h).max(-1) > 1e-14 * scale) | (np.abs(I_o).max((-1, -2)) > 0))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0]) + 1
        raise ModelError(
            f"body {model.body_names[i]!r}: mass 0 with a nonzero first moment or inertia "
            "cannot be stored as (m, c, I_c)"
        )
    c = np.where(zero[:, None], 0.0, h / np.where(zero, 1.0, m)[:, None])
    cc = np.einsum("ij,ij->i", c, c)
    I_c = I_o - m[:, None, None] * (cc[:, None, None] * np.eye(3) - np.einsum("ij,ik->ijk", c, c))
    viol = physical_violations(pi[: lay.n_body], names=model.body_names[1:])
    if viol:
        warnings.warn(
            "with_parameters: non-physical inertial parameters kept: " + "; ".join(viol),
            ModelWarning,
            stacklevel=2,
        )
    fields = dict(
        body_mass=np.concatenate([model.body_mass[:1], m]),
        body_com=np.concatenate([model.body_com[:1], c]),
        body_inertia=np.concatenate([model.body_inertia[:1], I_c]),
    )
    for name, field in (
        ("viscous", "dof_damping"),
        ("coulomb", "dof_friction"),
        ("armature", "dof_armature"),
    ):
        sl = lay.block(name)
        if sl is not None:
            values = np.array(getattr(model, field))
            values[lay.dofs] = pi[sl]
            fields[field] = values
    sl = lay.block("offset")
    if sl is not None and np.any(pi[sl] != 0):
        warnings.warn(
            "with_parameters: the torque offsets are not part of a Model and were dropped",
            ModelWarning,
            stacklevel=2,
        )
    return dataclasses.replace(model, **fields)


def pseudo_inertia(pi10) -> np.ndarray:
    """The 4x4 pseudo-inertia ``J = [[Sigma, h], [h^T, m]]``, ``Sigma = tr(I_o)/2 1 - I_o``
    (the second moment ``int r r^T dm``), batched: (..., 10) -> (..., 4, 4).

    A body is physically consistent (density >= 0 somewhere) iff J is positive
    semi-definite (Wensing, Kim and Slotine 2017); positive definite is the strict case.
    """
    m, h, I_o = _split(np.asarray(pi10, dtype=float))
    tr = np.trace(I_o, axis1=-2, axis2=-1)
    J = np.zeros((*m.shape, 4, 4))
    J[..., :3, :3] = 0.5 * tr[..., None, None] * np.eye(3) - I_o
    J[..., :3, 3] = h
    J[..., 3, :3] = h
    J[..., 3, 3] = m
    return J


def physical_violations(pi_bodies, names=None, tol: float = 1e-12) -> list[str]:
    """What is non-physical in 10-parameter blocks: one line per body (empty: all valid).

    A body is valid when its pseudo-inertia is positive semi-definite (mass >= 0, the
    inertia about the CoM positive semi-definite with the triangle inequality), within
    ``tol`` relative to its largest entry. Massless bodies with zero parameters are valid.
    """
    blocks = np.asarray(pi_bodies, dtype=float).reshape(-1, 10)
    J = pseudo_inertia(blocks)
    eig = np.linalg.eigvalsh(J)
    out = []
    for k, (e, b) in enumerate(zip(eig, blocks)):
        scale = np.abs(J[k]).max()
        if e.min() < -tol * max(scale, 1e-300):
            who = names[k] if names is not None else f"body {k + 1}"
            why = f"mass {b[0]:.4g} kg" if b[0] <= 0 else f"pseudo-inertia eigenvalue {e.min():.3g}"
            out.append(f"{who}: {why}")
    return out
