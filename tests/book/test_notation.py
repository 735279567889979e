"""The dictionary of docs/notation.md, held by the texts' own formulas: the lesson's c_ijk
and 000's Gamma_ijk (derived by sympy from the M each text prints) against
rd.christoffel's index order, the lesson's C against rd.coriolis_matrix, the planar slices
of robodyn's spatial Jacobian, tip force and task-space inertia against 000's 2x2 forms,
and the integrator names against the texts' update rules (typed in).
"""

from __future__ import annotations

from math import cos, sin

import numpy as np
import pytest
import sympy as sp

import robodyn as rd

t1, t2 = sp.symbols("theta1 theta2", real=True)
TH = (t1, t2)


def lesson_M():
    """Course notes 003, "Inertia Matrix", with the lesson's numbers."""
    m1, m2, l1, lc1, lc2, I1, I2 = 5.0, 3.0, 0.5, 0.25, 0.2, 0.1, 0.05
    a = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * sp.cos(t2)) + I1 + I2
    b = m2 * (lc2**2 + l1 * lc2 * sp.cos(t2)) + I2
    return sp.Matrix([[a, b], [b, m2 * lc2**2 + I2]])


def notes000_M(m1=1.3, m2=0.7, L1=0.9, L2=0.6):
    """Course notes 000, "Equations of Motion"."""
    a = m1 * L1**2 + m2 * (L1**2 + L2**2 + 2 * L1 * L2 * sp.cos(t2))
    b = m2 * (L2**2 + L1 * L2 * sp.cos(t2))
    return sp.Matrix([[a, b], [b, m2 * L2**2]])


def at(expr, q):
    return float(expr.subs({t1: q[0], t2: q[1]}))


def test_the_lessons_c_ijk_is_christoffel_k_i_j(rng):
    M = lesson_M()

    def c(i, j, k):  # course notes 003: c_ijk = 1/2 (dM_kj/dq_i + dM_ki/dq_j - dM_ij/dq_k)
        return (M[k, j].diff(TH[i]) + M[k, i].diff(TH[j]) - M[i, j].diff(TH[k])) / 2

    arm = rd.models.load("planar_2r")
    for _ in range(3):
        q, qd = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2)
        G = rd.christoffel(arm, q)
        for i in range(2):
            for j in range(2):
                for k in range(2):
                    assert G[k, i, j] == pytest.approx(at(c(i, j, k), q), abs=1e-12)
        # the lesson's C, typed in, is robodyn's coriolis_matrix
        h = 3.0 * 0.5 * 0.2 * sin(q[1])
        C = np.array([[-h * qd[1], -h * (qd[0] + qd[1])], [h * qd[0], 0.0]])
        np.testing.assert_allclose(rd.coriolis_matrix(arm, q, qd), C, atol=1e-12)
    # the printed order is not robodyn's: c_ijk differs from Gamma[i, j, k] somewhere
    q = np.array([0.3, 0.7])
    G = rd.christoffel(arm, q)
    assert not np.isclose(G[0, 1, 1], at(c(0, 1, 1), q), atol=1e-6)


def test_notes_000s_gamma_ijk_is_christoffel_i_j_k(rng):
    M = notes000_M()

    def gamma(i, j, k):  # course notes 000
        return (M[i, j].diff(TH[k]) + M[i, k].diff(TH[j]) - M[j, k].diff(TH[i])) / 2

    arm = rd.models.load("point_mass_2r", m1=1.3, m2=0.7, L1=0.9, L2=0.6)
    q, qd = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2)
    G = rd.christoffel(arm, q)
    want = np.array([[[at(gamma(i, j, k), q) for k in range(2)] for j in range(2)]
                     for i in range(2)])  # fmt: skip
    np.testing.assert_allclose(G, want, atol=1e-12)
    # c = thetadot^T Gamma_i thetadot, row by row
    np.testing.assert_allclose(rd.velocity_forces(arm, q, qd),
                               [qd @ want[i] @ qd for i in range(2)], atol=1e-12)  # fmt: skip


def test_planar_slices_are_notes_000s_2x2_forms(rng):
    L1, L2 = 0.9, 0.6
    arm = rd.models.load("point_mass_2r", m1=1.3, m2=0.7, L1=L1, L2=L2)
    q = rng.uniform(-np.pi, np.pi, 2)
    s1, c1, s12, c12 = sin(q[0]), cos(q[0]), sin(q.sum()), cos(q.sum())
    J = np.array([[-L1 * s1 - L2 * s12, -L2 * s12], [L1 * c1 + L2 * c12, L2 * c12]])
    J6 = rd.jacobian(arm, q, "ee", kind="world_aligned")
    np.testing.assert_allclose(J6[3:5], J, atol=1e-12)
    np.testing.assert_allclose(J6[[2, 3, 4]], np.vstack([[1.0, 1.0], J]), atol=1e-12)
    # the tip force (f_x, f_y) as a 6-vector wrench in the tip frame gives J^T f
    f = rng.normal(size=2)
    R = rd.fk(arm, q, "ee")[:3, :3]
    F = np.r_[0.0, 0.0, 0.0, R.T @ [f[0], f[1], 0.0]]
    zero = np.zeros(2)
    tau = rd.inverse_dynamics(arm, q, zero, zero, f_tip=F, frame="ee")
    np.testing.assert_allclose(tau - rd.gravity_forces(arm, q), J.T @ f, atol=1e-12)
    # 000's Lambda = J^-T M J^-1 with the 2x2 J
    Jinv = np.linalg.inv(J)
    Lam = Jinv.T @ rd.mass_matrix(arm, q) @ Jinv
    got = rd.task_space_inertia(arm, q, "ee", kind="world_aligned", part=(3, 4))
    np.testing.assert_allclose(got, Lam, rtol=1e-10)


def test_integrator_names_are_the_texts_update_rules():
    arm = rd.models.load("planar_2r")
    dt, n = 1e-3, 50
    q0 = np.array([0.3, -0.2])

    def loop(velocity_first):  # course notes 003's loop, and explicit Euler
        q, qd = q0.copy(), np.zeros(2)
        for _ in range(n):
            qdd = rd.forward_dynamics(arm, q, qd, np.zeros(2))
            if velocity_first:  # the lesson: q_dot = q_dot + q_ddot dt; q = q + q_dot dt
                qd = qd + qdd * dt
                q = q + qd * dt
            else:  # MR's EulerStep: q with the old velocity
                q, qd = q + qd * dt, qd + qdd * dt
        return q

    semi = rd.simulate(arm, q0, duration=n * dt, dt=dt, integrator="semi_implicit_euler")
    expl = rd.simulate(arm, q0, duration=n * dt, dt=dt, integrator="euler")
    np.testing.assert_allclose(semi.q[-1], loop(True), atol=1e-12)
    np.testing.assert_allclose(expl.q[-1], loop(False), atol=1e-12)
    assert not np.allclose(semi.q[-1], expl.q[-1], atol=1e-6)
