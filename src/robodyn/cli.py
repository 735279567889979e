"""The ``robodyn`` command line: ``robodyn --help`` lists every subcommand.

Every subcommand takes its ROBOT the same way (:func:`resolve_robot`): a bundled robot's
name (:func:`robodyn.models.names`) or the path of a URDF (or robodyn JSON) file. Bad input
ends with one line on stderr and exit status 2. Output piped into a reader that stops early
(``robodyn fk panda | head -2``) ends quietly with status 141, the status of a process
ended by SIGPIPE, as ``yes | head`` ends.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["main", "build_parser", "resolve_robot", "load_robot", "check_output_path"]

# Exit status after the reader of stdout went away: 128 + SIGPIPE, as a killed process.
EXIT_BROKEN_PIPE = 141


def resolve_robot(text: str):
    """The ROBOT argument of every subcommand: a bundled robot, or a robot file.

    Parameters
    ----------
    text : str
        A name from :func:`robodyn.models.names`, or the path of an existing file
        (URDF, or robodyn's JSON format).

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
    from . import models

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
        Put the URDF's root link on a free joint (``--floating-base``; URDF files only).

    Returns
    -------
    Model
    """
    from . import models

    robot = resolve_robot(text)
    if not isinstance(robot, Path):
        if floating_base:
            raise ValueError(
                f"--floating-base applies to URDF files; the bundled robot {text!r} is fixed-base"
            )
        return robot
    if floating_base:
        if robot.suffix.lower() == ".json":
            raise ValueError(f"--floating-base applies to URDF files, not {text!r}")
        from .model.urdf import load_urdf

        return load_urdf(str(robot), floating_base=True)
    return models.load(robot)


def check_output_path(option: str, path: str | os.PathLike) -> Path:
    """Check, before any work, that ``path`` can be written (its folder exists, is writable,
    and ``path`` is not itself a folder).

    Parameters
    ----------
    option : str
        The option that named the path (``"--latex"``), for the message.
    path : str or os.PathLike

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        Naming the option, the path and what is wrong.
    """
    p = Path(path)
    folder = p.parent
    if p.is_dir():
        raise ValueError(f"{option} {str(p)!r}: is a folder; give a file name")
    if not folder.is_dir():
        raise ValueError(f"{option} {str(p)!r}: the folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ValueError(f"{option} {str(p)!r}: not writable")
    return p


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(args.out, robot=load_robot(args.robot))


def _limit(x: float) -> str:
    """A joint limit for the info table: "none" where the model has no limit (+-inf)."""
    return "none" if np.isinf(x) else f"{x:.4g}"


def _cmd_info(args: argparse.Namespace) -> int:
    model = load_robot(args.robot, args.floating_base)
    print(model)
    print(f"  nq = {model.nq}, nv = {model.nv}, total mass = {model.total_mass:.6g} kg")
    if model.nv:
        print("  joint                      lower       upper       velocity    effort")
        for name in model.joint_names:
            i = model.joint_id(name)
            qa, va = int(model.jnt_qadr[i]), int(model.jnt_vadr[i])
            if int(model.jnt_nq[i]) != 1:
                print(f"  {name:<26} (free joint: nq = 7, nv = 6)")
                continue
            limits = (model.q_lower[qa], model.q_upper[qa], model.v_limit[va])
            print(
                f"  {name:<26} "
                + "".join(f"{_limit(x):<12}" for x in limits)
                + _limit(model.effort_limit[va])
            )
    for note in model.notes:
        print(f"  note: {note}")
    from .kernels import core

    print(f"  compiled core: robodyn.kernels._core, batches on {core.threads()} thread(s)")
    return 0


def _cmd_fk(args: argparse.Namespace) -> int:
    from .kinematics import fk
    from .model.configuration import neutral

    model = load_robot(args.robot, args.floating_base)
    q = neutral(model) if args.q is None else np.asarray(args.q, dtype=float)
    frames = [args.frame] if args.frame else list(model.frame_names)
    with np.printoptions(precision=6, suppress=True):
        for f in frames:
            print(f"{f}:\n{fk(model, q, f)}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .model.doctor import check_model, fix_urdf

    robot = resolve_robot(args.robot)
    if args.fix and not isinstance(robot, (str, Path)):
        print(
            f"robodyn check: error: --fix corrects a URDF file; {args.robot!r} is a bundled "
            "model (nothing to write)",
            file=sys.stderr,
        )
        return 2
    report = check_model(robot)
    print(report)
    if not args.fix:
        return 1 if report.errors else 0
    result = fix_urdf(robot, args.fix, density=args.density)
    print(result)
    if result.after.errors:
        print(result.after)
    return 1 if result.after.errors else 0


def _cmd_derive(args: argparse.Namespace) -> int:
    from .symbolic.cli import derive_command

    return derive_command(args)


_ROBOT_HELP = "bundled robot name (pendulum, planar_2r, rp_arm, ur5, panda) or URDF path"
_FLOATING_HELP = "put the URDF's root link on a free joint (URDF files only)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    p = argparse.ArgumentParser(
        prog="robodyn",
        description="Mechanics of robots and rigid bodies (Modern Robotics notation).",
        epilog="ROBOT is a bundled robot name or a URDF path. 'robodyn COMMAND --help' shows "
        "the options of a command.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", help="one of:")
    sub.required = True

    d = sub.add_parser("demo", help="run the main job on a bundled robot and write figures")
    d.add_argument("--out", default="out/demo", help="folder for the figures (default out/demo)")
    d.add_argument("--robot", default="ur5", help=_ROBOT_HELP + " (default ur5)")
    d.set_defaults(func=_cmd_demo)

    i = sub.add_parser("info", help="tree, joints with limits, masses, nq/nv of a robot")
    i.add_argument("robot", metavar="ROBOT", help=_ROBOT_HELP)
    i.add_argument("--floating-base", action="store_true", help=_FLOATING_HELP)
    i.set_defaults(func=_cmd_info)

    f = sub.add_parser("fk", help="forward kinematics: pose of a frame (or all) at q")
    f.add_argument("robot", metavar="ROBOT", help=_ROBOT_HELP)
    f.add_argument(
        "--q", type=float, nargs="+", help="configuration, nq numbers (default: neutral)"
    )
    f.add_argument("--frame", help="frame name (default: all frames)")
    f.add_argument("--floating-base", action="store_true", help=_FLOATING_HELP)
    f.set_defaults(func=_cmd_fk)

    c = sub.add_parser("check", help="model doctor: what would make dynamics silently wrong")
    c.add_argument("robot", help="bundled robot name or URDF path")
    c.add_argument(
        "--fix",
        metavar="OUT",
        help="write a corrected copy of the URDF to OUT, list each change, exit 1 if errors remain",
    )
    c.add_argument("--density", type=float, default=1000.0, help="density for --fix (kg/m^3)")
    c.set_defaults(func=_cmd_check)

    # Listed for --help; main() hands "bench ..." to robodyn.bench.main before parsing.
    sub.add_parser(
        "bench", help="benchmark against Pinocchio, MuJoCo, modern_robotics (bench --help)"
    )

    s = sub.add_parser("derive", help="symbolic equations of motion of a robot")
    s.add_argument("robot", metavar="ROBOT", help=_ROBOT_HELP)
    s.add_argument(
        "--symbolic-parameters",
        action="store_true",
        help="masses, lengths, inertias and g as named symbols (default: the model's numbers)",
    )
    s.add_argument("--latex", metavar="FILE", help="write M, C, g as LaTeX to FILE")
    s.add_argument("--python", metavar="FILE", help="write a Python module computing M, C, g")
    s.set_defaults(func=_cmd_derive)
    return p


def _run(argv: list[str]) -> int:
    if argv[:1] == ["bench"]:  # the benchmark parses its own options (and its own --help)
        from .bench import main as bench_main

        return bench_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        raise
    except (ValueError, OSError) as exc:  # ModelError is a ValueError
        print(f"robodyn {args.command}: error: {exc}", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``robodyn`` console script.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``robodyn``; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status: 0 on success, 1 when ``check`` finds errors or ``bench`` a failed
        equality check, 2 on bad input (one line on stderr), 130 on Ctrl-C and 141 when
        the reader of stdout closed it early (``robodyn fk panda | head -2``), silently.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            code = _run(argv)
        finally:  # also after --help (SystemExit): a closed pipe shows here, not at exit
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
