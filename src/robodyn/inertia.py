"""Rigid-body inertia: mass, centre of mass and rotational inertia (MR ch. 8.2).

A rigid body's inertial properties are stored as the triple ``(m, c, I_c)``:

* ``m``   the mass (kg);
* ``c``   the centre of mass (CoM) in the body frame {b} (m), shape (3,);
* ``I_c`` the rotational inertia tensor about the CoM, in the axes of {b} (kg m^2),
  shape (3, 3).

``I_c`` is the tensor itself: its diagonal holds the moments ``Ixx = int (y^2 + z^2) dm``
and its off-diagonal entries are ``Ixy = -int x y dm`` (and likewise for yz, xz), as in
MR eq. 8.21, URDF and the course notes. CAD tools often list the *products of inertia*
``Pxy = +int x y dm`` instead; :func:`inertia_from_cad` and :func:`tensor_to_cad` convert.

Everything else is derived from the triple:

* the inertia about any point (parallel-axis / Steiner theorem, MR eq. 8.26);
* the 6x6 spatial inertia ``G_b = diag(I_c, m 1)`` at the CoM (MR eq. 8.32) and in any
  other frame, ``G_a = [Ad_T_ba]^T G_b [Ad_T_ba]`` (MR eq. 8.42);
* the 10-vector of inertial parameters used for identification, see
  :meth:`RigidInertia.to_vector`.

Twists are ``V = [omega, v]`` and wrenches (momenta) ``[angular; linear]``, the book's
order. Shapes (:func:`box`, :func:`cylinder`, ...) return bodies in a frame at their CoM
unless their docstring says otherwise; :func:`from_mesh` integrates a closed triangle
mesh exactly.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import as_array, as_square, as_vector
from .spatial import check_rotation, check_transform, skew

__all__ = [
    "RigidInertia",
    "box",
    "cylinder",
    "tube",
    "sphere",
    "hollow_sphere",
    "ellipsoid",
    "cone",
    "rod",
    "plate",
    "disk",
    "point",
    "points",
    "from_mesh",
    "steiner",
    "rotate_inertia",
    "products_of_inertia",
    "inertia_tensor",
    "inertia_from_cad",
    "tensor_to_cad",
    "check_inertia",
]

# Relative tolerance (of the trace) for symmetry, positive semi-definiteness and the
# triangle inequality of the principal moments.
_REL_TOL = 1e-9


# ----------------------------------------------------------------- tensor helpers
def steiner(inertia_c, mass: float, d) -> np.ndarray:
    """Parallel-axis (Steiner) theorem ``I_q = I_c + m (d^T d 1 - d d^T)`` (MR eq. 8.26).

    Parameters
    ----------
    inertia_c : array_like, shape (3, 3)
        Inertia about the centre of mass.
    mass : float
        Mass m.
    d : array_like, shape (3,)
        Vector from the point q to the centre of mass (``c - q``), same axes. Only
        ``d d^T`` enters, so the sign of d does not matter.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
        Inertia about q, axes unchanged.
    """
    inertia_c = as_square(inertia_c, "inertia_c", 3)
    d = as_vector(d, "d", 3)
    return inertia_c + mass * (float(d @ d) * np.eye(3) - np.outer(d, d))


def compound(parts) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, centre of mass and inertia about it of rigidly joined parts in one frame.

    ``m = sum m_k``, ``c = sum m_k c_k / m``, ``I_c = sum I_k + m_k (d^T d 1 - d d^T)`` with
    ``d = c_k - c`` (course notes 001 eq. 10.46). Plain arrays, no physical validation:
    loaders that keep non-physical data as written (``load_urdf(strict=False)``) use it;
    ``RigidInertia.__add__`` is the validated form.

    Parameters
    ----------
    parts : iterable of (float, array_like (3,), array_like (3, 3))
        ``(m_k, c_k, I_k)``: mass, centre of mass and inertia about it, common axes.

    Returns
    -------
    m : float
    c : numpy.ndarray, shape (3,)
    I_c : numpy.ndarray, shape (3, 3)
        Symmetrised.
    """
    parts = list(parts)
    masses = np.array([float(p[0]) for p in parts])
    coms = np.array([p[1] for p in parts], dtype=float).reshape(-1, 3)
    tensors = np.array([p[2] for p in parts], dtype=float).reshape(-1, 3, 3)
    m = float(masses.sum())
    if m == 0:
        return 0.0, np.zeros(3), tensors.sum(axis=0)
    c = masses @ coms / m
    d = coms - c  # each part's centre from the compound's
    # sum_k I_k + m_k (d_k^T d_k 1 - d_k d_k^T)
    I = tensors.sum(axis=0) + np.eye(3) * float(masses @ (d * d).sum(axis=1))
    I -= (masses[:, None] * d).T @ d
    return m, c, 0.5 * (I + I.T)


def rotate_inertia(R, inertia) -> np.ndarray:
    """Re-express an inertia tensor in rotated axes: ``I_a = R_ab I_b R_ab^T``.

    Parameters
    ----------
    R : array_like, shape (3, 3)
        ``R_ab``: the orientation of the axes {b} the tensor is given in, seen from {a}.
    inertia : array_like, shape (3, 3)
        ``I_b``.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
        ``I_a``, exactly symmetric.
    """
    R = as_square(R, "R", 3)
    check_rotation(R, "R")
    inertia = as_square(inertia, "inertia", 3)
    out = R @ inertia @ R.T
    return 0.5 * (out + out.T)


