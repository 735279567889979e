"""Physical identities on random trees drawn by hypothesis (helpers.trees).

Each tree is drawn as plain numbers (parents, joint types from every kind the builder
takes, axes, placements, physical inertias, friction, a floating base, mimic joints), so a
failure shrinks to a minimal tree, and the profile in conftest.py makes every run draw the
same trees. The sources are identities of mechanics, not robodyn's own numbers:

* base-frame invariance: moving the whole robot in the world (and gravity with it) leaves
  the joint torques, the mass matrix and the kinetic energy unchanged, moves every frame
  by the same transform and changes the space Jacobian by its adjoint;
* energy conservation of ``rd.simulate`` with no input and no friction, the energy
  computed here from 1/2 v^T M v and the bodies' heights (independent forward kinematics),
  with RK4's fourth order: halving dt divides the drift by ~16;
* momentum conservation on free-floating trees with no gravity and internal joint
  torques, the spatial momentum summed here from each body's twist and inertia;
* Jacobians (space, body, world-aligned) against central differences of an independent
  forward kinematics along ``q (+) h e_k``, on trees with every joint type;
* M symmetric positive definite, RNEA columns = CRBA and ABA after RNEA on trees that hold
  a spherical, planar, helical, cylindrical and universal joint each;
* the energy and momentum identities of tests/test_energy.py on hypothesis trees;
* Pinocchio's numbers for the same drawn tree, built by Pinocchio with its own joints.

Tolerances: the measured worst case over the examples drawn here and over ~1,000 more
drawn with HYPOTHESIS_PROFILE=explore, times ~10 (the numbers are in the comments).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import robodyn as rd
from helpers import (
    MR_KINDS,
    TREE_KINDS,
    assert_close,
    chain_frame_poses,
    chain_poses,
    configurations,
    states,
    trees,
    unit_vectors,
)
from robodyn.energy import com_velocity, momentum_matrix
from robodyn.inertia import RigidInertia
from robodyn.kinematics import com_jacobian
from robodyn.spatial import adjoint, exp3, inv_transform, log6, transform

H = np.finfo(float).eps ** (1 / 3)  # central-difference step ~ eps^(1/3)


def potential(model, q) -> float:
    """U = -sum_i m_i g . c_i from the chained poses (no robodyn kinematics)."""
    T = chain_poses(model, q)
    return -sum(
        model.body_mass[i] * model.gravity @ (T[i, :3, :3] @ model.body_com[i] + T[i, :3, 3])
        for i in range(1, model.nb)
    )


def energy(model, q, v) -> float:
    """1/2 v^T M v (rotor inertia included, as the equations of motion have it) + U."""
    return 0.5 * v @ rd.mass_matrix(model, q) @ v + potential(model, q)


def spatial_momentum(model, q, v) -> np.ndarray:
    """h = sum_i Ad_{T_i^-1}^T G_i V_i: each body's momentum G_i V_i in its frame (twist
    V_i = J_b,i v, inertia about the body origin) moved to the world origin, world axes."""
    T = chain_poses(model, q)
    h = np.zeros(6)
    for i in range(1, model.nb):
        V = rd.jacobian(model, q, model.body_names[i], kind="body") @ v
        G = RigidInertia(model.body_mass[i], model.body_com[i], model.body_inertia[i])
        h += adjoint(inv_transform(T[i])).T @ (G.spatial_at_origin() @ V)
    return h


def placements():
    """A rigid transform: a rotation vector in the ball of radius pi, a shift within 2 m."""
    angle = st.floats(0.0, np.pi, allow_nan=False)
    shift = st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=3, max_size=3)
    return st.builds(
        lambda d, t, p: transform(exp3(np.array(d) * t), np.array(p)), unit_vectors(), angle, shift
    )


# ----------------------------------------------------------------------------- base frame
@settings(max_examples=30, deadline=None)
@given(trees(max_bodies=6, mimic=None, damping=None), placements(), st.data())
def test_moving_the_base_changes_no_joint_quantity(tree, T_base, data):
    """The robot moved by T_base in the world, gravity turned with it: the motion relative
    to gravity is the same, so tau, M and K are, and U changes by -m g'.p_base; every frame
    moves by T_base; J_b is the same and J_s becomes Ad_{T_base} J_s (MR eq. 3.83)."""
    model, moved = tree.model, tree.build(T_base)
    q, v, a = data.draw(states(model))
    # measured over ~400 trees: <= 7.1e-15 relative (M), 1.7e-15 (tau), 1.8e-15 (poses)
    assert_close(rd.rnea(moved, q, v, a), rd.rnea(model, q, v, a), 1e-13, "tau")
    assert_close(rd.mass_matrix(moved, q), rd.mass_matrix(model, q), 1e-13, "M")
    K0, K1 = (rd.simulate(m, q, v, duration=0.01, dt=0.01).kinetic_energy()[0]
              for m in (model, moved))  # fmt: skip
    assert_close(K1, K0, 1e-13, "K (the compiled Trajectory.kinetic_energy)")
    if not np.any(model.jnt_type == 8):  # robodyn.energy rejects universal joints
        K0 = rd.kinetic_energy(model, q, v)  # from world twists and world inertias
        assert_close(rd.kinetic_energy(moved, q, v), K0, 1e-13, "K (robodyn.energy)")
    g_moved = T_base[:3, :3] @ np.array(tree.gravity)
    U1 = potential(model, q) - model.total_mass * g_moved @ T_base[:3, 3]
    assert_close(potential(moved, q), U1, 1e-13, "U")
    for frame in model.frame_names[1:]:
        assert_close(rd.fk(moved, q, frame), T_base @ rd.fk(model, q, frame), 1e-13, frame)
        J_s, J_b = (rd.jacobian(model, q, frame, kind=k) for k in ("space", "body"))
        assert_close(rd.jacobian(moved, q, frame, kind="body"), J_b, 1e-13, frame)
        assert_close(rd.jacobian(moved, q, frame), adjoint(T_base) @ J_s, 1e-13, frame)


# ----------------------------------------------------------------------------- simulation
SAMPLES = np.linspace(0.0, 0.5, 6)  # the times (s) the invariants are read at
DTS = (0.01, 0.005)  # RK4 steps (s): a coarse one and its half
ROUNDING = 1e-12  # drift of E or h at the level of rounding (measured <= 9.3e-14)


def energy_drifts(model, q, v) -> list[float]:
    """max_t |E(t) - E(0)| / max(1, |E|, K) of rd.simulate's RK4 with each step of DTS over
    0.5 s (E from :func:`energy`, read every 0.1 s)."""
    out = []
    for dt in DTS:
        traj = rd.simulate(model, q, v, duration=0.5, dt=dt, friction=False)
        k = np.searchsorted(traj.t, SAMPLES - dt / 2)
        E = np.array([energy(model, traj.q[i], traj.v[i]) for i in k])
        out.append(np.abs(E - E[0]).max() / max(1.0, np.abs(E).max(), traj.kinetic_energy().max()))
    return out


def momentum_drifts(model, q, v, tau) -> list[float]:
    """max_t |h(t) - h(0)| / max(1, |h|) of rd.simulate's RK4 under constant torques tau,
    each step of DTS over 0.5 s (h from :func:`spatial_momentum`, read every 0.1 s)."""
    out = []
    for dt in DTS:
        traj = rd.simulate(model, q, v, lambda t, q, v: tau, duration=0.5, dt=dt, friction=False)
        k = np.searchsorted(traj.t, SAMPLES - dt / 2)
        h = np.array([spatial_momentum(model, traj.q[i], traj.v[i]) for i in k])
        out.append(np.abs(h - h[0]).max() / max(1.0, np.abs(h).max()))
    return out


def assert_fourth_order(coarse: float, fine: float, bound: float) -> None:
    """RK4's drift over a fixed time falls as dt^4: halving dt divides it by ~16 (12
    asserted, plus the rounding of E or h: 9e-14 measured at rest or in free flight,
    where there is nothing to drift). An invariant the integrator or the dynamics break
    drifts by about as much at dt / 2 (ratio ~1-2), a lower order by 2-8."""
    assert coarse <= bound, f"drift {coarse:.3g} at dt = {DTS[0]} s"
    assert fine <= coarse / 12 + ROUNDING, f"drift {coarse:.3g} -> {fine:.3g} at dt / 2"


@settings(max_examples=20, deadline=None)
@given(trees(max_bodies=4, mimic=None, damping=None), st.data())
def test_simulate_conserves_energy_to_fourth_order(tree, data):
    """No controller, no friction (damping, Coulomb): E = K + U is constant along the exact
    motion (any joint types, a floating base or free joints anywhere, rotor inertia)."""
    model = tree.model
    q, v, _ = data.draw(states(model, scale=1.0))
    # measured over ~900 trees: coarse <= 2.0e-6 and coarse / fine 10.8-25.7 (median 16.0)
    # where coarse > 1e-12 (70 %); the ratios below 12 at coarse < 6e-12 (rounding)
    assert_fourth_order(*energy_drifts(model, q, v), bound=2e-5)


@settings(max_examples=12, deadline=None)
@given(trees(max_bodies=4, floating=True, gravity=False, mimic=None, damping=None), st.data())
def test_simulate_conserves_momentum_of_a_floating_tree(tree, data):
    """No gravity, no wrench on the base (tau[:6] = 0): the joint torques (and a joint's
    rotor inertia pushing on both its bodies) are internal, so the spatial momentum about
    the world origin is constant along the motion."""
    model = tree.model
    q, v, tau = data.draw(states(model, scale=1.0))
    tau[:6] = 0.0
    if not np.any(model.jnt_type == 8):  # robodyn's own momentum rejects universal joints
        assert_close(rd.momentum(model, q, v), spatial_momentum(model, q, v), 2e-14, "h")
    # measured over 200 trees: coarse <= 1.1e-5, coarse / fine 14.1-16.6 (median 16.0)
    assert_fourth_order(*momentum_drifts(model, q, v, tau), bound=1e-4)


# ----------------------------------------------------------------------------- configuration
@settings(max_examples=30, deadline=None)
@given(trees(max_bodies=6, mimic=None), st.data())
def test_integrate_and_difference_are_inverse_on_every_joint(tree, data):
    """q1 = q0 (+) (q1 (-) q0) as poses (a quaternion and its negative are one rotation:
    compared through the chained poses), and (q0 (+) v) (-) q0 = v while every rotation
    stays below a half turn (|v| <= 1 per entry)."""
    model = tree.model
    q0, v, _ = data.draw(states(model, scale=1.0))
    q1 = data.draw(configurations(model))
    back = rd.integrate(model, q0, rd.difference(model, q0, q1))
    # measured over 500 trees <= 2.3e-15 (poses), 1.1e-15 (v)
    assert_close(chain_poses(model, back), chain_poses(model, q1), 2e-14, "q0 (+) (q1 (-) q0)")
    assert_close(
        rd.difference(model, q0, rd.integrate(model, q0, v)), v, 2e-14, "(q0 (+) v) (-) q0"
    )


# ----------------------------------------------------------------------------- Jacobians
@settings(max_examples=30, deadline=None)
@given(trees(max_bodies=6, mimic=None), st.data())
def test_jacobians_are_finite_differences_of_forward_kinematics(tree, data):
    """Column k of J is the frame's velocity along q (+) t e_k: central differences of the
    chained poses (helpers.chain_frame_poses, no robodyn kinematics), read as
    log(T0^-1 T) (body), log(T T0^-1) (space) and [omega_s; dp/dt] (world-aligned)."""
    model = tree.model
    q, _, _ = data.draw(states(model))
    E = np.eye(model.nv)
    Tp = np.array([chain_frame_poses(model, x) for x in rd.integrate(model, q, E, H)])
    Tm = np.array([chain_frame_poses(model, x) for x in rd.integrate(model, q, E, -H)])
    T0 = chain_frame_poses(model, q)
    for f, frame in enumerate(model.frame_names):
        Ti = inv_transform(T0[f])
        body = (log6(Ti @ Tp[:, f], check=False) - log6(Ti @ Tm[:, f], check=False)).T / (2 * H)
        space = (log6(Tp[:, f] @ Ti, check=False) - log6(Tm[:, f] @ Ti, check=False)).T / (2 * H)
        aligned = np.vstack([space[:3], (Tp[:, f, :3, 3] - Tm[:, f, :3, 3]).T / (2 * H)])
        for kind, want in (("body", body), ("space", space), ("world_aligned", aligned)):
            # measured over ~400 trees <= 8.5e-11 (the differences' error, ~eps^(2/3))
            assert_close(rd.jacobian(model, q, frame, kind=kind), want, 1e-9, f"{frame} {kind}")


# ----------------------------------------------------------------------------- structure
@settings(max_examples=30, deadline=None)
@given(trees(max_bodies=7, require=MR_KINDS, mimic=None, damping=None), st.data())
def test_mass_matrix_rnea_and_aba_with_every_mr_joint(tree, data):
    """On trees that hold a spherical, planar, helical, cylindrical and universal joint:
    M symmetric positive definite, M[:, k] = rnea(q, 0, e_k) - rnea(q, 0, 0) with gravity
    off (Pinocchio's CRBA test), aba(q, v, rnea(q, v, a)) = a and back."""
    model = tree.model
    kinds = {int(k) for k in model.jnt_type}
    assert {4, 5, 6, 7, 8} <= kinds  # spherical, planar, helical, cylindrical, universal
    q, v, a = data.draw(states(model))
    M = rd.mass_matrix(model, q)
    assert np.array_equal(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0
    free = dataclasses.replace(tree, gravity=(0.0, 0.0, 0.0)).build()  # gravity off
    z = np.zeros(model.nv)
    cols = np.array([rd.rnea(free, q, z, e) - rd.rnea(free, q, z, z) for e in np.eye(model.nv)])
    # measured over ~400 trees <= 2.0e-15
    assert_close(cols.T, M, 2e-14, "RNEA columns")
    tau = rd.rnea(model, q, v, a)
    # ABA's rounding grows with the conditioning of M: measured <= 4.0e-16 cond(M) for
    # aba(rnea), 6.6e-17 cond(M) for rnea(aba)
    cond = np.linalg.cond(M)
    assert_close(rd.aba(model, q, v, tau), a, 5e-15 * cond, "aba(rnea)")
    assert_close(rd.rnea(model, q, v, rd.aba(model, q, v, tau)), tau, 1e-15 * cond, "rnea(aba)")


# ----------------------------------------------------------------------------- energy
#: robodyn.energy's functions (kinetic_energy, potential_energy, momentum ...) reject a
#: universal joint (their numpy path does not model its q-dependent motion subspace)
NOT_UNIVERSAL = tuple(k for k in TREE_KINDS if k != "universal")


@settings(max_examples=30, deadline=None)
@given(trees(max_bodies=5, kinds=NOT_UNIVERSAL, mimic=None, damping=True), st.data())
def test_energy_and_momentum_identities(tree, data):
    """tests/test_energy.py's identities on hypothesis trees: K = 1/2 v^T M v (with and
    without rotor inertia), dU/dq = g(q) along q (+) h e_k, h = A(q) v, the CoM velocity
    J_c v, the centroidal momentum A_G v, and for a free-floating tree with no input
    dk_G/dt = 0 and dp/dt = m g."""
    model = tree.model
    q, v, _ = data.draw(states(model))
    M, Ma = rd.mass_matrix(model, q), rd.mass_matrix(model, q, armature=False)
    scale = max(1.0, 0.5 * v @ M @ v)
    # measured over 400 trees (relative): K 1.9e-15, U 1.3e-14, dU/dq 7.4e-11, h 1.5e-15,
    # A v 1.7e-15, J_c v 1.6e-15, A_G v 2.5e-15, dk_G/dt 9.7e-11, dp/dt 2.4e-10
    assert abs(rd.kinetic_energy(model, q, v) - 0.5 * v @ M @ v) <= 2e-14 * scale
    assert abs(rd.kinetic_energy(model, q, v, armature=False) - 0.5 * v @ Ma @ v) <= 2e-14 * scale
    U = potential(model, q)
    assert abs(rd.potential_energy(model, q) - U) <= 1e-13 * max(1.0, abs(U))
    E = np.eye(model.nv)
    dU = [(potential(model, rd.integrate(model, q, e, H))
           - potential(model, rd.integrate(model, q, e, -H))) / (2 * H) for e in E]  # fmt: skip
    assert_close(dU, rd.gravity_forces(model, q), 1e-9, "dU/dq")
    h = rd.momentum(model, q, v)
    assert_close(h, spatial_momentum(model, q, v), 2e-14, "h")
    assert_close(momentum_matrix(model, q) @ v, h, 2e-14, "A v")
    assert_close(com_velocity(model, q, v), com_jacobian(model, q) @ v, 2e-14, "J_c v")
    hg = rd.centroidal_momentum(model, q, v)
    assert_close(momentum_matrix(model, q, about="com") @ v, hg, 3e-14, "A_G v")
    if tree.floating:
        a = rd.forward_dynamics(model, q, v, np.zeros(model.nv), friction=False)

        def hg_at(t):
            return rd.centroidal_momentum(model, rd.integrate(model, q, v, t), v + a * t)

        dh = (hg_at(H) - hg_at(-H)) / (2 * H)
        mg = model.total_mass * model.gravity
        s = max(1.0, np.abs(hg).max(), np.abs(v).max() ** 2, np.abs(mg).max())
        assert np.abs(dh[:3]).max() <= 1e-9 * s
        assert np.abs(dh[3:] - mg).max() <= 3e-9 * s


@settings(max_examples=25, deadline=None)
@given(trees(max_bodies=5, kinds=NOT_UNIVERSAL, mimic=None, damping=True), st.data())
def test_instantaneous_energy_balance(tree, data):
    """dE/dt = v^T tau with no friction, along the curve (q (+) t v, v + t a) that has the
    motion's velocity and acceleration at t = 0 (central differences); a free-floating
    tree without gravity keeps its momentum under joint torques (dh/dt = 0)."""
    model = tree.model
    q, v, tau = data.draw(states(model))
    a = rd.forward_dynamics(model, q, v, tau, friction=False)

    def along(f, t):
        return f(model, rd.integrate(model, q, v, t), v + t * a)

    dE = (along(rd.mechanical_energy, H) - along(rd.mechanical_energy, -H)) / (2 * H)
    E0 = rd.mechanical_energy(model, q, v)
    K0 = rd.kinetic_energy(model, q, v)
    # measured over 400 trees: 9.3e-10 (dE/dt), 5.5e-10 (dh/dt); tests/test_energy.py
    # measured 3.1e-9 and 1.5e-9 over 7,000 seeded trees
    assert abs(dE - v @ tau) <= 2e-8 * max(1.0, abs(v @ tau), abs(E0), K0)
    if tree.floating:
        free = dataclasses.replace(tree, gravity=(0.0, 0.0, 0.0)).build()
        tau[:6] = 0.0
        a = rd.forward_dynamics(free, q, v, tau, friction=False)

        def h_at(t):
            return rd.momentum(free, rd.integrate(free, q, v, t), v + t * a)

        dh = (h_at(H) - h_at(-H)) / (2 * H)
        assert np.abs(dh).max() <= 5e-9 * (1 + np.abs(rd.momentum(free, q, v)).max())


# ----------------------------------------------------------------------------- Pinocchio
MOVING = tuple(k for k in TREE_KINDS if k != "fixed")


@settings(max_examples=25, deadline=None)
@given(trees(max_bodies=6, kinds=MOVING, mimic=False), st.data())
def test_dynamics_and_kinematics_equal_pinocchios(tree, data):
    """The same drawn numbers built by Pinocchio with its own joint of each type
    (TreeSpec.pinocchio): the tool's pose and Jacobians, RNEA, CRBA, ABA, gravity and the
    centre of mass equal Pinocchio's after the [v; omega] and quaternion reorderings."""
    import pinocchio as pin

    model = tree.model
    pm, pd, mp = tree.pinocchio()
    q, v, a = data.draw(states(model))
    qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
    fid = pm.getFrameId("tool")
    pin.forwardKinematics(pm, pd, qp)
    pin.updateFramePlacements(pm, pd)
    pin.computeJointJacobians(pm, pd, qp)
    # measured over 500 explored trees: fk 1.6e-15, J 3.4e-15, rnea 3.0e-15, crba 1.8e-15,
    # aba 3.3e-13 (conditioning of M), g 3.3e-15, com 7.5e-16
    assert_close(rd.fk(model, q, "tool"), pd.oMf[fid].homogeneous, 2e-14, "fk")
    for kind, rf in (("space", pin.WORLD), ("body", pin.LOCAL),
                     ("world_aligned", pin.LOCAL_WORLD_ALIGNED)):  # fmt: skip
        J = np.reshape(pin.getFrameJacobian(pm, pd, fid, rf), (6, pm.nv))  # nv = 1: (6,)
        want = mp.jacobian_from_pin(J)
        assert_close(rd.jacobian(model, q, "tool", kind=kind), want, 5e-14, kind)
    tau = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, ap))
    assert_close(rd.rnea(model, q, v, a), tau, 5e-14, "rnea")
    M = np.reshape(pin.crba(pm, pd, qp), (pm.nv, pm.nv))
    assert_close(rd.mass_matrix(model, q), mp.matrix_from_pin(np.triu(M) + np.triu(M, 1).T),
                 2e-14, "crba")  # fmt: skip
    a_pin = mp.v_from_pin(pin.aba(pm, pd, qp, vp, mp.v_to_pin(tau)))
    assert_close(rd.aba(model, q, v, tau), a_pin, 3e-12, "aba")
    g_pin = mp.v_from_pin(pin.computeGeneralizedGravity(pm, pd, qp))
    assert_close(rd.gravity_forces(model, q), g_pin, 5e-14, "g")
    assert_close(rd.com(model, q), pin.centerOfMass(pm, pd, qp), 1e-14, "com")
