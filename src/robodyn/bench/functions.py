"""The ``functions`` section of ``robodyn bench``: every public numeric function of robodyn
that takes a state (beyond the seven of the latency section), one row each, timed on one
state and as a batch beside its peer in the same run.

The peer is Pinocchio's call for the same quantity where it has one (e.g.
``computeKineticEnergy``, ``computeCentroidalMap``, ``getFrameAcceleration`` after
``forwardKinematics(q, v, a)``), else the Pinocchio calls a user would make to get it
(``computeCoriolisMatrix(q, e_k)`` for each k for the Christoffel symbols, a frame
Jacobian and an SVD for the manipulability). The batch peer is a Python loop over the
peer per state. Before anything is timed each row is checked on the case's check
states: against the peer's result mapped to robodyn's conventions (twists ``[omega, v]``,
robodyn's dof order), or, where the peer's quantity is not robodyn's, against central
finite differences of Pinocchio's (dM/dq from its mass matrix along ``integrate(q, h
e_k)``); the batch is checked equal to the single-state calls. A failed check is a FAIL
row and its times are not shown.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .common import MODELS, RTOL, Config, Progress, _median_time, _rel_err, _row
from .peers import _pin_frame_id
from .robots import Case, _random_states

FD_RTOL = 1e-6  # central differences, step 1e-5: truncation ~1e-10, rounding ~1e-11
_H = 1e-5
_KINDS = {"space": "WORLD", "body": "LOCAL", "world_aligned": "LOCAL_WORLD_ALIGNED"}


@dataclasses.dataclass
class _Pin:
    """Pinocchio's model and data on one case, its frame id and the dof map."""

    pin: Any
    pm: Any
    pd: Any
    fid: int
    mp: Any  # robodyn.convert.PinocchioMap
    nv: int


@dataclasses.dataclass(frozen=True)
class Spec:
    """One row: robodyn's call, the timed peer, how its result reads in robodyn's terms."""

    name: str
    call: str
    rd: Callable  # (model, frame, q, v, a) -> result; q may be a batch when ``batch``
    peer: str
    pin: Callable  # (P, qp, vp, ap) -> Pinocchio's raw result (timed)
    post: Callable  # (P, raw, q, v, a) -> the reference in robodyn's conventions
    value: Callable = np.asarray  # robodyn's result -> the array checked
    check: str = "Pinocchio"
    rtol: float = RTOL
    pair: bool = False  # the third argument is a second configuration q1 = q (+) a (_third)


# ------------------------------------------------------------------ Pinocchio, mapped
def _ang_lin(f) -> np.ndarray:
    """A Pinocchio Motion or Force ``[linear; angular]`` -> ``[angular; linear]``."""
    return np.concatenate([np.asarray(f.angular), np.asarray(f.linear)])


def _sym(P: _Pin, M) -> np.ndarray:
    """An upper-triangular Pinocchio matrix, made whole, in robodyn's dof order."""
    M = np.asarray(M)
    return P.mp.matrix_from_pin(np.triu(M) + np.triu(M, 1).T)


def _cols(P: _Pin, A) -> np.ndarray:
    """Columns of a (k, nv) Pinocchio matrix in robodyn's dof order."""
    return np.asarray(A)[:, P.mp.vperm]


def _lambda_ref(P: _Pin, raw, rows=slice(None)) -> np.ndarray:
    """``(J M^-1 J^T)^-1`` from Pinocchio's M^-1 and body Jacobian (``raw``)."""
    Minv, J = _sym(P, raw[0]), P.mp.jacobian_from_pin(raw[1])[rows]
    return np.linalg.inv(J @ Minv @ J.T)


def _minv_and_jacobian(P: _Pin, qp, rows=slice(None), eig: bool = False):
    """What a Pinocchio user writes for Lambda (timed whole): M^-1 and the body Jacobian,
    then numpy's inverse of J M^-1 J^T (and its eigenvalues for the ellipsoid)."""
    Minv = np.array(P.pin.computeMinverse(P.pm, P.pd, qp))
    Minv = np.triu(Minv) + np.triu(Minv, 1).T
    J = np.array(P.pin.computeFrameJacobian(P.pm, P.pd, qp, P.fid))
    Jk = J[[3, 4, 5, 0, 1, 2]][rows]  # Pinocchio's rows are [v; omega]
    Lam = np.linalg.inv(Jk @ Minv @ Jk.T)
    return Minv, J, np.linalg.eigh(Lam) if eig else Lam