def check_inertia(inertia, name: str = "inertia", scale: float | None = None) -> np.ndarray:
    """Check that a rotational inertia tensor is physical; return it symmetrised.

    The rules, each with the tolerance ``1e-9 * scale`` (``scale`` defaults to the trace):
    finite entries, shape (3, 3), symmetric, positive semi-definite, and the principal
    moments satisfy the triangle inequality ``I1 + I2 >= I3`` (for ``I1 <= I2 <= I3``).

    Parameters
    ----------
    inertia : array_like, shape (3, 3)
    name : str
        Name used in error messages.
    scale : float, optional
        Magnitude the tolerances are relative to (default: the trace).

    Returns
    -------
    numpy.ndarray, shape (3, 3)
        ``(I + I^T) / 2``.

    Raises
    ------
    ValueError
        Naming the violated rule and the numbers.
    """
    inertia = as_square(inertia, name, 3)
    trace = float(np.trace(inertia))
    if scale is None:
        scale = abs(trace)
    tol = _REL_TOL * max(scale, 0.0)
    asym = float(np.abs(inertia - inertia.T).max())
    if asym > tol:
        raise ValueError(
            f"{name} is not symmetric: max |I - I^T| = {asym:.6g} > tolerance {tol:.3g} "
            f"(1e-9 of the trace {trace:.6g})"
        )
    inertia = 0.5 * (inertia + inertia.T)
    moments = np.linalg.eigvalsh(inertia)
    if moments[0] < -tol:
        raise ValueError(
            f"{name} is not positive semi-definite: smallest principal moment "
            f"{moments[0]:.6g} < 0 (principal moments {_moments_text(moments)})"
        )
    if moments[0] + moments[1] < moments[2] - tol:
        raise ValueError(
            f"{name} violates the triangle inequality: I1 + I2 = "
            f"{moments[0] + moments[1]:.6g} < I3 = {moments[2]:.6g} "
            f"(principal moments {_moments_text(moments)})"
        )
    return inertia


def _moments_text(moments) -> str:
    """Principal moments as ``[I1 I2 I3]``, 6 significant digits (a message's numbers; a
    loader may say it for many links, np.array2string's cost is not needed)."""
    return "[" + " ".join(f"{float(x):.6g}" for x in moments) + "]"


# --------------------------------------------------------- products of inertia
def products_of_inertia(inertia, convention: str = "cad") -> np.ndarray:
    """The products of inertia ``[xy, yz, xz]`` of a tensor, in either sign convention.

    Two conventions are in use for the off-diagonal numbers:

    * ``"tensor"``: the entries of the inertia tensor, ``I_xy = -int x y dm``. robodyn,
      Modern Robotics (eq. 8.21), the course notes, URDF ``<inertia ixy=...>``, MuJoCo's
      ``fullinertia``, Pinocchio and Drake all store these.
    * ``"cad"``: the products of inertia ``P_xy = +int x y dm``, as listed by CAD tools
      such as SolidWorks' Mass Properties dialog ("Products of inertia" / ``Lxy``). Their
      signs are the opposite of the tensor entries: ``I_xy = -P_xy``. Check your tool's
      documentation before copying numbers into a URDF.

    Parameters
    ----------
    inertia : array_like, shape (3, 3)
        Inertia tensor (robodyn's convention).
    convention : {"cad", "tensor"}

    Returns
    -------
    numpy.ndarray, shape (3,)
        ``[xy, yz, xz]`` in the requested convention.
    """
    inertia = as_square(inertia, "inertia", 3)
    entries = np.array([inertia[0, 1], inertia[1, 2], inertia[0, 2]])
    return -entries if _convention_sign(convention) < 0 else entries


def inertia_tensor(moments, products=(0.0, 0.0, 0.0), convention: str = "tensor") -> np.ndarray:
    """Assemble a (3, 3) inertia tensor from moments and products of inertia.

    Parameters
    ----------
    moments : array_like, shape (3,)
        ``[Ixx, Iyy, Izz]``.
    products : array_like, shape (3,)
        ``[xy, yz, xz]`` in ``convention`` (see :func:`products_of_inertia`).
    convention : {"tensor", "cad"}
        ``"tensor"``: the numbers are tensor entries (URDF ixy, iyz, ixz);
        ``"cad"``: they are ``+int x y dm`` (SolidWorks-style products) and are negated.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
        The inertia tensor (not checked for physical validity; see :func:`check_inertia`).
    """
    Ixx, Iyy, Izz = as_vector(moments, "moments", 3)
    xy, yz, xz = as_vector(products, "products", 3) * _convention_sign(convention)
    return np.array([[Ixx, xy, xz], [xy, Iyy, yz], [xz, yz, Izz]])


def inertia_from_cad(Ixx, Iyy, Izz, Pxy, Pyz, Pxz) -> np.ndarray:
    """Inertia tensor from CAD-style moments and products (``P_xy = +int x y dm``).

    SolidWorks-style products of inertia have the opposite sign of the tensor entries
    robodyn and URDF use: the result has ``I[0, 1] = -Pxy``, ``I[1, 2] = -Pyz``,
    ``I[0, 2] = -Pxz``. See :func:`products_of_inertia`.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
    """
    return inertia_tensor([Ixx, Iyy, Izz], [Pxy, Pyz, Pxz], convention="cad")


def tensor_to_cad(inertia) -> dict[str, float]:
    """CAD-style moments and products (``P_xy = +int x y dm``) of an inertia tensor.

    Parameters
    ----------
    inertia : array_like, shape (3, 3)
        Inertia tensor (robodyn's convention).

    Returns
    -------
    dict
        Keys ``Ixx, Iyy, Izz, Pxy, Pyz, Pxz``; ``Pxy = -I[0, 1]`` etc.
    """
    inertia = as_square(inertia, "inertia", 3)
    Pxy, Pyz, Pxz = products_of_inertia(inertia, "cad")
    return {
        "Ixx": float(inertia[0, 0]),
        "Iyy": float(inertia[1, 1]),
        "Izz": float(inertia[2, 2]),
        "Pxy": float(Pxy),
        "Pyz": float(Pyz),
        "Pxz": float(Pxz),
    }


def _convention_sign(convention: str) -> float:
    if convention == "tensor":
        return 1.0
    if convention == "cad":
        return -1.0
    raise ValueError(f"convention must be 'tensor' or 'cad', got {convention!r}")


