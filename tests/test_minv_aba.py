"""M(q)^-1 by the articulated-body recursion (kernels/core/minv_aba.c), the road of
``rd.mass_matrix_inverse(method="aba")`` and of ``rd.forward_dynamics_derivatives``'s M^-1
(``method="aba"``; both functions take it by default from a number of dofs on):

* equal to numpy's inverse of robodyn's mass matrix (CRBA, an independent algorithm) on
  hypothesis trees of every joint type, floating or not, with and without armature:
  normwise backward error |M X - 1| / (|M| |X|) at round-off, the forward error within
  cond(M) eps, X exactly symmetric;
* the forward dynamics derivatives by the recursion equal the implicit function theorem
  with numpy's inverse, -inv(M) dtau/dq and -inv(M) dtau/dv, M from the inverse dynamics
  derivatives at a = forward_dynamics(q, v, tau) (finite differences of both roads:
  tests/test_derivatives.py);
* a mimic model takes the Cholesky road whatever the method; the default road is the
  recursion from 24 dofs on for M^-1 and 12 for the derivatives (the bench's measurement),
  identical to the method it names; batches (lane widths around 16, two threads) equal
  their single states exactly; an unknown method is refused by name.

Pinocchio's computeMinverse and computeABADerivatives are the oracle of both roads in
tests/oracle/test_oracle_dynamics.py and tests/oracle/test_oracle_derivatives.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robodyn as rd
from helpers import (
    JOINT_KINDS,
    MR_KINDS,
    assert_close,
    configurations,
    random_state,
    random_tree,
    states,
    trees,
)

BACKWARD_TOL = 1e-14  # |M X - 1| / (|M| |X|): at most 3.1e-16 on 300 trees, 2 armatures
FORWARD_TOL = 2e-15  # |X - inv(M)| / |inv(M)| per unit of cond(M): at most 1.8e-16 there


def _check_inverse(X, M, what, symmetric=True):
    """X = M^-1 to round-off; exactly symmetric as the recursion mirrors it (the Cholesky
    road solves each column)."""
    W = np.linalg.inv(M)
    nv = M.shape[0]
    backward = np.abs(M @ X - np.eye(nv)).max() / (np.linalg.norm(M, 2) * np.linalg.norm(X, 2))
    forward = np.abs(X - W).max() / np.abs(W).max()
    assert backward <= BACKWARD_TOL, f"{what}: backward error {backward:.3g}"
    assert forward <= FORWARD_TOL * np.linalg.cond(M), f"{what}: forward error {forward:.3g}"
    assert np.array_equal(X, X.T) or not symmetric, what


@settings(max_examples=60, deadline=None)
@given(
    trees(max_bodies=7, floating=None, mimic=False, damping=None, require=MR_KINDS),
    st.data(),
)
def test_equal_to_numpys_inverse_of_the_mass_matrix_on_every_joint_type(tree, data):
    """Spherical, planar, helical, cylindrical and universal joints required, revolute,
    prismatic, free anywhere and fixed links drawn, maybe a floating base, maybe armature
    (with it and without)."""
    model = tree.model
    q = data.draw(configurations(model))
    for armature in (True, False):
        X = rd.mass_matrix_inverse(model, q, method="aba", armature=armature)
        M = rd.mass_matrix(model, q, armature=armature)
        _check_inverse(X, M, f"{tree!r} armature={armature}")


@settings(max_examples=30, deadline=None)
@given(trees(max_bodies=6, floating=None, mimic=False, damping=True), st.data())
def test_forward_derivatives_are_the_inverse_dynamics_ones_times_numpys_inverse(tree, data):
    """da/dq = -inv(M) dtau/dq, da/dv = -inv(M) dtau/dv, da/dtau = inv(M) at
    a = forward_dynamics(q, v, tau), with friction, armature and external wrenches."""
    model = tree.model
    q, v, tau = data.draw(states(model))
    f_ext = np.random.default_rng(0).normal(size=(model.nb, 6))
    got = rd.forward_dynamics_derivatives(model, q, v, tau, f_ext, method="aba")
    a = rd.forward_dynamics(model, q, v, tau, f_ext)
    tq, tv, M = rd.inverse_dynamics_derivatives(model, q, v, a, f_ext)
    Minv = np.linalg.inv(M)
    tol = 1e-13 * np.linalg.cond(M)
    for name, g, w in zip(("da_dq", "da_dv"), got, (-Minv @ tq, -Minv @ tv)):
        assert_close(g, w, tol, f"{tree!r} {name}")
    _check_inverse(got[2], M, f"{tree!r} da_dtau")


def test_a_mimic_model_takes_the_cholesky_road():
    model, _ = random_tree(3, 6, floating=True, mimic=True, damping=True)
    rng = np.random.default_rng(3)
    q, v, tau = random_state(model, rng)
    X = rd.mass_matrix_inverse(model, q, method="aba")
    assert np.array_equal(X, rd.mass_matrix_inverse(model, q, method="cholesky"))
    _check_inverse(X, rd.mass_matrix(model, q), "mimic", symmetric=False)
    got = rd.forward_dynamics_derivatives(model, q, v, tau, method="aba")
    want = rd.forward_dynamics_derivatives(model, q, v, tau, method="cholesky")
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


@pytest.mark.parametrize(
    "nv, minv_road, deriv_road",
    [(6, "cholesky", "cholesky"), (11, "cholesky", "cholesky"), (12, "cholesky", "aba"),
     (23, "cholesky", "aba"), (24, "aba", "aba"), (40, "aba", "aba")],
)  # fmt: skip
def test_the_default_road_by_the_number_of_dofs(nv, minv_road, deriv_road):
    """The default is the road the bench measured the faster: the recursion from 24 dofs
    on for M^-1, from 12 for the derivatives (kernels/core/minv.c, aba_derivatives.c)."""
    model, _ = random_tree(nv, nv, damping=True)
    assert model.nv == nv
    rng = np.random.default_rng(nv)
    q, v, tau = random_state(model, rng)
    X = rd.mass_matrix_inverse(model, q)
    assert np.array_equal(X, rd.mass_matrix_inverse(model, q, method=minv_road))
    other = "aba" if minv_road == "cholesky" else "cholesky"
    Y = rd.mass_matrix_inverse(model, q, method=other)
    assert not np.array_equal(X, Y)  # the two roads round differently
    _check_inverse(Y, rd.mass_matrix(model, q), f"nv={nv} {other}", other == "aba")
    got = rd.forward_dynamics_derivatives(model, q, v, tau)
    want = rd.forward_dynamics_derivatives(model, q, v, tau, method=deriv_road)
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


@pytest.mark.parametrize("n", [1, 15, 16, 17, 40])
def test_batches_equal_single_states(n):
    """Lanes of 16 states and the remainder, over two threads, every joint type and a
    floating base, with friction and armature: the single states' numbers exactly."""
    model, _ = random_tree(5, 9, floating=True, damping=True, kinds=JOINT_KINDS)
    rng = np.random.default_rng(n)
    Q, V, T = random_state(model, rng, n)
    X = rd.mass_matrix_inverse(model, Q, method="aba", threads=2)
    D = rd.forward_dynamics_derivatives(model, Q, V, T, method="aba", threads=2)
    for k in range(n):
        assert np.array_equal(X[k], rd.mass_matrix_inverse(model, Q[k], method="aba"))
        one = rd.forward_dynamics_derivatives(model, Q[k], V[k], T[k], method="aba")
        assert all(np.array_equal(d[k], o) for d, o in zip(D, one))


def test_an_unknown_method_is_refused_by_name():
    model = rd.models.load("ur5")
    z = np.zeros(6)
    match = r"method must be None, 'aba' or 'cholesky', got 'crba'"
    with pytest.raises(ValueError, match=match):
        rd.mass_matrix_inverse(model, z, method="crba")
    with pytest.raises(ValueError, match=match):
        rd.forward_dynamics_derivatives(model, z, z, z, method="crba")
