"""Mass and inertia of MJCF geoms and meshes, by MuJoCo's rules (its ``inertiafromgeom``).

A body without ``<inertial>`` (or every body, with ``<compiler inertiafromgeom="true">``)
takes the mass and inertia of its geoms whose ``group`` lies in ``inertiagrouprange``: each
geom has ``mass``, or ``density`` (default 1000 kg/m^3) times its volume, and its inertia
about its centre, in the geom frame:

=========  ==============================  ==================================================
geom       volume (``size``: half sizes)   principal moments (solid)
=========  ==============================  ==================================================
sphere     4/3 pi r^3                      2/5 m r^2
capsule    pi r^2 h + 4/3 pi r^3           cylinder (m_c) plus two hemispheres (m_s):
           (h = 2 size[1])                 m_c (3 r^2 + h^2)/12 + 2/5 m_s r^2 + m_s h (3 r +
                                           2 h)/8 about x, y; (m_c/2 + 2/5 m_s) r^2 about z
cylinder   pi r^2 h                        m (3 r^2 + h^2)/12 about x, y; m r^2/2 about z
ellipsoid  4/3 pi a b c                    m (b^2 + c^2)/5, ...
box        8 a b c                         m (b^2 + c^2)/3, ... (a, b, c half sizes)
mesh       the mesh's volume               the mesh's second moments, see below
=========  ==============================  ==================================================

The capsule's hemispheres (mass m_s = m 4 r / (4 r + 3 h), each centred 3 r / 8 from its
flat face) are moved by the parallel-axis theorem to ``h/2 + 3 r/8`` from the centre.
``shellinertia="true"`` puts the mass on the surface (area instead of volume): a spherical
shell 2/3 m r^2, a cylindrical tube m r^2 plus two disks, a capsule's tube plus two
hemispherical shells (centred r/2 from their face), a box's six plates; an ellipsoid's
shell by MuJoCo's approximation (Thomsen's area; the inertia as the difference of two
solid ellipsoids 1e-6 m apart).

A mesh (STL, OBJ or MuJoCo's MSH file, or ``vertex``/``face`` written in the XML) is read in
single precision, as MuJoCo reads it, then moved by ``refpos``/``refquat`` and scaled. Its
volume, centre of mass and second moments follow the mesh's ``inertia`` attribute:

* ``"legacy"`` (MuJoCo's default): each face and the surface centroid (the area-weighted
  centre of the faces) form a pyramid whose volume counts as positive whatever the face's
  orientation; the centre of mass is the volume-weighted centroid of these pyramids; the
  volume and the second moments are those of the pyramids from each face to that centre of
  mass, again all positive (a non-convex mesh's volume is overcounted, as MuJoCo's);
* ``"exact"``: the same pyramids with signed volumes, exact for a closed outward mesh;
* ``"convex"``: ``"exact"`` on the convex hull of the vertices (as do meshes without faces);
* ``"shell"``: the mass on the faces (area weighted).

A pyramid with apex at the origin over the triangle (a, b, c) has volume ``V = a . (b x
c)/6`` and second moment ``int r r^T dV = V/20 (a a^T + b b^T + c c^T + s s^T)``, ``s = a
+ b + c``; a triangle of area A has ``int r r^T dA = A/12 (a a^T + b b^T + c c^T + s s^T)``.
The inertia tensor is ``tr(S) 1 - S`` for the second moment S about the centre of mass.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np

from ..errors import ModelError

__all__ = ["geom_volume", "geom_moments", "MeshInertia", "mesh_inertia", "read_mesh"]


def geom_volume(kind: str, size: np.ndarray, shell: bool = False) -> float:
    """Volume (or, for ``shell``, area) of a primitive geom of half sizes ``size``."""
    r = size[0]
    if kind == "sphere":
        return 4 * math.pi * r**2 * (1.0 if shell else r / 3)
    if kind in ("capsule", "cylinder"):
        h = 2 * size[1]
        if kind == "capsule":
            return 4 * math.pi * r**2 + 2 * math.pi * r * h if shell else math.pi * (
                r * r * h + 4 * r**3 / 3)  # fmt: skip
        return 2 * math.pi * r * (r + h) if shell else math.pi * r * r * h
    a, b, c = size[:3]
    if kind == "ellipsoid":
        if shell:  # Thomsen's approximation of the ellipsoid's area (p = 1.6075)
            p = 1.6075
            return 4 * math.pi * (((a * b) ** p + (b * c) ** p + (c * a) ** p) / 3) ** (1 / p)
        return 4 * math.pi * a * b * c / 3
    if kind == "box":
        return 8 * (a * b + b * c + c * a) if shell else 8 * a * b * c
    raise ModelError(f"no volume for a {kind} geom")


def geom_moments(kind: str, size: np.ndarray, m: float, shell: bool = False) -> np.ndarray:
    """Principal moments of inertia (3,) about the centre of a primitive geom of mass ``m``
    (axes of the geom frame); see the module docstring."""
    r = size[0]
    if kind == "sphere":
        return np.full(3, (2 / 3 if shell else 2 / 5) * m * r * r)
    if kind == "cylinder":
        return _cylinder(r, size[1], m, shell)
    if kind == "capsule":
        return _capsule(r, size[1], m, shell)
    s2 = np.asarray(size[:3], dtype=float) ** 2
    if kind == "ellipsoid":
        if not shell:
            return m * np.array([s2[1] + s2[2], s2[0] + s2[2], s2[0] + s2[1]]) / 5
        return _ellipsoid_shell(np.asarray(size[:3], dtype=float), m)
    if kind == "box":
        if not shell:
            return m * np.array([s2[1] + s2[2], s2[0] + s2[2], s2[0] + s2[1]]) / 3
        return _box_shell(np.asarray(size[:3], dtype=float), m)
    raise ModelError(f"no inertia for a {kind} geom")


def _cylinder(r: float, half: float, m: float, shell: bool) -> np.ndarray:
    h = 2 * half
    if not shell:
        return np.array([m * (3 * r * r + h * h) / 12] * 2 + [m * r * r / 2])
    disk, tube = math.pi * r * r, 2 * math.pi * r * h  # areas: two disks and the tube
    m_d = m * disk / (2 * disk + tube)
    m_t = m - 2 * m_d
    Ixy = m_t * (6 * r * r + h * h) / 12 + 2 * (m_d * r * r / 4 + m_d * half * half)
    return np.array([Ixy, Ixy, m_t * r * r + 2 * m_d * r * r / 2])


def _capsule(r: float, half: float, m: float, shell: bool) -> np.ndarray:
    h = 2 * half
    if not shell:
        m_s = m * 4 * r / (4 * r + 3 * h)  # the two hemispheres: a sphere's share of volume
        m_c = m - m_s
        Ixy = m_c * (3 * r * r + h * h) / 12 + 2 * m_s * r * r / 5 + m_s * h * (3 * r + 2 * h) / 8
        return np.array([Ixy, Ixy, m_c * r * r / 2 + 2 * m_s * r * r / 5])
    sphere, tube = 4 * math.pi * r * r, 2 * math.pi * r * h  # areas
    m_s = m * sphere / (sphere + tube)
    m_t = m - m_s
    c, d = r / 2, half + r / 2  # a hemispherical shell's centre: r/2 from its face
    Ixy = m_t * (6 * r * r + h * h) / 12 + 2 * m_s * r * r / 3 + m_s * (d * d - c * c)
    return np.array([Ixy, Ixy, m_t * r * r + 2 * m_s * r * r / 3])


def _ellipsoid_shell(s: np.ndarray, m: float) -> np.ndarray:
    """MuJoCo's approximation: two solid ellipsoids of one density, 1e-6 m apart."""
    e = s + 1e-6
    Va, Vb = 4 * math.pi * np.prod(s) / 3, 4 * math.pi * np.prod(e) / 3
    rho = m / (Vb - Va)
    moments = lambda x: np.array([x[1] ** 2 + x[2] ** 2, x[0] ** 2 + x[2] ** 2,  # noqa: E731
                                  x[0] ** 2 + x[1] ** 2]) / 5  # fmt: skip
    return rho * Vb * moments(e) - rho * Va * moments(s)