def _jacobian_svd(P: _Pin, qp, rows=slice(None), uv: bool = False):
    """A frame Jacobian and numpy's SVD of its rows (timed whole: what a user writes for
    the manipulability or an ellipsoid)."""
    J = np.array(P.pin.computeFrameJacobian(P.pm, P.pd, qp, P.fid))
    return J, np.linalg.svd(J[[3, 4, 5, 0, 1, 2]][rows], compute_uv=uv)


def _frame_motion(P: _Pin, qp, vp, ap, kind: str, acc: bool):
    pin = P.pin
    ref = getattr(pin, _KINDS[kind])
    if not acc:
        pin.forwardKinematics(P.pm, P.pd, qp, vp)
        pin.updateFramePlacement(P.pm, P.pd, P.fid)
        return pin.getFrameVelocity(P.pm, P.pd, P.fid, ref)
    pin.forwardKinematics(P.pm, P.pd, qp, vp, ap)
    pin.updateFramePlacement(P.pm, P.pd, P.fid)
    if kind == "world_aligned":  # robodyn's is [d omega/dt; classical acceleration]
        return pin.getFrameClassicalAcceleration(P.pm, P.pd, P.fid, ref)
    return pin.getFrameAcceleration(P.pm, P.pd, P.fid, ref)


def _jdot_pin(P: _Pin, qp, vp, kind: str):
    pin = P.pin
    pin.computeJointJacobiansTimeVariation(P.pm, P.pd, qp, vp)
    pin.updateFramePlacement(P.pm, P.pd, P.fid)
    return pin.getFrameJacobianTimeVariation(P.pm, P.pd, P.fid, getattr(pin, _KINDS[kind]))


def _christoffel_pin(P: _Pin, qp):
    """``C(q, e_k)`` for each k (Pinocchio's order of k): Gamma's slices."""
    eye = np.eye(P.nv)
    return [P.pin.computeCoriolisMatrix(P.pm, P.pd, qp, eye[k]) for k in range(P.nv)]


def _christoffel_ref(P: _Pin, raw) -> np.ndarray:
    """Gamma[:, :, k] = C(q, e_k) in robodyn's order (Pinocchio's k-th unit vector is
    robodyn's e_j with vperm[j] = k)."""
    G = np.stack([P.mp.matrix_from_pin(np.array(C)) for C in raw], axis=-1)
    return G[:, :, P.mp.vperm]


def _dmdq_fd(P: _Pin, q) -> np.ndarray:
    """dM_ij/dq_k by central differences of Pinocchio's mass matrix along ``q (+) h e_k``
    (the right-trivialised direction for a floating base, as robodyn's)."""
    qp, eye = P.mp.q_to_pin(q), np.eye(P.nv)
    out = np.empty((P.nv, P.nv, P.nv))
    for k in range(P.nv):
        dp = P.mp.v_to_pin(_H * eye[k])
        Mp = _sym(P, P.pin.crba(P.pm, P.pd, P.pin.integrate(P.pm, qp, dp)))
        Mm = _sym(P, P.pin.crba(P.pm, P.pd, P.pin.integrate(P.pm, qp, -dp)))
        out[:, :, k] = (Mp - Mm) / (2 * _H)
    return out


def _momentum_matrix_ref(P: _Pin, raw, about: str) -> np.ndarray:
    """Pinocchio's A_G (rows [linear; angular]) -> robodyn's rows [angular; linear],
    moved from the centre of mass to the world origin for ``about="origin"``."""
    A = np.array(raw)
    lin, ang = A[:3], A[3:]
    if about == "origin":
        c = np.asarray(P.pd.com[0])
        ang = ang + np.cross(c, lin.T).T
    return _cols(P, np.vstack([ang, lin]))


def _momentum_ref(P: _Pin, raw) -> np.ndarray:
    """Pinocchio's h_G -> robodyn's h_o = [k_G + c x p; p]."""
    c, p = np.asarray(P.pd.com[0]), np.asarray(raw.linear)
    return np.concatenate([np.asarray(raw.angular) + np.cross(c, p), p])


