"""The Zarr stores of :mod:`robodyn.distributed`: fingerprinted, checksummed, resumable.

A store is a Zarr v3 group (a folder, ``*.zarr``) holding a result of ``n`` items computed
in chunks of ``chunk`` items:

* one array per field, shape ``(n, *tail)``, chunked ``(chunk, *tail)`` along the items,
  with the codecs bytes, zstd and crc32c (zarr itself then refuses a chunk whose bytes
  changed, also for a reader that does not know robodyn);
* ``_digest (nchunks, nfields, 16) uint8``: per chunk and field a BLAKE2b digest of the
  values written, bound to the store (the digest of its attributes), the field's name and
  the chunk's index, so a chunk that lost its file, got another chunk's file or other
  bytes fails it;
* ``_done (nchunks,) uint8``: 1 once the chunk's data and then its digests are written;
* attributes: ``format``, ``model`` and ``model_fingerprint``, ``n``, ``chunk``,
  ``fields``, ``dtypes``, ``meta`` (the run's settings), ``inputs`` (everything else the
  numbers depend on: robodyn's version, the initial states by hash, the controller's
  ``describe()``, ...), ``resumable`` and ``digest`` (of all the others).

A chunk counts as finished only when it is marked done, its digests are there and every
field's values match them; :func:`scan` checks every chunk, :func:`lazy_array` checks
each chunk as it is read. The digests guard against accidents (a disk, a copy, a crash,
a hand), not against someone who rewrites the data and the digests together.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np

FORMAT = "robodyn-store/2"  # the unchecked layout before (only _done) had no "format"
_SLAB = 64 << 20  # bytes read at once when verifying a store


class StoreError(ValueError):
    """A store cannot be used as it is: unreadable metadata, changed attributes, a chunk
    that fails its checksum. The message names the store (and the array and chunk)."""


class StoreWarning(UserWarning):
    """Chunks of a store failed their checksums and were computed again (``resume=True``)."""


# ------------------------------------------------------------------------ digests
def normalized(x):
    """``x`` as JSON gives it back (lists, not tuples): what a store's attributes hold."""
    return json.loads(json.dumps(x, allow_nan=False))