def _box_shell(s: np.ndarray, m: float) -> np.ndarray:
    """Six plates (two of each face), each thin: a plate of sides u, v has u^2/12 and v^2/12
    about its in-plane axes, (u^2 + v^2)/12 about its normal, moved off the centre."""
    L = 2 * s
    area = np.array([L[0] * L[1], L[1] * L[2], L[2] * L[0]])  # normals z, x, y
    mk = m * area / (2 * area.sum())  # each plate's mass
    out = np.zeros(3)
    for k, (i, j, n) in enumerate(((0, 1, 2), (1, 2, 0), (2, 0, 1))):  # plate in axes i, j
        own = np.zeros(3)
        own[i], own[j], own[n] = L[j] ** 2 / 12, L[i] ** 2 / 12, (L[i] ** 2 + L[j] ** 2) / 12
        shift = np.zeros(3)
        shift[i] = shift[j] = s[n] ** 2  # the plate sits s[n] off the centre along n
        out += 2 * mk[k] * (own + shift)
    return out


# ---------------------------------------------------------------------------- meshes
class MeshInertia:
    """A mesh's volume (or area, for a shell), centre of mass and second moment about it
    per unit density, in mesh coordinates: ``inertia(m)`` is the tensor for mass m."""

    def __init__(self, volume: float, com: np.ndarray, unit_inertia: np.ndarray) -> None:
        self.volume = volume
        self.com = com
        self.unit_inertia = unit_inertia  # (3, 3) for density 1

    def inertia(self, mass: float) -> np.ndarray:
        return self.unit_inertia * (mass / self.volume)