# ------------------------------------------------------------------- RigidInertia
class RigidInertia:
    """Immutable inertia of a rigid body: mass, centre of mass, inertia about the CoM.

    Parameters
    ----------
    mass : float
        Mass m >= 0 (kg). ``m = 0`` is allowed only together with a zero inertia (a
        massless frame, see :meth:`zero`); the CoM of a massless body is stored as 0.
    com : array_like, shape (3,), optional
        Centre of mass c in the body frame {b} (default: the origin).
    inertia : array_like, shape (3, 3), optional
        Rotational inertia tensor I_c about the CoM, in the axes of {b}; off-diagonal
        entries are ``-int x y dm`` (default: zero, a point mass).

    Raises
    ------
    ValueError
        Non-finite numbers, wrong shapes, negative mass, a non-symmetric or indefinite
        tensor, or principal moments violating the triangle inequality (tolerances
        ``1e-9`` of the trace).

    Notes
    -----
    The arrays ``com`` and ``inertia`` are read-only; operations return new objects.
    ``a + b`` is the compound body (both must be expressed in the same frame), ``a - b``
    removes a part (a bore, a hole) and checks that the result is still physical.

    Examples
    --------
    A 12 kg box of 1 x 2 x 3 m has ``I = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2)``;
    about the centre of its top face, 1.5 m up, Steiner adds ``m d^2 = 27`` kg m^2 about
    x and y:

    >>> import numpy as np
    >>> import robodyn as rd
    >>> box = rd.RigidInertia(12.0, [0, 0, 0], np.diag([13.0, 10.0, 5.0]))
    >>> np.allclose(box.inertia, rd.inertia.box(mass=12.0, size=(1, 2, 3)).inertia)
    True
    >>> print(box.about([0, 0, 1.5]))
    [[40.  0.  0.]
     [ 0. 37.  0.]
     [ 0.  0.  5.]]
    >>> (box + rd.RigidInertia(4.0, [0, 0, 2.0])).com  # a 4 kg point mass on top
    array([0. , 0. , 0.5])
    """

    __slots__ = ("_mass", "_com", "_inertia")

    def __init__(self, mass, com=None, inertia=None):
        self._init(mass, com, inertia, None)

    def _init(self, mass, com, inertia, scale: float | None) -> None:
        mass = _as_scalar(mass, "mass")
        com = np.zeros(3) if com is None else as_vector(com, "com", 3).copy()
        inertia = np.zeros((3, 3)) if inertia is None else as_square(inertia, "inertia", 3)
        if mass < 0:
            raise ValueError(f"mass must be >= 0, got negative mass {mass:.6g}")
        if mass == 0:
            if np.any(inertia != 0):
                raise ValueError(
                    "mass is 0 but the inertia is not zero: a massless body must have zero "
                    f"inertia (got trace {np.trace(inertia):.6g})"
                )
            com = np.zeros(3)
            inertia = np.zeros((3, 3))
        else:
            inertia = check_inertia(inertia, "inertia", scale).copy()
        com.flags.writeable = False
        inertia.flags.writeable = False
        object.__setattr__(self, "_mass", mass)
        object.__setattr__(self, "_com", com)
        object.__setattr__(self, "_inertia", inertia)

    @classmethod
    def _checked(cls, mass, com, inertia, scale: float | None = None) -> RigidInertia:
        self = cls.__new__(cls)
        self._init(mass, com, inertia, scale)
        return self

    def __setattr__(self, name, value):
        raise AttributeError("RigidInertia is immutable; use moved(), +, - to make new ones")

    def __delattr__(self, name):
        raise AttributeError("RigidInertia is immutable")

    def __reduce__(self):
        return (RigidInertia, (self._mass, self._com.copy(), self._inertia.copy()))

    # -------------------------------------------------------------- attributes
    @property
    def mass(self) -> float:
        """Mass m (kg)."""
        return self._mass

    @property
    def com(self) -> np.ndarray:
        """Centre of mass c in the body frame, shape (3,) (read-only)."""
        return self._com

    @property
    def inertia(self) -> np.ndarray:
        """Rotational inertia I_c about the CoM in body axes, shape (3, 3) (read-only)."""
        return self._inertia

    @property
    def is_zero(self) -> bool:
        """True for the massless zero body."""
        return self._mass == 0.0

    @classmethod
    def zero(cls) -> RigidInertia:
        """The massless body (mass 0, zero inertia): the identity of ``+``, used by
        frames that carry no mass."""
        return cls(0.0)

    # --------------------------------------------------------- 3x3 operations
    def about(self, point=(0.0, 0.0, 0.0)) -> np.ndarray:
        """Rotational inertia about a point, body axes (Steiner, MR eq. 8.26; notes 10.46).

        ``I_q = I_c + m (d^T d 1 - d d^T)`` with ``d = c - q``.

        Parameters
        ----------
        point : array_like, shape (3,)
            The point q in the body frame (default: the body-frame origin).

        Returns
        -------
        numpy.ndarray, shape (3, 3)
        """
        q = as_vector(point, "point", 3)
        return steiner(self._inertia, self._mass, self._com - q)

    def about_axis(self, direction, point=(0.0, 0.0, 0.0)) -> float:
        """Scalar moment of inertia about the line through ``point`` along ``direction``.

        ``I_L = l^T I_q l`` with ``l = direction / |direction|``.

        Parameters
        ----------
        direction : array_like, shape (3,)
            Direction of the axis in body coordinates (any nonzero length).
        point : array_like, shape (3,)
            A point on the axis in the body frame.

        Returns
        -------
        float
        """
        d = as_vector(direction, "direction", 3)
        n = float(np.linalg.norm(d))
        if n == 0:
            raise ValueError("direction must be a nonzero 3-vector, got [0, 0, 0]")
        ell = d / n
        return float(ell @ self.about(point) @ ell)

    def principal(self) -> tuple[np.ndarray, np.ndarray]:
        """Principal moments and axes of the inertia about the CoM.

        Returns
        -------
        moments : numpy.ndarray, shape (3,)
            Principal moments, ascending.
        axes : numpy.ndarray, shape (3, 3)
            Columns are the principal axes in body coordinates; a rotation matrix
            (det = +1), so ``axes @ diag(moments) @ axes.T == inertia``.
        """
        moments, axes = np.linalg.eigh(self._inertia)
        if np.linalg.det(axes) < 0:
            axes[:, 2] = -axes[:, 2]
        return moments, axes

    def moved(self, R=None, p=None) -> RigidInertia:
        """The same body expressed in another frame {a}.

        ``(R, p) = T_ab`` is the pose of the current body frame {b} in {a}; then
        ``c_a = R c + p`` and ``I_a = R I_c R^T`` (MR eq. 8.29; notes I_c = R^T I_b R).

        Parameters
        ----------
        R : array_like, shape (3, 3), optional
            ``R_ab`` (identity when omitted).
        p : array_like, shape (3,), optional
            ``p_ab`` (zero when omitted).

        Returns
        -------
        RigidInertia
        """
        if self.is_zero:
            return self
        com = self._com
        inertia = self._inertia
        if R is not None:
            R = as_square(R, "R", 3)
            check_rotation(R, "R")
            com = R @ com
            inertia = rotate_inertia(R, inertia)
        if p is not None:
            com = com + as_vector(p, "p", 3)
        return RigidInertia._checked(self._mass, com, inertia, float(np.trace(self._inertia)))

    def transformed(self, T_ab) -> RigidInertia:
        """:meth:`moved` with a homogeneous transform ``T_ab`` (4, 4)."""
        T_ab = as_square(T_ab, "T_ab", 4)
        check_transform(T_ab, "T_ab")
        return self.moved(T_ab[:3, :3], T_ab[:3, 3])

    # ------------------------------------------------------------ compound bodies
    def __add__(self, other: RigidInertia) -> RigidInertia:
        """Compound body; both operands must be expressed in the same frame."""
        if not isinstance(other, RigidInertia):
            return NotImplemented
        if other.is_zero:
            return self
        if self.is_zero:
            return other
        m = self._mass + other._mass
        c = (self._mass * self._com + other._mass * other._com) / m
        inertia = self.about(c) + other.about(c)
        return RigidInertia._checked(m, c, inertia)

    def __radd__(self, other):
        # lets sum() start from the integer 0
        if isinstance(other, (int, float)) and other == 0:
            return self
        return NotImplemented

    def __sub__(self, other: RigidInertia) -> RigidInertia:
        """Remove a part (e.g. a bore): masses, first moments and inertias subtract.

        Raises
        ------
        ValueError
            If the remainder is not physical (negative mass, indefinite inertia, ...).
        """
        if not isinstance(other, RigidInertia):
            return NotImplemented
        if other.is_zero:
            return self
        m = self._mass - other._mass
        big_m = self._mass + other._mass
        if m < -1e-12 * big_m:
            raise ValueError(
                f"cannot subtract: the result has negative mass {m:.6g} "
                f"({self._mass:.6g} - {other._mass:.6g})"
            )
        first = self._mass * self._com - other._mass * other._com  # m c of the remainder
        if m <= 1e-12 * big_m:
            # the same body removed from itself: everything must cancel
            inertia_o = self.about() - other.about()
            scale = float(np.trace(self.about()) + np.trace(other.about()))
            lever = 1.0 + float(np.abs(self._com).max())
            if np.abs(first).max() > 1e-9 * big_m * lever or (
                np.abs(inertia_o).max() > _REL_TOL * scale
            ):
                raise ValueError(
                    "cannot subtract: the result has zero mass but a nonzero first moment "
                    "or inertia (the removed part is not the same body)"
                )
            return RigidInertia.zero()
        c = first / m
        # both inertias about the remainder's CoM (Steiner), then subtract; rounding in
        # the difference is relative to the operands' size, which sets the tolerance
        I_self, I_other = self.about(c), other.about(c)
        scale = float(np.trace(I_self) + np.trace(I_other))
        try:
            return RigidInertia._checked(m, c, I_self - I_other, scale)
        except ValueError as exc:
            raise ValueError(f"cannot subtract: the remainder is not physical: {exc}") from exc

    # ------------------------------------------------------------ 6x6 quantities
    def spatial(self) -> np.ndarray:
        """Spatial inertia ``G_c = [[I_c, 0], [0, m 1]]`` in the frame at the CoM aligned
        with the body frame (MR eq. 8.32), for twists ``[omega, v]``.

        Returns
        -------
        numpy.ndarray, shape (6, 6)
        """
        G = np.zeros((6, 6))
        G[:3, :3] = self._inertia
        G[3:, 3:] = self._mass * np.eye(3)
        return G

    def spatial_at_origin(self) -> np.ndarray:
        """Spatial inertia about the body-frame origin, body axes, for ``[omega, v]``.

        With ``[c]`` the skew matrix of the CoM,

        ``G_o = [[I_c + m [c]^T [c], m [c]], [m [c]^T, m 1]]``,

        derived from the kinetic energy: the CoM moves with ``v_c = v - [c] omega``, so
        ``2K = omega^T I_c omega + m |v - [c] omega|^2 = V^T G_o V``. It equals
        ``[Ad_T_co]^T G_c [Ad_T_co]`` (MR eq. 8.42) with ``T_co = (1, -c)`` the pose of the
        origin frame in the CoM frame. ``I_c + m [c]^T [c]`` is :meth:`about` the origin.

        Returns
        -------
        numpy.ndarray, shape (6, 6)
        """
        m, c = self._mass, self._com
        C = skew(c)
        G = np.empty((6, 6))
        G[:3, :3] = self.about()
        G[:3, 3:] = m * C
        G[3:, :3] = m * C.T
        G[3:, 3:] = m * np.eye(3)
        return G

    def spatial_in(self, T_ba) -> np.ndarray:
        """Spatial inertia in a frame {a} rigidly attached to the body.

        ``G_a = [Ad_T_ba]^T G_b [Ad_T_ba]`` (MR eq. 8.42), with ``G_b`` =
        :meth:`spatial_at_origin` and ``T_ba`` the pose of {a} in the body frame {b}.
        ``spatial_in(identity) == spatial_at_origin()``; with ``T_ba = (1, c)`` it is
        :meth:`spatial`.

        Parameters
        ----------
        T_ba : array_like, shape (4, 4)
            Pose of {a} in the body frame {b}.

        Returns
        -------
        numpy.ndarray, shape (6, 6)
        """
        T_ba = as_square(T_ba, "T_ba", 4)
        check_transform(T_ba, "T_ba")
        # the body expressed in {a}: T_ab = T_ba^-1 = (R^T, -R^T p)
        R_ba, p_ba = T_ba[:3, :3], T_ba[:3, 3]
        return self.moved(R_ba.T, -R_ba.T @ p_ba).spatial_at_origin()

    @classmethod
    def from_spatial(cls, G, tol: float = 1e-9) -> RigidInertia:
        """The body whose :meth:`spatial_at_origin` is ``G`` (e.g. an MR ``Glist`` entry).

        Parameters
        ----------
        G : array_like, shape (6, 6)
            Symmetric, of the form ``[[I_o, m [c]], [m [c]^T, m 1]]`` (order [omega, v]).
        tol : float
            Relative tolerance of the structure checks.

        Returns
        -------
        RigidInertia
        """
        G = as_square(G, "G", 6)
        scale = float(np.abs(G).max())
        if np.abs(G - G.T).max() > tol * scale:
            raise ValueError("G is not symmetric")
        m = float(np.trace(G[3:, 3:]) / 3.0)
        if np.abs(G[3:, 3:] - m * np.eye(3)).max() > tol * scale:
            raise ValueError("G[3:, 3:] must be m * identity (the mass block)")
        mC = 0.5 * (G[:3, 3:] - G[3:, :3])  # m [c], skew part
        if np.abs(G[:3, 3:] - mC).max() > tol * scale:
            raise ValueError("G[:3, 3:] must be skew-symmetric (m [c])")
        if m == 0:
            return cls(0.0, None, G[:3, :3])
        c = np.array([mC[2, 1], mC[0, 2], mC[1, 0]]) / m
        inertia_o = 0.5 * (G[:3, :3] + G[:3, :3].T)
        return cls(m, c, inertia_o - m * (float(c @ c) * np.eye(3) - np.outer(c, c)))

    def kinetic_energy(self, V) -> np.ndarray | float:
        """Kinetic energy ``K = 1/2 V^T G_o V`` of the body moving with twist V.

        Parameters
        ----------
        V : array_like, shape (..., 6)
            Twist ``[omega, v]`` of the body frame in body coordinates (``v`` is the
            velocity of the body-frame origin).

        Returns
        -------
        float or numpy.ndarray, shape (...)
        """
        V = as_array(V, "V", (6,))
        K = 0.5 * np.einsum("...i,ij,...j->...", V, self.spatial_at_origin(), V)
        return float(K) if K.ndim == 0 else K

    def momentum(self, V) -> np.ndarray:
        """Momentum ``G_o V = [angular momentum about the origin; linear momentum]``.

        Parameters
        ----------
        V : array_like, shape (..., 6)
            Twist ``[omega, v]`` of the body frame in body coordinates.

        Returns
        -------
        numpy.ndarray, shape (..., 6)
            Body-frame coordinates, wrench-like order [angular, linear].
        """
        V = as_array(V, "V", (6,))
        return np.einsum("ij,...j->...i", self.spatial_at_origin(), V)

    # -------------------------------------------------------- inertial parameters
    def to_vector(self) -> np.ndarray:
        """The 10 inertial parameters (linear in the dynamics, used for identification).

        ``pi = [m, m c_x, m c_y, m c_z, Ixx, Iyy, Izz, Ixy, Iyz, Ixz]`` where the
        rotational part is the tensor ABOUT THE BODY-FRAME ORIGIN (``I_o`` =
        :meth:`about` the origin) and ``Ixy = I_o[0, 1]`` etc. are tensor entries
        (``-int x y dm``). Note: Pinocchio orders its 10-vector
        ``[m, mc, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]``; robodyn's groups moments then products.

        Returns
        -------
        numpy.ndarray, shape (10,)
        """
        I_o = self.about()
        m = self._mass
        return np.array(
            [
                m,
                *(m * self._com),
                I_o[0, 0],
                I_o[1, 1],
                I_o[2, 2],
                I_o[0, 1],
                I_o[1, 2],
                I_o[0, 2],
            ]
        )

    @classmethod
    def from_vector(cls, pi) -> RigidInertia:
        """Inverse of :meth:`to_vector` (checks that the parameters are physical).

        Parameters
        ----------
        pi : array_like, shape (10,)
            ``[m, m c_x, m c_y, m c_z, Ixx, Iyy, Izz, Ixy, Iyz, Ixz]``, inertia about the
            body-frame origin, tensor entries.

        Returns
        -------
        RigidInertia
        """
        pi = as_vector(pi, "pi", 10)
        m = float(pi[0])
        Ixx, Iyy, Izz, Ixy, Iyz, Ixz = pi[4:]
        I_o = np.array([[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]])
        if m < 0:
            raise ValueError(f"pi[0] (mass) must be >= 0, got negative mass {m:.6g}")
        if m == 0:
            if np.any(pi[1:] != 0):
                raise ValueError("pi has mass 0 but nonzero first moments or inertia")
            return cls.zero()
        c = pi[1:4] / m
        inertia_c = I_o - m * (float(c @ c) * np.eye(3) - np.outer(c, c))
        return cls._checked(m, c, inertia_c, float(np.trace(I_o)))

    # ------------------------------------------------------------ comparisons
    def __eq__(self, other) -> bool:
        if not isinstance(other, RigidInertia):
            return NotImplemented
        return (
            self._mass == other._mass
            and bool(np.array_equal(self._com, other._com))
            and bool(np.array_equal(self._inertia, other._inertia))
        )

    __hash__ = None  # type: ignore[assignment]

    def isclose(self, other: RigidInertia, rtol: float = 1e-9, atol: float = 1e-12) -> bool:
        """True when mass, CoM and inertia agree to ``|a - b| <= atol + rtol * |b|``
        (CoM and inertia judged against the size of ``other``'s values)."""
        if not isinstance(other, RigidInertia):
            raise TypeError(f"other must be a RigidInertia, got {type(other).__name__}")
        if not np.isclose(self._mass, other._mass, rtol=rtol, atol=atol):
            return False
        c_scale = max(float(np.abs(other._com).max()), float(np.abs(self._com).max()))
        if np.abs(self._com - other._com).max() > atol + rtol * c_scale:
            return False
        i_scale = max(float(np.abs(other._inertia).max()), float(np.abs(self._inertia).max()))
        return bool(np.abs(self._inertia - other._inertia).max() <= atol + rtol * i_scale)

    def __repr__(self) -> str:
        def fmt(a: np.ndarray) -> str:
            return np.array2string(a, separator=", ", precision=6, suppress_small=True)

        return (
            f"RigidInertia(mass={self._mass:.6g}, com={fmt(self._com)}, "
            f"inertia={fmt(self._inertia).replace(chr(10), '')})"
        )


