"""robodyn.mr: the Modern Robotics library's functions, backed by robodyn.

Two independent sources: the numbers printed in the modern_robotics library's own
docstring examples (typed in here), and the modern_robotics package itself on random
inputs (away from its NearZero thresholds, where it deliberately snaps to zero).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # MR's SimulateControl calls plt.show(): keep it windowless

import matplotlib.pyplot as plt  # noqa: E402
import modern_robotics as mr  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from robodyn import mr as rm  # noqa: E402

TOL = 1e-9


def close(a, b, tol=TOL):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=tol, atol=tol)


# ------------------------------------------------------- the docstrings' 3-link robot
M01 = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.089159], [0, 0, 0, 1]])
M12 = np.array([[0, 0, 1, 0.28], [0, 1, 0, 0.13585], [-1, 0, 0, 0], [0, 0, 0, 1]])
M23 = np.array([[1, 0, 0, 0], [0, 1, 0, -0.1197], [0, 0, 1, 0.395], [0, 0, 0, 1]])
M34 = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.14225], [0, 0, 0, 1]])
G1 = np.diag([0.010267, 0.010267, 0.00666, 3.7, 3.7, 3.7])
G2 = np.diag([0.22689, 0.22689, 0.0151074, 8.393, 8.393, 8.393])
G3 = np.diag([0.0494433, 0.0494433, 0.004095, 2.275, 2.275, 2.275])
GLIST = np.array([G1, G2, G3])
MLIST = np.array([M01, M12, M23, M34])
SLIST = np.array([[1, 0, 1, 0, 1, 0], [0, 1, 0, -0.089, 0, 0], [0, 1, 0, -0.089, 0, 0.425]]).T
TH = np.array([0.1, 0.1, 0.1])
DTH = np.array([0.1, 0.2, 0.3])
DDTH = np.array([2, 1.5, 1])
GRAV = np.array([0, 0, -9.8])
FTIP = np.array([1, 1, 1, 1, 1, 1])
ROBOT = (MLIST, GLIST, SLIST)

# the chapter 4-6 docstrings' RRP robot
M_RRP = np.array([[-1, 0, 0, 0], [0, 1, 0, 6], [0, 0, -1, 2], [0, 0, 0, 1]])
B_RRP = np.array([[0, 0, -1, 2, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 1, 0, 0, 0.1]]).T
S_RRP = np.array([[0, 0, 1, 4, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, -1, -6, 0, -0.1]]).T
T_RRP = np.array([[0, 1, 0, -5], [1, 0, 0, 4], [0, 0, -1, 1.6858], [0, 0, 0, 1]])
# the chapter 5 docstrings' 4-axis list
S4 = np.array([[0, 0, 1, 0, 0.2, 0.2], [1, 0, 0, 2, 0, 3], [0, 1, 0, 0, 2, 1],
               [1, 0, 0, 0.2, 0.3, 0.4]]).T  # fmt: skip
TH4 = np.array([0.2, 1.1, 0.1, 1.2])
T_A = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 3], [0, 0, 0, 1]])
X_START = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 1], [0, 0, 0, 1]])
X_END = np.array([[0, 0, 1, 0.1], [1, 0, 0, 0], [0, 1, 0, 4.1], [0, 0, 0, 1]])


# =========================================================== docstring examples
def test_doc_basic_helpers():
    assert rm.NearZero(-1e-7) is True
    assert rm.NearZero(2e-6) is False
    close(rm.Normalize(np.array([1, 2, 3])), [0.26726124, 0.53452248, 0.80178373], 1e-8)


def test_doc_chapter3_rotations():
    R = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]])
    close(rm.RotInv(R), [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    W = np.array([[0, -3, 2], [3, 0, -1], [-2, 1, 0]])
    close(rm.VecToso3(np.array([1, 2, 3])), W)
    close(rm.so3ToVec(W), [1, 2, 3])
    omg, theta = rm.AxisAng3(np.array([1, 2, 3]))
    close(omg, [0.26726124, 0.53452248, 0.80178373], 1e-8)
    assert theta == pytest.approx(3.7416573867739413, abs=1e-15)
    close(
        rm.MatrixExp3(W),
        [[-0.69492056, 0.71352099, 0.08929286],
         [-0.19200697, -0.30378504, 0.93319235],
         [0.69297817, 0.6313497, 0.34810748]],
        1e-8,
    )  # fmt: skip
    a = 1.20919958
    close(rm.MatrixLog3(R), [[0, -a, a], [a, 0, -a], [-a, a, 0]], 1e-8)


def test_doc_chapter3_transforms():
    R = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    close(rm.RpToTrans(R, np.array([1, 2, 5])),
          [[1, 0, 0, 1], [0, 0, -1, 2], [0, 1, 0, 5], [0, 0, 0, 1]])  # fmt: skip
    Rr, p = rm.TransToRp(T_A)
    close(Rr, R)
    close(p, [0, 0, 3])
    close(rm.TransInv(T_A), [[1, 0, 0, 0], [0, 0, 1, -3], [0, -1, 0, 0], [0, 0, 0, 1]])
    X = np.array([[0, -3, 2, 4], [3, 0, -1, 5], [-2, 1, 0, 6], [0, 0, 0, 0]])
    close(rm.VecTose3(np.array([1, 2, 3, 4, 5, 6])), X)
    close(rm.se3ToVec(X), [1, 2, 3, 4, 5, 6])
    close(
        rm.Adjoint(T_A),
        [[1, 0, 0, 0, 0, 0], [0, 0, -1, 0, 0, 0], [0, 1, 0, 0, 0, 0],
         [0, 0, 3, 1, 0, 0], [3, 0, 0, 0, 0, -1], [0, 0, 0, 0, 1, 0]],
    )  # fmt: skip
    close(rm.ScrewToAxis(np.array([3, 0, 0]), np.array([0, 0, 1]), 2), [0, 0, 1, 0, -3, 2])
    S, theta = rm.AxisAng6(np.array([1, 0, 0, 1, 2, 3]))
    close(S, [1, 0, 0, 1, 2, 3])
    assert theta == 1.0


def test_doc_chapter3_exp_log6():
    se3 = np.array([[0, 0, 0, 0], [0, 0, -1.57079632, 2.35619449],
                    [0, 1.57079632, 0, 2.35619449], [0, 0, 0, 0]])  # fmt: skip
    # the input is pi/2 and 3 pi/4 rounded to 8 decimals: the output moves by ~1e-8
    close(rm.MatrixExp6(se3), T_A, 3e-8)
    close(rm.MatrixLog6(T_A), se3, 1e-8)


def test_doc_chapter3_projections_and_distances():
    mat = np.array([[0.675, 0.150, 0.720], [0.370, 0.771, -0.511], [-0.630, 0.619, 0.472]])
    R = [[0.67901136, 0.14894516, 0.71885945],
         [0.37320708, 0.77319584, -0.51272279],
         [-0.63218672, 0.61642804, 0.46942137]]  # fmt: skip
    close(rm.ProjectToSO3(mat), R, 1e-8)
    mat4 = np.array([[0.675, 0.150, 0.720, 1.2], [0.370, 0.771, -0.511, 5.4],
                     [-0.630, 0.619, 0.472, 3.6], [0.003, 0.002, 0.010, 0.9]])  # fmt: skip
    T = rm.ProjectToSE3(mat4)
    close(T[:3, :3], R, 1e-8)
    close(T[:3, 3], [1.2, 5.4, 3.6])
    close(T[3], [0, 0, 0, 1])
    m3 = np.array([[1.0, 0.0, 0.0], [0.0, 0.1, -0.95], [0.0, 1.0, 0.1]])
    m4 = np.array([[1.0, 0.0, 0.0, 1.2], [0.0, 0.1, -0.95, 1.5],
                   [0.0, 1.0, 0.1, -0.9], [0.0, 0.0, 0.1, 0.98]])  # fmt: skip
    assert rm.DistanceToSO3(m3) == pytest.approx(0.08835, abs=5e-6)
    assert rm.DistanceToSE3(m4) == pytest.approx(0.134931, abs=5e-7)
    assert rm.TestIfSO3(m3) is False
    assert rm.TestIfSE3(m4) is False
    assert rm.TestIfSO3(np.array(R)) is True
    assert rm.DistanceToSO3(-np.eye(3)) == 1e9


def test_doc_chapter4_fk():
    T = [[0, 1, 0, -5], [1, 0, 0, 4], [0, 0, -1, 1.68584073], [0, 0, 0, 1]]
    th = np.array([np.pi / 2.0, 3, np.pi])
    close(rm.FKinBody(M_RRP, B_RRP, th), T, 1e-8)
    close(rm.FKinSpace(M_RRP, S_RRP, th), T, 1e-8)


def test_doc_chapter5_jacobians():
    Jb = [[-0.04528405, 0.99500417, 0, 1],
          [0.74359313, 0.09304865, 0.36235775, 0],
          [-0.66709716, 0.03617541, -0.93203909, 0],
          [2.32586047, 1.66809, 0.56410831, 0.2],
          [-1.44321167, 2.94561275, 1.43306521, 0.3],
          [-2.06639565, 1.82881722, -1.58868628, 0.4]]  # fmt: skip
    Js = [[0, 0.98006658, -0.09011564, 0.95749426],
          [0, 0.19866933, 0.4445544, 0.28487557],
          [1, 0, 0.89120736, -0.04528405],
          [0, 1.95218638, -2.21635216, -0.51161537],
          [0.2, 0.43654132, -2.43712573, 2.77535713],
          [0.2, 2.96026613, 3.23573065, 2.22512443]]  # fmt: skip
    close(rm.JacobianBody(S4, TH4), Jb, 1e-8)
    close(rm.JacobianSpace(S4, TH4), Js, 1e-8)


def test_doc_chapter6_ik():
    th0 = np.array([1.5, 2.5, 3])
    th, ok = rm.IKinBody(B_RRP, M_RRP, T_RRP, th0, 0.01, 0.001)
    assert ok is True
    close(th, [1.57073819, 2.999667, 3.14153913], 1e-8)
    th, ok = rm.IKinSpace(S_RRP, M_RRP, T_RRP, th0, 0.01, 0.001)
    assert ok is True
    close(th, [1.57073783, 2.99966384, 3.1415342], 1e-8)


def test_doc_chapter8_dynamics():
    close(
        rm.ad(np.array([1, 2, 3, 4, 5, 6])),
        [[0, -3, 2, 0, 0, 0], [3, 0, -1, 0, 0, 0], [-2, 1, 0, 0, 0, 0],
         [0, -6, 5, 0, -3, 2], [6, 0, -4, 3, 0, -1], [-5, 4, 0, -2, 1, 0]],
    )  # fmt: skip
    close(rm.InverseDynamics(TH, DTH, DDTH, GRAV, FTIP, *ROBOT),
          [74.69616155, -33.06766016, -3.23057314], 1e-8)  # fmt: skip
    close(
        rm.MassMatrix(TH, *ROBOT),
        [[2.25433380e01, -3.07146754e-01, -7.18426391e-03],
         [-3.07146754e-01, 1.96850717e00, 4.32157368e-01],
         [-7.18426391e-03, 4.32157368e-01, 1.91630858e-01]],
        1e-8,
    )  # fmt: skip
    close(rm.VelQuadraticForces(TH, DTH, *ROBOT), [0.26453118, -0.05505157, -0.00689132], 1e-8)
    close(rm.GravityForces(TH, GRAV, *ROBOT), [28.40331262, -37.64094817, -5.4415892], 1e-8)
    close(rm.EndEffectorForces(TH, FTIP, *ROBOT), [1.40954608, 1.85771497, 1.392409], 1e-8)
    close(rm.ForwardDynamics(TH, DTH, np.array([0.5, 0.6, 0.7]), GRAV, FTIP, *ROBOT),
          [-0.97392907, 25.58466784, -32.91499212], 1e-8)  # fmt: skip
    th, dth = rm.EulerStep(TH, DTH, DDTH, 0.1)
    close(th, [0.11, 0.12, 0.13], 1e-15)
    close(dth, [0.3, 0.35, 0.4], 1e-15)


def test_doc_chapter9_trajectories():
    assert rm.CubicTimeScaling(2, 0.6) == pytest.approx(0.216, abs=1e-15)
    assert rm.QuinticTimeScaling(2, 0.6) == pytest.approx(0.16308, abs=1e-15)
    traj = rm.JointTrajectory(np.array([1, 0, 0, 1, 1, 0.2, 0, 1]),
                              np.array([1.2, 0.5, 0.6, 1.1, 2, 2, 0.9, 1]), 4, 6, 3)  # fmt: skip
    close(
        traj,
        [[1, 0, 0, 1, 1, 0.2, 0, 1],
         [1.0208, 0.052, 0.0624, 1.0104, 1.104, 0.3872, 0.0936, 1],
         [1.0704, 0.176, 0.2112, 1.0352, 1.352, 0.8336, 0.3168, 1],
         [1.1296, 0.324, 0.3888, 1.0648, 1.648, 1.3664, 0.5832, 1],
         [1.1792, 0.448, 0.5376, 1.0896, 1.896, 1.8128, 0.8064, 1],
         [1.2, 0.5, 0.6, 1.1, 2, 2, 0.9, 1]],
        1e-12,
    )  # fmt: skip
    screw = rm.ScrewTrajectory(X_START, X_END, 5, 4, 3)
    assert isinstance(screw, list) and len(screw) == 4
    want = [X_START,
            [[0.904, -0.25, 0.346, 0.441], [0.346, 0.904, -0.25, 0.529],
             [-0.25, 0.346, 0.904, 1.601], [0, 0, 0, 1]],
            [[0.346, -0.25, 0.904, -0.117], [0.904, 0.346, -0.25, 0.473],
             [-0.25, 0.904, 0.346, 3.274], [0, 0, 0, 1]],
            X_END]  # fmt: skip
    for X, W in zip(screw, want, strict=True):
        np.testing.assert_allclose(X, W, atol=5e-4 + 1e-12)
    cart = rm.CartesianTrajectory(X_START, X_END, 5, 4, 5)
    want = [X_START,
            [[0.937, -0.214, 0.277, 0.811], [0.277, 0.937, -0.214, 0],
             [-0.214, 0.277, 0.937, 1.651], [0, 0, 0, 1]],
            [[0.277, -0.214, 0.937, 0.289], [0.937, 0.277, -0.214, 0],
             [-0.214, 0.937, 0.277, 3.449], [0, 0, 0, 1]],
            X_END]  # fmt: skip
    assert isinstance(cart, list) and len(cart) == 4
    for X, W in zip(cart, want, strict=True):
        np.testing.assert_allclose(X, W, atol=5e-4 + 1e-12)


def test_doc_chapter11_computed_torque():
    tau = rm.ComputedTorque(TH, DTH, np.array([0.2, 0.2, 0.2]), GRAV, *ROBOT,
                            np.array([1.0, 1.0, 1.0]), np.array([2, 1.2, 2]),
                            np.array([0.1, 0.1, 0.1]), 1.3, 1.2, 1.1)  # fmt: skip
    close(tau, [133.00525246, -29.94223324, -3.03276856], 1e-8)


# ============================================ random inputs against modern_robotics
def _rot(rng, lo=0.2, hi=2.9):
    """A random rotation with angle in [lo, hi] (away from MR's 0 and pi branches)."""
    w = rng.normal(size=3)
    w /= np.linalg.norm(w)
    return mr.MatrixExp3(mr.VecToso3(w * rng.uniform(lo, hi)))


def _tf(rng, lo=0.2, hi=2.9):
    return mr.RpToTrans(_rot(rng, lo, hi), rng.normal(size=3))


@pytest.mark.parametrize("seed", range(20))
def test_random_chapter3(seed):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=3)
    V = rng.normal(size=6)
    R, T = _rot(rng), _tf(rng)
    close(rm.Normalize(V), mr.Normalize(V))
    close(rm.RotInv(R), mr.RotInv(R))
    close(rm.VecToso3(v), mr.VecToso3(v))
    close(rm.so3ToVec(mr.VecToso3(v)), mr.so3ToVec(mr.VecToso3(v)))
    for a, b in zip(rm.AxisAng3(v), mr.AxisAng3(v), strict=True):
        close(a, b)
    close(rm.MatrixExp3(mr.VecToso3(v)), mr.MatrixExp3(mr.VecToso3(v)))
    close(rm.MatrixLog3(R), mr.MatrixLog3(R))
    close(rm.RpToTrans(R, v), mr.RpToTrans(R, v))
    for a, b in zip(rm.TransToRp(T), mr.TransToRp(T), strict=True):
        close(a, b)
    close(rm.TransInv(T), mr.TransInv(T))
    close(rm.VecTose3(V), mr.VecTose3(V))
    close(rm.se3ToVec(mr.VecTose3(V)), mr.se3ToVec(mr.VecTose3(V)))
    close(rm.Adjoint(T), mr.Adjoint(T))
    s = v / np.linalg.norm(v)
    close(rm.ScrewToAxis(V[:3], s, V[3]), mr.ScrewToAxis(V[:3], s, V[3]))
    for a, b in zip(rm.AxisAng6(V), mr.AxisAng6(V), strict=True):
        close(a, b)
    pure = np.r_[0, 0, 0, V[3:]]
    for a, b in zip(rm.AxisAng6(pure), mr.AxisAng6(pure), strict=True):
        close(a, b)
    close(rm.MatrixExp6(mr.VecTose3(V)), mr.MatrixExp6(mr.VecTose3(V)))
    close(rm.MatrixExp6(mr.VecTose3(pure)), mr.MatrixExp6(mr.VecTose3(pure)))
    close(rm.MatrixLog6(T), mr.MatrixLog6(T))
    Tp = mr.RpToTrans(np.eye(3), v)
    close(rm.MatrixLog6(Tp), mr.MatrixLog6(Tp))
    noisy = R + 0.05 * rng.normal(size=(3, 3))
    noisy4 = np.r_[np.c_[noisy, v], [np.r_[0.01 * rng.normal(size=3), 1.02]]]
    close(rm.ProjectToSO3(noisy), mr.ProjectToSO3(noisy))
    close(rm.ProjectToSE3(noisy4), mr.ProjectToSE3(noisy4))
    close(rm.DistanceToSO3(noisy), mr.DistanceToSO3(noisy))
    close(rm.DistanceToSE3(noisy4), mr.DistanceToSE3(noisy4))
    assert rm.TestIfSO3(noisy) == mr.TestIfSO3(noisy)
    assert rm.TestIfSE3(noisy4) == mr.TestIfSE3(noisy4)
    assert rm.TestIfSE3(T) is True and mr.TestIfSE3(T)
    close(rm.ad(V), mr.ad(V))


