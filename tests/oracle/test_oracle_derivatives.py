"""The derivatives of inverse and forward dynamics vs Pinocchio's ``computeRNEADerivatives``
and ``computeABADerivatives`` (Carpentier & Mansard's analytic derivatives; Pinocchio loads
the URDF itself): on every
example-robot-data URDF Pinocchio loads, fixed and floating base, with external wrenches
on every body, and on random trees of every joint type built by Pinocchio's own joint
models, after the [v, omega] / quaternion reorderings (robodyn.convert.PinocchioMap).

Pinocchio differentiates in the same local tangent (a free joint perturbed by a body-frame
twist, right-multiplied), leaves joint friction out of its RNEA (robodyn's
``friction=False``) and takes its external forces in the joint frames, robodyn's body
frames."""

from __future__ import annotations

import zlib

import numpy as np
import pinocchio as pin
import pytest

from helpers import JOINT_KINDS, load_pair, random_joint_pair, rel_err
from robodyn import forward_dynamics_derivatives, inverse_dynamics_derivatives
from robodyn.model.configuration import random_configuration

STATES = 4
TOL = 1e-9
NAMES = ("dtau_dq", "dtau_dv", "dtau_da")


def _pinocchio(pm, pd, mp, q, v, a, fext_pin=None):
    """Pinocchio's (dtau_dq, dtau_dv, M) in robodyn's dof order (M's upper triangle made
    whole)."""
    qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
    if fext_pin is None:
        pin.computeRNEADerivatives(pm, pd, qp, vp, ap)
    else:
        pin.computeRNEADerivatives(pm, pd, qp, vp, ap, fext_pin)
    M = np.array(pd.M)
    M = np.triu(M) + np.triu(M, 1).T
    return tuple(mp.matrix_from_pin(np.array(X)) for X in (pd.dtau_dq, pd.dtau_dv, M))


def _assert_match(got, want, what: str) -> None:
    for name, g, w in zip(NAMES, got, want):
        err = rel_err(g, w)
        assert err <= TOL, f"{what} {name}: relative error {err:.3g} > {TOL}"


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_rnea_derivatives_match_pinocchio(erd_robot, floating):
    name, path = erd_robot
    model, pm, pd, mp = load_pair(path, floating_base=floating)
    assert model.nv == pm.nv
    pin_body = {j: model.joint_id(pm.names[j]) for j in range(1, pm.njoints)}
    rng = np.random.default_rng(zlib.crc32(f"deriv{name}{floating}".encode()))
    for s in range(STATES):
        q = random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        got = inverse_dynamics_derivatives(model, q, v, a, friction=False)
        _assert_match(got, _pinocchio(pm, pd, mp, q, v, a), f"{name} state {s}")
        # external wrenches, fixed in the bodies' (joint) frames, on every body
        f_ext = np.zeros((model.nb, 6))
        fext_pin = [pin.Force.Zero() for _ in range(pm.njoints)]
        for j in range(1, pm.njoints):
            F = rng.normal(size=6)
            f_ext[pin_body[j]] = F
            fext_pin[j] = pin.Force(F[3:], F[:3])  # [m, f] -> Pinocchio's [f; m]
        got = inverse_dynamics_derivatives(model, q, v, a, f_ext, friction=False)
        want = _pinocchio(pm, pd, mp, q, v, a, fext_pin)
        _assert_match(got, want, f"{name} state {s} with f_ext")


@pytest.mark.parametrize("seed", range(8))
def test_every_joint_type_matches_pinocchio(seed):
    """Random trees with each joint type of robodyn but the universal joint (revolute,
    continuous, prismatic, spherical, planar, helical, cylindrical, free anywhere), built
    from one description by robodyn's builder and by Pinocchio's own joint models."""
    kinds = tuple(k for k in JOINT_KINDS if k != "universal")
    model, pm, pd, mp = random_joint_pair(seed, n=10, kinds=kinds)
    rng = np.random.default_rng(seed)
    for s in range(STATES):
        q = random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        got = inverse_dynamics_derivatives(model, q, v, a, friction=False)
        _assert_match(got, _pinocchio(pm, pd, mp, q, v, a), f"tree {seed} state {s}")


FD_H = 6e-6  # ~ eps^(1/3): truncation ~h^2, rounding ~1e-16 / h, both ~1e-10 here
FD_TOL = 1e-6


def _pinocchio_fd(pm, pd, mp, q, v, a):
    """Central differences of Pinocchio's rnea, q moved by pin.integrate along each unit
    tangent, in robodyn's dof order."""
    qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
    E = FD_H * np.eye(pm.nv)
    dq = [pin.rnea(pm, pd, pin.integrate(pm, qp, e), vp, ap)
          - pin.rnea(pm, pd, pin.integrate(pm, qp, -e), vp, ap) for e in E]  # fmt: skip
    dv = [pin.rnea(pm, pd, qp, vp + e, ap) - pin.rnea(pm, pd, qp, vp - e, ap) for e in E]
    return tuple(mp.matrix_from_pin(np.array(d).T / (2 * FD_H)) for d in (dq, dv))


