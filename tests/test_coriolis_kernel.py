"""The compiled Coriolis kernel (robodyn.kernels.coriolis) against the numpy reference.

Sources: parity with :func:`robodyn.coriolis.coriolis_matrix_reference` (the 6x6/einsum
version of the same factorisation) on hypothesis random trees (helpers.trees: merged fixed,
free anywhere, spherical, planar, helical, cylindrical and mimic joints; universal joints,
which the reference does not model, are in test_coriolis.py); the physical identity
``C v = `` RNEA's velocity forces; dM/dt (``C + C^T``) against central differences of the
mass matrix; batch = loop over single states; argument errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import TREE_KINDS, random_state, random_tree, states, trees
from robodyn.coriolis import coriolis_matrix, coriolis_matrix_reference, mass_matrix_dot
from robodyn.dynamics import mass_matrix, velocity_forces
from robodyn.model.configuration import integrate, neutral


def _rel(a, b) -> float:
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


#: the numpy reference does not model a universal joint (its motion subspace depends on q:
#: coriolis_matrix_reference raises ModelError); the compiled kernel's identities on it are
#: in test_coriolis.py::test_random_tree_identities
NOT_UNIVERSAL = tuple(k for k in TREE_KINDS if k != "universal")


@settings(max_examples=40, deadline=None)
@given(trees(max_bodies=9, kinds=NOT_UNIVERSAL, mimic=None), st.data())
def test_kernel_matches_reference_on_random_trees(tree, data):
    model = tree.model
    q, v, _ = data.draw(states(model))
    C = coriolis_matrix(model, q, v)
    C_ref = coriolis_matrix_reference(model, q, v)
    assert C.shape == (model.nv, model.nv)
    assert _rel(C, C_ref) < 1e-12
    # C v = velocity-product forces of RNEA (tau at a = 0, no gravity)
    assert _rel(C @ v, velocity_forces(model, q, v)) < 1e-11


@pytest.mark.parametrize("floating", [False, True])
def test_batch_equals_single_states(floating):
    model, _ = random_tree(7, 6, floating=floating, mimic=True)
    rng = np.random.default_rng(3)
    Q, V, _ = random_state(model, rng, 17)
    CC = coriolis_matrix(model, Q, V)
    assert CC.shape == (17, model.nv, model.nv)
    for k in range(17):
        assert _rel(CC[k], coriolis_matrix_reference(model, Q[k], V[k])) < 1e-12
    # one q broadcast against a batch of v, and lists take the general path
    CC1 = coriolis_matrix(model, Q[0], V[:4])
    for k in range(4):
        assert _rel(CC1[k], coriolis_matrix_reference(model, Q[0], V[k])) < 1e-12
    C0 = coriolis_matrix(model, list(Q[2]), V[2].tolist())
    assert _rel(C0, CC[2]) < 1e-15
    # dM/dt of the batch (computed as C + C^T) against central differences of the mass
    # matrix along q (+) v t, state by state: C + C^T alone would match whatever C is
    h = np.finfo(float).eps ** (1 / 3)
    M1 = mass_matrix(model, integrate(model, Q, V, h))
    M0 = mass_matrix(model, integrate(model, Q, V, -h))
    Md = mass_matrix_dot(model, Q, V)
    for k in range(17):  # measured: <= 6.2e-10 (floating), 2.2e-10 (fixed)
        assert _rel(Md[k], (M1[k] - M0[k]) / (2 * h)) < 5e-9


def test_strided_and_integer_input():
    model, _ = random_tree(11, 5)
    rng = np.random.default_rng(0)
    q, v, _ = random_state(model, rng)
    qs = np.repeat(q, 2)[::2]  # a strided view: not C-contiguous
    assert _rel(coriolis_matrix(model, qs, v), coriolis_matrix_reference(model, q, v)) < 1e-12
    qr = q.copy()
    qr.flags.writeable = False  # read-only input takes the general path
    Qr = np.tile(q, (3, 1))
    Qr.flags.writeable = False
    assert _rel(coriolis_matrix(model, qr, v), coriolis_matrix_reference(model, q, v)) < 1e-12
    assert _rel(coriolis_matrix(model, Qr, v)[2], coriolis_matrix_reference(model, q, v)) < 1e-12
    vi = np.arange(model.nv)  # int64
    C = coriolis_matrix(model, q, vi)
    assert _rel(C, coriolis_matrix_reference(model, q, vi.astype(float))) < 1e-12


def test_errors_name_the_argument():
    model, _ = random_tree(5, 4, floating=True)
    q = neutral(model)
    v = np.zeros(model.nv)
    with pytest.raises(ValueError, match=r"q must have shape"):
        coriolis_matrix(model, q[:-1], v)
    with pytest.raises(ValueError, match=r"v must have shape"):
        coriolis_matrix(model, q, np.zeros(model.nv + 1))
    bad = v.copy()
    bad[2] = np.nan
    with pytest.raises(ValueError, match=r"v contains NaN"):
        coriolis_matrix(model, q, bad)
    qz = q.copy()
    qz[3:7] = 0.0
    with pytest.raises(ValueError, match=r"quaternion"):
        coriolis_matrix(model, qz, v)
    with pytest.raises(ValueError, match=r"batch"):
        coriolis_matrix(model, np.tile(q, (3, 1)), np.zeros((2, model.nv)))
    with pytest.raises(TypeError, match=r"robodyn Model"):
        coriolis_matrix("panda", q, v)
