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

import tracemalloc

import numpy as np
import pytest

import robodyn as rd
from helpers import random_state, random_tree

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
