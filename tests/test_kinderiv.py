"""Derivatives of frame kinematics (robodyn.kinematics.derivatives, kernels/core/kinderiv.c):
the kinematic Hessian dJ/dq and the partial derivatives of a frame's twist and acceleration.

Sources: central finite differences of robodyn's own jacobian, frame_velocity and
frame_acceleration, q moved through rd.integrate (the tangent space), Richardson-extrapolated
from the steps h and h/2, on random trees of every joint type (spherical, planar, helical,
cylindrical, universal and free joints, mimic joints, floating bases) at every frame;
identities: dJ/dt = H v equals rd.jacobian_dot, dV/dv = dA/da = J; the batch against the
single-state calls, bitwise. Pinocchio on every example-robot-data robot is in tests/oracle.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robodyn as rd
from helpers import JOINT_KINDS, random_tree, rel_err, trees

H = 1e-3  # finite-difference step (Richardson from h and h/2: truncation ~h^4)
KINDS = ("space", "body", "world_aligned")
#: measured <= 3e-10 (relative, 24 trees x 3 kinds x every frame)
FD_TOL = 1e-8


def _tree(seed: int, floating: bool):
    model, _ = random_tree(seed, 9, floating=floating, mimic=True, kinds=JOINT_KINDS)
    rng = np.random.default_rng(seed)
    return (
        model,
        rd.random_configuration(model, rng),
        rng.normal(size=model.nv),
        rng.normal(size=model.nv),
    )


def _fd(f, model, q, along: str):
    """d f / d x_j for each j, x = q (moved by integrate) or an added vector, stacked on the
    last axis: Richardson's (4 D(h/2) - D(h)) / 3 of central differences."""
    nv = model.nv

    def central(h, j):
        e = np.zeros(nv)
        e[j] = h
        if along == "q":
            return (f(rd.integrate(model, q, e)) - f(rd.integrate(model, q, -e))) / (2 * h)
        return (f(q + e) - f(q - e)) / (2 * h)

    cols = [(4 * central(H / 2, j) - central(H, j)) / 3 for j in range(nv)]
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("seed,floating", [(0, False), (1, True), (2, False), (3, True)])
@pytest.mark.parametrize("kind", KINDS)
def test_hessian_and_motion_derivatives_by_finite_differences(seed, floating, kind):
    model, q, v, a = _tree(seed, floating)
    for frame in model.frame_names[2:]:  # every frame on a moving body or below
        _check_frame(model, q, v, a, frame, kind)


def _check_frame(model, q, v, a, frame, kind):
    jac = functools.partial(rd.jacobian, model, frame=frame, kind=kind)
    vel = functools.partial(rd.frame_velocity, model, frame=frame, kind=kind)
    acc = functools.partial(rd.frame_acceleration, model, frame=frame, kind=kind)
    Hs = rd.kinematic_hessian(model, q, frame, kind)
    assert rel_err(Hs, _fd(jac, model, q, "q")) < FD_TOL, (frame, "H")
    dVq, dVv = rd.frame_velocity_derivatives(model, q, v, frame, kind)
    assert rel_err(dVq, _fd(lambda x: vel(x, v), model, q, "q")) < FD_TOL, (frame, "dV/dq")
    assert rel_err(dVv, _fd(lambda x: vel(q, x), model, v, "v")) < FD_TOL, (frame, "dV/dv")
    dAq, dAv, dAa = rd.frame_acceleration_derivatives(model, q, v, a, frame, kind)
    assert rel_err(dAq, _fd(lambda x: acc(x, v, a), model, q, "q")) < FD_TOL, (frame, "dA/dq")
    assert rel_err(dAv, _fd(lambda x: acc(q, x, a), model, v, "v")) < FD_TOL, (frame, "dA/dv")
    # the identities: dV/dv = dA/da = J, and dJ/dt = H v
    J = jac(q)
    assert np.array_equal(dVv, J) and np.array_equal(dAa, J)
    scale = max(1.0, np.abs(Hs).max())
    np.testing.assert_allclose(Hs @ v, rd.jacobian_dot(model, q, v, frame, kind), rtol=0,
                               atol=1e-13 * scale)  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(trees(max_bodies=6, floating=None, mimic=None), st.data())
