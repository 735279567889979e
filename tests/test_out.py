"""``out=``: a batch function writes its result into the caller's array (issue 29).

A loop over a long trajectory calls the same function on batches of the same size; with
``out`` the core writes into the array it is given and allocates nothing, so the loop
reuses memory instead of paying for fresh pages on every call. Each call must still be
the call without ``out``, bit for bit: through the compiled entry (float64 C-contiguous
states), through the general path (a list, a broadcast, float32, which computes and then
copies), into an array the algorithm only partly fills (CRBA's and the Jacobian's
sparsity patterns: the rest must be zero, not what the array held), and when ``out`` is
one of the inputs. An ``out`` that cannot hold the result is refused, naming ``out``.
"""

from __future__ import annotations

import math
import re
import tracemalloc

import numpy as np
import pytest

import robodyn as rd
from helpers import JOINT_KINDS, random_state, random_tree

N = 40


@pytest.fixture(scope="module")
def tree():
    return random_tree(5, 7, mimic=True, damping=True)[0]


def _calls(model):
    """(function, args, kwargs) of every public function of a state that takes ``out``."""
    rng = np.random.default_rng(11)
    q, v, a = random_state(model, rng, N)
    f = model.frame_names[-1]
    return [
        (rd.inverse_dynamics, (model, q, v, a), {}),
        (rd.inverse_dynamics, (model, q, v, a), dict(friction=False, threads=2)),
        (rd.forward_dynamics, (model, q, v, a), {}),
        (rd.gravity_forces, (model, q), {}),
        (rd.velocity_forces, (model, q, v), {}),
        (rd.bias_forces, (model, q, v), {}),
        (rd.mass_matrix, (model, q), {}),
        (rd.mass_matrix_inverse, (model, q), {}),
        (rd.coriolis_matrix, (model, q, v), {}),
        (rd.mass_matrix_dot, (model, q, v), {}),
        (rd.fk, (model, q, f), {}),
        (rd.fk, (model, q), {}),
        (rd.body_poses, (model, q), {}),
        (rd.jacobian, (model, q, f), {}),
        (rd.jacobian, (model, q, f, "body"), {}),
        (rd.jacobian_dot, (model, q, v, f), {}),
        (rd.frame_velocity, (model, q, v, f, "world_aligned"), {}),
        (rd.frame_acceleration, (model, q, v, a, f), {}),
        (rd.com, (model, q), {}),
        (rd.com_jacobian, (model, q), {}),
        (rd.com_velocity, (model, q, v), {}),
        (rd.com_acceleration, (model, q, v, a), {}),
        (rd.kinetic_energy, (model, q, v), {}),
        (rd.potential_energy, (model, q), {}),
        (rd.mechanical_energy, (model, q, v), {}),
        (rd.momentum, (model, q, v), {}),
        (rd.centroidal_momentum, (model, q, v), {}),
        (rd.centroidal_momentum_rate, (model, q, v, a), {}),
        (rd.momentum_matrix, (model, q), dict(about="com")),
        (rd.integrate, (model, q, v), dict(dt=0.3)),
        (rd.difference, (model, q, q[::-1].copy()), {}),
        *_later_calls(model, q, v, a),
    ]


def _later_calls(model, q, v, a):
    """The functions of :func:`_calls` given ``out`` after the first ones (issue 29's
    last): their core writes into ``out`` where its result is the answer."""
    return [
        (rd.christoffel, (model, q), {}),
        (rd.mass_matrix_derivative, (model, q), dict(threads=2)),
        (rd.regressor, (model, q, v, a), {}),  # the joint columns: computed, then copied
        (rd.regressor, (model, q, v, a), dict(friction=False, armature=False)),  # the core's
        (rd.energy_regressor, (model, q, v), {}),
        (rd.energy_regressor, (model, q, v), dict(friction=False, armature=False)),
    ]


def _tuple_calls(model):
    """(function, args) of every public function of a state whose result is a named tuple
    of arrays; its ``out`` is a tuple of arrays in the order of the fields."""
    q = random_state(model, np.random.default_rng(12), N)[0]
    f = model.frame_names[-1]
    return [
        (rd.velocity_ellipsoid, (model, q, f)),
        (rd.velocity_ellipsoid, (model, q, f, "space", "full")),
        (rd.force_ellipsoid, (model, q, f)),
        (rd.force_ellipsoid, (model, q, f, "world_aligned", (4, 3))),
        (rd.task_space_ellipsoid, (model, q, f)),
        (rd.task_space_ellipsoid, (model, q, f, "body", "angular")),
    ]


