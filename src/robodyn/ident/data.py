"""Identification data: simulated experiments and CSV files.

:func:`simulate_experiment` runs :func:`robodyn.simulate` on the "true" model under
computed-torque tracking of an exciting trajectory and records ``(t, q, v, a, tau)``,
then adds measurement noise. The CSV format (:func:`save_csv`, :func:`load_csv`) has one
row per sample and a header ``t, q[<joint>]..., v[<joint>]..., a[<joint>]...,
tau[<joint>]...`` (the ``a`` columns optional: without them the accelerations are
differentiated from v).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import itertools
import math
import re
from pathlib import Path

import numpy as np

from ..errors import ModelError

__all__ = ["Experiment", "filtered", "load_csv", "save_csv", "simulate_experiment"]


@dataclasses.dataclass
class Experiment:
    """Samples of a motion: t (N,), q (N, nq), v, a, tau (N, nv); ``tau_true`` without noise."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    tau: np.ndarray
    tau_true: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.t)

    def split(self, fraction: float = 0.7) -> tuple[Experiment, Experiment]:
        """(first ``fraction`` of the samples, the rest): training and held-out data."""
        k = int(round(fraction * len(self)))

        def part(sl):
            tt = None if self.tau_true is None else self.tau_true[sl]
            return Experiment(self.t[sl], self.q[sl], self.v[sl], self.a[sl], self.tau[sl], tt)

        return part(slice(0, k)), part(slice(k, None))


def filtered(experiment: Experiment, cutoff: float, order: int = 4) -> Experiment:
    """Zero-phase low-pass filtering of measured data, accelerations from the filtered v.

    Real encoders give q (and v by differences) with quantisation noise and the torques
    (motor currents) are noisy: the usual recipe (Gautier's parallel filtering) passes q, v
    and tau through the same zero-phase Butterworth filter (``scipy.signal.filtfilt``: no
    delay, so torques and states stay aligned) and takes the accelerations as central
    differences of the filtered v. Use a cutoff a few times the excitation's bandwidth
    (harmonics / period).

    Parameters
    ----------
    experiment : Experiment
        Uniformly sampled (t equally spaced).
    cutoff : float
        Cut-off frequency (Hz), below the Nyquist frequency 1 / (2 dt).
    order : int
        Butterworth order (applied twice by filtfilt).

    Returns
    -------
    Experiment
        Filtered q, v, tau and the differentiated a (``tau_true`` kept).
    """
    import scipy.signal

    e = experiment
    t = np.asarray(e.t, dtype=float)
    dt = np.diff(t)
    if len(t) < 3 * (order + 1) or np.any(dt <= 0) or np.ptp(dt) > 1e-6 * dt.mean():
        raise ValueError("filtered needs at least 3 (order + 1) uniformly spaced samples")
    nyq = 0.5 / dt.mean()
    if not 0 < cutoff < nyq:
        raise ValueError(f"cutoff must be in (0, {nyq:g}) Hz (Nyquist), got {cutoff!r}")
    b, a = scipy.signal.butter(order, cutoff / nyq)

    def f(x):
        return scipy.signal.filtfilt(b, a, x, axis=0)

    v = f(e.v)
    return Experiment(t, f(e.q), v, np.gradient(v, t, axis=0), f(e.tau), e.tau_true)


def simulate_experiment(
    model,
    trajectory=None,
    *,
    duration: float | None = None,
    dt: float = 1e-3,
    sample_dt: float = 1e-2,
    noise: float = 0.0,
    noise_q: float = 0.0,
    noise_v: float = 0.0,
    kp: float = 400.0,
    kd: float = 40.0,
    seed: int = 0,
) -> Experiment:
    """Simulate an identification experiment on the true ``model``.

    The robot (with the model's joint friction and armature) tracks ``trajectory`` under
    computed torque (:class:`robodyn.control.ComputedTorque`), simulated by
    :func:`robodyn.simulate` (RK4, step ``dt``). The applied torques and the simulated
    ``(q, v, a)`` are recorded every ``sample_dt``; Gaussian noise is added to the torques
    (``noise`` times each joint's torque standard deviation) and, optionally, to q and v
    (absolute standard deviations ``noise_q`` rad, ``noise_v`` rad/s).

    Parameters
    ----------
    model : Model
        The "true" robot.
    trajectory : callable, optional
        ``trajectory(t) -> (q, v, a)``, e.g. a
        :class:`~robodyn.ident.excitation.FourierTrajectory` (default:
        :func:`~robodyn.ident.excitation_trajectory` of the model, random search only).
    duration : float, optional
        Seconds (default: the trajectory's period, else 10 s).

    Returns
    -------
    Experiment
    """
    from ..control import ComputedTorque
    from ..sim import simulate
    from .excitation import excitation_trajectory

    if trajectory is None:
        trajectory = excitation_trajectory(model, maxiter=0, seed=seed)
    if duration is None:
        duration = float(getattr(trajectory, "period", 10.0))
    q0, v0, _ = trajectory(0.0)
    ctrl = ComputedTorque(model, trajectory, kp=kp, kd=kd)
    run = simulate(model, q0, v0, ctrl, duration=duration, dt=dt)
    step = max(1, int(round(sample_dt / dt)))
    t, q, v, a, tau = (x[::step] for x in (run.t, run.q, run.v, run.a, run.tau))
    rng = np.random.default_rng(seed)
    tau_n = tau + noise * tau.std(axis=0) * rng.normal(size=tau.shape)
    q_n = q + noise_q * rng.normal(size=q.shape) if noise_q else q
    v_n = v + noise_v * rng.normal(size=v.shape) if noise_v else v
    return Experiment(t, q_n, v_n, a, tau_n, tau)


