"""Reading a trajectory file strictly: :meth:`robodyn.Trajectory.load`'s checks.

A file robodyn did not write, a truncated copy, flipped bytes or a hostile archive must give
an error naming the file and what is wrong (:class:`robodyn.TrajectoryFileError`), never a
raw ``KeyError`` / ``BadZipFile`` / ``EOFError``, never numbers that are silently wrong, and
never more memory than the caller allows. Before a byte of data is read:

* a ``.npz`` is a zip archive whose members are ``.npy`` files (each name once); each
  member robodyn reads has a ``.npy`` header of a plain numeric type (never an object
  array: nothing is unpickled) whose shape accounts for exactly the member's size in the
  zip directory, and that size is within the memory limit (a 2 MB deflated member that
  inflates to 2 GB is refused by its directory entry, before inflating);
* a ``<out>.partial`` folder's ``meta.json`` says how many samples are done (a whole number
  in 0..K+1) and where each array lies in ``data.npz`` beside it (a plain file of that
  folder; offsets and shapes inside the file, arrays not overlapping);

then, as the data are read, each member's CRC-32 is checked (zipfile) and finally the
arrays' shapes against each other and the model: ``t`` (K+1,), ``q`` (..., K+1, nq), ``v``,
``a``, ``tau`` (..., K+1, nv), the optional arrays along.
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import numpy as np

from .._checks import human_bytes
from ..errors import TrajectoryFileError

#: each rollout's status code and what it means (a Trajectory's ``status``, a file's too;
#: robodyn.sim.result hands it on)
STATUS = {0: "ok", 1: "diverged", 2: "dynamics failed", 3: "controller failed"}

__all__ = ["read_npz", "read_partial", "check_arrays"]

_STEP = 1 << 24  # bytes read at a time into an array


def _npy_header(fh, version):
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(fh)
    if version == (2, 0):
        return np.lib.format.read_array_header_2_0(fh)
    raise ValueError(f".npy format version {version[0]}.{version[1]} (robodyn reads 1.0, 2.0)")


def _member_header(zf, info, field, bad, kinds):
    """A ``.npy`` member's (shape, fortran order, dtype), checked to be numbers of
    ``kinds`` that account for exactly the member's size in the zip directory."""
    with zf.open(info) as fh:
        try:
            shape, fortran, dtype = _npy_header(fh, np.lib.format.read_magic(fh))
        except ValueError as exc:
            raise bad(f"not a .npy array ({exc})", field) from None
        start = fh.tell()
    if dtype.hasobject or dtype.kind not in kinds:
        raise bad(f"holds {dtype} values, not numbers", field)
    size = math.prod(shape) * dtype.itemsize
    if start + size != info.file_size:
        raise bad(f"its header says shape {tuple(shape)} ({human_bytes(size)}) but the "
                  f"member holds {human_bytes(info.file_size - start)} of data: "
                  "truncated or altered", field)  # fmt: skip
    return tuple(shape), fortran, dtype


def _member_data(zf, info, header, field, bad):
    """The member's array, read in place (zipfile checks the CRC-32 at its last byte)."""
    shape, fortran, dtype = header
    count = math.prod(shape)
    size = count * dtype.itemsize
    flat = np.empty(count, dtype=dtype)
    view = memoryview(flat).cast("B") if size else memoryview(b"")
    with zf.open(info) as fh:
        _npy_header(fh, np.lib.format.read_magic(fh))
        done = 0
        while done < size:
            got = fh.readinto(view[done : min(size, done + _STEP)])
            if not got:
                raise bad("the member ends early: truncated", field)
            done += got
        fh.read(1)  # at the end: zipfile compares the CRC-32 (an empty member included)
    return flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)


def _stub(shape, dtype) -> np.ndarray:
    """An array of ``shape`` that takes no memory (for checking shapes before reading)."""
    return np.broadcast_to(np.zeros((), dtype=dtype), shape)