# ------------------------------------------------------------ argument helpers
def _as_scalar(x, name: str) -> float:
    if x is None:
        raise ValueError(f"{name} is required")
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number, got {type(x).__name__}") from exc
    if a.shape != ():
        raise ValueError(f"{name} must be a scalar, got shape {a.shape}")
    v = float(a)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    return v


def _positive(x, name: str) -> float:
    v = _as_scalar(x, name)
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {v:.6g}")
    return v


def _mass_from(mass, density, volume: float, shape: str, volume_note: str = "") -> float:
    """Exactly one of mass / density; returns the mass (density * volume)."""
    if (mass is None) == (density is None):
        raise ValueError(
            f"{shape}: give exactly one of mass= or density=, got "
            f"{'both' if mass is not None else 'neither'}"
        )
    if mass is not None:
        return _positive(mass, "mass")
    return _positive(density, "density") * volume


def _axis_rotation(axis) -> np.ndarray:
    """Rotation R taking the canonical z-axis to ``axis``.

    ``"z"``: identity; ``"x"``, ``"y"``: the cyclic permutations (x, y, z) -> (y, z, x)
    and (z, x, y) respectively, so a shape's own (x, y, z) axes map to (y, z, x) for
    ``"x"`` and (z, x, y) for ``"y"``. A 3-vector: the smallest rotation taking z to it.
    """
    if isinstance(axis, str):
        if axis == "z":
            return np.eye(3)
        if axis == "x":  # columns: images of x, y, z
            return np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        if axis == "y":
            return np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
        raise ValueError(f"axis must be 'x', 'y', 'z' or a 3-vector, got {axis!r}")
    a = as_vector(axis, "axis", 3)
    n = float(np.linalg.norm(a))
    if n == 0:
        raise ValueError("axis must be a nonzero 3-vector, got [0, 0, 0]")
    a = a / n
    z = np.array([0.0, 0.0, 1.0])
    cos_t = float(a[2])
    if cos_t < -1 + 1e-12:  # z -> -z: half turn about x
        return np.diag([1.0, -1.0, -1.0])
    # Rodrigues with k = z x a (unnormalised): R = 1 + [k] + [k]^2 / (1 + cos)
    K = skew(np.cross(z, a))
    return np.eye(3) + K + K @ K / (1.0 + cos_t)


