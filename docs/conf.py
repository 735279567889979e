"""Sphinx configuration of robodyn's documentation site.

Build (from the repository root)::

    pip install -e ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html

Why Sphinx: the API reference is generated from the numpydoc docstrings by autodoc and
autosummary (the tools NumPy, SciPy and sympy use, with cross-references checked at build
time), myst-parser lets the prose pages stay Markdown, and sphinx-gallery runs every
tutorial script at build time and embeds its printed output and figures, so a tutorial
that raises fails the build.

The API pages are not written by hand: :func:`write_api_pages` lists ``robodyn.__all__``
(what ``dir(robodyn)`` shows) and every public module's ``__all__`` at build time, so a
name added to robodyn appears in the reference without editing the docs.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
import types
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
if (ROOT / "src" / "robodyn").is_dir():
    sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("MPLBACKEND", "Agg")

from sphinx.errors import PycodeError  # noqa: E402
from sphinx.pycode import ModuleAnalyzer  # noqa: E402
from sphinx.util import logging  # noqa: E402
from sphinx_gallery.sorting import ExplicitOrder  # noqa: E402

import robodyn  # noqa: E402

project = "robodyn"
author = "the robodyn developers"
copyright = "the robodyn developers"  # noqa: A001
release = version = robodyn.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "tutorials"]
nitpicky = True
suppress_warnings: list[str] = []

html_theme = "pydata_sphinx_theme"
html_title = f"robodyn {release}"
html_theme_options = {"navigation_depth": 2, "show_toc_level": 2}
html_static_path: list[str] = []
templates_path = ["_templates"]

myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# --- API reference: autodoc + autosummary + numpydoc ---------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# numpydoc reports a docstring it cannot parse (an unknown section) as a Python warning,
# which sphinx-build -W would not see: make it an error that stops the build.
warnings.filterwarnings("error", category=UserWarning, module=r"numpydoc\.docscrape")
# A public name without a docstring is a build warning, hence an error with -W (GL08).
numpydoc_validation_checks = {"GL08"}
numpydoc_validation_exclude = {r"\.__\w+__$", r"\._\w+$"}


# --- Tutorials: sphinx-gallery runs each script and embeds output and figures -------------
sphinx_gallery_conf = {
    "examples_dirs": ["tutorials"],
    "gallery_dirs": ["auto_tutorials"],
    "filename_pattern": r".*\.py$",  # execute every tutorial, not only plot_*.py
    "abort_on_example_error": False,  # run every tutorial, then fail the build on any error
    "run_stale_examples": True,  # re-run unchanged scripts too: the library may have changed
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    # the course's chapters first (chNN_*.py sort in the book's order), then the other
    # topics, then the pages for readers of other libraries; a new folder goes before those
    "subsection_order": ExplicitOrder(
        ["tutorials/course", "tutorials/topics", "*", "tutorials/coming_from"]
    ),
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "plot_gallery": "True",
    "reset_modules": ("matplotlib",),
    "capture_repr": ("_repr_html_", "__repr__"),
    "min_reported_time": 1e9,
    "write_computation_times": False,
    "show_signature": False,
}


# --- the generated API pages ------------------------------------------------------------
def public_modules() -> list[str]:
    """Names in ``robodyn.__all__`` that are modules (rd.inertia, rd.mr, ...), sorted."""
    return sorted(
        n for n in robodyn.__all__ if isinstance(getattr(robodyn, n, None), types.ModuleType)
    )


def module_public_names(modname: str) -> list[str]:
    """The public names of ``robodyn.<modname>``: its ``__all__`` (else its non-underscore
    attributes defined in robodyn), in the module's own order."""
    mod = getattr(robodyn, modname)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [
            n
            for n in dir(mod)
            if not n.startswith("_")
            and getattr(getattr(mod, n), "__module__", "").startswith("robodyn")
        ]
    return list(names)


def top_level_names() -> list[str]:
    """``robodyn.__all__`` less the modules (they have pages of their own) and the version."""
    mods = set(public_modules())
    return [n for n in robodyn.__all__ if n not in mods and not n.startswith("__")]


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


