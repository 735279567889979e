"""Shapes, numpy style: every state function takes any number of leading batch dimensions.

For q of shape (2, 3, nq) (and v, a of shape (2, 3, nv), or a single row that broadcasts),
each public function returns its one-state result for each of the 6 states, stacked with
the leading dimensions (2, 3). The single-state values themselves are checked against
Pinocchio and the book elsewhere; here the oracle is the one-state call. Errors name the
argument and the shape the user passed ("None", "a scalar", the tuple). ``dir(robodyn)``
lists the public API only.
"""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from helpers import random_tree

LEAD = (2, 3)


@pytest.fixture(scope="module")
def model():
    m, _ = random_tree(21, 5, floating=True, damping=True)
    return m


def _states(model, seed=0):
    rng = np.random.default_rng(seed)
    Q = rd.random_configuration(model, rng, size=LEAD)
    V = rng.normal(size=(*LEAD, model.nv))
    A = rng.normal(size=(*LEAD, model.nv))
    return Q, V, A


def _functions(model):
    f = "tool"
    Ac = np.random.default_rng(5).normal(size=(2, model.nv))
    return {
        "inverse_dynamics": lambda q, v, a: rd.inverse_dynamics(model, q, v, a),
        "forward_dynamics": lambda q, v, a: rd.forward_dynamics(model, q, v, a),
        "mass_matrix": lambda q, v, a: rd.mass_matrix(model, q),
        "mass_matrix_inverse": lambda q, v, a: rd.mass_matrix_inverse(model, q),
        "gravity_forces": lambda q, v, a: rd.gravity_forces(model, q),
        "velocity_forces": lambda q, v, a: rd.velocity_forces(model, q, v),
        "bias_forces": lambda q, v, a: rd.bias_forces(model, q, v),
        "coriolis_matrix": lambda q, v, a: rd.coriolis_matrix(model, q, v),
        "coriolis_matrix_reference": lambda q, v, a: rd.coriolis_matrix_reference(model, q, v),
        "mass_matrix_dot": lambda q, v, a: rd.mass_matrix_dot(model, q, v),
        "christoffel": lambda q, v, a: rd.christoffel(model, q),
        "mass_matrix_derivative": lambda q, v, a: rd.mass_matrix_derivative(model, q),
        "fk": lambda q, v, a: rd.fk(model, q, f),
        "fk all frames": lambda q, v, a: rd.fk(model, q),
        "body_poses": lambda q, v, a: rd.body_poses(model, q),
        "jacobian": lambda q, v, a: rd.jacobian(model, q, f, "body"),
        "jacobian_dot": lambda q, v, a: rd.jacobian_dot(model, q, v, f, "world_aligned"),
        "frame_velocity": lambda q, v, a: rd.frame_velocity(model, q, v, f),
        "frame_acceleration": lambda q, v, a: rd.frame_acceleration(model, q, v, a, f),
        "com": lambda q, v, a: rd.com(model, q),
        "com_jacobian": lambda q, v, a: rd.com_jacobian(model, q),
        "com_velocity": lambda q, v, a: rd.com_velocity(model, q, v),
        "kinetic_energy": lambda q, v, a: rd.kinetic_energy(model, q, v),
        "potential_energy": lambda q, v, a: rd.potential_energy(model, q),
        "mechanical_energy": lambda q, v, a: rd.mechanical_energy(model, q, v),
        "momentum": lambda q, v, a: rd.momentum(model, q, v),
        "centroidal_momentum": lambda q, v, a: rd.centroidal_momentum(model, q, v),
        "momentum_matrix": lambda q, v, a: rd.momentum_matrix(model, q),
        "task_space_inertia": lambda q, v, a: rd.task_space_inertia(model, q, f),
        "dynamically_consistent_pinv": lambda q, v, a: rd.dynamically_consistent_pinv(model, q, f),
        "integrate": lambda q, v, a: rd.integrate(model, q, v, 0.1),
        "difference": lambda q, v, a: rd.difference(model, q, rd.integrate(model, q, v, 0.1)),
        "normalize": lambda q, v, a: rd.normalize(model, q),
        "constrained_forward_dynamics": lambda q, v, a: np.concatenate(
            rd.constrained_forward_dynamics(model, q, v, a, Ac, np.zeros(2)), axis=-1
        ),
    }