def test_matrix_log_at_pi_takes_mr_axis_sign():
    # rotations by exactly pi: both axis signs are logarithms. Where cos(theta) rounds to
    # -1, MR fixes one sign, and so does robodyn.mr; elsewhere MR's arccos branch divides
    # 0 by sin(theta) ~ 1e-8 and returns zero, so there only R = exp(log R) is checked.
    mr_branch = 0
    for w in ([0, 0, 1], [0, 1, 0], [1, 0, 0], [0, -1, 0], [0.6, -0.8, 0], [1, 2, -2],
              [-2, 1, 2], [0, 3, -4], [-1, 0, 0]):  # fmt: skip
        w = np.array(w, float) / np.linalg.norm(w)
        R = 2 * np.outer(w, w) - np.eye(3)  # exp(pi [w])
        T = mr.RpToTrans(R, np.array([0.3, -1.0, 2.0]))
        close(mr.MatrixExp3(rm.MatrixLog3(R)), R, 1e-12)
        close(mr.MatrixExp6(rm.MatrixLog6(T)), T, 1e-12)
        if (np.trace(R) - 1) / 2 <= -1:
            mr_branch += 1
            close(rm.MatrixLog3(R), mr.MatrixLog3(R), 1e-12)
            close(rm.MatrixLog6(T), mr.MatrixLog6(T), 1e-12)
    assert mr_branch >= 5


