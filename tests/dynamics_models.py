"""Random kinematic trees for the dynamics tests (in the spirit of Featherstone's autoTree).

Branching trees with every joint type (revolute, continuous, prismatic, fixed links that
the builder merges, an optional free-floating base, optional mimic joints), random joint
placements and random physical inertias built with RigidInertia.
"""

from __future__ import annotations

import numpy as np

from robodyn.inertia import RigidInertia
from robodyn.model.builder import ModelBuilder
from robodyn.model.configuration import random_configuration
from robodyn.spatial import exp3, transform


def random_inertia(rng: np.random.Generator) -> RigidInertia:
    """A physical inertia: moments from positive second moments (triangle inequality holds)."""
    s = rng.uniform(0.01, 0.3, 3)
    R = exp3(rng.normal(size=3))
    Ic = R @ np.diag([s[1] + s[2], s[0] + s[2], s[0] + s[1]]) @ R.T
    return RigidInertia(rng.uniform(0.2, 3.0), rng.normal(size=3) * 0.2, Ic)


def random_placement(rng: np.random.Generator) -> np.ndarray:
    return transform(exp3(rng.normal(size=3)), rng.normal(size=3) * 0.4)


def random_tree(
    seed: int,
    n: int = 6,
    *,
    floating: bool = False,
    mimic: bool = False,
    fixed: bool = True,
    damping: bool = False,
    gravity=None,
    explicit: bool = False,
):
    """A random tree of ``n`` moving bodies (plus mimics and merged fixed links).

    ``explicit=True`` builds the same tree with the mimic joints as ordinary joints.

    Returns
    -------
    (Model, list of (mimic joint name, leader joint name, multiplier, offset))
    """
    rng = np.random.default_rng(seed)
    g = rng.normal(size=3) * 5.0 if gravity is None else gravity
    b = ModelBuilder("tree", gravity=g)
    links: list[str] = []
    movable: list[str] = []  # joints that may lead a mimic
    if floating:
        b.add_body("base", "world", joint_type="free", inertia=random_inertia(rng))
        links.append("base")
    kinds = ["revolute", "continuous", "prismatic"]
    for k in range(n):
        parent = str(rng.choice(links)) if links and (floating or rng.random() < 0.8) else "world"
        kind = kinds[k % 3] if k < 3 else str(rng.choice(kinds))
        extra = {}
        if damping:
            extra = dict(
                damping=rng.uniform(0.1, 1), friction=rng.uniform(0.1, 1),
                armature=rng.uniform(0.01, 0.5),
            )  # fmt: skip
        b.add_body(
            f"l{k}", parent, joint_type=kind, axis=rng.normal(size=3),
            T=random_placement(rng), inertia=random_inertia(rng), **extra,
        )  # fmt: skip
        links.append(f"l{k}")
        movable.append(f"l{k}_joint")
        if fixed and rng.random() < 0.3:
            b.add_body(
                f"f{k}", f"l{k}", joint_type="fixed", T=random_placement(rng),
                inertia=random_inertia(rng),
            )  # fmt: skip
            links.append(f"f{k}")
    mimics = []
    if mimic:
        for k in range(2):
            lead = str(rng.choice(movable))
            mult, off = float(rng.uniform(-2, 2)), float(rng.uniform(-0.5, 0.5))
            kind = "prismatic" if rng.random() < 0.3 else "revolute"
            b.add_body(
                f"m{k}", str(rng.choice(links)), joint_type=kind, axis=rng.normal(size=3),
                T=random_placement(rng), inertia=random_inertia(rng),
                **({} if explicit else dict(mimic=lead, multiplier=mult, offset=off)),
            )  # fmt: skip
            mimics.append((f"m{k}_joint", lead, mult, off))
            links.append(f"m{k}")
    b.add_frame("tool", links[-1], T=random_placement(rng))
    return b.build(), mimics


def random_state(model, rng: np.random.Generator, size: int | None = None):
    """(q, v, a) with q from random_configuration and Gaussian v, a."""
    q = random_configuration(model, rng, size)
    shape = (model.nv,) if size is None else (size, model.nv)
    return q, rng.normal(size=shape), rng.normal(size=shape)
