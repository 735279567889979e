"""Bundled robots: ``robodyn.models.load(name_or_path)`` and ``robodyn.models.names()``.

=============  ======================================================  ===============
name           what                                                    built by
=============  ======================================================  ===============
pendulum       one revolute joint, point bob m = 1 kg at l = 1 m       ModelBuilder
planar_2r      the 2-link arm of course notes 003 (gravity along -y)   ModelBuilder
point_mass_2r  the 2R arm of course notes 000: point masses at the     ModelBuilder
               link tips (m1, m2, L1, L2, g are parameters)
single_link    the single-link arm of course notes 003, Exercise 1     ModelBuilder
               (m, l, lc, I, g are parameters)
rp_arm         the RP manipulator of course notes 001, eqs. 10.5-10.6  ModelBuilder
ur5            UR5 of Modern Robotics (M, Slist, Mlist, Glist)         :func:`from_mr`
panda          Franka Emika Panda, 7 DoF (modified DH, Gaz et al.)     :func:`from_dh`
=============  ======================================================  ===============

Each robot is a JSON file in ``robodyn/model/data/`` that names its source; ``info(name)``
returns that metadata. ``load`` also accepts a path to a robot file: an XML file whose root
element is ``<mujoco>`` is MJCF (read by :func:`robodyn.model.mjcf.load_mjcf`), any other
XML file URDF (:func:`robodyn.model.urdf.load_urdf`), a ``.json`` file the bundled
format.

A description may hold ``"$name"`` (or ``"-$name"``) in place of a number: the value of
its ``parameters`` entry ``name``, which ``load(name, **parameters)`` overrides, so
``load("point_mass_2r", m1=2.0, L2=0.5)`` is the notes' arm with those values.
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ModelError
from .model.mjcf_xml import root_tag
from .model.model import Model

__all__ = ["load", "names", "info", "from_spec"]

_BUNDLED = ("pendulum", "planar_2r", "point_mass_2r", "single_link", "rp_arm", "ur5", "panda")


def names() -> tuple[str, ...]:
    """Names of the bundled robots.

    Returns
    -------
    tuple of str
    """
    return _BUNDLED


def _read_bundled(name: str) -> dict:
    text = resources.files("robodyn.model").joinpath("data", f"{name}.json").read_text("utf-8")
    return json.loads(text)


def info(name: str) -> dict[str, Any]:
    """Metadata of a bundled robot: description, source, parameters (when stated).

    Parameters
    ----------
    name : str

    Returns
    -------
    dict
    """
    if name not in _BUNDLED:
        raise ModelError(f"unknown robot {name!r}; bundled robots: {', '.join(_BUNDLED)}")
    spec = _read_bundled(name)
    return {k: spec[k] for k in ("name", "description", "source", "parameters") if k in spec}


@cache
def _load_bundled(name: str, parameters: tuple = ()) -> Model:
    return from_spec(_read_bundled(name), **dict(parameters))


def load(name_or_path: str | os.PathLike, **parameters: float) -> Model:
    """Load a bundled robot by name, or a robot description file by path.

    Parameters
    ----------
    name_or_path : str or path-like
        One of :func:`names`, or a path to a robot file: URDF, MJCF (an XML file whose root
        element is ``<mujoco>``, whatever its suffix) or a robodyn ``.json`` file.
    **parameters : float
        Values for the robot's named parameters (``info(name)["parameters"]`` lists them
        with their defaults), e.g. ``load("point_mass_2r", m1=2.0, L1=0.5)``; only a
        description that uses a parameter in place of a number (``"$L1"``) changes with it.

    Returns
    -------
    Model
        A bundled robot is built once per set of parameters and then shared between calls
        (a Model is frozen).

    Raises
    ------
    ModelError
        Unknown name (the message lists the bundled robots), an unknown parameter (the
        message lists the robot's), or an invalid file.
    """
    if isinstance(name_or_path, str) and name_or_path in _BUNDLED:
        return _load_bundled(name_or_path, tuple(sorted(parameters.items())))
    if parameters and not (isinstance(name_or_path, (str, os.PathLike))
                           and Path(name_or_path).suffix.lower() == ".json"):  # fmt: skip
        raise ModelError(f"parameters {sorted(parameters)} apply to bundled or .json robots only")
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise ModelError(
            f"load expects a robot name or a file path, got {type(name_or_path).__name__}"
        )
    path = Path(name_or_path)
    if path.suffix.lower() == ".json" and path.is_file():
        try:
            spec = json.loads(path.read_text("utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ModelError(f"cannot read robot file {str(path)!r}: {exc}") from exc
        return from_spec(spec, **parameters)
    if path.suffix.lower() in (".urdf", ".xml", ".mjcf") or path.is_file():
        if not path.is_file():
            kind = {".urdf": "URDF", ".mjcf": "MJCF"}.get(path.suffix.lower(), "robot")
            raise ModelError(f"no such {kind} file: {str(path)!r}")
        if root_tag(path) == "mujoco":
            from .model.mjcf import load_mjcf

            return load_mjcf(str(path))
        from .model.urdf import load_urdf

        return load_urdf(str(path))
    raise ModelError(
        f"unknown robot {str(name_or_path)!r}: not a bundled robot and not a file; "
        f"bundled robots: {', '.join(_BUNDLED)}"
    )


# ------------------------------------------------------------------ spec -> Model
def _substitute(value: Any, values: dict[str, float]) -> Any:
    """Replace every "$name" / "-$name" string in a description by its parameter value."""
    if isinstance(value, dict):
        return {k: _substitute(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, values) for v in value]
    if isinstance(value, str) and value.lstrip("-").startswith("$"):
        sign, key = (-1.0, value[2:]) if value.startswith("-") else (1.0, value[1:])
        if key not in values:
            raise ModelError(f"the description uses ${key} but its parameters hold no {key!r}")
        return sign * float(values[key])
    return value


def _with_parameters(spec: dict, parameters: dict[str, float]) -> dict:
    known = spec.get("parameters", {})
    unknown = sorted(set(parameters) - set(known))
    if unknown:
        raise ModelError(
            f"unknown parameter(s) {unknown} for robot {spec.get('name')!r}; "
            f"its parameters: {', '.join(known) or 'none'}"
        )
    values = {**known, **{k: float(v) for k, v in parameters.items()}}
    out = _substitute({k: v for k, v in spec.items() if k != "parameters"}, values)
    out["parameters"] = values
    return out


def _inertia(d: dict | None, what: str):
    from .inertia import RigidInertia

    if d is None:
        return None
    try:
        return RigidInertia(d["mass"], d.get("com"), d.get("inertia"))
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{what}: invalid inertia {d!r}: {exc}") from exc


def _pose(d: dict) -> np.ndarray:
    from .spatial import rpy_to_rotation

    T = np.eye(4)
    T[:3, :3] = rpy_to_rotation(d.get("rpy", (0.0, 0.0, 0.0)))
    T[:3, 3] = d.get("xyz", (0.0, 0.0, 0.0))
    return T


def _from_builder_spec(spec: dict) -> Model:
    from .model.builder import ModelBuilder

    b = ModelBuilder(name=spec.get("name", "robot"), gravity=spec.get("gravity", (0, 0, -9.81)))
    for body in spec["bodies"]:
        inertia = None
        if "mass" in body:
            inertia = _inertia(
                {k: body[k] for k in ("mass", "com", "inertia") if k in body},
                f"body {body['name']!r}",
            )
        b.add_body(
            body["name"],
            body["parent"],
            joint_name=body.get("joint"),
            joint_type=body.get("type", "revolute"),
            axis=body.get("axis", (0.0, 0.0, 1.0)),
            T=_pose(body),
            inertia=inertia,
            lower=body.get("lower", -np.inf),
            upper=body.get("upper", np.inf),
            velocity=body.get("velocity", np.inf),
            effort=body.get("effort", np.inf),
            damping=body.get("damping", 0.0),
            friction=body.get("friction", 0.0),
            armature=body.get("armature", 0.0),
        )
    for fr in spec.get("frames", []):
        b.add_frame(fr["name"], fr["body"], _pose(fr))
    return b.build()


def from_spec(spec: dict, **parameters: float) -> Model:
    """Build a Model from a robodyn robot description dict (the bundled JSON format).

    ``spec["format"]`` selects the builder: ``"builder"`` (a list of bodies with joint,
    placement ``xyz``/``rpy`` and inertia), ``"mr"`` (``M, Slist, Mlist, Glist``) or
    ``"dh"`` (a DH ``table`` with ``convention``, ``joint_types``, limits and per-link
    ``inertias``).

    Parameters
    ----------
    spec : dict
    **parameters : float
        Overrides of ``spec["parameters"]``; every ``"$name"`` in the spec takes its value.

    Returns
    -------
    Model
    """
    fmt = spec.get("format") if isinstance(spec, dict) else None
    if fmt is not None:
        spec = _with_parameters(spec, parameters)
    try:
        if fmt == "builder":
            return _from_builder_spec(spec)
        if fmt == "mr":
            from .model.poe import from_mr

            return from_mr(
                spec["M"],
                spec["Slist"],
                spec["Mlist"],
                spec["Glist"],
                gravity=spec.get("gravity", (0, 0, -9.81)),
                joint_types=spec.get("joint_types"),
                name=spec.get("name", "mr_robot"),
            )
        if fmt == "dh":
            from .model.dh import from_dh

            inertias = spec.get("inertias")
            if inertias is not None:
                inertias = [_inertia(d, f"inertias[{i}]") for i, d in enumerate(inertias)]
            return from_dh(
                spec["table"],
                convention=spec.get("convention", "standard"),
                joint_types=spec.get("joint_types"),
                inertias=inertias,
                gravity=spec.get("gravity", (0, 0, -9.81)),
                name=spec.get("name", "dh_robot"),
                lower=spec.get("lower"),
                upper=spec.get("upper"),
                velocity=spec.get("velocity"),
                effort=spec.get("effort"),
                tool=spec.get("tool"),
            )
    except KeyError as exc:
        raise ModelError(f"robot description ({fmt!r} format) is missing the key {exc}") from exc
    raise ModelError(f"unknown robot description format {fmt!r}: expected 'builder', 'mr' or 'dh'")