def test_random_trees_velocity_derivative_is_hessian_times_v(tree, data):
    """On hypothesis trees: dV/dq = H v contracted over the columns (dV/dq_j = sum_i dJ_i/dq_j
    v_i), and the acceleration's dA/dq against finite differences."""
    model = tree.model
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31 - 1)))
    q = rd.random_configuration(model, rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    frame = data.draw(st.sampled_from(model.frame_names[1:]))
    kind = data.draw(st.sampled_from(KINDS))
    Hs = rd.kinematic_hessian(model, q, frame, kind)
    dVq, _ = rd.frame_velocity_derivatives(model, q, v, frame, kind)
    scale = max(1.0, np.abs(Hs).max()) * max(1.0, np.abs(v).max())
    np.testing.assert_allclose(dVq, np.einsum("rij,i->rj", Hs, v), rtol=0, atol=1e-13 * scale)
    dAq, _, _ = rd.frame_acceleration_derivatives(model, q, v, a, frame, kind)
    want = _fd(lambda x: rd.frame_acceleration(model, x, v, a, frame, kind), model, q, "q")
    assert rel_err(dAq, want) < FD_TOL


def test_batch_equals_single_calls_bitwise_and_out():
    model, *_ = _tree(5, True)
    rng = np.random.default_rng(6)
    N = 37
    Q = rd.random_configuration(model, rng, N)
    V, A = rng.normal(size=(N, model.nv)), rng.normal(size=(N, model.nv))
    frame = model.frame_names[-1]
    for kind in KINDS:
        Hs = rd.kinematic_hessian(model, Q, frame, kind, threads=2)
        dV = rd.frame_velocity_derivatives(model, Q, V, frame, kind)
        dA = rd.frame_acceleration_derivatives(model, Q, V, A, frame, kind)
        assert Hs.shape == (N, 6, model.nv, model.nv) and dA[2].shape == (N, 6, model.nv)
        for n in range(N):
            assert np.array_equal(Hs[n], rd.kinematic_hessian(model, Q[n], frame, kind))
            for x, y in zip(dV, rd.frame_velocity_derivatives(model, Q[n], V[n], frame, kind)):
                assert np.array_equal(x[n], y)
            one = rd.frame_acceleration_derivatives(model, Q[n], V[n], A[n], frame, kind)
            for x, y in zip(dA, one):
                assert np.array_equal(x[n], y)
    out = tuple(np.empty((N, 6, model.nv)) for _ in range(3))
    r = rd.frame_acceleration_derivatives(model, Q, V, A, frame, out=out)
    assert all(x is y for x, y in zip(r, out))
    assert all(np.array_equal(x, y) for x, y in zip(out, rd.frame_acceleration_derivatives(
        model, Q, V, A, frame)))  # fmt: skip
    H_out = np.empty((N, 6, model.nv, model.nv))
    assert rd.kinematic_hessian(model, Q, frame, out=H_out) is H_out


def test_errors_name_the_argument():
    model = rd.models.load("ur5")
    q, v = rd.neutral(model), np.zeros(model.nv)
    with pytest.raises(ValueError, match=r"v must have shape \(\.\.\., 6\)"):
        rd.frame_velocity_derivatives(model, q, np.zeros(5), "ee")
    v2 = v.copy()
    v2[2] = np.nan
    with pytest.raises(ValueError, match=r"^a contains NaN or inf$"):
        rd.frame_acceleration_derivatives(model, q, v, v2, "ee")
    with pytest.raises(rd.ModelError, match="no frame named 'nope'"):
        rd.kinematic_hessian(model, q, "nope")
    with pytest.raises(ValueError, match="kind must be one of"):
        rd.kinematic_hessian(model, q, "ee", kind="screw")
    with pytest.raises(ValueError, match="out must be a tuple of 2 arrays"):
        rd.frame_velocity_derivatives(model, q, v, "ee", out=np.empty((6, 6)))