def _screws(rng, n, prismatic=(), scale=False):
    """Random space screw axes (revolute through random points, or prismatic)."""
    S = np.zeros((6, n))
    for i in range(n):
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        if i in prismatic:
            S[3:, i] = d
        else:
            S[:3, i] = d
            S[3:, i] = np.cross(rng.normal(size=3), d)  # -w x q = q x w
        if scale:
            S[:, i] *= rng.uniform(0.5, 2.0)
    return S


@pytest.mark.parametrize("seed", range(15))
def test_random_chapters4_to_6(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 8))
    # seed % 3: 0 unit axes with a prismatic joint, 1 non-unit axes, 2 a helical joint
    S = _screws(rng, n, prismatic={int(rng.integers(n))} if seed % 3 == 0 else (),
                scale=seed % 3 == 1)  # fmt: skip
    if seed % 3 == 2:
        S[3:, 0] += 0.2 * S[:3, 0]  # pitch 0.2: no robodyn joint, numpy PoE path
    M = _tf(rng)
    compiled = rm._kin_chain(M, S, False).model is not None
    assert compiled is (seed % 3 != 2)
    th = rng.uniform(-2.5, 2.5, n)
    B = mr.Adjoint(mr.TransInv(M)) @ S
    close(rm.FKinSpace(M, S, th), mr.FKinSpace(M, S, th))
    close(rm.FKinBody(M, B, th), mr.FKinBody(M, B, th))
    close(rm.JacobianSpace(S, th), mr.JacobianSpace(S, th))
    close(rm.JacobianBody(B, th), mr.JacobianBody(B, th))
    # IK from a perturbed start: same Newton iterates, same answer and flag
    T = mr.FKinSpace(M, S, th)
    th0 = th + rng.normal(scale=0.1, size=n)
    for ours, theirs in (
        (rm.IKinSpace(S, M, T, th0, 1e-6, 1e-6), mr.IKinSpace(S, M, T, th0, 1e-6, 1e-6)),
        (rm.IKinBody(B, M, T, th0, 1e-6, 1e-6), mr.IKinBody(B, M, T, th0, 1e-6, 1e-6)),
    ):
        assert ours[1] == theirs[1]
        close(ours[0], theirs[0], 1e-8)


