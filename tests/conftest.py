"""Shared test setup: this file's folder (tests/) is put on sys.path by pytest, so every
test module, in tests/ or below, imports the one helper module as ``from helpers import``."""

import atexit
import os
import shutil
import subprocess
import tempfile
import zlib

import numpy as np
import pytest
from hypothesis import Phase, settings
from hypothesis.configuration import set_hypothesis_home_dir

# Hypothesis: the same examples on every run (derandomize: a failure replays and CI tests
# what the last run tested), and no example database (nothing written into the checkout).
# HYPOTHESIS_PROFILE=explore draws fresh examples, for a local search for new failures.
# No explain phase: on a random tree it re-runs a failing test thousands of times under a
# tracer (~3 min against ~40 s to shrink it); the shrunk example and its blob replay it.
_PHASES = tuple(p for p in Phase if p != Phase.explain)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, phases=_PHASES)
settings.register_profile("explore", database=None, print_blob=True, phases=_PHASES)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):  # its caches: a temporary folder,
    _HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="robodyn-hypothesis-")  # not ./.hypothesis
    set_hypothesis_home_dir(_HYPOTHESIS_HOME)
    atexit.register(shutil.rmtree, _HYPOTHESIS_HOME, ignore_errors=True)


@pytest.fixture
def rng(request):
    """A random generator of its own for each test, seeded by the test's id (reproducible in
    any order and any process: no shared module-level generator, no hash())."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(autouse=True)
def _numpy_print_options():
    """Each test starts with numpy's default print options and leaves them as it found them
    (the example scripts run in this process set their own)."""
    saved = np.get_printoptions()
    np.set_printoptions(**_DEFAULT_PRINT)
    yield
    np.set_printoptions(**saved)


_DEFAULT_PRINT = np.get_printoptions()


# --- nothing written into the checkout ---------------------------------------------------
# The checkout's `git status` (ignored and untracked files listed one by one) is taken when
# the session starts and compared when it ends: a path that appears or changes state there
# was written by the session (tests write to tmp_path). Python's bytecode caches and
# pytest's own cache (its cacheprovider, not a test) are not counted. Outside a git
# checkout (an sdist, no git) there is nothing to compare and the check is off; so it is
# with ROBODYN_CHECKOUT_CHECK=0 (for a checkout that other people edit during the run).
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NOT_WRITTEN_BY_TESTS = ("__pycache__/", ".pytest_cache/")


def _checkout_status():
    """The set of `git status --porcelain --ignored --untracked-files=all` lines of the
    checkout, less caches; None when this is not a git checkout or git is missing."""
    try:
        proc = subprocess.run(
            ["git", "-C", _ROOT, "status", "--porcelain", "--ignored", "--untracked-files=all"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    lines = proc.stdout.splitlines()
    return {ln for ln in lines if not any(part in ln for part in _NOT_WRITTEN_BY_TESTS)}


def pytest_sessionstart(session):
    if os.environ.get("ROBODYN_CHECKOUT_CHECK", "1") == "0":
        return
    if not hasattr(session.config, "workerinput"):  # the controlling process only
        session.config._robodyn_checkout = _checkout_status()


def pytest_sessionfinish(session, exitstatus):
    before = getattr(session.config, "_robodyn_checkout", None)
    if before is None:
        return
    after = _checkout_status()
    written = sorted((after or set()) - before)
    if written:
        shown = "\n  ".join(written[:20]) + ("\n  ..." if len(written) > 20 else "")
        session.config._robodyn_written = (
            f"the test session wrote into the checkout {_ROOT} (tests must write to tmp_path), "
            f"or another process did meanwhile (ROBODYN_CHECKOUT_CHECK=0 turns this check "
            f"off):\n  {shown}"
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    msg = getattr(terminalreporter.config, "_robodyn_written", None)
    if msg:
        terminalreporter.section("files written into the checkout", red=True)
        terminalreporter.line(msg, red=True)


@pytest.fixture(scope="module")
def client():
    """A real Dask cluster for a test module: a LocalCluster of two worker processes (one
    thread each), closed after the module. dask is imported only by the tests that ask."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                           dashboard_address=None)  # fmt: skip
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()
