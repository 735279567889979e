"""Dynamics: compiled kernels vs the numpy reference, textbook closed forms, friction and
armature by hand, mimic joints vs explicit joints, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import random_state, random_tree, states, trees, wrenches
from robodyn import dynamics as dyn
from robodyn import reference as ref
from robodyn.inertia import RigidInertia
from robodyn.model.builder import ModelBuilder
from robodyn.spatial import transform

TOL = 1e-10


def close(x, y, tol=TOL):
    """|x - y| <= tol * max(1, |y|) elementwise-max."""
    x, y = np.asarray(x), np.asarray(y)
    assert x.shape == y.shape
    err = np.abs(x - y).max(initial=0.0)
    assert err <= tol * max(1.0, np.abs(y).max(initial=0.0)), err


#: hypothesis trees of up to 8 bodies: every joint type, maybe floating, maybe mimic joints
TREES = trees(max_bodies=8, mimic=None)


# ----------------------------------------------------------------------------- parity
@settings(max_examples=40, deadline=None)
@given(TREES, st.data())
def test_rnea_kernel_equals_reference(tree, data):
    model = tree.model
    q, v, a = data.draw(states(model))
    f_ext = data.draw(wrenches(model))
    # measured <= 2.0e-15 over 400 explored trees
    close(dyn.rnea(model, q, v, a), ref.rnea(model, q, v, a), 2e-14)
    close(dyn.rnea(model, q, v, a, f_ext), ref.rnea(model, q, v, a, f_ext), 2e-14)


@settings(max_examples=40, deadline=None)
@given(TREES, st.data())
def test_crba_kernel_equals_reference(tree, data):
    model = tree.model
    q, _, _ = data.draw(states(model))
    close(dyn.crba(model, q), ref.crba(model, q), 2e-14)  # measured <= 1.9e-15


@settings(max_examples=40, deadline=None)
@given(TREES, st.data())
def test_aba_kernel_equals_reference(tree, data):
    model = tree.model
    q, v, tau = data.draw(states(model))
    f_ext = data.draw(wrenches(model))
    for method in ("aba", "crba"):  # measured <= 1.8e-13 over 400 explored trees
        close(
            dyn.aba(model, q, v, tau, f_ext, method=method), ref.aba(model, q, v, tau, f_ext), 2e-12
        )


def test_reference_aba_solves_reference_rnea():
    # the reference ABA against the reference M and h: M a + h = tau
    model, _ = random_tree(11, 7, floating=True)
    q, v, tau = random_state(model, np.random.default_rng(0))
    a = ref.aba(model, q, v, tau)
    close(ref.crba(model, q) @ a + ref.rnea(model, q, v, 0 * v), tau)


# ----------------------------------------------------------------------------- mimic
@pytest.mark.parametrize("seed", [3, 17, 29])
def test_mimic_equals_explicit_joint_with_constraint(seed):
    """v_full = G v: M = G^T M_full G, tau = G^T tau_full, forward dynamics consistent."""
    model, mimics = random_tree(seed, 5, floating=seed % 2 == 1, mimic=True)
    full, _ = random_tree(seed, 5, floating=seed % 2 == 1, mimic=True, explicit=True)
    assert full.nv == model.nv + len(mimics)
    rng = np.random.default_rng(seed)
    q, v, a = random_state(model, rng)
    # expansion q_full = q at the same joint names; mimic q = mult q_leader + offset
    G = np.zeros((full.nv, model.nv))
    q_full = np.zeros(full.nq)
    for name in model.joint_names:
        i, j = model.joint_id(name), full.joint_id(name)
        nq, nv = model.jnt_nq[i], model.jnt_nv[i]
        q_full[full.jnt_qadr[j] : full.jnt_qadr[j] + nq] = q[
            model.jnt_qadr[i] : model.jnt_qadr[i] + nq
        ]
        G[full.jnt_vadr[j] : full.jnt_vadr[j] + nv, model.jnt_vadr[i] : model.jnt_vadr[i] + nv] = (
            np.eye(nv)
        )
    for name, lead, mult, off in mimics:
        j, li = full.joint_id(name), model.joint_id(lead)
        q_full[full.jnt_qadr[j]] = mult * q[model.jnt_qadr[li]] + off
        G[full.jnt_vadr[j], model.jnt_vadr[li]] = mult
    M_full = dyn.crba(full, q_full)
    close(dyn.crba(model, q), G.T @ M_full @ G)
    tau = dyn.rnea(model, q, v, a)
    close(tau, G.T @ dyn.rnea(full, q_full, G @ v, G @ a))
    close(dyn.aba(model, q, v, tau), a, 1e-8)


# ----------------------------------------------------------------------------- 2R arm
M1, M2, L1, L2, LC1, LC2, I1, I2, GRAV = 5.0, 3.0, 0.5, 0.4, 0.25, 0.2, 0.1, 0.05, 9.81


def two_link_arm():
    """The planar 2R arm of course notes 003: joints about z, links along x, gravity -y."""
    return (
        ModelBuilder("2R", gravity=(0.0, -GRAV, 0.0))
        .add_body("link1", "world", axis=(0, 0, 1),
                  inertia=RigidInertia(M1, (LC1, 0, 0), np.diag([0.6 * I1, 0.6 * I1, I1])))
        .add_body("link2", "link1", axis=(0, 0, 1), T=transform(None, (L1, 0, 0)),
                  inertia=RigidInertia(M2, (LC2, 0, 0), np.diag([0.6 * I2, 0.6 * I2, I2])))
        .add_frame("tip", "link2", T=transform(None, (L2, 0, 0)))
        .build()
    )  # fmt: skip


def two_link_closed_form(q, qd):
    """M, C qd and g typed from course notes 003."""
    t1, t2 = q
    c2, s2 = math.cos(t2), math.sin(t2)
    a = M1 * LC1**2 + M2 * (L1**2 + LC2**2 + 2 * L1 * LC2 * c2) + I1 + I2
    b = M2 * (LC2**2 + L1 * LC2 * c2) + I2
    d = M2 * LC2**2 + I2
    M = np.array([[a, b], [b, d]])
    h = M2 * L1 * LC2 * s2
    Cqd = np.array([-h * qd[1] * qd[0] - h * (qd[0] + qd[1]) * qd[1], h * qd[0] ** 2])
    g1 = (M1 * LC1 + M2 * L1) * GRAV * math.cos(t1) + M2 * LC2 * GRAV * math.cos(t1 + t2)
    g2 = M2 * LC2 * GRAV * math.cos(t1 + t2)
    return M, Cqd, np.array([g1, g2])


def test_two_link_arm_matches_course_notes():
    model = two_link_arm()
    rng = np.random.default_rng(3)
    for q, qd in [(np.radians([45, 30]), np.array([0.5, -0.3]))] + [
        (rng.uniform(-3, 3, 2), rng.normal(size=2)) for _ in range(10)
    ]:
        qdd = rng.normal(size=2)
        M, Cqd, g = two_link_closed_form(q, qd)
        close(dyn.mass_matrix(model, q), M, 1e-12)
        close(dyn.gravity_forces(model, q), g, 1e-12)
        close(dyn.velocity_forces(model, q, qd), Cqd, 1e-12)
        close(dyn.bias_forces(model, q, qd), Cqd + g, 1e-12)
        close(dyn.inverse_dynamics(model, q, qd, qdd), M @ qdd + Cqd + g, 1e-12)
        close(dyn.forward_dynamics(model, q, qd, M @ qdd + Cqd + g), qdd, 1e-12)
        close(ref.rnea(model, q, qd, qdd), M @ qdd + Cqd + g, 1e-12)
    # the notes' example: holding torque at q = (45, 30) deg equals g(q)
    g1 = (M1 * LC1 + M2 * L1) * GRAV * math.cos(math.pi / 4) + M2 * LC2 * GRAV * math.cos(
        math.radians(75)
    )
    close(dyn.rnea(model, np.radians([45, 30]), np.zeros(2), np.zeros(2))[0], g1, 1e-12)


# ----------------------------------------------------------------------------- friction
def pendulum(damping=0.0, friction=0.0, armature=0.0, prismatic=False):
    """One body of mass m at distance l on a horizontal revolute axis (or a vertical slider)."""
    kind = "prismatic" if prismatic else "revolute"
    axis = (0, 0, 1) if prismatic else (0, 1, 0)
    return (
        ModelBuilder("p", gravity=(0, 0, -9.81))
        .add_body("bob", "world", joint_type=kind, axis=axis,
                  inertia=RigidInertia(2.0, (0.5, 0, 0), np.diag([0.01, 0.02, 0.02])),
                  damping=damping, friction=friction, armature=armature)
        .build()
    )  # fmt: skip


def test_friction_and_armature_hand_formulas():
    b, fc, Ja = 0.7, 1.3, 0.25
    m, l, Iyy = 2.0, 0.5, 0.02
    model = pendulum(b, fc, Ja)
    for th, w, al in [(0.3, 1.2, -0.4), (-1.0, -0.5, 2.0), (2.0, 0.0, 1.0)]:
        q, v, a = np.array([th]), np.array([w]), np.array([al])
        # about +y, the bob at x = l sinks to z = -l sin(th): U = -m g l sin(th), and the
        # holding torque is dU/dth = -m g l cos(th)
        J = Iyy + m * l**2
        rigid = J * al - m * 9.81 * l * math.cos(th)
        sgn = math.copysign(1.0, w) if w != 0 else 0.0
        close(dyn.rnea(model, q, v, a), [rigid + b * w + fc * sgn + Ja * al], 1e-12)
        close(dyn.rnea(model, q, v, a, friction=False), [rigid + Ja * al], 1e-12)
        close(dyn.rnea(model, q, v, a, friction=False, armature=False), [rigid], 1e-12)
        close(
            dyn.rnea(model, q, v, a, coulomb_eps=0.1),
            [rigid + b * w + fc * math.tanh(w / 0.1) + Ja * al], 1e-12,
        )  # fmt: skip
        close(dyn.mass_matrix(model, q), [[J + Ja]], 1e-12)
        close(dyn.mass_matrix(model, q, armature=False), [[J]], 1e-12)
        close(dyn.mass_matrix_inverse(model, q), [[1 / (J + Ja)]], 1e-12)
        tau = np.array([0.9])
        expect = (tau[0] - b * w - fc * sgn + m * 9.81 * l * math.cos(th)) / (J + Ja)
        for method in ("aba", "crba"):
            close(dyn.forward_dynamics(model, q, v, tau, method=method), [expect], 1e-12)
            close(
                dyn.forward_dynamics(model, q, v, tau, method=method, friction=False),
                [(tau[0] + m * 9.81 * l * math.cos(th)) / (J + Ja)], 1e-12,
            )  # fmt: skip
    # a vertical slider: tau = (m + armature) a + m g + b v + fc sgn(v)
    slider = pendulum(b, fc, Ja, prismatic=True)
    close(
        dyn.rnea(slider, [0.1], [-0.2], [0.3]),
        [(m + Ja) * 0.3 + m * 9.81 - b * 0.2 - fc], 1e-12,
    )  # fmt: skip


@settings(max_examples=20, deadline=None)
@given(trees(max_bodies=5, damping=True), st.data())
def test_friction_consistent_between_inverse_and_forward(tree, data):
    model = tree.model
    q, v, a = data.draw(states(model))
    for eps in (0.0, 0.05):
        tau = dyn.rnea(model, q, v, a, coulomb_eps=eps)
        for method in ("aba", "crba"):
            close(dyn.aba(model, q, v, tau, coulomb_eps=eps, method=method), a, 5e-13)  # 4.1e-14
    d = model.dof_damping * v + model.dof_friction * np.sign(v) + model.dof_armature * a
    tau_f = dyn.rnea(model, q, v, a) - dyn.rnea(model, q, v, a, friction=False, armature=False)
    close(tau_f, d, 3e-14)  # measured <= 3.1e-15


# ----------------------------------------------------------------------------- bad input
def test_bad_shapes_name_the_argument():
    model, _ = random_tree(5, 4)
    q, v, a = random_state(model, np.random.default_rng(0))
    n, nv = model.nq, model.nv
    with pytest.raises(ValueError, match=rf"q must have shape \(\.\.\., {n}\), got \({n + 1},\)"):
        dyn.rnea(model, np.zeros(n + 1), v, a)
    with pytest.raises(ValueError, match=rf"v must have shape \(\.\.\., {nv}\), got \(2,\)"):
        dyn.rnea(model, q, np.zeros(2), a)
    with pytest.raises(ValueError, match=rf"a must have shape \(\.\.\., {nv}\)"):
        dyn.rnea(model, q, v, np.zeros(nv + 3))
    with pytest.raises(ValueError, match=rf"tau must have shape \(\.\.\., {nv}\)"):
        dyn.aba(model, q, v, np.zeros(nv + 1))
    with pytest.raises(ValueError, match=r"q must have shape"):
        dyn.crba(model, np.zeros(n + 2))
    with pytest.raises(ValueError, match=r"f_ext must have shape"):
        dyn.rnea(model, q, v, a, np.zeros((model.nb + 1, 6)))
    with pytest.raises(ValueError, match=r"f_tip must have shape"):
        dyn.rnea(model, q, v, a, f_tip=np.zeros(3))
    with pytest.raises(ValueError, match=r"q must have shape"):
        dyn.rnea(model, np.zeros((3, n + 1)), v, a)
    with pytest.raises(ValueError, match=r"do not broadcast"):
        dyn.rnea(model, np.zeros((3, n)), np.zeros((4, nv)), a)
    with pytest.raises(ValueError, match=r"q must be a numeric array"):
        dyn.rnea(model, "abc", v, a)
    with pytest.raises(ValueError, match=r"method must be"):
        dyn.aba(model, q, v, a, method="rk4")


def test_nonfinite_input_rejected():
    model, _ = random_tree(6, 4, floating=True)
    q, v, a = random_state(model, np.random.default_rng(0))
    for k, name in enumerate(["q", "v", "a"]):
        args = [q.copy(), v.copy(), a.copy()]
        args[k][0] = np.nan if k != 1 else np.inf
        with pytest.raises(ValueError, match=rf"^{name} contains NaN or inf"):
            dyn.rnea(model, *args)
    with pytest.raises(ValueError, match=r"^tau contains NaN or inf"):
        dyn.aba(model, q, v, np.full(model.nv, np.nan))
    with pytest.raises(ValueError, match=r"^tau contains NaN or inf"):
        dyn.aba(model, q, v, np.full(model.nv, np.nan), method="crba")
    with pytest.raises(ValueError, match=r"f_ext contains NaN or inf"):
        dyn.rnea(model, q, v, a, np.full((model.nb, 6), np.inf))
    with pytest.raises(ValueError, match=r"^q contains NaN or inf"):
        dyn.crba(model, np.full(model.nq, np.nan))
    with pytest.raises(ValueError, match=r"^q contains NaN or inf"):
        dyn.gravity_forces(model, np.full(model.nq, np.nan))
    Q = np.tile(q, (5, 1))
    Q[3, 0] = np.nan
    with pytest.raises(ValueError, match=r"^q\[3\] contains NaN or inf"):
        dyn.rnea(model, Q, v, a)
    qz = q.copy()
    qz[3:7] = 0.0
    with pytest.raises(ValueError, match=r"quaternion of a free joint is zero"):
        dyn.rnea(model, qz, v, a)
    # check=False skips the scan: the NaN propagates instead of raising
    bad = q.copy()
    bad[0] = np.nan
    assert np.isnan(dyn.rnea(model, bad, v, a, check=False)).any()


def test_massless_chain_is_a_clear_error():
    b = ModelBuilder("m").add_body(
        "heavy", "world", axis=(0, 0, 1), inertia=RigidInertia(1.0, (0.3, 0, 0), np.eye(3) * 0.01)
    )
    b.add_body("ghost", "heavy", axis=(0, 1, 0), T=transform(None, (0.6, 0, 0)))
    b.add_body("ghost2", "ghost", joint_type="prismatic", axis=(1, 0, 0))
    model = b.build()
    q, v, tau = np.zeros(3), np.zeros(3), np.zeros(3)
    for method in ("aba", "crba"):
        with pytest.raises(ValueError, match=r"mass matrix is singular: joint 'ghost\S*' drives"):
            dyn.forward_dynamics(model, q, v, tau, method=method)
    with pytest.raises(ValueError, match=r"mass matrix is singular: joint 'ghost"):
        dyn.mass_matrix_inverse(model, q)
    with pytest.raises(ValueError, match=r"singular at state \[0\]: joint 'ghost"):
        dyn.forward_dynamics(model, np.zeros((2, 3)), v, tau)
    # armature makes it invertible: M = diag-dominated, forward dynamics now works
    b2 = ModelBuilder("m").add_body(
        "heavy", "world", axis=(0, 0, 1), inertia=RigidInertia(1.0, (0.3, 0, 0), np.eye(3) * 0.01)
    )
    b2.add_body("ghost", "heavy", axis=(0, 1, 0), armature=0.1)
    a = dyn.forward_dynamics(b2.build(), np.zeros(2), np.zeros(2), np.array([0.0, 0.2]))
    close(a, [0.0, 2.0], 1e-12)