def _oriented(mass: float, com_z, diag, axis) -> RigidInertia:
    """A shape built with its symmetry axis along z, turned so z goes to ``axis``."""
    R = _axis_rotation(axis)
    return RigidInertia(mass, R @ np.asarray(com_z, float), rotate_inertia(R, np.diag(diag)))


# ---------------------------------------------------------------------- shapes
def box(mass=None, size=None, density=None) -> RigidInertia:
    """Solid rectangular box (prism) with edges ``size = (a, b, c)`` along x, y, z.

    CoM at the origin; ``Ixx = m (b^2 + c^2) / 12`` and cyclically; volume ``a b c``.

    Parameters
    ----------
    mass : float, optional
    size : array_like, shape (3,)
    density : float, optional
        kg/m^3; give exactly one of mass and density.

    Returns
    -------
    RigidInertia
    """
    a, b, c = (_positive(s, f"size[{i}]") for i, s in enumerate(as_vector(size, "size", 3)))
    m = _mass_from(mass, density, a * b * c, "box")
    return RigidInertia(m, None, np.diag(box_moments(m, a, b, c)))


def box_moments(m: float, a: float, b: float, c: float) -> tuple[float, float, float]:
    """Principal moments ``(Ixx, Iyy, Izz)`` of a solid box of mass ``m`` and edges
    ``a, b, c`` along x, y, z about its centre (:func:`box`, in plain floats)."""
    return (b * b + c * c) * m / 12, (a * a + c * c) * m / 12, (a * a + b * b) * m / 12


