"""Mobile manipulation (MR sec. 13.5): an arm on an omnidirectional base, the youBot of
the MR capstone.

The configuration is ``config = (phi, x, y, theta_1..theta_n, w_1..w_m)``: chassis, arm
joints, wheel angles. The end-effector pose is (MR eq. 13.36)::

    X = T_se = T_sb(q) T_b0 T_0e(theta),   T_sb(q) = [[R_z(phi), (x, y, z_b)], [0, 1]]

and its body twist is ``V_e = J_e (u, theta_dot)`` with ``J_e = [J_base, J_arm]``:
``J_arm = J_b(theta)`` (the arm's body Jacobian, :func:`robodyn.jacobian`) and
``J_base = [Ad_{T_eb}] F_6``, ``T_eb = T_0e^-1 T_b0^-1``, ``F_6 = [0; 0; F; 0]`` the base's
``F = H(0)^+`` lifted to six rows (MR eq. 13.37).

:class:`TaskSpacePI` is the feedforward-plus-PI law (MR eq. 11.16, 13.37)::

    V(t) = [Ad_{X^-1 X_d}] V_d + K_p X_err + K_i int X_err dt,  [X_err] = log(X^-1 X_d)

and ``(u, theta_dot) = J_e^+ V``, clipped to the speed limits. :func:`track` runs it along
an SE(3) trajectory (:mod:`robodyn.trajectory`), stepping the configuration as the
capstone's NextState does: the chassis by exact odometry, joints and wheels at constant
speed over dt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._checks import as_array, as_positive
from ..spatial import adjoint, inv_transform, log6
from .wheeled import Mecanum, Omni, odometry

__all__ = ["MobileManipulator", "youbot", "youbot_arm", "TaskSpacePI", "ManipulationRun", "track"]

# The youBot's arm in the MR capstone: home pose of {e} in the arm base {0} and the body
# screw axes (columns), m.
YOUBOT_M0E = np.array([[1, 0, 0, 0.033], [0, 1, 0, 0], [0, 0, 1, 0.6546], [0, 0, 0, 1.0]])
YOUBOT_BLIST = np.array([
    [0, 0, 1, 0, 0.033, 0],
    [0, -1, 0, -0.5076, 0, 0],
    [0, -1, 0, -0.3526, 0, 0],
    [0, -1, 0, -0.2176, 0, 0],
    [0, 0, 1, 0, 0, 0],
], dtype=float).T  # fmt: skip
YOUBOT_TB0 = np.array([[1, 0, 0, 0.1662], [0, 1, 0, 0], [0, 0, 1, 0.0026], [0, 0, 0, 1.0]])


def youbot_arm():
    """The youBot's 5R arm as a Model (joints ``joint1..joint5``, frame ``"ee"``).

    Built with :func:`robodyn.from_mr` from the capstone's ``M_0e`` and ``B_list``
    (``S_i = [Ad_M] B_i``); link frames at the joint axes, 1 kg and 0.01 kg m^2 per link
    (placeholder inertias: the controller here is kinematic).
    """
    from ..model.poe import from_mr

    S = adjoint(YOUBOT_M0E) @ YOUBOT_BLIST
    # link frames on the joint axes (in {0}), the last one at {e}
    pts = [(0.033, 0.0, 0.05), (0.033, 0.0, 0.147), (0.033, 0.0, 0.302), (0.033, 0.0, 0.437),
           (0.033, 0.0, 0.5), (0.033, 0.0, 0.6546)]  # fmt: skip
    Mlist, prev = [], np.zeros(3)
    for p in pts:
        T = np.eye(4)
        T[:3, 3] = np.subtract(p, prev)
        Mlist.append(T)
        prev = np.asarray(p)
    G = np.diag([0.01, 0.01, 0.01, 1.0, 1.0, 1.0])
    return from_mr(YOUBOT_M0E, S, Mlist, [G] * 5, name="youbot_arm")


@dataclass(frozen=True)
class MobileManipulator:
    """An arm on an omnidirectional base.

    Parameters
    ----------
    base : Omni or Mecanum
    arm : Model
        The arm, its base frame being {0}; 1-dof joints.
    frame : str
        The arm's end-effector frame.
    T_b0 : array_like, shape (4, 4)
        Pose of the arm base {0} in the chassis frame {b}.
    chassis_height : float
        Height z_b of {b} above the floor, m.
    joint_speed_max, wheel_speed_max : float or array_like
        Speed limits, rad/s (inf: none).
    joint_lower, joint_upper : float or array_like (n,)
        Joint ranges the controller keeps the arm in (the capstone's singularity and
        self-collision avoidance): a joint that would leave its range is frozen for the
        step (its column of J_e zeroed), rad.
    """

    base: Omni
    arm: object
    frame: str = "ee"
    T_b0: np.ndarray = field(default_factory=lambda: np.eye(4))
    chassis_height: float = 0.0
    joint_speed_max: object = np.inf
    wheel_speed_max: object = np.inf
    joint_lower: object = -np.inf
    joint_upper: object = np.inf

    def __post_init__(self):
        if not isinstance(self.base, Omni):
            raise ValueError(f"base must be an omnidirectional robot (Omni, Mecanum), got "
                             f"{type(self.base).__name__}")  # fmt: skip
        if self.arm.nq != self.arm.nv:
            raise ValueError("the arm must have 1-dof joints only (nq == nv)")
        T = as_array(self.T_b0, "T_b0", (4, 4))
        object.__setattr__(self, "T_b0", T)
        self.arm.frame_id(self.frame)  # raises for an unknown frame

    @property
    def n_arm(self) -> int:
        return self.arm.nv

    @property
    def n_wheels(self) -> int:
        return len(self.base.inputs)

    @property
    def n_config(self) -> int:
        """3 + n_arm + n_wheels."""
        return 3 + self.n_arm + self.n_wheels

    def _config(self, config) -> np.ndarray:
        c = as_array(config, "config", (self.n_config,))
        if c.ndim != 1:
            raise ValueError(f"config must have shape ({self.n_config},), got {c.shape}")
        return c

    def chassis_pose(self, q) -> np.ndarray:
        """``T_sb`` (4, 4) of the chassis at q = (phi, x, y)."""
        phi, x, y = np.asarray(q, dtype=float)[:3]
        c, s = np.cos(phi), np.sin(phi)
        return np.array([[c, -s, 0, x], [s, c, 0, y], [0, 0, 1, self.chassis_height],
                         [0, 0, 0, 1.0]])  # fmt: skip

    def ee_pose(self, config) -> np.ndarray:
        """``X = T_sb T_b0 T_0e(theta)`` (4, 4)."""
        from ..kinematics import fk

        c = self._config(config)
        return self.chassis_pose(c[:3]) @ self.T_b0 @ fk(self.arm, c[3 : 3 + self.n_arm],
                                                         self.frame)  # fmt: skip

    def jacobian(self, config) -> np.ndarray:
        """``J_e = [J_base, J_arm]`` (6, m + n): the end-effector body twist per wheel speed
        and joint speed (MR eq. 13.37)."""
        from ..kinematics import fk, jacobian

        c = self._config(config)
        theta = c[3 : 3 + self.n_arm]
        J_arm = jacobian(self.arm, theta, self.frame, kind="body")
        T_0e = fk(self.arm, theta, self.frame)
        T_eb = inv_transform(T_0e) @ inv_transform(self.T_b0)
        F6 = np.zeros((6, self.n_wheels))
        F6[2:5] = self.base.F  # rows omega_z, v_x, v_y of the chassis twist
        return np.concatenate([adjoint(T_eb) @ F6, J_arm], axis=1)

    def limits(self) -> np.ndarray:
        """Speed limits (m + n,) of (wheels, joints), rad/s."""
        w = np.broadcast_to(np.asarray(self.wheel_speed_max, dtype=float), (self.n_wheels,))
        j = np.broadcast_to(np.asarray(self.joint_speed_max, dtype=float), (self.n_arm,))
        return np.concatenate([w, j])

    def joint_range(self) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) (n,) joint ranges, rad."""
        n = (self.n_arm,)
        return (np.broadcast_to(np.asarray(self.joint_lower, dtype=float), n),
                np.broadcast_to(np.asarray(self.joint_upper, dtype=float), n))  # fmt: skip

    def speeds(self, config, V, dt, rcond: float = 1e-3) -> np.ndarray:
        """``(u, theta_dot) = J_e^+ V`` (m + n,), clipped to the speed limits, with the
        joints that would leave their range within dt frozen (the capstone's joint-limit
        test: their columns of J_e zeroed and the solve repeated)."""
        c = self._config(config)
        J = self.jacobian(c)
        m, lim = self.n_wheels, self.limits()
        lo, hi = self.joint_range()
        theta = c[3 : 3 + self.n_arm]
        for _ in range(self.n_arm + 1):
            s = np.clip(np.linalg.pinv(J, rcond=rcond) @ V, -lim, lim)
            nxt = theta + s[m:] * dt
            bad = ((nxt > hi) | (nxt < lo)) & np.any(J[:, m:] != 0, axis=0)
            if not bad.any():
                break
            J[:, m:][:, bad] = 0.0
        return s

    def next_state(self, config, speeds, dt) -> np.ndarray:
        """The capstone's NextState: speeds (u (m,), theta_dot (n,)) held for dt, clipped to
        the limits; chassis by exact odometry, joints and wheels by ``+ speed dt``."""
        c = self._config(config)
        sp = as_array(speeds, "speeds", (self.n_wheels + self.n_arm,))
        sp = np.clip(sp, -self.limits(), self.limits())
        u, qd = sp[: self.n_wheels], sp[self.n_wheels :]
        out = c.copy()
        out[:3] = odometry(self.base, c[:3], u * dt)
        out[3 : 3 + self.n_arm] += qd * dt
        out[3 + self.n_arm :] += u * dt
        return out


