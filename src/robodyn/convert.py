"""Loss-free converters between robodyn's layouts and Pinocchio's / MuJoCo's.

robodyn follows Modern Robotics: twists and Jacobian rows are ``[omega; v]``, wrenches
``[m; f]``, and a floating base has ``q[:7] = [x, y, z, qw, qx, qy, qz]`` with
``v[:6] = [omega_b, v_b]`` (body twist). The other libraries differ:

=====================  ==================================  =============================
quantity               Pinocchio                           MuJoCo
=====================  ==================================  =============================
twist / Jacobian rows  ``[v; omega]``                      ``jacp`` / ``jacr`` separate
free-joint q           ``[x, y, z, qx, qy, qz, qw]``       ``[x, y, z, qw, qx, qy, qz]``
free-joint v           ``[v_b; omega_b]`` (body frame)     ``[v_world; omega_b]``
continuous joint q     ``(cos t, sin t)``, nq = 2          an angle (hinge)
spherical q            ``[qx, qy, qz, qw]``                ``[qw, qx, qy, qz]`` (ball)
planar q / v           ``(x, y, cos, sin)`` / ``(v_x,      slide, slide, hinge (world
                       v_y, omega)`` (JointModelPlanar)    rates: no planar joint)
helical                JointModelHelicalUnaligned          none
cylindrical            revolute then prismatic joint       hinge + slide on one axis
universal              JointModelUniversal                 two hinges
joint order            depth first, as in the URDF         as in the MJCF
=====================  ==================================  =============================

:class:`PinocchioMap` matches joints by name, so it also works when the two libraries
order the joints differently. Every function here is an exact permutation (plus the
cos/sin map of continuous joints and MuJoCo's world-frame linear velocity): nothing is
approximated.
"""

from __future__ import annotations

import numpy as np

from .errors import ModelError
from .model.model import JOINT_FREE, JOINT_PLANAR, JOINT_SPHERICAL, Model
from .spatial import quat_to_rotation

__all__ = [
    "PinocchioMap",
    "twist_to_pinocchio",
    "twist_from_pinocchio",
    "quat_wxyz_to_xyzw",
    "quat_xyzw_to_wxyz",
    "free_v_to_mujoco",
    "free_v_from_mujoco",
]


def twist_to_pinocchio(V) -> np.ndarray:
    """``[omega, v]`` -> ``[v, omega]`` (works for wrenches ``[m, f]`` -> ``[f, m]``); (..., 6)."""
    V = np.asarray(V, dtype=float)
    return np.concatenate([V[..., 3:], V[..., :3]], axis=-1)


def twist_from_pinocchio(V) -> np.ndarray:
    """``[v, omega]`` -> ``[omega, v]`` (and ``[f, m]`` -> ``[m, f]``); (..., 6)."""
    return twist_to_pinocchio(V)  # the swap is its own inverse


def quat_wxyz_to_xyzw(q) -> np.ndarray:
    """Scalar-first quaternion to scalar-last (Pinocchio, Eigen, ROS); (..., 4)."""
    q = np.asarray(q, dtype=float)
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)


def quat_xyzw_to_wxyz(q) -> np.ndarray:
    """Scalar-last quaternion to scalar-first (robodyn, MuJoCo); (..., 4)."""
    q = np.asarray(q, dtype=float)
    return np.concatenate([q[..., 3:], q[..., :3]], axis=-1)


def free_v_to_mujoco(q_free, v_free) -> np.ndarray:
    """robodyn free-joint velocity ``[omega_b, v_b]`` -> MuJoCo's ``[v_world, omega_b]``.

    Parameters
    ----------
    q_free : array_like, shape (7,)
        ``[x, y, z, qw, qx, qy, qz]``.
    v_free : array_like, shape (6,)
        Body twist ``[omega_b, v_b]``.

    Returns
    -------
    numpy.ndarray, shape (6,)
    """
    R = quat_to_rotation(np.asarray(q_free, dtype=float)[3:7])
    v = np.asarray(v_free, dtype=float)
    return np.concatenate([R @ v[3:], v[:3]])


def free_v_from_mujoco(q_free, v_mj) -> np.ndarray:
    """MuJoCo free-joint velocity ``[v_world, omega_b]`` -> robodyn's ``[omega_b, v_b]``."""
    R = quat_to_rotation(np.asarray(q_free, dtype=float)[3:7])
    v = np.asarray(v_mj, dtype=float)
    return np.concatenate([v[3:], R.T @ v[:3]])


