"""State-major batch kernels (robodyn.kernels.batch) vs the per-state kernels and Pinocchio.

The lane kernels run L states at once; these tests cover batches that are empty, smaller
than L, not a multiple of L and a multiple of L, on UR5, Panda, Talos with a floating base
and random trees, and the dispatch in robodyn.dynamics (including the fallback to the
per-state kernel for mimic joints, external wrenches and bad input).
"""

from __future__ import annotations

import functools

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamics_models import random_tree
from oracle.oracle_support import erd_path, load_pair
from robodyn import dynamics as dyn
from robodyn.kernels import aba as kaba
from robodyn.kernels import batch as kb
from robodyn.kernels import rnea as krnea
from robodyn.kernels._pack import (
    FL_ACC,
    FL_ARMATURE,
    FL_CHECK,
    FL_FRICTION,
    FL_GRAVITY,
    FL_VEL,
    packed,
)
from robodyn.model.configuration import random_configuration
from robodyn.models import load

L = kb.L
SIZES = [0, 1, L - 1, L, L + 1, 3 * L + 2]
ALL = FL_GRAVITY | FL_VEL | FL_ACC | FL_CHECK | FL_FRICTION | FL_ARMATURE


def rel_err(x, y) -> float:
    return float(np.abs(x - y).max(initial=0.0) / max(1.0, np.abs(y).max(initial=0.0)))


@functools.cache
def pair(name: str):
    """(model, pin_model, pin_data, PinocchioMap) of an example-robot-data robot."""
    if name == "panda":
        return load_pair(erd_path("panda"), False)
    return load_pair(erd_path("talos_full"), True)


def model_of(name: str):
    return load("ur5") if name == "ur5" else pair(name)[0]


def states(model, N: int, seed: int):
    rng = np.random.default_rng(seed)
    q = random_configuration(model, rng, N) if N else np.zeros((0, model.nq))
    q = np.ascontiguousarray(np.reshape(q, (N, model.nq)))
    return q, rng.normal(size=(N, model.nv)), rng.normal(size=(N, model.nv))


def per_state_rnea(pk, Q, V, A, flags):
    out = np.empty((Q.shape[0], pk.nv))
    assert krnea.rnea_batch(pk.I, pk.F, Q, V, A, pk.fext0_batch, flags, 0.0, out) == (-1, 0)
    return out


def per_state_aba(pk, Q, V, T, flags):
    out = np.empty((Q.shape[0], pk.nv))
    assert kaba.aba_batch(pk.I, pk.F, Q, V, T, pk.fext0_batch, flags, 0.0, out) == (-1, 0)
    return out


def check_lanes_equal_per_state(model, N, seed, flags=ALL):
    """The lane kernels equal the per-state kernels (up to FMA contraction), and ABA
    inverts RNEA."""
    pk = packed(model)
    Q, V, A = states(model, N, seed)
    tau = np.full((N, pk.nv), np.nan)
    assert kb.rnea_lanes(pk.I, pk.F, Q, V, A, flags, 0.0, tau) == 0
    tau_ref = per_state_rnea(pk, Q, V, A, flags)
    assert tau.shape == (N, pk.nv)
    assert rel_err(tau, tau_ref) < 1e-12
    qdd = np.full((N, pk.nv), np.nan)
    assert kb.aba_lanes(pk.I, pk.F, Q, V, tau_ref, flags, 0.0, qdd) == 0
    qdd_ref = per_state_aba(pk, Q, V, tau_ref, flags)
    assert rel_err(qdd, qdd_ref) < 1e-10
    # ABA after RNEA gives back a (an independent identity)
    assert rel_err(qdd, A) < 1e-9


@pytest.mark.parametrize("N", SIZES)
@pytest.mark.parametrize("name", ["ur5", "panda", "talos"])
def test_lanes_equal_per_state(name, N):
    model = model_of(name)
    assert kb.supported(packed(model).I, True)
    check_lanes_equal_per_state(model, N, seed=N + 7)


