"""rd.planar: the course's 2-D quantities of a planar arm against course notes 000's closed
forms (typed in): J of the tip, tau = M a + c + g + J^T F_tip with F_tip = (f_x, f_y), and
Lambda = J^-T M J^-1; batches; a non-planar frame refused by name."""

from __future__ import annotations

from math import cos, sin

import numpy as np
import pytest

import robodyn as rd

M1, M2, L1, L2, G = 1.3, 0.7, 0.9, 0.6, 9.81


@pytest.fixture(scope="module")
def arm():
    return rd.models.load("point_mass_2r", m1=M1, m2=M2, L1=L1, L2=L2, g=G)


def notes_J(th):
    s1, c1, s12, c12 = sin(th[0]), cos(th[0]), sin(th[0] + th[1]), cos(th[0] + th[1])
    return np.array([[-L1 * s1 - L2 * s12, -L2 * s12], [L1 * c1 + L2 * c12, L2 * c12]])


def notes_tau(th, thd, thdd):
    """Course notes 000's tau1, tau2 (M thdd + c + g)."""
    c2, s2 = cos(th[1]), sin(th[1])
    c1, c12 = cos(th[0]), cos(th[0] + th[1])
    m12 = M2 * (L2**2 + L1 * L2 * c2)
    M = np.array([[M1 * L1**2 + M2 * (L1**2 + L2**2 + 2 * L1 * L2 * c2), m12],
                  [m12, M2 * L2**2]])  # fmt: skip
    c = [-M2 * L1 * L2 * s2 * (2 * thd[0] * thd[1] + thd[1] ** 2), M2 * L1 * L2 * s2 * thd[0] ** 2]
    g = [(M1 * L1 + M2 * L1) * G * c1 + M2 * L2 * G * c12, M2 * L2 * G * c12]
    return M @ thdd + c + g, M


def test_planar_quantities_are_notes_000s(arm, rng):
    for _ in range(5):
        th, thd, thdd, f = rng.normal(size=(4, 2))
        J = notes_J(th)
        np.testing.assert_allclose(rd.planar.jacobian(arm, th, "ee"), J, atol=1e-12)
        np.testing.assert_allclose(rd.planar.jacobian(arm, th, "ee", rotation=True),
                                   np.vstack([[1.0, 1.0], J]), atol=1e-12)  # fmt: skip
        tau, M = notes_tau(th, thd, thdd)
        got = rd.planar.inverse_dynamics(arm, th, thd, thdd, f_tip=f, frame="ee")
        np.testing.assert_allclose(got, tau + J.T @ f, atol=1e-11)
        np.testing.assert_allclose(rd.planar.inverse_dynamics(arm, th, thd, thdd), tau, atol=1e-11)
        Jinv = np.linalg.inv(J)
        np.testing.assert_allclose(rd.planar.task_space_inertia(arm, th, "ee"),
                                   Jinv.T @ M @ Jinv, rtol=1e-9)  # fmt: skip


def test_batches_and_the_tip_wrench(arm, rng):
    th, f = rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    Js = rd.planar.jacobian(arm, th, "ee")
    np.testing.assert_allclose(Js, [notes_J(t) for t in th], atol=1e-12)
    W = rd.planar.tip_wrench(arm, th, "ee", f)
    assert W.shape == (4, 6) and np.all(W[:, :3] == 0.0) and np.allclose(W[:, 5], 0.0)
    R = rd.fk(arm, th, "ee")[:, :3, :3]
    np.testing.assert_allclose(np.einsum("kij,kj->ki", R, W[:, 3:])[:, :2], f, atol=1e-12)


def test_a_frame_out_of_the_plane_is_refused(arm):
    with pytest.raises(ValueError, match="does not move in the x-y plane"):
        rd.planar.jacobian(rd.models.load("ur5"), np.full(6, 0.3), "ee")
    with pytest.raises(ValueError, match=r"f must have shape \(\.\.\., 2\)"):
        rd.planar.tip_wrench(arm, [0.1, 0.2], "ee", [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="frame is required"):
        rd.planar.inverse_dynamics(arm, [0.1, 0.2], [0, 0], [0, 0], f_tip=[1.0, 0.0])


def test_batches_equal_single_calls(arm, rng):
    """The batch rule (tests/test_batch_rule.py) on the planar arm: a batch of states is
    its single calls, bitwise."""
    n = 7
    q, v, a, f = (rng.normal(size=(n, 2)) for _ in range(4))
    calls = {
        "jacobian": lambda *s: rd.planar.jacobian(arm, s[0], "ee", rotation=True),
        "tip_wrench": lambda *s: rd.planar.tip_wrench(arm, s[0], "ee", s[3]),
        "inverse_dynamics": lambda *s: rd.planar.inverse_dynamics(
            arm, *s[:3], f_tip=s[3], frame="ee"
        ),  # fmt: skip
        "task_space_inertia": lambda *s: rd.planar.task_space_inertia(arm, s[0], "ee"),
    }
    for name, fn in calls.items():
        batch = fn(q, v, a, f)
        singles = np.stack([fn(q[i], v[i], a[i], f[i]) for i in range(n)])
        np.testing.assert_array_equal(batch, singles, err_msg=name)
