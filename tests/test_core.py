"""The compiled core (kernels/core/*.c): each algorithm once, for one state and for batches.

* a batch equals the same states computed one at a time (to 1e-13), for batch sizes around
  the lane width (1, 15, 16, 17) and 10,001, at 1 and 2 threads, with mimic joints, a
  floating base, friction, armature and external wrenches;
* the core equals the numpy reference (robodyn.reference, the book's 6x6 notation) on
  random trees, and a model that keeps its fixed joints as bodies (merge_fixed=False) gives
  the numbers of the merged one (the old ABA dropped a fixed body's articulated inertia);
* no numba anywhere at run time; concurrent Python threads get the single-thread results;
* bad input at the C boundary (dtype, layout, byte order, read-only, NaN, zero quaternion,
  singular articulated inertia, sizes) gives the clear errors, naming the state of a batch.

Pinocchio checks batches of every example-robot-data robot in tests/oracle/test_oracle_batch.py.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import robodyn as rd
from helpers import random_state, random_tree
from robodyn import reference
from robodyn.inertia import RigidInertia
from robodyn.kernels import _pack, core
from robodyn.model.builder import ModelBuilder
from robodyn.spatial import transform

TOL = 1e-13


def _close(got, want, what):
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    err = float(np.abs(np.asarray(got) - want).max(initial=0.0)) / scale
    assert err <= TOL, f"{what}: relative error {err:.2e}"


@pytest.fixture(scope="module")
def tree():
    """A floating-base random tree with mimic joints, friction and armature."""
    model, _ = random_tree(11, 7, floating=True, mimic=True, damping=True)
    return model


@pytest.fixture(scope="module")
def arm():
    return rd.models.load("panda")


def _functions(model):
    """name -> (function of one state row (q, v, a), its state argument names)."""
    f = model.frame_names[-1]
    fe = np.random.default_rng(0).normal(size=(model.nb, 6))
    return {
        "inverse_dynamics": lambda q, v, a, **k: rd.inverse_dynamics(model, q, v, a, **k),
        "inverse_dynamics f_ext": lambda q, v, a, **k: rd.inverse_dynamics(
            model, q, v, a, fe, coulomb_eps=0.05, **k
        ),
        "gravity_forces": lambda q, v, a, **k: rd.gravity_forces(model, q, **k),
        "velocity_forces": lambda q, v, a, **k: rd.velocity_forces(model, q, v, **k),
        "bias_forces": lambda q, v, a, **k: rd.bias_forces(model, q, v, **k),
        "mass_matrix": lambda q, v, a, **k: rd.mass_matrix(model, q, **k),
        "mass_matrix_inverse": lambda q, v, a, **k: rd.mass_matrix_inverse(model, q, **k),
        "forward_dynamics": lambda q, v, a, **k: rd.forward_dynamics(model, q, v, a, **k),
        "forward_dynamics crba": lambda q, v, a, **k: rd.forward_dynamics(
            model, q, v, a, fe, method="crba", **k
        ),
        "coriolis_matrix": lambda q, v, a, **k: rd.coriolis_matrix(model, q, v, **k),
        "fk": lambda q, v, a, **k: rd.fk(model, q, f, **k),
        "fk all": lambda q, v, a, **k: rd.fk(model, q, **k),
        "body_poses": lambda q, v, a, **k: rd.body_poses(model, q, **k),
        "jacobian space": lambda q, v, a, **k: rd.jacobian(model, q, f, "space", **k),
        "jacobian body": lambda q, v, a, **k: rd.jacobian(model, q, f, "body", **k),
        "jacobian world_aligned": lambda q, v, a, **k: rd.jacobian(
            model, q, f, "world_aligned", **k
        ),
        "jacobian_dot body": lambda q, v, a, **k: rd.jacobian_dot(model, q, v, f, "body", **k),
        "jacobian_dot world_aligned": lambda q, v, a, **k: rd.jacobian_dot(
            model, q, v, f, "world_aligned", **k
        ),
        "frame_velocity": lambda q, v, a, **k: rd.frame_velocity(model, q, v, f, **k),
        "com": lambda q, v, a, **k: rd.com(model, q, **k),
        "com_jacobian": lambda q, v, a, **k: rd.com_jacobian(model, q, **k),
    }


NAMES = list(_functions(rd.models.load("pendulum")))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("N", [1, 15, 16, 17])
@pytest.mark.parametrize("name", NAMES)
def test_batch_equals_single_states(tree, arm, name, N, threads):
    for model in (tree, arm):
        fn = _functions(model)[name]
        rng = np.random.default_rng(N)
        Q, V, A = random_state(model, rng, N)
        batch = fn(Q, V, A, threads=threads)
        for s in range(N):
            _close(batch[s], fn(Q[s], V[s], A[s]), f"{model.name} {name} state {s}")


@pytest.mark.parametrize("threads", [1, 2])
def test_a_large_batch_equals_single_states(tree, threads):
    # 10,001 states: 625 full chunks of 16 lanes and one state left over, split over threads
    N = 10_001
    rng = np.random.default_rng(3)
    Q, V, A = random_state(tree, rng, N)
    fns = _functions(tree)
    for name in ("inverse_dynamics", "forward_dynamics", "mass_matrix", "jacobian body"):
        batch = fns[name](Q, V, A, threads=threads)
        for s in list(range(0, N, 997)) + [N - 1]:
            _close(batch[s], fns[name](Q[s], V[s], A[s]), f"{name} state {s}")


def test_leading_dimensions_and_broadcasting(arm):
    rng = np.random.default_rng(1)
    Q, V, A = random_state(arm, rng, 6)
    tau = rd.inverse_dynamics(arm, Q, V, A)
    np.testing.assert_array_equal(
        rd.inverse_dynamics(arm, Q.reshape(2, 3, -1), V.reshape(2, 3, -1), A.reshape(2, 3, -1)),
        tau.reshape(2, 3, -1),
    )
    # a single v broadcasts over a (2, 3) batch of q
    got = rd.inverse_dynamics(arm, Q.reshape(2, 3, -1), V[0], A[0])
    for s in range(6):
        _close(got.reshape(6, -1)[s], rd.inverse_dynamics(arm, Q[s], V[0], A[0]), "broadcast")
    assert rd.mass_matrix(arm, np.zeros((0, arm.nq))).shape == (0, arm.nv, arm.nv)
    assert rd.fk(arm, Q.reshape(3, 2, -1), "ee").shape == (3, 2, 4, 4)


def test_the_core_equals_the_numpy_reference():
    # the book's 6x6 notation (robodyn.reference) against the C core, random trees
    for seed in range(8):
        model, _ = random_tree(seed, 6, floating=seed % 2 == 0, damping=True)
        rng = np.random.default_rng(seed)
        Q, V, A = random_state(model, rng, 17)
        tau = rd.inverse_dynamics(model, Q, V, A, friction=False, armature=False)
        M = rd.mass_matrix(model, Q, armature=False)
        qdd = rd.forward_dynamics(model, Q, V, tau, friction=False, armature=False)
        for s in range(17):
            _close(tau[s], reference.rnea(model, Q[s], V[s], A[s]), f"rnea {seed}")
            _close(M[s], reference.crba(model, Q[s]), f"crba {seed}")
            _close(qdd[s], reference.aba(model, Q[s], V[s], tau[s]), f"aba {seed}")


def _unmerged(seed, floating):
    """The same random tree with fixed joints merged (the default) and kept as bodies."""
    build = ModelBuilder.build
    try:
        ModelBuilder.build = lambda self, **k: build(self, merge_fixed=False)
        kept, _ = random_tree(seed, 6, floating=floating)
    finally:
        ModelBuilder.build = build
    merged, _ = random_tree(seed, 6, floating=floating)
    return merged, kept


@pytest.mark.parametrize("seed", range(6))
def test_fixed_joints_kept_as_bodies_change_nothing(seed):
    merged, kept = _unmerged(seed, floating=seed % 2 == 0)
    assert kept.nb > merged.nb, "the tree has no fixed joint to keep"
    assert np.any(kept.jnt_type[1:] == 0)
    rng = np.random.default_rng(seed)
    Q, V, A = random_state(merged, rng, 17)
    for fn in (
        lambda m: rd.inverse_dynamics(m, Q, V, A),
        lambda m: rd.mass_matrix(m, Q),
        lambda m: rd.forward_dynamics(m, Q, V, A),  # the articulated inertia of a fixed body
        lambda m: rd.forward_dynamics(m, Q[0], V[0], A[0]),
        lambda m: rd.coriolis_matrix(m, Q, V),
        lambda m: rd.fk(m, Q, "tool"),
        lambda m: rd.jacobian(m, Q, "tool", "body"),
        lambda m: rd.com(m, Q),
    ):
        want = fn(merged)
        _close(fn(kept), want, "kept vs merged")


def test_no_numba_at_run_time(tmp_path):
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        import robodyn as rd

        model = rd.models.load("panda")
        rng = np.random.default_rng(0)
        Q = rd.random_configuration(model, rng, size=10_000)
        V = rng.normal(size=(10_000, model.nv))
        for q, v in ((Q[0], V[0]), (Q, V)):
            rd.fk(model, q, "ee"); rd.jacobian(model, q, "ee"); rd.com(model, q)
            rd.inverse_dynamics(model, q, v, v); rd.mass_matrix(model, q)
            rd.forward_dynamics(model, q, v, v); rd.gravity_forces(model, q)
            rd.coriolis_matrix(model, q, v); rd.mass_matrix_inverse(model, q)
        box = rd.inertia.box(mass=1.0, size=(1, 2, 3))
        rd.rigidbody.simulate(box, np.eye(3), [0, 1, 0], 1.0, 1e-2)
        rd.ik(model, "ee", rd.fk(model, Q[0], "ee"), q0=Q[0])
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite")))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_concurrent_python_threads_get_the_single_thread_results(tree):
    rng = np.random.default_rng(9)
    Q, V, A = random_state(tree, rng, 40)
    want = rd.forward_dynamics(tree, Q, V, A, threads=1)
    want_M = rd.mass_matrix(tree, Q, threads=1)
    got: dict[int, list] = {}

    def work(k):
        got[k] = [
            (rd.forward_dynamics(tree, Q, V, A, threads=2), rd.mass_matrix(tree, Q))
            for _ in range(20)
        ]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(2):
        for qdd, M in got[k]:
            np.testing.assert_array_equal(qdd, want)
            np.testing.assert_array_equal(M, want_M)


def test_bad_input_at_the_c_boundary(tree):
    rng = np.random.default_rng(2)
    q, v, a = random_state(tree, rng)
    Q, V, A = random_state(tree, rng, 20)
    tau = rd.inverse_dynamics(tree, q, v, a)
    # converted, never misread: lists, ints, float32, strided, Fortran, unaligned,
    # big-endian, read-only
    buf = bytearray(8 * tree.nq + 1)
    unaligned = np.frombuffer(buf, dtype=np.float64, offset=1, count=tree.nq)
    unaligned[:] = q
    readonly = q.copy()
    readonly.flags.writeable = False
    for x in (list(q), q.astype(">f8"), unaligned, readonly, np.repeat(q, 2)[::2]):
        np.testing.assert_array_equal(rd.inverse_dynamics(tree, x, v, a), tau)
    np.testing.assert_array_equal(
        rd.mass_matrix(tree, np.asfortranarray(Q.T).T), rd.mass_matrix(tree, Q)
    )
    # NaN names the argument and, in a batch, the state
    bad = V.copy()
    bad[13, 2] = np.nan
    with pytest.raises(ValueError, match=r"v\[13\] contains NaN or inf"):
        rd.forward_dynamics(tree, Q, bad, A)
    with pytest.raises(ValueError, match=r"v\[2, 3\] contains NaN or inf"):
        rd.inverse_dynamics(tree, Q.reshape(4, 5, -1), bad.reshape(4, 5, -1), A[0])
    # a zero quaternion of the floating base
    Z = Q.copy()
    Z[7, 3:7] = 0.0
    with pytest.raises(ValueError, match=r"q\[7\]: the quaternion of a free joint is zero"):
        rd.jacobian(tree, Z, "tool")
    # wrong sizes name the argument and the shape passed
    want = rf"a must have shape \(\.\.\., {tree.nv}\), got \({tree.nv - 1},\)"
    with pytest.raises(ValueError, match=want):
        rd.inverse_dynamics(tree, q, v, a[:-1])
    with pytest.raises(ValueError, match=r"f_ext must have shape \(\.\.\., \d+, 6\)"):
        rd.inverse_dynamics(tree, q, v, a, np.zeros((3, 6)))
    with pytest.raises(ValueError, match="do not broadcast"):
        rd.inverse_dynamics(tree, Q, V[:3], A)
    with pytest.raises(ValueError, match="threads must be a positive int"):
        rd.mass_matrix(tree, Q, threads=0)


def _entry_calls(model):
    """(public function, args, kwargs): calls a compiled entry answers itself (states as
    C-contiguous float64, frames by name, keywords it knows) and calls it hands to the
    Python function (lists, frame indices, Fortran order, keywords it does not know)."""
    rng = np.random.default_rng(3)
    q, v, a = random_state(model, rng)
    Q, V, A = random_state(model, rng, 17)
    f = model.frame_names[-1]
    out = []
    for x, y, z in ((q, v, a), (Q, V, A), (list(q), list(v), a), (np.asfortranarray(Q.T).T, V, A)):
        out += [
            (rd.inverse_dynamics, (model, x, y, z), {}),
            (rd.inverse_dynamics, (model, x, y, z), dict(friction=False, armature=False)),
            (rd.inverse_dynamics, (model, x, y, z), dict(threads=None, check=True)),
            (rd.inverse_dynamics, (model, x, y, z), dict(threads=2, coulomb_eps=0.1)),
            (rd.gravity_forces, (model, x), {}),
            (rd.velocity_forces, (model, x, y), {}),
            (rd.bias_forces, (model, x, y), dict(check=False)),
            (rd.mass_matrix, (model, x), {}),
            (rd.mass_matrix, (model, x), dict(armature=False, threads=1)),
            (rd.forward_dynamics, (model, x, y, z), {}),
            (rd.forward_dynamics, (model, x, y, z), dict(friction=False, armature=False)),
            (rd.forward_dynamics, (model, x, y, z), dict(method="crba")),
            (rd.coriolis_matrix, (model, x, y), {}),
            (rd.fk, (model, x), {}),
            (rd.fk, (model, x, f), {}),
            (rd.fk, (model, x), dict(frame=f, threads=None)),
            (rd.fk, (model, x, model.nf - 1), {}),
            (rd.jacobian, (model, x, f), {}),
            (rd.jacobian, (model, x, f, "body"), {}),
            (rd.jacobian, (model, x), dict(frame=f, kind="local_world_aligned")),
            (rd.jacobian, (model, x, 0, "world"), dict(threads=2)),
            (rd.mass_matrix_inverse, (model, x), {}),
            (rd.kinetic_energy, (model, x, y), {}),
            (rd.kinetic_energy, (model, x, y), dict(armature=False)),
            (rd.potential_energy, (model, x), {}),
            (rd.mechanical_energy, (model, x, y), dict(threads=1)),
            (rd.momentum, (model, x, y), {}),
            (rd.centroidal_momentum, (model, x, y), {}),
            (rd.centroidal_momentum_rate, (model, x, y), {}),
            (rd.centroidal_momentum_rate, (model, x, y, None), {}),
            (rd.centroidal_momentum_rate, (model, x, y, z), {}),
            (rd.momentum_matrix, (model, x), {}),
            (rd.momentum_matrix, (model, x, "com"), {}),
            (rd.momentum_matrix, (model, x), dict(about="com")),
            (rd.com, (model, x), {}),
            (rd.com_velocity, (model, x, y), {}),
            (rd.com_acceleration, (model, x, y, z), {}),
            (rd.frame_velocity, (model, x, y, f), {}),
            (rd.frame_velocity, (model, x, y, f, "body"), {}),
            (rd.frame_acceleration, (model, x, y, z, f, "world_aligned"), {}),
            (rd.frame_acceleration, (model, x, y, z), dict(frame=f, kind="body")),
            (rd.task_space_inertia, (model, x, f), {}),
            (rd.task_space_inertia, (model, x, f, "space"), {}),
            (rd.dynamically_consistent_pinv, (model, x, f), {}),
            (rd.jacobian_dot, (model, x, y, f), {}),
            (rd.jacobian_dot, (model, x, y, f, "world_aligned"), {}),
            (rd.com_jacobian, (model, x), {}),
            (rd.manipulability, (model, x, f), {}),
            (rd.manipulability, (model, x, f, "space"), {}),
            (rd.mass_matrix_dot, (model, x, y), {}),
            (rd.christoffel, (model, x), {}),
            (rd.mass_matrix_derivative, (model, x), dict(threads=1)),
        ]
    return out


@pytest.mark.parametrize("which", ["tree", "arm"])
def test_the_compiled_entries_answer_as_their_python_functions(which, tree, arm):
    """The most used functions are the core's compiled entry holding the Python function
    (module.c): every call, the ones it answers and the ones it hands over, gives the
    Python function's result bitwise (the tree has mimic joints: forward_dynamics by M)."""
    model = tree if which == "tree" else arm
    for fn, args, kwargs in _entry_calls(model):
        assert type(fn) is core.entry, fn
        got, want = fn(*args, **kwargs), fn.__wrapped__(*args, **kwargs)
        assert type(got) is type(want), (fn.__name__, kwargs)  # a float for one energy
        got, want = np.asarray(got), np.asarray(want)
        assert got.shape == want.shape and np.array_equal(got, want), (fn.__name__, kwargs)


