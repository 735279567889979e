"""Modern Robotics library-compatible functions (chapters 3-11), backed by robodyn.

Every function here has the name, argument order, argument shapes and return convention
of the ``modern_robotics`` Python package (Lynch & Park's course library), so that course
code written as ``import modern_robotics as mr`` runs unchanged with::

    from robodyn import mr

The mathematics is robodyn's: chapter 3 calls :mod:`robodyn.spatial`; chapters 4-6 turn
``(M, Slist)`` into a kinematic robodyn :class:`~robodyn.model.model.Model`
(:func:`robodyn.model.poe.from_mr`) and call the compiled :func:`robodyn.kinematics.fk`
and :func:`robodyn.kinematics.jacobian`; chapter 8 (and the chapter 11 controller)
converts ``(Mlist, Glist, Slist, g)`` into a Model and runs the O(n) compiled algorithms
of :mod:`robodyn.dynamics` (RNEA, CRBA, ABA) on it. Converted models are cached (LRU) on
the bytes of the arrays, so loops such as :func:`InverseDynamicsTrajectory` or
:func:`SimulateControl` build them once. An MR screw axis of norm k != 1 (the docstring
robot's first axis is ``[1, 0, 1, 0, 1, 0]``) runs as the unit axis with the joint
coordinate scaled by k.

Conventions are the book's: twists ``[omega, v]``, wrenches ``[m, f]``, ``Slist`` and
``Blist`` hold one screw axis per column (6 x n), ``Mlist`` holds the n + 1 relative link
frames ``M_{i-1,i}`` (the last one is the end-effector in {n}), ``Glist`` the n spatial
inertias at the link centres of mass, ``Ftip`` is the wrench the end-effector applies to
the environment, expressed in the end-effector frame {n+1}.

Differences from the reference library (all deliberate):

* the exponentials and logarithms use robodyn's closed forms with Taylor series near
  angle 0, so they are accurate there instead of snapping to MR's ``NearZero`` (1e-6)
  thresholds; away from those regions the results agree to rounding;
* :func:`ProjectToSO3` returns the true nearest rotation also when ``det(mat) < 0``;
* matrices that should be rotations are checked (to 1e-3, MR's ``TestIfSO3`` tolerance)
  and a ValueError names the argument, instead of silently returning garbage;
* :func:`SimulateControl` draws nothing unless ``plot=`` names a file (never a window;
  an existing file is refused unless ``overwrite=True``);
* ``Ftipmat`` may also be ``0`` or ``None`` for "no tip forces", as MR's docs promise.

Where ``Glist`` entries are not of the form ``[[I, 0], [0, m 1]]`` or a screw axis has a
non-zero pitch (both outside what a robodyn Model represents), the chapter 8 functions
fall back to a short numpy Newton-Euler recursion in MR's notation (MR eqs. 8.50-8.54)
and chapters 4-6 to the numpy products of exponentials of :mod:`robodyn.model.poe`; both
give MR's numbers for any input.
"""

from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np
from numpy.typing import ArrayLike

from . import spatial as _sp
from ._checks import as_array, as_vector
from .errors import ModelError
from .model import poe as _poe

__all__ = [
    # basic helpers
    "NearZero",
    "Normalize",
    # chapter 3
    "RotInv",
    "VecToso3",
    "so3ToVec",
    "AxisAng3",
    "MatrixExp3",
    "MatrixLog3",
    "RpToTrans",
    "TransToRp",
    "TransInv",
    "VecTose3",
    "se3ToVec",
    "Adjoint",
    "ScrewToAxis",
    "AxisAng6",
    "MatrixExp6",
    "MatrixLog6",
    "ProjectToSO3",
    "ProjectToSE3",
    "DistanceToSO3",
    "DistanceToSE3",
    "TestIfSO3",
    "TestIfSE3",
    # chapter 4
    "FKinBody",
    "FKinSpace",
    # chapter 5
    "JacobianBody",
    "JacobianSpace",
    # chapter 6
    "IKinBody",
    "IKinSpace",
    # chapter 8
    "ad",
    "InverseDynamics",
    "MassMatrix",
    "VelQuadraticForces",
    "GravityForces",
    "EndEffectorForces",
    "ForwardDynamics",
    "EulerStep",
    "InverseDynamicsTrajectory",
    "ForwardDynamicsTrajectory",
    # chapter 9
    "CubicTimeScaling",
    "QuinticTimeScaling",
    "JointTrajectory",
    "ScrewTrajectory",
    "CartesianTrajectory",
    # chapter 11
    "ComputedTorque",
    "SimulateControl",
]

#: MR's tolerance of TestIfSO3 / TestIfSE3, also used to accept rounded rotations.
_SO3_TOL = 1e-3
#: MR's NearZero threshold.
_NEAR_ZERO = 1e-6
#: Chains kept in each LRU cache of converted models.
_CACHE_SIZE = 16


# =============================================================== basic helper functions
def NearZero(z: float) -> bool:
    """Whether a scalar is small enough to be treated as zero (``|z| < 1e-6``).

    Parameters
    ----------
    z : float

    Returns
    -------
    bool
    """
    return bool(abs(z) < _NEAR_ZERO)


def Normalize(V: ArrayLike) -> np.ndarray:
    """The unit vector along V.

    Parameters
    ----------
    V : array_like, shape (k,)

    Returns
    -------
    numpy.ndarray, shape (k,)
    """
    V = as_array(V, "V", ())
    n = np.linalg.norm(V)
    if n == 0:
        raise ValueError("V is the zero vector: it has no direction")
    return V / n


# ====================================================== chapter 3: rigid-body motions
def _matrix(x: ArrayLike, name: str, k: int) -> np.ndarray:
    """A single k x k matrix as a float array (MR's functions take one, never a stack)."""
    a = as_array(x, name, (k, k))
    if a.ndim != 2:
        raise ValueError(f"{name} must have shape ({k}, {k}), got {a.shape}")
    return a


def _rotation(R: ArrayLike, name: str) -> np.ndarray:
    """A single 3x3 rotation (checked to MR's TestIfSO3 tolerance) as a float array."""
    R = _matrix(R, name, 3)
    _sp.check_rotation(R, name, _SO3_TOL)
    return R


def _transform_arg(T: ArrayLike, name: str) -> np.ndarray:
    """A single 4x4 rigid transform (checked to MR's TestIfSE3 tolerance)."""
    T = _matrix(T, name, 4)
    _sp.check_transform(T, name, _SO3_TOL)
    return T


def RotInv(R: ArrayLike) -> np.ndarray:
    """Inverse of a rotation matrix, ``R^-1 = R^T`` (MR eq. 3.25).

    Parameters
    ----------
    R : array_like, shape (3, 3)
        A rotation matrix; not checked, its transpose is returned.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
    """
    return as_array(R, "R", (3, 3)).T.copy()


def VecToso3(omg: ArrayLike) -> np.ndarray:
    """The skew-symmetric matrix ``[omg]`` of a 3-vector (MR eq. 3.30).

    Parameters
    ----------
    omg : array_like, shape (3,)
        An angular velocity, or any 3-vector.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
    """
    return _sp.skew(as_vector(omg, "omg", 3))


def so3ToVec(so3mat: ArrayLike) -> np.ndarray:
    """The 3-vector of a skew-symmetric matrix (inverse of :func:`VecToso3`).

    Reads the entries (2, 1), (0, 2), (1, 0) as MR does.

    Parameters
    ----------
    so3mat : array_like, shape (3, 3)
        A skew-symmetric matrix (the other entries are not read).

    Returns
    -------
    numpy.ndarray, shape (3,)
    """
    W = as_array(so3mat, "so3mat", (3, 3))
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


def AxisAng3(expc3: ArrayLike) -> tuple[np.ndarray, float]:
    """Unit axis and angle of exponential coordinates ``omega_hat * theta``.

    Parameters
    ----------
    expc3 : array_like, shape (3,)
        Exponential coordinates of a rotation, not zero.

    Returns
    -------
    omghat : numpy.ndarray, shape (3,)
    theta : float
    """
    e = as_vector(expc3, "expc3", 3)
    return Normalize(e), float(np.linalg.norm(e))