def cylinder(mass=None, radius=None, length=None, axis="z", density=None) -> RigidInertia:
    """Solid circular cylinder of ``radius`` and ``length`` along ``axis``, CoM at origin.

    ``I_axis = m r^2 / 2``, ``I_perp = m (3 r^2 + L^2) / 12``; volume ``pi r^2 L``.

    Parameters
    ----------
    mass : float, optional
    radius, length : float
    axis : {"x", "y", "z"} or array_like, shape (3,)
        Symmetry axis (a vector is normalised).
    density : float, optional
        kg/m^3; exactly one of mass and density.

    Returns
    -------
    RigidInertia
    """
    r = _positive(radius, "radius")
    L = _positive(length, "length")
    m = _mass_from(mass, density, math.pi * r * r * L, "cylinder")
    return _oriented(m, np.zeros(3), cylinder_moments(m, r, L), axis)


def cylinder_moments(m: float, r: float, L: float) -> tuple[float, float, float]:
    """Principal moments ``(I_perp, I_perp, I_axis)`` of a solid cylinder of mass ``m``,
    radius ``r`` and length ``L`` along z about its centre (:func:`cylinder`, in plain
    floats)."""
    perp = m * (3 * r * r + L * L) / 12
    return perp, perp, m * r * r / 2


def tube(
    mass=None, r_inner=None, r_outer=None, length=None, axis="z", density=None
) -> RigidInertia:
    """Thick-walled round tube (hollow cylinder), CoM at the origin.

    ``I_axis = m (r1^2 + r2^2) / 2``, ``I_perp = m (3 (r1^2 + r2^2) + L^2) / 12``;
    volume ``pi (r2^2 - r1^2) L``. ``r_inner = 0`` gives the solid cylinder.

    Parameters
    ----------
    mass : float, optional
    r_inner, r_outer : float
        ``0 <= r_inner < r_outer``.
    length : float
    axis : {"x", "y", "z"} or array_like, shape (3,)
    density : float, optional

    Returns
    -------
    RigidInertia
    """
    r1 = _as_scalar(r_inner, "r_inner")
    r2 = _positive(r_outer, "r_outer")
    if not 0 <= r1 < r2:
        raise ValueError(
            f"tube needs 0 <= r_inner < r_outer, got r_inner={r1:.6g}, r_outer={r2:.6g}"
        )
    L = _positive(length, "length")
    m = _mass_from(mass, density, math.pi * (r2 * r2 - r1 * r1) * L, "tube")
    s = r1 * r1 + r2 * r2
    perp = m * (3 * s + L * L) / 12
    return _oriented(m, np.zeros(3), [perp, perp, m * s / 2], axis)


