"""Something to push against: compliant contacts between the robot and shapes in the world.

An :class:`Environment` holds points (or spheres) fixed to frames of the robot
(:class:`ContactPoint`) and shapes fixed in the world (:class:`Plane`, :class:`Box`,
:class:`Sphere`); every pair of a point and a shape is one contact. For a state (q, v) it
gives the force each contact puts on the robot and the external wrench this makes on each
body, robodyn's ``f_ext`` (what :func:`robodyn.forward_dynamics` takes), so
``rd.simulate(..., environment=env)`` adds them to the equations of motion at every stage
of the integrator.

Each contact is a spring-damper along the shape's normal and regularised Coulomb friction
across it (a penalty model, as in Hunt and Crossley's and MuJoCo's soft contacts, without
their refinements). With ``s`` the signed distance from the point's centre to the shape
(positive outside), ``r`` the point's radius, ``n`` the shape's outward unit normal at the
closest point, ``p_c = c - r n`` the contact point on the robot and ``v_c`` its velocity::

    d      = max(0, r - s)                               penetration depth, m
    d_dot  = -n . v_c                                    its rate, m/s
    f_n    = max(0, k d + b d_dot)    (0 when d = 0)     normal force, N: pushes, never pulls
    v_t    = v_c - (n . v_c) n                           sliding velocity
    f_t    = -mu f_n tanh(|v_t| / v_eps) v_t / |v_t|     friction, N (0 when v_t = 0)
    f      = f_n n + f_t                                 the force on the robot, at p_c

with the shape's stiffness ``k`` (N/m), damping ``b`` (N s/m), friction coefficient ``mu``
and the sliding speed ``v_eps`` (m/s) below which friction fades linearly to zero (the
regularisation: no stiction, a slow creep under a tangential load). At rest on a plane,
``k d = m g``: the depth a weight sinks to.

The force on body i (the body of the point's frame) is the wrench ``[r_i x f_i; f_i]`` in
the body's frame, ``f_i = R_si^T f`` and ``r_i = R_si^T (p_c - p_si)`` (about the body
frame's origin), summed over its contacts: MR's wrench ``[m; f]`` applied on the body, as
``f_ext`` of :func:`robodyn.forward_dynamics` and :func:`robodyn.inverse_dynamics`.

This is not a general contact solver: no contacts between links, no shape on the robot
but points and spheres, no complementarity (forces come from penetration, so a stiff
contact needs a small step: ``dt`` well under ``2 / sqrt(k / m)`` for the mass ``m`` that
presses), no static friction. It is enough to press on a table, wipe a surface or push
on a wall; for contact-rich scenes (grasping, walking, piles of objects) use MuJoCo
(``rd.convert.to_mujoco`` writes the model).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import as_positive

__all__ = ["Environment", "ContactPoint", "Plane", "Box", "Sphere", "Contacts"]


# ------------------------------------------------------------------------ checks
def _vec3(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.shape != (3,):
        raise ValueError(f"{name} must be a 3-vector (3,), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or inf: {a}")
    return a


def _nonnegative(x, name: str, unit: str) -> float:
    try:
        x = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number >= 0{unit}, got {x!r}") from None
    if not (np.isfinite(x) and x >= 0):
        raise ValueError(f"{name} must be a finite number >= 0{unit}, got {x!r}")
    return x


def _rotation(R, name: str) -> np.ndarray:
    R = np.eye(3) if R is None else np.asarray(R, dtype=float)
    if R.shape != (3, 3) or not np.all(np.isfinite(R)):
        raise ValueError(f"{name} must be a finite rotation matrix (3, 3), got shape {R.shape}")
    if not np.allclose(R.T @ R, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
        raise ValueError(f"{name} must be a rotation matrix (R^T R = 1, det R = 1)")
    return R


class _Material:
    """A shape's contact parameters (see the module docstring)."""

    def _material(self, stiffness, damping, friction, v_eps) -> None:
        self.stiffness = as_positive(stiffness, "stiffness", " (N/m)")
        self.damping = _nonnegative(damping, "damping", " (N s/m)")
        self.friction = _nonnegative(friction, "friction", " (a coefficient)")
        self.v_eps = as_positive(v_eps, "v_eps", " (m/s)")

    def _material_json(self) -> dict:
        return {"stiffness": self.stiffness, "damping": self.damping,
                "friction": self.friction, "v_eps": self.v_eps}  # fmt: skip


