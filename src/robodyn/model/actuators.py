"""Actuators: electric motors behind gearheads at the joints (MR sec. 8.9).

A joint driven by a motor through a gearhead of ratio ``G`` (G > 1 reduces speed) and
efficiency ``eta`` (MR sec. 8.9.1)::

    omega_motor = G v                    (the rotor spins G times faster than the joint)
    tau         = eta G tau_m            (the joint torque from the motor torque)

The rotor (inertia ``I_rotor`` about its axis) adds kinetic energy
``1/2 I_rotor (G v)^2``: at the joint it is the apparent (reflected) inertia
``G^2 I_rotor`` (MR sec. 8.9.2), which :meth:`Model.with_actuators
<robodyn.model.model.Model.with_actuators>` adds to the model's ``dof_armature``, so that
every algorithm (``M(q)`` on its diagonal, inverse and forward dynamics, energies) includes
it. (Like MR, this keeps only the rotor's spin about its own axis; the gyroscopic and
coupling terms from the links carrying the rotor are left out, small for large G.)

A DC motor's speed-torque curve (MR sec. 8.9.1): with the largest voltage, the torque falls
linearly from the stall torque ``tau_stall`` at rest to zero at the no-load speed
``omega_0``: ``tau_m <= tau_stall (1 - omega_motor / omega_0)``. robodyn applies it to
both signs of the torque, at the joint::

    |tau| <= tau_max(v) = eta G tau_stall max(0, 1 - |G v| / omega_0)

the motoring quadrants of MR's operating region (a motor braking, its torque opposing its
speed, can exceed this line up to its current limit: the limit here is conservative
there, and zero beyond the no-load speed). ``rd.simulate(..., clip_torque=True)`` clips
each torque to ``tau_max(v)`` at the state's velocity.

The efficiency is applied to the whole joint torque (``tau = eta G tau_m``, the reflected
rotor inertia included); a gearhead's losses depend on the direction of the power flow,
which this constant factor does not model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Actuators", "with_actuators"]


def _readonly(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class Actuators:
    """The motors and gearheads of a model's dofs (MR sec. 8.9), per dof (nv,).

    A dof without a motor (a floating base's) has ``gear_ratio`` 1, ``rotor_inertia`` 0,
    ``efficiency`` 1 and infinite ``stall_torque`` and ``free_speed``.

    Attributes
    ----------
    gear_ratio : numpy.ndarray (nv,)
        G, > 0: motor speed over joint speed.
    rotor_inertia : numpy.ndarray (nv,)
        The rotor's inertia about its axis, kg m^2 (motor side).
    efficiency : numpy.ndarray (nv,)
        eta in (0, 1]: ``tau = eta G tau_m``.
    stall_torque : numpy.ndarray (nv,)
        The motor's stall torque, N m (motor side); inf: no limit.
    free_speed : numpy.ndarray (nv,)
        The motor's no-load speed omega_0, rad/s (motor side); inf: the torque limit does
        not fall with speed.
    """

    gear_ratio: np.ndarray
    rotor_inertia: np.ndarray
    efficiency: np.ndarray
    stall_torque: np.ndarray
    free_speed: np.ndarray

    @property
    def reflected_inertia(self) -> np.ndarray:
        """The rotor's apparent inertia at the joint, ``G^2 I_rotor`` (nv,), kg m^2 (MR sec.
        8.9.2): the part of the model's ``dof_armature`` the motors add."""
        return self.gear_ratio**2 * self.rotor_inertia

    def joint_torque(self, tau_m) -> np.ndarray:
        """Joint torques from motor torques: ``tau = eta G tau_m`` (..., nv)."""
        return self.efficiency * self.gear_ratio * _per_dof(tau_m, self, "tau_m")

    def motor_torque(self, tau) -> np.ndarray:
        """Motor torques that give the joint torques ``tau``: ``tau_m = tau / (eta G)``
        (..., nv); with ``tau = rd.inverse_dynamics(actuated_model, q, v, a)`` the motor
        torques of inverse dynamics (the rotors' ``G^2 I_rotor a`` included)."""
        return _per_dof(tau, self, "tau") / (self.efficiency * self.gear_ratio)

    def motor_speed(self, v) -> np.ndarray:
        """The rotors' speeds ``omega_motor = G v`` (..., nv), rad/s."""
        return self.gear_ratio * _per_dof(v, self, "v")

    @property
    def speed_limited(self) -> bool:
        """True when some dof's torque limit falls with speed (a finite stall torque and
        no-load speed)."""
        return bool(np.any(np.isfinite(self.stall_torque) & np.isfinite(self.free_speed)))

    def torque_limit(self, v) -> np.ndarray:
        """The largest joint torque magnitude at joint velocity v (..., nv), N m::

            tau_max(v) = eta G tau_stall max(0, 1 - |G v| / omega_0)

        (the speed-torque line of MR sec. 8.9.1 through the gearhead; inf for a dof
        without a stall torque)."""
        v = _per_dof(v, self, "v")
        with np.errstate(invalid="ignore"):  # inf stall torque, no free speed: inf
            fall = np.clip(1.0 - np.abs(self.gear_ratio * v) / self.free_speed, 0.0, 1.0)
            lim = self.efficiency * self.gear_ratio * self.stall_torque * fall
        return np.where(np.isfinite(self.stall_torque), lim, np.inf)