def _svals(P: _Pin, J_pin, rows=slice(None)) -> np.ndarray:
    return np.linalg.svd(P.mp.jacobian_from_pin(J_pin)[rows], compute_uv=False)


_LIN = slice(3, 6)


# ------------------------------------------------------------------ the rows
def _energy_specs(rd) -> list[Spec]:
    return [
        Spec("kinetic_energy", "kinetic_energy(model, q, v)",
             lambda m, f, q, v, a: rd.kinetic_energy(m, q, v), "computeKineticEnergy",
             lambda P, qp, vp, ap: P.pin.computeKineticEnergy(P.pm, P.pd, qp, vp),
             lambda P, raw, q, v, a: raw),
        Spec("potential_energy", "potential_energy(model, q)",
             lambda m, f, q, v, a: rd.potential_energy(m, q), "computePotentialEnergy",
             lambda P, qp, vp, ap: P.pin.computePotentialEnergy(P.pm, P.pd, qp),
             lambda P, raw, q, v, a: raw),
        Spec("mechanical_energy", "mechanical_energy(model, q, v)",
             lambda m, f, q, v, a: rd.mechanical_energy(m, q, v),
             "computeMechanicalEnergy (K + U)",
             lambda P, qp, vp, ap: P.pin.computeMechanicalEnergy(P.pm, P.pd, qp, vp),
             lambda P, raw, q, v, a: raw),
    ]  # fmt: skip


def _momentum_specs(rd) -> list[Spec]:
    pin_hg = lambda P, qp, vp, ap: P.pin.computeCentroidalMomentum(P.pm, P.pd, qp, vp)  # noqa: E731
    pin_ag = lambda P, qp, vp, ap: P.pin.computeCentroidalMap(P.pm, P.pd, qp)  # noqa: E731
    return [
        Spec("momentum", "momentum(model, q, v)",
             lambda m, f, q, v, a: rd.momentum(m, q, v),
             "computeCentroidalMomentum (h_G moved to the origin)", pin_hg,
             lambda P, raw, q, v, a: _momentum_ref(P, raw)),
        Spec("centroidal_momentum", "centroidal_momentum(model, q, v)",
             lambda m, f, q, v, a: rd.centroidal_momentum(m, q, v),
             "computeCentroidalMomentum", pin_hg, lambda P, raw, q, v, a: _ang_lin(raw)),
        Spec("momentum_matrix (origin)", "momentum_matrix(model, q)",
             lambda m, f, q, v, a: rd.momentum_matrix(m, q),
             "computeCentroidalMap (A_G moved to the origin)", pin_ag,
             lambda P, raw, q, v, a: _momentum_matrix_ref(P, raw, "origin")),
        Spec("momentum_matrix (com)", "momentum_matrix(model, q, 'com')",
             lambda m, f, q, v, a: rd.momentum_matrix(m, q, "com"),
             "computeCentroidalMap", pin_ag,
             lambda P, raw, q, v, a: _momentum_matrix_ref(P, raw, "com")),
        Spec("com", "com(model, q)", lambda m, f, q, v, a: rd.com(m, q), "centerOfMass",
             lambda P, qp, vp, ap: P.pin.centerOfMass(P.pm, P.pd, qp),
             lambda P, raw, q, v, a: np.array(raw)),
        Spec("com_jacobian", "com_jacobian(model, q)",
             lambda m, f, q, v, a: rd.com_jacobian(m, q), "jacobianCenterOfMass",
             lambda P, qp, vp, ap: P.pin.jacobianCenterOfMass(P.pm, P.pd, qp),
             lambda P, raw, q, v, a: _cols(P, raw)),
        Spec("com_velocity", "com_velocity(model, q, v)",
             lambda m, f, q, v, a: rd.com_velocity(m, q, v), "centerOfMass(q, v): vcom",
             lambda P, qp, vp, ap: P.pin.centerOfMass(P.pm, P.pd, qp, vp),
             lambda P, raw, q, v, a: np.array(P.pd.vcom[0])),
        Spec("com_acceleration", "com_acceleration(model, q, v, a)",
             lambda m, f, q, v, a: rd.com_acceleration(m, q, v, a),
             "centerOfMass(q, v, a): acom",
             lambda P, qp, vp, ap: P.pin.centerOfMass(P.pm, P.pd, qp, vp, ap),
             lambda P, raw, q, v, a: np.array(P.pd.acom[0])),
        Spec("centroidal_momentum_rate", "centroidal_momentum_rate(model, q, v, a)",
             lambda m, f, q, v, a: rd.centroidal_momentum_rate(m, q, v, a),
             "computeCentroidalMomentumTimeVariation",
             lambda P, qp, vp, ap: P.pin.computeCentroidalMomentumTimeVariation(
                 P.pm, P.pd, qp, vp, ap),
             lambda P, raw, q, v, a: _ang_lin(raw)),
        Spec("centroidal_momentum_rate (dA_G v)", "centroidal_momentum_rate(model, q, v)",
             lambda m, f, q, v, a: rd.centroidal_momentum_rate(m, q, v),
             "computeCentroidalMomentumTimeVariation(q, v, 0)",
             lambda P, qp, vp, ap: P.pin.computeCentroidalMomentumTimeVariation(
                 P.pm, P.pd, qp, vp, 0 * ap),
             lambda P, raw, q, v, a: _ang_lin(raw)),
    ]  # fmt: skip