def sphere(mass=None, radius=None, density=None) -> RigidInertia:
    """Solid sphere: ``I = 2/5 m r^2`` about every axis; volume ``4/3 pi r^3``."""
    r = _positive(radius, "radius")
    m = _mass_from(mass, density, 4.0 / 3.0 * math.pi * r**3, "sphere")
    return RigidInertia(m, None, np.eye(3) * sphere_moment(m, r))


def sphere_moment(m: float, r: float) -> float:
    """The moment ``2/5 m r^2`` of a solid sphere about every axis through its centre
    (:func:`sphere`, in plain floats)."""
    return 0.4 * m * r * r


def hollow_sphere(mass=None, radius=None, density=None, thickness=None) -> RigidInertia:
    """Thin spherical shell: ``I = 2/3 m r^2`` about every axis.

    By mass, or by ``density`` (kg/m^3) together with the wall ``thickness``
    (``m = density * 4 pi r^2 * thickness``, thin-shell approximation; the inertia stays
    the thin-shell formula). For a thick shell subtract two spheres.
    """
    r = _positive(radius, "radius")
    if density is not None and thickness is None:
        raise ValueError("hollow_sphere: density= needs thickness= (the wall thickness)")
    if thickness is not None and density is None:
        raise ValueError("hollow_sphere: thickness= is only used with density=")
    area = 4.0 * math.pi * r * r
    vol = area * _positive(thickness, "thickness") if thickness is not None else 0.0
    m = _mass_from(mass, density, vol, "hollow_sphere")
    return RigidInertia(m, None, np.eye(3) * (2.0 / 3.0 * m * r * r))


def ellipsoid(mass=None, semi_axes=None, density=None) -> RigidInertia:
    """Solid ellipsoid with semi-axes ``(a, b, c)`` along x, y, z, CoM at the origin.

    ``Ixx = m (b^2 + c^2) / 5`` and cyclically; volume ``4/3 pi a b c``.
    """
    a, b, c = (
        _positive(s, f"semi_axes[{i}]") for i, s in enumerate(as_vector(semi_axes, "semi_axes", 3))
    )
    m = _mass_from(mass, density, 4.0 / 3.0 * math.pi * a * b * c, "ellipsoid")
    return RigidInertia(m, None, np.diag([b * b + c * c, a * a + c * c, a * a + b * b]) * m / 5)


def cone(mass=None, radius=None, height=None, axis="z", density=None) -> RigidInertia:
    """Solid right circular cone. The body frame is at the CENTRE OF THE BASE with the
    apex at ``height`` along +``axis``; the CoM is at ``h/4`` along the axis.

    About the CoM: ``I_axis = 3/10 m a^2``, ``I_perp = 3/80 m (4 a^2 + h^2)``
    (about the apex ``I_perp = 3/5 m (a^2/4 + h^2)``); volume ``pi a^2 h / 3``.
    """
    a = _positive(radius, "radius")
    h = _positive(height, "height")
    m = _mass_from(mass, density, math.pi * a * a * h / 3.0, "cone")
    perp = 3.0 / 80.0 * m * (4 * a * a + h * h)
    return _oriented(m, [0.0, 0.0, h / 4.0], [perp, perp, 0.3 * m * a * a], axis)


def rod(mass=None, length=None, axis="z", density=None, area=None) -> RigidInertia:
    """Slender rod of ``length`` along ``axis``, CoM at its middle.

    ``I_perp = m L^2 / 12``, ``I_axis = 0``. By mass, or by ``density`` (kg/m^3) and the
    cross-section ``area`` (m^2): ``m = density * area * L``.
    """
    L = _positive(length, "length")
    if (density is None) != (area is None):
        raise ValueError("rod: density= and area= (cross-section, m^2) go together")
    vol = _positive(area, "area") * L if area is not None else 0.0
    m = _mass_from(mass, density, vol, "rod")
    perp = m * L * L / 12
    return _oriented(m, np.zeros(3), [perp, perp, 0.0], axis)


def plate(mass=None, size=None, normal="z", density=None, thickness=None) -> RigidInertia:
    """Thin rectangular plate with sides ``size = (a, b)`` and the given ``normal``.

    For normal "z" side a lies along x and b along y; for "x", a along y and b along z;
    for "y", a along z and b along x (cyclic). For a vector normal n, the sides lie along
    ``R x`` and ``R y`` with R the smallest rotation taking z to n. In the plate's own
    axes ``I_a = m b^2 / 12`` (about the axis along side a), ``I_b = m a^2 / 12``,
    ``I_normal = m (a^2 + b^2) / 12``. By mass, or by ``density`` (kg/m^3) and
    ``thickness`` (``m = density * a * b * thickness``).
    """
    a, b = (_positive(s, f"size[{i}]") for i, s in enumerate(as_vector(size, "size", 2)))
    if (density is None) != (thickness is None):
        raise ValueError("plate: density= and thickness= go together")
    vol = a * b * _positive(thickness, "thickness") if thickness is not None else 0.0
    m = _mass_from(mass, density, vol, "plate")
    return _oriented(m, np.zeros(3), np.array([b * b, a * a, a * a + b * b]) * m / 12, normal)


def disk(mass=None, radius=None, normal="z", density=None, thickness=None) -> RigidInertia:
    """Thin circular disk with the given ``normal``: ``I_normal = m r^2 / 2``,
    ``I_diameter = m r^2 / 4``. By mass, or by ``density`` (kg/m^3) and ``thickness``
    (``m = density * pi r^2 * thickness``)."""
    r = _positive(radius, "radius")
    if (density is None) != (thickness is None):
        raise ValueError("disk: density= and thickness= go together")
    vol = math.pi * r * r * _positive(thickness, "thickness") if thickness is not None else 0.0
    m = _mass_from(mass, density, vol, "disk")
    return _oriented(m, np.zeros(3), [m * r * r / 4, m * r * r / 4, m * r * r / 2], normal)


def point(mass, position=(0.0, 0.0, 0.0)) -> RigidInertia:
    """Point mass at ``position`` (zero inertia about its CoM)."""
    return RigidInertia(mass, as_vector(position, "position", 3), None)