def _autosummary(current: str, names: list[str], objs: dict[str, object]) -> list[str]:
    """Autosummary blocks, one per kind (classes get a class template with members)."""
    out: list[str] = []
    for kind, title, template in (
        ("class", "Classes", "class.rst"),
        ("function", "Functions", None),
        ("data", "Constants", "data.rst"),
    ):
        chosen = [n for n in names if _kind(objs[n]) == kind]
        if not chosen:
            continue
        out += [title, "-" * len(title), "", f".. currentmodule:: {current}", ""]
        out += [".. autosummary::", "   :toctree: generated", "   :nosignatures:"]
        if template:
            out += [f"   :template: {template}"]
        out += [""] + [f"   {n}" for n in chosen] + [""]
    return out


def _owner_key(obj) -> int | None:
    """Identity of an object that may be re-exported under a second name (None: a plain
    number or string, documented wherever it appears)."""
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        return None
    return id(obj)


def api_entries() -> dict[str, list[tuple[str, str | None]]]:
    """Page -> [(public name, fullname of the page that documents it, or None if this page
    does)]. The top level comes first; a module's name that is the very object of an
    earlier entry (``rd.sim.Trajectory`` is ``rd.Trajectory``) links to that entry instead
    of documenting it twice."""
    owner: dict[int, str] = {}
    pages: dict[str, list[tuple[str, str | None]]] = {}
    for page, names, mod in [("robodyn", top_level_names(), robodyn)] + [
        (getattr(robodyn, m).__name__, module_public_names(m), getattr(robodyn, m))
        for m in public_modules()
    ]:
        rows = []
        for n in names:
            obj = getattr(mod, n)
            key = _owner_key(obj)
            # a function's alias on the same page (rd.rnea, rd.inverse_dynamics) gets its own
            # entry; a class is documented once (two entries would register it twice)
            same_page = key in owner and owner[key].rpartition(".")[0] == page
            if key is not None and key in owner and (not same_page or inspect.isclass(obj)):
                rows.append((n, owner[key]))
            else:
                if key is not None:
                    owner[key] = f"{page}.{n}"
                rows.append((n, None))
        pages[page] = rows
    return pages


def write_api_pages(app=None, api: Path = DOCS / "api") -> None:
    """Write docs/api/*.rst from ``robodyn.__all__`` and each public module's ``__all__``."""
    api.mkdir(exist_ok=True)
    entries = api_entries()
    lines = [
        ".. This file is generated by docs/conf.py at build time; do not edit.",
        "",
        "API reference",
        "=============",
        "",
        "Every public name of ``import robodyn as rd``: the functions and classes of the",
        "top-level namespace (``dir(robodyn)``), then one page per public module with that",
        "module's own names. Conventions (twist ``[omega, v]``, shapes, units, frames) are in",
        ":doc:`../conventions`.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "   :caption: Modules",
        "",
    ]
    lines += [f"   {m}" for m in public_modules()] + [""]
    lines += _page_body("robodyn", robodyn, entries["robodyn"])
    _write_if_changed(api / "index.rst", lines)
    for m in public_modules():
        mod = getattr(robodyn, m)
        title = mod.__name__  # rd.sweep is robodyn.distributed.sweep
        page = [
            ".. This file is generated by docs/conf.py at build time; do not edit.",
            "",
            title,
            "=" * len(title),
            "",
            f".. automodule:: {title}",
            "   :no-members:",
            "",
        ]
        page += _page_body(title, mod, entries[title])
        _write_if_changed(api / f"{m}.rst", page)


def _page_body(current: str, mod, rows: list[tuple[str, str | None]]) -> list[str]:
    own = [n for n, other in rows if other is None]
    out = _autosummary(current, own, {n: getattr(mod, n) for n in own})
    shared = [(n, other) for n, other in rows if other is not None]
    if shared:
        title = "Also in this module"
        out += [title, "-" * len(title), ""]
        out += ["These names are the same objects as the ones they link to.", ""]
        out += [f"- ``{current}.{n}``: :py:obj:`{other}`" for n, other in shared] + [""]
    return out