def _task_space_specs(rd) -> list[Spec]:
    # the peers are timed with the numpy a Pinocchio user writes after its calls; the
    # reference is computed from Pinocchio's M^-1 and Jacobian again, in robodyn's order
    peer = "computeMinverse + computeFrameJacobian (LOCAL), numpy inverse"
    svd = "computeFrameJacobian (LOCAL), numpy SVD"
    return [
        Spec("task_space_inertia", "task_space_inertia(model, q, frame)",
             lambda m, f, q, v, a: rd.task_space_inertia(m, q, f), peer,
             lambda P, qp, vp, ap: _minv_and_jacobian(P, qp),
             lambda P, raw, q, v, a: _lambda_ref(P, raw)),
        Spec("dynamically_consistent_pinv", "dynamically_consistent_pinv(model, q, frame)",
             lambda m, f, q, v, a: rd.dynamically_consistent_pinv(m, q, f), peer,
             lambda P, qp, vp, ap: _minv_and_jacobian(P, qp),
             lambda P, raw, q, v, a: _sym(P, raw[0]) @ P.mp.jacobian_from_pin(raw[1]).T
             @ _lambda_ref(P, raw)),
        Spec("task_space_ellipsoid", "task_space_ellipsoid(model, q, frame).masses",
             lambda m, f, q, v, a: rd.task_space_ellipsoid(m, q, f), peer + ", eigh",
             lambda P, qp, vp, ap: _minv_and_jacobian(P, qp, _LIN, eig=True),
             lambda P, raw, q, v, a: np.linalg.eigvalsh(_lambda_ref(P, raw, _LIN))[::-1],
             value=lambda r: np.asarray(r.masses)),
        Spec("manipulability", "manipulability(model, q, frame)",
             lambda m, f, q, v, a: rd.manipulability(m, q, f), svd,
             lambda P, qp, vp, ap: _jacobian_svd(P, qp),
             lambda P, raw, q, v, a: np.prod(_svals(P, raw[0]))),
        Spec("velocity_ellipsoid", "velocity_ellipsoid(model, q, frame).lengths",
             lambda m, f, q, v, a: rd.velocity_ellipsoid(m, q, f), svd,
             lambda P, qp, vp, ap: _jacobian_svd(P, qp, _LIN, uv=True),
             lambda P, raw, q, v, a: _svals(P, raw[0], _LIN),
             value=lambda r: np.asarray(r.lengths)),
        Spec("force_ellipsoid", "force_ellipsoid(model, q, frame).lengths",
             lambda m, f, q, v, a: rd.force_ellipsoid(m, q, f), svd,
             lambda P, qp, vp, ap: _jacobian_svd(P, qp, _LIN, uv=True),
             lambda P, raw, q, v, a: 1.0 / _svals(P, raw[0], _LIN)[::-1],
             value=lambda r: np.asarray(r.lengths)),
    ]  # fmt: skip