def test_ik_reports_failure_like_mr():
    # unreachable target: both give up after 20 iterations with success False
    T = T_RRP.copy()
    T[:3, 3] = [100.0, 100.0, 100.0]
    th0 = np.array([1.5, 2.5, 3])
    ours = rm.IKinBody(B_RRP, M_RRP, T, th0, 0.01, 0.001)
    theirs = mr.IKinBody(B_RRP, M_RRP, T, th0, 0.01, 0.001)
    assert ours[1] is False and theirs[1] is False
    close(ours[0], theirs[0], 1e-6)


def _random_chain(rng, n, *, kind="unit"):
    """(Mlist, Glist, Slist): kind "unit" (unit axes, G at the CoM), "scaled" (non-unit
    axes), "offset" (G not at the CoM: robodyn.mr's numpy fallback) or "helical"."""
    Mlist = [_tf(rng, 0.1, 2.5) for _ in range(n + 1)]
    Glist = []
    for _ in range(n):
        a, b = rng.uniform(0.05, 0.5, 2)
        moments = np.array([a, b, rng.uniform(abs(a - b) + 0.01, a + b)])  # triangle ineq.
        Rg = _rot(rng)
        G = np.zeros((6, 6))
        G[:3, :3] = Rg @ np.diag(moments) @ Rg.T
        G[3:, 3:] = rng.uniform(0.5, 5.0) * np.eye(3)
        if kind == "offset":
            Ad = mr.Adjoint(mr.RpToTrans(np.eye(3), rng.normal(scale=0.2, size=3)))
            G = Ad.T @ G @ Ad  # the inertia about a point away from the CoM
        Glist.append(G)
    prism = {int(rng.integers(n))} if n > 2 else set()
    S = _screws(rng, n, prismatic=prism, scale=(kind == "scaled"))
    if kind == "helical":
        i = next(i for i in range(n) if i not in prism)
        S[3:, i] += 0.3 * S[:3, i]  # pitch 0.3
    return np.array(Mlist), np.array(Glist), S