def _write_if_changed(path: Path, lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_cli_page(app=None) -> None:
    """docs/cli.rst: ``robodyn --help`` and every subcommand's help, from the parser."""
    from robodyn.cli import build_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps help text at $COLUMNS
    parser = build_parser()
    lines = [
        ".. This file is generated by docs/conf.py at build time; do not edit.",
        "",
        "Command line",
        "============",
        "",
        "``robodyn`` is installed with the package. Each subcommand's ``--help``, as printed:",
        "",
        "robodyn --help",
        "--------------",
        "",
        ".. code-block:: text",
        "",
    ]
    lines += ["   " + s for s in parser.format_help().splitlines()] + [""]
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for action in subs:
        for name, sp in action.choices.items():
            head = f"robodyn {name}"
            lines += [head, "-" * len(head), "", ".. code-block:: text", ""]
            lines += ["   " + s for s in sp.format_help().splitlines()] + [""]
    _write_if_changed(DOCS / "cli.rst", lines)


# --- cross-references written relative to the defining module ----------------------------
_OWNERS: dict[int, str] = {}


def _import_dotted(path: str):
    """(object, parent, attribute) for a dotted path inside robodyn, or None."""
    parts = path.split(".")
    if parts[0] != "robodyn":
        return None
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        parent, attr = None, None
        try:
            for name in parts[k:]:
                parent, attr, obj = obj, name, getattr(obj, name)
        except AttributeError:
            return None
        return obj, parent, attr
    return None


def _documented_name(found) -> str | None:
    obj, parent, attr = found
    if _owner_key(obj) in _OWNERS:
        return _OWNERS[_owner_key(obj)]
    if inspect.isclass(parent) and _owner_key(parent) in _OWNERS:
        return f"{_OWNERS[_owner_key(parent)]}.{attr}"
    return None


def resolve_robodyn_reference(app, env, node, contnode):
    """Resolve ``:func:`fk``` or ``:mod:`robodyn.kinematics``` written in a docstring
    relative to the module that defines it: the target is imported (class context, module
    context, then robodyn) and linked to the page that documents that very object. A
    target that exists in robodyn but is not public (an internal module or helper) is shown
    as plain text; a target that exists nowhere stays a warning (an error with -W)."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    modname, clsname = node.get("py:module") or "", node.get("py:class") or ""
    if not _OWNERS:
        for rows_page, rows in api_entries().items():
            mod = robodyn if rows_page == "robodyn" else _import_dotted(rows_page)[0]
            for n, other in rows:
                key = _owner_key(getattr(mod, n))
                if key is not None and other is None:
                    _OWNERS[key] = f"{rows_page}.{n}"
    tries = [f"{modname}.{clsname}.{target}"] if clsname and modname else []
    tries += [f"{modname}.{target}"] if modname else []
    # the docstring's own module: node.source ends in "docstring of robodyn.x.y.name"
    source = (node.source or "").rpartition("docstring of ")[2].split(".")
    tries += [".".join(source[:k] + [target]) for k in range(len(source) - 1, 0, -1)]
    tries += [target, f"robodyn.{target}"]
    if "." not in target:  # a bare name: the robodyn module that defines it, if one does
        tries += [
            f"{name}.{target}"
            for name, mod in sorted(sys.modules.items())
            if name.startswith("robodyn.")
            and getattr(getattr(mod, target, None), "__module__", None) == name
        ]
    domain = env.get_domain("py")
    for path in tries:
        found = _import_dotted(path)
        if found is None:
            continue
        documented = _documented_name(found)
        if documented is not None:
            for role in ("obj", "meth", "attr"):
                ref = domain.resolve_xref(
                    env, node["refdoc"], app.builder, role, documented, node, contnode
                )
                if ref is not None:
                    return ref
        return contnode  # exists in robodyn, not in the public reference
    return None


def document_constants(app, what, name, obj, options, lines) -> None:
    """A public constant's documentation is the ``#:`` comment above its assignment, in
    whichever robodyn module assigns it (autodoc only reads the module it is listed in);
    never the docstring of its type (``tuple``, ``dict``). A constant without one is a
    warning, an error with -W, like a function without a docstring."""
    if what != "data":
        return
    type_doc = inspect.cleandoc(type(obj).__doc__ or "")
    if "\n".join(lines).strip() not in ("", type_doc.strip()):
        return  # documented where it is listed
    lines.clear()
    attr = name.rpartition(".")[2]
    for modname, mod in sorted(sys.modules.items()):
        if not modname.startswith("robodyn") or getattr(mod, attr, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except PycodeError:
            continue
        if ("", attr) in docs:
            lines.extend(line for line in docs[("", attr)] if line.strip())
            lines.append("")
            return
    logging.getLogger(__name__).warning(
        "public constant %s has no documentation: add a '#:' comment above its assignment",
        name,
    )


def setup(app):
    write_api_pages()
    write_cli_page()
    app.connect("missing-reference", resolve_robodyn_reference)
    app.connect("autodoc-process-docstring", document_constants, priority=100)  # before numpydoc
    return {"parallel_read_safe": True}
