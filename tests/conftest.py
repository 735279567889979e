"""Shared test setup: this file's folder (tests/) is put on sys.path by pytest, so every
test module, in tests/ or below, imports the one helper module as ``from helpers import``."""

import zlib

import numpy as np
import pytest


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