def points(masses, positions) -> RigidInertia:
    """A rigid set of point masses: ``m = sum m_i``, ``c = sum m_i r_i / m``,
    ``I_c = sum m_i (|r_i - c|^2 1 - (r_i - c)(r_i - c)^T)``.

    Parameters
    ----------
    masses : array_like, shape (n,)
        Non-negative, positive sum.
    positions : array_like, shape (n, 3)

    Returns
    -------
    RigidInertia
    """
    masses = np.atleast_1d(as_array(masses, "masses", ()))
    if masses.ndim != 1:
        raise ValueError(f"masses must have shape (n,), got {masses.shape}")
    n = masses.shape[0]
    positions = as_array(positions, "positions", (3,))
    if positions.shape != (n, 3):
        raise ValueError(f"positions must have shape ({n}, 3), got {positions.shape}")
    if np.any(masses < 0):
        raise ValueError(f"masses must be >= 0, got negative mass {masses.min():.6g}")
    m = float(masses.sum())
    if m <= 0:
        raise ValueError("points: the total mass must be > 0")
    c = masses @ positions / m
    d = positions - c
    S = np.einsum("i,ij,ik->jk", masses, d, d)  # sum m_i d_i d_i^T
    return RigidInertia(m, c, np.trace(S) * np.eye(3) - S)


# ------------------------------------------------------------------- meshes
def _mesh_arrays(vertices, faces) -> tuple[np.ndarray, np.ndarray]:
    V = as_array(vertices, "vertices", (3,))
    if V.ndim != 2:
        raise ValueError(f"vertices must have shape (n, 3), got {V.shape}")
    F = np.asarray(faces)
    if F.ndim != 2 or F.shape[1] != 3:
        raise ValueError(f"faces must have shape (k, 3), got {F.shape}")
    if F.size and not np.issubdtype(F.dtype, np.integer):
        Fi = F.astype(np.int64)
        if not np.array_equal(Fi, F):
            raise ValueError("faces must hold integer vertex indices")
        F = Fi
    F = F.astype(np.int64)
    if F.shape[0] < 4:
        raise ValueError(f"a closed mesh needs at least 4 faces, got {F.shape[0]}")
    n = V.shape[0]
    if F.min() < 0 or F.max() >= n:
        raise ValueError(
            f"faces index vertices out of range: indices span [{F.min()}, {F.max()}], "
            f"there are {n} vertices"
        )
    rep = (F[:, 0] == F[:, 1]) | (F[:, 1] == F[:, 2]) | (F[:, 0] == F[:, 2])
    if np.any(rep):
        raise ValueError(f"face {int(np.flatnonzero(rep)[0])} repeats a vertex index")
    return V, F


def _check_closed(F: np.ndarray, n: int) -> None:
    """Every directed edge (i, j) occurs once and its reverse (j, i) once: the mesh is
    closed (watertight) and consistently oriented."""
    i = F.reshape(-1)
    j = F[:, [1, 2, 0]].reshape(-1)
    code = i * n + j
    uniq, counts = np.unique(code, return_counts=True)
    if np.any(counts > 1):
        e = int(uniq[counts > 1][0])
        raise ValueError(
            f"mesh is not consistently oriented or not manifold: directed edge "
            f"({e // n}, {e % n}) is used by more than one face"
        )
    rev = j * n + i
    missing = ~np.isin(rev, uniq)
    if np.any(missing):
        k = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"mesh is open or inconsistently oriented: edge ({i[k]}, {j[k]}) has no "
            f"opposite edge ({j[k]}, {i[k]}) in another face"
        )


def from_mesh(vertices, faces, density: float = 1.0) -> RigidInertia:
    """Inertia of a solid bounded by a closed triangle mesh of uniform ``density``.

    Divergence theorem: the solid is the signed sum of the tetrahedra (o, a, b, c) formed
    by each face and a reference point o (the vertex mean, for round-off). Each tetrahedron
    contributes exactly its volume ``V = det[a b c] / 6``, first moment ``V (a + b + c)/4``
    and second moment ``V / 20 (a a^T + b b^T + c c^T + s s^T)`` with ``s = a + b + c``
    (relative to o). Faces must be oriented outward (counter-clockwise seen from outside).

    Parameters
    ----------
    vertices : array_like, shape (n, 3)
    faces : array_like of int, shape (k, 3)
        Vertex indices of each triangle.
    density : float
        kg/m^3 (> 0).

    Returns
    -------
    RigidInertia
        In mesh coordinates: com is the centroid of the solid.

    Raises
    ------
    ValueError
        Bad shapes or indices, an open or inconsistently oriented mesh, zero volume, or an
        inward-oriented mesh (negative volume: reverse the winding, ``faces[:, ::-1]``).
    """
    rho = _positive(density, "density")
    V, F = _mesh_arrays(vertices, faces)
    _check_closed(F, V.shape[0])
    o = V.mean(axis=0)
    a, b, c = (V[F[:, k]] - o for k in range(3))
    vol6 = np.einsum("ij,ij->i", a, np.cross(b, c))  # 6 V_i
    vol = float(vol6.sum()) / 6.0
    scale = float(np.abs(V - o).max()) ** 3
    if abs(vol) <= 1e-12 * scale:
        raise ValueError(f"mesh encloses no volume (signed volume {vol:.3g}): degenerate mesh")
    if vol < 0:
        raise ValueError(
            f"mesh is oriented inward (signed volume {vol:.6g} < 0): reverse the face "
            "winding (faces[:, ::-1]) so the normals point outward"
        )
    s = a + b + c
    first = (vol6 / 6.0) @ s / 4.0  # int r dV (relative to o)
    # int r r^T dV = sum V_i / 20 (a a^T + b b^T + c c^T + s s^T)
    outer = (
        np.einsum("ij,ik->ijk", a, a)
        + np.einsum("ij,ik->ijk", b, b)
        + np.einsum("ij,ik->ijk", c, c)
        + np.einsum("ij,ik->ijk", s, s)
    )
    second = np.einsum("i,ijk->jk", vol6 / 120.0, outer)
    m = rho * vol
    com_o = first / vol
    S_c = rho * second - m * np.outer(com_o, com_o)  # int d d^T dm about the CoM
    return RigidInertia(m, com_o + o, np.trace(S_c) * np.eye(3) - S_c)
