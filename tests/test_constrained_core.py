"""The compiled KKT solve of ``rd.constrained_forward_dynamics`` (kernels/core/constrained.c).

Sources: the KKT conditions themselves (course notes 001 eqs. 10.16-10.17: the constraint
``A ddq + dA_v = 0`` holds and the residual of the equations of motion is a constraint force
``A^T lambda``, with M and h from robodyn's own CRBA and RNEA) on hypothesis trees of every
joint type, floating bases and mimic joints, friction and armature; numpy's dense solve of
the bordered KKT matrix ``[[M, -A^T], [A, 0]]``; with no constraints, ``forward_dynamics``
(CRBA road) itself; the batch against the single-state calls, bitwise. Pinocchio's
``forwardDynamics`` on every example-robot-data robot is in tests/oracle.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robodyn as rd
from helpers import random_state, trees

#: relative residual of the KKT conditions; measured <= 4e-14 on 40 trees
TOL = 1e-11


def _kkt_dense(M, h, tau, A, dA):
    """The bordered system [[M, -A^T], [A, 0]] [ddq; lam] = [tau - h; -dA] by numpy's LU."""
    n, k = M.shape[0], A.shape[0]
    K = np.block([[M, -A.T], [A, np.zeros((k, k))]])
    x = np.linalg.solve(K, np.concatenate([tau - h, -dA]))
    return x[:n], x[n:]


@settings(max_examples=30, deadline=None)
@given(trees(max_bodies=6, floating=None, mimic=None, damping=True), st.data())
def test_kkt_conditions_on_random_trees(tree, data):
    model = tree.model
    seed = data.draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    q, v, a = random_state(model, rng)
    tau = rng.normal(size=model.nv)
    k = data.draw(st.integers(0, model.nv - 1)) if model.nv > 1 else 0
    A, dA = rng.normal(size=(k, model.nv)), rng.normal(size=k)
    friction = data.draw(st.booleans())
    ddq, lam = rd.constrained_forward_dynamics(model, q, v, tau, A, dA, friction=friction)
    M = rd.mass_matrix(model, q)
    h = rd.inverse_dynamics(model, q, v, np.zeros(model.nv), friction=friction)
    scale = max(1.0, np.abs(tau - h).max(), np.abs(dA).max(initial=0.0))
    a_scale = max(1.0, np.abs(A).max(initial=0.0))
    assert np.abs(A @ ddq + dA).max(initial=0.0) < TOL * scale * a_scale
    assert np.abs(M @ ddq + h - tau - A.T @ lam).max() < TOL * scale * max(1.0, np.abs(M).max())
    d2, l2 = _kkt_dense(M, h, tau, A, dA)
    np.testing.assert_allclose(ddq, d2, rtol=1e-9, atol=1e-9 * np.abs(d2).max(initial=1.0))
    np.testing.assert_allclose(lam, l2, rtol=1e-9, atol=1e-9 * np.abs(l2).max(initial=1.0))


def test_no_constraints_is_forward_dynamics_with_every_option():
    """k = 0: the mass-matrix road of forward_dynamics, with friction (smoothed too),
    armature and external wrenches passed through."""
    model = rd.models.load("panda")
    rng = np.random.default_rng(4)
    q, v, _ = random_state(model, rng)
    tau, f_ext = rng.normal(size=model.nv), rng.normal(size=(model.nb, 6))
    for kw in ({}, {"friction": False}, {"armature": False}, {"coulomb_eps": 0.05}):
        ddq, lam = rd.constrained_forward_dynamics(
            model, q, v, tau, np.zeros((0, model.nv)), np.zeros(0), f_ext=f_ext, **kw
        )
        want = rd.forward_dynamics(model, q, v, tau, f_ext, method="crba", **kw)
        np.testing.assert_allclose(ddq, want, rtol=1e-13, atol=1e-13)
        assert lam.shape == (0,)


def test_a_contact_holds_the_end_effector_still():
    """A = J (the end effector's world-aligned linear rows), dA_v = dJ/dt v: the constrained
    acceleration leaves the point's acceleration zero (the frame's own acceleration, a second
    computation), and lambda is the contact force that does it."""
    model = rd.models.load("ur5")
    rng = np.random.default_rng(7)
    q, v, _ = random_state(model, rng)
    J = rd.jacobian(model, q, "ee", kind="world_aligned")[3:]
    dJv = rd.frame_acceleration(model, q, v, np.zeros(model.nv), "ee", "world_aligned")[3:]
    tau = rd.gravity_forces(model, q) + rng.normal(size=model.nv)
    ddq, lam = rd.constrained_forward_dynamics(model, q, v, tau, J, dJv)
    acc = rd.frame_acceleration(model, q, v, ddq, "ee", "world_aligned")[3:]
    np.testing.assert_allclose(acc, 0.0, atol=1e-11)