def _frame_specs(rd) -> list[Spec]:
    specs = []
    for kind in _KINDS:
        specs += [
            Spec(f"frame_velocity ({kind})", f"frame_velocity(model, q, v, frame, {kind!r})",
                 lambda m, f, q, v, a, k=kind: rd.frame_velocity(m, q, v, f, k),
                 f"forwardKinematics(q, v) + getFrameVelocity ({_KINDS[kind]})",
                 lambda P, qp, vp, ap, k=kind: _frame_motion(P, qp, vp, ap, k, False),
                 lambda P, raw, q, v, a: _ang_lin(raw)),
            Spec(f"frame_acceleration ({kind})",
                 f"frame_acceleration(model, q, v, a, frame, {kind!r})",
                 lambda m, f, q, v, a, k=kind: rd.frame_acceleration(m, q, v, a, f, k),
                 f"forwardKinematics(q, v, a) + getFrame"
                 f"{'Classical' if kind == 'world_aligned' else ''}Acceleration "
                 f"({_KINDS[kind]})",
                 lambda P, qp, vp, ap, k=kind: _frame_motion(P, qp, vp, ap, k, True),
                 lambda P, raw, q, v, a: _ang_lin(raw)),
            Spec(f"jacobian_dot ({kind})", f"jacobian_dot(model, q, v, frame, {kind!r})",
                 lambda m, f, q, v, a, k=kind: rd.jacobian_dot(m, q, v, f, k),
                 "computeJointJacobiansTimeVariation + getFrameJacobianTimeVariation "
                 f"({_KINDS[kind]})",
                 lambda P, qp, vp, ap, k=kind: _jdot_pin(P, qp, vp, k),
                 lambda P, raw, q, v, a: P.mp.jacobian_from_pin(np.array(raw))),
        ]  # fmt: skip
    return specs


@functools.cache
def _kkt_rows(nv: int) -> tuple[np.ndarray, np.ndarray]:
    """The constraint rows (k = min(3, nv - 1), at least 1) and dA/dt v of the
    constrained-dynamics row: fixed random numbers, the same for every state (made once,
    outside the timings)."""
    rng = np.random.default_rng(nv)
    k = max(1, min(3, nv - 1))
    A, g = rng.normal(size=(k, nv)), rng.normal(size=k)
    A.flags.writeable = g.flags.writeable = False
    return A, g


_KKT_PIN: dict = {}


def _kkt_pin(P: _Pin, qp, vp, ap):
    """Pinocchio's constrained forward dynamics, its A in its own dof order (made once)."""
    key = id(P.pm)
    if key not in _KKT_PIN:
        A, g = _kkt_rows(P.nv)
        _KKT_PIN[key] = (np.stack([P.mp.v_to_pin(row) for row in A]), g)
    A_pin, g = _KKT_PIN[key]
    return P.pin.forwardDynamics(P.pm, P.pd, qp, vp, ap, A_pin, g, 0.0)


def _hessian_pin(P: _Pin, qp):
    """The kinematic Hessian of the frame's joint (WORLD: the same for any frame on its
    body), as a user gets it."""
    P.pin.computeJointKinematicHessians(P.pm, P.pd, qp)
    return P.pin.getJointKinematicHessian(P.pm, P.pd, P.pm.frames[P.fid].parentJoint, P.pin.WORLD)


def _hessian_ref(P: _Pin, raw) -> np.ndarray:
    """Pinocchio's Hessian in robodyn's order: pin 4.1 hands the column-major tensor to numpy
    as (6, nv, nv) with its bytes in that order (tests/oracle/test_oracle_kinderiv.py)."""
    T = np.reshape(np.asarray(raw).ravel(), (6, P.nv, P.nv), order="F")
    return T[[3, 4, 5, 0, 1, 2]][:, P.mp.vperm][:, :, P.mp.vperm]


def _motion_derivatives_pin(P: _Pin, qp, vp, ap, acc: bool):
    """computeForwardKinematicsDerivatives, then the frame's derivatives (LOCAL)."""
    P.pin.computeForwardKinematicsDerivatives(P.pm, P.pd, qp, vp, ap)
    if acc:
        return P.pin.getFrameAccelerationDerivatives(P.pm, P.pd, P.fid, P.pin.LOCAL)[1:]
    return P.pin.getFrameVelocityDerivatives(P.pm, P.pd, P.fid, P.pin.LOCAL)