KINDS = ["unit", "scaled", "offset", "helical"]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("kind", KINDS)
def test_random_chapter8_against_mr(seed, kind):
    rng = np.random.default_rng(1000 * KINDS.index(kind) + seed)
    n = int(rng.integers(1, 7))
    robot = _random_chain(rng, n, kind=kind)
    th, dth, ddth, tau = rng.uniform(-2, 2, (4, n))
    g = rng.normal(scale=5, size=3)
    F = rng.normal(size=6)
    close(rm.InverseDynamics(th, dth, ddth, g, F, *robot),
          mr.InverseDynamics(th, dth, ddth, g, F, *robot))  # fmt: skip
    close(rm.MassMatrix(th, *robot), mr.MassMatrix(th, *robot))
    close(rm.VelQuadraticForces(th, dth, *robot), mr.VelQuadraticForces(th, dth, *robot))
    close(rm.GravityForces(th, g, *robot), mr.GravityForces(th, g, *robot))
    close(rm.EndEffectorForces(th, F, *robot), mr.EndEffectorForces(th, F, *robot))
    close(rm.ForwardDynamics(th, dth, tau, g, F, *robot),
          mr.ForwardDynamics(th, dth, tau, g, F, *robot), 1e-8)  # fmt: skip
    # a list-of-lists input (course code often passes Python lists) gives the same numbers
    lists = ([M.tolist() for M in robot[0]], [G.tolist() for G in robot[1]], robot[2].tolist())
    close(rm.InverseDynamics(list(th), list(dth), list(ddth), list(g), list(F), *lists),
          mr.InverseDynamics(th, dth, ddth, g, F, *robot))  # fmt: skip