def test_a_compiled_entry_hands_every_other_call_to_its_function(arm):
    """The entry answers the call it can without running the Python function and hands
    it everything else; errors come from the function, so they read as before."""
    seen = []

    def spy(model, q, *, armature=True, check=True, threads=None):
        seen.append((armature, check, threads))
        return rd.mass_matrix.__wrapped__(model, q, armature=armature, check=check, threads=threads)

    flags = _pack.FL_ARMATURE | _pack.FL_CHECK
    fast = core.entry(spy, "crba", 1, flags, ("threads", "check", "armature"), None, 0)
    q = rd.random_configuration(arm, np.random.default_rng(4))
    want = rd.mass_matrix.__wrapped__(arm, q)
    rd.mass_matrix.__wrapped__(arm, q)  # packs the model
    for kwargs in ({}, dict(threads=None), dict(threads=3), dict(armature=True, check=False)):
        np.testing.assert_array_equal(fast(arm, q, **kwargs), want)
    assert seen == []
    np.testing.assert_array_equal(
        fast(arm, q, armature=False), rd.mass_matrix.__wrapped__(arm, q, armature=False)
    )
    assert seen == []
    bad = q.copy()
    bad[2] = np.nan
    for args, kwargs in (
        ((arm, list(q)), {}),
        ((arm, q), dict(threads=np.int64(2))),
        ((arm, q), dict(check=1)),
        ((arm, q[:-1]), {}),
    ):
        seen.clear()
        try:
            fast(*args, **kwargs)
        except ValueError:
            pass
        assert len(seen) == 1, kwargs
    # NaN: the core's code sends the call to the function, whose message names q
    with pytest.raises(ValueError, match="q contains NaN or inf"):
        rd.mass_matrix(arm, bad)
    assert np.isnan(rd.mass_matrix(arm, bad, check=False)).any()  # check=False: no check
    with pytest.raises(TypeError, match="unexpected keyword argument 'armatures'"):
        rd.mass_matrix(arm, q, armatures=False)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'frame'"):
        rd.jacobian(arm, q)
    with pytest.raises(rd.ModelError, match="no frame named 'nope'"):
        rd.fk(arm, q, "nope")
    with pytest.raises(ValueError, match="kind must be one of"):
        rd.jacobian(arm, q, arm.frame_names[-1], "sideways")
    with pytest.raises(ValueError, match="threads must be a positive int"):
        rd.inverse_dynamics(arm, q, q[:7], q[:7], threads=0)
    with pytest.raises(ValueError, match="entry: bad arguments for crba"):
        core.entry(spy, "crba", 2, flags, (), None, 0)
    with pytest.raises(ValueError, match="unknown keyword 'speed'"):
        core.entry(spy, "crba", 1, flags, ("speed",), None, 0)