class PinocchioMap:
    """Index maps between a robodyn :class:`~robodyn.Model` and a ``pinocchio.Model``.

    Joints are matched by name; a robodyn floating base (joint ``root_joint``) matches
    Pinocchio's free flyer. Pinocchio is not imported here: ``pin_model`` is read
    through its public attributes (``names``, ``joints[i].idx_q/idx_v/nq/nv``). A free
    joint anywhere matches a free flyer, a spherical joint ``JointModelSpherical``
    (quaternion reordered), a planar joint ``JointModelPlanar`` (q = (phi, x, y) <-> (x,
    y, cos phi, sin phi), v = (omega, v_x, v_y) <-> (v_x, v_y, omega)), a helical joint a
    helical one and a cylindrical joint (theta, d) a composite of a revolute then a
    prismatic joint about the same axis, or two such joints one after the other (the
    revolute one named like the cylindrical joint); a universal joint matches
    ``JointModelUniversal`` (the same (t1, t2)).

    Parameters
    ----------
    model : robodyn.Model
    pin_model : pinocchio.Model
    """

    def __init__(self, model: Model, pin_model) -> None:
        self.model = model
        self.nq_pin = int(pin_model.nq)
        self.nv_pin = int(pin_model.nv)
        if model.nv != self.nv_pin:
            raise ModelError(f"nv differs: robodyn {model.nv}, Pinocchio {self.nv_pin}")
        pin_joints = {}
        for j in range(1, len(pin_model.joints)):
            jm = pin_model.joints[j]
            pin_joints[str(pin_model.names[j])] = (
                int(jm.idx_q),
                int(jm.idx_v),
                int(jm.nq),
                int(jm.nv),
            )
        # v: v_pin[vperm[k]] = v[k]; the free joint also swaps [omega, v] -> [v, omega].
        vperm = np.empty(model.nv, dtype=np.int64)
        q_plan = []  # (kind, robodyn qadr, pin idx_q)
        for i in range(1, model.nb):
            if model.jnt_nv[i] == 0:
                continue
            name = model.joint_names_all[i]
            if name not in pin_joints:
                if int(model.jnt_type[i]) == JOINT_FREE:
                    free = [n for n, t in pin_joints.items() if t[2] == 7]
                    if len(free) != 1:
                        raise ModelError("Pinocchio model has no unique free flyer")
                    name = free[0]
                else:
                    raise ModelError(f"joint {name!r} not in the Pinocchio model")
            iq, iv, nq, nv = pin_joints[name]
            qa, va = int(model.jnt_qadr[i]), int(model.jnt_vadr[i])
            jt = int(model.jnt_type[i])
            if jt == JOINT_FREE:
                vperm[va : va + 3] = np.arange(iv + 3, iv + 6)  # omega -> pin's last three
                vperm[va + 3 : va + 6] = np.arange(iv, iv + 3)  # v -> pin's first three
                q_plan.append(("free", qa, iq))
            elif jt == JOINT_SPHERICAL:
                vperm[va : va + 3] = np.arange(iv, iv + 3)
                q_plan.append(("ball", qa, iq))
            elif jt == JOINT_PLANAR:
                vperm[va] = iv + 2  # omega -> pin's last
                vperm[va + 1 : va + 3] = np.arange(iv, iv + 2)
                q_plan.append(("planar", qa, iq))
            elif int(model.jnt_nv[i]) == 2:  # cylindrical, universal: the same order
                vperm[va : va + 2] = np.arange(iv, iv + 2)
                q_plan.append(("one", qa, iq))
                q_plan.append(("one", qa + 1, iq + 1))
            else:
                vperm[va] = iv
                q_plan.append(("cs" if nq == 2 else "one", qa, iq))
        self.vperm = vperm
        self._q_plan = q_plan

    def q_to_pin(self, q) -> np.ndarray:
        """robodyn q (nq,) -> Pinocchio q (nq_pin,)."""
        q = np.asarray(q, dtype=float)
        out = np.zeros(self.nq_pin)
        for kind, qa, iq in self._q_plan:
            if kind == "free":
                out[iq : iq + 3] = q[qa : qa + 3]
                out[iq + 3 : iq + 7] = quat_wxyz_to_xyzw(q[qa + 3 : qa + 7])
            elif kind == "ball":
                out[iq : iq + 4] = quat_wxyz_to_xyzw(q[qa : qa + 4])
            elif kind == "planar":
                out[iq : iq + 2] = q[qa + 1 : qa + 3]
                out[iq + 2], out[iq + 3] = np.cos(q[qa]), np.sin(q[qa])
            elif kind == "cs":
                out[iq], out[iq + 1] = np.cos(q[qa]), np.sin(q[qa])
            else:
                out[iq] = q[qa]
        return out

    def q_from_pin(self, q_pin) -> np.ndarray:
        """Pinocchio q (nq_pin,) -> robodyn q (nq,)."""
        q_pin = np.asarray(q_pin, dtype=float)
        out = np.zeros(self.model.nq)
        for kind, qa, iq in self._q_plan:
            if kind == "free":
                out[qa : qa + 3] = q_pin[iq : iq + 3]
                out[qa + 3 : qa + 7] = quat_xyzw_to_wxyz(q_pin[iq + 3 : iq + 7])
            elif kind == "ball":
                out[qa : qa + 4] = quat_xyzw_to_wxyz(q_pin[iq : iq + 4])
            elif kind == "planar":
                out[qa + 1 : qa + 3] = q_pin[iq : iq + 2]
                out[qa] = np.arctan2(q_pin[iq + 3], q_pin[iq + 2])
            elif kind == "cs":
                out[qa] = np.arctan2(q_pin[iq + 1], q_pin[iq])
            else:
                out[qa] = q_pin[iq]
        return out

    def v_to_pin(self, v) -> np.ndarray:
        """robodyn velocity-like vector (v, a, tau) (..., nv) -> Pinocchio's order."""
        v = np.asarray(v, dtype=float)
        out = np.empty_like(v)
        out[..., self.vperm] = v
        return out

    def v_from_pin(self, v_pin) -> np.ndarray:
        """Pinocchio velocity-like vector (v, a, tau) (..., nv) -> robodyn's order."""
        return np.asarray(v_pin, dtype=float)[..., self.vperm]

    def matrix_from_pin(self, M_pin) -> np.ndarray:
        """An (nv, nv) matrix in Pinocchio's dof order (M, C, ...) -> robodyn's order."""
        M_pin = np.asarray(M_pin, dtype=float)
        return M_pin[np.ix_(self.vperm, self.vperm)]

    def jacobian_from_pin(self, J_pin) -> np.ndarray:
        """A (6, nv) Pinocchio Jacobian (rows [v; omega]) -> robodyn's rows [omega; v]."""
        J_pin = np.asarray(J_pin, dtype=float)
        return np.concatenate([J_pin[3:], J_pin[:3]], axis=0)[:, self.vperm]
