"""Shared test setup: this file's folder (tests/) is put on sys.path by pytest, so every
test module, in tests/ or below, imports the one helper module as ``from helpers import``."""

import atexit
import os
import shutil
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