def test_chain_paths_are_the_ones_described():
    rng = np.random.default_rng(7)
    for kind, fallback, scaled in (
        ("unit", False, False), ("scaled", False, True), ("offset", True, False),
        ("helical", True, False),
    ):  # fmt: skip
        c = rm._chain(*_random_chain(rng, 4, kind=kind))
        rm.InverseDynamics(np.zeros(4), np.zeros(4), np.zeros(4), GRAV, np.zeros(6),
                           c.Mlist, c.Glist, c.Slist)  # fmt: skip
        assert c.fallback is fallback
        assert (c.k is not None) is scaled
    # the docstring robot's first axis is [1, 0, 1, 0, 1, 0]: |omega| = sqrt(2), scaled path
    c = rm._chain(*ROBOT)
    assert not c.fallback
    close(c.k, [np.sqrt(2), 1, 1], 1e-15)


def test_model_is_cached_across_calls():
    rm.GravityForces(TH, GRAV, *ROBOT)
    c = rm._chain(*ROBOT)
    model = c.model(np.asarray(GRAV, float))
    for _ in range(3):
        rm.InverseDynamics(TH, DTH, DDTH, GRAV, FTIP, *ROBOT)
    assert rm._chain(*ROBOT) is c
    assert c.model(np.asarray(GRAV, float)) is model
    # a changed inertia is another chain with its own numbers
    G = GLIST.copy()
    G[0, 3:, 3:] *= 2
    assert rm._chain(MLIST, G, SLIST) is not c
    assert not np.allclose(rm.GravityForces(TH, GRAV, MLIST, G, SLIST),
                           rm.GravityForces(TH, GRAV, *ROBOT))  # fmt: skip
    close(rm.GravityForces(TH, GRAV, MLIST, G, SLIST),
          mr.GravityForces(TH, GRAV, MLIST, G, SLIST))  # fmt: skip


@pytest.mark.parametrize("kind", ["unit", "scaled", "offset"])
def test_inverse_dynamics_trajectory_against_mr(kind):
    rng = np.random.default_rng(55 + KINDS.index(kind))
    n, N = 4, 25
    robot = _random_chain(rng, n, kind=kind)
    Q, V, A = rng.uniform(-2, 2, (3, N, n))
    F = rng.normal(size=(N, 6))
    g = np.array([0.3, -0.2, -9.81])
    ours = rm.InverseDynamicsTrajectory(Q, V, A, g, F, *robot)
    assert ours.shape == (N, n)
    close(ours, mr.InverseDynamicsTrajectory(Q, V, A, g, F, *robot))
    close(rm.InverseDynamicsTrajectory(Q, V, A, g, 0, *robot),
          mr.InverseDynamicsTrajectory(Q, V, A, g, np.zeros((N, 6)), *robot))  # fmt: skip