def _per_dof(x, act: Actuators, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    nv = act.gear_ratio.shape[0]
    if x.ndim == 0 or x.shape[-1] != nv:
        raise ValueError(f"{name} must have shape (..., {nv}) (nv), got {x.shape}")
    return x


def _per_dof_argument(model, x, name: str, default: float, rule: str, ok) -> np.ndarray:
    """An actuator argument as (nv,): a scalar for every motor-driven dof (not a free
    joint's), or a vector (nv,); each motor's value checked by ``ok`` (``rule`` says it)."""
    motor = _motor_dofs(model)
    a = np.asarray(x, dtype=float)
    if a.ndim == 0:
        a = np.where(motor, a, default)
    elif a.shape != (model.nv,):
        raise ValueError(f"{name} must be a scalar or have shape ({model.nv},) (nv), got "
                         f"{a.shape}")  # fmt: skip
    bad = motor & ~ok(a)
    if np.any(bad):
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must be {rule}; dof {j} has {float(a[j])!r}")
    return a


def _motor_dofs(model) -> np.ndarray:
    """(nv,) bool: the dofs a motor can drive (all but a free joint's six)."""
    from .joints import JOINT_FREE

    free = np.zeros(model.nv, dtype=bool)
    for i in range(1, model.nb):
        if int(model.jnt_type[i]) == JOINT_FREE:
            va = int(model.jnt_vadr[i])
            free[va : va + 6] = True
    return ~free


def with_actuators(model, gear_ratio, rotor_inertia=0.0, *, efficiency=1.0,
                   stall_torque=None, free_speed=None):  # fmt: skip
    """``model`` with motors behind gearheads at its joints (MR sec. 8.9): see
    :meth:`Model.with_actuators <robodyn.model.model.Model.with_actuators>`."""
    import dataclasses

    def positive(a):
        return np.isfinite(a) & (a > 0)

    G = _per_dof_argument(model, gear_ratio, "gear_ratio", 1.0, "finite and > 0", positive)
    rotor = _per_dof_argument(model, rotor_inertia, "rotor_inertia", 0.0, "finite and >= 0",
                              lambda a: np.isfinite(a) & (a >= 0))  # fmt: skip
    eta = _per_dof_argument(model, efficiency, "efficiency", 1.0, "in (0, 1]",
                            lambda a: (a > 0) & (a <= 1))  # fmt: skip
    if free_speed is not None and stall_torque is None:
        raise ValueError("free_speed needs stall_torque (the speed-torque line joins them)")
    stall = np.full(model.nv, np.inf)
    speed = np.full(model.nv, np.inf)
    if stall_torque is not None:
        stall = _per_dof_argument(model, stall_torque, "stall_torque", np.inf,
                                  "finite and > 0 (N m)", positive)  # fmt: skip
    if free_speed is not None:
        speed = _per_dof_argument(model, free_speed, "free_speed", np.inf,
                                  "finite and > 0 (rad/s)", positive)  # fmt: skip
    act = Actuators(*(_readonly(x) for x in (G, rotor, eta, stall, speed)))
    old = model.actuators.reflected_inertia if model.actuators is not None else 0.0
    limited = np.isfinite(stall)
    return dataclasses.replace(
        model,
        actuators=act,
        dof_armature=model.dof_armature - old + act.reflected_inertia,  # + G^2 I_rotor
        effort_limit=np.where(limited, eta * G * stall, model.effort_limit),
        v_limit=np.where(np.isfinite(speed), speed / G, model.v_limit),
    )
