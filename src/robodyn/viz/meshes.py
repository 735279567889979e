"""The mesh files a viewer page draws: which files may be read, and how much of them.

Where a mesh may come from (issue 27 s.3)
    A URDF's ``<mesh filename=...>`` is resolved to a local file whose real path (symbolic
    links resolved) lies inside one of the *allowed roots* (:func:`mesh_roots`):

    * each folder of ``search_path=`` (``robodyn view --mesh-path``),
    * each folder of ``$ROS_PACKAGE_PATH``,
    * the URDF's own folder (and everything below it),
    * the ROS package the URDF is in: the nearest folder holding a ``package.xml``, from
      the URDF's folder up at most four levels.

    A name that leads anywhere else (an absolute path, ``file:///...``, ``../`` climbing out,
    ``package://pkg/../..``, a symbolic link pointing out) is not read: the page says
    "outside the allowed roots", whether or not such a file exists. ``allow_outside=True``
    lifts this (and also looks in the URDF's parent folders, as robodyn 0.x did). URLs are
    never fetched.

    A mesh's own references (a glTF's buffers, an OBJ's ``mtllib``, a DAE's images) are
    read through :class:`ConfinedResolver`: only regular files inside the mesh's own
    folder, within the byte budget; texture images are never read (the page draws none).

How much is read (issue 27 s.5)
    Only STL, OBJ, DAE, PLY, OFF, glTF and GLB files are read (no archives: pycollada
    would unzip a ``.dae`` that is a zip). Before a file is handed to a reader its size is
    checked and its triangle count estimated without building anything: a binary STL's
    header, a DAE's instances times its geometries' triangles (the XML parsed, nothing
    instanced), a glTF's nodes times its meshes' accessor counts, an OBJ's ``f`` lines, a
    PLY's or OFF's header. The read limit is ``max(READ_LIMIT, max_triangles)`` triangles
    (2,000,000 by default) and ``BYTES_PER_TRIANGLE`` (128) bytes a triangle of that
    (256 MB, the same for a mesh's references together); a mesh above either is left out
    unread. Reading a mesh at the limit (a 100 MB binary STL of 2,000,000 triangles) and
    reducing it to the default budget peaks at 1.1 GB and takes 7.5 s (2 cores).

    The page's budget, ``max_triangles`` (default :data:`MAX_TRIANGLES`), counts every drawn
    instance of a mesh; when the meshes' estimates exceed it, each mesh is reduced by
    vertex clustering (:func:`cluster_decimate`) to its share right after it is read, so
    only one mesh is ever held at full size.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "MAX_TRIANGLES",
    "READ_LIMIT",
    "BYTES_PER_TRIANGLE",
    "MESH_FORMATS",
    "MeshNotDrawnError",
    "MeshOutsideRootsError",
    "ConfinedResolver",
    "mesh_roots",
    "resolve_mesh",
    "probe_mesh",
    "read_mesh",
    "cluster_decimate",
]

#: Default triangle budget of a page (``max_triangles=``): triangles drawn, over all visuals
#: (every example-robot-data robot fits: the most, B1 with its Z1 arm, draws 1,024,351).
MAX_TRIANGLES = 1_500_000
#: A mesh estimated above ``max(READ_LIMIT, max_triangles)`` triangles is not read at all.
READ_LIMIT = 2_000_000
#: A mesh file (or its references together) above ``BYTES_PER_TRIANGLE`` bytes a triangle
#: of the read limit is not read (a binary STL takes 50 bytes a triangle, text formats more).
BYTES_PER_TRIANGLE = 128
#: The formats read (by the file name's suffix, lower case).
MESH_FORMATS = ("stl", "obj", "dae", "ply", "off", "gltf", "glb")
MAX_NESTING = 100  # DAE/glTF node nesting deeper than this is refused (real files: < 20)
PACKAGE_LEVELS = 4  # how far above the URDF's folder its package.xml is looked for
_TEXTURES = {".png", ".jpg", ".jpeg", ".tga", ".bmp", ".gif", ".tif", ".tiff", ".webp",
             ".dds", ".ktx", ".ktx2", ".hdr", ".exr", ".psd"}  # fmt: skip
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"II*\x00",
                b"MM\x00*", b"DDS |", b"\xabKTX", b"8BPS")  # fmt: skip


class MeshNotDrawnError(OSError):
    """A mesh that is not drawn. ``reason`` is what the page says: it never holds a
    resolved path (the message may, for the Python caller)."""

    def __init__(self, reason: str, message: str | None = None):
        super().__init__(message or reason)
        self.reason = reason
        self.refused: list[tuple[str, str]] = []  # a mesh's references not read: (name, why)


class MeshOutsideRootsError(MeshNotDrawnError, PermissionError):
    """The mesh name leads outside the allowed roots (existing or not)."""

    def __init__(self, filename: str):
        super().__init__(
            "outside the allowed roots",
            f"{filename}: outside the allowed roots (search_path=, $ROS_PACKAGE_PATH, the "
            "URDF's folder and its package); pass allow_outside=True to read it",
        )


class MeshMissingError(MeshNotDrawnError, FileNotFoundError):
    """No file of that name in the allowed roots."""


# ------------------------------------------------------------------ where meshes may come from
def _real(p) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fsdecode(p))))


def _package_root(folder: Path) -> Path | None:
    """The nearest of ``folder`` and its first :data:`PACKAGE_LEVELS` parents that holds a
    ``package.xml`` (ROS's mark of a package), or None."""
    for d in [folder, *list(folder.parents)[:PACKAGE_LEVELS]]:
        if (d / "package.xml").is_file():
            return d
    return None


def _package_name(root: Path) -> str | None:
    """The ``<name>`` of ``root/package.xml`` (parsed without DTDs or entities), or None."""
    from ..model.urdf import parse_xml

    try:
        p = root / "package.xml"
        if p.stat().st_size > 1_000_000:
            return None
        el = parse_xml(p.read_bytes(), str(p)).find("name")
        return el.text.strip() if el is not None and el.text else None
    except (OSError, ValueError):
        return None


def _dirs(search_path) -> list:
    """``search_path`` as a list of folders (one path given alone is one folder)."""
    if isinstance(search_path, (str, bytes, os.PathLike)):
        return [search_path]
    return list(search_path or ())


def _env_dirs() -> list[str]:
    env = os.environ.get("ROS_PACKAGE_PATH", "")
    return [p for p in env.split(os.pathsep) if p]


def mesh_roots(source: str | None = None, search_path=()) -> list[Path]:
    """The allowed roots of a URDF's meshes, as real paths (see the module docstring).

    Parameters
    ----------
    source : str, optional
        The URDF file (``model.source``); None for a URDF given as a string.
    search_path : sequence of path-like
        The caller's folders (``search_path=``, ``--mesh-path``).

    Returns
    -------
    list of pathlib.Path
        In the order names are looked up: ``search_path``, ``$ROS_PACKAGE_PATH``, the URDF's
        folder, its package.
    """
    roots = [_real(p) for p in _dirs(search_path)] + [_real(p) for p in _env_dirs()]
    if source:
        folder = _real(source).parent
        roots.append(folder)
        pkg = _package_root(folder)
        if pkg is not None:
            roots.append(pkg)
    return list(dict.fromkeys(roots))


def _inside(path: Path, roots) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _candidates(name: str, source, search_path, allow_outside: bool) -> list[Path]:
    """Where ``name`` may be, in lookup order (nothing checked yet)."""
    dirs = [Path(os.path.expanduser(os.fsdecode(p))) for p in _dirs(search_path)]
    dirs += [Path(p) for p in _env_dirs()]
    folder = _real(source).parent if source else None
    if folder is not None:
        dirs.append(folder)
    if allow_outside and folder is not None:
        dirs += list(folder.parents)[:PACKAGE_LEVELS]  # robodyn 0.x looked here too
    low = name.lower()
    if low.startswith("package://"):
        pkg, _, sub = name[len("package://") :].lstrip("/").partition("/")
        out = []
        for d in dirs:
            out += [d / pkg / sub] + ([d / sub] if d.name == pkg else [])
        root = _package_root(folder) if folder is not None else None
        if root is not None and pkg in (root.name, _package_name(root)):
            out.append(root / sub)
        return out
    if low.startswith("file://"):
        name = name[len("file://") :]
    p = Path(name)
    if p.is_absolute():
        return [p]
    return ([folder / p] if folder is not None else []) + [d / p for d in dirs if d != folder]


def resolve_mesh(
    filename: str, source: str | None = None, search_path=(), *, allow_outside: bool = False
) -> Path:
    """The local file a URDF mesh name refers to, confined to the allowed roots.

    ``package://pkg/rest`` is looked up as ``D/pkg/rest`` (and ``D/rest`` when ``D`` is
    itself called ``pkg``) for each folder ``D`` of ``search_path``, ``$ROS_PACKAGE_PATH``
    and the URDF's folder, and as ``P/rest`` for the URDF's package ``P`` when it is called
    ``pkg`` (its folder or its package.xml's ``<name>``); a relative name (``file://``
    included) relative to the URDF's folder, then those folders; an absolute name as
    itself. The first candidate that is a regular file inside the roots (after resolving
    symbolic links) is taken; one outside them is never even looked at unless
    ``allow_outside``.

    Parameters
    ----------
    filename : str
        As written in ``<mesh filename=...>``.
    source : str, optional
        The URDF file (``model.source``).
    search_path : sequence of path-like
        Folders to search first (allowed roots).
    allow_outside : bool
        Read files outside the roots too (trusted URDFs only).

    Returns
    -------
    pathlib.Path
        The file's real path.

    Raises
    ------
    MeshOutsideRootsError
        (a PermissionError) the name leads outside the roots.
    MeshMissingError
        (a FileNotFoundError) no such file in the roots; also for a URL, which is never
        fetched.
    """
    name = str(filename).strip()
    if re.match(r"(?i)^(https?|ftp)://", name):
        why = "a URL (the viewer never fetches from the network)"
        raise MeshMissingError(why, f"{name}: {why}")
    roots = mesh_roots(source, search_path)
    outside = False
    for c in _candidates(name, source, search_path, allow_outside):
        real = _real(c)
        if not allow_outside and not _inside(real, roots):
            outside = True  # never stat()ed: the page cannot tell whether it exists
            continue
        if real.is_file():
            return real
    if outside:
        raise MeshOutsideRootsError(name)
    where = ", ".join(str(r) for r in roots) or "no folder (pass search_path=)"
    why = "not found"
    if name.lower().startswith("package://"):
        pkg = name[len("package://") :].lstrip("/").partition("/")[0]
        why = f"not found (search_path= may name the folder holding package {pkg!r})"
    raise MeshMissingError(why, f"{name}: {why}; searched {where}")


# ------------------------------------------------------------------ a mesh's own references
@functools.cache
def _resolver_class():
    import trimesh.resolvers

    class _Confined(trimesh.resolvers.Resolver):
        __doc__ = ConfinedResolver.__doc__

        def __init__(self, folder, max_bytes: int, allow_outside: bool = False):
            self.root = _real(folder)
            self.max_bytes = self.limit = int(max_bytes)
            self.allow_outside = bool(allow_outside)
            self.refused: list[tuple[str, str]] = []  # (name as written, why)
            self.file_name = None

        def _refuse(self, name: str, why: str):
            self.refused.append((name, why))
            raise FileNotFoundError(f"{name}: not read ({why})")

        def get(self, name):
            if isinstance(name, bytes):
                name = name.decode("utf-8", "replace")
            if name is None:
                raise FileNotFoundError("no name")
            name = str(name).strip()
            if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", name) and not re.match(
                r"^[A-Za-z]:[\\/]", name
            ):
                self._refuse(name, "a URL or URI scheme")
            if Path(name).suffix.lower() in _TEXTURES:  # never drawn: not read, not noted
                raise FileNotFoundError(f"{name}: texture images are not read")
            path = _real(self.root / name)  # an absolute name replaces the root
            if not self.allow_outside and not _inside(path, [self.root]):
                self._refuse(name, "outside the mesh's folder")
            if not path.is_file():
                raise FileNotFoundError(f"{name}: not found beside the mesh")
            size = path.stat().st_size
            if size > self.max_bytes:  # one budget for all the references of a mesh
                self._refuse(name, f"over the {self.limit:,} bytes read for a mesh's references")
            with open(path, "rb") as fh:
                data = fh.read(size)
            if data.startswith(_IMAGE_MAGIC) or data[8:12] == b"WEBP":  # an image, renamed
                raise FileNotFoundError(f"{name}: texture images are not read")
            self.max_bytes -= len(data)
            return data

        def write(self, name, data):
            raise PermissionError("the viewer writes no mesh assets")

        def namespaced(self, namespace):
            sub = _Confined(self.root / namespace, self.max_bytes, self.allow_outside)
            if not self.allow_outside and not _inside(sub.root, [self.root]):
                sub.root = self.root
            return sub

        def keys(self):
            try:
                return [e.name for e in os.scandir(self.root) if e.is_file()]
            except OSError:
                return []

    return _Confined