# ------------------------------------------------------------------------ shapes
class Plane(_Material):
    """A half-space fixed in the world (a table top, a wall, the floor); the points x with
    ``n^T (x - point) <= 0`` are inside.

    Parameters
    ----------
    point : array_like (3,)
        A point of the surface, world coordinates, m.
    normal : array_like (3,)
        Its outward normal (normalised here): the side the robot is on.
    stiffness, damping, friction, v_eps : float
        ``k`` (N/m), ``b`` (N s/m), ``mu`` and the friction's regularising speed (m/s) of
        the contact law (module docstring).
    """

    kind = "plane"

    def __init__(self, point=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0), *, stiffness=1e4,
                 damping=100.0, friction=0.0, v_eps=1e-2):  # fmt: skip
        self.point = _vec3(point, "point")
        n = _vec3(normal, "normal")
        if np.linalg.norm(n) == 0:
            raise ValueError("normal must be a non-zero 3-vector")
        self.normal = n / np.linalg.norm(n)
        self._material(stiffness, damping, friction, v_eps)

    def distance(self, c):
        """Signed distance ``s`` (..., ) of points c (..., 3) and the outward normal n."""
        s = (c - self.point) @ self.normal  # s = n . (c - point)
        return s, np.broadcast_to(self.normal, c.shape)

    def describe(self) -> dict:
        return {"kind": self.kind, "point": self.point.tolist(), "normal": self.normal.tolist(),
                **self._material_json()}  # fmt: skip


class Sphere(_Material):
    """A ball fixed in the world.

    Parameters
    ----------
    center : array_like (3,)
        World coordinates, m.
    radius : float
        m, > 0.
    stiffness, damping, friction, v_eps : float
        As :class:`Plane`'s.
    """

    kind = "sphere"

    def __init__(self, center, radius, *, stiffness=1e4, damping=100.0, friction=0.0,
                 v_eps=1e-2):  # fmt: skip
        self.center = _vec3(center, "center")
        self.radius = as_positive(radius, "radius", " (m)")
        self._material(stiffness, damping, friction, v_eps)

    def distance(self, c):
        """Signed distance ``s = |c - center| - R`` and the outward normal (+z at the
        centre itself, where every direction is as near)."""
        d = c - self.center
        r = np.linalg.norm(d, axis=-1)
        safe = np.where(r > 0, r, 1.0)[..., None]
        n = np.where(r[..., None] > 0, d / safe, [0.0, 0.0, 1.0])
        return r - self.radius, n

    def describe(self) -> dict:
        return {"kind": self.kind, "center": self.center.tolist(), "radius": self.radius,
                **self._material_json()}  # fmt: skip


class Box(_Material):
    """A solid box fixed in the world (a table, a block, a step).

    Parameters
    ----------
    center : array_like (3,)
        Its centre, world coordinates, m.
    size : array_like (3,)
        Edge lengths along its own axes, m, each > 0.
    R : array_like (3, 3), optional
        Its orientation in the world (columns: its axes); default the world's.
    stiffness, damping, friction, v_eps : float
        As :class:`Plane`'s.
    """

    kind = "box"

    def __init__(self, center, size, R=None, *, stiffness=1e4, damping=100.0, friction=0.0,
                 v_eps=1e-2):  # fmt: skip
        self.center = _vec3(center, "center")
        size = _vec3(size, "size")
        if not np.all(size > 0):
            raise ValueError(f"size must be three edge lengths > 0 (m), got {size}")
        self.size = size
        self.R = _rotation(R, "R")
        self._material(stiffness, damping, friction, v_eps)

    def distance(self, c):
        """Signed distance and outward normal. In the box's axes ``x = R^T (c - center)``,
        half sizes h: outside, the nearest point is ``clip(x, -h, h)``; inside, the nearest
        face is the one of least depth ``h_i - |x_i|`` (normal ``sign(x_i) e_i``)."""
        h = 0.5 * self.size
        x = (c - self.center) @ self.R  # R^T (c - center)
        e = x - np.clip(x, -h, h)
        out = np.linalg.norm(e, axis=-1)
        depth = h - np.abs(x)  # of each face, inside
        i = np.argmin(depth, axis=-1)
        n_in = np.zeros(x.shape)
        sign = np.where(np.take_along_axis(x, i[..., None], -1) < 0, -1.0, 1.0)
        np.put_along_axis(n_in, i[..., None], sign, -1)
        outside = out > 0
        safe = np.where(outside, out, 1.0)[..., None]
        n_box = np.where(outside[..., None], e / safe, n_in)
        s = np.where(outside, out, -np.take_along_axis(depth, i[..., None], -1)[..., 0])
        return s, n_box @ self.R.T  # the normal in world axes

    def describe(self) -> dict:
        return {"kind": self.kind, "center": self.center.tolist(), "size": self.size.tolist(),
                "R": self.R.tolist(), **self._material_json()}  # fmt: skip


