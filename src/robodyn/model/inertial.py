"""The checks of a link's inertia that the URDF loader and the model doctor share.

:func:`inertial_issue` says what is wrong with an ``<inertial>`` (an error that makes the
dynamics undefined, or a warning for what is implausible but usable);
:func:`geometry_problem` compares an inertia with the one of the link's collision
primitives (:func:`primitive_inertia`); :func:`balanced_inertia` is the nearest physical
tensor. :func:`~robodyn.model.urdf.load_urdf` warns or refuses with these messages and
:func:`~robodyn.model.doctor.check_model` reports them as findings, so both say the same.
The module sits below both: it reads the URDF description
(:mod:`robodyn.model.urdf_description`) and the inertia math, nothing else of robodyn.
"""

from __future__ import annotations

import math

import numpy as np

from ..inertia import box_moments, check_inertia, compound, cylinder_moments, sphere_moment
from .urdf_description import UrdfInertial, UrdfLink, origin_rotation

__all__ = [
    "NEGLIGIBLE_NEGATIVE",
    "PLAUSIBLE_FACTOR",
    "balanced_inertia",
    "clearly_physical",
    "inertia_scale",
    "negligible_negative",
    "geometry_problem",
    "inertial_issue",
    "inertial_problem",
    "primitive_inertia",
]

PLAUSIBLE_FACTOR = 10.0  # inertia vs collision-geometry inertia: warn beyond this ratio
#: A negative principal moment no larger than this fraction of the robot's inertia scale
#: (:func:`inertia_scale`) is round-off of a CAD export or a printed tensor, not a defect:
#: the URDF loader replaces the tensor by the nearest physical one, with a warning.
NEGLIGIBLE_NEGATIVE = 1e-6


def inertial_issue(inertial: UrdfInertial) -> tuple[str, str] | None:
    """What is wrong with a URDF ``<inertial>``: None, or ``(severity, message)``.

    ``"error"`` makes the dynamics undefined: a negative mass, a tensor that is not
    positive semi-definite (beyond round-off). ``"warning"`` is usable but not physical:
    the triangle inequality of the principal moments violated (typical of CAD export),
    or a zero mass with a non-zero tensor (a fixed base link, a flange); Pinocchio,
    PyBullet and MuJoCo (with ``balanceinertia``) load both as written, and so does
    :func:`load_urdf`, with a :class:`~robodyn.errors.ModelWarning`.

    The tolerance scale is ``|trace| + 1e-6 m`` so that round-off in a printed point-mass
    tensor (entries ~1e-35) is not taken for a real defect.

    Parameters
    ----------
    inertial : UrdfInertial

    Returns
    -------
    tuple of (str, str) or None
    """
    m, I = inertial.mass, inertial.inertia
    if m < 0:
        return "error", f"negative mass {m:g} kg"
    rows = I.tolist()  # (the common cases told on plain floats)
    (i00, i01, i02), (i10, i11, i12), (i20, i21, i22) = rows
    if m > 0 and i01 == i02 == i12 == i10 == i20 == i21 == 0:
        a, b, c = sorted((i00, i11, i22))
        if a >= 0 and a + b >= c:  # a physical diagonal tensor: what check_inertia passes
            return None
    if m > 0 and clearly_physical(I):
        return None
    nonzero = any(x != 0 for row in rows for x in row)
    if m == 0 and not nonzero:
        return None
    try:
        check_inertia(I, "inertia", scale=abs(float(np.trace(I))) + 1e-6 * m)
    except ValueError as exc:
        msg = str(exc)
        if "positive semi-definite" in msg or "symmetric" in msg:
            return "error", msg
        if m == 0:
            return "warning", f"zero mass with a non-zero inertia tensor, and {msg}"
        return "warning", msg
    if m == 0:
        diag = "[" + " ".join(f"{x:.6g}" for x in np.diag(I).tolist()) + "]"
        return "warning", f"zero mass with a non-zero inertia tensor (diagonal {diag} kg m^2)"
    return None


def clearly_physical(I: np.ndarray) -> bool:
    """True when the tensor ``I`` is symmetric, positive definite and strictly inside the
    triangle inequality by margins far beyond round-off; False when in doubt.

    A sufficient test in a few float operations, for the common case of a load (the
    eigenvalues decide the others): Sylvester's criterion on ``I`` and on
    ``tr(I)/2 1 - I``, whose eigenvalues ``(I_j + I_k - I_i)/2`` are the slacks of the
    triangle inequality; each leading principal minor must exceed ``1e-12 tr(I)^k``
    (``k`` its order), so rounding cannot turn a negative minor positive.

    Parameters
    ----------
    I : numpy.ndarray, shape (3, 3)

    Returns
    -------
    bool
    """
    (a, b, c), (b2, d, e), (c2, e2, f) = I.tolist()
    if b != b2 or c != c2 or e != e2:
        return False
    t = a + d + f
    if not t > 0:
        return False
    h = 0.5 * t
    for p, q, r, u, v, w in ((a, d, f, b, c, e), (h - a, h - d, h - f, -b, -c, -e)):
        m2 = p * q - u * u  # [[p, u, v], [u, q, w], [v, w, r]]: I, then tr/2 1 - I
        m3 = p * (q * r - w * w) - u * (u * r - w * v) + v * (u * w - q * v)
        if not (p > 1e-12 * t and m2 > 1e-12 * t * t and m3 > 1e-12 * t * t * t):
            return False
    return True


