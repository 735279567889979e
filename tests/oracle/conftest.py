"""Parametrise oracle tests over every example-robot-data URDF Pinocchio loads.

A test that takes an argument named ``erd_robot`` receives ``(name, path)`` for each.
"""

from __future__ import annotations

from oracle_support import erd_robots


def pytest_generate_tests(metafunc):
    if "erd_robot" in metafunc.fixturenames:
        robots = erd_robots()
        metafunc.parametrize("erd_robot", robots, ids=[name for name, _ in robots])