def _columns(model) -> list[str]:
    names = list(model.joint_names)
    if model.nq != model.nv:
        raise ModelError("CSV identification data need a model with nq = nv (no free joint)")
    return (
        ["t"]
        + [f"q[{n}]" for n in names]
        + [f"v[{n}]" for n in names]
        + [f"a[{n}]" for n in names]
        + [f"tau[{n}]" for n in names]
    )


def save_csv(path, model, experiment: Experiment, *, overwrite: bool = False) -> Path:
    """Write an experiment as CSV (the header of :func:`load_csv`, ``,`` separated, numbers
    to 17 significant digits so they read back bit for bit).

    An existing file is refused unless ``overwrite=True``; the file is written beside and
    moved into place (:mod:`robodyn._files`). Non-finite samples are refused (the file could
    not be read back). Returns the path written.
    """
    from .._files import atomic_write, output_path

    path = output_path(path, overwrite=overwrite, name="path")
    e = experiment
    cols = _columns(model)
    n = len(np.atleast_1d(e.t))
    parts = {"t": (e.t, (n,)), "q": (e.q, (n, model.nq)), "v": (e.v, (n, model.nv)),
             "a": (e.a, (n, model.nv)), "tau": (e.tau, (n, model.nv))}  # fmt: skip
    for name, (x, shape) in parts.items():
        x = np.asarray(x, dtype=float)
        if x.shape != shape:
            raise ValueError(f"experiment.{name} has shape {x.shape}, expected {shape}")
        if not np.all(np.isfinite(x)):
            k = int(np.argwhere(~np.isfinite(x))[0][0])
            raise ValueError(f"experiment.{name} contains NaN or inf (sample {k})")
    data = np.column_stack([np.asarray(x, dtype=float) for x, _ in parts.values()])
    head = io.StringIO()
    csv.writer(head, lineterminator="").writerow(cols)  # a name with , or " is quoted
    with atomic_write(path) as tmp:
        np.savetxt(tmp, data, delimiter=",", header=head.getvalue(), comments="", fmt="%.17g")
    return path


# a number as robodyn reads it: ASCII decimal, optional sign, fraction and exponent (no
# "1_000", no "nan", no digits of other scripts, which Python's float() would take)
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SHOWN = 12  # bad cells listed in a message (the count says how many there are)


def _dialect(path, header: str):
    """The header line's separator (``,``, ``;`` or tab) and quote character, by the csv
    module's Sniffer (on the header only: decimal commas in the rows would mislead it)."""
    try:
        d = csv.Sniffer().sniff(header, delimiters=",;\t")
        return d.delimiter, d.quotechar or '"'
    except csv.Error:
        return ",", '"'


def _header(path, row: list[str]) -> dict[str, int]:
    """Column name -> index; refuses duplicated names (one would silently win)."""
    names = [h.strip() for h in row]
    if names and names[0].startswith("#"):  # numpy.savetxt's default comment mark
        names[0] = names[0][1:].strip()
    seen: dict[str, list[int]] = {}
    for k, h in enumerate(names):
        seen.setdefault(h, []).append(k + 1)
    dup = {h: ks for h, ks in seen.items() if len(ks) > 1}
    if dup:
        said = "; ".join(f"{h!r} in columns {', '.join(map(str, ks))}" for h, ks in dup.items())
        raise ValueError(f"{path}: duplicated column name(s): {said} (which one holds the data?)")
    return {h: ks[0] - 1 for h, ks in seen.items()}


def _cell(text: str, delimiter: str) -> tuple[float | None, str]:
    """(the number, '') or (None, what is wrong with the cell)."""
    c = text.strip()
    if not c:
        return None, "empty"
    if not _NUMBER.fullmatch(c):
        if delimiter != "," and re.fullmatch(r"[+-]?[0-9]*,[0-9]+(?:[eE][+-]?[0-9]+)?", c):
            return None, f"{text!r} is not a number (a decimal comma? robodyn reads 1.5)"
        return None, f"{text!r} is not a number"
    x = float(c)
    if not math.isfinite(x):
        return None, f"{text!r} is beyond the float range"
    return x, ""