def test_a_compiled_entry_is_its_function_to_python():
    """Name, documentation, signature, repr, pickling by name (dask ships functions to
    workers this way) and the descriptor protocol are the Python function's."""
    import inspect
    import pickle

    fns = (rd.fk, rd.jacobian, rd.inverse_dynamics, rd.mass_matrix, rd.forward_dynamics,
           rd.gravity_forces, rd.velocity_forces, rd.bias_forces, rd.coriolis_matrix)  # fmt: skip
    for fn in fns:
        py = fn.__wrapped__
        assert inspect.isfunction(py) and inspect.isroutine(fn)
        assert (fn.__name__, fn.__qualname__, fn.__module__) == (
            py.__name__, py.__qualname__, py.__module__
        )  # fmt: skip
        assert fn.__doc__ == py.__doc__ and len(fn.__doc__) > 200
        assert inspect.signature(fn) == inspect.signature(py)
        assert pickle.loads(pickle.dumps(fn)) is fn
        assert repr(fn) == f"<compiled function {py.__module__}.{py.__qualname__}>"
        assert fn.__get__(None, object) is fn
    assert rd.crba is rd.mass_matrix and rd.rnea is rd.inverse_dynamics
    assert rd.aba is rd.forward_dynamics


def test_a_singular_articulated_inertia_names_the_body_and_the_state():
    b = ModelBuilder("m").add_body(
        "heavy", "world", axis=(0, 0, 1), inertia=RigidInertia(1.0, (0.3, 0, 0), np.eye(3) * 0.01)
    )
    b.add_body("ghost", "heavy", axis=(0, 1, 0), T=transform(None, (0.6, 0, 0)))
    model = b.build()
    z = np.zeros(2)
    with pytest.raises(ValueError, match="joint 'ghost_joint' drives a massless subtree"):
        rd.forward_dynamics(model, z, z, z)
    with pytest.raises(ValueError, match=r"at state \[0\]: joint 'ghost_joint'"):
        rd.forward_dynamics(model, np.zeros((20, 2)), z, z)
    with pytest.raises(ValueError, match=r"singular at state \[0\]"):
        rd.mass_matrix_inverse(model, np.zeros((20, 2)))