def _derivative_specs(rd) -> list[Spec]:
    fk_d = "computeForwardKinematicsDerivatives + getFrame"
    return [
        Spec("kinematic_hessian", "kinematic_hessian(model, q, frame)",
             lambda m, f, q, v, a: rd.kinematic_hessian(m, q, f),
             "computeJointKinematicHessians + getJointKinematicHessian (WORLD)",
             lambda P, qp, vp, ap: _hessian_pin(P, qp),
             lambda P, raw, q, v, a: _hessian_ref(P, raw)),
        Spec("frame_velocity_derivatives (body)",
             "frame_velocity_derivatives(model, q, v, frame, 'body')",
             lambda m, f, q, v, a: rd.frame_velocity_derivatives(m, q, v, f, "body"),
             fk_d + "VelocityDerivatives (LOCAL)",
             lambda P, qp, vp, ap: _motion_derivatives_pin(P, qp, vp, ap, False),
             lambda P, raw, q, v, a: np.stack([P.mp.jacobian_from_pin(np.array(x)) for x in raw]),
             value=lambda r: np.stack(r, axis=-3)),
        Spec("frame_acceleration_derivatives (body)",
             "frame_acceleration_derivatives(model, q, v, a, frame, 'body')",
             lambda m, f, q, v, a: rd.frame_acceleration_derivatives(m, q, v, a, f, "body"),
             fk_d + "AccelerationDerivatives (LOCAL)",
             lambda P, qp, vp, ap: _motion_derivatives_pin(P, qp, vp, ap, True),
             lambda P, raw, q, v, a: np.stack([P.mp.jacobian_from_pin(np.array(x)) for x in raw]),
             value=lambda r: np.stack(r, axis=-3)),
    ]  # fmt: skip


def _dynamics_specs(rd) -> list[Spec]:
    pin_c = lambda P, qp, vp, ap: P.pin.computeCoriolisMatrix(P.pm, P.pd, qp, vp)  # noqa: E731
    gamma = "computeCoriolisMatrix(q, e_k) for each k"
    return [
        Spec("mass_matrix_inverse", "mass_matrix_inverse(model, q)",
             lambda m, f, q, v, a: rd.mass_matrix_inverse(m, q), "computeMinverse",
             lambda P, qp, vp, ap: P.pin.computeMinverse(P.pm, P.pd, qp),
             lambda P, raw, q, v, a: _sym(P, raw)),
        Spec("coriolis_matrix", "coriolis_matrix(model, q, v)",
             lambda m, f, q, v, a: rd.coriolis_matrix(m, q, v), "computeCoriolisMatrix",
             pin_c, lambda P, raw, q, v, a: P.mp.matrix_from_pin(np.array(raw))),
        Spec("mass_matrix_dot", "mass_matrix_dot(model, q, v)",
             lambda m, f, q, v, a: rd.mass_matrix_dot(m, q, v),
             "computeCoriolisMatrix, C + C^T", pin_c,
             lambda P, raw, q, v, a: P.mp.matrix_from_pin(np.array(raw) + np.array(raw).T)),
        Spec("christoffel", "christoffel(model, q)",
             lambda m, f, q, v, a: rd.christoffel(m, q), gamma,
             lambda P, qp, vp, ap: _christoffel_pin(P, qp),
             lambda P, raw, q, v, a: _christoffel_ref(P, raw)),
        Spec("mass_matrix_derivative", "mass_matrix_derivative(model, q)",
             lambda m, f, q, v, a: rd.mass_matrix_derivative(m, q), gamma,
             lambda P, qp, vp, ap: _christoffel_pin(P, qp),
             lambda P, raw, q, v, a: _dmdq_fd(P, q),
             check="finite differences of Pinocchio's M", rtol=FD_RTOL),
        Spec("constrained_forward_dynamics",
             "constrained_forward_dynamics(model, q, v, tau, A, dA_v, friction=False)",
             lambda m, f, q, v, a: rd.constrained_forward_dynamics(
                 m, q, v, a, *_kkt_rows(m.nv), friction=False),
             "forwardDynamics(q, v, tau, J, gamma) (k = 3 rows)", _kkt_pin,
             lambda P, raw, q, v, a: P.mp.v_from_pin(np.array(raw)),
             value=lambda r: np.asarray(r[0])),
        Spec("bias_forces", "bias_forces(model, q, v)",
             lambda m, f, q, v, a: rd.bias_forces(m, q, v), "nonLinearEffects",
             lambda P, qp, vp, ap: P.pin.nonLinearEffects(P.pm, P.pd, qp, vp),
             lambda P, raw, q, v, a: P.mp.v_from_pin(np.array(raw))),
        Spec("velocity_forces", "velocity_forces(model, q, v)",
             lambda m, f, q, v, a: rd.velocity_forces(m, q, v),
             "nonLinearEffects - computeGeneralizedGravity",
             lambda P, qp, vp, ap: np.array(P.pin.nonLinearEffects(P.pm, P.pd, qp, vp))
             - P.pin.computeGeneralizedGravity(P.pm, P.pd, qp),
             lambda P, raw, q, v, a: P.mp.v_from_pin(raw)),
        Spec("integrate", "integrate(model, q, v)",
             lambda m, f, q, v, a: rd.integrate(m, q, v), "integrate",
             lambda P, qp, vp, ap: P.pin.integrate(P.pm, qp, vp),
             lambda P, raw, q, v, a: P.mp.q_from_pin(np.array(raw))),
        Spec("difference", "difference(model, q0, q1)",
             lambda m, f, q, v, q1: rd.difference(m, q, q1), "difference",
             lambda P, qp, vp, q1p: P.pin.difference(P.pm, qp, q1p),
             lambda P, raw, q, v, q1: P.mp.v_from_pin(np.array(raw)), pair=True),
    ]  # fmt: skip