def youbot(**limits) -> MobileManipulator:
    """The KUKA youBot of the MR capstone: mecanum base (l = 0.235, w = 0.15,
    r = 0.0475 m), the 5R arm at ``T_b0``, chassis frame 0.0963 m above the floor.

    ``limits``: ``joint_speed_max``, ``wheel_speed_max`` (rad/s), ``joint_lower``,
    ``joint_upper`` (rad); by default joints 3 and 4 stay below -0.2 rad, away from the
    stretched-elbow singularity (the capstone's advice).
    """
    limits.setdefault("joint_upper", np.array([np.inf, np.inf, -0.2, -0.2, np.inf]))
    return MobileManipulator(Mecanum(half_length=0.235, half_width=0.15, wheel_radius=0.0475),
                             youbot_arm(), "ee", YOUBOT_TB0, 0.0963, **limits)  # fmt: skip


class TaskSpacePI:
    """Feedforward plus PI task-space control (MR eq. 11.16 / 13.37).

    ``V = [Ad_{X^-1 X_d}] V_d + K_p X_err + K_i int X_err``; call
    ``ctrl(X, X_d, V_d, dt) -> (V, X_err)`` once per control step (it integrates
    ``X_err``). ``V_d`` is the reference body twist over the step,
    ``log(X_d^-1 X_d,next) / dt`` (the capstone's), exact for a step at constant twist.

    Parameters
    ----------
    kp, ki : float or array_like (6,) or (6, 6)
        Gains, 1/s and 1/s^2.
    """

    def __init__(self, kp=1.0, ki=0.0):
        self.kp = self._gain(kp, "kp")
        self.ki = self._gain(ki, "ki")
        self.integral = np.zeros(6)

    @staticmethod
    def _gain(k, name: str) -> np.ndarray:
        k = np.asarray(k, dtype=float)
        if k.shape not in ((), (6,), (6, 6)) or not np.all(np.isfinite(k)):
            raise ValueError(f"{name} must be a finite scalar, (6,) or (6, 6), got shape {k.shape}")
        return k

    def _times(self, K, x):
        return K @ x if K.ndim == 2 else K * x

    def __call__(self, X, X_d, V_d, dt):
        X_err = log6(inv_transform(X) @ X_d, check=False)
        self.integral = self.integral + X_err * dt
        V = adjoint(inv_transform(X) @ X_d) @ V_d
        return V + self._times(self.kp, X_err) + self._times(self.ki, self.integral), X_err