def MatrixExp3(so3mat: ArrayLike) -> np.ndarray:
    """Matrix exponential of so(3): Rodrigues' formula (MR eq. 3.51).

    Parameters
    ----------
    so3mat : array_like, shape (3, 3)
        ``[omega_hat] theta``.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
        Rotation matrix.
    """
    return _sp.exp3(so3ToVec(so3mat))


def MatrixLog3(R: ArrayLike) -> np.ndarray:
    """Matrix logarithm of a rotation, as the so(3) matrix ``[omega_hat] theta`` (MR 3.2.3.3).

    At ``theta = pi`` the axis sign follows MR: the last non-zero of ``(w_z, w_y, w_x)``
    (checked in that order) is positive.

    Parameters
    ----------
    R : array_like, shape (3, 3)
        Rotation matrix, checked to MR's 1e-3 (as :func:`TestIfSO3`).

    Returns
    -------
    numpy.ndarray, shape (3, 3)
    """
    R = _rotation(R, "R")
    return _sp.skew(_mr_axis_sign(R, _sp.log3(R, check=False)))


def _mr_axis_sign(R: np.ndarray, w: np.ndarray) -> np.ndarray:
    """omega theta of R with MR's sign choice where ``cos theta`` rounds to -1.

    There both ``+w`` and ``-w`` are logarithms; MR takes the one whose last component
    that is not near zero, in the order z, y, x, is positive.
    """
    if (np.trace(R) - 1) / 2 > -1:
        return w
    for k in (2, 1, 0):
        if abs(w[k]) > _NEAR_ZERO:
            return -w if w[k] < 0 else w
    return w


def RpToTrans(R: ArrayLike, p: ArrayLike) -> np.ndarray:
    """Homogeneous transform ``[[R, p], [0, 1]]`` (MR eq. 3.62).

    Parameters
    ----------
    R : array_like, shape (3, 3)
    p : array_like, shape (3,)

    Returns
    -------
    numpy.ndarray, shape (4, 4)
    """
    return _sp.transform(_matrix(R, "R", 3), as_vector(p, "p", 3))


