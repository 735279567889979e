"""The libraries side by side: one adapter per library (:class:`RobodynLib`,
:class:`PinLib`, :class:`MujocoLib`, :class:`MRLib`) that binds each benchmark function to
a zero-argument call on a state and gives its result in robodyn's conventions, and the
equality check of a library against the reference (:func:`_check`) run before anything is
timed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .common import RTOL, _rel_err
from .robots import _ERD_FILES, _FLOATING, Case, mjcf_from, mujoco_from_urdf, urdf_text


def _pin_frame_id(pm, pin, name: str) -> int:
    for ft in (pin.FrameType.OP_FRAME, pin.FrameType.BODY, pin.FrameType.FIXED_JOINT):
        if pm.existFrame(name, ft):
            return int(pm.getFrameId(name, ft))
    if pm.existFrame(name):
        return int(pm.getFrameId(name))
    if name == "world":  # a URDF link called "world" is Pinocchio's universe frame
        return 0
    raise KeyError(f"frame {name!r} not in the Pinocchio model")


class RobodynLib:
    """robodyn's public calls."""

    name = "robodyn"

    def __init__(self, case: Case) -> None:
        from .. import dynamics, kinematics

        self.case = case
        self.model = case.model
        self.kin = kinematics
        self.dyn = dynamics
        try:
            from ..coriolis import coriolis_matrix

            self.coriolis_matrix = coriolis_matrix
        except ImportError:
            self.coriolis_matrix = None
        self.calls = {
            "fk": "fk(model, q)",
            "jacobian": f"jacobian(model, q, {case.frame!r}, 'body')",
            "rnea": "inverse_dynamics(model, q, v, a)",
            "crba": "mass_matrix(model, q)",
            "aba": "forward_dynamics(model, q, v, tau)",
            "coriolis": "coriolis_matrix(model, q, v)",
            "gravity": "gravity_forces(model, q)",
        }

    def available(self, fn: str) -> str | None:
        if fn == "coriolis" and self.coriolis_matrix is None:
            return "missing: robodyn.coriolis not importable"
        return None

    def bind(self, fn: str, q, v, a, tau, threads=None) -> Callable[[], Any]:
        """A zero-argument call of ``fn`` on the state (one state or a batch)."""
        m, k, d, t = self.model, self.kin, self.dyn, threads
        fr = self.case.frame
        return {
            "fk": lambda: k.fk(m, q, threads=t),
            "jacobian": lambda: k.jacobian(m, q, fr, "body", threads=t),
            "rnea": lambda: d.inverse_dynamics(m, q, v, a, threads=t),
            "crba": lambda: d.mass_matrix(m, q, threads=t),
            "aba": lambda: d.forward_dynamics(m, q, v, tau, threads=t),
            "coriolis": lambda: self.coriolis_matrix(m, q, v, threads=t),
            "gravity": lambda: d.gravity_forces(m, q, threads=t),
        }[fn]

    def result(self, fn: str, q, v, a, tau) -> np.ndarray:
        return np.asarray(self.bind(fn, q, v, a, tau)())