def test_doc_inverse_dynamics_trajectory():
    # the docstring's quintic joint trajectory with finite-difference rates
    traj = rm.JointTrajectory(np.zeros(3), np.full(3, np.pi / 2), 3, 1000, 5)
    close(traj, mr.JointTrajectory(np.zeros(3), np.full(3, np.pi / 2), 3, 1000, 5), 1e-14)
    dt = 3 / 999.0
    dtheta = np.zeros((1000, 3))
    ddtheta = np.zeros((1000, 3))
    dtheta[1:] = np.diff(traj, axis=0) / dt
    ddtheta[1:] = np.diff(dtheta, axis=0) / dt
    Ftip = np.ones((1000, 6))
    ours = rm.InverseDynamicsTrajectory(traj, dtheta, ddtheta, GRAV, Ftip, *ROBOT)
    theirs = mr.InverseDynamicsTrajectory(traj, dtheta, ddtheta, GRAV, Ftip, *ROBOT)
    # the first rows have |theta| < 1e-6, where MR's MatrixExp6 drops the rotation
    # (NearZero): there the two agree only to that level
    tiny = np.any(np.abs(traj) * np.sqrt(2) < 1e-6, axis=1)
    assert 2 <= tiny.sum() < 10
    close(ours[~tiny], theirs[~tiny])
    close(ours[tiny], theirs[tiny], 1e-4)
    close(ours[0], rm.InverseDynamics(traj[0], dtheta[0], ddtheta[0], GRAV, Ftip[0], *ROBOT))


DOC_TAUMAT = np.array([[3.63, -6.58, -5.57], [3.74, -5.55, -5.5], [4.31, -0.68, -5.19],
                       [5.18, 5.63, -4.31], [5.85, 8.17, -2.59], [5.78, 2.79, -1.7],
                       [4.99, -5.3, -1.19], [4.08, -9.41, 0.07], [3.56, -10.1, 0.97],
                       [3.49, -9.41, 1.23]])  # fmt: skip


def test_doc_forward_dynamics_trajectory():
    Ftip = np.ones((10, 6))
    ours = rm.ForwardDynamicsTrajectory(TH, DTH, DOC_TAUMAT, GRAV, Ftip, *ROBOT, 0.1, 8)
    theirs = mr.ForwardDynamicsTrajectory(TH, DTH, DOC_TAUMAT, GRAV, Ftip, *ROBOT, 0.1, 8)
    assert ours[0].shape == ours[1].shape == (10, 3)
    close(ours[0][0], TH, 0)
    close(ours[0], theirs[0], 1e-8)
    close(ours[1], theirs[1], 1e-8)


@pytest.mark.parametrize("kind", ["unit", "offset"])
def test_forward_dynamics_trajectory_random(kind):
    rng = np.random.default_rng(77)
    n, N = 3, 6
    robot = _random_chain(rng, n, kind=kind)
    th, dth = rng.uniform(-1, 1, (2, n))
    taumat = rng.normal(size=(N, n))
    F = rng.normal(size=(N, 6))
    g = np.array([0, 0, -9.81])
    ours = rm.ForwardDynamicsTrajectory(th, dth, taumat, g, F, *robot, 0.01, 3)
    theirs = mr.ForwardDynamicsTrajectory(th, dth, taumat, g, F, *robot, 0.01, 3)
    close(ours[0], theirs[0], 1e-8)
    close(ours[1], theirs[1], 1e-8)


def _doc_control_setup(rows=15):
    """The SimulateControl docstring's setup (N = 100, dt = 1/99), first rows only."""
    Tf, N = 1.0, 100
    thd = rm.JointTrajectory(TH, np.array([np.pi / 2, np.pi, 1.5 * np.pi]), Tf, N, 5)
    dt = Tf / (N - 1.0)
    dthd = np.zeros((N, 3))
    ddthd = np.zeros((N, 3))
    dthd[1:] = np.diff(thd, axis=0) / dt
    ddthd[1:] = np.diff(dthd, axis=0) / dt
    thd, dthd, ddthd = thd[:rows], dthd[:rows], ddthd[:rows]
    N = rows
    gtilde = np.array([0.8, 0.2, -8.8])
    Mt = np.array([
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.1], [0, 0, 0, 1]],
        [[0, 0, 1, 0.3], [0, 1, 0, 0.2], [-1, 0, 0, 0], [0, 0, 0, 1]],
        [[1, 0, 0, 0], [0, 1, 0, -0.2], [0, 0, 1, 0.4], [0, 0, 0, 1]],
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2], [0, 0, 0, 1]],
    ], dtype=float)  # fmt: skip
    Gt = np.array([np.diag([0.1, 0.1, 0.1, 4, 4, 4]), np.diag([0.3, 0.3, 0.1, 9, 9, 9]),
                   np.diag([0.1, 0.1, 0.1, 3, 3, 3])])  # fmt: skip
    Ftip = np.ones((N, 6))
    return (TH, DTH, GRAV, Ftip, MLIST, GLIST, SLIST, thd, dthd, ddthd, gtilde, Mt, Gt,
            20, 10, 18, dt, 8)  # fmt: skip