def _rows(path, reader, header, idx, use, delimiter):
    """The numbers of columns ``use`` of every data row (blank lines skipped); every bad cell
    is named by line and column."""
    values, bad, n_bad = [], [], 0
    names = {j: h for h, j in idx.items()}
    for row in reader:
        if not row or all(not c.strip() for c in row):
            continue
        line = reader.line_num
        if len(row) != len(header):
            n_bad += 1
            if len(bad) < _SHOWN:
                bad.append(f"line {line}: {len(row)} cells, the header has {len(header)}")
            continue
        out = []
        for j in use:
            x, why = _cell(row[j], delimiter)
            if why:
                n_bad += 1
                if len(bad) < _SHOWN:
                    bad.append(f"line {line}, column {j + 1} ({names[j]}): {why}")
            out.append(x)
        values.append(out)
    if n_bad:
        more = f"; and {n_bad - len(bad)} more" if n_bad > len(bad) else ""
        raise ValueError(f"{path}: {n_bad} bad cell(s) or row(s): " + "; ".join(bad) + more)
    if not values:
        raise ValueError(f"{path}: no data rows after the header")
    return np.array(values, dtype=float)


def _needed(path, cols, idx, delimiter) -> tuple[list[int], bool]:
    """The indices of the columns read, in ``cols`` order, and whether the a[...] columns
    are there (all of them, or none: then a comes from v)."""
    acc = [c for c in cols if c.startswith("a[")]
    has_a = any(c in idx for c in acc)
    missing = [c for c in cols if c not in idx and (has_a or c not in acc)]
    if missing:
        shown = ", ".join(map(repr, list(idx)[:8])) + (", ..." if len(idx) > 8 else "")
        raise ValueError(f"{path}: missing column(s) {', '.join(missing)} (the header, split "
                         f"at {delimiter!r}, has {shown})")  # fmt: skip
    return [idx[c] for c in cols if has_a or c not in acc], has_a


def _differentiated(path, t, v) -> np.ndarray:
    """a = dv/dt by central differences (t must increase)."""
    if len(t) < 2:
        raise ValueError(f"{path}: without a[...] columns at least two rows are needed to "
                         "differentiate v")  # fmt: skip
    steps = np.diff(t)
    if np.any(steps <= 0):
        k = int(np.argmax(steps <= 0))
        raise ValueError(f"{path}: without a[...] columns the accelerations are differences "
                         f"of v over t, which must increase: data row {k + 2} has t = "
                         f"{t[k + 1]:g} after {t[k]:g}")  # fmt: skip
    return np.gradient(v, t, axis=0)


def load_csv(path, model) -> Experiment:
    """Read an experiment written by :func:`save_csv` (or by hand, or by a spreadsheet,
    with that header).

    Columns are matched by name, in any order; other columns are ignored. Without ``a[...]``
    columns the accelerations are central differences of v over t (t must then increase).
    The separator is ``,``, ``;`` or a tab (found from the header by :class:`csv.Sniffer`),
    names may be quoted, and a UTF-8 byte order mark (Excel's "CSV UTF-8") is skipped.

    Parsing is strict: a duplicated column name, a missing column, a row with another number
    of cells than the header, or a cell of a column read that is empty, not a decimal number
    (text, a decimal comma, ``nan``) or beyond the float range raise ValueError naming the
    file, and the line and column of each bad cell; nothing becomes NaN silently.
    """
    cols = _columns(model)
    path = Path(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            first = f.readline()
            delimiter, quote = _dialect(path, first)
            reader = csv.reader(itertools.chain([first], f), delimiter=delimiter,
                                quotechar=quote, skipinitialspace=True, strict=True)  # fmt: skip
            header = next(reader, None)
            if not header or not any(h.strip() for h in header):
                raise ValueError(f"{path}: empty file (no header on its first line)")
            idx = _header(path, header)
            use, has_a = _needed(path, cols, idx, delimiter)
            data = _rows(path, reader, header, idx, use, delimiter)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start} of a line); save it as "
                         "'CSV UTF-8'") from None  # fmt: skip
    except csv.Error as exc:
        raise ValueError(f"{path}: not readable as CSV ({exc})") from None
    n = model.nv
    t, q, v = data[:, 0], data[:, 1 : 1 + n], data[:, 1 + n : 1 + 2 * n]
    if has_a:
        a, tau = data[:, 1 + 2 * n : 1 + 3 * n], data[:, 1 + 3 * n :]
    else:
        a, tau = _differentiated(path, t, v), data[:, 1 + 2 * n :]
    return Experiment(t, q, v, a, tau)
