"""rd.integrate and rd.difference in the compiled core (kernels/core/cspace.c, issue 29).

Oracles: Pinocchio's ``integrate`` and ``difference``, Pinocchio loading the URDF itself
(the UR5; solo12 on a free joint) or building the same random tree of every joint type
with its own joints (helpers.random_joint_pair); the group identities (a round trip on
each joint's manifold); and robodyn's numpy pair in the model layer
(robodyn.model.configuration, which the model layer keeps because it may not import the
core): the compiled functions compute the same formulas, so they must equal it to a few
ulp, and to the bit where the arithmetic is the same (q + v dt, the quaternion product).
The batch rule (a batch equals its single calls, bitwise) is tests/test_batch_rule.py's.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import robodyn as rd
import robodyn.model as rd_model
from helpers import JOINT_KINDS, assert_close, erd_path, load_pair, random_joint_pair, random_tree
from robodyn.model import configuration as numpy_pair
from robodyn.model.builder import ModelBuilder
from robodyn.model.model import JOINT_FREE, JOINT_PLANAR, JOINT_SPHERICAL, JOINT_TYPE_NAMES


def _matched(model, q, ref):
    """q with each quaternion's sign and planar angle matched to ref: the same
    configuration (Pinocchio returns either sign and angles in (-pi, pi])."""
    q = np.array(q, dtype=float)
    for i in range(1, model.nb):
        qa, jt = int(model.jnt_qadr[i]), int(model.jnt_type[i])
        if jt in (JOINT_FREE, JOINT_SPHERICAL):
            e = qa + (3 if jt == JOINT_FREE else 0)
            if q[e : e + 4] @ ref[e : e + 4] < 0:
                q[e : e + 4] *= -1
        elif jt == JOINT_PLANAR:
            q[qa] += 2 * np.pi * np.round((ref[qa] - q[qa]) / (2 * np.pi))
    return q


def _pin_integrate(pm, mp, q, v):
    return mp.q_from_pin(pin.integrate(pm, mp.q_to_pin(q), mp.v_to_pin(v)))


def _pin_difference(pm, mp, q0, q1):
    return mp.v_from_pin(pin.difference(pm, mp.q_to_pin(q0), mp.q_to_pin(q1)))


def _joints(model, *types):
    return [i for i in range(1, model.nb) if int(model.jnt_type[i]) in types]


# ------------------------------------------------------------------ Pinocchio
@pytest.mark.parametrize(
    ("robot", "floating"),
    [("ur_description/urdf/ur5_robot", False), ("solo_description/robots/solo12", True)],
)
def test_equal_pinocchio_on_urdf_robots(robot, floating, rng):
    """The UR5 and solo12 on a free joint, Pinocchio parsing the URDF itself: a batch of
    20 states (measured over 30 seeds: 0 on the UR5, <= 1.7e-16 on solo12; tolerance
    1e-15)."""
    model, pm, _, mp = load_pair(erd_path(robot), floating_base=floating)
    assert (model.nq != model.nv) == floating
    Q0, Q1 = rd.random_configuration(model, rng, size=(2, 20))
    V = rng.normal(size=(20, model.nv))
    Qn, D = rd.integrate(model, Q0, V, 0.3), rd.difference(model, Q0, Q1)
    for k in range(20):
        want = _pin_integrate(pm, mp, Q0[k], 0.3 * V[k])
        assert_close(_matched(model, Qn[k], want), want, 1e-15, f"integrate, state {k}")
        assert_close(D[k], _pin_difference(pm, mp, Q0[k], Q1[k]), 1e-15, f"difference {k}")


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_equal_pinocchio_on_trees_of_every_joint_type(seed, rng):
    """Random trees of every joint type (free anywhere, spherical, planar, helical,
    cylindrical, universal, revolute, prismatic), built by robodyn's builder and by
    Pinocchio's own joints. Pinocchio wraps a planar angle into (-pi, pi]: q1's planar
    angles are kept within 3 rad of q0's so its difference does not wrap. Measured over 30
    seeds: integrate <= 7.9e-14, difference <= 8.4e-12, both Pinocchio's planar joint
    (against 40 digits its integrate is off by up to 1.6e-10 and its difference by up to
    1e-8 at small angles, robodyn's by 5e-16: test_planar_and_free_steps_equal_40_digits);
    tolerances 2e-13 and 2e-11."""
    model, pm, _, mp = random_joint_pair(seed, 12, kinds=JOINT_KINDS)
    assert {"free", "spherical", "planar", "universal"} <= {
        JOINT_TYPE_NAMES[int(t)] for t in model.jnt_type
    }
    Q0, Q1 = rd.random_configuration(model, rng, size=(2, 20))
    for i in _joints(model, JOINT_PLANAR):
        qa = int(model.jnt_qadr[i])
        Q1[:, qa] = Q0[:, qa] + rng.uniform(-3.0, 3.0, 20)
    V = rng.normal(size=(20, model.nv))
    Qn, D = rd.integrate(model, Q0, V, 0.7), rd.difference(model, Q0, Q1)
    for k in range(20):
        want = _pin_integrate(pm, mp, Q0[k], 0.7 * V[k])
        assert_close(_matched(model, Qn[k], want), want, 2e-13, f"integrate, state {k}")
        assert_close(D[k], _pin_difference(pm, mp, Q0[k], Q1[k]), 2e-11, f"difference {k}")


# ------------------------------------------------------------------ 40 digits
def _mp_planar(q, v):
    """q (+) v of a planar joint in 40-digit arithmetic (mpmath): (phi + w, p + R(phi)
    G2(w) u) with G2(w) = [[sin w, cos w - 1], [1 - cos w, sin w]] / w."""
    import mpmath as mp

    with mp.workdps(40):
        phi, x, y = (mp.mpf(float(c)) for c in q)
        w, u1, u2 = (mp.mpf(float(c)) for c in v)
        a, b = mp.sin(w) / w, (1 - mp.cos(w)) / w
        g1, g2 = a * u1 - b * u2, b * u1 + a * u2
        c, s = mp.cos(phi), mp.sin(phi)
        return np.array([float(phi + w), float(x + c * g1 - s * g2), float(y + s * g1 + c * g2)])


def _mp_free(q, v):
    """T exp6([V_b]) of a free joint in 40-digit arithmetic: the rotation by Rodrigues'
    formula and p + R G(w) u, G(w) = I + (1 - cos t)/t^2 [w] + (t - sin t)/t^3 [w]^2."""
    import mpmath as mp

    with mp.workdps(40):
        p = mp.matrix([float(c) for c in q[:3]])
        qw, qx, qy, qz = (mp.mpf(float(c)) for c in q[3:])
        n = mp.sqrt(qw**2 + qx**2 + qy**2 + qz**2)
        qw, qx, qy, qz = qw / n, qx / n, qy / n, qz / n
        R = mp.matrix(
            [[1 - 2 * (qy**2 + qz**2), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy)],
             [2 * (qx * qy + qw * qz), 1 - 2 * (qx**2 + qz**2), 2 * (qy * qz - qw * qx)],
             [2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx**2 + qy**2)]]
        )  # fmt: skip
        w = [mp.mpf(float(c)) for c in v[:3]]
        t = mp.sqrt(sum(c**2 for c in w))
        W = mp.matrix([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        G = mp.eye(3) + (1 - mp.cos(t)) / t**2 * W + (t - mp.sin(t)) / t**3 * W * W
        pn = p + R * G * mp.matrix([float(c) for c in v[3:]])
        h = [mp.cos(t / 2)] + [mp.sin(t / 2) / t * c for c in w]  # exp(w / 2)
        e = [qw * h[0] - qx * h[1] - qy * h[2] - qz * h[3],
             qw * h[1] + qx * h[0] + qy * h[3] - qz * h[2],
             qw * h[2] - qx * h[3] + qy * h[0] + qz * h[1],
             qw * h[3] + qx * h[2] - qy * h[1] + qz * h[0]]  # fmt: skip
        return np.array([float(c) for c in pn] + [float(c) for c in e])


@pytest.mark.parametrize("angle", [3e-6, 9e-5, 1.1e-4, 6e-4, 9e-4, 1.1e-3, 0.05, 2.0])
def test_planar_and_free_steps_equal_40_digits(angle, rng):
    """The planar and free joints' steps, each side of the Taylor thresholds (1e-4, 1e-3),
    against a 40-digit evaluation of the closed forms, and difference back to v. Measured
    over 30 seeds <= 3.9e-16 (planar), <= 7.8e-16 (free), <= 1.1e-15 (difference);
    tolerances 1e-15, 2e-15, 3e-15. (The form (1 - cos w)/w, before the half-angle one,
    lost 4e-14 at w = 6e-4 and 1e-12 near 1e-4; Pinocchio's planar integrate is off by up
    to 1.6e-10 at w ~ 2e-4.)"""
    b = ModelBuilder("two")
    b.add_body("cart", "world", joint_type="planar", axis=rng.normal(size=3))
    b.add_body("drone", "world", joint_type="free")
    model = b.build()
    (i,), (f,) = _joints(model, JOINT_PLANAR), _joints(model, JOINT_FREE)
    qp, vp = slice(model.jnt_qadr[i], model.jnt_qadr[i] + 3), slice(model.jnt_vadr[i], None)
    qf, vf = slice(model.jnt_qadr[f], model.jnt_qadr[f] + 7), slice(model.jnt_vadr[f], 6)
    for _ in range(10):
        q = rd.random_configuration(model, rng)
        v = rng.normal(size=model.nv)
        v[vp][0] *= angle / abs(v[vp][0])  # the planar angle step
        v[vf][:3] *= angle / np.linalg.norm(v[vf][:3])  # the free joint's rotation angle
        got = rd.integrate(model, q, v)
        assert_close(got[qp], _mp_planar(q[qp], v[vp]), 1e-15, "planar")
        want = got.copy()
        want[qf] = _mp_free(q[qf], v[vf])
        assert_close(_matched(model, got, want)[qf], want[qf], 2e-15, "free")
        assert_close(rd.difference(model, q, got), v, 3e-15, "difference back")


# ------------------------------------------------------------------ the group identities
@pytest.mark.parametrize("seed", [1, 2])
def test_round_trips_on_trees_with_mimic_joints(seed, rng):
    """difference(q, integrate(q, v dt)) = v dt (rotation angles below pi) and
    integrate(q0, difference(q0, q1)) = q1 (quaternions up to sign), on floating trees
    of every joint type with mimic joints (which own no coordinate). Measured over 30
    seeds <= 8.5e-16 (both); tolerance 2e-15."""
    model = random_tree(seed, 14, floating=True, mimic=True, kinds=JOINT_KINDS)[0]
    assert np.any(model.jnt_mimic >= 0)
    Q0, Q1 = rd.random_configuration(model, rng, size=(2, 30))
    V = 0.5 * rng.normal(size=(30, model.nv))  # |omega dt| < pi: the log is the inverse
    for dt in (1.0, 0.25, -0.6):
        back = rd.difference(model, Q0, rd.integrate(model, Q0, V, dt))
        assert_close(back, dt * V, 2e-15, f"difference(integrate), dt = {dt}")
    Q = rd.integrate(model, Q0, rd.difference(model, Q0, Q1))
    for k in range(30):
        assert_close(_matched(model, Q[k], Q1[k]), Q1[k], 2e-15, f"integrate(difference) {k}")


def test_a_step_in_pieces_is_one_step_and_dt_scales_v():
    """A constant velocity is a one-parameter subgroup: 40 steps of dt/40 = one step of dt
    (measured 6.1e-16), and integrate(q, v, dt) = integrate(q, v dt, 1) bitwise (dt
    multiplies v first)."""
    model = random_tree(5, 10, floating=True, kinds=JOINT_KINDS)[0]
    rng = np.random.default_rng(5)
    q0, v = rd.random_configuration(model, rng), rng.normal(size=model.nv)
    q = q0
    for _ in range(40):
        q = rd.integrate(model, q, v, 0.05)
    one = rd.integrate(model, q0, v, 2.0)
    assert_close(_matched(model, q, one), one, 2e-15, "40 steps vs one")
    assert np.array_equal(rd.integrate(model, q0, v, 0.37), rd.integrate(model, q0, v * 0.37))


# ------------------------------------------------------------------ robodyn's numpy pair
def test_equal_the_numpy_pair_of_the_model_layer(rng):
    """Same formulas, branches and Taylor thresholds as robodyn.model.configuration: equal
    to the bit for q + v dt, q1 - q0 and the spherical joint's quaternion product, and
    within a few ulp elsewhere (numpy multiplies R G before applying it to v and solves
    G2 by LU, and builds R from the unit quaternion where the core scales by 2 / |quat|^2).
    Velocities from 1e-9 (the Taylor branches) to 3. Measured over 30 seeds <= 8.7e-16
    (integrate) and <= 1.04e-15 (difference); tolerance 2e-15."""
    model = random_tree(7, 14, floating=True, mimic=True, kinds=JOINT_KINDS)[0]
    Q0 = rd.random_configuration(model, rng, size=40)
    vector = np.ones(model.nq, dtype=bool)  # coordinates integrated as q + v dt
    for i in _joints(model, JOINT_FREE, JOINT_PLANAR):
        vector[model.jnt_qadr[i] : model.jnt_qadr[i] + model.jnt_nq[i]] = False
    for i in _joints(model, JOINT_SPHERICAL):
        vector[model.jnt_qadr[i] : model.jnt_qadr[i] + 4] = False
    for scale in (1e-9, 1e-5, 1e-3, 0.1, 1.0, 3.0):
        V = scale * rng.normal(size=(40, model.nv))
        Q = rd.integrate(model, Q0, V, 0.7)
        D = rd.difference(model, Q0, Q)
        for k in range(40):
            ref = numpy_pair.integrate(model, Q0[k], V[k], 0.7)
            assert np.array_equal(Q[k, vector], ref[vector])
            for i in _joints(model, JOINT_SPHERICAL):
                s = slice(int(model.jnt_qadr[i]), int(model.jnt_qadr[i]) + 4)
                assert np.array_equal(Q[k, s], ref[s]), "spherical: the same products"
            assert_close(Q[k], ref, 2e-15, f"integrate, scale {scale}")
            assert_close(D[k], numpy_pair.difference(model, Q0[k], Q[k]), 2e-15, "difference")


# ------------------------------------------------------------------ arguments
def test_batches_broadcast_and_dt_per_state(rng):
    """Leading dimensions broadcast numpy style (a q for a batch of v, a (2, 3) batch), a
    dt array gives each state its own step; each equals its single calls bitwise."""
    model = random_tree(8, 8, floating=True, kinds=JOINT_KINDS)[0]
    Q = rd.random_configuration(model, rng, size=(2, 3))
    V = rng.normal(size=(2, 3, model.nv))
    dt = rng.uniform(-1.0, 1.0, size=(2, 3))
    out = rd.integrate(model, Q, V, dt)
    assert out.shape == (2, 3, model.nq)
    for i in range(2):
        for j in range(3):
            assert np.array_equal(out[i, j], rd.integrate(model, Q[i, j], V[i, j], dt[i, j]))
    one = rd.integrate(model, Q[0, 0], V[1], dt=0.5)  # one q, three velocities
    assert np.array_equal(one, np.stack([rd.integrate(model, Q[0, 0], v, 0.5) for v in V[1]]))
    D = rd.difference(model, Q[0, 0], Q.tolist())  # lists take the general path
    assert D.shape == (2, 3, model.nv)
    assert np.array_equal(D[1, 2], rd.difference(model, Q[0, 0], Q[1, 2]))
    assert rd.integrate(model, Q[0, 0], V[0, 0], threads=1).shape == (model.nq,)


def test_bad_input_names_the_argument():
    model = random_tree(9, 6, floating=True, kinds=JOINT_KINDS)[0]
    q, v = rd.neutral(model), np.zeros(model.nv)
    Q = np.stack([q] * 4)
    with pytest.raises(ValueError, match=rf"v must have shape \(\.\.\., {model.nv}\), got \(3,\)"):
        rd.integrate(model, q, v[:3])
    with pytest.raises(ValueError, match=rf"q must have shape \(\.\.\., {model.nq}\)"):
        rd.integrate(model, q[:-1], v)
    with pytest.raises(ValueError, match=rf"q1 must have shape \(\.\.\., {model.nq}\)"):
        rd.difference(model, q, q[:-2])
    V = np.zeros((4, model.nv))
    V[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"v\[2\] contains NaN or inf"):
        rd.integrate(model, Q, V)
    with pytest.raises(ValueError, match="dt must be finite"):
        rd.integrate(model, q, v, np.inf)
    with pytest.raises(ValueError, match="dt must be finite"):
        rd.integrate(model, Q, np.zeros((4, model.nv)), [0.1, np.nan, 0.2, 0.3])
    with pytest.raises(ValueError, match="dt must be a number"):
        rd.integrate(model, q, v, "fast")
    Q1 = Q.copy()
    Q1[3, 0] = np.inf
    with pytest.raises(ValueError, match=r"q1\[3\] contains NaN or inf"):
        rd.difference(model, Q, Q1)
    with pytest.raises(TypeError, match="model must be a robodyn Model"):
        rd.difference("ur5", q, q)


@pytest.mark.parametrize(
    "kinds", [("revolute", "prismatic"), ("helical", "universal", "cylindrical", "revolute")]
)
def test_vector_joints_take_the_row_path_with_its_checks(kinds):
    """A model whose every coordinate is integrated as q + v dt (no free, spherical or
    planar joint; mimic joints) runs a batch straight on its rows (cspace.c's
    rd_integrate_rows): the result is numpy's q + v dt to the bit, at sizes that run on
    one thread and on several (2^17 + 5 states); a NaN or inf in q or v, and a sum that
    overflows, are refused naming the argument and the first failing state, whichever
    block and thread it falls in."""
    model = random_tree(11, 7, mimic=True, kinds=kinds)[0]
    assert model.nq == model.nv and np.any(model.jnt_mimic >= 0)
    rng = np.random.default_rng(11)
    for n in (3, 100, 2**17 + 5):
        Q, V = rng.normal(size=(n, model.nq)), rng.normal(size=(n, model.nv))
        for dt in (0.01, -2.5):
            assert np.array_equal(rd.integrate(model, Q, V, dt), Q + V * dt)
            assert np.array_equal(rd.integrate(model, Q, V, dt, threads=1), Q + V * dt)
    for k in (0, 63, 64, 4097, n - 1):  # block and piece edges, the second thread's range
        for arg, bad in (("q", np.nan), ("v", np.inf), ("v", -np.inf)):
            Q2, V2 = Q.copy(), V.copy()
            (Q2 if arg == "q" else V2)[k, k % model.nq] = bad
            (Q2 if arg == "q" else V2)[min(k + 70, n - 1), 0] = np.nan  # a later one
            with pytest.raises(ValueError, match=rf"^{arg}\[{k}\] contains NaN or inf"):
                rd.integrate(model, Q2, V2, 0.1)
        Q2, V2 = Q.copy(), V.copy()
        Q2[k, 1], V2[k, 1] = 1e308, 1e308  # finite inputs, an infinite sum
        with pytest.raises(ValueError, match=rf"^the result at state \[{k}\] overflowed"):
            rd.integrate(model, Q2, V2, 1.0)


def test_check_false_lets_nan_through():
    """check=False (for loops that check their own numbers: the simulator's next
    evaluation, IK's finite-lane test): finite input gives the checked call's result
    bitwise; NaN in v, which the checked call refuses naming it, passes into the
    coordinates it moves (a free joint's omega: its whole pose) and nowhere else; inf in
    q1 gives NaN in difference."""
    model = random_tree(12, 8, floating=True, kinds=JOINT_KINDS)[0]
    assert int(model.jnt_type[1]) == JOINT_FREE
    rng = np.random.default_rng(12)
    Q, Q1 = rd.random_configuration(model, rng, size=(2, 20))
    V = rng.normal(size=(20, model.nv))
    for k in (slice(None), 3):  # a batch, one state
        want = rd.integrate(model, Q[k], V[k], 0.1)
        assert np.array_equal(rd.integrate(model, Q[k], V[k], 0.1, check=False), want)
        want = rd.difference(model, Q[k], Q1[k])
        assert np.array_equal(rd.difference(model, Q[k], Q1[k], check=False), want)
    want = rd.integrate(model, Q, V, 0.1)
    V[4, 0] = np.nan  # the free joint's omega_x
    with pytest.raises(ValueError, match=r"v\[4\] contains NaN"):
        rd.integrate(model, Q, V, 0.1)
    got = rd.integrate(model, Q, V, 0.1, check=False)
    assert np.isnan(got[4, :7]).all() and not np.isnan(np.delete(got, np.s_[:7], 1)).any()
    assert np.array_equal(got[4, 7:], want[4, 7:])
    assert np.array_equal(np.delete(got, 4, 0), np.delete(want, 4, 0))
    Q1[7, -1] = np.inf
    with pytest.raises(ValueError, match=r"q1\[7\] contains NaN or inf"):
        rd.difference(model, Q, Q1)
    assert np.isnan(rd.difference(model, Q, Q1, check=False)[7]).any()


def test_zero_quaternion_names_the_argument_and_the_state():
    """A zero quaternion (free or spherical joint) is refused, never a silent NaN: in q of
    integrate, q0 or q1 of difference, one state or a batch."""
    model = random_tree(10, 6, floating=True, kinds=("spherical", "revolute"))[0]
    q, v = rd.neutral(model), np.zeros(model.nv)
    sph = int(model.jnt_qadr[_joints(model, JOINT_SPHERICAL)[0]])
    for e in (3, sph):  # the free joint's quaternion, a spherical joint's
        bad = q.copy()
        bad[e : e + 4] = 0.0
        Q = np.stack([q, q, bad])
        with pytest.raises(ValueError, match=r"^q: the quaternion of a free joint is zero"):
            rd.integrate(model, bad, v)
        with pytest.raises(ValueError, match=r"^q\[2\]: the quaternion"):
            rd.integrate(model, Q, np.zeros((3, model.nv)))
        with pytest.raises(ValueError, match=r"^q0: the quaternion"):
            rd.difference(model, bad, q)
        with pytest.raises(ValueError, match=r"^q1\[2\]: the quaternion"):
            rd.difference(model, np.stack([q] * 3), Q)
        with pytest.raises(ValueError, match=r"^q1: the quaternion"):
            rd.difference(model, q, bad.tolist())


def test_the_public_functions_are_the_compiled_entries():
    """rd.integrate / rd.difference are the core's compiled entries (a plain call answers
    from C); robodyn.model keeps its numpy pair under the same names."""
    for name in ("integrate", "difference"):
        fn = getattr(rd, name)
        assert type(fn).__name__ == "entry"
        assert fn.__wrapped__.__module__ == "robodyn.kinematics.configuration"
        assert getattr(rd_model, name).__module__ == "robodyn.model.configuration"
