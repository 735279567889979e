"""Dynamics vs Pinocchio on every example-robot-data URDF Pinocchio loads, fixed and
floating base: rnea (with external wrenches), crba, aba, generalized gravity and
nonLinearEffects at random states, after the [v, omega] / quaternion reorderings."""

from __future__ import annotations

import dataclasses
import re
import zlib

import numpy as np
import pinocchio as pin
import pytest

from helpers import erd_path, load_pair, random_joint_pair, rel_err
from robodyn import dynamics as dyn
from robodyn.convert import PinocchioMap
from robodyn.model.configuration import random_configuration
from robodyn.model.urdf import load_urdf

STATES = 20
TOL = 1e-9
# typed: the robots on which a joint drives only massless links (romeo's fingers and hands,
# romeo_laas_small's gripper), so that M is singular and the forward dynamics undefined
SINGULAR = {"romeo_description/urdf/romeo", "romeo_description/urdf/romeo_laas_small"}


def pin_force(F) -> pin.Force:
    """robodyn wrench [m, f] -> Pinocchio Force (linear first)."""
    return pin.Force(np.asarray(F[3:]), np.asarray(F[:3]))


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_dynamics_match_pinocchio(erd_robot, floating):
    name, path = erd_robot
    # strict=False keeps inertias as written (as Pinocchio does); mimic=False: Pinocchio
    # loads <mimic> joints as independent joints by default
    model = load_urdf(path, floating_base=floating, mimic=False, invalid_inertia="keep")
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else (
        pin.buildModelFromUrdf(path)
    )  # fmt: skip
    pd = pm.createData()
    mp = PinocchioMap(model, pm)
    assert model.nv == pm.nv
    # the robodyn body that each Pinocchio joint moves (both use the joint frame)
    pin_body = {j: model.joint_id(pm.names[j]) for j in range(1, pm.njoints)}
    rng = np.random.default_rng(zlib.crc32(f"{name}{floating}".encode()))
    worst = dict(rnea=0.0, crba=0.0, aba=0.0, minv=0.0, gravity=0.0, nle=0.0)
    singular = None
    for _ in range(STATES):
        q = random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        f_ext = np.zeros((model.nb, 6))
        fext_pin = [pin.Force.Zero() for _ in range(pm.njoints)]
        for j in range(1, pm.njoints):
            F = rng.normal(size=6)
            f_ext[pin_body[j]] = F
            fext_pin[j] = pin_force(F)
        qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)

        tau = dyn.rnea(model, q, v, a, f_ext, friction=False)
        tau_pin = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, ap, fext_pin))
        worst["rnea"] = max(worst["rnea"], rel_err(tau, tau_pin))

        M_pin = pin.crba(pm, pd, qp)
        M_pin = mp.matrix_from_pin(np.triu(M_pin) + np.triu(M_pin, 1).T)
        worst["crba"] = max(worst["crba"], rel_err(dyn.crba(model, q), M_pin))

        g_pin = mp.v_from_pin(pin.computeGeneralizedGravity(pm, pd, qp))
        worst["gravity"] = max(worst["gravity"], rel_err(dyn.gravity_forces(model, q), g_pin))
        h_pin = mp.v_from_pin(pin.nonLinearEffects(pm, pd, qp, vp))
        worst["nle"] = max(worst["nle"], rel_err(dyn.bias_forces(model, q, v), h_pin))

        # forward dynamics: only where Pinocchio's M is invertible (romeo has joints that
        # drive only massless links, whose rows of M are exactly zero: there robodyn must
        # refuse, naming such a joint). The check is the equation of motion itself, with
        # Pinocchio's M and h and a fixed tolerance: M_pin qdd + h_pin - J^T F_ext = tau,
        # whatever cond(M)
        if np.any(np.all(M_pin == 0.0, axis=1)):
            _assert_refused(model, M_pin, q, v, tau, f_ext)
            singular = True
            continue
        qdd = dyn.aba(model, q, v, tau, f_ext, friction=False)
        tau_back = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, mp.v_to_pin(qdd), fext_pin))
        worst["aba"] = max(worst["aba"], rel_err(tau_back, tau))
        # Minv against Pinocchio's own algorithm, by either road (the articulated-body
        # recursion, M's Cholesky factor)
        Minv_pin = pin.computeMinverse(pm, pd, qp)
        Minv_pin = mp.matrix_from_pin(np.triu(Minv_pin) + np.triu(Minv_pin, 1).T)
        for method in ("aba", "cholesky"):
            Minv = dyn.mass_matrix_inverse(model, q, armature=False, method=method)
            # normwise backward errors (fixed tolerance, whatever cond(M)):
            # |M X - 1| / (|M| |X|) for robodyn's X, and for the difference from Pinocchio's
            nrm = np.linalg.norm(M_pin, 2) * np.linalg.norm(Minv, 2)
            eye = np.eye(model.nv)
            worst["minv"] = max(worst["minv"], np.abs(M_pin @ Minv - eye).max() / nrm)
            worst["minv"] = max(worst["minv"], np.abs(M_pin @ (Minv - Minv_pin)).max() / nrm)
    assert max(worst.values()) <= TOL, (name, floating, worst, singular)
    assert bool(singular) == (name in SINGULAR), (name, floating)


