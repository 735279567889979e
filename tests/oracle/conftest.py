"""Parametrise oracle tests over every example-robot-data URDF Pinocchio loads.

A test that takes an argument named ``erd_robot`` receives ``(name, path)`` for each.
"""

from __future__ import annotations

from oracle_support import erd_robots


def pytest_generate_tests(metafunc):
    if "erd_robot" in metafunc.fixturenames:
        robots = erd_robots()
        metafunc.parametrize("erd_robot", robots, ids=[name for name, _ in robots])


def pytest_collection_modifyitems(config, items):
    # The oracle compares numbers on URDFs as Pinocchio reads them; their ModelWarnings
    # (implausible inertias, massless links) are asserted in tests/test_urdf.py instead.
    import pytest

    here = str(config.rootpath / "tests" / "oracle")
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.filterwarnings("ignore::robodyn.errors.ModelWarning"))