@pytest.mark.parametrize("flags", [FL_GRAVITY, FL_VEL, FL_ACC, FL_VEL | FL_ACC | FL_FRICTION])
def test_rnea_lanes_flag_subsets(flags):
    # gravity / velocity product / acceleration terms alone: tau = g(q), C(q, v) v, M(q) a
    model = model_of("talos")
    pk = packed(model)
    Q, V, A = states(model, 2 * L + 1, 3)
    tau = np.empty((Q.shape[0], pk.nv))
    assert kb.rnea_lanes(pk.I, pk.F, Q, V, A, flags, 0.0, tau) == 0
    assert rel_err(tau, per_state_rnea(pk, Q, V, A, flags)) < 1e-12


@pytest.mark.parametrize("N", [L - 1, 2 * L + 3])
@pytest.mark.parametrize("name", ["panda", "talos"])
def test_batch_matches_pinocchio(name, N):
    model, pm, pd, mp = pair(name)
    Q, V, A = states(model, N, 11)
    tau = dyn.inverse_dynamics(model, Q, V, A, friction=False)
    T = np.random.default_rng(5).normal(size=(N, model.nv)) * 10.0
    qdd = dyn.forward_dynamics(model, Q, V, T, friction=False)
    for s in range(N):
        qp, vp = mp.q_to_pin(Q[s]), mp.v_to_pin(V[s])
        tau_pin = mp.v_from_pin(pin.rnea(pm, pd, qp, vp, mp.v_to_pin(A[s])))
        assert rel_err(tau[s], tau_pin) < 1e-9
        qdd_pin = mp.v_from_pin(pin.aba(pm, pd, qp, vp, mp.v_to_pin(T[s])))
        assert rel_err(qdd[s], qdd_pin) < 1e-9


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 9),
    floating=st.booleans(),
    N=st.integers(0, 3 * L + 1),
)
def test_lanes_random_trees(seed, n, floating, N):
    model, _ = random_tree(seed, n, floating=floating, damping=True)
    check_lanes_equal_per_state(model, N, seed)


def test_mimic_falls_back_to_per_state():
    model, _ = random_tree(4, 5, mimic=True)
    pk = packed(model)
    assert not kb.supported(pk.I, False)
    Q, V, A = states(model, L + 1, 2)
    tau = dyn.inverse_dynamics(model, Q, V, A)
    for s in range(Q.shape[0]):
        np.testing.assert_allclose(tau[s], dyn.inverse_dynamics(model, Q[s], V[s], A[s]))


@pytest.mark.parametrize("bad", ["nan_v", "zero_quat"])
def test_bad_state_is_named(bad):
    model = model_of("talos")
    Q, V, A = states(model, 2 * L + 1, 9)
    k = L + 2
    if bad == "nan_v":
        V[k, 3] = np.nan
        with pytest.raises(ValueError, match=rf"v\[{k}\] contains NaN"):
            dyn.inverse_dynamics(model, Q, V, A)
        with pytest.raises(ValueError, match=rf"v\[{k}\] contains NaN"):
            dyn.forward_dynamics(model, Q, V, A)
    else:
        Q[k, 3:7] = 0.0
        with pytest.raises(ValueError, match=rf"q\[{k}\]: the quaternion"):
            dyn.inverse_dynamics(model, Q, V, A)
        with pytest.raises(ValueError, match=rf"q\[{k}\]: the quaternion"):
            dyn.forward_dynamics(model, Q, V, A)


def test_wrapper_uses_lanes_equal_per_state_single_calls():
    # the public batch call (lane path) equals the public single-state call (scalar path)
    model = model_of("panda")
    Q, V, A = states(model, 2 * L + 1, 21)
    tau = dyn.inverse_dynamics(model, Q, V, A)
    qdd = dyn.forward_dynamics(model, Q, V, tau)
    for s in range(Q.shape[0]):
        t1 = dyn.inverse_dynamics(model, Q[s], V[s], A[s])
        assert rel_err(tau[s], t1) < 1e-12
        assert rel_err(qdd[s], dyn.forward_dynamics(model, Q[s], V[s], t1)) < 1e-10