class PinLib:
    """Pinocchio's Python calls (its model and data, its dof order)."""

    name = "pinocchio"

    def __init__(self, case: Case, pin) -> None:
        self.pin = pin
        self.case = case
        self.pm = case.pin_model
        self.pd = self.pm.createData()
        self.pmap = case.pmap
        self.fid = _pin_frame_id(self.pm, pin, case.frame)
        self.frame_ids = [_pin_frame_id(self.pm, pin, n) for n in case.model.frame_names]
        self.calls = {
            "fk": "forwardKinematics + updateFramePlacements",
            "jacobian": "computeFrameJacobian (LOCAL)",
            "rnea": "rnea",
            "crba": "crba (upper triangle)",
            "aba": "aba",
            "coriolis": "computeCoriolisMatrix",
            "gravity": "computeGeneralizedGravity",
        }

    def available(self, fn: str) -> str | None:
        return None

    def convert(self, q, v, a, tau):
        mp = self.pmap
        return mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a), mp.v_to_pin(tau)

    def bind(self, fn: str, qp, vp, ap, tp) -> Callable[[], Any]:
        pin, pm, pd, fid = self.pin, self.pm, self.pd, self.fid

        def fk():
            pin.forwardKinematics(pm, pd, qp)
            pin.updateFramePlacements(pm, pd)

        return {
            "fk": fk,
            "jacobian": lambda: pin.computeFrameJacobian(pm, pd, qp, fid),
            "rnea": lambda: pin.rnea(pm, pd, qp, vp, ap),
            "crba": lambda: pin.crba(pm, pd, qp),
            "aba": lambda: pin.aba(pm, pd, qp, vp, tp),
            "coriolis": lambda: pin.computeCoriolisMatrix(pm, pd, qp, vp),
            "gravity": lambda: pin.computeGeneralizedGravity(pm, pd, qp),
        }[fn]

    def result(self, fn: str, q, v, a, tau) -> np.ndarray:
        """The result of ``fn`` at a robodyn state, in robodyn's conventions."""
        mp = self.pmap
        out = self.bind(fn, *self.convert(q, v, a, tau))()
        if fn == "fk":
            return np.array([self.pd.oMf[f].homogeneous for f in self.frame_ids])
        if fn == "jacobian":
            return mp.jacobian_from_pin(out)
        if fn == "crba":
            M = np.array(out)
            return mp.matrix_from_pin(np.triu(M) + np.triu(M, 1).T)
        if fn == "coriolis":
            return mp.matrix_from_pin(np.array(out))
        return mp.v_from_pin(np.array(out))