def test_the_packed_model_is_checked():
    P = _pack.packed(rd.models.load("ur5")).P
    q = np.zeros(6)
    with pytest.raises(TypeError, match="P must be a packed model"):
        core.rnea(P.astype(float), q, q, q, None, 0, 0.0, 1)
    with pytest.raises(ValueError, match="sizes do not add up"):
        core.crba(P[:-1], q, 0, 1)
    with pytest.raises(TypeError, match="takes 8 arguments"):
        core.aba(P, q, q, q)
    with pytest.raises(IndexError, match="frame index 99 out of range"):
        core.frame_pose(P, q, 99, 1)
    # without FL_CHECK a NaN propagates instead of being reported
    bad = q.copy()
    bad[1] = np.nan
    assert np.isnan(core.rnea(P, bad, q, q, None, _pack.FL_GRAVITY, 0.0, 1)).all()


# ------------------------------------------------ broadcast and converted batches (issue 27)
@pytest.fixture
def small_pieces(monkeypatch):
    """The general path's pieces made small (2,048 states), so a 10,001-state batch goes to
    the core in several of them."""
    from robodyn.kernels import call

    monkeypatch.setattr(call, "PIECE_STATES", 2048)
    return call


@pytest.mark.parametrize("threads", [1, 2])
def test_a_broadcast_or_converted_batch_in_pieces_equals_the_whole_call(
    tree, arm, small_pieces, threads
):
    # the reference is the call in one piece with the arguments materialised by numpy
    # (float64, C-contiguous, the whole batch): the numbers must be the same bits
    N = 10_001
    for model in (tree, arm):
        rng = np.random.default_rng(7)
        Q, V, A = random_state(model, rng, N)
        fe = rng.normal(size=(model.nb, 6))
        v1, a1 = V[0], A[0]
        whole = np.ascontiguousarray
        ID, FD = rd.inverse_dynamics, rd.forward_dynamics
        cases = {  # what -> (function, (q, v, a or tau), keywords)
            "v, a broadcast": (ID, (Q, v1, a1), {}),
            "q float32": (ID, (Q.astype(np.float32), V, A), {}),
            "q Fortran order, f_ext broadcast": (ID, (np.asfortranarray(Q), V, a1), {"f_ext": fe}),
            "forward dynamics, tau broadcast": (FD, (Q, V.astype(np.float32), a1), {}),
            "f_tip": (ID, (Q, v1, a1), {"f_tip": np.arange(6.0)}),
        }
        for what, (fn, args, kw) in cases.items():
            got = fn(model, *args, **kw, threads=threads)
            full = (whole(np.broadcast_to(x, (N, x.shape[-1])), dtype=float) for x in args)
            ref = fn(model, *full, **kw, threads=threads)
            assert got.shape == (N, model.nv)
            np.testing.assert_array_equal(got, ref, err_msg=f"{model.name}: {what}")
        # two batch axes whose broadcast does not merge into one: rows gathered per piece
        Q3 = Q[:10_000].reshape(100, 100, -1)
        V3 = V[:100, None, :]  # one v per row of the (100, 100) grid
        got = rd.inverse_dynamics(model, Q3, V3, a1, threads=threads)
        ref = rd.inverse_dynamics(
            model, Q[:10_000], np.repeat(V[:100], 100, axis=0), np.tile(a1, (10_000, 1)),
            threads=threads,
        ).reshape(100, 100, -1)  # fmt: skip
        np.testing.assert_array_equal(got, ref)