@pytest.mark.parametrize("seed", range(4))
def test_universal_joints_match_differences_of_pinocchio(seed):
    """Trees with universal joints (Pinocchio's JointModelUniversal) among every other
    type: d tau/dq and d tau/dv against central differences of Pinocchio's own rnea along
    its own integrate, and M against its crba. (Pinocchio 4.1's computeRNEADerivatives is
    not the oracle here: on such a tree its dtau_dq differs from the differences of its
    own rnea by ~20 N m, its dtau_dv by ~0.6 N m s, while robodyn's agree to ~1e-8.)"""
    model, pm, pd, mp = random_joint_pair(100 + seed, n=10)
    assert np.any(model.jnt_type == 8)  # J_UNIVERSAL
    rng = np.random.default_rng(seed)
    for s in range(STATES):
        q = random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        dq, dv, da = inverse_dynamics_derivatives(model, q, v, a, friction=False)
        want_dq, want_dv = _pinocchio_fd(pm, pd, mp, q, v, a)
        M = np.array(pin.crba(pm, pd, mp.q_to_pin(q)))
        want_M = mp.matrix_from_pin(np.triu(M) + np.triu(M, 1).T)
        for name, g, w, tol in (("dtau_dq", dq, want_dq, FD_TOL), ("dtau_dv", dv, want_dv, FD_TOL),
                                ("dtau_da", da, want_M, TOL)):  # fmt: skip
            err = rel_err(g, w)
            assert err <= tol, f"tree {seed} state {s} {name}: relative error {err:.3g} > {tol}"


# ---------------------------------------------------------------- forward dynamics
def _pinocchio_aba(pm, pd, mp, q, v, tau):
    """Pinocchio's computeABADerivatives (ddq_dq, ddq_dv, Minv) in robodyn's dof order
    (its Minv's upper triangle made whole)."""
    pin.computeABADerivatives(pm, pd, mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(tau))
    Minv = np.array(pd.Minv)
    Minv = np.triu(Minv) + np.triu(Minv, 1).T
    return tuple(mp.matrix_from_pin(np.array(X)) for X in (pd.ddq_dq, pd.ddq_dv, Minv))


#: typed: the robots on which a joint drives only massless links, M singular (as in
#: test_oracle_dynamics.py); their forward dynamics is refused
SINGULAR = {"romeo_description/urdf/romeo", "romeo_description/urdf/romeo_laas_small"}


@pytest.mark.parametrize("method", ["aba", "cholesky"])
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_aba_derivatives_match_pinocchio(erd_robot, floating, method):
    """rd.forward_dynamics_derivatives vs computeABADerivatives (da/dq, da/dv, M^-1), M^-1
    by the articulated-body recursion and by M's Cholesky factor."""
    name, path = erd_robot
    model, pm, pd, mp = load_pair(path, floating_base=floating)
    rng = np.random.default_rng(zlib.crc32(f"aba-deriv{name}{floating}".encode()))
    q = random_configuration(model, rng)
    v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
    if name in SINGULAR:
        with pytest.raises(ValueError, match="singular"):
            forward_dynamics_derivatives(model, q, v, tau, friction=False, method=method)
        return
    for s in range(STATES):
        got = forward_dynamics_derivatives(model, q, v, tau, friction=False, method=method)
        want = _pinocchio_aba(pm, pd, mp, q, v, tau)
        # both sides solve with M: each is exact to ~cond(M) eps (the bound of any
        # backward-stable solve), which is 2e-7 on iCub (cond(M) ~ 2e9); the UR5's 6e-12
        tol = TOL + 1e-15 * np.linalg.cond(want[2])
        for k, (g, w) in enumerate(zip(got, want)):
            err = rel_err(g, w)
            assert err <= tol, f"{name} state {s} {('da_dq', 'da_dv', 'Minv')[k]}: {err:.3g}"
        q = random_configuration(model, rng)
        v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)


@pytest.mark.parametrize("method", ["aba", "cholesky"])
@pytest.mark.parametrize("seed", range(4))
def test_aba_derivatives_on_every_joint_type_match_pinocchio(seed, method):
    """Trees of every joint type but the universal (whose Pinocchio derivatives are not an
    oracle, above) built by Pinocchio's own joint models, M^-1 by either road."""
    kinds = tuple(k for k in JOINT_KINDS if k != "universal")
    model, pm, pd, mp = random_joint_pair(seed, n=10, kinds=kinds)
    rng = np.random.default_rng(seed)
    q = random_configuration(model, rng)
    v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
    got = forward_dynamics_derivatives(model, q, v, tau, friction=False, method=method)
    for g, w in zip(got, _pinocchio_aba(pm, pd, mp, q, v, tau)):
        assert rel_err(g, w) <= TOL
