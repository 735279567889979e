"""Parametrise oracle tests over every example-robot-data URDF Pinocchio loads.

A test that takes an argument named ``erd_robot`` receives ``(name, path)`` for each.
"""

from __future__ import annotations

from helpers import MIN_ERD_ROBOTS, erd_robots


def pytest_generate_tests(metafunc):
    if "erd_robot" in metafunc.fixturenames:
        robots = erd_robots()
        if len(robots) < MIN_ERD_ROBOTS:  # fails at collection, never a silent shrink
            raise RuntimeError(
                f"only {len(robots)} example-robot-data URDFs load in Pinocchio; the oracle "
                f"needs at least {MIN_ERD_ROBOTS}: is example-robot-data complete?"
            )
        loaded = _robodyn_loads(robots)
        if loaded < MIN_ERD_ROBOTS:
            raise RuntimeError(
                f"only {loaded} of the {len(robots)} example-robot-data URDFs Pinocchio loads "
                f"load in robodyn by default; the oracle needs at least {MIN_ERD_ROBOTS}"
            )
        metafunc.parametrize("erd_robot", robots, ids=[name for name, _ in robots])


_LOADED: list[int] = []


def _robodyn_loads(robots) -> int:
    """How many of ``robots`` robodyn loads with its default settings (counted once)."""
    if not _LOADED:
        import warnings

        from robodyn.errors import ModelError, ModelWarning
        from robodyn.model.urdf import load_urdf

        n = 0
        for _, path in robots:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ModelWarning)
                    load_urdf(path)
                n += 1
            except ModelError:
                pass
        _LOADED.append(n)
    return _LOADED[0]


def pytest_collection_modifyitems(config, items):
    # The oracle compares numbers on URDFs as Pinocchio reads them; their ModelWarnings
    # (implausible inertias, massless links) are asserted in tests/test_urdf.py instead.
    import pytest

    here = str(config.rootpath / "tests" / "oracle")
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.filterwarnings("ignore::robodyn.errors.ModelWarning"))