def attrs_digest(attrs: dict) -> str:
    """The digest of a store's attributes (all but ``digest`` itself)."""
    body = {k: v for k, v in attrs.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def chunk_digest(key: str, name: str, i: int, x: np.ndarray) -> bytes:
    """16 bytes: BLAKE2b of chunk ``i`` of field ``name`` (its dtype, shape and values),
    keyed by the store's attribute digest ``key``."""
    x = np.ascontiguousarray(x)
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{key}\0{name}\0{i}\0{x.dtype.str}\0{x.shape}\0".encode())
    h.update(memoryview(x).cast("B"))
    return h.digest()


def array_record(blocks, shape) -> str:
    """An array's hash from the hashes of its blocks (``block_hash``, in order): the same
    for a NumPy array and a dask array of the same values and blocks."""
    h = hashlib.sha256(f"float64 {tuple(shape)}".encode())
    for b in blocks:
        h.update(bytes.fromhex(b))
    return f"hash {h.hexdigest()[:16]} of float64 {tuple(int(s) for s in shape)}"


def block_hash(x) -> str:
    """The hash of one block of an array (float64 values, C order, with its shape)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    h = hashlib.sha256(f"{x.shape}".encode())
    h.update(memoryview(x).cast("B"))
    return h.hexdigest()


# ------------------------------------------------------------------------ opening
def _where(path) -> str:
    return f"the store {str(path)!r}"


def open_group(path, mode: str = "r"):
    """The store's Zarr group, or StoreError naming the store (a missing folder, no or
    garbage metadata)."""
    import zarr

    path = Path(path)
    if not path.is_dir():
        raise StoreError(f"{_where(path)} does not exist (or is not a folder)")
    if not (path / "zarr.json").is_file():
        raise StoreError(f"{_where(path)} is not a Zarr v3 store: it has no zarr.json")
    try:
        return zarr.open_group(str(path), mode=mode)
    except json.JSONDecodeError as exc:
        raise StoreError(f"{_where(path)} is damaged: its metadata zarr.json is not valid "
                         f"JSON ({exc})") from None  # fmt: skip
    except Exception as exc:  # zarr's own errors for metadata it cannot parse
        raise StoreError(f"{_where(path)} cannot be opened as a Zarr group: "
                         f"{type(exc).__name__}: {exc}") from None  # fmt: skip


def read_attrs(g, path) -> dict:
    """The store's attributes, checked: a robodyn store of this format whose attributes
    are as written."""
    attrs = dict(g.attrs)
    fmt = attrs.get("format")
    if fmt != FORMAT:
        if fmt is None and "fields" in attrs and "n" in attrs:
            raise StoreError(f"{_where(path)} was written by an older robodyn, without "
                             "checksums: its chunks cannot be verified; compute it again "
                             "into a new store (zarr.open_group reads it as it is)")  # fmt: skip
        raise StoreError(f"{_where(path)} is not a store of robodyn.distributed (format "
                         f"{fmt!r}, this robodyn writes {FORMAT!r})")  # fmt: skip
    if attrs.get("digest") != attrs_digest(attrs):
        raise StoreError(f"{_where(path)} is damaged: its attributes (zarr.json) changed "
                         "after it was written (their digest does not match)")  # fmt: skip
    return attrs


def nchunks(attrs) -> int:
    return max(1, math.ceil(attrs["n"] / attrs["chunk"]))


def get_array(g, name: str, path, attrs):
    """Array ``name`` of the store, checked against the attributes (shape, chunks, dtype)."""
    try:
        a = g[name]
    except KeyError:
        raise StoreError(f"{_where(path)} is damaged: it has no array {name!r}") from None
    except json.JSONDecodeError as exc:
        raise StoreError(f"{_where(path)} is damaged: the metadata of its array {name!r} "
                         f"({name}/zarr.json) is not valid JSON ({exc})") from None  # fmt: skip
    except Exception as exc:
        raise StoreError(f"{_where(path)} is damaged: its array {name!r} cannot be opened: "
                         f"{type(exc).__name__}: {exc}") from None  # fmt: skip
    n, c, k = attrs["n"], attrs["chunk"], nchunks(attrs)
    if name == "_done":
        want = ((k,), (1,), np.dtype("uint8"))
    elif name == "_digest":
        f = len(attrs["fields"])
        want = ((k, f, 16), (1, f, 16), np.dtype("uint8"))
    else:
        tail = tuple(attrs["fields"][name])
        want = ((n, *tail), (c, *tail), np.dtype(attrs["dtypes"][name]))
    have = (tuple(a.shape), tuple(a.chunks), np.dtype(a.dtype))
    if have != want:
        raise StoreError(f"{_where(path)} is damaged: its array {name!r} has shape, chunks "
                         f"and dtype {have}, its attributes say {want}")  # fmt: skip
    return a


def create(path, attrs: dict):
    """A new store at ``path`` (which must not exist) with the arrays ``attrs`` describe,
    every chunk unfinished. Returns the attributes as stored (with ``format`` and
    ``digest``)."""
    import zarr
    from zarr.codecs import Crc32cCodec, ZstdCodec

    attrs = normalized({**attrs, "format": FORMAT})
    attrs["digest"] = attrs_digest(attrs)
    g = zarr.open_group(str(path), mode="w-")
    n, c, k = attrs["n"], attrs["chunk"], nchunks(attrs)
    for name, tail in attrs["fields"].items():
        dt = np.dtype(attrs["dtypes"][name])
        g.create_array(name, shape=(n, *tail), chunks=(c, *tail), dtype=dt,
                       fill_value=np.nan if dt.kind == "f" else -1,
                       compressors=[ZstdCodec(level=0), Crc32cCodec()])  # fmt: skip
    f = len(attrs["fields"])
    g.create_array("_digest", shape=(k, f, 16), chunks=(1, f, 16), dtype="uint8",
                   fill_value=0, compressors=[Crc32cCodec()])  # fmt: skip
    g.create_array("_done", shape=(k,), chunks=(1,), dtype="uint8", fill_value=0,
                   compressors=[Crc32cCodec()])  # fmt: skip
    g.attrs.update(attrs)  # last: a store without attributes is not taken for one
    return attrs


# ------------------------------------------------------------------------ writing
def write_chunk(path, attrs_key: str, fields: dict, dtypes: dict, i: int, start: int, res):
    """Chunk ``i`` (items ``start``...) of result ``res`` (name -> array) into the store:
    every field, then its digests, then the done mark (so a chunk marked done has both)."""
    import zarr

    g = zarr.open_group(str(path), mode="r+")
    every = {"write_empty_chunks": True}  # a chunk of fill values (NaN) gets its file too
    digests = np.zeros((len(fields), 16), dtype=np.uint8)
    for k, (name, tail) in enumerate(fields.items()):
        x = np.ascontiguousarray(np.asarray(res[name], dtype=np.dtype(dtypes[name])))
        if x.shape[1:] != tuple(tail) or x.shape[0] < 1:
            raise ValueError(f"chunk {i}: {name} has shape {x.shape}, the store wants "
                             f"(m, {', '.join(map(str, tail))})")  # fmt: skip
        g[name].with_config(every)[start : start + x.shape[0]] = x
        digests[k] = np.frombuffer(chunk_digest(attrs_key, name, i, x), dtype=np.uint8)
    g["_digest"][i] = digests
    g["_done"][i] = 1


def clear_marks(g, chunks) -> None:
    """Unmark chunks (before computing them again): not done, no digests."""
    for i in chunks:
        g["_done"][i] = 0
        g["_digest"][i] = 0


# ------------------------------------------------------------------------ verifying
class Scan:
    """What :func:`scan` found: ``verified`` (chunk indices whose every field matches its
    digest), ``bad`` (index -> reasons), ``missing`` (not finished: never marked done)."""

    def __init__(self, total: int):
        self.total, self.verified, self.bad, self.missing = total, [], {}, []
        self.digests: dict = {}  # chunk -> (nfields, 16) of the verified chunks

    @property
    def complete(self) -> bool:
        return not self.bad and not self.missing


def _read_rows(a, lo: int, hi: int):
    return np.asarray(a[lo:hi])


def _marks(g, name, path, attrs, bad):
    """The ``_done`` or ``_digest`` array whole; chunks whose mark cannot be read go to
    ``bad`` (their entry reads as 0)."""
    a = get_array(g, name, path, attrs)
    try:
        return np.asarray(a[:])
    except Exception:  # one bad chunk spoils the whole read: find it
        out = np.zeros(a.shape, dtype=a.dtype)
        for i in range(a.shape[0]):
            try:
                out[i] = a[i]
            except Exception as exc:
                what = "done mark" if name == "_done" else "checksums"
                bad.setdefault(i, []).append(f"its {what} cannot be read ({exc})")
        return out


def unreadable(exc) -> str:
    """Why a chunk could not be read, in words."""
    if "checksum" in str(exc).lower():
        return "its bytes fail their crc32c checksum (they changed on disk)"
    return f"cannot be read ({type(exc).__name__}: {exc})"


def _chunk_file(path, name: str, i: int, ndim: int) -> Path:
    return Path(path, name, "c", str(i), *(["0"] * (ndim - 1)))


def _why(path, name, i, ndim) -> str:
    if not _chunk_file(path, name, i, ndim).exists():
        return f"{name}: its data are missing (no chunk file)"
    return f"{name}: checksum mismatch (the data differ from what was written)"


def scan(g, attrs: dict, path, only=None) -> Scan:
    """Verify every chunk marked done (or those in ``only``) against its digests, reading
    at most ~64 MB at once."""
    k = nchunks(attrs)
    out = Scan(k)
    done = _marks(g, "_done", path, attrs, out.bad)
    dig = _marks(g, "_digest", path, attrs, out.bad)
    todo = []
    for i in range(k) if only is None else only:
        if i in out.bad:
            continue
        if done[i] != 1:
            if done[i] != 0:
                out.bad[i] = [f"its done mark is {int(done[i])}, neither 0 nor 1"]
            else:
                out.missing.append(i)
        elif not dig[i].any():
            out.bad[i] = ["marked done without its checksums (the data were not all written)"]
        else:
            todo.append(i)
    n, c, key = attrs["n"], attrs["chunk"], attrs["digest"]
    ok = set(todo)
    for f, (name, tail) in enumerate(attrs["fields"].items()):
        a = get_array(g, name, path, attrs)
        row = np.dtype(attrs["dtypes"][name]).itemsize * max(1, math.prod(tail))
        per = max(1, _SLAB // max(1, row * c))  # chunks per read
        for s in range(0, len(todo), per):
            group = todo[s : s + per]
            lo, hi = group[0] * c, min(n, (group[-1] + 1) * c)
            try:
                block = _read_rows(a, lo, hi) if group[-1] - group[0] < 2 * per else None
            except Exception:
                block = None
            for i in group:
                a0, a1 = i * c, min(n, (i + 1) * c)
                try:
                    x = block[a0 - lo : a1 - lo] if block is not None else _read_rows(a, a0, a1)
                except Exception as exc:
                    out.bad.setdefault(i, []).append(f"{name}: {unreadable(exc)}")
                    ok.discard(i)
                    continue
                if chunk_digest(key, name, i, x) != bytes(dig[i, f]):
                    out.bad.setdefault(i, []).append(_why(path, name, i, 1 + len(tail)))
                    ok.discard(i)
    out.verified = sorted(ok)
    out.digests = {i: bytes(dig[i].reshape(-1)) for i in out.verified}
    return out


def describe_bad(path, attrs, bad: dict, limit: int = 8) -> str:
    """Chunks and their reasons for a message: "chunk 3 (items 150-199): q_final: ..."."""
    c, n = attrs["chunk"], attrs["n"]
    parts = []
    for i in sorted(bad)[:limit]:
        parts.append(f"chunk {i} (items {i * c}-{min(n, (i + 1) * c) - 1}): "
                     + "; ".join(bad[i]))  # fmt: skip
    more = len(bad) - limit
    return "; ".join(parts) + (f"; and {more} more chunks" if more > 0 else "")


# ------------------------------------------------------------------------ reading
def _read_block(path, name, key, i, start, stop, digest):
    """Chunk ``i`` of array ``name``, checked against its digest (None: unfinished)."""
    import zarr

    where = f"{_where(path)}, array {name!r}, chunk {i} (items {start}-{stop - 1})"
    try:
        x = np.asarray(zarr.open_array(str(Path(path, name)), mode="r")[start:stop])
    except Exception as exc:
        raise StoreError(f"{where}: {unreadable(exc)}") from None
    if digest == b"":
        raise StoreError(f"{where}: is marked done without readable checksums (its data "
                         "were not all written, or its marks were damaged)")  # fmt: skip
    if digest is not None and chunk_digest(key, name, i, x) != digest:
        raise StoreError(f"{where}: does not match its checksum: the data differ from what "
                         "was written (changed, replaced or lost since)")  # fmt: skip
    return x


def lazy_array(path, name: str, attrs: dict, digests: dict):
    """Array ``name`` as a dask array of the store's chunks, each checked against its
    digest when read (``digests``: chunk -> the chunk's digest row; a chunk not in it is
    unfinished and reads as it is, NaN)."""
    import dask.array as da
    from dask.highlevelgraph import HighLevelGraph

    n, c, k, key = attrs["n"], attrs["chunk"], nchunks(attrs), attrs["digest"]
    tail = tuple(attrs["fields"][name])
    f = list(attrs["fields"]).index(name)
    dtype = np.dtype(attrs["dtypes"][name])
    token = hashlib.sha256(f"{Path(path).resolve()}\0{name}\0{key}".encode()).hexdigest()[:16]
    label = f"robodyn-store-{name}-{token}"
    dsk = {}
    for i in range(k):
        row = digests.get(i)
        d = None if row is None else row[16 * f : 16 * (f + 1)]
        start, stop = i * c, min(n, (i + 1) * c)
        dsk[(label, i, *([0] * len(tail)))] = (_read_block, str(path), name, key, i, start,
                                               stop, d)  # fmt: skip
    chunks = (tuple(min(c, n - i * c) for i in range(k)), *((t,) for t in tail))
    graph = HighLevelGraph.from_collections(label, dsk, dependencies=())
    return da.Array(graph, label, chunks, meta=np.empty((0,) * (1 + len(tail)), dtype=dtype))


# ------------------------------------------------------------------------ comparing
def _flat(x, prefix: str, out: dict) -> dict:
    if isinstance(x, dict) and x:
        for k, v in x.items():
            _flat(v, f"{prefix}.{k}" if prefix else str(k), out)
    else:
        out[prefix] = x
    return out


def _show(x) -> str:
    if isinstance(x, str):
        return x
    text = json.dumps(x)
    return text if len(text) <= 100 else text[:97] + "..."


def differences(have: dict, want: dict) -> list[str]:
    """``"controller.kp differs: [5.0] != [100.0]"`` for every entry (nested dicts
    flattened to dotted names) where the store (``have``) and the call (``want``) differ."""
    a, b = _flat(have, "", {}), _flat(want, "", {})
    out = []
    for k in [*b, *(k for k in a if k not in b)]:
        if a.get(k, "(none)") != b.get(k, "(none)"):
            out.append(f"{k} differs: {_show(a.get(k, '(none)'))} != {_show(b.get(k, '(none)'))}")
    return out


def undescribed(x, prefix: str = "") -> list[str]:
    """The reasons of every ``{"undescribed": reason}`` entry in ``x`` (inputs that could
    not say what they are)."""
    if isinstance(x, dict):
        if set(x) == {"undescribed"}:
            return [str(x["undescribed"])]
        out = []
        for k, v in x.items():
            out += undescribed(v, f"{prefix}.{k}" if prefix else str(k))
        return out
    return []