@pytest.mark.parametrize("seed", range(6))
def test_minv_of_every_joint_type_matches_pinocchio(seed):
    """M^-1 by the articulated-body recursion on random trees of every joint type (the
    universal too), built from one description by robodyn's builder and by Pinocchio's
    own joint models, against computeMinverse (its [v; omega] order mapped back)."""
    model, pm, pd, mp = random_joint_pair(200 + seed, n=10)
    rng = np.random.default_rng(seed)
    for _ in range(4):
        q = random_configuration(model, rng)
        Minv_pin = pin.computeMinverse(pm, pd, mp.q_to_pin(q))
        Minv_pin = mp.matrix_from_pin(np.triu(Minv_pin) + np.triu(Minv_pin, 1).T)
        Minv = dyn.mass_matrix_inverse(model, q, armature=False, method="aba")
        assert rel_err(Minv, Minv_pin) <= TOL, (seed, rel_err(Minv, Minv_pin))


def _assert_refused(model, M_pin, q, v, tau, f_ext=None, **kw):
    """aba refuses a singular M with a clear error naming a joint whose row of Pinocchio's
    M (robodyn's order) is zero."""
    with pytest.raises(ValueError, match="mass matrix is singular: joint '") as err:
        dyn.aba(model, q, v, tau, f_ext, friction=False, **kw)
    joint = re.search(r"joint '([^']+)'", str(err.value))[1]
    assert np.all(M_pin[model.jnt_vadr[model.joint_id(joint)]] == 0.0), joint


# the ill-conditioned models: Romeo's forward dynamics at states where it is defined,
# residual of the equation of motion with Pinocchio's M and h, fixed tolerance
@pytest.mark.parametrize(
    "fragment", ["romeo_description/urdf/romeo_small", "talos_data/robots/talos_full_v2"]
)
def test_forward_dynamics_on_ill_conditioned_robots(fragment):
    model, pm, pd, mp = load_pair(erd_path(fragment), True)
    rng = np.random.default_rng(zlib.crc32(fragment.encode()))
    checked = 0
    for _ in range(40):
        q = random_configuration(model, rng)
        v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv) * 10
        qp, vp = mp.q_to_pin(q), mp.v_to_pin(v)
        M = mp.matrix_from_pin(pin.crba(pm, pd, qp))
        M = np.triu(M) + np.triu(M, 1).T
        eig = np.linalg.eigvalsh(M)
        if eig.min() <= 1e-12 * eig.max():
            continue  # undefined there (a massless leaf): refused, see above
        h = mp.v_from_pin(pin.nonLinearEffects(pm, pd, qp, vp))
        qdd = dyn.aba(model, q, v, tau, friction=False, armature=False)
        assert rel_err(M @ qdd + h, tau) <= 1e-9, (fragment, eig.max() / eig.min())
        checked += 1
    assert checked >= 20


