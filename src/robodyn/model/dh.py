"""Denavit-Hartenberg tables, standard and modified (Craig), turned into a Model.

A table row is ``(a, alpha, d, theta_offset)``; joint i's coordinate adds to theta
(revolute: ``theta = q + theta_offset``) or to d (prismatic: ``d = q + d``).

* standard (Denavit-Hartenberg, Spong): ``T_{i-1,i} = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)``.
  Joint i moves about/along ``z_{i-1}``, while the DH frame {i} sits at the far end of
  link i. robodyn's body frame must move with its joint, so body i's frame is the joint
  frame ``{i-1} Rz(theta_i)`` (revolute) or ``{i-1} Rz(theta_i) Tz(d_i)`` (prismatic), and
  the rest of the row, ``Tz(d_i) Tx(a_i) Rx(alpha_i)`` resp. ``Tx(a_i) Rx(alpha_i)``, is a
  fixed offset carried by the frame ``link{i}`` and by the placement of joint i + 1.
* modified (Craig): ``T_{i-1,i} = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)``, with the
  row holding ``(a_{i-1}, alpha_{i-1}, d_i, theta_i)``. Joint i moves about/along ``z_i``, so
  body i's frame is the DH frame {i} itself.

The model has bodies ``body1 .. bodyn`` on joints ``joint1 .. jointn`` and operational frames
``link0`` (the base DH frame, the world), ``link1 .. linkn`` (the DH frames) and ``ee``
(``link{n}`` times the optional ``tool`` transform). Rows with joint type ``"fixed"`` (e.g.
a flange) are merged into the previous body; their frames survive.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ModelError
from ..spatial import rot_x, rot_z
from .builder import ModelBuilder, _float_array
from .model import Model

__all__ = ["from_dh", "dh_transform"]


def _Rz(t: float) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = rot_z(t)
    return T


def _Rx(t: float) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = rot_x(t)
    return T


def _Tz(d: float) -> np.ndarray:
    T = np.eye(4)
    T[2, 3] = d
    return T


def _Tx(a: float) -> np.ndarray:
    T = np.eye(4)
    T[0, 3] = a
    return T


def dh_transform(a: float, alpha: float, d: float, theta: float, convention: str = "standard"):
    """One DH link transform ``T_{i-1,i}``.

    Parameters
    ----------
    a, alpha, d, theta : float
        The row (for ``"modified"``: ``a_{i-1}, alpha_{i-1}, d_i, theta_i``).
    convention : {"standard", "modified"}

    Returns
    -------
    numpy.ndarray, shape (4, 4)
        standard: ``Rz(theta) Tz(d) Tx(a) Rx(alpha)``;
        modified: ``Rx(alpha) Tx(a) Rz(theta) Tz(d)``.
    """
    if convention == "standard":
        return _Rz(theta) @ _Tz(d) @ _Tx(a) @ _Rx(alpha)
    if convention == "modified":
        return _Rx(alpha) @ _Tx(a) @ _Rz(theta) @ _Tz(d)
    raise ModelError(f"convention must be 'standard' or 'modified', got {convention!r}")


def _per_joint(x, n: int, what: str, default: float) -> np.ndarray:
    if x is None:
        return np.full(n, default)
    shape_error = f"must have one entry per table row ({n}), got shape"
    return _float_array(x, what, f"{n} numbers", (n,), wrong_shape=shape_error, finite=False)


def from_dh(
    table,
    *,
    convention: str = "standard",
    joint_types: Sequence[str] | None = None,
    inertias: Sequence | None = None,
    gravity=(0.0, 0.0, -9.81),
    name: str = "dh_robot",
    lower=None,
    upper=None,
    velocity=None,
    effort=None,
    tool=None,
) -> Model:
    """Build a serial Model from a DH table.

    Parameters
    ----------
    table : array_like, shape (n, 4)
        Rows ``(a, alpha, d, theta_offset)`` (m, rad).
    convention : {"standard", "modified"}
        Standard DH or Craig's modified DH (see the module docstring).
    joint_types : sequence of str, optional
        Per row: "revolute" (default), "continuous", "prismatic" or "fixed".
    inertias : sequence of RigidInertia or None, optional
        Per row, link i's inertia expressed in its DH frame {i} (None: massless).
    gravity : array_like, shape (3,)
        Gravity in the base frame.
    name : str
        Model name.
    lower, upper, velocity, effort : array_like, shape (n,), optional
        Joint limits per row (ignored for fixed rows); unlimited when omitted.
    tool : array_like, shape (4, 4), optional
        Pose of the frame ``ee`` in the last DH frame (identity when omitted).

    Returns
    -------
    Model
        Bodies ``body1 .. bodyn`` on joints ``joint1 .. jointn`` (a fixed row's body merged
        into its parent, its name kept as a frame); frames ``link0 .. linkn`` (the DH frames)
        and ``ee``.

    Raises
    ------
    ModelError
        Bad table shape, non-finite entries, unknown joint type or convention, or any
        builder error.
    """
    tab = _dh_table(table, convention)
    n = tab.shape[0]
    kinds = ["revolute"] * n if joint_types is None else list(joint_types)
    if len(kinds) != n:
        raise ModelError(f"joint_types must have one entry per row ({n}), got {len(kinds)}")
    if inertias is not None and len(inertias) != n:
        raise ModelError(f"inertias must have one entry per row ({n}), got {len(inertias)}")
    lo = _per_joint(lower, n, "lower", -np.inf)
    hi = _per_joint(upper, n, "upper", np.inf)
    vel = _per_joint(velocity, n, "velocity", np.inf)
    eff = _per_joint(effort, n, "effort", np.inf)

    b = ModelBuilder(name=name, gravity=gravity)
    b.add_frame("link0", "world")
    E_prev = np.eye(4)  # pose of DH frame {i-1} in body frame i-1
    for i in range(n):
        P, E = _dh_placement(tab[i], kinds[i], i, convention, E_prev)
        b.add_body(
            f"body{i + 1}",
            f"body{i}" if i > 0 else "world",
            joint_name=f"joint{i + 1}",
            joint_type=kinds[i],
            axis=(0.0, 0.0, 1.0),
            T=P,
            inertia=_dh_inertia(None if inertias is None else inertias[i], E, i),
            lower=lo[i],
            upper=hi[i],
            velocity=vel[i],
            effort=eff[i],
        )
        b.add_frame(f"link{i + 1}", f"body{i + 1}", E)
        E_prev = E
    tool_T = np.eye(4) if tool is None else np.asarray(tool, dtype=float)
    if tool_T.shape != (4, 4):
        raise ModelError(f"tool must be a 4x4 transform, got shape {tool_T.shape}")
    if n == 0:
        b.add_frame("ee", "world", tool_T)
    else:
        b.add_frame("ee", f"body{n}", E_prev @ tool_T)
    return b.build()


def _dh_table(table, convention: str) -> np.ndarray:
    """The table as a finite (n, 4) float array (and the convention known), or ModelError."""
    if convention not in ("standard", "modified"):
        raise ModelError(f"convention must be 'standard' or 'modified', got {convention!r}")
    kind = "an (n, 4) array of (a, alpha, d, theta_offset)"
    shape_error = "must have shape (n, 4) rows (a, alpha, d, theta), got"
    return _float_array(table, "table", kind, (None, 4), wrong_shape=shape_error)


def _dh_placement(row, kind: str, i: int, convention: str, E_prev: np.ndarray) -> tuple:
    """``(P, E)`` of table row i: ``P``, the pose of joint i's frame (where body i's frame is
    at q = 0) in body frame i-1, and ``E``, the pose of the DH frame {i} in body frame i;
    ``E_prev`` is that of {i-1} in body frame i-1."""
    a, alpha, d, th = row
    if kind not in ("revolute", "continuous", "prismatic", "fixed"):
        raise ModelError(
            f"joint_types[{i}] = {kind!r}: expected 'revolute', 'continuous', "
            "'prismatic' or 'fixed'"
        )
    if convention == "standard":
        # T_{i-1,i} = Rz(theta) Tz(d) Tx(a) Rx(alpha); the joint acts first.
        if kind == "prismatic":
            return E_prev @ _Rz(th) @ _Tz(d), _Tx(a) @ _Rx(alpha)
        if kind == "fixed":
            return E_prev @ dh_transform(a, alpha, d, th), np.eye(4)
        return E_prev @ _Rz(th), _Tz(d) @ _Tx(a) @ _Rx(alpha)
    # T_{i-1,i} = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i); the joint acts last,
    # and Rz(q) commutes with Tz(d), so body i's frame is {i} itself.
    return dh_transform(a, alpha, d, th, "modified"), np.eye(4)


def _dh_inertia(inertia, E: np.ndarray, i: int):
    """Link i's inertia, given in its DH frame {i}, in the body frame (``E``: {i} in the
    body); None stays None (massless)."""
    if inertia is None:
        return None
    try:
        # link i's inertia from its DH frame {i} into the body frame: T_{body,i} = E
        return inertia.moved(E[:3, :3], E[:3, 3])
    except AttributeError:
        raise ModelError(
            f"inertias[{i}] must be a RigidInertia, got {type(inertia).__name__}"
        ) from None