class MujocoLib:
    """MuJoCo's calls on MuJoCo's own import of the robot's URDF (:func:`mujoco_from_urdf`),
    or, for a bundled robot without a URDF, on MJCF written from robodyn's Model."""

    name = "mujoco"

    def __init__(self, case: Case, mujoco) -> None:
        from ..kinematics import body_poses
        from ..model.model import JOINT_FREE

        self.mj = mujoco
        self.case = case
        model = case.model
        text = urdf_text(case.name) if case.name in _ERD_FILES else None
        self.from_urdf = text is not None
        if self.from_urdf:  # MuJoCo's own URDF importer: every frame is a body of its name
            self.m = mujoco_from_urdf(text, case.name in _FLOATING, model, mujoco)
            kind, prefix = mujoco.mjtObj.mjOBJ_BODY, ""
            self.note = "MuJoCo's URDF importer"
        else:  # a bundled robot: MJCF written from robodyn's Model, a site per frame
            self.m = mujoco.MjModel.from_xml_string(mjcf_from(model))
            kind, prefix = mujoco.mjtObj.mjOBJ_SITE, "f_"
            self.note = "MJCF written from robodyn's Model (no URDF)"
        self.d = mujoco.MjData(self.m)
        self.body_poses = body_poses
        self.site = mujoco.mj_name2id(self.m, kind, prefix + case.frame)
        self.sites = [mujoco.mj_name2id(self.m, kind, prefix + n) for n in model.frame_names]
        missing = [n for n, k in zip(model.frame_names, self.sites) if k < 0]
        if missing:
            raise ValueError(f"MuJoCo's model has no frame {missing[0]!r}")
        # per robodyn joint: (kind, robodyn qadr, vadr, MuJoCo qposadr, dofadr, body)
        self.plan = []
        for i in range(1, model.nb):
            if model.jnt_nv[i] == 0:
                continue
            j = mujoco.mj_name2id(self.m, mujoco.mjtObj.mjOBJ_JOINT, model.joint_names_all[i])
            free = int(model.jnt_type[i]) == JOINT_FREE
            self.plan.append(
                (
                    free,
                    int(model.jnt_qadr[i]),
                    int(model.jnt_vadr[i]),
                    int(self.m.jnt_qposadr[j]),
                    int(self.m.jnt_dofadr[j]),
                    i,
                )
            )
        nv = model.nv
        self.jacp = np.zeros((3, nv))
        self.jacr = np.zeros((3, nv))
        self.M = np.zeros((nv, nv))
        self.out = np.zeros(nv)
        self.calls = {
            "fk": "mj_kinematics",
            "jacobian": "mj_kinematics + mj_comPos + mj_jacBody/mj_jacSite (world-aligned)",
            "rnea": "mj_kinematics + mj_comPos + mj_comVel + mj_rne(flg_acc=1)",
            "crba": "mj_kinematics + mj_comPos + mj_crb + mj_fullM",
            "aba": "mj_forward (whole pipeline, no contacts/constraints)",
            "coriolis": "-",
            "gravity": "mj_kinematics + mj_comPos + mj_comVel + mj_rne(flg_acc=0), qvel=0",
        }

    def available(self, fn: str) -> str | None:
        return "n/a: MuJoCo has no Coriolis matrix" if fn == "coriolis" else None

    def maps(self, q, v):
        """T (v_mj = T v) and the acceleration offset b (a_mj = T a + b) at (q, v)."""
        nv = self.case.model.nv
        T = np.zeros((nv, nv))
        b = np.zeros(nv)
        poses = None
        for free, _qa, va, _mq, md, body in self.plan:
            if not free:
                T[md, va] = 1.0
                continue
            if poses is None:
                poses = self.body_poses(self.case.model, q)
            R = poses[body][:3, :3]
            T[md : md + 3, va + 3 : va + 6] = R
            T[md + 3 : md + 6, va : va + 3] = np.eye(3)
            w, vb = v[va : va + 3], v[va + 3 : va + 6]
            b[md : md + 3] = R @ np.cross(w, vb)
        return T, b

    def convert(self, q, v, a, tau):
        """MuJoCo's qpos, qvel, qacc and the applied force giving robodyn's tau."""
        T, b = self.maps(q, v)
        qpos = np.zeros(self.m.nq)
        for free, qa, _va, mq, _md, _body in self.plan:
            n = 7 if free else 1
            qpos[mq : mq + n] = q[qa : qa + n]
        # tau = T^T tau_mj  ->  tau_mj = T^-T tau
        return qpos, T @ v, T @ a + b, np.linalg.solve(T.T, tau)

    def bind(self, fn: str, qpos, qvel, qacc, qfrc) -> Callable[[], Any]:
        mj, m, d = self.mj, self.m, self.d
        jacp, jacr, M, out, site = self.jacp, self.jacr, self.M, self.out, self.site
        jac_at = mj.mj_jacBody if self.from_urdf else mj.mj_jacSite
        zero = np.zeros_like(qvel)

        def fk():
            d.qpos[:] = qpos
            mj.mj_kinematics(m, d)

        def jac():
            d.qpos[:] = qpos
            mj.mj_kinematics(m, d)
            mj.mj_comPos(m, d)
            jac_at(m, d, jacp, jacr, site)

        def rne():
            d.qpos[:] = qpos
            d.qvel[:] = qvel
            d.qacc[:] = qacc
            mj.mj_kinematics(m, d)
            mj.mj_comPos(m, d)
            mj.mj_comVel(m, d)
            mj.mj_rne(m, d, 1, out)

        def crb():
            d.qpos[:] = qpos
            mj.mj_kinematics(m, d)
            mj.mj_comPos(m, d)
            mj.mj_crb(m, d)
            mj.mj_fullM(m, d, M)

        def fwd():
            d.qpos[:] = qpos
            d.qvel[:] = qvel
            d.qfrc_applied[:] = qfrc
            mj.mj_forward(m, d)

        def grav():
            d.qpos[:] = qpos
            d.qvel[:] = zero
            mj.mj_kinematics(m, d)
            mj.mj_comPos(m, d)
            mj.mj_comVel(m, d)
            mj.mj_rne(m, d, 0, out)

        return {"fk": fk, "jacobian": jac, "rnea": rne, "crba": crb, "aba": fwd, "gravity": grav}[
            fn
        ]

    def result(self, fn: str, q, v, a, tau) -> np.ndarray:
        T, b = self.maps(q, v)
        self.bind(fn, *self.convert(q, v, a, tau))()
        d = self.d
        if fn == "fk":
            xmat, xpos = (d.xmat, d.xpos) if self.from_urdf else (d.site_xmat, d.site_xpos)
            out = np.zeros((len(self.sites), 4, 4))
            out[:, 3, 3] = 1.0
            out[:, :3, :3] = xmat[self.sites].reshape(-1, 3, 3)
            out[:, :3, 3] = xpos[self.sites]
            return out
        if fn == "jacobian":
            return np.vstack([self.jacr, self.jacp]) @ T  # world-aligned, robodyn columns
        if fn == "crba":
            return T.T @ self.M @ T
        if fn == "aba":
            return np.linalg.solve(T, d.qacc - b)
        return T.T @ self.out  # rnea, gravity