def inertial_problem(inertial: UrdfInertial) -> str | None:
    """Why a URDF ``<inertial>`` is not physical (None if it is): the message of
    :func:`inertial_issue`, whatever its severity.

    Parameters
    ----------
    inertial : UrdfInertial

    Returns
    -------
    str or None
    """
    issue = inertial_issue(inertial)
    return None if issue is None else issue[1]


def balanced_inertia(I: np.ndarray) -> np.ndarray:
    """The nearest physical tensor with the same principal axes (MuJoCo's ``balanceinertia``
    in spirit): negative principal moments set to 0, then, if ``I1 + I2 < I3``
    (``I1 <= I2 <= I3``), the two smaller moments raised by half the deficit each, so that
    ``I1 + I2 = I3``.

    Parameters
    ----------
    I : array_like, shape (3, 3)
        Inertia tensor about the CoM, possibly not physical; only its symmetric part is read.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
    """
    I = 0.5 * (np.asarray(I, float) + np.asarray(I, float).T)
    w, V = np.linalg.eigh(I)
    w = np.maximum(w, 0.0)
    deficit = w[2] - w[0] - w[1]
    if deficit > 0:
        w[0] += 0.5 * deficit
        w[1] += 0.5 * deficit
    return (V * w) @ V.T


def inertia_scale(links) -> float:
    """A robot's inertia scale: the largest principal moment of any link's ``<inertial>``
    tensor, as written (kg m^2; 0 when no link has one).

    Parameters
    ----------
    links : iterable of UrdfLink

    Returns
    -------
    float
    """
    tensors = [link.inertial.inertia for link in links if link.inertial is not None]
    if not tensors:
        return 0.0
    I = np.asarray(tensors, dtype=float)
    return max(0.0, float(np.linalg.eigvalsh(0.5 * (I + I.transpose(0, 2, 1)))[:, -1].max()))


def negligible_negative(I: np.ndarray, scale: float) -> float | None:
    """The smallest principal moment of ``I`` when it is negative but negligible: no
    larger in magnitude than ``NEGLIGIBLE_NEGATIVE * scale`` (``scale``: the robot's
    :func:`inertia_scale`); None otherwise (no negative moment, or a real one).

    Parameters
    ----------
    I : numpy.ndarray, shape (3, 3)
        The tensor as written (its symmetric part is read).
    scale : float
        kg m^2.

    Returns
    -------
    float or None
    """
    low = float(np.linalg.eigvalsh(0.5 * (I + I.T))[0])
    return low if 0.0 > low >= -NEGLIGIBLE_NEGATIVE * scale else None


def primitive_inertia(geoms, mass: float | None = None, density: float = 1000.0):
    """Mass, CoM and inertia about the CoM (link frame) of collision primitives.

    The primitives (box, cylinder along its z, sphere) are taken as one solid of uniform
    density; with ``mass`` given, the density is set so the total is ``mass``.

    Parameters
    ----------
    geoms : sequence of UrdfGeometry
    mass : float, optional
        Total mass (kg); default ``density * volume``.
    density : float
        kg/m^3, used when ``mass`` is None.

    Returns
    -------
    (float, numpy.ndarray (3,), numpy.ndarray (3, 3)) or None
        None when there is no primitive, a mesh, or a degenerate size.
    """
    solids = _primitive_masses(geoms, mass, density)
    if solids is None:
        return None
    parts = []
    for g, m, moments in solids:
        I = np.diag(moments)  # about the centre, the primitive's axes
        if g.rpy != (0.0, 0.0, 0.0):
            R = origin_rotation(tuple(map(float, g.rpy)))
            I = R @ I @ R.T
            I = 0.5 * (I + I.T)
        parts.append((m, np.array(g.xyz, float), I))
    if len(parts) == 1:  # one solid: its own centre and inertia
        return parts[0]
    return compound(parts)


def _primitive_masses(geoms, mass: float | None, density: float):
    """``[(geometry, m, principal moments about its centre)]`` of collision primitives taken
    as one solid of uniform density (``mass`` the total when given, else ``density`` times
    the volume); None when there is no primitive, a mesh, or a degenerate size or mass."""
    shapes = []
    for g in geoms:
        dims = _primitive_dims(g)
        if dims is None:
            return None
        shapes.append((g, dims))
    if not shapes:
        return None
    total = sum(vol for _, (vol, _) in shapes)
    rho = density if mass is None else mass / total
    if not rho > 0:
        return None
    out = []
    for g, (vol, moments) in shapes:
        m = rho * vol
        if not m > 0 or not math.isfinite(m):
            return None
        out.append((g, m, moments(m)))
    return out


