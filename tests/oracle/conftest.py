"""Parametrise oracle tests over every example-robot-data URDF Pinocchio loads.

A test that takes an argument named ``erd_robot`` receives ``(name, path)`` for each; the
number of robots is typed here and checked at collection, so each such test compares
exactly that many robots (per base type) and never fewer.
"""

from __future__ import annotations

import pytest

from helpers import erd_robots, expect_count

# typed, not computed: the example-robot-data URDFs Pinocchio loads with at least one
# degree of freedom (of 69 files, quadrotor_base and iris_simple have none and ur3.urdf,
# with no robot name, is refused), and how many of them robodyn loads with its default
# settings (romeo_laas_small, with inertias far from positive semi-definite, is refused; the
# three tiago load, their antennas' negative moments of -3.5e-8 kg m^2 being negligible
# against the robot's inertia scale; the oracle loads them with invalid_inertia="keep").
# A robot that drops out, or joins, fails at collection.
N_ERD_ROBOTS = 66
N_ROBODYN_DEFAULT = 65


def pytest_generate_tests(metafunc):
    if "erd_robot" in metafunc.fixturenames:
        robots = expect_count(
            erd_robots(), N_ERD_ROBOTS, "example-robot-data URDFs Pinocchio loads"
        )
        loaded = _robodyn_loads(robots)
        if loaded != N_ROBODYN_DEFAULT:
            raise AssertionError(
                f"{loaded} of the {len(robots)} example-robot-data URDFs Pinocchio loads "
                f"load in robodyn by default; expected {N_ROBODYN_DEFAULT}"
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


@pytest.fixture(scope="module")
def in_tmp_folder(tmp_path_factory):
    """Run a module in a temporary folder: MuJoCo writes its compile warnings to
    ./MUJOCO_LOG.TXT."""
    import os

    old = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("mujoco"))
    yield
    os.chdir(old)
