"""An ``.npz`` file written in place while a simulation runs, so streaming costs no copy.

``np.savez`` writes a zip archive of ``.npy`` entries, stored (not compressed). When the
shapes are known before the run, the whole archive can be laid out up front: each entry's
local header, its ``.npy`` header, then room for its data. The run writes its samples
straight into that room through memory maps; at the end the entries' CRC-32 are computed,
patched into their headers, and the metadata entry and the central directory appended
(PKWARE's APPNOTE.TXT, sections 4.3.7 local file header, 4.3.12 central directory header,
4.3.14-4.3.16 the ZIP64 end records; every entry carries ZIP64 sizes, so there is no 4 GB
limit). ``np.load`` reads the result as any ``.npz``.

A process killed mid-run leaves the archive without its central directory; the layout in
``meta.json`` beside it (offsets, shapes, the number of samples done) is what
:meth:`robodyn.Trajectory.load` reads instead.
"""

from __future__ import annotations

import io
import json
import mmap
import os
import struct
import time
import zlib
from pathlib import Path

import numpy as np

__all__ = ["NpzStream", "load_layout"]

_LOCAL, _CENTRAL = 0x04034B50, 0x02014B50
_END64, _LOCATOR64, _END = 0x06064B50, 0x07064B50, 0x06054B50
_FULL = 0xFFFFFFFF  # "see the ZIP64 extra field"
_VERSION = 45  # 4.5: ZIP64
_PAD_ID = 0xCAFE  # an extra field of our own, to align the data (readers skip unknown ids)


def _dos_time() -> tuple[int, int]:
    t = time.localtime()
    return (t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2), (
        ((t.tm_year - 1980) << 9) | (t.tm_mon << 5) | t.tm_mday
    )


def _npy_header(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    buf = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": tuple(shape)}
    np.lib.format.write_array_header_2_0(buf, header)
    return buf.getvalue()


class NpzStream:
    """An ``.npz`` of float64 arrays laid out in ``path`` before they are computed.

    Parameters
    ----------
    path : path-like
        The archive being written (renamed to its final name by :meth:`finish`).
    shapes : dict
        ``name -> shape`` of each float64 array (C order).

    Attributes
    ----------
    arrays : dict
        ``name -> numpy.memmap`` onto each array's room in the file, 64-byte aligned.
    layout : dict
        What a reader needs without the central directory: offsets and shapes.
    """

    def __init__(self, path, shapes: dict[str, tuple[int, ...]]):
        self.path = Path(path)
        self._time = _dos_time()
        self._entries = []  # (name, local header offset, size, data offset)
        offset = 0
        heads = []
        for name, shape in shapes.items():
            fname = (name + ".npy").encode()
            npy = _npy_header(shape)
            size = len(npy) + 8 * int(np.prod(shape, dtype=np.int64))
            base = 30 + len(fname) + 20 + 4  # header, name, ZIP64 extra, pad extra's head
            pad = (-(offset + base + len(npy))) % 64
            extra = struct.pack("<HHQQ", 1, 16, size, size) + struct.pack("<HH", _PAD_ID, pad)
            extra += b"\0" * pad
            head = struct.pack("<IHHHHHIIIHH", _LOCAL, _VERSION, 0, 0, *self._time, 0,
                               _FULL, _FULL, len(fname), len(extra))  # fmt: skip
            heads.append((offset, head + fname + extra + npy))
            start = offset + len(head) + len(fname) + len(extra)  # the entry's bytes: .npy
            self._entries.append((name, offset, size, start, start + len(npy), shape))
            offset = start + size
        self._end = offset
        with open(self.path, "wb") as f:
            f.truncate(offset)
            for at, blob in heads:
                f.seek(at)
                f.write(blob)
        self.arrays = {
            name: np.memmap(self.path, np.float64, "r+", data, shape)
            for name, _, _, _, data, shape in self._entries
        }
        self.layout = {
            "file": self.path.name,
            "arrays": {name: [data, list(shape)] for name, _, _, _, data, shape in self._entries},
        }

    def finish(self, meta: dict, target) -> Path:
        """Seal the archive (CRCs, the metadata entry ``meta`` as ``np.savez`` writes it,
        the central directory) and rename it to ``target``. Returns ``target``."""
        self.arrays.clear()  # (no msync: the page cache is shared with the map read below)
        meta_npy = io.BytesIO()
        np.lib.format.write_array(meta_npy, np.array(json.dumps(meta)), allow_pickle=False)
        meta_bytes = meta_npy.getvalue()
        central = []
        with open(self.path, "r+b") as f:
            mm = mmap.mmap(f.fileno(), 0)
            try:
                view = memoryview(mm)
                for name, at, size, start, _, _ in self._entries:
                    crc = 0
                    for k in range(start, start + size, 1 << 24):
                        crc = zlib.crc32(view[k : min(k + (1 << 24), start + size)], crc)
                    struct.pack_into("<I", mm, at + 14, crc)
                    central.append((name, at, size, crc))
                view.release()
            finally:
                mm.close()
            f.seek(self._end)
            at = self._end
            fname = b"meta.npy"
            crc = zlib.crc32(meta_bytes)
            f.write(struct.pack("<IHHHHHIIIHH", _LOCAL, 20, 0, 0, *self._time, crc,
                                len(meta_bytes), len(meta_bytes), len(fname), 0))  # fmt: skip
            f.write(fname + meta_bytes)
            central.append(("meta", at, len(meta_bytes), crc))
            cd_start = f.tell()
            for name, at, size, crc in central:
                fname = (name + ".npy").encode()
                extra = struct.pack("<HHQQQ", 1, 24, size, size, at)
                f.write(struct.pack("<IHHHHHHIIIHHHHHII", _CENTRAL, _VERSION, _VERSION, 0, 0,
                                    *self._time, crc, _FULL, _FULL, len(fname), len(extra), 0,
                                    0, 0, 0, _FULL))  # fmt: skip
                f.write(fname + extra)
            cd_end = f.tell()
            n = len(central)
            f.write(struct.pack("<IQHHIIQQQQ", _END64, 44, _VERSION, _VERSION, 0, 0, n, n,
                                cd_end - cd_start, cd_start))  # fmt: skip
            f.write(struct.pack("<IIQI", _LOCATOR64, 0, cd_end, 1))
            f.write(struct.pack("<IHHHHIIH", _END, 0, 0, 0xFFFF, 0xFFFF, _FULL, _FULL, 0))
            f.truncate()
        os.replace(self.path, target)
        return Path(target)


def load_layout(folder, layout: dict, done: int) -> dict:
    """The first ``done`` samples of each array of an unfinished archive (read-only
    copies), from the layout :class:`NpzStream` wrote beside it."""
    path = Path(folder) / layout["file"]
    out = {}
    for name, (data, shape) in layout["arrays"].items():
        m = np.memmap(path, np.float64, "r", data, tuple(shape))
        out[name] = np.array(m[:done])
        del m
    return out
