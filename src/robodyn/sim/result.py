"""The result of a simulation: :class:`Trajectory`, sampled states over time.

A trajectory holds the samples ``k = 0..K`` at times ``t[k] = k dt`` (``t[K] = duration``):
the configuration ``q[k]``, velocity ``v[k]``, acceleration ``a[k]`` and the joint torque
``tau[k]`` the controller commanded there (after clipping), so that
``a[k] = forward_dynamics(q[k], v[k], tau[k])`` holds sample by sample. A batch of ``N``
rollouts gains a leading axis: ``q`` of shape (N, K + 1, nq); ``t`` stays (K + 1,).

It saves to one ``.npz`` file (arrays and JSON metadata) and loads back identical.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .trajectory_file import STATUS as STATUS  # handed on: robodyn.sim.result.STATUS

__all__ = ["Trajectory"]

_ARRAYS = (
    "t", "q", "v", "a", "tau", "z", "kinetic", "potential", "constraint_violation",
    "constraint_force", "status", "t_end", "contact_force",
)  # fmt: skip
#: ``Trajectory.status`` codes of a rollout (``simulate(..., on_divergence="mark")``)


class Trajectory:
    """Samples of a simulated (or recorded) motion.

    Attributes
    ----------
    t : numpy.ndarray, shape (K + 1,)
        Sample times, s, from 0 to ``duration``.
    q : numpy.ndarray, shape (..., K + 1, nq)
        Configurations (a batch of rollouts has leading dimensions).
    v, a : numpy.ndarray, shape (..., K + 1, nv)
        Velocities (rad/s, m/s) and accelerations.
    tau : numpy.ndarray, shape (..., K + 1, nv)
        Joint forces applied by the controller at each sample (N m, N), after clipping;
        zero without a controller. Joint friction is not part of it (it is in the model).
    z : numpy.ndarray or None, shape (..., K + 1, nz)
        The controller's own state (the integral of a PID), when it has one.
    constraint_violation : numpy.ndarray or None, shape (..., K + 1)
        A constrained simulation's largest ``|A(q) v|`` per sample (its Pfaffian
        constraints, MR sec. 2.4), else None.
    constraint_force : numpy.ndarray or None, shape (..., K + 1, k)
        The multipliers ``lambda`` of the k constraints per sample (the constraint forces
        are ``A^T lambda`` in ``M vdot + h = tau + A^T lambda``, MR sec. 8.7), else None.
    contact_force : numpy.ndarray or None, shape (..., K + 1, nc, 3)
        With ``simulate(..., environment=env)``: the force of each of the environment's
        contacts on the robot per sample, world coordinates, N (zero when apart); contact
        ``c = i * len(env.shapes) + j`` is point i against shape j. Else None.
    status, t_end : numpy.ndarray or None, shape (...)
        Per rollout, with ``simulate(..., on_divergence="mark")``: 0 ok, 1 diverged (the
        state ran away or became NaN/inf), 2 the dynamics failed (a singular inertia),
        3 the controller's torque was NaN/inf (:data:`STATUS`); and the time of its last
        good sample (its samples after it are NaN). None when not asked for.
    meta : dict
        ``model`` (name), ``integrator``, ``dt``, ``duration``, ``control_dt``,
        ``friction``, ``clip_torque``, ``controller``, tolerances, ``n_eval`` (dynamics
        evaluations) and ``complete`` (False for the part of a run that failed).
    model : Model or None
        The simulated model (not saved; pass it to :meth:`load` to get it back).
    """

    def __init__(self, t, q, v, a, tau, *, z=None, meta=None, model=None,
                 kinetic=None, potential=None, constraint_violation=None,
                 constraint_force=None, status=None, t_end=None,
                 contact_force=None):  # fmt: skip
        self.t = np.asarray(t, dtype=float)
        self.q = np.asarray(q, dtype=float)
        self.v = np.asarray(v, dtype=float)
        self.a = np.asarray(a, dtype=float)
        self.tau = np.asarray(tau, dtype=float)
        self.z = None if z is None else np.asarray(z, dtype=float)
        self.meta = dict(meta or {})
        self.model = model
        self._kinetic = None if kinetic is None else np.asarray(kinetic, dtype=float)
        self._potential = None if potential is None else np.asarray(potential, dtype=float)
        self.constraint_violation = (
            None if constraint_violation is None else np.asarray(constraint_violation, dtype=float)
        )
        self.constraint_force = (
            None if constraint_force is None else np.asarray(constraint_force, dtype=float)
        )
        self.status = None if status is None else np.asarray(status, dtype=np.int64)
        self.t_end = None if t_end is None else np.asarray(t_end, dtype=float)
        self.contact_force = (
            None if contact_force is None else np.asarray(contact_force, dtype=float)
        )

    # ------------------------------------------------------------------ shape
    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Leading dimensions of a batch of rollouts (``()`` for one rollout)."""
        return self.q.shape[:-2]

    def __len__(self) -> int:
        """Number of samples, K + 1."""
        return self.t.shape[0]

    def __getitem__(self, index) -> Trajectory:
        """Rollout ``index`` of a batch (numpy indexing over the leading dimensions)."""
        if not self.batch_shape:
            raise IndexError("a single rollout has no batch dimension to index")

        def pick(x):
            return None if x is None else x[index]

        return Trajectory(
            self.t, self.q[index], self.v[index], self.a[index], self.tau[index],
            z=pick(self.z), meta=self.meta, model=self.model,
            kinetic=pick(self._kinetic), potential=pick(self._potential),
            constraint_violation=pick(self.constraint_violation),
            constraint_force=pick(self.constraint_force), status=pick(self.status),
            t_end=pick(self.t_end), contact_force=pick(self.contact_force),
        )  # fmt: skip

    def __repr__(self) -> str:
        b = f"{self.batch_shape} rollouts of " if self.batch_shape else ""
        name = self.meta.get("model", "?")
        done = "" if self.meta.get("complete", True) else ", partial"
        span = f"t = 0..{self.t[-1]:g} s" if len(self) else "no sample"
        return (
            f"<Trajectory {b}{len(self)} samples of {name!r}, {span}, "
            f"{self.meta.get('integrator', '?')}{done}>"
        )

    def __eq__(self, other) -> bool:
        if not isinstance(other, Trajectory):
            return NotImplemented
        for name in _ARRAYS:
            x, y = self._array(name), other._array(name)
            if (x is None) != (y is None):
                return False
            if x is not None and (x.shape != y.shape or not np.array_equal(x, y, equal_nan=True)):
                return False
        return self.meta == other.meta

    __hash__ = None

    def _array(self, name: str):
        if name in ("kinetic", "potential"):
            return getattr(self, "_" + name)
        return getattr(self, name)

    # ------------------------------------------------------------------ energy
    def _energies(self) -> None:
        if self._kinetic is not None:
            return
        if self.model is None:
            raise ValueError(
                "energy needs the model: Trajectory.load(path, model=...) or traj.model = model"
            )
        self._kinetic, self._potential = _kinetic_potential(self.model, self.q, self.v)

    def kinetic_energy(self) -> np.ndarray:
        """Kinetic energy ``1/2 v^T M(q) v`` per sample (rotor inertia included), J."""
        self._energies()
        return self._kinetic

    def potential_energy(self) -> np.ndarray:
        """Potential energy ``-sum_i m_i g . c_i(q)`` per sample (zero at the world origin), J."""
        self._energies()
        return self._potential

    def energy(self) -> np.ndarray:
        """Mechanical energy, kinetic + potential, per sample, J; shape (..., K + 1)."""
        self._energies()
        return self._kinetic + self._potential

    # ------------------------------------------------------------------ files
    def save(self, path, *, overwrite: bool = False) -> Path:
        """Write the trajectory to ``path`` (``.npz``: arrays plus JSON metadata).

        Energies are saved when they were computed, a constrained simulation's
        constraint violation and forces, and an environment's contact forces. An existing
        file is refused unless ``overwrite=True``; the file is written beside and moved into
        place, so a reader (or a failure) never sees half of it (:mod:`robodyn._files`).
        Returns the path written.
        """
        from .._files import atomic_write, output_path

        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        path = output_path(path, overwrite=overwrite, name="path")
        arrays = {n: x for n in _ARRAYS if (x := self._array(n)) is not None}
        meta = np.array(json.dumps(self.meta))
        with atomic_write(path) as tmp:
            np.savez(tmp, meta=meta, **arrays)
        return path

    @classmethod
    def load(cls, path, model=None, *, max_memory: float | None = None) -> Trajectory:
        """Read a trajectory written by :meth:`save` (or the ``.partial`` folder of a run
        that streamed to disk and was killed). ``model`` re-attaches the model (and its nq,
        nv and joint names must be the run's).

        Everything is checked before it is used (:mod:`robodyn.sim.trajectory_file`): the
        archive, each member's type (nothing is unpickled) and size against its header and
        against ``max_memory`` bytes (default: the memory available) before it is inflated,
        each member's CRC-32, the arrays' shapes against each other and the model, and a
        partial's count of samples done and layout.

        Raises
        ------
        robodyn.TrajectoryFileError
            (a ValueError) naming the file and the field at fault.
        FileNotFoundError
            No such file.
        """
        from .._checks import memory_limit
        from . import trajectory_file as tf

        path = Path(path)
        limit, text = memory_limit(max_memory)
        if path.is_dir():
            return _load_partial(path, model, limit, text)
        if not path.exists():
            hint = path.with_name(path.name + ".partial")
            more = f"; a stopped run left {str(hint)!r} (load that)" if hint.is_dir() else ""
            raise FileNotFoundError(f"no trajectory file {str(path)!r}{more}")
        meta, x = tf.read_npz(path, _ARRAYS, model, limit, text)
        fc = x.get("contact_force")  # a streamed run's file holds 3 nc numbers a sample
        if fc is not None and fc.ndim == x["q"].ndim:
            x["contact_force"] = fc.reshape((*fc.shape[:-1], -1, 3))
        return cls(
            x["t"], x["q"], x["v"], x["a"], x["tau"], z=x.get("z"), meta=meta, model=model,
            kinetic=x.get("kinetic"), potential=x.get("potential"),
            constraint_violation=x.get("constraint_violation"),
            constraint_force=x.get("constraint_force"), status=x.get("status"),
            t_end=x.get("t_end"), contact_force=x.get("contact_force"),
        )  # fmt: skip

    def to_csv(self, path, *, overwrite: bool = False) -> Path:
        """Write one row per sample: ``t, q_<joint>..., v_..., a_..., tau_...`` (a batch gets
        a first column ``rollout``). An existing file is refused unless ``overwrite=True``;
        written atomically (as :meth:`save`). Returns the path written."""
        from .._files import atomic_write, output_path

        path = output_path(path, overwrite=overwrite, name="path")
        nq, nv = self.q.shape[-1], self.v.shape[-1]
        names = self.meta.get("joint_names")
        vn = list(names) if names and len(names) == nv else [str(i) for i in range(nv)]
        qn = vn if nq == nv else [str(i) for i in range(nq)]
        head = ["t", *(f"q_{n}" for n in qn), *(f"v_{n}" for n in vn)]
        head += [*(f"a_{n}" for n in vn), *(f"tau_{n}" for n in vn)]
        K = len(self)
        rows = np.concatenate(
            [np.broadcast_to(self.t[:, None], (*self.batch_shape, K, 1)),
             self.q, self.v, self.a, self.tau], axis=-1,
        ).reshape(-1, 1 + nq + 3 * nv)  # fmt: skip
        if self.batch_shape:
            head = ["rollout", *head]
            idx = np.repeat(np.arange(rows.shape[0] // K), K)[:, None]
            rows = np.concatenate([idx, rows], axis=1)
        with atomic_write(path) as tmp:
            np.savetxt(tmp, rows, delimiter=",", header=",".join(head), comments="",
                       fmt="%.17g")  # fmt: skip
        return path

    def plot(self, path=None, *, reference=None, what=("q", "v", "tau"), overwrite: bool = False):
        """Joint positions, velocities and torques against time (see
        :func:`robodyn.sim.plot.plot_trajectory`; an existing ``path`` is refused unless
        ``overwrite=True``). Returns the matplotlib figure."""
        from .plot import plot_trajectory

        return plot_trajectory(self, path, reference=reference, what=what, overwrite=overwrite)


def _kinetic_potential(model, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``K = 1/2 v^T M(q) v`` (armature included) and ``U = -m g . c(q)`` for every sample,
    in the compiled core: ``M v`` is RNEA with only the acceleration term (a = v), ``c``
    the whole model's centre of mass (robodyn.energy computes the same from body twists,
    state by state, as an independent check of M)."""
    from ..kernels import core
    from ..kernels._pack import FL_ACC, FL_ARMATURE, packed
    from ..kinematics import com

    P = (model._rd_packed or packed(model)).P
    lead = q.shape[:-1]
    q2 = np.ascontiguousarray(q.reshape(-1, q.shape[-1]))
    v2 = np.ascontiguousarray(v.reshape(-1, v.shape[-1]))
    Mv = core.rnea(P, q2, None, v2, None, FL_ACC | FL_ARMATURE, 0.0, 0)
    if not isinstance(Mv, np.ndarray):
        raise ValueError("the trajectory holds non-finite states: no energy")
    Mv = Mv.reshape(v.shape)
    q = q2.reshape((*lead, q.shape[-1]))
    kinetic = 0.5 * np.einsum("...i,...i->...", v, Mv)
    m = model.total_mass
    potential = -m * (com(model, q) @ model.gravity) if m > 0 else np.zeros(q.shape[:-1])
    return kinetic, potential


def _load_partial(folder: Path, model, limit, limit_text) -> Trajectory:
    """What a streaming run had written when it stopped: the first ``done`` samples of the
    archive it was laying out in place (robodyn.sim.npzstream; time-major, sample k at
    index k), its meta.json and layout checked first (robodyn.sim.trajectory_file)."""
    from . import trajectory_file as tf
    from .npzstream import load_layout

    streamed = ("t", "q", "v", "a", "tau", "z", "contact_force")
    meta, layout, n = tf.read_partial(folder, streamed, limit, limit_text)
    rollouts = tuple(meta.get("rollouts") or ())
    shapes = {k: (n,) if k == "t" else (*rollouts, n, shape[-1])
              for k, (_, shape) in layout["arrays"].items()}  # fmt: skip
    # shapes checked before the samples are read (arrays that take no memory)
    tf.check_arrays(folder, {k: np.broadcast_to(0.0, s) for k, s in shapes.items()}, meta, model)
    x = load_layout(folder, layout, n)
    for name in list(x):
        if name != "t":
            x[name] = np.moveaxis(x[name], 0, -2)
            x[name] = x[name].reshape((*rollouts, n, x[name].shape[-1]))
    meta["complete"] = False
    fc = x.get("contact_force")
    return Trajectory(x["t"], x["q"], x["v"], x["a"], x["tau"], z=x.get("z"), meta=meta,
                      model=model, contact_force=None if fc is None else fc.reshape(
                          (*fc.shape[:-1], -1, 3)))  # fmt: skip
