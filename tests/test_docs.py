"""The documentation site: it builds with warnings as errors, its API reference lists every
public name, and the examples in the docstrings print what they say.

The site is built once per session, as the README says (``sphinx-build -W --keep-going -b
html docs ...``), into a temporary folder. With ``-W`` a broken cross-reference, a public
name without a docstring (numpydoc's GL08), a docstring that does not parse and a tutorial
that raises each fail the build. Sphinx and its extensions are in the test extra.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import os
import pkgutil
import re
import subprocess
import sys
import types
import zlib
from pathlib import Path

import pytest

import robodyn as rd

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# Public functions whose docstrings must carry a checked example.
KEY_EXAMPLES = (
    rd.fk,
    rd.jacobian,
    rd.inverse_dynamics,
    rd.mass_matrix,
    rd.exp6,
    rd.log6,
    rd.RigidInertia,
    rd.grubler,
)


# ------------------------------------------------------------------------------ the build
@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The HTML site, built by the README's command (warnings are errors)."""
    out = tmp_path_factory.mktemp("docs")
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT / "src"))
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    cmd += ["-d", str(out / "doctrees"), str(DOCS), str(out / "html")]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"the docs build failed:\n{proc.stderr[-20000:]}"
    return out / "html"


def inventory(html: Path) -> dict[str, str]:
    """objects.inv of a built site: object name -> page (Sphinx's v2 format: four header
    lines, then zlib-compressed lines ``name domain:role priority uri dispname``)."""
    raw = (html / "objects.inv").read_bytes()
    body = raw.split(b"\n", 4)[4]
    out = {}
    for line in zlib.decompress(body).decode().splitlines():
        m = re.match(r"(\S+)\s+(\S+):(\S+)\s+(-?\d+)\s+(\S*)", line)
        if m and m.group(2) == "py":
            out[m.group(1)] = m.group(5).split("#")[0]
    return out


def public_names() -> list[tuple[str, str, object]]:
    """Every public name: (module path, name, object) for ``dir(robodyn)`` and for each
    public module's ``__all__`` (rd.inertia, rd.trajectory, rd.control, rd.models, ...)."""
    rows = []
    for name in dir(rd):
        if name.startswith("__"):
            continue
        obj = getattr(rd, name)
        rows.append(("robodyn", name, obj))
        if isinstance(obj, types.ModuleType):
            for sub in obj.__all__:
                rows.append((f"robodyn.{name}", sub, getattr(obj, sub)))
    return rows


def test_the_site_builds_with_warnings_as_errors_and_has_its_pages(site):
    for page in (
        "index.html",
        "conventions.html",
        "course-errata.html",
        "cli.html",
        "api/index.html",
        "auto_tutorials/index.html",
    ):
        assert (site / page).is_file(), page
    tutorials = sorted((DOCS / "tutorials").rglob("*.py"))
    assert len(tutorials) >= 18
    for script in tutorials:
        rel = script.relative_to(DOCS / "tutorials").with_suffix(".html")
        page = (site / "auto_tutorials" / rel).read_text(encoding="utf-8")
        # executed: sphinx-gallery embeds what the script printed
        assert "sphx-glr-script-out" in page, f"{rel}: no output embedded"
    # a worked number from a tutorial, as printed when the site was built
    ch08 = (site / "auto_tutorials/course/ch08_dynamics.html").read_text(encoding="utf-8")
    assert "Newton-Euler: [19.62824 -0.06918]  Lagrange: [19.62824 -0.06918]" in ch08
    assert list((site / "_images").glob("sphx_glr_ch08b_tumbling_rigid_body_001.png"))


def test_the_api_reference_lists_every_public_name(site):
    inv = inventory(site)
    rows = public_names()
    assert len(rows) > 250
    missing = []
    for where, name, obj in rows:
        full = f"{where}.{name}"
        if isinstance(obj, types.ModuleType):
            ok = (site / "api" / f"{name}.html").is_file() and full in inv
        elif full in inv:
            ok = True
        else:  # the same object documented under another name, linked from this page
            page_name = "index" if where == "robodyn" else where.split(".")[1]
            page = (site / "api" / f"{page_name}.html").read_text(encoding="utf-8")
            aliases = [f"robodyn.{n}" for n in dir(rd) if getattr(rd, n, None) is obj]
            aliases += [f"{w}.{n}" for w, n, o in rows if o is obj]
            ok = full in page and any(a in inv for a in aliases)
        if not ok:
            missing.append(full)
    assert not missing, f"not in the API reference: {missing}"


