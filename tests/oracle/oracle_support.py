"""Helpers for the Pinocchio oracle tests: find example-robot-data URDFs, load both models.

Pinocchio, example-robot-data and robodyn must all be installed (the ``test`` extra);
a missing oracle is an error, never a skip.
"""

from __future__ import annotations

import functools
import glob
import os
import sysconfig

import pinocchio as pin

from robodyn.convert import PinocchioMap


def erd_dir() -> str:
    """The example-robot-data robots folder inside site-packages."""
    for base in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        d = os.path.join(base, "cmeel.prefix", "share", "example-robot-data", "robots")
        if os.path.isdir(d):
            return d
    raise RuntimeError("example-robot-data is not installed: pip install -e '.[test]'")


@functools.lru_cache(maxsize=1)
def erd_robots() -> list[tuple[str, str]]:
    """(name, path) of every example-robot-data URDF that Pinocchio loads, sorted."""
    out = []
    for path in sorted(glob.glob(os.path.join(erd_dir(), "**", "*.urdf"), recursive=True)):
        try:
            m = pin.buildModelFromUrdf(path)
        except Exception:  # noqa: BLE001 - Pinocchio's own loader rejects it: not an oracle
            continue
        if m.nv == 0:
            continue
        rel = os.path.relpath(path, erd_dir())
        out.append((rel.replace(os.sep, "/").replace(".urdf", ""), path))
    return out


def erd_path(fragment: str) -> str:
    """Path of the first example-robot-data URDF whose relative name contains ``fragment``."""
    for name, path in erd_robots():
        if fragment in name:
            return path
    raise LookupError(fragment)


def load_pair(path: str, floating_base: bool = False):
    """Load ``path`` in robodyn and in Pinocchio: (model, pin_model, pin_data, PinocchioMap)."""
    from robodyn.model.urdf import load_urdf

    # invalid_inertia="keep": a few example-robot-data URDFs carry non-physical inertias;
    # Pinocchio loads them as written, and so must the oracle pair.
    model = load_urdf(path, floating_base=floating_base, mimic=False, invalid_inertia="keep")
    if floating_base:
        pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    else:
        pm = pin.buildModelFromUrdf(path)
    return model, pm, pm.createData(), PinocchioMap(model, pm)