NAMES = list(_functions(random_tree(21, 5, floating=True)[0]))


@pytest.mark.parametrize("name", NAMES)
def test_leading_dimensions_give_the_one_state_results(model, name):
    fn = _functions(model)[name]
    Q, V, A = _states(model)
    out = np.asarray(fn(Q, V, A))
    one = np.asarray(fn(Q[0, 0], V[0, 0], A[0, 0]))
    assert out.shape == (*LEAD, *one.shape), (name, out.shape, one.shape)
    for i in range(LEAD[0]):
        for j in range(LEAD[1]):
            want = np.asarray(fn(Q[i, j], V[i, j], A[i, j]))
            scale = max(1.0, float(np.abs(want).max(initial=0.0)))
            assert np.abs(out[i, j] - want).max(initial=0.0) <= 1e-12 * scale, (name, i, j)


@pytest.mark.parametrize(
    "name", ["inverse_dynamics", "forward_dynamics", "jacobian_dot", "kinetic_energy"]
)
def test_a_single_row_broadcasts(model, name):
    fn = _functions(model)[name]
    Q, V, A = _states(model, 1)
    out = np.asarray(fn(Q, V[0, 0], A[1, 2]))
    for i in range(LEAD[0]):
        for j in range(LEAD[1]):
            want = np.asarray(fn(Q[i, j], V[0, 0], A[1, 2]))
            np.testing.assert_allclose(out[i, j], want, rtol=1e-12, atol=1e-12)


def test_empty_batches(model):
    Q = np.zeros((0, model.nq))
    V = np.zeros((0, model.nv))
    assert rd.inverse_dynamics(model, Q, V, V).shape == (0, model.nv)
    assert rd.mass_matrix(model, np.zeros((2, 0, model.nq))).shape == (2, 0, model.nv, model.nv)
    assert rd.fk(model, Q, "tool").shape == (0, 4, 4)
    assert rd.random_configuration(model, 0, size=(0, 3)).shape == (0, 3, model.nq)


def test_messages_name_the_argument_and_what_was_passed(model):
    q = rd.neutral(model)
    v = np.zeros(model.nv)
    nq, nv = model.nq, model.nv
    cases = [
        (
            lambda: rd.inverse_dynamics(model, q, v, 0.5),
            rf"a must have shape \(\.\.\., {nv}\), got a scalar",
        ),
        (
            lambda: rd.inverse_dynamics(model, q, None, v),
            rf"v must have shape \(\.\.\., {nv}\), got None",
        ),
        (
            lambda: rd.fk(model, np.zeros((2, 5, nq + 1)), "tool"),
            rf"q must have shape \(\.\.\., {nq}\), got \(2, 5, {nq + 1}\)",
        ),
        (
            lambda: rd.forward_dynamics(model, q, v, np.zeros((3, nv - 1))),
            rf"tau must have shape \(\.\.\., {nv}\), got \(3, {nv - 1}\)",
        ),
        (lambda: rd.jacobian(model, "abc", "tool"), r"q must be a numeric array"),
        (lambda: rd.mass_matrix(model, np.stack([q, q + np.nan])), r"q\[1\] contains NaN or inf"),
        (
            lambda: rd.coriolis_matrix(model, np.zeros((4, nq)), np.zeros((3, nv))),
            r"q \(4, \d+\), v \(3, \d+\) do not broadcast",
        ),
        (
            lambda: rd.kinetic_energy(model, q, None),
            rf"v must have shape \(\.\.\., {nv}\), got None",
        ),
        (lambda: rd.random_configuration(model, 0, size=(2, -1)), r"size must be non-negative"),
    ]
    for call, pattern in cases:
        with pytest.raises(ValueError, match=pattern):
            call()


def test_dir_lists_the_public_api_only():
    names = dir(rd)
    for private in ("Any", "TYPE_CHECKING", "annotations", "importlib"):
        assert private not in names
    assert all(not n.startswith("_") or n == "__version__" for n in names)
    for public in (
        "inverse_dynamics", "mass_matrix", "forward_dynamics", "fk", "jacobian", "com",
        "coriolis_matrix", "christoffel", "kinetic_energy", "load_urdf", "ModelError",
        "RigidInertia", "random_configuration", "integrate", "difference", "symbolic",
    ):  # fmt: skip
        assert public in names
    for name in names:
        getattr(rd, name)  # every listed name resolves