class ContactPoint:
    """A point (``radius = 0``) or a sphere fixed to an operational frame of the robot.

    Parameters
    ----------
    frame : str or int
        The frame (``model.frame_names``).
    offset : array_like (3,)
        The centre in the frame's coordinates, m.
    radius : float
        m, >= 0: the sphere's surface touches first, and the contact force acts there.
    """

    def __init__(self, frame, offset=(0.0, 0.0, 0.0), radius=0.0):
        if not isinstance(frame, (str, int, np.integer)) or isinstance(frame, bool):
            raise ValueError(f"frame must be a frame name (str) or index (int), got {frame!r}")
        self.frame = frame
        self.offset = _vec3(offset, "offset")
        self.radius = _nonnegative(radius, "radius", " (m)")

    def describe(self) -> dict:
        return {"frame": self.frame if isinstance(self.frame, str) else int(self.frame),
                "offset": self.offset.tolist(), "radius": self.radius}  # fmt: skip


class Contacts(NamedTuple):
    """What an :class:`Environment` puts on the robot in a state (batch axes ``...``).

    Attributes
    ----------
    f_ext : numpy.ndarray (..., nb, 6)
        The wrench ``[m; f]`` on each body, in the body's frame, about its origin (row 0,
        the world, zero): robodyn's ``f_ext``.
    force : numpy.ndarray (..., nc, 3)
        The force each contact puts on the robot, world coordinates, N (zero when apart).
    point : numpy.ndarray (..., nc, 3)
        Where it acts (the contact point on the robot), world coordinates, m.
    depth : numpy.ndarray (..., nc)
        The penetration depth d, m (0 when apart).
    """

    f_ext: np.ndarray
    force: np.ndarray
    point: np.ndarray
    depth: np.ndarray


# ------------------------------------------------------------------------ the environment
class Environment:
    """Compliant contacts between points of the robot and shapes fixed in the world.

    Every pair (point, shape) is a contact, numbered point-major: contact
    ``c = i * len(shapes) + j`` is point i against shape j. The contact law (a
    spring-damper along the normal that only pushes, regularised Coulomb friction across
    it) and the wrenches it makes are in :mod:`robodyn.sim.environment`'s docstring. Not
    a general contact solver: for contact-rich scenes use MuJoCo.

    Parameters
    ----------
    model : Model
        The robot the points are fixed to.
    points : sequence of ContactPoint
        Points or spheres on the robot (a ``(frame, offset, radius)`` tuple is taken as a
        ContactPoint).
    shapes : sequence of Plane, Box or Sphere
        Shapes fixed in the world.

    Examples
    --------
    A 1 kg slider on a vertical prismatic joint rests on a table of stiffness 1e4 N/m: it
    sinks ``m g / k`` = 0.98 mm into it.

    >>> import numpy as np
    >>> import robodyn as rd
    >>> b = rd.ModelBuilder().add_body("slider", "world", joint_type="prismatic",
    ...     inertia=rd.inertia.point(1.0))
    >>> slider = b.add_frame("tip", "slider").build()
    >>> env = rd.sim.Environment(slider, [rd.sim.ContactPoint("tip")], [rd.sim.Plane()])
    >>> c = env.contacts([-9.81e-4], [0.0])
    >>> c.force.round(6) + 0.0  # the table holds the weight: k d = m g
    array([[0.  , 0.  , 9.81]])
    """

    def __init__(self, model, points, shapes):
        from ..model.model import Model

        if not isinstance(model, Model):
            raise ValueError(f"model must be a robodyn Model, got {type(model).__name__}")
        self.model = model
        self.points = tuple(_as_point(p, k) for k, p in enumerate(_seq(points, "points")))
        self.shapes = tuple(_seq(shapes, "shapes"))
        for k, s in enumerate(self.shapes):
            if not isinstance(s, (Plane, Box, Sphere)):
                raise ValueError(f"shapes[{k}] must be a rd.sim.Plane, Box or Sphere, got "
                                 f"{type(s).__name__}")  # fmt: skip
        self._frames = tuple(_frame_index(model, p.frame, f"points[{k}].frame")
                             for k, p in enumerate(self.points))  # fmt: skip
        self.nc = len(self.points) * len(self.shapes)

    def __repr__(self) -> str:
        return (f"<Environment of {self.model.name!r}: {len(self.points)} point(s) x "
                f"{len(self.shapes)} shape(s) = {self.nc} contacts>")  # fmt: skip

    def describe(self) -> dict:
        """The points and shapes with their parameters, as JSON."""
        return {"points": [p.describe() for p in self.points],
                "shapes": [s.describe() for s in self.shapes]}  # fmt: skip

    def contacts(self, q, v) -> Contacts:
        """The contact forces and body wrenches in the state(s) (q, v).

        Parameters
        ----------
        q : array_like (..., nq)
        v : array_like (..., nv)
            One state or a batch (leading dimensions broadcast).

        Returns
        -------
        Contacts
            ``f_ext`` (..., nb, 6), ``force`` and ``point`` (..., nc, 3), ``depth`` (..., nc).
        """
        from ..kinematics import fk, frame_velocity

        m = self.model
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        f_ext = np.zeros((*lead, m.nb, 6))
        force = np.zeros((*lead, self.nc, 3))
        point = np.zeros((*lead, self.nc, 3))
        depth = np.zeros((*lead, self.nc))
        seen = {}
        for i, (p, f) in enumerate(zip(self.points, self._frames)):
            if f not in seen:  # the frame's pose and world-aligned twist [omega; v_origin]
                seen[f] = (fk(m, q, f), frame_velocity(m, q, v, f, "world_aligned"))
            T, V = seen[f]
            R, o = T[..., :3, :3], T[..., :3, 3]
            arm = R @ p.offset  # the centre from the frame's origin, world axes
            c = o + arm
            for j, shape in enumerate(self.shapes):
                k = i * len(self.shapes) + j
                s, n = shape.distance(c)
                arm_c = arm - p.radius * n  # p_c - o: the contact point on the surface
                force[..., k, :], depth[..., k] = _contact_law(shape, p.radius, s, n, arm_c, V)
                point[..., k, :] = o + arm_c
                _add_wrench(f_ext, m, f, T, point[..., k, :], force[..., k, :])
        return Contacts(f_ext, force, point, depth)