@dataclass(frozen=True)
class ManipulationRun:
    """A tracking run: ``t (K+1,)``, ``config (K+1, 3+n+m)``, ``speeds (K+1, m+n)``
    (wheels then joints, rad/s), ``X_err (K+1, 6)`` (``log(X^-1 X_d)``: rad, m) and the
    reference end-effector positions ``p_d (K+1, 3)``."""

    t: np.ndarray
    config: np.ndarray
    speeds: np.ndarray
    X_err: np.ndarray
    p_d: np.ndarray
    robot: MobileManipulator

    def position_error(self) -> np.ndarray:
        """``|p - p_d|`` of the end-effector (K+1,), m."""
        P = np.array([self.robot.ee_pose(c)[:3, 3] for c in self.config])
        return np.linalg.norm(P - self.p_d, axis=1)


def track(robot: MobileManipulator, config0, reference, *, dt, kp=1.0, ki=0.0,
          rcond: float = 1e-3) -> ManipulationRun:  # fmt: skip
    """Drive the end-effector along ``reference(t) -> (X_d, ...)`` (an SE(3) trajectory of
    :mod:`robodyn.trajectory`, ``.duration``) with :class:`TaskSpacePI`.

    Each step: ``X_err``, ``V``, ``(u, theta_dot) = J_e^+ V`` (singular values below
    ``rcond`` times the largest ignored), then :meth:`MobileManipulator.next_state`.

    Returns
    -------
    ManipulationRun
    """
    c = robot._config(config0).copy()
    dt = as_positive(dt, "dt", " of seconds")
    if not callable(reference) or not hasattr(reference, "duration"):
        raise ValueError(
            "reference must be an SE(3) trajectory ref(t) -> (X_d, ...) with "
            ".duration (robodyn.trajectory.screw_trajectory, cartesian_trajectory)"
        )
    K = int(round(reference.duration / dt))
    if K < 1:
        raise ValueError(
            f"dt ({dt:g} s) must be shorter than the reference ({reference.duration:g} s)"
        )
    t = dt * np.arange(K + 1)
    X_d_all = reference(np.append(t, t[-1] + dt))[0]
    ctrl = TaskSpacePI(kp, ki)
    n = robot.n_wheels + robot.n_arm
    C, S, E = np.empty((K + 1, c.size)), np.zeros((K + 1, n)), np.empty((K + 1, 6))
    for k in range(K + 1):
        X = robot.ee_pose(c)
        X_d, X_next = X_d_all[k], X_d_all[k + 1] if k < K else X_d_all[k]
        V_d = log6(inv_transform(X_d) @ X_next, check=False) / dt
        V, E[k] = ctrl(X, X_d, V_d, dt)
        C[k] = c
        S[k] = robot.speeds(c, V, dt, rcond)
        c = robot.next_state(c, S[k], dt)
    return ManipulationRun(t, C, S, E, X_d_all[: K + 1, :3, 3], robot)
