"""What every subcommand of the ``robodyn`` command line shares (the bottom of ``cli/``).

Every subcommand takes its ROBOT the same way (:func:`resolve_robot`): a bundled robot's
name (:func:`robodyn.models.names`) or the path of a URDF (or robodyn JSON) file. Numbers
are read by argparse ``type=`` functions that name the option on bad input; files are
written under one output policy (:func:`check_output_path`, :func:`atomic_output`).
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .._files import output_option as check_output_path

__all__ = [
    "resolve_robot",
    "load_robot",
    "check_output_path",
    "check_output_dir",
    "distinct_outputs",
    "atomic_output",
    "finite_float",
    "positive_float",
    "nonnegative_float",
    "positive_int",
    "byte_size",
    "option_numbers",
    "FORCE_HELP",
    "ROBOT_HELP",
    "FLOATING_HELP",
    "DOCS_SITE",
    "DOCS_HELP",
]

ROBOT_HELP = "bundled robot name (pendulum, planar_2r, rp_arm, ur5, panda) or URDF path"
FLOATING_HELP = (
    "put the URDF's root link (an MJCF file's bodies welded to the world) on a free joint "
    "(robot files only)"
)
# the documentation site, built from docs/ (README, "Documentation")
DOCS_SITE = "the site built from docs/ (README, 'Documentation')"
DOCS_HELP = (
    f"Documentation, in {DOCS_SITE}: tutorials by Modern Robotics chapter "
    "(auto_tutorials/index.html), the API reference (api/index.html), every command (cli.html)."
)


# ------------------------------------------------------------------ number options
# argparse ``type=`` functions: a bad number is an argparse error naming the option
# ("argument --duration: not finite: 'nan'"), before any work.
# ------------------------------------------------------------------ number options
# argparse ``type=`` functions: a bad number is an argparse error naming the option
# ("argument --duration: not finite: 'nan'"), before any work.
def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def finite_float(text: str) -> float:
    """A finite number (``nan``, ``inf`` refused): argparse ``type=`` of number options."""
    x = _number(text)
    if not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"not finite: {text!r}")
    return x


def positive_float(text: str) -> float:
    """A finite number > 0 (a duration, a step, a density, a frequency)."""
    x = finite_float(text)
    if not x > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return x


def nonnegative_float(text: str) -> float:
    """A finite number >= 0 (a gain, a noise level, a standard deviation)."""
    x = finite_float(text)
    if not x >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return x


def byte_size(text: str) -> float:
    """A size in bytes: ``8e9``, ``500M``, ``8G``, ``1.5TB`` (powers of 1000; ``Gi``:
    1024^3)."""
    t = text.strip().upper().removesuffix("B")
    scale = 1.0
    for unit, power in (("KI", 1024), ("MI", 1024**2), ("GI", 1024**3), ("TI", 1024**4),
                        ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)):  # fmt: skip
        if t.endswith(unit):
            t, scale = t[: -len(unit)], float(power)
            break
    return positive_float(t) * scale


def positive_int(text: str) -> int:
    """A whole number >= 1 (a count: rollouts, points, chunk size)."""
    try:
        x = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if x < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text!r}")
    return x


def option_numbers(option: str, values, n: int, what: str):
    if values is None:
        return None
    x = np.asarray(values, dtype=float)
    if x.shape not in ((n,), (1,)):
        raise ValueError(f"{option} takes {n} numbers ({what}) or one for all, got {len(x)}")
    return np.broadcast_to(x, (n,)).copy()


# ------------------------------------------------------------------ robots and files
def resolve_robot(text: str):
    """The ROBOT argument of every subcommand: a bundled robot, or a robot file.

    Parameters
    ----------
    text : str
        A name from :func:`robodyn.models.names`, or the path of an existing file
        (URDF, MJCF, or robodyn's JSON format).

    Returns
    -------
    Model or pathlib.Path
        The bundled robot's Model, or the file's path (not read here: the model doctor
        reads a URDF that does not load).

    Raises
    ------
    ValueError
        Neither a bundled name nor an existing file; the message lists the bundled robots.
    """
    from .. import models

    if text in models.names():
        return models.load(text)
    path = Path(text)
    if path.is_file():
        return path
    bundled = ", ".join(models.names())
    what = "a folder, not a robot file" if path.is_dir() else "neither a bundled robot nor a file"
    raise ValueError(f"ROBOT {text!r} is {what}; bundled robots: {bundled}")


def load_robot(text: str, floating_base: bool = False):
    """The Model named by a ROBOT argument (see :func:`resolve_robot`).

    Parameters
    ----------
    text : str
        Bundled robot name or robot file path.
    floating_base : bool
        Put the URDF's root link, or an MJCF file's bodies welded to the world, on a free
        joint (``--floating-base``; robot files only).

    Returns
    -------
    Model
    """
    from .. import models
    from ..model.mjcf_xml import root_tag

    robot = resolve_robot(text)
    if not isinstance(robot, Path):
        if floating_base:
            raise ValueError(
                f"--floating-base applies to URDF files; the bundled robot {text!r} is fixed-base"
            )
        return robot
    if floating_base:
        if robot.suffix.lower() == ".json":
            raise ValueError(f"--floating-base applies to URDF and MJCF files, not {text!r}")
        if root_tag(robot) == "mujoco":
            from ..model.mjcf import load_mjcf

            return load_mjcf(str(robot), floating_base=True)
        from ..model.urdf import load_urdf

        return load_urdf(str(robot), floating_base=True)
    return models.load(robot)


FORCE_HELP = "overwrite existing output files (default: refuse them, exit status 2)"


def distinct_outputs(paths: dict) -> None:
    """Refuse two options that name one file (``--out run.npz --csv run.npz``): the second
    would replace the first (:func:`robodyn._files.distinct_outputs`)."""
    from .._files import distinct_outputs as distinct

    distinct({k: v for k, v in paths.items() if v is not None})


def check_output_dir(
    option: str,
    path: str | os.PathLike,
    files: Sequence[str] = (),
    *,
    default: str | os.PathLike | None = None,
    force: bool = False,
) -> Path:
    """Check, before any work, that the folder ``path`` can take a command's ``files``.

    The folder exists, or its parent does (the command creates this one last folder, as
    ``mkdir`` without ``-p``); only ``default`` (the option's default) may be created with
    its parents. None of ``files`` exists in it unless ``force``.

    Parameters
    ----------
    option : str
        The option that named the folder (``"--out"``), for the message.
    path : str or os.PathLike
    files : sequence of str
        Names of the files the command writes into the folder.
    default : str or os.PathLike, optional
        The option's default, created with its parents when missing.
    force : bool
        Allow overwriting existing files (the command's ``--force``).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        Naming the option, the path and what is wrong.
    """
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{option} {str(p)!r}: is a file, not a folder")
    if p.is_dir():
        existing = [name for name in files if (p / name).exists()]
        if existing and not force:
            raise ValueError(
                f"{option} {str(p)!r}: holds {', '.join(existing)} (an earlier run?); pass "
                "--force to overwrite, or give another folder"
            )
        parent = p
    elif default is not None and p == Path(default):
        parent = p.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir():
            raise ValueError(f"{option} {str(p)!r}: {str(parent)!r} is a file, not a folder")
    else:
        parent = p.parent
        if not parent.is_dir():
            raise ValueError(
                f"{option} {str(p)!r}: the folder {str(parent)!r} does not exist (only the "
                "last folder of the path is created)"
            )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {str(p)!r}: {str(parent)!r} is not writable")
    return p


def atomic_output(path: str | os.PathLike):
    """Write ``path`` atomically (:func:`robodyn._files.atomic_write`): yields a temporary
    path beside it that replaces ``path`` when the block ends without an error."""
    from .._files import atomic_write

    return atomic_write(path)
