"""A six-axis force-torque sensor: the wrench the world applies at a frame of the robot.

The ideal reading at frame {f} on body b is the sum of the external wrenches on b and on
every body outboard of it (its subtree: what a wrist sensor between b and its parent
carries, inertia and gravity of the tool left out), each moved to {f}: for the wrench
``F_j = [m_j; f_j]`` on body j (in its frame) and ``T_jf = (R, p)`` the pose of {f} in
{j}, ``F_f = [Ad_{T_jf}]^T F_j``, i.e. ``m_f = R^T (m_j - p x f_j)``, ``f_f = R^T f_j``
(MR eq. 3.98). The external wrenches are those :func:`robodyn.simulate` applies: an
:class:`~robodyn.sim.Environment`'s contacts plus ``f_ext``. The sign is the
environment's wrench on the robot: MR's ``F_tip`` (the robot's wrench on the
environment) is minus the reading.

On top of it, optional Gaussian noise and a first-order low-pass filter of cut-off
frequency ``f_c`` (Hz), ``omega_c = 2 pi f_c``::

    F_raw = F_f + noise * N(0, 1)                  (each of the six components)
    d/dt F_filtered = omega_c (F_raw - F_filtered) (the filter's state, 6 numbers)

The filtered wrench is a state the simulation integrates with the robot's (a
controller's state, as a PID's integral), starting at zero; the sensor object keeps none.
Noise is drawn at each evaluation (an RK4 step reads the sensor at its four stages); for
a sensor sampled at a fixed rate, run the controller digitally (``control_dt``).
"""

from __future__ import annotations

import numpy as np

from .environment import _cross, _frame_index

__all__ = ["ForceSensor"]


class ForceSensor:
    """A force-torque sensor at an operational frame (see :mod:`robodyn.sim.sensor`).

    Parameters
    ----------
    frame : str or int
        Where the sensor is (``model.frame_names``); it reads in the frame's coordinates.
    noise : float or array_like (6,)
        Standard deviation of the Gaussian noise on ``[m; f]``, N m and N (0: none).
    cutoff : float, optional
        The low-pass filter's cut-off frequency, Hz (None: no filter).
    rng : numpy.random.Generator or int, optional
        The noise's generator (or its seed).

    Attributes
    ----------
    state_size : int
        6 with a filter (its state), else 0.
    """

    def __init__(self, frame, noise=0.0, cutoff=None, rng=None):
        if not isinstance(frame, (str, int, np.integer)) or isinstance(frame, bool):
            raise ValueError(f"frame must be a frame name (str) or index (int), got {frame!r}")
        self.frame = frame
        noise = np.asarray(noise, dtype=float)
        if noise.shape not in ((), (6,)) or not np.all(np.isfinite(noise)) or np.any(noise < 0):
            raise ValueError(f"noise must be a standard deviation >= 0, a scalar or (6,) "
                             f"(N m, N), got {noise!r}")  # fmt: skip
        self.noise = noise
        if cutoff is not None:
            cutoff = float(cutoff)
            if not (np.isfinite(cutoff) and cutoff > 0):
                raise ValueError(f"cutoff must be a frequency > 0 (Hz) or None, got {cutoff!r}")
        self.cutoff = cutoff
        self.rng = np.random.default_rng(rng)
        self.state_size = 0 if cutoff is None else 6

    def __repr__(self) -> str:
        return f"<ForceSensor at {self.frame!r}, noise {self.noise}, cutoff {self.cutoff} Hz>"

    def describe(self) -> dict:
        """Frame, noise and cut-off as JSON (the generator's state is not a parameter)."""
        return {"frame": self.frame if isinstance(self.frame, str) else int(self.frame),
                "noise": self.noise.tolist(), "cutoff": self.cutoff}  # fmt: skip

    def ideal(self, model, q, f_ext) -> np.ndarray:
        """The noiseless, unfiltered wrench ``[m; f]`` (..., 6) at the frame, in its
        coordinates, from the external wrenches ``f_ext`` (..., nb, 6) on the bodies
        (robodyn's convention; None: no wrench)."""
        from ..kinematics import fk
        from ..kinematics.forward import body_poses

        q = np.asarray(q, dtype=float)
        f = _frame_index(model, self.frame, "sensor frame")
        if f_ext is None:
            return np.zeros((*q.shape[:-1], 6))
        f_ext = np.asarray(f_ext, dtype=float)
        b = int(model.frame_body[f])
        end = int(model.body_subtree_end[b])
        T_sf = fk(model, q, f)
        T_sb = body_poses(model, q)
        lead = np.broadcast_shapes(T_sf.shape[:-2], f_ext.shape[:-2])
        out = np.zeros((*lead, 6))
        for j in range(b, end):  # the body and its subtree
            F_j = f_ext[..., j, :]
            R_sj, p_sj = T_sb[..., j, :3, :3], T_sb[..., j, :3, 3]
            R = np.swapaxes(R_sj, -1, -2) @ T_sf[..., :3, :3]  # T_jf = T_sj^-1 T_sf
            p = np.einsum("...ji,...j->...i", R_sj, T_sf[..., :3, 3] - p_sj)
            m = F_j[..., :3] - _cross(p, F_j[..., 3:])  # m_j - p x f_j
            out[..., :3] += np.einsum("...ji,...j->...i", R, m)  # R^T (m_j - p x f_j)
            out[..., 3:] += np.einsum("...ji,...j->...i", R, F_j[..., 3:])  # R^T f_j
        return out

    def read(self, model, q, f_ext, z=None):
        """The reading and the filter's rate: ``(F (..., 6), dz (..., 6) or None)``.

        Without a filter F is the ideal wrench plus noise (dz None); with one, F is the
        filter's state ``z`` (..., 6) and ``dz = omega_c (F_raw - z)``.
        """
        F = self.ideal(model, q, f_ext)
        if np.any(self.noise > 0):
            F = F + self.noise * self.rng.standard_normal(F.shape)
        if self.cutoff is None:
            return F, None
        z = np.asarray(z, dtype=float)
        return z, 2.0 * np.pi * self.cutoff * (F - z)  # d/dt F_filtered = omega_c (F - F_f)