def _general(args):
    """The same call through the general path: q as float32 (converted, then copied)."""
    return (args[0], args[1].astype(np.float32).astype(np.float64).tolist(), *args[2:])


@pytest.mark.parametrize("which", ["panda", "tree"])
def test_out_is_written_and_equals_the_call_without_it(which, tree):
    model = rd.models.load("panda") if which == "panda" else tree
    for fn, args, kwargs in _calls(model):
        want = fn(*args, **kwargs)
        out = np.full(want.shape, 7.0)  # not zero: entries the core leaves must be zeroed
        got = fn(*args, **kwargs, out=out)
        assert got is out, fn.__name__
        assert np.array_equal(out, want), fn.__name__
        # the general path (a list of states) computes, then copies into out
        lst = _general(args)
        want = fn(*lst, **kwargs)
        out[...] = 7.0
        assert fn(*lst, **kwargs, out=out) is out
        assert np.array_equal(out, want), fn.__name__
        # one state into a one-state array; an energy returns the array, not a float
        one = (args[0], *(x[0] if isinstance(x, np.ndarray) else x for x in args[1:]))
        w1 = np.asarray(fn(*one, **kwargs))
        o1 = np.full(w1.shape, 7.0)
        assert fn(*one, **kwargs, out=o1) is o1
        assert np.array_equal(o1, w1), fn.__name__


@pytest.mark.parametrize("which", ["panda", "floating tree"])
def test_out_of_a_named_tuple_takes_an_array_per_field(which):
    """The ellipsoids return named tuples: ``out`` is a tuple of arrays in the order of the
    fields, each written and each equal, bitwise, to the field of the call without out;
    the named tuple returned holds the caller's arrays. (A floating base: every frame has
    six dofs under it, so no row choice makes the task-space inertia singular.)"""
    if which == "panda":
        model = rd.models.load("panda")
    else:
        model = random_tree(6, 6, floating=True, mimic=True, damping=True, kinds=JOINT_KINDS)[0]
    for fn, args in _tuple_calls(model):
        for q in (args[1], _general(args)[1], args[1][0]):  # a batch, a list, one state
            want = fn(model, q, *args[2:])
            out = tuple(np.full(np.shape(w), 7.0) for w in want)
            got = fn(model, q, *args[2:], out=out)
            assert type(got) is type(want), fn.__name__
            for g, o, w in zip(got, out, want):
                assert g is o and np.array_equal(o, w), fn.__name__
            listed = [np.full(np.shape(w), 7.0) for w in want]  # a list is taken too
            assert all(g is o for g, o in zip(fn(model, q, *args[2:], out=listed), listed))


def _bad_outs(shape):
    """Arrays that cannot hold a result of ``shape``: a row short, float32, a column too
    many, a list, read-only."""
    ro = np.empty(shape)
    ro.flags.writeable = False
    return [
        np.empty((shape[0] - 1, *shape[1:])),
        np.empty(shape, dtype=np.float32),
        np.empty((*shape[:-1], shape[-1] + 1)),
        np.zeros(shape).tolist(),
        ro,
    ]