def function_specs() -> list[Spec]:
    """The rows of the section, in the order of the table."""
    import robodyn as rd

    return (
        _energy_specs(rd) + _momentum_specs(rd) + _task_space_specs(rd)
        + _frame_specs(rd) + _derivative_specs(rd) + _dynamics_specs(rd)
    )  # fmt: skip


# ------------------------------------------------------------------ the section
def run_functions(case: Case, libs: dict, cfg: Config, prog: Progress) -> list[dict]:
    """One row per function on one model (none when Pinocchio is not installed: the
    section then has its one "skipped" line)."""
    pinlib = libs.get("pinocchio")
    if pinlib is None:
        for _ in function_specs():
            prog.step()
        return []
    P = _Pin(pinlib.pin, case.pin_model, case.pin_model.createData(),
             _pin_frame_id(case.pin_model, pinlib.pin, case.frame), case.pmap,
             case.model.nv)  # fmt: skip
    big = _random_states(case.model, _n_states(cfg), cfg.seed + 200 + MODELS.index(case.name))
    rows = []
    for spec in function_specs():
        prog.show(f"functions {case.name} {spec.name}")
        rows.append(_function_row(case, P, spec, big, cfg))
        prog.step()
    return rows


def _n_states(cfg: Config) -> int:
    """States of a batch: at most 1,000 (the slow functions loop in Python)."""
    return max(1, min(cfg.n_batch, 1000))


def _function_row(case: Case, P: _Pin, spec: Spec, big: dict, cfg: Config) -> dict:
    """The row of one function: checked, then timed (robodyn and its peer, one state and a
    batch); a failed check is a FAIL row without times."""
    row = _row("functions", case.name, spec.name, "robodyn", call=spec.call,
               peer=spec.peer, checked_against=spec.check)  # fmt: skip
    try:
        row["check_err"] = _check(case, P, spec)
        if row["check_err"] > spec.rtol:
            row["status"] = f"FAIL vs {spec.check}"
            return row
        row.update(_timings(case, P, spec, big, cfg))
    except Exception as exc:  # noqa: BLE001 - a failure is a row, not a crash
        row["status"] = f"error: {type(exc).__name__}: {exc}"[:200]
    return row


def _check(case: Case, P: _Pin, spec: Spec) -> float:
    """The largest relative error of robodyn's result to the reference on the check
    states, and of robodyn's batch to its single-state calls."""
    st, m, fr = case.states, case.model, case.frame
    worst = 0.0
    for k in range(st["q"].shape[0]):
        q, v = st["q"][k], st["v"][k]
        a = _third(m, spec, q, st["a"][k])
        raw = spec.pin(P, P.mp.q_to_pin(q), P.mp.v_to_pin(v), _third_pin(P, spec, a))
        ref = np.asarray(spec.post(P, raw, q, v, a), dtype=float)
        worst = max(worst, _rel_err(spec.value(spec.rd(m, fr, q, v, a)), ref))
    if _takes_batch(case, spec):  # the batch equals the single-state calls
        Q, V, A = st["q"], st["v"], _third(m, spec, st["q"], st["a"])
        out = np.asarray(spec.value(spec.rd(m, fr, Q, V, A)))
        for k in range(Q.shape[0]):
            one = spec.value(spec.rd(m, fr, Q[k], V[k], A[k]))
            worst = max(worst, _rel_err(out[k], one))
    return worst