class ConfinedResolver:
    """A trimesh resolver that reads a mesh's references (glTF buffers, OBJ ``mtllib``,
    DAE images) only from regular files inside the mesh's own folder (symbolic links
    resolved), never a URL, never a texture image, and at most ``max_bytes`` in all.

    ``ConfinedResolver(folder, max_bytes, allow_outside=False)`` returns an instance of a
    subclass of ``trimesh.resolvers.Resolver``; ``.refused`` lists ``(name, why)``.
    """

    def __new__(cls, folder, max_bytes: int, allow_outside: bool = False):
        return _resolver_class()(folder, max_bytes, allow_outside)


# ------------------------------------------------------------------ estimates before reading
@dataclass
class MeshProbe:
    """What is known about a mesh file before a reader builds it."""

    path: Path
    kind: str  # the format (suffix)
    size: int  # bytes
    triangles: int  # estimated triangles once read (every instance counted)
    notes: list = field(default_factory=list)


def _limits(max_triangles: int) -> tuple[int, int]:
    read = max(READ_LIMIT, int(max_triangles))
    return read, BYTES_PER_TRIANGLE * read


def _read_capped(path: Path, max_bytes: int) -> bytes:
    size = path.stat().st_size
    if size > max_bytes:
        raise MeshNotDrawnError(
            f"left out: {size / 1e6:.1f} MB, more than the {max_bytes / 1e6:.0f} MB read for "
            "one mesh (raise max_triangles= to read it)"
        )
    with open(path, "rb") as fh:
        return fh.read(size + 1)  # (a file grown since: its first size + 1 bytes)


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _tokens(text: str | None) -> int:
    return len(text.split()) if text else 0