def _triangles(V: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]


def _second_moment(a, b, c, w: np.ndarray) -> np.ndarray:
    """sum_k w_k (a a^T + b b^T + c c^T + s s^T), s = a + b + c (rows: one triangle each)."""
    s = a + b + c
    return sum((x * w[:, None]).T @ x for x in (a, b, c, s))


def mesh_inertia(vertices, faces, mode: str, where: str) -> MeshInertia:
    """Volume, centre of mass and unit-density second moments of a mesh by MuJoCo's rule
    ``mode`` ("legacy", "exact", "convex" or "shell"; see the module docstring)."""
    V = np.asarray(vertices, dtype=float)
    F = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    if mode == "convex" or len(F) == 0:
        F = _hull_faces(V, where)
    a, b, c = _triangles(V, F)
    cross = np.cross(b - a, c - a)
    norm = np.linalg.norm(cross, axis=1)
    keep = norm >= 1e-15  # faces smaller than that count for nothing (as in MuJoCo)
    cross[~keep] = 0.0
    area = 0.5 * norm * keep
    centre = (a + b + c) / 3
    total_area = float(area.sum())
    if total_area < 1e-15:
        raise ModelError(f"{where}: the mesh's surface area is too small")
    surface_centroid = area @ centre / total_area
    if mode == "shell":  # MuJoCo's shell centre: each face's pyramid centroid, area weighted
        w = area
    else:  # pyramids from the surface centroid: 6 V = (centre - o) . (b - a) x (c - a)
        w = np.einsum("ki,ki->k", centre - surface_centroid, cross) / 6
        w = np.abs(w) if mode == "legacy" else w
    total = float(w.sum())
    if total < 1e-15:
        sign = "negative (faces oriented inward)" if total < 0 else "too small"
        raise ModelError(f"{where}: the mesh's volume is {sign}")
    com = w @ (0.75 * centre + 0.25 * surface_centroid) / total
    a, b, c = a - com, b - com, c - com  # pyramids (or faces) about the centre of mass
    if mode == "shell":
        w, k = area, 12.0
    else:
        w, k = np.einsum("ki,ki->k", a, np.cross(b, c)) * keep / 6, 20.0
        w = np.abs(w) if mode == "legacy" else w
    S = _second_moment(a, b, c, w / k)
    return MeshInertia(float(w.sum()), com, np.trace(S) * np.eye(3) - S)