def _timings(case: Case, P: _Pin, spec: Spec, big: dict, cfg: Config) -> dict:
    """Median times: robodyn and the peer on one state, robodyn's batch per state and a
    Python loop over the peer per state; their ratios."""
    m, fr = case.model, case.frame
    q, v = case.states["q"][0], case.states["v"][0]
    a = _third(m, spec, q, case.states["a"][0])
    qp, vp, ap = P.mp.q_to_pin(q), P.mp.v_to_pin(v), _third_pin(P, spec, a)
    one = _time(lambda: spec.rd(m, fr, q, v, a), cfg)
    peer = _time(lambda: spec.pin(P, qp, vp, ap), cfg)
    N = _capped(spec, case, big, cfg)
    Q, V, A = big["q"][:N], big["v"][:N], _third(m, spec, big["q"][:N], big["a"][:N])
    takes_batch = _takes_batch(case, spec)
    if takes_batch:
        batch = _time(lambda: spec.rd(m, fr, Q, V, A), cfg) / N
    else:  # no batch: a Python loop over robodyn's single-state call
        batch = _time(lambda: [spec.rd(m, fr, Q[s], V[s], A[s]) for s in range(N)], cfg) / N
    n = max(1, min(N, cfg.n_loop))
    pin_states = [(P.mp.q_to_pin(Q[s]), P.mp.v_to_pin(V[s]), _third_pin(P, spec, A[s]))
                  for s in range(n)]  # fmt: skip
    peer_batch = _time(lambda: [spec.pin(P, *x) for x in pin_states], cfg) / n
    return {
        "median_s": one, "peer_s": peer, "ratio_to_pinocchio": one / peer,
        "n_states": N, "batch_s": batch, "peer_loop_states": n, "peer_batch_s": peer_batch,
        "batch_ratio": batch / peer_batch,
        "note": "" if takes_batch else "no batch: a Python loop over robodyn's call",
    }  # fmt: skip


def _third(model, spec: Spec, q, a):
    """The third state argument of a row: a, or for a row of two configurations
    (``spec.pair``: difference) q1 = q (+) a, made before anything is timed."""
    if not spec.pair:
        return a
    from ..kinematics.configuration import integrate

    return integrate(model, q, a)


def _third_pin(P: _Pin, spec: Spec, x) -> np.ndarray:
    """The third argument in Pinocchio's order: a velocity, or a configuration."""
    return P.mp.q_to_pin(x) if spec.pair else P.mp.v_to_pin(x)


def _takes_batch(case: Case, spec: Spec) -> bool:
    """Whether robodyn's call takes a batch of states (else the batch row times a Python
    loop over its single-state call and says so)."""
    st = case.states
    Q, V, A = st["q"][:2], st["v"][:2], _third(case.model, spec, st["q"][:2], st["a"][:2])
    try:
        out = np.asarray(spec.value(spec.rd(case.model, case.frame, Q, V, A)))
    except (ValueError, TypeError):
        return False
    return out.ndim >= 1 and out.shape[0] == Q.shape[0]


def _time(call: Callable[[], Any], cfg: Config) -> float:
    call()  # warm up
    return _median_time(call, cfg.repeat, cfg.target)["median_s"]


def _capped(spec: Spec, case: Case, big: dict, cfg: Config) -> int:
    """The batch's states, capped so its output stays below ``cfg.max_batch_bytes``."""
    st = case.states
    a = _third(case.model, spec, st["q"][0], st["a"][0])
    out = np.asarray(spec.value(spec.rd(case.model, case.frame, st["q"][0], st["v"][0], a)))
    cap = int(cfg.max_batch_bytes // (8 * max(out.size, 1)))
    return max(1, min(big["q"].shape[0], cap))