def _sharing(x: np.ndarray, shape) -> tuple[np.ndarray, np.ndarray]:
    """(x', out): x' holds x's numbers from the middle of out (an array of ``shape``) on:
    an out that overlaps an input."""
    n = math.prod(shape)
    buf = np.zeros(n // 2 + max(x.size, n))
    out = buf[:n].reshape(shape)
    xs = buf[n // 2 : n // 2 + x.size].reshape(x.shape)
    xs[...] = x
    assert np.shares_memory(xs, out)
    return xs, out


def test_out_of_the_new_functions_that_cannot_hold_the_result_is_refused():
    """christoffel, mass_matrix_derivative, the regressors and the ellipsoids refuse an out
    of the wrong shape or dtype, a list or a read-only array with a ValueError naming
    ``out`` (for a named tuple, ``out[k]`` and its field) and the shape expected; a strided
    view is written through the general path, the rest of its array untouched; an out
    that overlaps an input gives the answer of the call without out."""
    model = rd.models.load("panda")
    q, v, a = random_state(model, np.random.default_rng(13), N)
    for fn, args, kwargs in _later_calls(model, q, v, a):
        want = fn(*args, **kwargs)
        shape = want.shape
        for out in _bad_outs(shape):
            msg = "^out must be a writeable float64 array of shape " + re.escape(str(shape))
            with pytest.raises(ValueError, match=msg):
                fn(*args, **kwargs, out=out)
        big = np.zeros((*shape[:-1], 2 * shape[-1]))
        view = big[..., ::2]
        assert fn(*args, **kwargs, out=view) is view, fn.__name__
        assert np.array_equal(view, want) and np.all(big[..., 1::2] == 0.0), fn.__name__
        q, out = _sharing(args[1], shape)
        assert fn(args[0], q, *args[2:], **kwargs, out=out) is out, fn.__name__
        assert np.array_equal(out, want), fn.__name__
    for fn, args in _tuple_calls(model):
        want = fn(*args)
        with pytest.raises(ValueError, match=r"^out must be a tuple of 2 writeable float64"):
            fn(*args, out=np.empty(want[0].shape))
        with pytest.raises(ValueError, match=r"^out must be a tuple of 2 .*, got 3 items"):
            fn(*args, out=(*want, want[0]))
        for k, field in enumerate(want._fields):
            shape = want[k].shape
            for bad in _bad_outs(shape):
                out = [np.empty(w.shape) for w in want]
                out[k] = bad
                msg = rf"^out\[{k}\] \({field}\) must be a writeable float64 array of shape"
                with pytest.raises(ValueError, match=msg + re.escape(f" {shape}")):
                    fn(*args, out=tuple(out))
        q, axes = _sharing(args[1], want[1].shape)  # the axes overlap q
        got = fn(args[0], q, *args[2:], out=(np.empty(want[0].shape), axes))
        assert got[1] is axes and np.array_equal(axes, want[1]), fn.__name__
        assert np.array_equal(got[0], want[0]), fn.__name__


def test_out_allocates_nothing_on_the_fast_path():
    """The reason for out=: a batch written in place allocates no result (tracemalloc
    counts numpy's allocations; without out the result alone is N nv doubles)."""
    model = rd.models.load("panda")
    q, v, a = random_state(model, np.random.default_rng(2), 2000)
    out = np.empty((2000, model.nv))
    rd.inverse_dynamics(model, q, v, a, out=out)  # packs the model, warms caches
    tracemalloc.start()
    try:
        rd.inverse_dynamics(model, q, v, a, out=out)
        with_out = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        rd.inverse_dynamics(model, q, v, a)
        without = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert without >= 2000 * model.nv * 8  # the result: 112 kB
    assert with_out < 4096, with_out  # measured 296 B (Python objects, no array)


def test_out_that_is_an_input_gives_the_right_answer():
    model = rd.models.load("panda")
    q, v, a = random_state(model, np.random.default_rng(3), N)
    want = rd.inverse_dynamics(model, q, v, a)
    got = rd.inverse_dynamics(model, q, v, a, out=v)  # the core must not read what it wrote
    assert got is v and np.array_equal(v, want)


def test_out_that_cannot_hold_the_result_is_refused():
    model = rd.models.load("panda")
    q, v, a = random_state(model, np.random.default_rng(4), N)
    ro = np.empty((N, model.nv))
    ro.flags.writeable = False
    bad = [
        np.empty((N - 1, model.nv)),
        np.empty((N, model.nv), dtype=np.float32),
        np.empty((N, model.nv + 1)),
        [0.0] * model.nv,
        ro,
    ]
    for out in bad:
        with pytest.raises(ValueError, match=r"^out must be a writeable float64 array of shape"):
            rd.inverse_dynamics(model, q, v, a, out=out)
    # a strided view is taken through the general path, and written
    big = np.zeros((N, 2 * model.nv))
    view = big[:, ::2]
    assert rd.inverse_dynamics(model, q, v, a, out=view) is view
    assert np.array_equal(view, rd.inverse_dynamics(model, q, v, a))
    assert np.all(big[:, 1::2] == 0.0)
