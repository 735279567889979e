"""The documentation site: it builds with warnings as errors, its API reference lists every
public name, and the examples in the docstrings print what they say.

The site is built once per session, as the README says (``sphinx-build -W --keep-going -b
html docs ...``), from a copy of docs/ into a temporary folder (the build writes generated
pages into its source folder; tests never write into the checkout). With ``-W`` a broken
cross-reference, a public name without a docstring (numpydoc's GL08), a docstring that does
not parse and a tutorial that raises each fail the build. Sphinx and its extensions are in
the test extra.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import types
import zlib
from pathlib import Path

import numpy as np
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


def _course_2r_torque(q, v, a):
    """tau = M(q) a + C(q, v) v + g(q) of the course's 2-link planar arm (course notes 003,
    the bundled planar_2r: m1 5, m2 3 kg, l1 0.5, lc1 0.25, lc2 0.2 m, I1 0.1, I2 0.05 kg m^2,
    g 9.81 m/s^2 along -y, angles from the x axis), typed in from the notes."""
    m1, m2, l1, lc1, lc2, I1, I2, g = 5.0, 3.0, 0.5, 0.25, 0.2, 0.1, 0.05, 9.81
    c1, c2, s2, c12 = np.cos(q[0]), np.cos(q[1]), np.sin(q[1]), np.cos(q[0] + q[1])
    M11 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2) + I1 + I2
    M12 = m2 * (lc2**2 + l1 * lc2 * c2) + I2
    M22 = m2 * lc2**2 + I2
    h = m2 * l1 * lc2 * s2
    return np.array([
        M11 * a[0] + M12 * a[1] - h * (2 * v[0] * v[1] + v[1] ** 2)
        + (m1 * lc1 + m2 * l1) * g * c1 + m2 * lc2 * g * c12,
        M12 * a[0] + M22 * a[1] + h * v[0] ** 2 + m2 * lc2 * g * c12,
    ])  # fmt: skip


# ------------------------------------------------------------------------------ the build
# what docs/conf.py and sphinx-gallery write into the source folder at build time
GENERATED = {"_build", "api", "auto_tutorials", "cli.rst", "sg_execution_times.rst"}


def _sources_only(folder: str, names: list[str]) -> set[str]:
    """shutil.copytree's ignore: docs/ without what a build generated, and no caches."""
    skip = GENERATED & set(names) if Path(folder) == DOCS else set()
    return skip | {n for n in names if n == "__pycache__"}


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The HTML site, built by the README's command (warnings are errors) on a copy of
    docs/ in a temporary folder: the build writes its generated pages (api/, cli.rst,
    auto_tutorials/) into its source folder, and tests never write into the checkout."""
    out = tmp_path_factory.mktemp("docs")
    src = out / "docs"
    shutil.copytree(DOCS, src, ignore=_sources_only)
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT / "src"))
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    cmd += ["-d", str(out / "doctrees"), str(src), str(out / "html")]
    proc = subprocess.run(cmd, cwd=out, env=env, capture_output=True, text=True, timeout=900)
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
    # a worked number from a tutorial, as printed when the site was built: both torques
    # equal the course's closed form of the 2R arm, to the 5 decimals printed
    ch08 = (site / "auto_tutorials/course/ch08_dynamics.html").read_text(encoding="utf-8")
    m = re.search(r"Newton-Euler: \[([^\]]*)\]\s+Lagrange: \[([^\]]*)\]", ch08)
    assert m, "ch08: the Newton-Euler / Lagrange line is not on the page"
    want = _course_2r_torque([np.pi / 4, np.pi / 3], [2.0, -1.0], [0.5, 1.5])
    for printed in m.groups():
        got = np.array(printed.split(), dtype=float)
        np.testing.assert_allclose(got, want, rtol=0, atol=0.5e-5 + 1e-12)
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


def test_docstring_examples_print_what_they_say(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that saves a file saves it here
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
def test_key_functions_carry_a_checked_example(obj, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
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
