"""xacro: URDF written with macros, properties, arguments and includes (ROS's ``.urdf.xacro``
files), expanded by the ``xacro`` package into the URDF that :func:`~robodyn.load_urdf` reads.

``rd.load_urdf("robot.urdf.xacro", xacro_args={"prefix": "left_"}, search_path=["ws/src"])``
expands the file with :func:`expand_xacro`, then loads the URDF text it gives like any other.
The ``xacro`` package is an optional dependency (``pip install "robodyn[xacro]"``); without
it a ``.xacro`` file is refused with a message naming the extra.

Where packages are found
    ``$(find pkg)`` (in ``<xacro:include filename="$(find pkg)/urdf/arm.xacro"/>`` and in
    property values) is resolved by :func:`find_package` through ``search_path=`` first,
    then ``$ROS_PACKAGE_PATH``, never through a ROS installation (the ``xacro`` package
    would ask ROS 2's ament index): each folder is a package itself (its name or its
    ``package.xml``'s ``<name>`` is ``pkg``), holds the package as ``folder/pkg``, or holds
    it a few folders down (a workspace's ``src`` with a ``package.xml`` naming it). A
    package found nowhere is a ModelError naming it and the folders searched. The
    ``package://pkg/...`` mesh names of the expanded URDF are looked up by the viewer
    (:func:`robodyn.viz.show`) through the same folders.

A xacro file is a program (it evaluates Python expressions, reads the files it includes and
the environment): expand only files you trust. The URDF it produces is then read by the
same safe parser as any other (no DTDs, no entities, nothing else read).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import threading
from pathlib import Path

from ..errors import ModelError

__all__ = ["PACKAGE_DEPTH", "expand_xacro", "find_package", "package_folders", "is_xacro"]

#: How many folders below a search folder a package is looked for (a workspace's
#: ``src/<group>/<pkg>``), descending into no package.
PACKAGE_DEPTH = 3

_LOCK = threading.Lock()  # the xacro package keeps its state in module globals


def is_xacro(path_or_xml, xacro_args=None) -> bool:
    """Whether :func:`~robodyn.load_urdf` expands ``path_or_xml`` with xacro first: a path
    whose name ends in ``.xacro``, or any source when ``xacro_args`` is given (even ``{}``:
    XML text written as xacro)."""
    if xacro_args is not None:
        return True
    if isinstance(path_or_xml, os.PathLike) or (
        isinstance(path_or_xml, str) and not path_or_xml.lstrip().startswith("<")
    ):
        return os.fspath(path_or_xml).lower().endswith(".xacro")
    return False


def package_folders(search_path=()) -> list[Path]:
    """The folders packages are looked up in: ``search_path`` (one path alone is one folder),
    then each entry of ``$ROS_PACKAGE_PATH``.

    Parameters
    ----------
    search_path : path-like or sequence of path-like

    Returns
    -------
    list of pathlib.Path
    """
    if isinstance(search_path, (str, bytes, os.PathLike)):
        search_path = [search_path]
    env = [p for p in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if p]
    folders = [Path(os.path.expanduser(os.fsdecode(p))) for p in [*search_path, *env]]
    return list(dict.fromkeys(folders))


def find_package(name: str, search_path=()) -> Path:
    """The folder of the ROS package ``name``, as ``$(find name)`` gives it.

    Looked up in :func:`package_folders` in order: a folder that is the package (called
    ``name``, or whose ``package.xml`` says ``<name>name</name>``), then ``folder/name``,
    then a package found up to :data:`PACKAGE_DEPTH` folders down whose ``package.xml``
    names it.

    Parameters
    ----------
    name : str
    search_path : path-like or sequence of path-like

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ModelError
        No such package, naming it and the folders searched.
    """
    folders = package_folders(search_path)
    for folder in folders:
        if folder.is_dir() and (folder.name == name or _package_name(folder) == name):
            return folder
        if (folder / name).is_dir():
            return folder / name
    for folder in folders:
        found = _crawl(folder, name, PACKAGE_DEPTH)
        if found is not None:
            return found
    searched = ", ".join(str(f) for f in folders) or "none"
    raise ModelError(
        f"package {name!r} ($(find {name})) not found; searched search_path= and "
        f"$ROS_PACKAGE_PATH: {searched}; pass the folder that holds it as search_path="
    )


_NAME = re.compile(rb"<name>\s*([^<\s]+)\s*</name>")


def _package_name(folder: Path) -> str | None:
    """The ``<name>`` in ``folder/package.xml`` (the first one, by a pattern: no XML parser,
    no entities), or None."""
    path = folder / "package.xml"
    try:
        if not path.is_file() or path.stat().st_size > 1_000_000:
            return None
        m = _NAME.search(path.read_bytes())
    except OSError:
        return None
    return m.group(1).decode("utf-8", "replace") if m else None


def _crawl(folder: Path, name: str, depth: int) -> Path | None:
    """A package called ``name`` below ``folder`` (breadth first, ``depth`` levels, not
    descending into packages nor hidden folders), or None."""
    level = [folder]
    for _ in range(depth):
        below = []
        for d in level:
            try:
                subs = sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith("."))
            except OSError:
                continue
            for sub in subs:
                own = _package_name(sub)
                if own == name:
                    return sub
                if own is None:
                    below.append(sub)
        level = below
    return None


def expand_xacro(path_or_xml, xacro_args=None, search_path=()) -> str:
    """The URDF text of a xacro file (or of xacro XML text), expanded by the ``xacro``
    package with ``$(find pkg)`` resolved by :func:`find_package`.

    Parameters
    ----------
    path_or_xml : str, os.PathLike or bytes
        A ``.xacro`` file, or the xacro XML itself (text, or UTF-8 bytes; then relative
        includes are relative to the current folder).
    xacro_args : dict, optional
        Values of the file's ``<xacro:arg>`` (``$(arg name)``), as ``xacro name:=value``
        sets them; booleans become "true"/"false", other values ``str(value)``.
    search_path : path-like or sequence of path-like
        Folders where packages are found before ``$ROS_PACKAGE_PATH``.

    Returns
    -------
    str
        The URDF.

    Raises
    ------
    ModuleNotFoundError
        The ``xacro`` package is not installed (``pip install "robodyn[xacro]"``).
    ModelError
        A package not found (naming it), or xacro's own error (an undefined property or
        macro, a missing include file, bad XML), with the file.
    FileNotFoundError
        No such file.
    """
    xacro = _xacro_module()
    if isinstance(path_or_xml, (bytes, bytearray, memoryview)):  # xacro XML as bytes
        path_or_xml = bytes(path_or_xml).decode("utf-8")
    mappings = {str(k): _arg_text(v) for k, v in (xacro_args or {}).items()}
    is_file = not (isinstance(path_or_xml, str) and path_or_xml.lstrip().startswith("<"))
    origin = os.fspath(path_or_xml) if is_file else "<string>"
    if is_file and not os.path.isfile(origin):
        raise FileNotFoundError(f"xacro file not found: {origin}")
    with _LOCK, _finding_packages_in(search_path):
        try:
            if is_file:
                doc = xacro.process_file(origin, mappings=mappings)
            else:
                xacro.init_stacks(None)
                doc = xacro.parse(path_or_xml)
                xacro.process_doc(doc, mappings=mappings)
            return doc.toxml()
        except Exception as exc:  # noqa: BLE001 - xacro raises XacroException, ExpatError...
            raise _xacro_error(exc, origin) from None


def _xacro_module():
    try:
        return importlib.import_module("xacro")
    except ImportError:
        raise ModuleNotFoundError(
            "loading a xacro file needs the xacro package: pip install 'robodyn[xacro]' "
            "(or pip install xacro)",
            name="xacro",
        ) from None


def _arg_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _xacro_error(exc: Exception, origin: str) -> Exception:
    """``exc`` from xacro as the error load_urdf raises: the ModelError of a package not
    found as it is, any other xacro error as a ModelError naming the file."""
    inner = exc
    while getattr(inner, "exc", None) is not None:  # XacroException wraps the cause
        inner = inner.exc
    if isinstance(inner, ModelError):
        return ModelError(f"xacro {origin}: {inner}")
    return ModelError(f"xacro {origin}: {exc}")


@contextlib.contextmanager
def _finding_packages_in(search_path):
    """xacro's ``$(find pkg)`` resolved by :func:`find_package` while the block runs."""
    subst = importlib.import_module("xacro.substitution_args")
    original = subst._eval_find
    subst._eval_find = lambda pkg: str(find_package(pkg, search_path))
    try:
        yield
    finally:
        subst._eval_find = original
