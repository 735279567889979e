"""Course notes 001, Example 10.3.1: the knife-edge on a plane (eqs. 10.21-10.28).

q = (q1, q2, q3): contact point and heading; M = diag(m, m, I); the Pfaffian constraint
A(q) = [sin q3, -cos q3, 0]. The closed forms (10.25)-(10.28) and the projection P of
the text are typed here; robodyn solves the KKT system of eqs. 10.16-10.17.
"""

from __future__ import annotations

import numpy as np
import pytest

from robodyn.constrained import (
    constrained_forward_dynamics,
    constraint_projections,
    kkt_solve,
    projection_orthogonality,
)
from robodyn.dynamics import mass_matrix
from robodyn.inertia import RigidInertia
from robodyn.model.builder import ModelBuilder

m, I = 2.5, 0.4


def knife_model():
    """x, y prismatic + theta revolute about z, all the mass on the last body at its origin."""
    return (
        ModelBuilder(name="knife_edge", gravity=(0.0, 0.0, -9.81))
        .add_body("slide_x", "world", joint_type="prismatic", axis=(1, 0, 0))
        .add_body("slide_y", "slide_x", joint_type="prismatic", axis=(0, 1, 0))
        .add_body(
            "blade",
            "slide_y",
            joint_type="revolute",
            axis=(0, 0, 1),
            inertia=RigidInertia(m, [0, 0, 0], np.diag([0.3, 0.35, I])),
        )
        .build()
    )


def closed_forms(q, dq, u):
    """(10.25)-(10.28)."""
    s, c = np.sin(q[2]), np.cos(q[2])
    d1, d2, d3 = dq
    ddq1 = (u[0] * c**2 + (u[1] - m * d1 * d3) * c * s - m * d2 * d3 * s**2) / m
    ddq2 = (u[1] * s**2 + (u[0] + m * d2 * d3) * c * s + m * d1 * d3 * c**2) / m
    ddq3 = u[2] / I
    lam = (u[1] - m * d1 * d3) * c - (u[0] + m * d2 * d3) * s
    return np.array([ddq1, ddq2, ddq3]), lam


def constraint(q, dq):
    s, c = np.sin(q[2]), np.cos(q[2])
    A = np.array([[s, -c, 0.0]])
    # dA/dt dq = dq1 dq3 cos q3 + dq2 dq3 sin q3   (the velocity terms of eq. 10.21)
    dA_v = np.array([dq[0] * dq[2] * c + dq[1] * dq[2] * s])
    return A, dA_v


@pytest.mark.parametrize("seed", range(8))
def test_knife_edge_closed_forms(seed):
    rng = np.random.default_rng(seed)
    q, u = rng.uniform(-3, 3, 3), rng.normal(size=3)
    # a velocity satisfying the constraint: along the heading, plus a spin
    speed, spin = rng.normal(size=2)
    dq = np.array([speed * np.cos(q[2]), speed * np.sin(q[2]), spin])
    ddq_ref, lam_ref = closed_forms(q, dq, u)
    A, dA_v = constraint(q, dq)
    # plain matrices (eqs. 10.22-10.24: no C dq, no g)
    ddq, lam = kkt_solve(np.diag([m, m, I]), np.zeros(3), u, A, dA_v)
    np.testing.assert_allclose(ddq, ddq_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lam, [lam_ref], rtol=1e-12, atol=1e-12)
    # the same system as a 3-dof model (gravity along -z does no work here)
    model = knife_model()
    np.testing.assert_allclose(mass_matrix(model, q), np.diag([m, m, I]), atol=1e-14)
    ddq_m, lam_m = constrained_forward_dynamics(model, q, dq, u, A, dA_v)
    np.testing.assert_allclose(ddq_m, ddq_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lam_m, [lam_ref], rtol=1e-12, atol=1e-12)
    # eqs. 10.22-10.24 hold with this lambda, and eq. 10.21 holds with this ddq
    np.testing.assert_allclose(m * ddq[0], u[0] + lam[0] * np.sin(q[2]), atol=1e-12)
    np.testing.assert_allclose(m * ddq[1], u[1] - lam[0] * np.cos(q[2]), atol=1e-12)
    assert abs(A[0] @ ddq + dA_v[0]) < 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_knife_edge_projection(seed):
    rng = np.random.default_rng(seed)
    q3 = rng.uniform(-3, 3)
    s, c = np.sin(q3), np.cos(q3)
    P_ref = np.array([[c**2, s * c, 0.0], [s * c, s**2, 0.0], [0.0, 0.0, 1.0]])
    M = np.diag([m, m, I])
    P_u, P = constraint_projections(M, np.array([s, -c, 0.0]))
    np.testing.assert_allclose(P, P_ref, atol=1e-14)
    np.testing.assert_allclose(P_u, P_ref.T, atol=1e-14)  # P = P_u^T
    np.testing.assert_allclose(P, np.linalg.inv(M) @ P_u @ M, atol=1e-14)  # eq. 10.19
    assert np.linalg.matrix_rank(P) == 2
    dq = rng.normal(size=3)
    assert abs(projection_orthogonality(M, P, dq)) < 1e-13
    # projected dynamics (10.20): P ddq = P M^-1 u for the constrained ddq
    u = rng.normal(size=3)
    speed = rng.normal()
    dq = np.array([speed * c, speed * s, rng.normal()])
    ddq, _ = kkt_solve(M, np.zeros(3), u, np.array([[s, -c, 0.0]]), constraint([0, 0, q3], dq)[1])
    np.testing.assert_allclose(P @ ddq, P @ np.linalg.solve(M, u), atol=1e-12)