def _dae_geometry_triangles(geom) -> int:
    """Triangles a COLLADA ``<geometry>`` gives, from its primitives' index lists."""
    total = 0
    for mesh in geom:
        if _local(mesh.tag) not in ("mesh", "convex_mesh"):
            continue
        for prim in mesh:
            kind = _local(prim.tag)
            if kind not in ("triangles", "polylist", "polygons", "tristrips", "trifans"):
                continue
            offsets = [int(i.get("offset", 0)) for i in prim if _local(i.tag) == "input"]
            stride = max(offsets, default=0) + 1
            ps = [p for p in prim if _local(p.tag) in ("p", "ph")]
            if kind == "triangles":
                total += sum(_tokens(p.text) for p in ps) // (3 * stride)
            elif kind == "polylist":
                vc = next((v for v in prim if _local(v.tag) == "vcount"), None)
                counts = [int(x) for x in (vc.text.split() if vc is not None and vc.text else [])]
                total += sum(max(c - 2, 0) for c in counts)
            else:  # polygons, strips, fans: each <p> of n vertices gives n - 2 triangles
                for p in ps:
                    n = _tokens(p.text if _local(p.tag) == "p" else "") // stride
                    total += max(n - 2, 0)
                    for h in p if _local(p.tag) == "ph" else ():
                        if _local(h.tag) == "p":
                            total += max(_tokens(h.text) // stride - 2, 0)
    return total


def _dag_total(roots, weight, children, what: str) -> int:
    """Sum over ``roots`` of each node's weight plus its children's totals, every instance
    counted (a shared subtree once per use, as a reader instancing it would build it),
    without instancing anything: memoised, iterative, cycles and deep nesting refused."""
    memo: dict = {}
    for r in roots:
        stack = [(r, 0, iter(children(r)))]
        on_path = {r}
        acc = [weight(r)]
        while stack:
            node, depth, it = stack[-1]
            child = next(it, None)
            if child is None:
                stack.pop()
                on_path.discard(node)
                memo[node] = acc.pop()
                if acc:
                    acc[-1] += memo[node]
                continue
            if child in memo:
                acc[-1] += memo[child]
                continue
            if child in on_path:
                raise MeshNotDrawnError(f"could not be read ({what} nodes instance themselves)")
            if depth + 1 > MAX_NESTING:
                deep = f"{what} nodes nested deeper than {MAX_NESTING} levels"
                raise MeshNotDrawnError(f"could not be read ({deep})")
            on_path.add(child)
            stack.append((child, depth + 1, iter(children(child))))
            acc.append(weight(child))
    return sum(memo[r] for r in roots)


def _dae_triangles(data: bytes) -> int:
    """Triangles a DAE would give with every instance built: instances times geometry
    triangles, counted on the XML (DTDs and entities refused) without instancing."""
    from ..errors import ModelError
    from ..model.urdf import parse_xml

    try:
        root = parse_xml(data, "DAE")
    except ModelError as exc:
        why = "a DTD or entity" if "DTD" in str(exc) or "ENTITY" in str(exc) else "not XML"
        raise MeshNotDrawnError(f"could not be read (DAE: {why})") from None
    ids = {}
    for el in root.iter():
        i = el.get("id")
        if i is not None and _local(el.tag) in ("geometry", "node", "visual_scene", "controller"):
            ids.setdefault(i, el)
    tri: dict = {}

    def target(url):
        el = ids.get((url or "").lstrip("#"))
        return el

    def geometry_tris(el) -> int:
        if el not in tri:
            tri[el] = _dae_geometry_triangles(el)
        return tri[el]

    def weight(node) -> int:
        w = 0
        for c in node:
            kind = _local(c.tag)
            if kind == "instance_geometry":
                g = target(c.get("url"))
                w += geometry_tris(g) if g is not None and _local(g.tag) == "geometry" else 0
            elif kind == "instance_controller":
                ctl = target(c.get("url"))
                skins = [s for s in (ctl if ctl is not None else ()) if _local(s.tag) == "skin"]
                g = target(skins[0].get("source")) if skins else None
                w += geometry_tris(g) if g is not None and _local(g.tag) == "geometry" else 0
        return w

    def children(node) -> list:
        out = []
        for c in node:
            kind = _local(c.tag)
            if kind == "node":
                out.append(c)
            elif kind == "instance_node":
                n = target(c.get("url"))
                if n is not None and _local(n.tag) == "node":
                    out.append(n)
        return out

    scenes = [el for el in root.iter() if _local(el.tag) == "visual_scene"]
    inst = [el for el in root.iter() if _local(el.tag) == "instance_visual_scene"]
    if inst and target(inst[0].get("url")) is not None:
        scenes = [target(inst[0].get("url"))]
    return sum(_dag_total([scene], weight, children, "DAE") for scene in scenes)


def _glb_split(data: bytes) -> tuple[dict, bytes | None]:
    """A GLB's JSON (as a dict) and its binary chunk."""
    if len(data) < 20 or data[:4] != b"glTF":
        raise MeshNotDrawnError("could not be read (not a GLB file)")
    pos, tree, binary = 12, None, None
    while pos + 8 <= len(data):
        n, kind = struct.unpack_from("<II", data, pos)
        chunk = data[pos + 8 : pos + 8 + n]
        if kind == 0x4E4F534A and tree is None:
            tree = json.loads(chunk.decode("utf-8"))
        elif kind == 0x004E4942 and binary is None:
            binary = chunk
        pos += 8 + n + (-n % 4)
    if not isinstance(tree, dict):
        raise MeshNotDrawnError("could not be read (a GLB file without its JSON)")
    return tree, binary


def _gltf_tree(data: bytes, kind: str) -> tuple[dict, bytes | None]:
    try:
        if kind == "glb":
            return _glb_split(data)
        tree = json.loads(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, struct.error):
        raise MeshNotDrawnError(f"could not be read ({kind}: not JSON)") from None
    if not isinstance(tree, dict):
        raise MeshNotDrawnError(f"could not be read ({kind}: not a glTF document)")
    return tree, None


def _gltf_triangles(tree: dict) -> int:
    """Triangles a glTF gives with every node's mesh built (accessor counts; nothing read)."""
    acc = tree.get("accessors") or []

    def count(i) -> int:
        c = acc[i].get("count", 0) if isinstance(i, int) and 0 <= i < len(acc) else 0
        return c if isinstance(c, int) and c > 0 else 0

    def prim(p) -> int:
        mode = p.get("mode", 4)
        n = (
            count(p["indices"])
            if "indices" in p
            else count((p.get("attributes") or {}).get("POSITION"))
        )
        return n // 3 if mode == 4 else max(n - 2, 0) if mode in (5, 6) else 0

    meshes = [sum(prim(p) for p in m.get("primitives") or []) for m in tree.get("meshes") or []]
    nodes = tree.get("nodes") or []

    def weight(i) -> int:
        m = nodes[i].get("mesh")
        return meshes[m] if isinstance(m, int) and 0 <= m < len(meshes) else 0

    def children(i) -> list:
        return [
            c for c in nodes[i].get("children") or [] if isinstance(c, int) and 0 <= c < len(nodes)
        ]

    scenes = tree.get("scenes") or []
    if scenes:
        roots = [
            n
            for s in scenes
            for n in s.get("nodes") or []
            if isinstance(n, int) and 0 <= n < len(nodes)
        ]
    else:
        inner = {c for i in range(len(nodes)) for c in children(i)}
        roots = [i for i in range(len(nodes)) if i not in inner]
    total = _dag_total(list(dict.fromkeys(roots)), weight, children, "glTF")
    return max(total, sum(meshes))  # a reader may also take meshes no node uses


def _strip_textures(obj):
    """The glTF without images, textures, samplers and texture references (never read)."""
    if isinstance(obj, dict):
        drop = ("images", "textures", "samplers")
        return {
            k: _strip_textures(v)
            for k, v in obj.items()
            if k not in drop and not k.endswith("Texture")
        }
    if isinstance(obj, list):
        return [_strip_textures(v) for v in obj]
    return obj


def _gltf_bytes(tree: dict, binary: bytes | None, kind: str) -> bytes:
    text = json.dumps(_strip_textures(tree)).encode("utf-8")
    if kind == "gltf":
        return text
    text += b" " * (-len(text) % 4)
    out = [struct.pack("<II", len(text), 0x4E4F534A), text]
    if binary is not None:
        pad = binary + b"\0" * (-len(binary) % 4)
        out += [struct.pack("<II", len(pad), 0x004E4942), pad]
    body = b"".join(out)
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body


def _stl_triangles(path: Path, size: int, max_bytes: int) -> int:
    """A binary STL's header count (when the file's size matches it), else the facets of an
    ASCII STL."""
    with open(path, "rb") as fh:
        head = fh.read(84)
    if len(head) == 84:
        n = struct.unpack_from("<I", head, 80)[0]
        if size == 84 + 50 * n:
            return n
    data = _read_capped(path, max_bytes)
    if not data.lstrip().lower().startswith(b"solid"):
        raise MeshNotDrawnError("could not be read (neither a binary nor an ASCII STL)")
    return data.lower().count(b"endfacet")


def _header_count(data: bytes, kind: str) -> int:
    """Faces named in a PLY or OFF header (readers check them against the file)."""
    if kind == "ply":
        m = re.search(rb"(?m)^element\s+face\s+(\d+)", data[:65536])
        return int(m.group(1)) if m else 0
    m = re.match(rb"\s*[A-Z]*OFF\s+(?:#[^\n]*\s+)*\d+\s+(\d+)", data[:65536])
    return int(m.group(1)) if m else 0


def probe_mesh(path, max_triangles: int = MAX_TRIANGLES) -> MeshProbe:
    """Check a mesh file before it is read: its format, its size, and its triangle count
    estimated without building the mesh.

    Parameters
    ----------
    path : pathlib.Path
        A resolved mesh file (:func:`resolve_mesh`).
    max_triangles : int
        The page budget; the limits follow from it (module docstring).

    Returns
    -------
    MeshProbe

    Raises
    ------
    MeshNotDrawnError
        A format that is not read, a file too large, an estimate above the read limit, or
        a file that is not what its suffix says.
    """
    path = Path(path)
    read_limit, max_bytes = _limits(max_triangles)
    kind = path.suffix.lower().lstrip(".")
    if kind not in MESH_FORMATS:
        raise MeshNotDrawnError(
            f"could not be read (.{kind or '?'} files are not read: the viewer reads "
            "STL, OBJ, DAE, PLY, OFF, glTF and GLB)"
        )
    size = path.stat().st_size
    if kind == "stl":
        n = _stl_triangles(path, size, max_bytes)
    else:
        data = _read_capped(path, max_bytes)
        if kind == "dae":
            n = _dae_triangles(data)
        elif kind in ("gltf", "glb"):
            n = _gltf_triangles(_gltf_tree(data, kind)[0])
        elif kind == "obj":
            n = len(re.findall(rb"(?m)^[ \t]*f[ \t]", data))
        else:
            n = _header_count(data, kind)
    if n > read_limit:
        raise MeshNotDrawnError(
            f"left out: {n:,} triangles, more than the {read_limit:,} read for one mesh "
            "(raise max_triangles= to read it)"
        )
    return MeshProbe(path, kind, size, n)


# ------------------------------------------------------------------ reading
def _part_colors(visual, n: int):
    """Per-vertex RGB (n, 3) uint8 of one mesh part, None when the file gives no colour."""
    kind = getattr(visual, "kind", None)
    if kind in ("vertex", "face"):
        c = np.asarray(visual.vertex_colors)[:, :3]
        return c.astype(np.uint8) if len(c) == n else None
    if kind == "texture":  # a material colour (a texture image is never read)
        c = getattr(getattr(visual, "material", None), "main_color", None)
        if c is not None:
            return np.tile(np.asarray(c, dtype=np.uint8)[:3], (n, 1))
    return None


def _merge_vertices(V, F, C):
    """Vertices equal in position (to 1e-7 in the file's unit) and colour merged, in file
    order: smaller page, smooth normals. ``C`` may be None (no colours)."""
    fields = [("p", "<i8", 3)] + ([("c", "u1", 3)] if C is not None else [])
    rec = np.empty(len(V), dtype=fields)
    q = V * 1e7
    np.rint(q, out=q)
    rec["p"] = q
    del q
    if C is not None:
        rec["c"] = C
    key = rec.view(np.dtype((np.void, rec.dtype.itemsize)))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    del rec, key
    order = np.argsort(first, kind="stable")  # keep file order (deflates better)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first = first[order]
    F = rank[np.asarray(inverse).reshape(-1)][F]
    return V[first], F, None if C is None else C[first]


def read_mesh(
    probe: MeshProbe, scale=(1.0, 1.0, 1.0), *, max_triangles: int = MAX_TRIANGLES,
    allow_outside: bool = False,
) -> dict:  # fmt: skip
    """Vertices, triangles and per-vertex colours of a probed mesh file (trimesh reads it,
    with :class:`ConfinedResolver` for its references), parts placed and joined, equal
    vertices merged.

    Returns
    -------
    dict
        ``{"positions" (n, 3) float32, "indices" (m, 3) uint32, "colors" (n, 3) uint8 or
        None, "refused": [(name, why)]}``

    Raises
    ------
    MeshNotDrawnError
        The reader failed ("could not be read").
    """
    try:
        import trimesh
    except ImportError:  # pragma: no cover - the viz extra is missing
        raise ImportError("reading mesh files needs trimesh: pip install 'robodyn[viz]'") from None
    _, max_bytes = _limits(max_triangles)
    data = _read_capped(probe.path, max_bytes)
    if probe.kind in ("gltf", "glb"):
        data = _gltf_bytes(*_gltf_tree(data, probe.kind), probe.kind)
    resolver = ConfinedResolver(probe.path.parent, max_bytes, allow_outside)
    try:
        loaded = trimesh.load(io.BytesIO(data), file_type=probe.kind, resolver=resolver,
                              process=False)  # fmt: skip
        del data
        parts = loaded.dump() if isinstance(loaded, trimesh.Scene) else [loaded]
    except Exception as exc:  # noqa: BLE001 - any reader failure: the link falls back
        err = MeshNotDrawnError(
            "could not be read", f"{probe.path.name}: could not be read ({type(exc).__name__})"
        )
        err.refused = list(resolver.refused)
        raise err from None
    Vs, Fs, Cs, off = [], [], [], 0
    g = V = F = None
    for g in parts:
        V = np.asarray(getattr(g, "vertices", np.zeros((0, 3))), dtype=float)
        F = np.asarray(getattr(g, "faces", np.zeros((0, 3))), dtype=np.int64)
        if V.size == 0 or F.size == 0 or F.ndim != 2 or F.shape[1] != 3:
            continue
        Cs.append(_part_colors(getattr(g, "visual", None), len(V)))
        Vs.append(V)
        Fs.append(F + off if off else F)
        off += len(V)
    del parts, loaded, g, V, F  # the reader's objects: only the arrays are kept
    if not Vs:
        raise MeshNotDrawnError("could not be read (no triangles)")
    if any(c is not None for c in Cs):
        Cs = [np.full((len(V), 3), 184, np.uint8) if c is None else c for V, c in zip(Vs, Cs)]
        C = Cs[0] if len(Cs) == 1 else np.concatenate(Cs)
    else:
        C = None
    V, F = (Vs[0], Fs[0]) if len(Vs) == 1 else (np.concatenate(Vs), np.concatenate(Fs))
    del Vs, Fs, Cs
    if not np.all(np.isfinite(V)):
        raise MeshNotDrawnError("could not be read (coordinates that are not finite)")
    V, F, C = _merge_vertices(V, F, C)
    V = V * np.asarray(scale, dtype=float)
    return {
        "positions": V.astype(np.float32),
        "indices": F.astype(np.uint32),
        "colors": C,
        "refused": list(resolver.refused),
    }


# ------------------------------------------------------------------ decimation
def _cluster(V, F, h, lo):
    """Faces after snapping vertices to a grid of cell size ``h``: (cell of each vertex,
    faces on cells with collapsed and repeated triangles dropped)."""
    cells = np.floor((V - lo) / h).astype(np.int64)
    n = cells.max(axis=0) + 1
    key = (cells[:, 0] * n[1] + cells[:, 1]) * n[2] + cells[:, 2]
    _, inv = np.unique(key, return_inverse=True)
    inv = inv.reshape(-1)
    G = inv[F]
    keep = (G[:, 0] != G[:, 1]) & (G[:, 1] != G[:, 2]) & (G[:, 0] != G[:, 2])
    G = G[keep]
    # one of each triangle (either orientation)
    s = np.sort(G, axis=1)
    m = int(inv.max()) + 1
    _, first = np.unique((s[:, 0] * m + s[:, 1]) * m + s[:, 2], return_index=True)
    return inv, G[np.sort(first)]


def cluster_decimate(V, F, C, target: int):
    """A mesh reduced to at most ``target`` triangles by vertex clustering: vertices in one
    cell of a uniform grid become their mean (colours too), collapsed triangles are dropped.
    The cell size is searched (a few passes, each O(n log n)) so the result has between
    about 0.6 and 1 times ``target`` triangles.

    Parameters
    ----------
    V : (n, 3) float, F : (m, 3) int, C : (n, 3) uint8 or None
    target : int

    Returns
    -------
    (V, F, C)
    """
    V = np.asarray(V, dtype=float)
    F = np.asarray(F, dtype=np.int64)
    if len(F) <= target:
        return V, F, C
    target = max(int(target), 1)
    lo = V.min(axis=0)
    span = float(np.ptp(V, axis=0).max()) or 1.0
    e1, e2 = V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]]
    area = 0.5 * float(np.linalg.norm(np.cross(e1, e2), axis=1).sum())
    del e1, e2
    h = max(np.sqrt(2.0 * area / target) if area > 0 else span / target**0.5, span * 1e-6)
    h_small, h_big, best = 0.0, np.inf, None
    for _ in range(16):
        inv, G = _cluster(V, F, h, lo)
        if len(G) <= target:
            best, h_big = (inv, G), h
            if len(G) >= 0.6 * target:
                break
        else:
            h_small = h
        if not np.isfinite(h_big):
            h *= 2.0  # still too many: coarser
        elif h_small == 0.0:
            h /= 2.0  # too few: finer
        else:
            h = np.sqrt(h_small * h_big)  # bisect between the two
    if best is None:  # pragma: no cover - a grid of one cell drops every triangle
        best = _cluster(V, F, span * 2, lo)
    inv, G = best
    k = int(inv.max()) + 1
    w = np.bincount(inv, minlength=k).astype(float)
    V2 = np.stack([np.bincount(inv, V[:, j], minlength=k) for j in range(3)], axis=1) / w[:, None]
    C2 = None
    if C is not None:
        C = np.asarray(C, dtype=float)
        C2 = np.stack([np.bincount(inv, C[:, j], minlength=k) for j in range(3)], axis=1)
        C2 = np.round(C2 / w[:, None]).astype(np.uint8)
    used = np.unique(G)
    remap = np.full(k, -1, np.int64)
    remap[used] = np.arange(len(used))
    return V2[used], remap[G], None if C2 is None else C2[used]