def test_an_error_in_a_later_piece_names_the_state_in_the_batch(arm, small_pieces):
    Q, V, A = random_state(arm, np.random.default_rng(2), 10_001)
    Q[7_777, 3] = np.nan
    with pytest.raises(ValueError, match=r"^q\[7777\] contains NaN or inf"):
        rd.inverse_dynamics(arm, Q.astype(np.float32), V[0], A[0])
    with pytest.raises(ValueError, match=r"^q\[77, 77\] contains NaN or inf"):
        rd.forward_dynamics(arm, Q[:10_000].reshape(100, 100, -1), V[0], A[0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_broadcast_argument_is_not_materialised_for_the_batch(arm, monkeypatch, dtype):
    # rd.inverse_dynamics(model, Q, zeros(7), zeros(7)) made v and a as large as Q (and a
    # float64 copy of a float32 Q): 3x (4x) the result's memory beyond the inputs. In pieces
    # of 4,096 states, the peak is the result and ~1 MB of pieces (tracemalloc sees
    # numpy's buffers, those the core allocates included)
    import tracemalloc

    from robodyn.kernels import call

    monkeypatch.setattr(call, "PIECE_STATES", 4096)
    N = 100_000
    Q = random_state(arm, np.random.default_rng(0), N)[0].astype(dtype)
    z = np.zeros(arm.nv)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tau = rd.inverse_dynamics(arm, Q, z, z)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    pieces = 4096 * 8 * (arm.nq + 3 * arm.nv)  # a piece's q, v, a and result
    assert tau.nbytes == N * arm.nv * 8
    assert peak <= tau.nbytes + 2 * pieces, (peak / tau.nbytes, pieces / tau.nbytes)
    np.testing.assert_array_equal(tau[::997], rd.inverse_dynamics(arm, Q[::997], z, z))


# ------------------------------- every batch function on the road in pieces (issue 27 s.9)
def _batch_functions(model):
    """name -> (function of (q, v, a), which of q, v, a it reads): every batch function
    that reaches the core (or a Python loop over states) by the general path, beside
    inverse / forward dynamics (the tests above)."""
    from robodyn import kinematics as kin

    f = model.frame_names[-1]
    A = np.random.default_rng(5).normal(size=(2, model.nv))  # two constraint rows
    dA = np.array([0.3, -0.2])

    def constrained(q, v, tau):
        ddq, lam = rd.constrained_forward_dynamics(model, q, v, tau, A, dA)
        return np.concatenate([ddq, lam], axis=-1)

    return {
        "mass_matrix": (lambda q, v, a: rd.mass_matrix(model, q), "q"),
        "mass_matrix_inverse": (lambda q, v, a: rd.mass_matrix_inverse(model, q), "q"),
        "coriolis_matrix": (lambda q, v, a: rd.coriolis_matrix(model, q, v), "qv"),
        "christoffel": (lambda q, v, a: rd.christoffel(model, q), "q"),
        "mass_matrix_derivative": (lambda q, v, a: rd.mass_matrix_derivative(model, q), "q"),
        "fk": (lambda q, v, a: rd.fk(model, q, f), "q"),
        "fk, every frame": (lambda q, v, a: rd.fk(model, q), "q"),
        "body_poses": (lambda q, v, a: rd.body_poses(model, q), "q"),
        "jacobian": (lambda q, v, a: rd.jacobian(model, q, f, "body"), "q"),
        "jacobian_dot": (lambda q, v, a: rd.jacobian_dot(model, q, v, f), "qv"),
        "frame_velocity": (
            lambda q, v, a: rd.frame_velocity(model, q, v, f, "world_aligned"), "qv",
        ),
        "frame_acceleration": (lambda q, v, a: rd.frame_acceleration(model, q, v, a, f), "qva"),
        "com": (lambda q, v, a: rd.com(model, q), "q"),
        "com_jacobian": (lambda q, v, a: rd.com_jacobian(model, q), "q"),
        "kinematics.com_velocity": (lambda q, v, a: kin.com_velocity(model, q, v), "qv"),
        "regressor": (lambda q, v, a: rd.regressor(model, q, v, a), "qva"),
        "constrained_forward_dynamics": (constrained, "qva"),
        "kinetic_energy": (lambda q, v, a: rd.kinetic_energy(model, q, v), "qv"),
        "potential_energy": (lambda q, v, a: rd.potential_energy(model, q), "q"),
        "momentum_matrix": (lambda q, v, a: rd.momentum_matrix(model, q), "q"),
        "task_space_inertia": (lambda q, v, a: rd.task_space_inertia(model, q, f), "q"),
        "dynamically_consistent_pinv": (
            lambda q, v, a: rd.dynamically_consistent_pinv(model, q, f), "q",
        ),
    }  # fmt: skip


def _bits(x) -> np.ndarray:
    """The float64 bit patterns of x (so -0.0 differs from 0.0)."""
    return np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)


@pytest.fixture
def tiny_pieces(monkeypatch):
    """Pieces of 16 and 64 states (whole chunks of the core's 16 lanes), and a spy that
    counts the batches cut into pieces (robodyn.kernels.call._rows is made per argument of
    such a batch only)."""
    from robodyn.kernels import call

    cut = []
    rows = call._rows

    def spy(a, lead, tail):
        cut.append(a.shape)
        return rows(a, lead, tail)

    def small():
        monkeypatch.setattr(call, "PIECE_STATES", 64)
        monkeypatch.setattr(call, "PIECE_ROUND", 16)
        monkeypatch.setattr(call, "PIECE_SHARE", 4)
        monkeypatch.setattr(call, "_rows", spy)
        return cut

    return small


@pytest.mark.parametrize("name", list(_batch_functions(rd.models.load("panda"))))
def test_every_batch_function_in_pieces_equals_the_whole_call(tree, arm, tiny_pieces, name):
    # the reference is the call in one piece (300 states, under PIECE_STATES) on arguments
    # materialised by numpy (float64, C-contiguous, the whole batch); the same call on a
    # float32 q, a Fortran-order q or a broadcast argument, cut into pieces of 16 and 64
    # states (16, 64, 64, 64, 64, 28), must give the same bits
    N = 300
    for model in (arm, tree):
        fn, reads = _batch_functions(model)[name]
        Q, V, A = random_state(model, np.random.default_rng(3), N)
        one = {"v": V[6], "a": A[7]}
        if reads == "q":  # one configuration for the whole batch, a stride-0 view
            bcast = (np.broadcast_to(Q[5], Q.shape), V, A)
        else:  # one v (and a) for every q
            bcast = (Q, *(one[k] if k in reads else x for k, x in zip("va", (V, A))))
        cases = {
            "q float32": (Q.astype(np.float32), V, A),
            "q in Fortran order": (np.asfortranarray(Q), V, A),
            "a broadcast argument": bcast,
        }
        refs = {}
        for what, args in cases.items():
            whole = (np.broadcast_to(x, (N, x.shape[-1])) for x in args)
            refs[what] = fn(*(np.ascontiguousarray(x, dtype=float) for x in whole))
        cut = tiny_pieces()
        for what, args in cases.items():
            del cut[:]
            got = fn(*args)
            assert cut, f"{model.name}, {name}, {what}: not cut into pieces"
            assert got.shape == refs[what].shape, (name, what)
            assert np.array_equal(_bits(got), _bits(refs[what])), f"{model.name}, {name}, {what}"
        # two batch axes whose broadcast does not merge into one: rows gathered per piece
        if reads != "q":
            Q3, V3 = Q.reshape(20, 15, -1), V[:15]  # one v per column of the (20, 15) grid
            got = fn(Q3, V3, A[7])
            ref = fn(Q, np.tile(V3, (20, 1)), np.tile(A[7], (N, 1)))
            assert np.array_equal(_bits(got), _bits(ref.reshape(got.shape))), name


@pytest.mark.parametrize("name", list(_batch_functions(rd.models.load("panda"))))
def test_a_nan_in_a_later_piece_of_any_batch_function_names_its_state(arm, tiny_pieces, name):
    # state 250 of a (20, 15) batch is [16, 10]; it sits in the fifth piece of 64 states.
    # Each argument the function reads is checked: by the core (q, v, a of the dynamics
    # and kinematics), or in Python before the piece is computed (a of frame_acceleration,
    # v of com_velocity, tau of constrained dynamics, the Python loops' arguments)
    fn, reads = _batch_functions(arm)[name]
    arg = {"q": "q", "v": "v", "a": "tau" if name.startswith("constrained") else "a"}
    tiny_pieces()
    for k, x in enumerate(reads):
        args = [y.astype(np.float32) for y in random_state(arm, np.random.default_rng(4), 300)]
        args[k][250, 1] = np.nan
        args = [y.reshape(20, 15, -1) for y in args]
        with pytest.raises(ValueError, match=rf"^{arg[x]}\[16, 10\] contains NaN or inf"):
            fn(*args)


def _families(model):
    """output family -> (states, function of (q, v, a), the doubles a state of a piece
    holds: its converted arguments, what the function builds for it, its result). The test
    gives q as float32 (the part of the core's result: float64) and v, a broadcast (one
    state) where the function's comment says so."""
    f, nq, nv = model.frame_names[-1], model.nq, model.nv
    A, dA = np.random.default_rng(5).normal(size=(2, nv)), np.array([0.3, -0.2])
    P = rd.parameters(model).size  # the regressor's columns
    return {
        # the core's result, rows with CRBA's pattern of zeros (q converted from float32)
        "core result": (100_000, lambda q, v, a: rd.mass_matrix(model, q), nq + nv * nv),
        # a part of a larger result of the core: (J, dJ/dt, V), of which V (float64 q, v)
        "part of the core's result": (
            100_000, lambda q, v, a: rd.frame_velocity(model, q, v, f), nq + nv + 12 * nv + 12,
        ),
        # products of the core's result with an argument (v and a broadcast)
        "products with an argument": (
            100_000, lambda q, v, a: rd.frame_acceleration(model, q, v, a, f),
            nq + 2 * nv + 12 * nv + 6 + 4 * 6,
        ),
        # the core's arguments built per state: (q, e_k) for each k, C(q, e_k), Gamma
        "core arguments built": (
            8_000, lambda q, v, a: rd.christoffel(model, q), nq + nv * (nq + nv) + 3 * nv**3,
        ),
        # columns completed in Python beside the core's (friction, armature)
        "columns in Python": (
            8_000, lambda q, v, a: rd.regressor(model, q, v, a),
            nq + 2 * nv + nv * 10 * (model.nb - 1) + nv * P + 4 * nv,
        ),
        # two results of a Python loop (KKT solves) over M and h from the core
        "two results": (
            2_000, lambda q, v, a: rd.constrained_forward_dynamics(model, q, v, a, A, dA),
            nq + 2 * nv + 2 * nv + 2 + nv * nv + 2 * nv + nv + 2,
        ),
        # one number per state from a Python loop (the numpy reference path), v broadcast
        "a Python loop": (2_000, lambda q, v, a: rd.kinetic_energy(model, q, v), nq + nv + 1),
    }  # fmt: skip


@pytest.mark.parametrize("family", list(_families(rd.models.load("panda"))))
def test_a_batch_in_pieces_holds_its_result_and_two_pieces(arm, monkeypatch, family):
    # float32 q, a broadcast argument or temporaries per state: the general path held the
    # whole batch's converted arguments and temporaries (frame_velocity: the core's
    # (J, dJ/dt, V) of every state, 15x its result); in pieces of 256 states the peak
    # beyond the inputs is the result and two pieces (tracemalloc sees numpy's buffers,
    # those the core allocates included), and a Python loop one state's temporaries
    import tracemalloc

    from robodyn.kernels import call

    monkeypatch.setattr(call, "PIECE_STATES", 256)
    monkeypatch.setattr(call, "PIECE_ROUND", 256)
    N, fn, per_state = _families(arm)[family]
    Q, V, A = random_state(arm, np.random.default_rng(0), N)
    if family != "part of the core's result":
        Q = Q.astype(np.float32)
    if family in ("products with an argument", "a Python loop"):
        V, A = V[:1], A[:1]  # one v and a for every q (the core takes (1, nv) as one state's)
    fn(Q, V, A)  # what is built once (packing, the numpy tree, Python's and numpy's caches)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        fn(Q[:1], V[:1], A[:1])
        one_state = tracemalloc.get_traced_memory()[1] - before
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        out = fn(Q, V, A)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    outs = out if isinstance(out, tuple) else (out,)
    size = sum(o.nbytes for o in outs)
    assert all(len(o) == N for o in outs)
    pieces = 2 * 256 * 8 * per_state
    assert peak <= size + pieces + one_state, (family, peak / size, pieces / size)
    k = np.arange(0, N, 397)  # and the numbers are the call's on those states
    ref = fn(Q[k], V[k % len(V)], A[k % len(A)])
    for o, r in zip(outs, ref if isinstance(ref, tuple) else (ref,)):
        np.testing.assert_array_equal(o[k], r)