def _seq(x, name: str) -> list:
    if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
        raise ValueError(f"{name} must be a sequence, got {type(x).__name__}")
    return list(x)


def _as_point(p, k: int) -> ContactPoint:
    if isinstance(p, ContactPoint):
        return p
    if isinstance(p, (tuple, list)) and 1 <= len(p) <= 3:
        return ContactPoint(*p)
    raise ValueError(f"points[{k}] must be a rd.sim.ContactPoint or (frame, offset, radius), "
                     f"got {p!r}")  # fmt: skip


def _frame_index(model, frame, name: str) -> int:
    """The frame's index; a ModelError (a ValueError) naming the argument when absent."""
    from ..errors import ModelError

    try:
        return model.frame_id(frame)
    except ModelError as exc:
        raise ModelError(f"{name}: {exc}") from None


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b along the last axis of (..., 3) arrays (np.cross costs ~30 us on tiny ones)."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    out[..., 1] = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    out[..., 2] = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return out


def _contact_law(shape, r: float, s, n, arm_c, V):
    """(force (..., 3), depth (...)) of one point against one shape: the spring-damper
    along n and the regularised friction (module docstring). ``arm_c``: the contact point
    p_c from the frame's origin o, world axes; V the frame's world-aligned twist."""
    omega, v_o = V[..., :3], V[..., 3:]
    v_c = v_o + _cross(omega, arm_c)  # velocity of the robot's material point at p_c
    d = np.maximum(0.0, r - s)  # penetration depth
    vn = np.einsum("...i,...i->...", v_c, n)
    f_n = np.where(d > 0, np.maximum(0.0, shape.stiffness * d - shape.damping * vn), 0.0)
    v_t = v_c - vn[..., None] * n  # sliding velocity
    u = np.linalg.norm(v_t, axis=-1) / shape.v_eps
    # tanh(u) / u -> 1 as u -> 0: f_t = -mu f_n (tanh(u) / u) v_t / v_eps, smooth at rest
    ratio = np.where(u > 1e-8, np.tanh(u) / np.where(u > 1e-8, u, 1.0), 1.0)
    f_t = -(shape.friction * f_n * ratio / shape.v_eps)[..., None] * v_t
    return f_n[..., None] * n + f_t, d


def _add_wrench(f_ext, model, f: int, T_sf, p_c, force) -> None:
    """Add the wrench of ``force`` (world axes) at ``p_c`` to the row of the frame's body in
    f_ext: ``[r x f; f]`` in the body frame, about its origin (module docstring)."""
    b = int(model.frame_body[f])
    R_bf, p_bf = model.frame_R[f], model.frame_p[f]
    R_sb = T_sf[..., :3, :3] @ R_bf.T  # T_sb = T_sf T_bf^-1
    p_sb = T_sf[..., :3, 3] - R_sb @ p_bf
    f_b = np.einsum("...ji,...j->...i", R_sb, force)  # R_sb^T f
    r_b = np.einsum("...ji,...j->...i", R_sb, p_c - p_sb)
    f_ext[..., b, :3] += _cross(r_b, f_b)  # m = r x f
    f_ext[..., b, 3:] += f_b