def test_the_help_texts_point_to_pages_that_exist(site):
    from robodyn.cli import build_parser

    page = (site / "cli.html").read_text(encoding="utf-8")
    parser = build_parser()
    main_help = " ".join(parser.format_help().split())
    for target in re.findall(r"\(([\w/]+\.html)\)", main_help):
        assert (site / target).is_file(), target
    assert {"auto_tutorials/index.html", "api/index.html", "cli.html"} <= set(
        re.findall(r"\(([\w/]+\.html)\)", main_help)
    )
    (sub,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    for name, command in sub.choices.items():
        assert f"cli.html#robodyn-{name}" in " ".join(command.format_help().split())
        assert f'id="robodyn-{name}"' in page, f"cli.html has no section for {name}"


def test_a_new_public_name_or_module_enters_the_reference_by_itself(monkeypatch, tmp_path):
    """What another area adds to ``robodyn.__all__`` (a function, a module such as rd.mobile
    with its own ``__all__``) is listed by the page generator with no edit to docs/."""
    spec = importlib.util.spec_from_file_location("robodyn_docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)

    def fresh_function(x):
        """A function added by another area."""
        return x

    fresh = types.ModuleType("robodyn.fresh_module", "A module added by another area.")
    fresh.__all__ = ["helper"]
    fresh.helper = fresh_function
    monkeypatch.setattr(rd, "__all__", [*rd.__all__, "fresh_function", "fresh_module"])
    monkeypatch.setattr(rd, "fresh_function", fresh_function, raising=False)
    monkeypatch.setattr(rd, "fresh_module", fresh, raising=False)
    conf.write_api_pages(api=tmp_path)
    index = (tmp_path / "index.rst").read_text()
    assert "\n   fresh_function\n" in index and "\n   fresh_module\n" in index
    page = (tmp_path / "fresh_module.rst").read_text()
    # the same object as rd.fresh_function: linked to its entry, not documented twice
    assert "``robodyn.fresh_module.helper``: :py:obj:`robodyn.fresh_function`" in page
    assert set(index.split()) >= {n for n in dir(rd) if not n.startswith("__")} - set(
        conf.public_modules()
    )


# ---------------------------------------------------------------------- docstring examples
def robodyn_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(rd.__path__, "robodyn."))


def run_examples(obj, name: str) -> doctest.TestResults:
    """Run the ``>>>`` examples of obj's docstrings (a module: all of its own)."""
    runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS)
    module = obj if isinstance(obj, types.ModuleType) else sys.modules.get(obj.__module__)
    globs = dict(vars(module)) if module is not None else {}
    for test in doctest.DocTestFinder().find(obj, name, module=module, globs=globs):
        runner.run(test)
    return runner.summarize(verbose=False)


def test_docstring_examples_print_what_they_say(capsys):
    attempted, failures = 0, []
    for modname in robodyn_modules():
        result = run_examples(importlib.import_module(modname), modname)
        attempted += result.attempted
        if result.failed:
            failures.append(modname)
    report = capsys.readouterr().out
    assert not failures, f"docstring examples failed in {failures}:\n{report}"
    assert attempted >= 30


@pytest.mark.parametrize("obj", KEY_EXAMPLES, ids=lambda o: o.__name__)
def test_key_functions_carry_a_checked_example(obj):
    result = run_examples(obj, obj.__name__)
    assert result.attempted >= 2 and result.failed == 0


def test_a_wrong_docstring_example_is_reported(capsys):
    def wrong():
        """A documented function whose example is wrong.

        >>> 1 + 1
        3
        """

    result = run_examples(wrong, "wrong")
    assert (result.attempted, result.failed) == (1, 1)
    assert "Expected:\n    3\nGot:\n    2" in capsys.readouterr().out
