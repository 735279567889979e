"""The derivatives of inverse and forward dynamics (issue 30): rd.inverse_dynamics_derivatives
and rd.forward_dynamics_derivatives against central finite differences of
rd.inverse_dynamics and rd.forward_dynamics on hypothesis-built trees of every joint type
(q moved through rd.integrate, the tangent the docstring states), with mimic joints, joint
friction (smoothed and not, away from v = 0), armature and external wrenches; the Coulomb
term at v = 0; physical identities (gravity's stiffness is symmetric on a tree of 1-dof
joints; the forward derivatives are the inverse ones solved with M); batches,
broadcasting, threads, out=, dask and the errors. Pinocchio is the oracle in
tests/oracle/test_oracle_derivatives.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robodyn as rd
from helpers import MR_KINDS, assert_close, random_model, random_state, states, trees, wrenches

H = 6e-6  # central differences: ~ eps^(1/3)
FD_TOL = 1e-6  # truncation ~H^2 |tau'''| and rounding ~1e-16 |tau| / H: ~1e-9 here
NAMES = ("dtau_dq", "dtau_dv", "dtau_da")


def differences(model, q, v, a, f_ext=None, **kw):
    """(d tau/dq, d tau/dv, d tau/da) by central differences of rd.inverse_dynamics, q
    moved along each unit tangent by rd.integrate (column k: the k-th direction)."""
    E = H * np.eye(model.nv)

    def tau(q_, v_, a_):
        return rd.inverse_dynamics(model, q_, v_, a_, f_ext, **kw)

    dq = [tau(rd.integrate(model, q, e), v, a) - tau(rd.integrate(model, q, -e), v, a) for e in E]
    dv = [tau(q, v + e, a) - tau(q, v - e, a) for e in E]
    da = [tau(q, v, a + e) - tau(q, v, a - e) for e in E]
    return tuple(np.array(d).T / (2 * H) for d in (dq, dv, da))


def _away_from_zero(v: np.ndarray) -> np.ndarray:
    """v with its entries near 0 moved to 0.5: sgn(v) is not differentiable at 0."""
    v = v.copy()
    v[np.abs(v) < 1e-2] = 0.5
    return v


def _assert_all(got, want, tol, what=""):
    for name, g, w in zip(NAMES, got, want):
        assert_close(g, w, tol, f"{what} {name}")


@settings(max_examples=40, deadline=None)
@given(
    trees(max_bodies=6, floating=None, mimic=None, damping=None, require=MR_KINDS),
    st.data(),
    st.sampled_from([0.0, 0.3]),
)
def test_equal_to_finite_differences_on_every_joint_type(tree, data, coulomb_eps):
    """Every joint type (spherical, planar, helical, cylindrical, universal required, free
    anywhere, fixed links merged), maybe a floating base, maybe mimic joints, maybe friction
    and armature, with external wrenches, sgn or tanh Coulomb friction."""
    model = tree.model
    q, v, a = data.draw(states(model))
    v = _away_from_zero(v)
    f_ext = data.draw(wrenches(model))
    got = rd.inverse_dynamics_derivatives(model, q, v, a, f_ext, coulomb_eps=coulomb_eps)
    want = differences(model, q, v, a, f_ext, coulomb_eps=coulomb_eps)
    _assert_all(got, want, FD_TOL, repr(tree))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_mimic_friction_armature_external_wrenches(seed, floating):
    """Seeded trees with two mimic joints (their entries in their leaders' rows and
    columns), damping, Coulomb friction and armature on every joint, and wrenches on every
    body; each option switched off in turn is the differences without it."""
    model = random_model(seed, 6, floating=floating, mimic=True)
    assert np.any(model.jnt_mimic >= 0) and np.all(model.dof_friction[-5:] > 0)
    rng = np.random.default_rng(seed)
    q, v, a = random_state(model, rng)
    v = _away_from_zero(v)
    f_ext = rng.normal(size=(model.nb, 6))
    for kw in (dict(), dict(friction=False), dict(armature=False), dict(coulomb_eps=0.05)):
        got = rd.inverse_dynamics_derivatives(model, q, v, a, f_ext, **kw)
        _assert_all(got, differences(model, q, v, a, f_ext, **kw), FD_TOL, str(kw))


def test_friction_terms_on_the_diagonal_of_dtau_dv():
    """b on the diagonal; f_c sgn(v) adds 0 (at v = 0 too: the jump is not differentiated);
    f_c tanh(v / eps) adds f_c / eps sech^2(v / eps); nothing else changes."""
    model = random_model(3, 5)
    rng = np.random.default_rng(3)
    q, v, a = random_state(model, rng)
    v[1] = 0.0  # sgn's jump: its derivative is taken as 0
    b, fc, eps = model.dof_damping, model.dof_friction, 0.2
    base = rd.inverse_dynamics_derivatives(model, q, v, a, friction=False)
    sgn = rd.inverse_dynamics_derivatives(model, q, v, a)
    tanh = rd.inverse_dynamics_derivatives(model, q, v, a, coulomb_eps=eps)
    np.testing.assert_allclose(sgn[1] - base[1], np.diag(b), rtol=0, atol=1e-13)
    sech2 = 1.0 / np.cosh(v / eps) ** 2
    np.testing.assert_allclose(tanh[1] - base[1], np.diag(b + fc / eps * sech2), rtol=0, atol=1e-12)
    for k in (0, 2):
        assert np.array_equal(sgn[k], base[k]) and np.array_equal(tanh[k], base[k])


def test_dtau_da_is_the_mass_matrix():
    model = random_model(4, 6, floating=True, mimic=True)
    q, v, a = random_state(model, np.random.default_rng(4))
    for armature in (True, False):
        da = rd.inverse_dynamics_derivatives(model, q, v, a, armature=armature)[2]
        assert_close(da, rd.mass_matrix(model, q, armature=armature), 1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_gravity_stiffness_is_symmetric_on_one_dof_joints(seed):
    """At rest, d tau/dq = d^2 U / dq^2 (tau = g(q) = dU/dq), a Hessian: symmetric on a
    tree of revolute and prismatic joints (coordinates, not a Lie group's tangent)."""
    model = random_model(seed, 7)
    q = rd.random_configuration(model, np.random.default_rng(seed))
    z = np.zeros(model.nv)
    dq = rd.inverse_dynamics_derivatives(model, q, z, z)[0]
    assert np.abs(dq).max() > 1.0
    np.testing.assert_allclose(dq, dq.T, rtol=0, atol=1e-12 * np.abs(dq).max())


# ------------------------------------------------------------------ the batch road
@pytest.fixture(scope="module")
def tree():
    return random_model(7, 6, floating=True, mimic=True)


def test_batch_broadcasting_and_threads_equal_single_calls(tree):
    rng = np.random.default_rng(8)
    Q, V, A = random_state(tree, rng, 2 * 3 * 11)
    Q = Q.reshape(2, 3, 11, tree.nq)
    V, A = V.reshape(2, 3, 11, tree.nv), A[0]  # one a for the whole batch
    F = rng.normal(size=(3, 1, tree.nb, 6))
    got = rd.inverse_dynamics_derivatives(tree, Q, V, A, F, threads=2)
    assert all(x.shape == (2, 3, 11, tree.nv, tree.nv) for x in got)
    for i, j, k in np.ndindex(2, 3, 11):
        one = rd.inverse_dynamics_derivatives(tree, Q[i, j, k], V[i, j, k], A, F[j, 0])
        for g, o in zip(got, one):
            assert np.array_equal(g[i, j, k], o)
    flat = rd.inverse_dynamics_derivatives(tree, Q[0, 0], V[0, 0], np.tile(A, (11, 1)), threads=1)
    lists = rd.inverse_dynamics_derivatives(tree, Q[0, 0].tolist(), V[0, 0].tolist(), A.tolist())
    for x, y in zip(flat, lists):
        assert np.array_equal(x, y)


def test_out_is_written_and_reused_without_copies(tree):
    rng = np.random.default_rng(9)
    Q, V, A = random_state(tree, rng, 20)
    want = rd.inverse_dynamics_derivatives(tree, Q, V, A)
    out = tuple(np.empty((20, tree.nv, tree.nv)) for _ in range(3))
    got = rd.inverse_dynamics_derivatives(tree, Q, V, A, out=out)
    assert all(g is o for g, o in zip(got, out))
    assert all(np.array_equal(g, w) for g, w in zip(got, want))
    # an earlier result (three views of one array) is written in place by the core
    prev = rd.inverse_dynamics_derivatives(tree, Q[::-1].copy(), V, A)
    base = prev[0].base
    again = rd.inverse_dynamics_derivatives(tree, Q, V, A, out=prev)
    assert all(g is p for g, p in zip(again, prev)) and prev[0].base is base
    assert all(np.array_equal(g, w) for g, w in zip(again, want))
    # in another order, the views are not the core's layout: computed, then copied
    swapped = (prev[1], prev[0], prev[2])
    got = rd.inverse_dynamics_derivatives(tree, Q, V, A, out=swapped)
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


@pytest.mark.parametrize(
    "out",
    [np.empty((3, 6, 6)), (np.empty((6, 6)),) * 2, (np.empty((5, 5)),) * 3,
     (np.empty((6, 6), dtype=np.float32),) * 3],
    ids=["array", "two", "shape", "dtype"],
)  # fmt: skip
def test_out_that_cannot_hold_the_result_is_refused(out):
    model = rd.models.load("ur5")
    z = np.zeros(6)
    with pytest.raises(ValueError, match="out must be a tuple of three writeable float64"):
        rd.inverse_dynamics_derivatives(model, z, z, z, out=out)


def test_errors_name_the_argument():
    model = rd.models.load("ur5")
    z = np.zeros(6)
    with pytest.raises(ValueError, match=r"q must have shape \(\.\.\., 6\), got \(5,\)"):
        rd.inverse_dynamics_derivatives(model, np.zeros(5), z, z)
    with pytest.raises(ValueError, match=r"a must have shape \(\.\.\., 6\), got \(6, 2\)"):
        rd.inverse_dynamics_derivatives(model, z, z, np.zeros((6, 2)))
    with pytest.raises(ValueError, match=r"f_ext must have shape \(\.\.\., 7, 6\)"):
        rd.inverse_dynamics_derivatives(model, z, z, z, np.zeros((6, 6)))
    V = np.zeros((4, 6))
    V[2, 3] = np.nan
    with pytest.raises(ValueError, match=r"v\[2\] contains NaN or inf"):
        rd.inverse_dynamics_derivatives(model, np.zeros((4, 6)), V, z)
    with pytest.raises(ValueError, match="threads"):
        rd.inverse_dynamics_derivatives(model, z, z, z, threads=0)
    with pytest.raises(ValueError, match="overflowed"):
        rd.inverse_dynamics_derivatives(model, z, np.full(6, 1e200), z)


def test_dask_arrays_give_lazy_results(tree):
    import dask.array as da

    rng = np.random.default_rng(10)
    Q, V, A = random_state(tree, rng, 9)
    got = rd.inverse_dynamics_derivatives(tree, da.from_array(Q, chunks=(4, -1)), V, A)
    want = rd.inverse_dynamics_derivatives(tree, Q, V, A)
    for g, w in zip(got, want):
        assert isinstance(g, da.Array) and g.chunks[0] == (4, 4, 1)
        assert np.array_equal(g.compute(), w)


def test_alias():
    assert rd.rnea_derivatives is rd.inverse_dynamics_derivatives


# ---------------------------------------------------------------- forward dynamics
def fd_differences(model, q, v, tau, f_ext=None, **kw):
    """(da/dq, da/dv, da/dtau) by central differences of rd.forward_dynamics, q moved by
    rd.integrate."""
    E = H * np.eye(model.nv)

    def acc(q_, v_, t_):
        return rd.forward_dynamics(model, q_, v_, t_, f_ext, **kw)

    dq = [acc(rd.integrate(model, q, e), v, tau) - acc(rd.integrate(model, q, -e), v, tau)
          for e in E]  # fmt: skip
    dv = [acc(q, v + e, tau) - acc(q, v - e, tau) for e in E]
    dt = [acc(q, v, tau + e) - acc(q, v, tau - e) for e in E]
    return tuple(np.array(d).T / (2 * H) for d in (dq, dv, dt))


@settings(max_examples=30, deadline=None)
@given(
    trees(max_bodies=6, floating=None, mimic=None, damping=None, require=MR_KINDS),
    st.data(),
    st.sampled_from([0.0, 0.3]),
    st.sampled_from(["aba", "cholesky"]),
)
def test_forward_derivatives_equal_finite_differences(tree, data, coulomb_eps, method):
    """da/dq, da/dv, da/dtau of rd.forward_dynamics on every joint type, mimic joints (the
    Cholesky road), friction, armature and external wrenches, M^-1 by either road."""
    model = tree.model
    q, v, tau = data.draw(states(model))
    v = _away_from_zero(v)
    f_ext = data.draw(wrenches(model))
    got = rd.forward_dynamics_derivatives(
        model, q, v, tau, f_ext, coulomb_eps=coulomb_eps, method=method
    )
    want = fd_differences(model, q, v, tau, f_ext, coulomb_eps=coulomb_eps)
    for name, g, w in zip(("da_dq", "da_dv", "da_dtau"), got, want):
        assert_close(g, w, FD_TOL, f"{tree!r} {method} {name}")


def test_forward_derivatives_are_the_inverse_dynamics_ones_solved(tree):
    """The implicit function theorem, term by term: at a = forward_dynamics(q, v, tau),
    M da/dq = -dtau/dq, M da/dv = -dtau/dv and da/dtau M = 1."""
    rng = np.random.default_rng(11)
    q, v, tau = random_state(tree, rng)
    a = rd.forward_dynamics(tree, q, v, tau)
    dq, dv, dtau = rd.forward_dynamics_derivatives(tree, q, v, tau)
    tq, tv, M = rd.inverse_dynamics_derivatives(tree, q, v, a)
    assert_close(M @ dq, -tq, 1e-12, "M da/dq")
    assert_close(M @ dv, -tv, 1e-12, "M da/dv")
    assert_close(dtau @ M, np.eye(tree.nv), 1e-12, "da/dtau M")


def test_forward_derivatives_batch_out_dask_and_errors(tree):
    import dask.array as da

    rng = np.random.default_rng(12)
    Q, V, T = random_state(tree, rng, 21)
    got = rd.forward_dynamics_derivatives(tree, Q, V, T, threads=2)
    for n in range(21):
        for g, o in zip(got, rd.forward_dynamics_derivatives(tree, Q[n], V[n], T[n])):
            assert np.array_equal(g[n], o)
    again = rd.forward_dynamics_derivatives(tree, Q, V, T, out=got)  # in place
    assert all(x is y for x, y in zip(again, got))
    lazy = rd.forward_dynamics_derivatives(tree, da.from_array(Q, chunks=(8, -1)), V, T)
    assert all(np.array_equal(x.compute(), y) for x, y in zip(lazy, got))
    T[4, 1] = np.nan
    with pytest.raises(ValueError, match=r"^tau\[4\] contains NaN or inf$"):
        rd.forward_dynamics_derivatives(tree, Q, V, T)
    assert rd.aba_derivatives is rd.forward_dynamics_derivatives