def _hull_faces(V: np.ndarray, where: str) -> np.ndarray:
    """The convex hull's triangles, each oriented outward (qhull, as MuJoCo uses)."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(V)
    except (QhullError, ValueError) as exc:
        raise ModelError(f"{where}: no convex hull of the mesh's vertices ({exc})") from None
    F = hull.simplices.copy()
    a, b, c = _triangles(V, F)
    outward = np.einsum("ki,ki->k", np.cross(b - a, c - a), hull.equations[:, :3]) < 0
    F[outward] = F[outward][:, ::-1]
    return F


def read_mesh(path: Path, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (n, 3) (single precision, as MuJoCo reads them, returned as float64) and
    triangles (k, 3) of an STL (binary or ASCII), OBJ (polygons split into fans) or MSH
    file."""
    suffix = path.suffix.lower()
    if not path.is_file():
        raise ModelError(f"{where}: mesh file not found: {str(path)!r}")
    data = path.read_bytes()
    try:
        if suffix == ".stl":
            V, F = _read_stl(data)
        elif suffix == ".obj":
            V, F = _read_obj(data.decode("utf-8", errors="replace"))
        elif suffix == ".msh":
            V, F = _read_msh(data)
        else:
            raise ModelError(f"unknown mesh format {suffix!r} (STL, OBJ and MSH are read)")
    except (ValueError, IndexError, struct.error) as exc:
        raise ModelError(f"{where}: cannot read mesh {str(path)!r}: {exc}") from None
    if len(V) < 4:
        raise ModelError(f"{where}: mesh {str(path)!r} has fewer than 4 vertices")
    if len(F) and (F.min() < 0 or F.max() >= len(V)):
        raise ModelError(f"{where}: mesh {str(path)!r} has a face with a missing vertex")
    return V.astype(np.float32).astype(float), F


def _read_stl(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Binary STL (an 80-byte header, the triangle count, then per triangle 12 float32:
    normal and three vertices, and 2 bytes), or ASCII STL ("solid", "facet", "vertex")."""
    exact = len(data) >= 84 and len(data) == 84 + 50 * struct.unpack_from("<I", data, 80)[0]
    if not exact and data[:1024].lstrip().startswith(b"solid") and b"facet" in data[:4096]:
        text = data.decode("ascii", errors="replace")
        V = np.array([[float(x) for x in line.split()[1:4]] for line in text.splitlines()
                      if line.strip().startswith("vertex")], dtype=np.float32)  # fmt: skip
        if len(V) == 0 or len(V) % 3:
            raise ValueError("ASCII STL without facets of 3 vertices")
        return V, np.arange(len(V)).reshape(-1, 3)
    if len(data) < 84:
        raise ValueError("too short for a binary STL file")
    n = struct.unpack_from("<I", data, 80)[0]
    if n == 0 or len(data) < 84 + 50 * n:
        raise ValueError(f"a binary STL file of {len(data)} bytes cannot hold {n} triangles")
    rec = np.frombuffer(data, dtype=np.dtype([("f", "<f4", 12), ("a", "<u2")]), count=n,
                        offset=84)  # fmt: skip
    V = rec["f"][:, 3:].reshape(-1, 3)
    return V, np.arange(len(V)).reshape(-1, 3)


def _read_obj(text: str) -> tuple[np.ndarray, np.ndarray]:
    V: list[list[float]] = []
    F: list[tuple[int, int, int]] = []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            V.append([float(x) for x in parts[1:4]])
        elif parts[0] == "f":
            idx = [int(p.split("/")[0]) for p in parts[1:]]
            idx = [i - 1 if i > 0 else len(V) + i for i in idx]  # 1-based, or from the end
            F += [(idx[0], idx[k], idx[k + 1]) for k in range(1, len(idx) - 1)]
    return np.array(V, dtype=np.float32).reshape(-1, 3), np.array(F, np.int64).reshape(-1, 3)


def _read_msh(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo's binary mesh: 4 int32 counts (vertices, normals, texture coordinates, faces),
    then the float32 vertices, normals and texture coordinates and the int32 faces."""
    nv, nn, nt, nf = struct.unpack_from("<4i", data, 0)
    if min(nv, nn, nt, nf) < 0 or len(data) != 16 + 4 * (3 * nv + 3 * nn + 2 * nt + 3 * nf):
        raise ValueError("the MSH header does not match the file's size")
    V = np.frombuffer(data, dtype="<f4", count=3 * nv, offset=16).reshape(-1, 3)
    off = 16 + 4 * (3 * nv + 3 * nn + 2 * nt)
    F = np.frombuffer(data, dtype="<i4", count=3 * nf, offset=off).reshape(-1, 3)
    return V, F.astype(np.int64)