class MRLib:
    """The Modern Robotics library (UR5 only: it takes M, Slist, Mlist, Glist)."""

    name = "modern_robotics"

    def __init__(self, case: Case, mr) -> None:
        from ..model.poe import to_mr
        from ..spatial import adjoint, inv_transform

        self.mr = mr
        M, S, Ml, Gl = to_mr(case.model, case.frame)
        self.M, self.S, self.Ml, self.Gl = M, S, Ml, Gl
        self.B = adjoint(inv_transform(M)) @ S
        self.g = np.array(case.model.gravity, dtype=float)
        self.ftip = np.zeros(6)
        self.calls = {
            "fk": "FKinSpace (end-effector only)",
            "jacobian": "JacobianBody",
            "rnea": "InverseDynamics",
            "crba": "MassMatrix",
            "aba": "ForwardDynamics",
            "coriolis": "-",
            "gravity": "GravityForces",
        }

    def available(self, fn: str) -> str | None:
        return "n/a: no Coriolis matrix in the MR library" if fn == "coriolis" else None

    def convert(self, q, v, a, tau):
        return q, v, a, tau

    def bind(self, fn: str, q, v, a, tau) -> Callable[[], Any]:
        mr, M, S, B, Ml, Gl, g, ft = (
            self.mr, self.M, self.S, self.B, self.Ml, self.Gl, self.g, self.ftip
        )  # fmt: skip
        return {
            "fk": lambda: mr.FKinSpace(M, S, q),
            "jacobian": lambda: mr.JacobianBody(B, q),
            "rnea": lambda: mr.InverseDynamics(q, v, a, g, ft, Ml, Gl, S),
            "crba": lambda: mr.MassMatrix(q, Ml, Gl, S),
            "aba": lambda: mr.ForwardDynamics(q, v, tau, g, ft, Ml, Gl, S),
            "gravity": lambda: mr.GravityForces(q, g, Ml, Gl, S),
        }[fn]

    def result(self, fn: str, q, v, a, tau) -> np.ndarray:
        return np.asarray(self.bind(fn, q, v, a, tau)(), dtype=float)


def _reference(case: Case, ref, fn: str, lib_name: str, q, v, a, tau) -> np.ndarray:
    """What ``lib_name`` must equal for ``fn``: Pinocchio's (or robodyn's) result, adapted
    to the quantity the library computes (MuJoCo's Jacobian is world-aligned; the MR
    library's FK is the end-effector pose only)."""
    from .. import kinematics

    if lib_name == "mujoco" and fn == "jacobian":
        return kinematics.jacobian(case.model, q, case.frame, "world_aligned")
    if lib_name == "modern_robotics" and fn == "fk":
        return kinematics.fk(case.model, q, case.frame)
    return ref.result(fn, q, v, a, tau)


def _import_peer(name: str):
    try:
        if name == "pinocchio":
            import pinocchio as mod
        elif name == "mujoco":
            import mujoco as mod
        elif name == "modern_robotics":
            import modern_robotics as mod
        else:
            raise ImportError(name)
    except ImportError:
        return None, "not installed"
    return mod, str(getattr(mod, "__version__", "?"))


def _check(case: Case, lib, ref, fn: str, lib_name: str) -> tuple[str, float | None]:
    """Equality of ``lib``'s ``fn`` to the reference on the case's check states."""
    st = case.states
    worst = 0.0
    for k in range(st["q"].shape[0]):
        q, v, a, tau = st["q"][k], st["v"][k], st["a"][k], st["tau"][k]
        x = lib.result(fn, q, v, a, tau)
        y = _reference(case, ref, fn, lib_name, q, v, a, tau)
        worst = max(worst, _rel_err(x, y))
    return ("ok" if worst <= RTOL else "FAIL"), worst