def test_batch_equals_single_calls_bitwise_and_broadcasts():
    model = rd.models.load("panda")
    rng = np.random.default_rng(5)
    N, k = 37, 3  # two whole chunks of 16 lanes and a short one
    Q = rd.random_configuration(model, rng, N)
    V, T = rng.normal(size=(N, model.nv)), rng.normal(size=(N, model.nv))
    A, dA = rng.normal(size=(N, k, model.nv)), rng.normal(size=(N, k))
    ddq, lam = rd.constrained_forward_dynamics(model, Q, V, T, A, dA, threads=2)
    for n in range(N):
        d1, l1 = rd.constrained_forward_dynamics(model, Q[n], V[n], T[n], A[n], dA[n])
        assert np.array_equal(ddq[n], d1) and np.array_equal(lam[n], l1)
    # one A for every state, a (2, N) grid of states, out=
    d2, l2 = rd.constrained_forward_dynamics(model, Q.reshape(1, N, -1), V, T, A[0], dA[0])
    assert d2.shape == (1, N, model.nv) and l2.shape == (1, N, k)
    d1, l1 = rd.constrained_forward_dynamics(model, Q[4], V[4], T[4], A[0], dA[0])
    assert np.array_equal(d2[0, 4], d1) and np.array_equal(l2[0, 4], l1)
    out = (np.empty((N, model.nv)), np.empty((N, k)))
    r = rd.constrained_forward_dynamics(model, Q, V, T, A, dA, out=out)
    assert r[0] is out[0] and r[1] is out[1]
    assert np.array_equal(out[0], ddq) and np.array_equal(out[1], lam)


@pytest.mark.parametrize("name", ["q", "v", "tau", "A", "dA_dq_v", "f_ext"])
def test_nan_is_named_with_its_state(name):
    model = rd.models.load("ur5")
    rng = np.random.default_rng(1)
    N, k = 20, 2
    args = {
        "q": rd.random_configuration(model, rng, N),
        "v": rng.normal(size=(N, model.nv)),
        "tau": rng.normal(size=(N, model.nv)),
        "A": rng.normal(size=(N, k, model.nv)),
        "dA_dq_v": rng.normal(size=(N, k)),
        "f_ext": rng.normal(size=(N, model.nb, 6)),
    }
    args[name][17].flat[1] = np.nan
    f_ext = args.pop("f_ext")
    with pytest.raises(ValueError, match=rf"^{name}\[17\] contains NaN or inf$"):
        rd.constrained_forward_dynamics(model, *args.values(), f_ext=f_ext)


def test_bad_shapes_and_dependent_rows_are_named():
    model = rd.models.load("ur5")
    q, z = rd.neutral(model), np.zeros(model.nv)
    J = np.random.default_rng(2).normal(size=(3, model.nv))
    with pytest.raises(ValueError, match=r"A must have shape \(\.\.\., 2, 6\)"):
        rd.constrained_forward_dynamics(model, q, z, z, np.zeros((2, 5)), [0.0, 0.0])
    with pytest.raises(ValueError, match=r"dA_dq_v must have shape \(\.\.\., 2\)"):
        rd.constrained_forward_dynamics(model, q, z, z, J[:2], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"rows of A are linearly dependent"):
        rd.constrained_forward_dynamics(model, q, z, z, np.vstack([J[:2], J[:1]]), np.zeros(3))
    with pytest.raises(ValueError, match="out must be a tuple of two arrays"):
        rd.constrained_forward_dynamics(model, q, z, z, J[:2], np.zeros(2), out=np.empty(6))


def test_dask_batch_is_lazy_and_equals_the_numpy_batch():
    """A dask batch of states (the constraint rows one numpy array for all) gives two lazy
    arrays, chunked like q, equal to the numpy batch."""
    import dask.array as da

    model = rd.models.load("ur5")
    rng = np.random.default_rng(9)
    Q = rd.random_configuration(model, rng, 40)
    V, T = rng.normal(size=(40, model.nv)), rng.normal(size=(40, model.nv))
    A, dA = rng.normal(size=(2, model.nv)), rng.normal(size=2)
    ddq, lam = rd.constrained_forward_dynamics(model, da.from_array(Q, chunks=15), V, T, A, dA)
    assert isinstance(ddq, da.Array) and ddq.chunks[0] == (15, 15, 10) and lam.shape == (40, 2)
    d2, l2 = rd.constrained_forward_dynamics(model, Q, V, T, A, dA)
    assert np.array_equal(ddq.compute(), d2) and np.array_equal(lam.compute(), l2)