def read_npz(path: Path, names, model, limit, limit_text) -> tuple[dict, dict]:
    """(meta, arrays) of the ``.npz`` at ``path``: the arrays of ``names`` it holds, their
    sizes, types and shapes (:func:`check_arrays`) checked before their data are read."""

    def bad(problem, field=None):
        return TrajectoryFileError(path, problem, field)

    try:
        zf = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError) as exc:
        raise bad(f"not a .npz file (not a readable zip archive: {exc})") from None
    with zf:
        members: dict[str, zipfile.ZipInfo] = {}
        for info in zf.infolist():
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            if key in members:
                raise bad(f"the archive holds the member {info.filename!r} twice", key)
            members[key] = info
        if "meta" not in members:
            raise bad("missing (not a file of Trajectory.save)", "meta")
        want = ["meta", *(n for n in names if n in members)]
        total = 0
        for key in want:
            size = members[key].file_size
            total += size
            if limit is not None and size > limit:
                raise bad(f"the member {members[key].filename!r} would take "
                          f"{human_bytes(size)} of memory, over {limit_text}", key)  # fmt: skip
        if limit is not None and total > limit:
            raise bad(f"its arrays would take {human_bytes(total)} of memory, over {limit_text}")
        try:
            head = {k: _member_header(zf, members[k], k, bad, "U" if k == "meta" else "fiu")
                    for k in want}  # fmt: skip
            text = _member_data(zf, members["meta"], head["meta"], "meta", bad)
            if text.shape != ():
                raise bad(f"must be one JSON text, got shape {text.shape}", "meta")
            meta = _meta(str(text), bad)
            check_arrays(path, {k: _stub(h[0], h[2]) for k, h in head.items()}, meta, model)
            arrays = {k: _member_data(zf, members[k], head[k], k, bad) for k in want[1:]}
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
            if isinstance(exc, TrajectoryFileError):
                raise
            raise bad(f"unreadable ({exc}): the file is corrupt or truncated") from None
    check_status(path, arrays.get("status"))
    return meta, arrays


def _meta(text: str, bad) -> dict:
    try:
        meta = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise bad(f"not JSON ({exc})", "meta") from None
    if not isinstance(meta, dict):
        raise bad(f"must be a JSON object, got {type(meta).__name__}", "meta")
    return meta


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _layout(folder: Path, layout, bad) -> tuple[Path, dict]:
    """The data file and ``{name: (offset, shape)}`` of a partial's layout, checked to lie
    inside the file, in the folder, without overlapping."""
    if not isinstance(layout, dict) or not isinstance(layout.get("arrays"), dict):
        raise bad("must be an object with 'file' and 'arrays'", "layout")
    name = layout.get("file")
    if not isinstance(name, str) or name in ("", ".", "..") or Path(name).name != name \
            or "\\" in name:  # fmt: skip
        raise bad(f"'file' must name a file in the folder, got {name!r}", "layout")
    data = folder / name
    if data.is_symlink() or not data.is_file():
        raise bad(f"the data file {name!r} is missing (or not a plain file)", "layout")
    size = data.stat().st_size
    arrays, spans = {}, []
    for key, entry in layout["arrays"].items():
        ok = isinstance(entry, list) and len(entry) == 2 and _whole(entry[0]) and entry[0] >= 0
        ok = ok and isinstance(entry[1], list) and all(_whole(d) and d >= 0 for d in entry[1])
        if not ok:
            raise bad(f"array {key!r}: [offset, shape] of whole numbers >= 0, got {entry!r}",
                      "layout")  # fmt: skip
        offset, shape = entry[0], tuple(entry[1])
        end = offset + 8 * math.prod(shape)
        if end > size:
            raise bad(f"array {key!r} lies at bytes {offset}..{end}, beyond the end of "
                      f"{name!r} ({size} bytes): truncated or altered", "layout")  # fmt: skip
        arrays[key] = (offset, shape)
        spans.append((offset, end, key))
    spans.sort()
    for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
        if start < end:
            raise bad(f"arrays {a!r} and {b!r} overlap in {name!r}", "layout")
    return data, arrays


def read_partial(folder: Path, names, limit, limit_text) -> tuple[dict, dict, int]:
    """(meta, layout, done) of a ``.partial`` folder, checked (the layout as
    :class:`~robodyn.sim.npzstream.NpzStream` writes it); the caller reads the first
    ``done`` samples."""

    def bad(problem, field=None):
        return TrajectoryFileError(folder, problem, field)

    mpath = folder / "meta.json"
    if not mpath.is_file():
        raise bad("a folder without meta.json: not the <out>.partial folder of a streamed run")
    if limit is not None and mpath.stat().st_size > limit:
        raise bad(f"meta.json would take {human_bytes(mpath.stat().st_size)}, over {limit_text}",
                  "meta")  # fmt: skip
    try:
        meta = _meta(mpath.read_text(encoding="utf-8"), bad)
    except UnicodeDecodeError as exc:
        raise bad(f"meta.json is not UTF-8 text ({exc})", "meta") from None
    if "done" not in meta:
        raise bad("missing from meta.json", "done")
    if "layout" not in meta:
        raise bad("missing from meta.json", "layout")
    done = meta.pop("done")
    data, arrays = _layout(folder, meta.pop("layout"), bad)
    for key in arrays:
        if key not in names:
            raise bad(f"unknown array {key!r} (robodyn streams {', '.join(names)})", "layout")
    for key in ("t", "q", "v", "a", "tau"):
        if key not in arrays:
            raise bad(f"no array {key!r}", "layout")
    K1 = arrays["t"][1][0] if len(arrays["t"][1]) == 1 else None
    if K1 is None:
        raise bad(f"'t' must have shape [K + 1], got {list(arrays['t'][1])}", "layout")
    rollouts = meta.get("rollouts") or []
    if not (isinstance(rollouts, list) and all(_whole(r) and r >= 0 for r in rollouts)):
        raise bad(f"must be a list of whole numbers, got {rollouts!r}", "rollouts")
    middle = (math.prod(rollouts),) if rollouts else ()
    for key, (_, shape) in arrays.items():
        if key != "t" and (len(shape) != 2 + len(middle) or shape[0] != K1
                           or tuple(shape[1:-1]) != middle):  # fmt: skip
            raise bad(f"array {key!r} has shape {list(shape)}; with {K1} samples and "
                      f"rollouts {rollouts} it must be [{K1}, {', '.join(map(str, middle))}"
                      f"{', ' if middle else ''}n]", "layout")  # fmt: skip
    if not _whole(done) or not 0 <= done <= K1:
        raise bad(f"must be a whole number of samples in 0..{K1} (the samples laid out), "
                  f"got {done!r}", "done")  # fmt: skip
    need = sum(8 * done * math.prod(shape[1:]) for _, shape in arrays.values())
    if limit is not None and need > limit:
        raise bad(f"its {done} samples would take {human_bytes(need)} of memory, over "
                  f"{limit_text}")  # fmt: skip
    layout = {"file": data.name, "arrays": {k: [o, list(s)] for k, (o, s) in arrays.items()}}
    return meta, layout, done