_PRIMITIVES = ("box", "cylinder", "sphere")


def _primitive_dims(g):
    """``(volume, moments)`` of a box, cylinder (along its z) or sphere collision geometry,
    ``moments(m)`` its principal moments about its centre for a mass ``m``; None for any
    other geometry or a size that is not positive and finite."""
    try:
        if g.kind == "box":
            a, b, c = (float(x) for x in g.size)
            dims, vol = (a, b, c), a * b * c
            moments = lambda m: box_moments(m, a, b, c)  # noqa: E731
        elif g.kind == "cylinder":
            r, L = float(g.radius), float(g.length)
            dims, vol = (r, L), math.pi * r**2 * L
            moments = lambda m: cylinder_moments(m, r, L)  # noqa: E731
        elif g.kind == "sphere":
            r = float(g.radius)
            dims, vol = (r,), 4.0 / 3.0 * math.pi * r**3
            moments = lambda m: (sphere_moment(m, r),) * 3  # noqa: E731
        else:
            return None
    except (TypeError, ValueError):
        return None
    if not all(x > 0 and math.isfinite(x) for x in dims) or not 0 < vol < math.inf:
        return None
    return vol, moments


def geometry_problem(link: UrdfLink) -> str | None:
    """Why a link's inertia is implausible for its collision geometry (None if it is not):
    more than ``PLAUSIBLE_FACTOR`` off the inertia of its collision primitives with the same
    mass (wrong units, a bad CAD export).

    Parameters
    ----------
    link : UrdfLink

    Returns
    -------
    str or None
        The message, with the numbers.
    """
    inertial = link.inertial
    if inertial is None or not inertial.mass > 0 or not link.collisions:
        return None  # (cheap tests first: a load calls this for every link)
    if any(g.kind not in _PRIMITIVES for g in link.collisions):  # a mesh: nothing to compare
        return None
    if inertial_problem(inertial) is not None:
        return None
    geo = _primitive_diagonal(link.collisions, inertial.mass)
    if geo is None:
        return None
    ours = np.diag(inertial.inertia_link).tolist()
    ratio = [o / g if g > 0 else math.inf for o, g in zip(ours, geo)]
    if all(1.0 / PLAUSIBLE_FACTOR <= r <= PLAUSIBLE_FACTOR for r in ratio):
        return None
    k = max(range(3), key=lambda i: abs(math.log(ratio[i] if ratio[i] > 0 else 1e-300)))
    axis = "xyz"[k]
    kinds = ", ".join(sorted({g.kind for g in link.collisions}))
    return (
        f"inertia implausible for its collision geometry ({kinds}) with its mass "
        f"{inertial.mass:g} kg: I{axis}{axis} = {ours[k]:.6g} vs {geo[k]:.6g} kg m^2 for the "
        f"geometry (ratio {ratio[k]:.3g}, more than {PLAUSIBLE_FACTOR:g}x off); diagonal "
        f"{_diagonal(ours)} vs {_diagonal(geo)}"
    )


def _primitive_diagonal(geoms, mass: float) -> list[float] | None:
    """The diagonal of :func:`primitive_inertia`'s tensor (link axes) for ``mass``, in plain
    floats: each primitive's principal moments turned into link axes
    (``I_ii = sum_j R_ij^2 I_j``), then the parallel-axis theorem about the common centre
    ``c = sum m_k c_k / m`` (``I_ii = sum_k I_k,ii + m_k (|d_k|^2 - d_k,i^2)``,
    ``d_k = c_k - c``, course notes 001 eq. 10.46)."""
    if not 0 < mass < math.inf:
        return None
    if len(geoms) == 1 and geoms[0].rpy == (0.0, 0.0, 0.0):  # its moments for the mass
        dims = _primitive_dims(geoms[0])
        return None if dims is None else list(dims[1](mass))
    solids = _primitive_masses(geoms, mass, 1000.0)
    if solids is None:
        return None
    parts = []
    for g, m, moments in solids:
        if g.rpy != (0.0, 0.0, 0.0):
            R = origin_rotation(tuple(map(float, g.rpy))).tolist()
            moments = [sum(R[i][j] * moments[j] * R[i][j] for j in range(3)) for i in range(3)]
        parts.append((m, g.xyz, list(moments)))
    if len(parts) == 1:  # one solid: about its own centre
        return parts[0][2]
    total = sum(m for m, _, _ in parts)
    c = [sum(m * xyz[i] for m, xyz, _ in parts) / total for i in range(3)]
    diagonal = [0.0, 0.0, 0.0]
    for m, xyz, moments in parts:
        d = [xyz[i] - c[i] for i in range(3)]
        dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        for i in range(3):
            diagonal[i] += moments[i] + m * (dd - d[i] * d[i])
    return diagonal


def _diagonal(d) -> str:
    """Three moments as ``[a b c]``, 4 significant digits."""
    return "[" + " ".join(f"{x:.4g}" for x in d) + "]"