def test_simulate_control_equals_mr(tmp_path):
    args = _doc_control_setup()
    taumat, thetamat = rm.SimulateControl(*args)
    mr_tau, mr_theta = mr.SimulateControl(*args)  # its plt.show() on Agg: no window
    plt.close("all")
    assert taumat.shape == thetamat.shape == (15, 3)
    close(taumat, mr_tau, 1e-8)
    close(thetamat, mr_theta, 1e-8)
    # the figure only when asked, and to a file
    path = tmp_path / "control.png"
    again = rm.SimulateControl(*args, plot=path)
    assert path.stat().st_size > 1000
    close(again[0], taumat, 0)


def test_computed_torque_random_against_mr():
    rng = np.random.default_rng(5)
    for kind in ("unit", "scaled", "offset"):
        robot = _random_chain(rng, 4, kind=kind)
        th, dth, eint, thd, dthd, ddthd = rng.uniform(-1, 1, (6, 4))
        g = rng.normal(size=3)
        ours = rm.ComputedTorque(th, dth, eint, g, *robot, thd, dthd, ddthd, 2.0, 0.5, 1.5)
        close(ours, mr.ComputedTorque(th, dth, eint, g, *robot, thd, dthd, ddthd, 2.0, 0.5, 1.5))


@pytest.mark.parametrize("seed", range(10))
def test_random_chapter9(seed):
    rng = np.random.default_rng(300 + seed)
    Tf = rng.uniform(0.5, 5)
    t = rng.uniform(0, Tf)
    assert rm.CubicTimeScaling(Tf, t) == pytest.approx(mr.CubicTimeScaling(Tf, t), abs=1e-14)
    assert rm.QuinticTimeScaling(Tf, t) == pytest.approx(mr.QuinticTimeScaling(Tf, t), abs=1e-14)
    a, b = rng.normal(size=(2, 5))
    N = int(rng.integers(2, 30))
    for method in (3, 5):
        close(rm.JointTrajectory(a, b, Tf, N, method), mr.JointTrajectory(a, b, Tf, N, method))
        X0, X1 = _tf(rng), _tf(rng)
        X1 = X0 @ mr.RpToTrans(_rot(rng, 0.2, 2.8), rng.normal(size=3))
        for f, g in ((rm.ScrewTrajectory, mr.ScrewTrajectory),
                     (rm.CartesianTrajectory, mr.CartesianTrajectory)):  # fmt: skip
            ours, theirs = f(X0, X1, Tf, N, method), g(X0, X1, Tf, N, method)
            assert isinstance(ours, list) and len(ours) == len(theirs) == N
            close(np.array(ours), np.array(theirs))


# ================================================================= bad input
def test_bad_shapes_name_the_argument():
    with pytest.raises(ValueError, match="thetalist"):
        rm.InverseDynamics(np.zeros(2), DTH, DDTH, GRAV, FTIP, *ROBOT)
    with pytest.raises(ValueError, match="Mlist"):
        rm.MassMatrix(TH, MLIST[:3], GLIST, SLIST)
    with pytest.raises(ValueError, match="Glist"):
        rm.MassMatrix(TH, MLIST, GLIST[:2], SLIST)
    with pytest.raises(ValueError, match="Slist"):
        rm.MassMatrix(TH, MLIST, GLIST, SLIST.T)
    with pytest.raises(ValueError, match="g"):
        rm.GravityForces(TH, [0, -9.8], *ROBOT)
    with pytest.raises(ValueError, match="Ftipmat"):
        rm.InverseDynamicsTrajectory(np.zeros((5, 3)), np.zeros((5, 3)), np.zeros((5, 3)),
                                     GRAV, np.ones((4, 6)), *ROBOT)  # fmt: skip
    with pytest.raises(ValueError, match="thetalist"):
        rm.FKinSpace(M_RRP, S_RRP, [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        rm.ForwardDynamics([np.nan, 0, 0], DTH, DTH, GRAV, FTIP, *ROBOT)
    with pytest.raises(ValueError, match="R"):
        rm.MatrixLog3(np.ones((3, 3)))  # not a rotation: MR would return garbage
    with pytest.raises(ValueError, match="intRes"):
        rm.ForwardDynamicsTrajectory(TH, DTH, DOC_TAUMAT, GRAV, 0, *ROBOT, 0.1, 0)
    with pytest.raises(ValueError, match="N must be at least 2"):
        rm.JointTrajectory(TH, DTH, 1.0, 1, 3)
    with pytest.raises(ValueError, match="zero"):
        rm.Normalize([0.0, 0.0, 0.0])
    # the numpy fallback (G not at the CoM) rejects NaN too
    robot = _random_chain(np.random.default_rng(3), 3, kind="offset")
    with pytest.raises(ValueError, match="dthetalist"):
        rm.InverseDynamics(TH, [0, np.inf, 0], DDTH, GRAV, FTIP, *robot)
    with pytest.raises(ValueError, match="taulist"):
        rm.ForwardDynamics(TH, DTH, [0, np.nan, 0], GRAV, FTIP, *robot)