# ---------------------------------------------------------------- joint friction (issue 10)
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_friction_is_in_the_equation_pinocchio_reads_the_same_urdf(erd_robot, floating):
    """friction=False is Pinocchio's rnea / aba; the default adds the URDF's <dynamics
    damping friction> as Pinocchio parses them: b v + f_c sgn(v) (Pinocchio leaves them out
    of rnea)."""
    name, path = erd_robot
    model, pm, pd, mp = load_pair(path, floating)
    rng = np.random.default_rng(zlib.crc32(f"friction{name}{floating}".encode()))
    b = mp.v_from_pin(np.asarray(pm.damping))
    fc = mp.v_from_pin(np.asarray(pm.friction))
    for _ in range(3):
        q = random_configuration(model, rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
        tau_pin = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, ap))
        no_friction = dyn.rnea(model, q, v, a, friction=False, armature=False)
        assert rel_err(no_friction, tau_pin) <= TOL
        full = dyn.rnea(model, q, v, a, armature=False)
        assert rel_err(full, tau_pin + b * v + fc * np.sign(v)) <= TOL
        M = mp.matrix_from_pin(pin.crba(pm, pd, qp))
        M = np.triu(M) + np.triu(M, 1).T
        if np.any(np.all(M == 0.0, axis=1)):  # romeo's massless links: M is singular
            assert name in SINGULAR, name
            _assert_refused(model, M, q, v, tau_pin, armature=False)
            # an armature on every dof makes the motion defined: robodyn's default (with
            # the friction) against (M_pin + diag(arm))^-1 (tau - b v - f_c sgn v - h_pin)
            arm = rng.uniform(0.01, 0.1, model.nv)
            geared = dataclasses.replace(model, dof_armature=arm)
            tau = full + arm * a
            h = mp.v_from_pin(pin.nonLinearEffects(pm, pd, qp, vp))
            want = np.linalg.solve(M + np.diag(arm), tau - b * v - fc * np.sign(v) - h)
            assert rel_err(dyn.aba(geared, q, v, tau), want) <= TOL
            continue
        # forward: the default removes the same friction from tau before solving
        qdd = dyn.aba(model, q, v, full, armature=False)
        qdd_pin = mp.v_from_pin(pin.aba(pm, pd, qp, vp, mp.v_to_pin(tau_pin)))
        back = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, mp.v_to_pin(qdd)))
        assert rel_err(back, tau_pin) <= TOL
        assert rel_err(M @ (qdd - qdd_pin), 0 * tau_pin) <= TOL


# ---------------------------------------------------------------- mimic joints
@pytest.mark.parametrize(
    "fragment", ["panda_description/urdf/panda.urdf", "pr2_description/urdf/pr2.urdf"]
)
def test_mimic_joints_against_pinocchios_own_mimic_support(fragment):
    """RNEA and CRBA of a model with <mimic> joints against Pinocchio's own (buildModelFromUrdf
    with mimic=True), each parsing the URDF; Pinocchio's ABA has no mimic support."""
    path = erd_path(fragment)
    import warnings

    from robodyn.errors import ModelWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        model = load_urdf(path, mimic=True, invalid_inertia="keep")
    pm = pin.buildModelFromUrdf(path, mimic=True)
    pd = pm.createData()
    mp = PinocchioMap(model, pm)
    assert model.nv == pm.nv and np.any(model.jnt_mimic >= 0)
    rng = np.random.default_rng(zlib.crc32(fragment.encode()))
    # 17 states: one state at a time, and as one batch (a full chunk of 16 lanes and one
    # state alone), whose CRBA writes only the entries the tree (and its mimics) can fill
    Q = random_configuration(model, rng, size=17)
    V, A = rng.normal(size=(17, model.nv)), rng.normal(size=(17, model.nv))
    tau_batch = dyn.rnea(model, Q, V, A, friction=False, armature=False)
    M_batch = dyn.crba(model, Q, armature=False)
    for q, v, a, tau_b, M_b in zip(Q, V, A, tau_batch, M_batch, strict=True):
        qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
        tau_pin = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, ap))
        assert rel_err(dyn.rnea(model, q, v, a, friction=False, armature=False), tau_pin) <= TOL
        assert rel_err(tau_b, tau_pin) <= TOL
        M_pin = pin.crba(pm, pd, qp)
        M_pin = mp.matrix_from_pin(np.triu(M_pin) + np.triu(M_pin, 1).T)
        assert rel_err(dyn.crba(model, q, armature=False), M_pin) <= TOL
        assert rel_err(M_b, M_pin) <= TOL