def _shape_error(bad, key, x, want):
    return bad(f"has shape {x.shape}, expected {want}", key)


def check_arrays(path, x: dict, meta: dict, model) -> None:
    """The arrays of a trajectory agree with each other (and with ``model``): raise
    :class:`TrajectoryFileError` naming the first that does not."""

    def bad(problem, field=None):
        return TrajectoryFileError(path, problem, field)

    for key in ("t", "q", "v", "a", "tau"):
        if key not in x:
            raise bad("missing (not a file of Trajectory.save)", key)
    t, q = x["t"], x["q"]
    if t.ndim != 1:
        raise _shape_error(bad, "t", t, "(K + 1,)")
    n = t.shape[0]
    if q.ndim < 2 or q.shape[-2] != n:
        raise _shape_error(bad, "q", q, f"(..., {n}, nq): one row per sample of t")
    lead = q.shape[:-2]
    nv = x["v"].shape[-1] if x["v"].ndim >= 1 else None
    for key in ("v", "a", "tau"):
        if x[key].shape != (*lead, n, nv):
            want = f"{(*lead, n, nv)}: the {n} samples of t, q's rollouts {lead}, v's nv"
            raise _shape_error(bad, key, x[key], want)
    if model is not None:
        if q.shape[-1] != model.nq:
            raise bad(f"has nq = {q.shape[-1]} per sample; the model {model.name!r} has "
                      f"nq = {model.nq}", "q")  # fmt: skip
        if nv != model.nv:
            raise bad(f"has nv = {nv} per sample; the model {model.name!r} has nv = "
                      f"{model.nv}", "v")  # fmt: skip
        names = meta.get("joint_names")
        if names is not None and list(names) != list(model.joint_names):
            raise bad(f"the run's joints {list(names)} are not the model {model.name!r}'s "
                      f"{list(model.joint_names)}", "joint_names")  # fmt: skip
    for key, tail in (("z", 1), ("constraint_force", 1), ("kinetic", 0), ("potential", 0),
                      ("constraint_violation", 0), ("contact_force", 2)):  # fmt: skip
        y = x.get(key)
        sh = None if y is None else y.shape
        if key == "contact_force" and y is not None and len(sh) == len(lead) + 2 \
                and sh[-1] % 3 == 0:  # fmt: skip
            sh = (*sh[:-1], sh[-1] // 3, 3)  # as streamed: 3 nc numbers a sample
        if y is not None and (len(sh) != len(lead) + 1 + tail or sh[: len(lead) + 1]
                              != (*lead, n) or (tail == 2 and sh[-1] != 3)):  # fmt: skip
            more = (", k", ", nc, 3")[tail - 1] if tail else ""
            want = f"({', '.join(map(str, (*lead, n)))}{more})"
            raise _shape_error(bad, key, y, want)
    for key in ("status", "t_end"):
        y = x.get(key)
        if y is not None and y.shape != lead:
            raise _shape_error(bad, key, y, f"{lead}: one per rollout")
    status = x.get("status")
    if status is not None and status.dtype.kind not in "iu":
        raise bad(f"holds {status.dtype} values; status codes are whole numbers", "status")


def check_status(path, status) -> None:
    """Each rollout's status is one of :data:`STATUS`."""
    if status is not None and not np.isin(status, list(STATUS)).all():
        raise TrajectoryFileError(path, f"codes must be in {sorted(STATUS)}", "status")
