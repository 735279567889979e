"""Where the samples of a run of :func:`robodyn.simulate` go: preallocated in memory, or
streamed to ``out`` (inside a ``<out>.partial`` folder robodyn marks as its own), after a
check that they fit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from .._checks import check_room
from .._files import output_path
from .result import Trajectory

_MARK = ".robodyn-partial"  # in a <out>.partial folder robodyn made (and may delete)


def _partial_folder(out: Path, overwrite: bool) -> Path:
    """``<out>.partial``, where the samples stream: free, or a folder a stopped run of
    robodyn's left (replaced only with ``overwrite``); anything else is the user's and is
    never deleted."""
    folder = out.with_name(out.name + ".partial")
    if folder.exists() or folder.is_symlink():
        ours = folder.is_dir() and not folder.is_symlink() and (folder / _MARK).is_file()
        if not ours:
            raise ValueError(f"out: {str(folder)!r} exists and is not a run robodyn left "
                             "(robodyn streams the samples there): move it away")  # fmt: skip
        if not overwrite:
            raise FileExistsError(
                f"out: {str(folder)!r} holds the samples of an earlier run that stopped "
                f"(rd.Trajectory.load({str(folder)!r}) reads them); pass overwrite=True to "
                "replace it"
            )
        shutil.rmtree(folder)
    return folder


def _npz_out(out, overwrite: bool) -> Path | None:
    """``out`` as a ``.npz`` path (the suffix added, as Trajectory.save does), checked free
    or ``overwrite`` before any work (:func:`robodyn._files.output_path`); None without it."""
    if out is None:
        return None
    out = Path(out)
    if out.suffix != ".npz":
        out = out.with_name(out.name + ".npz")
    return output_path(out, overwrite=overwrite, name="out")


def _check_room(model, N: int, K: int, extra: int, duration, dt, out, max_memory=None) -> None:
    """Refuse, before allocating, a run whose samples do not fit in memory (the memory
    available, or ``max_memory`` bytes) or on disk (written to ``out``), saying how much it
    would need. ``extra``: numbers a sample holds per rollout besides q, v, a and tau (the
    controller's state z; a constrained run's multipliers and violation)."""
    width = model.nq + 3 * model.nv + extra  # per sample and rollout
    need = 8 * (K + 1) * (1 + N * width)
    what = (
        f"simulate: duration {duration:g} s at dt {dt:g} s is {K + 1:.4g} samples of "
        f"{width} numbers{f' for {N} rollouts' if N > 1 else ''}: the result"
    )
    how = "; shorten the run, raise dt, or split it into shorter runs"
    try:
        if out is not None:
            check_room(need, what, folder=Path(out).parent)
        check_room(need, what, limit=max_memory, cli="--max-memory")
    except ValueError as exc:
        raise ValueError(f"{exc}{how}") from None


class _Record:
    """Preallocated sample arrays, time-major (sample k at index k), in memory or, with
    ``out=``, streamed: laid out in place in the ``.npz`` being written
    (:class:`~robodyn.sim.npzstream.NpzStream`, inside a ``<out>.partial`` folder whose
    ``meta.json`` says how many samples are done), which survives a killed process."""

    MARK_EVERY = 0.5  # s of wall time between two marks on disk

    def __init__(self, K, shape_q, shape_v, shape_z, folder: Path | None, meta: dict,
                 nc: int = 0):  # fmt: skip
        self.folder, self.meta, self.done = folder, meta, 0
        shapes = {"t": (K + 1,), "q": (K + 1, *shape_q), "v": (K + 1, *shape_v),
                  "a": (K + 1, *shape_v), "tau": (K + 1, *shape_v)}  # fmt: skip
        if shape_z is not None:
            shapes["z"] = (K + 1, *shape_z)
        if nc:  # an environment's contact forces, (nc, 3) per sample flattened to 3 nc
            shapes["contact_force"] = (K + 1, *shape_v[:-1], 3 * nc)
        self.stream = None
        if folder is not None:
            from .npzstream import NpzStream

            folder.mkdir()  # (checked free by _partial_folder) and marked as robodyn's
            (folder / _MARK).write_text("samples of a robodyn.simulate run, streamed\n")
            self.stream = NpzStream(folder / "data.npz", shapes)
            self.x = self.stream.arrays
            self._marked = 0.0
            self.mark(0, force=True)
        else:
            self.x = {n: np.empty(s) for n, s in shapes.items()}

    def put(self, k, t, q, v, a, tau, z, fc=None):
        x = self.x
        x["t"][k] = t
        x["q"][k] = q
        x["v"][k] = v
        x["a"][k] = a
        x["tau"][k] = tau
        if z is not None:
            x["z"][k] = z
        if fc is not None:
            x["contact_force"][k] = fc.reshape(fc.shape[:-2] + (-1,))
        self.done = k + 1

    def mark(self, done: int, *, force: bool = False) -> None:
        """Say on disk how many samples are complete (at most every MARK_EVERY seconds).
        The samples are already in the file: its pages are shared with the system, which
        writes them out even when this process is killed (only a crash of the machine
        could lose them; flushing them here, msync, would cost ~15 % of a compiled run)."""
        import time

        if self.folder is None or not (force or time.monotonic() - self._marked > self.MARK_EVERY):
            return
        self._marked = time.monotonic()
        tmp = self.folder / "meta.json.tmp"
        tmp.write_text(json.dumps({**self.meta, "done": done, "layout": self.stream.layout}))
        tmp.replace(self.folder / "meta.json")

    def trajectory(self, n: int, batch, model, meta) -> Trajectory:
        """The first n samples as a Trajectory (batch axes first)."""

        def arr(name):
            if name not in self.x:
                return None
            x = np.array(self.x[name][:n])
            if name == "t":
                return x
            x = np.moveaxis(x, 0, -2)
            return x.reshape((*batch, n, x.shape[-1]))

        fc = arr("contact_force")
        return Trajectory(
            arr("t"), arr("q"), arr("v"), arr("a"), arr("tau"), z=arr("z"), meta=meta,
            model=model, contact_force=None if fc is None else fc.reshape(
                (*fc.shape[:-1], -1, 3)),
        )  # fmt: skip

    def finish(self, res: Trajectory, out: Path) -> None:
        """Write the complete run ``res`` to ``out``: a single rollout's archive is already
        laid out as Trajectory.save writes it (time is its first axis), so it is sealed and
        renamed; a batch's (time-major on disk, rollouts first in a Trajectory) is saved."""
        if res.batch_shape:
            res.save(out, overwrite=True)  # out was checked when the run began
        else:
            self.stream.finish(res.meta, out)
        self.x.clear()
        shutil.rmtree(self.folder, ignore_errors=True)