def TransToRp(T: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and position of a homogeneous transform.

    Parameters
    ----------
    T : array_like, shape (4, 4)
        A homogeneous transform (not checked).

    Returns
    -------
    R : numpy.ndarray, shape (3, 3)
    p : numpy.ndarray, shape (3,)
    """
    T = as_array(T, "T", (4, 4))
    return T[:3, :3].copy(), T[:3, 3].copy()


def TransInv(T: ArrayLike) -> np.ndarray:
    """Inverse of a homogeneous transform, ``[[R^T, -R^T p], [0, 1]]`` (MR eq. 3.64).

    Parameters
    ----------
    T : array_like, shape (4, 4)
        A rigid transform; its rotation block is taken as a rotation, unchecked.

    Returns
    -------
    numpy.ndarray, shape (4, 4)
    """
    return _sp.inv_transform(_matrix(T, "T", 4))


def VecTose3(V: ArrayLike) -> np.ndarray:
    """The se(3) matrix ``[[ [omega], v ], [0, 0]]`` of a twist ``[omega, v]`` (MR eq. 3.70).

    Parameters
    ----------
    V : array_like, shape (6,)
        The twist.

    Returns
    -------
    numpy.ndarray, shape (4, 4)
    """
    V = as_vector(V, "V", 6)
    out = np.zeros((4, 4))
    out[:3, :3] = _sp.skew(V[:3])
    out[:3, 3] = V[3:]
    return out


def se3ToVec(se3mat: ArrayLike) -> np.ndarray:
    """The twist ``[omega, v]`` of an se(3) matrix (inverse of :func:`VecTose3`).

    Parameters
    ----------
    se3mat : array_like, shape (4, 4)
        An se(3) matrix; only the entries of ``[omega]`` and v are read.

    Returns
    -------
    numpy.ndarray, shape (6,)
    """
    X = as_array(se3mat, "se3mat", (4, 4))
    return np.array([X[2, 1], X[0, 2], X[1, 0], X[0, 3], X[1, 3], X[2, 3]])


def Adjoint(T: ArrayLike) -> np.ndarray:
    """Adjoint representation ``[Ad_T] = [[R, 0], [[p] R, R]]`` (MR def. 3.20).

    Parameters
    ----------
    T : array_like, shape (4, 4)
        Pose ``T_ab`` of {b} in {a}.

    Returns
    -------
    numpy.ndarray, shape (6, 6)
    """
    return _sp.adjoint(_matrix(T, "T", 4))


def ScrewToAxis(q: ArrayLike, s: ArrayLike, h: float) -> np.ndarray:
    """Screw axis ``S = [s, -s x q + h s]`` through q along the unit vector s, pitch h.

    As in MR, s is used as given (not normalised).

    Parameters
    ----------
    q : array_like, shape (3,)
        A point on the axis.
    s : array_like, shape (3,)
        Unit direction.
    h : float
        Pitch.

    Returns
    -------
    numpy.ndarray, shape (6,)
    """
    q = as_vector(q, "q", 3)
    s = as_vector(s, "s", 3)
    # -s x q = q x s (MR sec. 3.3.2.2)
    return np.concatenate([s, np.cross(q, s) + float(h) * s])


def AxisAng6(expc6: ArrayLike) -> tuple[np.ndarray, float]:
    """Normalised screw axis and distance of exponential coordinates ``S theta``.

    ``theta = |omega theta|``, or ``|v theta|`` for a pure translation (MR sec. 3.3.3.2).

    Parameters
    ----------
    expc6 : array_like, shape (6,)
        Exponential coordinates ``S theta`` of a rigid motion, not zero.

    Returns
    -------
    S : numpy.ndarray, shape (6,)
    theta : float
    """
    e = as_vector(expc6, "expc6", 6)
    theta = float(np.linalg.norm(e[:3]))
    if NearZero(theta):
        theta = float(np.linalg.norm(e[3:]))
    if theta == 0:
        raise ValueError("expc6 is zero: it has no screw axis")
    return e / theta, theta


def MatrixExp6(se3mat: ArrayLike) -> np.ndarray:
    """Matrix exponential of se(3) (MR prop. 3.25).

    Parameters
    ----------
    se3mat : array_like, shape (4, 4)
        ``[S] theta``, an se(3) matrix: only the entries of ``[omega]`` and v are read.

    Returns
    -------
    numpy.ndarray, shape (4, 4)
    """
    return _sp.exp6(se3ToVec(se3mat))


def MatrixLog6(T: ArrayLike) -> np.ndarray:
    """Matrix logarithm of SE(3) as the se(3) matrix ``[S] theta`` (MR alg. 3.3.3.2).

    Parameters
    ----------
    T : array_like, shape (4, 4)
        A rigid transform (checked as by :func:`TestIfSE3`).

    Returns
    -------
    numpy.ndarray, shape (4, 4)
    """
    T = _transform_arg(T, "T")
    S = _sp.log6(T, check=False)
    w = _mr_axis_sign(T[:3, :3], S[:3])
    if w[0] != S[0] or w[1] != S[1] or w[2] != S[2]:
        # theta = pi and MR's axis is the opposite one: v theta = G^-1 p (MR eq. 3.92),
        # which at theta = pi is (I - [w]/2 + [w]^2 / pi^2) p for w = omega theta
        W = _sp.skew(w)
        S = np.concatenate([w, (np.eye(3) - W / 2 + W @ W / np.pi**2) @ T[:3, 3]])
    return VecTose3(S)


def ProjectToSO3(mat: ArrayLike) -> np.ndarray:
    """The rotation nearest to mat (Frobenius norm), by singular value decomposition.

    Parameters
    ----------
    mat : array_like, shape (3, 3)
        Any real matrix, typically a rotation that drifted.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
    """
    return _sp.project_to_so3(as_array(mat, "mat", (3, 3)))


def ProjectToSE3(mat: ArrayLike) -> np.ndarray:
    """The rigid transform nearest to mat: rotation block projected, bottom row reset.

    Parameters
    ----------
    mat : array_like, shape (4, 4)
        A 4x4 matrix; its translation column is kept as it is.

    Returns
    -------
    numpy.ndarray, shape (4, 4)
    """
    return _sp.project_to_se3(as_array(mat, "mat", (4, 4)))


def DistanceToSO3(mat: ArrayLike) -> float:
    """Distance of mat from SO(3): ``||mat^T mat - I||_F``, or 1e9 when ``det(mat) <= 0``.

    Parameters
    ----------
    mat : array_like, shape (3, 3)
        Any real matrix.

    Returns
    -------
    float
    """
    R = as_array(mat, "mat", (3, 3))
    if np.linalg.det(R) <= 0:
        return 1e9
    return float(np.linalg.norm(R.T @ R - np.eye(3)))


def DistanceToSE3(mat: ArrayLike) -> float:
    """Distance of mat from SE(3), or 1e9 when the rotation block has ``det <= 0``.

    The rotation block is replaced by ``R^T R``, the translation by zero, and the Frobenius
    norm of the difference to the identity is returned (MR's definition).

    Parameters
    ----------
    mat : array_like, shape (4, 4)
        Any real 4x4 matrix; only its bottom row and rotation block count.

    Returns
    -------
    float
    """
    T = as_array(mat, "mat", (4, 4))
    R = T[:3, :3]
    if np.linalg.det(R) <= 0:
        return 1e9
    D = np.zeros((4, 4))
    D[:3, :3] = R.T @ R
    D[3, :] = T[3, :]
    return float(np.linalg.norm(D - np.eye(4)))


def TestIfSO3(mat: ArrayLike) -> bool:
    """Whether mat is within 1e-3 of SO(3) (:func:`DistanceToSO3`).

    Parameters
    ----------
    mat : array_like, shape (3, 3)
        Any real matrix, as in :func:`DistanceToSO3`.

    Returns
    -------
    bool
    """
    return bool(abs(DistanceToSO3(mat)) < _SO3_TOL)


def TestIfSE3(mat: ArrayLike) -> bool:
    """Whether mat is within 1e-3 of SE(3) (:func:`DistanceToSE3`).

    Parameters
    ----------
    mat : array_like, shape (4, 4)
        A 4x4 matrix.

    Returns
    -------
    bool
    """
    return bool(abs(DistanceToSE3(mat)) < _SO3_TOL)


# =================================================== chapters 4-6: kinematics of chains
def _screw_list(Slist: ArrayLike, thetalist: ArrayLike, name: str) -> tuple[np.ndarray, np.ndarray]:
    S = as_array(Slist, name, ())
    if S.ndim != 2 or S.shape[0] != 6:
        raise ValueError(f"{name} must have shape (6, n) (screw axes as columns), got {S.shape}")
    theta = as_vector(thetalist, "thetalist", S.shape[1])
    return S, theta


def _axis_norms(S: np.ndarray) -> np.ndarray | None:
    """k_i = |omega_i| (or |v_i| when omega_i = 0); None when every k_i is 1.

    A robodyn joint has a unit axis; ``S_i theta_i = (S_i / k_i)(k_i theta_i)`` runs a
    non-unit MR screw axis as the unit one with the coordinate ``q_i = k_i theta_i``.
    """
    nw = np.linalg.norm(S[:3], axis=0)
    k = np.where(nw > 1e-12, nw, np.linalg.norm(S[3:], axis=0))
    return None if np.all(np.abs(k - 1) < 1e-12) else k


class _KinChain:
    """A compiled-kinematics robodyn Model of (M, Slist), or None where it has none."""

    __slots__ = ("model", "k")

    def __init__(self, M: np.ndarray, S: np.ndarray) -> None:
        self.k = _axis_norms(S)
        self.model = None
        n = S.shape[1]
        if self.k is not None:
            if np.any(self.k == 0):
                return  # a zero screw axis
            S = S / self.k
        # link frames {i} at home: world axes, origin on joint i's axis (q = omega x v for
        # a unit revolute axis, MR sec. 3.3.2.2), so each joint turns about its frame origin
        C = np.zeros((n + 1, 4, 4))
        C[:] = np.eye(4)
        for i in range(n):
            C[i + 1, :3, 3] = np.cross(S[:3, i], S[3:, i])
        Mlist = [_sp.inv_transform(C[i]) @ C[i + 1] for i in range(n)]
        Mlist.append(_sp.inv_transform(C[n]) @ M)
        Glist = [np.eye(6)] * n  # inertia plays no part in kinematics
        try:
            self.model = _poe.from_mr(M, S, Mlist, Glist, gravity=(0.0, 0.0, 0.0))
        except ModelError:
            self.model = None  # helical axis, M not rigid, ...: numpy products of exponentials


_KIN_CACHE: OrderedDict[bytes, _KinChain] = OrderedDict()


def _kin_chain(M: np.ndarray, S: np.ndarray, body: bool) -> _KinChain:
    """The cached kinematic chain of (M, Slist), or of (M, Blist) when ``body``."""
    key = b"".join((bytes([body]), np.int64(S.shape[1]).tobytes(), M.tobytes(), S.tobytes()))
    c = _KIN_CACHE.get(key)
    if c is None:
        # M e^[B theta] = e^[Ad_M B theta] M: the space axes of body axes B (MR eq. 4.15)
        c = _KinChain(M, _sp.adjoint(M) @ S if body else S)
        _KIN_CACHE[key] = c
        if len(_KIN_CACHE) > _CACHE_SIZE:
            _KIN_CACHE.popitem(last=False)
    else:
        _KIN_CACHE.move_to_end(key)
    return c


_EYE4 = np.eye(4)


def _fk(c: _KinChain, theta: np.ndarray) -> np.ndarray:
    from .kinematics import fk

    return fk(c.model, theta if c.k is None else c.k * theta, "ee")


def _jac(c: _KinChain, theta: np.ndarray, kind: str) -> np.ndarray:
    from .kinematics import jacobian

    if c.k is None:
        return jacobian(c.model, theta, "ee", kind=kind)
    return jacobian(c.model, c.k * theta, "ee", kind=kind) * c.k  # J = J_hat K


def _chain_fk(c: _KinChain, M: np.ndarray, A: np.ndarray, theta, body: bool) -> np.ndarray:
    """End-effector pose of the chain ``(M, A)`` (body or space screw axes A, its cached
    ``c``): the compiled fk where it is a robodyn Model, else :mod:`robodyn.model.poe`'s."""
    if c.model is None:
        return (_poe.fk_body if body else _poe.fk_space)(M, A, theta)
    return _fk(c, theta)


def _chain_jacobian(c: _KinChain, A: np.ndarray, theta, body: bool) -> np.ndarray:
    """Body (``body``) or space Jacobian of the chain, as :func:`_chain_fk`."""
    if c.model is None:
        return (_poe.jacobian_body if body else _poe.jacobian_space)(A, theta)
    return _jac(c, theta, "body" if body else "space")


def FKinBody(M: ArrayLike, Blist: ArrayLike, thetalist: ArrayLike) -> np.ndarray:
    """Forward kinematics with body screw axes, ``T = M e^[B1 th1] (...) e^[Bn thn]`` (MR 4.16).

    Parameters
    ----------
    M : array_like, shape (4, 4)
        Home pose of the end-effector.
    Blist : array_like, shape (6, n)
        Body screw axes as columns.
    thetalist : array_like, shape (n,)

    Returns
    -------
    numpy.ndarray, shape (4, 4)
    """
    return _fkin(M, Blist, thetalist, body=True)


def FKinSpace(M: ArrayLike, Slist: ArrayLike, thetalist: ArrayLike) -> np.ndarray:
    """Forward kinematics with space screw axes, ``T = e^[S1 th1] (...) e^[Sn thn] M`` (MR 4.14).

    Parameters
    ----------
    Slist : array_like, shape (6, n)
        Space screw axes as columns.
    M, thetalist
        As in :func:`FKinBody`.

    Returns
    -------
    numpy.ndarray, shape (4, 4)
    """
    return _fkin(M, Slist, thetalist, body=False)


def _fkin(M: ArrayLike, A: ArrayLike, thetalist: ArrayLike, body: bool) -> np.ndarray:
    """FKinBody (``body``: A = Blist) or FKinSpace (A = Slist)."""
    M = _matrix(M, "M", 4)
    A, theta = _screw_list(A, thetalist, "Blist" if body else "Slist")
    return _chain_fk(_kin_chain(M, A, body), M, A, theta, body)


def JacobianBody(Blist: ArrayLike, thetalist: ArrayLike) -> np.ndarray:
    """Body Jacobian ``J_b(theta)`` (MR eq. 5.18), rows ``[omega; v]``.

    Parameters
    ----------
    Blist, thetalist
        As in :func:`FKinBody`.

    Returns
    -------
    numpy.ndarray, shape (6, n)
        Column i: the screw axis of joint i at ``theta``, in the end-effector frame.
    """
    B, theta = _screw_list(Blist, thetalist, "Blist")
    c = _kin_chain(_EYE4, B, True)  # J_b depends on Blist only: take M = I
    return _chain_jacobian(c, B, theta, True)


def JacobianSpace(Slist: ArrayLike, thetalist: ArrayLike) -> np.ndarray:
    """Space Jacobian ``J_s(theta)`` (MR eq. 5.11), rows ``[omega; v]``.

    Parameters
    ----------
    Slist : array_like, shape (6, n)
        As in :func:`FKinSpace`.
    thetalist : array_like, shape (n,)

    Returns
    -------
    numpy.ndarray, shape (6, n)
        Column i: the screw axis of joint i at ``theta``, in the space frame.
    """
    S, theta = _screw_list(Slist, thetalist, "Slist")
    c = _kin_chain(_EYE4, S, False)  # J_s depends on Slist only: take M = I
    return _chain_jacobian(c, S, theta, False)


#: MR's iteration cap of the Newton-Raphson inverse kinematics.
_IK_MAX_ITERATIONS = 20


def _ik_converged(V: np.ndarray, eomg: float, ev: float) -> bool:
    return bool(np.linalg.norm(V[:3]) <= eomg and np.linalg.norm(V[3:]) <= ev)


def IKinBody(
    Blist: ArrayLike, M: ArrayLike, T: ArrayLike, thetalist0: ArrayLike, eomg: float, ev: float
) -> tuple[np.ndarray, bool]:
    """Inverse kinematics by Newton-Raphson on the body twist error (MR sec. 6.2.2).

    ``theta <- theta + J_b^+ V_b`` with ``[V_b] = log(T_sb^-1 T_sd)``, at most 20 times,
    until ``|omega_b| <= eomg`` and ``|v_b| <= ev``.

    Parameters
    ----------
    Blist : array_like, shape (6, n)
    M : array_like, shape (4, 4)
        Home pose of the end-effector.
    T : array_like, shape (4, 4)
        Desired end-effector pose T_sd.
    thetalist0 : array_like, shape (n,)
        Initial guess.
    eomg, ev : float
        Orientation and position tolerances.

    Returns
    -------
    thetalist : numpy.ndarray, shape (n,)
    success : bool
    """
    return _ikin(Blist, M, T, thetalist0, eomg, ev, body=True)


def IKinSpace(
    Slist: ArrayLike, M: ArrayLike, T: ArrayLike, thetalist0: ArrayLike, eomg: float, ev: float
) -> tuple[np.ndarray, bool]:
    """Inverse kinematics by Newton-Raphson on the space twist error (MR sec. 6.2.2).

    ``theta <- theta + J_s^+ V_s`` with ``V_s = [Ad_{T_sb}] V_b``, at most 20 times, until
    ``|omega_s| <= eomg`` and ``|v_s| <= ev``.

    Parameters
    ----------
    Slist : array_like, shape (6, n)
    M, T, thetalist0, eomg, ev
        As in :func:`IKinBody`.

    Returns
    -------
    thetalist : numpy.ndarray, shape (n,)
    success : bool
    """
    return _ikin(Slist, M, T, thetalist0, eomg, ev, body=False)


def _ikin(A, M, T, thetalist0, eomg: float, ev: float, body: bool) -> tuple[np.ndarray, bool]:
    """IKinBody (``body``: A = Blist, the error is V_b) or IKinSpace (A = Slist, V_s)."""
    A, theta = _screw_list(A, thetalist0, "Blist" if body else "Slist")
    M = _transform_arg(M, "M")
    T = _transform_arg(T, "T")
    c = _kin_chain(M, A, body)

    def error(th: np.ndarray) -> np.ndarray:
        T_sb = _chain_fk(c, M, A, th, body)
        Vb = _sp.log6(_sp.inv_transform(T_sb) @ T, check=False)  # [V_b] = log(T_bs T_sd)
        return Vb if body else _sp.adjoint(T_sb) @ Vb  # V_s = [Ad_{T_sb}] V_b

    theta = theta.copy()
    V = error(theta)
    i = 0
    while not _ik_converged(V, eomg, ev) and i < _IK_MAX_ITERATIONS:
        J = _chain_jacobian(c, A, theta, body)
        theta = theta + np.linalg.pinv(J) @ V  # Newton-Raphson step (MR 6.7)
        i += 1
        V = error(theta)
    return theta, _ik_converged(V, eomg, ev)


# ============================================== chapter 8: dynamics of open chains
def ad(V: ArrayLike) -> np.ndarray:
    """Lie bracket matrix ``[ad_V] = [[[omega], 0], [[v], [omega]]]`` (MR def. 8.2).

    Parameters
    ----------
    V : array_like, shape (6,)
        Twist ``[omega, v]``; ``ad(V1) @ V2`` is the Lie bracket of V1 and V2.

    Returns
    -------
    numpy.ndarray, shape (6, 6)
    """
    return _sp.ad(as_vector(V, "V", 6))


class _Chain:
    """One MR chain description with its robodyn Models (one per gravity) or the fallback.

    robodyn joints have unit axes; an MR screw axis ``S_i`` of norm ``k_i`` (``|omega_i|``,
    or ``|v_i|`` for a prismatic joint) is the unit axis ``S_i / k_i`` driven through the
    ratio k_i: ``q_i = k_i theta_i``, ``tau_i = k_i tau_hat_i`` (``S theta = (S/k)(k theta)``),
    so ``M = K M_hat K`` with ``K = diag(k)``.
    """

    __slots__ = ("n", "Mlist", "Glist", "Slist", "k", "models", "fallback", "tip")

    def __init__(self, Mlist: np.ndarray, Glist: np.ndarray, Slist: np.ndarray) -> None:
        self.n = Slist.shape[1]
        self.Mlist = Mlist
        self.Glist = Glist
        self.Slist = Slist
        self.k = _axis_norms(Slist)
        self.models: OrderedDict[bytes, object] = OrderedDict()
        self.fallback = self.k is not None and bool(np.any(self.k == 0))  # a zero screw axis
        self.tip = None  # (body, 6x6 map) of the end-effector wrench, see _tip_wrenches

    def model(self, g: np.ndarray | None):
        """The robodyn Model with gravity g (None: any gravity), or None for the fallback."""
        if self.fallback:
            return None
        if g is None:
            if self.models:
                return next(iter(self.models.values()))
            g = np.array([0.0, 0.0, -9.81])
        key = g.tobytes()
        m = self.models.get(key)
        if m is not None:
            return m
        M = np.eye(4)
        for Mi in self.Mlist:  # M = M_01 M_12 ... M_n,n+1 (end-effector home pose)
            M = M @ Mi
        S = self.Slist if self.k is None else self.Slist / self.k
        try:
            m = _poe.from_mr(M, S, list(self.Mlist), list(self.Glist), gravity=g)
        except ModelError:
            # not a robodyn Model (G not at the CoM, a helical screw axis, M_(i-1,i) not
            # rigid): MR's numbers come from the numpy recursion below
            self.fallback = True
            return None
        self.models[key] = m
        if len(self.models) > 4:
            self.models.popitem(last=False)
        return m


_CACHE: OrderedDict[bytes, _Chain] = OrderedDict()


def _chain(Mlist: ArrayLike, Glist: ArrayLike, Slist: ArrayLike) -> _Chain:
    """The checked arrays of an MR chain, cached (LRU) on their bytes and shapes."""
    try:
        S = np.asarray(Slist, dtype=float)
        Ml = np.asarray(Mlist, dtype=float)
        Gl = np.asarray(Glist, dtype=float)
    except (TypeError, ValueError):
        S = Ml = Gl = None
    if S is not None:
        shapes = np.array([*S.shape, -1, *Ml.shape, -1, *Gl.shape], dtype=np.int64)
        key = b"".join((shapes.tobytes(), S.tobytes(), Ml.tobytes(), Gl.tobytes()))
        c = _CACHE.get(key)
        if c is not None:  # same bytes as a chain checked before
            _CACHE.move_to_end(key)
            return c
    S = as_array(Slist, "Slist", ())
    if S.ndim != 2 or S.shape[0] != 6:
        raise ValueError(f"Slist must have shape (6, n) (screw axes as columns), got {S.shape}")
    n = S.shape[1]
    Ml = as_array(Mlist, "Mlist", (4, 4))
    if Ml.shape != (n + 1, 4, 4):
        raise ValueError(
            f"Mlist must hold n + 1 = {n + 1} transforms M_(i-1,i) (the last one the "
            f"end-effector in {{n}}), shape ({n + 1}, 4, 4), got {Ml.shape}"
        )
    Gl = as_array(Glist, "Glist", (6, 6))
    if Gl.shape != (n, 6, 6):
        raise ValueError(f"Glist must have shape ({n}, 6, 6), got {Gl.shape}")
    c = _Chain(Ml.copy(), Gl.copy(), np.ascontiguousarray(S))
    _CACHE[key] = c
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return c


def _vec(x: ArrayLike, name: str, n: int) -> np.ndarray:
    """x as a float (n,) vector; a float64 (n,) array passes as is (the kernels reject
    NaN and inf themselves, and so does the numpy fallback)."""
    if type(x) is np.ndarray and x.dtype == np.float64 and x.shape == (n,):
        return x
    return as_vector(x, name, n)


def _tip_wrenches(c: _Chain, model, Ftip: np.ndarray | None) -> np.ndarray | None:
    """MR's Ftip as robodyn's per-body external wrenches f_ext, (nb, 6) or (N, nb, 6).

    The end-effector pushes the environment with F_tip, so the environment pushes the
    last body with -F_tip; moved to the body frame, ``F_b = [Ad_{T_eb}]^T F_tip`` with
    ``[Ad_{T_eb}]^T = [[R, [p] R], [0, R]]`` for ``(R, p) = T_be`` (MR eq. 3.98).
    """
    if Ftip is None:
        return None
    if c.tip is None:
        f = model.frame_id("ee")
        R, p = model.frame_R[f], model.frame_p[f]
        X = np.zeros((6, 6))
        X[:3, :3] = R
        X[:3, 3:] = _sp.skew(p) @ R
        X[3:, 3:] = R
        c.tip = (int(model.frame_body[f]), X)
    b, X = c.tip
    fe = np.zeros((*Ftip.shape[:-1], model.nb, 6))
    fe[..., b, :] = -(Ftip @ X.T)
    return fe


def _dynamics():
    """The robodyn.dynamics module (imported on first use)."""
    from . import dynamics

    return dynamics


def _gravity(g: ArrayLike) -> np.ndarray:
    return np.ascontiguousarray(as_vector(g, "g", 3))


def _wrench(Ftip: ArrayLike | None, name: str = "Ftip") -> np.ndarray | None:
    """Ftip as (6,), or None when it is absent or zero (the kernels then skip it)."""
    if Ftip is None:
        return None
    F = as_vector(Ftip, name, 6)
    return F if F.any() else None


def _rnea_numpy(c: _Chain, theta, dtheta, ddtheta, g, Ftip) -> np.ndarray:
    """Newton-Euler inverse dynamics in MR's notation (MR eqs. 8.50-8.54), numpy.

    Used only for chains a robodyn Model cannot hold (see the module docstring).
    """
    for x, name in ((theta, "thetalist"), (dtheta, "dthetalist"), (ddtheta, "ddthetalist")):
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name} contains NaN or inf")
    n = c.n
    A = np.zeros((n, 6))  # screw axis A_i of joint i in frame {i}
    Ad_i = [np.eye(6)] * (n + 1)  # [Ad_{T_{i,i-1}}]
    V = np.zeros((n + 1, 6))
    dV = np.zeros((n + 1, 6))
    dV[0, 3:] = -g  # gravity as a base acceleration, dV_0 = [0, -g]
    M_i = np.eye(4)
    for i in range(n):
        M_i = M_i @ c.Mlist[i]
        A[i] = _sp.adjoint(_sp.inv_transform(M_i)) @ c.Slist[:, i]  # A_i = [Ad_{M_i^-1}] S_i
        T = _sp.exp6(-A[i] * theta[i]) @ _sp.inv_transform(c.Mlist[i])  # T_{i,i-1}
        Ad_i[i] = _sp.adjoint(T)
        V[i + 1] = Ad_i[i] @ V[i] + A[i] * dtheta[i]  # (8.50)
        dV[i + 1] = (
            Ad_i[i] @ dV[i] + (_sp.ad(V[i + 1]) @ A[i]) * dtheta[i] + A[i] * ddtheta[i]
        )  # (8.51)
    Ad_i[n] = _sp.adjoint(_sp.inv_transform(c.Mlist[n]))  # T_{n+1,n} = M_{n,n+1}^-1
    F = np.zeros(6) if Ftip is None else np.array(Ftip, dtype=float)  # F_{n+1} = F_tip
    tau = np.zeros(n)
    for i in range(n - 1, -1, -1):
        G = c.Glist[i]
        F = Ad_i[i + 1].T @ F + G @ dV[i + 1] - _sp.ad(V[i + 1]).T @ (G @ V[i + 1])  # (8.52)
        tau[i] = F @ A[i]  # (8.53)
    return tau


def _id(c: _Chain, theta, dtheta, ddtheta, g, Ftip) -> np.ndarray:
    """Inverse dynamics on chain c for one state (n,) or a batch (N, n)."""
    model = c.model(g)
    if model is None:
        if theta.ndim == 1:
            return _rnea_numpy(c, theta, dtheta, ddtheta, g, Ftip)
        F = [None] * len(theta) if Ftip is None else Ftip
        return np.array([_rnea_numpy(c, *x, g, f) for x, f in zip(zip(theta, dtheta, ddtheta), F)])
    k = c.k
    fe = _tip_wrenches(c, model, Ftip)
    if k is None:
        return _dynamics().inverse_dynamics(model, theta, dtheta, ddtheta, fe)
    return k * _dynamics().inverse_dynamics(model, k * theta, k * dtheta, k * ddtheta, fe)


def _scaled(c: _Chain, f, model, *state: np.ndarray) -> np.ndarray:
    """Joint forces ``f(model, *state)`` in MR's coordinates: for non-unit screw axes
    (ratios k, see :class:`_Chain`) ``k * f(model, k * x, ...)`` (``tau = K tau_hat``)."""
    k = c.k
    if k is None:
        return f(model, *state)
    return k * f(model, *(k * x for x in state))


def _mass(c: _Chain, theta) -> np.ndarray:
    model = c.model(None)
    if model is None:
        n = c.n
        z3, zn = np.zeros(3), np.zeros(n)
        return np.stack([_rnea_numpy(c, theta, zn, e, z3, None) for e in np.eye(n)], axis=1)
    k = c.k
    if k is None:
        return _dynamics().mass_matrix(model, theta)
    return k[:, None] * _dynamics().mass_matrix(model, k * theta) * k  # M = K M_hat K


def _fd(c: _Chain, theta, dtheta, tau, g, Ftip) -> np.ndarray:
    model = c.model(g)
    if model is None:
        if not np.all(np.isfinite(tau)):
            raise ValueError("taulist contains NaN or inf")
        h = _rnea_numpy(c, theta, dtheta, np.zeros(c.n), g, Ftip)
        return np.linalg.solve(_mass(c, theta), tau - h)  # MR eq. 8.1 solved for ddtheta
    k = c.k
    fe = _tip_wrenches(c, model, Ftip)
    if k is None:
        return _dynamics().forward_dynamics(model, theta, dtheta, tau, fe)
    return _dynamics().forward_dynamics(model, k * theta, k * dtheta, tau / k, fe) / k


def InverseDynamics(
    thetalist: ArrayLike,
    dthetalist: ArrayLike,
    ddthetalist: ArrayLike,
    g: ArrayLike,
    Ftip: ArrayLike,
    Mlist: ArrayLike,
    Glist: ArrayLike,
    Slist: ArrayLike,
) -> np.ndarray:
    """Joint forces ``tau = M(theta) ddtheta + c(theta, dtheta) + g(theta) + J^T Ftip``.

    Recursive Newton-Euler (MR eqs. 8.50-8.54), O(n).

    Parameters
    ----------
    thetalist, dthetalist, ddthetalist : array_like, shape (n,)
    g : array_like, shape (3,)
        Gravity in the space frame.
    Ftip : array_like, shape (6,)
        Wrench applied by the end-effector, in frame {n+1}.
    Mlist : array_like, shape (n + 1, 4, 4)
        ``M_{i-1,i}``: the home pose of link frame {i} (at link i's centre of mass) in
        {i-1}; the last one is the end-effector frame {n+1} in {n}.
    Glist : array_like, shape (n, 6, 6)
        Spatial inertia ``[[I_i, 0], [0, m_i 1]]`` of link i in its frame {i}.
    Slist : array_like, shape (6, n)
        Screw axes of the joints at home in the space frame, as columns.

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    c = _chain(Mlist, Glist, Slist)
    theta, dtheta = _vec(thetalist, "thetalist", c.n), _vec(dthetalist, "dthetalist", c.n)
    ddtheta = _vec(ddthetalist, "ddthetalist", c.n)
    return _id(c, theta, dtheta, ddtheta, _gravity(g), _wrench(Ftip))


def MassMatrix(thetalist: ArrayLike, Mlist: ArrayLike, Glist: ArrayLike, Slist: ArrayLike):
    """Mass matrix ``M(theta)`` (MR eq. 8.1), by the composite rigid body algorithm.

    Parameters
    ----------
    thetalist : array_like, shape (n,)
    Mlist, Glist, Slist
        The chain, as in :func:`InverseDynamics`.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        Symmetric; positive definite unless a joint moves no inertia.
    """
    c = _chain(Mlist, Glist, Slist)
    return _mass(c, _vec(thetalist, "thetalist", c.n))


def VelQuadraticForces(
    thetalist: ArrayLike,
    dthetalist: ArrayLike,
    Mlist: ArrayLike,
    Glist: ArrayLike,
    Slist: ArrayLike,
) -> np.ndarray:
    """Coriolis and centripetal forces ``c(theta, dtheta)`` (MR eq. 8.1).

    Parameters
    ----------
    thetalist, dthetalist : array_like, shape (n,)
    Mlist, Glist, Slist
        The chain, as in :func:`InverseDynamics`.

    Returns
    -------
    numpy.ndarray, shape (n,)
        Quadratic in dtheta: ``c(theta, s dtheta) = s^2 c(theta, dtheta)``.
    """
    c = _chain(Mlist, Glist, Slist)
    theta, dtheta = _vec(thetalist, "thetalist", c.n), _vec(dthetalist, "dthetalist", c.n)
    model = c.model(None)
    if model is None:
        return _rnea_numpy(c, theta, dtheta, np.zeros(c.n), np.zeros(3), None)
    return _scaled(c, _dynamics().velocity_forces, model, theta, dtheta)


def GravityForces(
    thetalist: ArrayLike, g: ArrayLike, Mlist: ArrayLike, Glist: ArrayLike, Slist: ArrayLike
) -> np.ndarray:
    """Gravity forces ``g(theta)`` (MR eq. 8.1).

    The joint forces that hold the chain at rest against the gravity ``g``.

    Parameters
    ----------
    thetalist : array_like, shape (n,)
    g : array_like, shape (3,)
        Gravity in the space frame.
    Mlist, Glist, Slist
        The chain, as in :func:`InverseDynamics`.

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    c = _chain(Mlist, Glist, Slist)
    theta, g = _vec(thetalist, "thetalist", c.n), _gravity(g)
    model = c.model(g)
    if model is None:
        return _rnea_numpy(c, theta, np.zeros(c.n), np.zeros(c.n), g, None)
    return _scaled(c, _dynamics().gravity_forces, model, theta)


def EndEffectorForces(
    thetalist: ArrayLike, Ftip: ArrayLike, Mlist: ArrayLike, Glist: ArrayLike, Slist: ArrayLike
) -> np.ndarray:
    """Joint forces ``J_b^T(theta) Ftip`` that produce the tip wrench alone (MR eq. 8.1).

    Parameters
    ----------
    thetalist : array_like, shape (n,)
    Ftip : array_like, shape (6,)
        As in :func:`InverseDynamics`.
    Mlist, Glist, Slist
        The chain, as in :func:`InverseDynamics`.

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    c = _chain(Mlist, Glist, Slist)
    theta, F = _vec(thetalist, "thetalist", c.n), as_vector(Ftip, "Ftip", 6)
    model = c.model(None)
    if model is None:
        return _rnea_numpy(c, theta, np.zeros(c.n), np.zeros(c.n), np.zeros(3), F)
    from .kinematics import jacobian

    def tip_forces(m, th: np.ndarray) -> np.ndarray:
        return jacobian(m, th, "ee", kind="body").T @ F  # tau = J_b^T F_tip (MR 5.26)

    return _scaled(c, tip_forces, model, theta)


def ForwardDynamics(
    thetalist: ArrayLike,
    dthetalist: ArrayLike,
    taulist: ArrayLike,
    g: ArrayLike,
    Ftip: ArrayLike,
    Mlist: ArrayLike,
    Glist: ArrayLike,
    Slist: ArrayLike,
) -> np.ndarray:
    """Joint accelerations ``ddtheta = M^-1 (tau - c - g - J^T Ftip)`` (MR eq. 8.1).

    Articulated-body algorithm, O(n).

    Parameters
    ----------
    thetalist, dthetalist, taulist : array_like, shape (n,)
    g, Ftip, Mlist, Glist, Slist
        As in :func:`InverseDynamics`.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The joint accelerations ``ddtheta``.
    """
    c = _chain(Mlist, Glist, Slist)
    theta, dtheta = _vec(thetalist, "thetalist", c.n), _vec(dthetalist, "dthetalist", c.n)
    tau = _vec(taulist, "taulist", c.n)
    return _fd(c, theta, dtheta, tau, _gravity(g), _wrench(Ftip))


def EulerStep(
    thetalist: ArrayLike, dthetalist: ArrayLike, ddthetalist: ArrayLike, dt: float
) -> tuple[np.ndarray, np.ndarray]:
    """One first-order Euler step of the joint state.

    Parameters
    ----------
    thetalist, dthetalist, ddthetalist : array_like, shape (n,)
    dt : float

    Returns
    -------
    thetalistNext : numpy.ndarray, shape (n,)
        ``theta + dt dtheta``.
    dthetalistNext : numpy.ndarray, shape (n,)
        ``dtheta + dt ddtheta``.
    """
    theta = as_array(thetalist, "thetalist", ())
    dtheta = as_array(dthetalist, "dthetalist", theta.shape)
    ddtheta = as_array(ddthetalist, "ddthetalist", theta.shape)
    return theta + dt * dtheta, dtheta + dt * ddtheta


def _state_matrix(x: ArrayLike, name: str, N: int | None, n: int) -> np.ndarray:
    a = as_array(x, name, (n,))
    if a.ndim != 2 or (N is not None and a.shape[0] != N):
        want = f"({'N' if N is None else N}, {n})"
        raise ValueError(f"{name} must have shape {want}, got {a.shape}")
    return np.ascontiguousarray(a)


def _tip_matrix(Ftipmat: ArrayLike | None, N: int) -> np.ndarray:
    """Ftipmat as (N, 6); 0 or None mean no tip forces."""
    if Ftipmat is None or (np.ndim(Ftipmat) == 0 and float(Ftipmat) == 0.0):
        return np.zeros((N, 6))
    return _state_matrix(Ftipmat, "Ftipmat", N, 6)


def _tip_rows(F: np.ndarray) -> list:
    """The rows of an (N, 6) Ftipmat, None for the zero rows (the kernels skip those)."""
    return [f if f.any() else None for f in F]


def InverseDynamicsTrajectory(
    thetamat: ArrayLike,
    dthetamat: ArrayLike,
    ddthetamat: ArrayLike,
    g: ArrayLike,
    Ftipmat: ArrayLike,
    Mlist: ArrayLike,
    Glist: ArrayLike,
    Slist: ArrayLike,
) -> np.ndarray:
    """Joint forces along a trajectory: :func:`InverseDynamics` for every row, as a batch.

    One call of the compiled recursive Newton-Euler algorithm takes all N rows.

    Parameters
    ----------
    thetamat, dthetamat, ddthetamat : array_like, shape (N, n)
    g : array_like, shape (3,)
    Ftipmat : array_like, shape (N, 6), or 0 / None for no tip forces
    Mlist, Glist, Slist
        The chain, as in :func:`InverseDynamics`.

    Returns
    -------
    numpy.ndarray, shape (N, n)
    """
    c = _chain(Mlist, Glist, Slist)
    n = c.n
    Q = _state_matrix(thetamat, "thetamat", None, n)
    N = Q.shape[0]
    V = _state_matrix(dthetamat, "dthetamat", N, n)
    A = _state_matrix(ddthetamat, "ddthetamat", N, n)
    F = _tip_matrix(Ftipmat, N)
    g = _gravity(g)
    return _id(c, Q, V, A, g, F if F.any() else None)  # one batch call


def ForwardDynamicsTrajectory(
    thetalist: ArrayLike,
    dthetalist: ArrayLike,
    taumat: ArrayLike,
    g: ArrayLike,
    Ftipmat: ArrayLike,
    Mlist: ArrayLike,
    Glist: ArrayLike,
    Slist: ArrayLike,
    dt: float,
    intRes: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Simulate an open-loop torque history with Euler steps (MR sec. 8.5).

    Row k + 1 of the result is the state after ``intRes`` Euler steps of ``dt / intRes``
    under the torques ``taumat[k]`` and tip wrench ``Ftipmat[k]``; row 0 is the initial
    state (the last torque row is not used, as in MR).

    Parameters
    ----------
    thetalist, dthetalist : array_like, shape (n,)
        Initial state.
    taumat : array_like, shape (N, n)
        Joint forces; row k acts from row k to row k + 1.
    g, Ftipmat, Mlist, Glist, Slist
        As in :func:`InverseDynamicsTrajectory`.
    dt : float
        Time between torque rows.
    intRes : int
        Euler steps per row (>= 1).

    Returns
    -------
    thetamat : numpy.ndarray, shape (N, n)
    dthetamat : numpy.ndarray, shape (N, n)
    """
    c = _chain(Mlist, Glist, Slist)
    n = c.n
    theta = as_vector(thetalist, "thetalist", n).copy()
    dtheta = as_vector(dthetalist, "dthetalist", n).copy()
    tau = _state_matrix(taumat, "taumat", None, n)
    N = tau.shape[0]
    Fk = _tip_rows(_tip_matrix(Ftipmat, N))
    g = _gravity(g)
    intRes = _int_res(intRes)
    h = float(dt) / intRes
    thetamat = np.empty((N, n))
    dthetamat = np.empty((N, n))
    thetamat[0], dthetamat[0] = theta, dtheta
    for k in range(N - 1):
        theta, dtheta = _euler_row(c, theta, dtheta, tau[k], g, Fk[k], h, intRes)
        thetamat[k + 1], dthetamat[k + 1] = theta, dtheta
    return thetamat, dthetamat


class _FlatChart:
    """theta (+) d = theta + d: MR's chains have 1-dof joints (robodyn.sim's Chart API)."""

    flat = True

    @staticmethod
    def plus(q, d):
        return q + d


def _euler_row(c: _Chain, theta, dtheta, tau, g, Ftip, h: float, steps: int) -> tuple:
    """The state after ``steps`` explicit Euler steps of length h under the joint forces tau
    and the tip wrench Ftip (MR's EulerStep repeated; robodyn.sim's explicit Euler)."""
    from .sim.integrators import euler_step

    def rate(t, th, dth, z):
        return _fd(c, th, dth, tau, g, Ftip), None

    for _ in range(steps):
        theta, dtheta, _, _ = euler_step(_FlatChart, rate, 0.0, theta, dtheta, None, h)
    return theta, dtheta


def _int_res(intRes: int) -> int:
    k = int(intRes)
    if k != intRes or k < 1:
        raise ValueError(f"intRes must be an integer >= 1, got {intRes!r}")
    return k


# ========================================================= chapter 9: trajectories
def CubicTimeScaling(Tf: float, t: float | ArrayLike) -> float | np.ndarray:
    """Cubic time scaling ``s(t) = 3 (t/Tf)^2 - 2 (t/Tf)^3`` (MR sec. 9.2.2.1).

    :class:`robodyn.trajectory.CubicScaling` (held at 0 before and 1 after [0, Tf]).

    Parameters
    ----------
    Tf : float
        Total time.
    t : float or array_like
        Time(s) in ``[0, Tf]``.

    Returns
    -------
    float or numpy.ndarray (shape of t)
    """
    from .trajectory import CubicScaling

    return CubicScaling(Tf)(t)[0]


def QuinticTimeScaling(Tf: float, t: float | ArrayLike) -> float | np.ndarray:
    """Quintic time scaling ``s(t) = 10 r^3 - 15 r^4 + 6 r^5``, ``r = t / Tf``.

    Zero velocity and acceleration at both ends; :class:`robodyn.trajectory.QuinticScaling`.

    Parameters
    ----------
    Tf : float
    t : float or array_like

    Returns
    -------
    float or numpy.ndarray (shape of t)
    """
    from .trajectory import QuinticScaling

    return QuinticScaling(Tf)(t)[0]


def _scaling(Tf: float, N: int, method: int):
    """MR's N equally spaced times 0 .. Tf and its time scaling (3: cubic, else quintic)."""
    from .trajectory import CubicScaling, QuinticScaling

    N = int(N)
    if N < 2:
        raise ValueError(f"N must be at least 2 (start and end), got {N}")
    t = (float(Tf) / (N - 1.0)) * np.arange(N)
    return t, (CubicScaling(Tf) if method == 3 else QuinticScaling(Tf))


def JointTrajectory(
    thetastart: ArrayLike, thetaend: ArrayLike, Tf: float, N: int, method: int
) -> np.ndarray:
    """Straight line in joint space, ``theta(s) = theta_start + s (theta_end - theta_start)``.

    :func:`robodyn.trajectory.joint_trajectory` sampled at MR's N times.

    Parameters
    ----------
    thetastart, thetaend : array_like, shape (n,)
    Tf : float
        Total time.
    N : int
        Number of points (>= 2), ``Tf / (N - 1)`` apart.
    method : int
        3: cubic time scaling, 5: quintic.

    Returns
    -------
    numpy.ndarray, shape (N, n)
    """
    from .trajectory import joint_trajectory

    a = as_array(thetastart, "thetastart", ())
    if a.ndim != 1:
        raise ValueError(f"thetastart must have shape (n,), got {a.shape}")
    b = as_vector(thetaend, "thetaend", a.shape[0])
    t, scaling = _scaling(Tf, N, method)
    return joint_trajectory(a, b, time_scaling=scaling)(t)[0]


def ScrewTrajectory(
    Xstart: ArrayLike, Xend: ArrayLike, Tf: float, N: int, method: int
) -> list[np.ndarray]:
    """Screw motion ``X(s) = X_start exp(log(X_start^-1 X_end) s)`` (MR eq. 9.7):
    :func:`robodyn.trajectory.screw_trajectory` sampled at MR's N times.

    Parameters
    ----------
    Xstart, Xend : array_like, shape (4, 4)
    Tf : float
    N : int
    method : int
        3: cubic, 5: quintic.

    Returns
    -------
    list of N numpy.ndarray, shape (4, 4)
    """
    from .trajectory import screw_trajectory

    return _sampled_poses(screw_trajectory, Xstart, Xend, Tf, N, method)


def CartesianTrajectory(
    Xstart: ArrayLike, Xend: ArrayLike, Tf: float, N: int, method: int
) -> list[np.ndarray]:
    """Straight line of the origin with a decoupled rotation (MR eqs. 9.8-9.9):
    :func:`robodyn.trajectory.cartesian_trajectory` sampled at MR's N times.

    Parameters and result as in :func:`ScrewTrajectory`.
    """
    from .trajectory import cartesian_trajectory

    return _sampled_poses(cartesian_trajectory, Xstart, Xend, Tf, N, method)


def _sampled_poses(trajectory, Xstart, Xend, Tf: float, N: int, method: int) -> list:
    """The N poses of ``trajectory(Xstart, Xend, Tf)`` (a robodyn.trajectory pose path) at
    MR's times, with its time scaling."""
    X0 = _transform_arg(Xstart, "Xstart")
    X1 = _transform_arg(Xend, "Xend")
    t, scaling = _scaling(Tf, N, method)
    return list(trajectory(X0, X1, Tf, time_scaling=scaling)(t)[0])


# ========================================================= chapter 11: robot control
def ComputedTorque(
    thetalist: ArrayLike,
    dthetalist: ArrayLike,
    eint: ArrayLike,
    g: ArrayLike,
    Mlist: ArrayLike,
    Glist: ArrayLike,
    Slist: ArrayLike,
    thetalistd: ArrayLike,
    dthetalistd: ArrayLike,
    ddthetalistd: ArrayLike,
    Kp: float,
    Ki: float,
    Kd: float,
) -> np.ndarray:
    """Computed-torque control law (MR sec. 11.4.1).

    ``tau = M(theta) (Kp e + Ki (eint + e) + Kd de) + h(theta, dtheta) + M ddtheta_d`` with
    ``e = theta_d - theta`` (MR's library adds the current error to eint). Since
    ``M a + h = InverseDynamics(theta, dtheta, a)``, it is one Newton-Euler pass with
    ``a = ddtheta_d + Kp e + Ki (eint + e) + Kd de``.

    Parameters
    ----------
    thetalist, dthetalist : array_like, shape (n,)
        Measured state.
    eint : array_like, shape (n,)
        Time integral of the joint error.
    g : array_like, shape (3,)
        Gravity of the controller's model.
    Mlist : array_like, shape (n + 1, 4, 4)
    Glist : array_like, shape (n, 6, 6)
    Slist : array_like, shape (6, n)
    thetalistd, dthetalistd, ddthetalistd : array_like, shape (n,)
        Reference position, velocity and acceleration.
    Kp, Ki, Kd : float
        Gains (the same for every joint).

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    c = _chain(Mlist, Glist, Slist)
    n = c.n
    theta = as_vector(thetalist, "thetalist", n)
    dtheta = as_vector(dthetalist, "dthetalist", n)
    return _computed_torque(
        c,
        theta,
        dtheta,
        as_vector(eint, "eint", n),
        _gravity(g),
        as_vector(thetalistd, "thetalistd", n),
        as_vector(dthetalistd, "dthetalistd", n),
        as_vector(ddthetalistd, "ddthetalistd", n),
        float(Kp),
        float(Ki),
        float(Kd),
    )


def _computed_torque(c, theta, dtheta, eint, g, thd, dthd, ddthd, Kp, Ki, Kd) -> np.ndarray:
    e = thd - theta
    a = ddthd + Kp * e + Ki * (eint + e) + Kd * (dthd - dtheta)  # commanded acceleration
    return _id(c, theta, dtheta, a, g, None)


def SimulateControl(
    thetalist: ArrayLike,
    dthetalist: ArrayLike,
    g: ArrayLike,
    Ftipmat: ArrayLike,
    Mlist: ArrayLike,
    Glist: ArrayLike,
    Slist: ArrayLike,
    thetamatd: ArrayLike,
    dthetamatd: ArrayLike,
    ddthetamatd: ArrayLike,
    gtilde: ArrayLike,
    Mtildelist: ArrayLike,
    Gtildelist: ArrayLike,
    Kp: float,
    Ki: float,
    Kd: float,
    dt: float,
    intRes: int,
    *,
    plot: str | os.PathLike | None = None,
    overwrite: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Simulate the computed-torque controller along a reference trajectory (MR sec. 11.4).

    At each reference row k the controller (model ``gtilde, Mtildelist, Gtildelist``)
    computes tau; the actual robot (``g, Mlist, Glist``) is integrated for ``dt`` with
    ``intRes`` Euler steps; then ``eint += dt (theta_d[k] - theta)``. Row k of the result
    holds tau and the state reached at the end of that interval, as in MR.

    Parameters
    ----------
    thetalist, dthetalist : array_like, shape (n,)
        Initial state.
    g : array_like, shape (3,)
        Actual gravity.
    Ftipmat : array_like, shape (N, 6), or 0 / None for no tip forces
    Mlist : array_like, shape (n + 1, 4, 4)
    Glist : array_like, shape (n, 6, 6)
    Slist : array_like, shape (6, n)
    thetamatd, dthetamatd, ddthetamatd : array_like, shape (N, n)
        Reference trajectory.
    gtilde : array_like, shape (3,)
    Mtildelist : array_like, shape (n + 1, 4, 4)
    Gtildelist : array_like, shape (n, 6, 6)
        The controller's (possibly wrong) model.
    Kp, Ki, Kd : float
    dt : float
        Time between reference rows.
    intRes : int
        Euler steps per row (>= 1).
    plot : str or os.PathLike, optional
        Write MR's figure of actual and desired joint angles to this file. By default
        nothing is drawn (MR's library opens a window instead).
    overwrite : bool
        Replace an existing ``plot`` file (else FileExistsError, before the simulation).

    Returns
    -------
    taumat : numpy.ndarray, shape (N, n)
    thetamat : numpy.ndarray, shape (N, n)
    """
    if plot is not None:
        from ._files import output_path

        output_path(plot, overwrite=overwrite, name="plot")
    actual = _chain(Mlist, Glist, Slist)
    ctrl = _chain(Mtildelist, Gtildelist, Slist)
    n = actual.n
    theta = as_vector(thetalist, "thetalist", n).copy()
    dtheta = as_vector(dthetalist, "dthetalist", n).copy()
    Qd = _state_matrix(thetamatd, "thetamatd", None, n)
    N = Qd.shape[0]
    Vd = _state_matrix(dthetamatd, "dthetamatd", N, n)
    Ad = _state_matrix(ddthetamatd, "ddthetamatd", N, n)
    Fk = _tip_rows(_tip_matrix(Ftipmat, N))
    g = _gravity(g)
    gt = _gravity(gtilde)
    Kp, Ki, Kd = float(Kp), float(Ki), float(Kd)
    intRes = _int_res(intRes)
    h = float(dt) / intRes
    eint = np.zeros(n)
    taumat = np.empty((N, n))
    thetamat = np.empty((N, n))
    for k in range(N):
        tau = _computed_torque(ctrl, theta, dtheta, eint, gt, Qd[k], Vd[k], Ad[k], Kp, Ki, Kd)
        theta, dtheta = _euler_row(actual, theta, dtheta, tau, g, Fk[k], h, intRes)
        taumat[k] = tau
        thetamat[k] = theta
        eint = eint + dt * (Qd[k] - theta)
    if plot is not None:
        _plot_control(thetamat, Qd, float(dt), plot, overwrite)
    return taumat, thetamat


def _plot_control(
    thetamat: np.ndarray, thetamatd: np.ndarray, dt: float, path, overwrite: bool
) -> None:
    """MR's figure of actual (lines) and desired (dots) joint angles, written to path.

    MR's code spaces its N samples over N dt with ``linspace(0, N dt, N)``; sample k is taken
    at k dt, which is what is drawn here.
    """
    from matplotlib.figure import Figure

    N = thetamat.shape[0]
    t = np.arange(N) * dt
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    axes = fig.add_subplot()
    for i in range(thetamat.shape[1]):
        (line,) = axes.plot(t, thetamat[:, i], "-", label=f"theta{i + 1}, actual")
        axes.plot(t, thetamatd[:, i], ".", color=line.get_color(), label=f"theta{i + 1}, desired")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    axes.set_xlabel("t (s)")
    axes.set_ylabel("joint angle (rad)")
    axes.set_title("Computed-torque control: actual (lines) and desired (dots) joint angles")
    from ._files import save_figure

    save_figure(fig, path, overwrite=overwrite, name="plot")
