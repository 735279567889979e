"""The ``robodyn`` command line: ``robodyn --help`` lists every subcommand.

Every subcommand takes its ROBOT the same way (:func:`resolve_robot`): a bundled robot's
name (:func:`robodyn.models.names`) or the path of a URDF (or robodyn JSON) file. Bad input
ends with one line on stderr and exit status 2. Output piped into a reader that stops early
(``robodyn fk panda | head -2``) ends quietly with status 141, the status of a process
ended by SIGPIPE, as ``yes | head`` ends.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = [
    "main",
    "build_parser",
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
]

# Exit status after the reader of stdout went away: 128 + SIGPIPE, as a killed process.
EXIT_BROKEN_PIPE = 141


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


# ------------------------------------------------------------------ output files and folders
# One policy for every subcommand (README, "Command line"), checked before any work:
# * a FILE option: its folder must exist (nothing is created), the path is not a folder;
# * a folder option (demo --out DIR): an existing folder, or one new folder in an existing
#   one (mkdir without -p); only the option's default is created with its parents;
# * an existing output file is never overwritten unless the command was given --force;
# * files are written atomically (atomic_output: a temporary file beside, then os.replace).

FORCE_HELP = "overwrite existing output files (default: refuse them, exit status 2)"


def check_output_path(
    option: str, path: str | os.PathLike, *, force: bool = False, inputs=()
) -> Path:
    """Check, before any work, that ``path`` can be written (its folder exists, is writable,
    ``path`` is not itself a folder nor one of ``inputs``, and it does not exist unless
    ``force``): :func:`robodyn._files.output_path` with the command line's words.

    Parameters
    ----------
    option : str
        The option that named the path (``"--latex"``), for the message.
    path : str or os.PathLike
    force : bool
        Allow overwriting an existing file (the command's ``--force``).
    inputs : iterable of paths
        Files the command reads (``check --fix`` may not write onto its URDF).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        Naming the option, the path and what is wrong.
    """
    from ._files import output_path

    try:
        return output_path(path, overwrite=force, name=option, inputs=inputs,
                           how="pass --force to overwrite it")  # fmt: skip
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None


def distinct_outputs(paths: dict) -> None:
    """Refuse two options that name one file (``--out run.npz --csv run.npz``): the second
    would replace the first (:func:`robodyn._files.distinct_outputs`)."""
    from ._files import distinct_outputs as distinct

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
    from ._files import atomic_write

    return atomic_write(path)


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import DEFAULT_OUT, figures, run_demo

    model = load_robot(args.robot)
    if args.no_figures:
        return run_demo(None, robot=model)
    out = check_output_dir("--out", args.out, figures(model), default=DEFAULT_OUT, force=args.force)
    return run_demo(out, robot=model, overwrite=args.force)


def _cmd_mobile(args: argparse.Namespace) -> int:
    from .mobile.demo import DEFAULT_OUT, figures, run_mobile_demo

    animate = not args.no_animation
    out = check_output_dir(
        "--out", args.out, figures(args.kind, animate), default=DEFAULT_OUT, force=args.force
    )
    return run_mobile_demo(args.kind, out, animate=animate, overwrite=args.force)


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
    if args.fix:  # never onto the URDF it corrects (nor a link to it)
        check_output_path("--fix", args.fix, force=args.force, inputs=(robot,))
    report = check_model(robot)
    print(report.format(args.only))
    if not args.fix:
        return 1 if report.errors else 0
    result = fix_urdf(robot, args.fix, density=args.density, overwrite=args.force)
    print(result)
    if result.after.errors:
        print(result.after.format(args.only))
    return 1 if result.after.errors else 0


def _severities(text: str) -> tuple[str, ...]:
    """``check --only``: a comma list of errors, warnings, info (singular or plural)."""
    from .model.doctor import SEVERITIES

    names = [w.strip().lower() for w in text.split(",") if w.strip()]
    names = [w[:-1] if w in ("errors", "warnings", "infos") else w for w in names]
    bad = [w for w in names if w not in SEVERITIES]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"{text!r}: give a comma list of errors, warnings, info")
    return tuple(names)


def _numbers(option: str, values, n: int, what: str):
    if values is None:
        return None
    x = np.asarray(values, dtype=float)
    if x.shape not in ((n,), (1,)):
        raise ValueError(f"{option} takes {n} numbers ({what}) or one for all, got {len(x)}")
    return np.broadcast_to(x, (n,)).copy()


def _controller(args, model, q0, target):
    """The controller of ``simulate --controller`` and its reference (None: none)."""
    from . import control

    if args.controller == "none":
        return None, None
    if target is None:
        raise ValueError(f"--controller {args.controller} needs --target (nq = {model.nq} numbers)")
    if args.controller == "computed-torque":  # gains on the error's acceleration: 1/s^2, 1/s
        kp_d, kd_d = args.omega_n**2, 2.0 * args.zeta * args.omega_n
    else:  # torque gains from each joint's own inertia at q0 (rd.control.gains_for)
        kp_d, kd_d = control.gains_for(model, args.zeta, args.omega_n, q=q0)
    kp = _numbers("--kp", args.kp, model.nv, "nv") if args.kp else kp_d
    kd = _numbers("--kd", args.kd, model.nv, "nv") if args.kd else kd_d
    if args.controller == "pd":
        return control.PD(model, target, kp, kd), None
    if args.controller == "gravity-pd":
        return control.PD(model, target, kp, kd, gravity_compensation=True), None
    if args.controller == "pid":
        ki_d = np.asarray(kp) * args.omega_n / 5.0  # the integral's poles at ~0.3 omega_n
        ki = _numbers("--ki", args.ki, model.nv, "nv") if args.ki else ki_d
        return control.PID(model, target, kp, ki, kd), None
    from .trajectory import joint_trajectory  # computed torque along a quintic to the target

    move = args.move_time if args.move_time else 0.5 * args.duration
    ref = joint_trajectory(q0, target, move, time_scaling="quintic")
    return control.ComputedTorque(model, ref, kp=kp, kd=kd), ref


def _keep_partial(model, exc, out) -> str:
    """Where the samples of a run that stopped are: ``--out`` (simulate saved them), else a
    new file in the current folder (or the temporary one), never over an existing file."""
    import tempfile

    if out is not None:
        return str(out)
    part = exc.partial
    stem = "".join(c if c.isalnum() or c in "._-" else "_" for c in model.name)
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        for k in range(1000):
            path = folder / f"robodyn-{stem}-partial{'' if k == 0 else f'-{k}'}.npz"
            try:
                with open(path, "xb"):  # claim the name: never over another file
                    pass
            except FileExistsError:
                continue
            except OSError:
                break
            part.save(path, overwrite=True)  # the empty file claimed above
            return str(path)
    return "nowhere (no writable folder)"


def _cmd_simulate(args: argparse.Namespace) -> int:
    import time

    from .errors import SimulationError, SimulationInterrupted
    from .model.configuration import neutral
    from .sim import simulate

    model = load_robot(args.robot, args.floating_base)
    paths = {}
    for option in ("out", "csv", "plot", "animate", "view"):
        value = getattr(args, option)
        if value is not None:
            paths[option] = check_output_path("--" + option, value, force=args.force)
    distinct_outputs({"--" + k: v for k, v in paths.items()})
    if "out" in paths and paths["out"].suffix != ".npz":
        raise ValueError(f"--out {args.out!r}: a trajectory file ends in .npz")
    q0 = _numbers("--q0", args.q0, model.nq, "nq") if args.q0 else neutral(model)
    v0 = _numbers("--v0", args.v0, model.nv, "nv") if args.v0 else np.zeros(model.nv)
    target = _numbers("--target", args.target, model.nq, "nq")
    ctrl, ref = _controller(args, model, q0, target)
    dt = args.dt
    if dt is None:  # 1 ms, or the step the gains and the URDF's joint damping need
        from .sim.stability import step_for

        dt, why = step_for(model, ctrl, q0, args.integrator, friction=not args.no_friction)
        if why is not None:
            print(f"robodyn simulate: dt = {dt:g} s (at the default 1 ms, {why})",
                  file=sys.stderr)  # fmt: skip
    steps = round(args.duration / dt)
    progress = args.progress or (steps >= 20000 and sys.stderr.isatty())
    t0 = time.perf_counter()
    try:
        res = simulate(
            model, q0, v0, controller=ctrl, duration=args.duration, dt=dt,
            integrator=args.integrator, control_dt=args.control_dt, friction=not args.no_friction,
            clip_torque=args.clip_torque, out=paths.get("out"), progress=progress,
            overwrite=args.force, max_memory=args.max_memory,
        )  # fmt: skip
    except SimulationInterrupted as exc:
        if len(exc.partial) == 0:
            print("robodyn simulate: interrupted (Ctrl-C) before the first step; nothing to "
                  "save", file=sys.stderr)  # fmt: skip
            return 130
        where = _keep_partial(model, exc, paths.get("out"))
        print(f"robodyn simulate: interrupted (Ctrl-C) at t = {exc.partial.t[-1]:g} s; the "
              f"{len(exc.partial)} samples simulated are in {where}", file=sys.stderr)  # fmt: skip
        return 130
    except SimulationError as exc:
        where = _keep_partial(model, exc, paths.get("out"))
        print(f"robodyn simulate: error: {exc.reason}. The {len(exc.partial)} samples before "
              f"it are in {where}", file=sys.stderr)  # fmt: skip
        return 1
    wall = time.perf_counter() - t0
    with np.printoptions(precision=5, suppress=True, linewidth=110):
        print(res)
        print(f"  simulated {args.duration:g} s in {wall:.3f} s ({res.meta['n_eval']} evaluations)")
        print(f"  q(end)   = {res.q[-1]}")
        if target is not None:
            print(f"  |target - q(end)| max = {np.max(np.abs(target - res.q[-1])):.3e} rad")
        if ctrl is not None:
            print(f"  max |tau| = {np.max(np.abs(res.tau), axis=0)} N m")
        E = res.energy()
        print(f"  energy: {E[0]:.6g} J -> {E[-1]:.6g} J")
    if "out" in paths:
        print(f"trajectory: {paths['out']}")
    if "csv" in paths:
        with atomic_output(paths["csv"]) as tmp:
            res.to_csv(tmp, overwrite=True)
        print(f"csv: {paths['csv']}")
    if "plot" in paths:
        with atomic_output(paths["plot"]) as tmp:
            res.plot(tmp, reference=ref if ref is not None else target, overwrite=True)
        print(f"figure: {paths['plot']}")
    if "animate" in paths:
        from .sim.plot import animate

        with atomic_output(paths["animate"]) as tmp:
            animate(res, tmp, overwrite=True)  # tmp exists: atomic_output made it
        print(f"animation: {paths['animate']}")
    if "view" in paths:
        from .viz.cli import write_view

        kw = dict(search_path=args.mesh_path, allow_outside=args.allow_outside)
        if args.max_triangles is not None:
            kw["max_triangles"] = args.max_triangles
        write_view(model, paths["view"], trajectory=res, **kw)
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from .sweep import command

    return command(args)


def _cmd_view(args: argparse.Namespace) -> int:
    from .viz.cli import view_command

    return view_command(args)


def _cmd_identify(args: argparse.Namespace) -> int:
    from .ident.cli import identify_command

    return identify_command(args)


def _cmd_derive(args: argparse.Namespace) -> int:
    from .symbolic.cli import derive_command

    return derive_command(args)


_ROBOT_HELP = "bundled robot name (pendulum, planar_2r, rp_arm, ur5, panda) or URDF path"
_FLOATING_HELP = "put the URDF's root link on a free joint (URDF files only)"
# the documentation site, built from docs/ (README, "Documentation")
_DOCS_SITE = "the site built from docs/ (README, 'Documentation')"
_DOCS_HELP = (
    f"Documentation, in {_DOCS_SITE}: tutorials by Modern Robotics chapter "
    "(auto_tutorials/index.html), the API reference (api/index.html), every command (cli.html)."
)


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's word on bad input: one line on stderr, exit status 2 (the
    usage is one ``--help`` away). Subcommands' parsers are of this class too."""

    # what reads as a negative number, not an option: argparse's own pattern knows -1 and
    # -.5 but not -1e-3 or -2.5E+2 (so "--target -1e-3" was "expected one argument")
    _NEGATIVE = re.compile(r"^-((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)$", re.I)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = self._NEGATIVE

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# Subcommands that write files: --force lets them overwrite existing ones.
_WRITERS = ("demo", "mobile", "derive", "identify", "check", "view", "simulate")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    p = _Parser(
        prog="robodyn",
        description="Mechanics of robots and rigid bodies (Modern Robotics notation).",
        epilog="ROBOT is a bundled robot name or a URDF path. 'robodyn COMMAND --help' shows "
        "the options of a command. " + _DOCS_HELP,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", help="one of:")
    sub.required = True

    d = sub.add_parser("demo", help="run the main job on a bundled robot and write figures")
    d.add_argument("--out", default="out/demo", metavar="DIR", help="folder for the figures "
                   "(default out/demo; a new folder's parent must exist)")  # fmt: skip
    d.add_argument("--robot", default="ur5", help=_ROBOT_HELP + " (default ur5)")
    d.add_argument("--no-figures", action="store_true", help="print the numbers only (no --out)")
    d.set_defaults(func=_cmd_demo)

    i = sub.add_parser("info", help="tree, joints with limits, masses, nq/nv of a robot")
    i.add_argument("robot", metavar="ROBOT", help=_ROBOT_HELP)
    i.add_argument("--floating-base", action="store_true", help=_FLOATING_HELP)
    i.set_defaults(func=_cmd_info)

    f = sub.add_parser("fk", help="forward kinematics: pose of a frame (or all) at q")
    f.add_argument("robot", metavar="ROBOT", help=_ROBOT_HELP)
    f.add_argument(
        "--q", type=finite_float, nargs="+", help="configuration, nq numbers (default: neutral)"
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
    c.add_argument("--density", type=positive_float, default=1000.0,
                   help="density for --fix (kg/m^3, default 1000)")  # fmt: skip
    shown = c.add_mutually_exclusive_group()
    shown.add_argument(
        "-q",
        "--quiet",
        dest="only",
        action="store_const",
        const=("error", "warning"),
        default=("error", "warning", "info"),
        help="list errors and warnings only (the summary line counts all)",
    )
    shown.add_argument(
        "--only",
        type=_severities,
        default=("error", "warning", "info"),
        metavar="LIST",
        help="list these severities only: a comma list of errors, warnings, info "
        "(default all; the summary line counts all)",
    )
    c.set_defaults(func=_cmd_check)

    # Listed for --help; main() hands "bench ..." to robodyn.bench.main before parsing.
    sub.add_parser(
        "bench", help="benchmark against Pinocchio, MuJoCo, modern_robotics (bench --help)"
    )

    m = sub.add_parser(
        "simulate",
        help="simulate a robot under a controller; trajectory, figure, animation",
        description="Simulate ROBOT from --q0 under a controller (no contact model: links "
        "pass through each other and the ground). Writes the trajectory (--out .npz, --csv), "
        "a figure (--plot) and an animation (--animate .gif/.mp4).",
        epilog="Default gains: every joint gets the same closed-loop response, natural "
        "frequency --omega-n (10 rad/s) and damping ratio --zeta (1). For pd, gravity-pd and "
        "pid the torque gains come from each joint's own inertia M_jj at --q0 "
        "(rd.control.gains_for: kp = M_jj omega_n^2, kd = 2 zeta omega_n M_jj, ki = kp omega_n/5); "
        "computed torque divides by M itself, so kp = omega_n^2, kd = 2 zeta omega_n. A step "
        "--dt too large for the gains is warned about, with the step to use (rd.sim."
        "stable_step). Ctrl-C stops the run and keeps what it simulated (in --out, or in a "
        "new file it names), exit status 130. "
        f"Documentation: cli.html#robodyn-simulate of {_DOCS_SITE}.",
    )
    m.add_argument("robot", metavar="ROBOT", help=_ROBOT_HELP)
    m.add_argument(
        "--controller",
        choices=("none", "pd", "gravity-pd", "pid", "computed-torque"),
        default="none",
        help="none (free motion), pd, gravity-pd (PD + gravity compensation), pid, or "
        "computed-torque along a quintic to --target (default none)",
    )
    m.add_argument(
        "--target", type=finite_float, nargs="+", help="target configuration (nq numbers, rad)"
    )
    m.add_argument(
        "--q0", type=finite_float, nargs="+", help="initial configuration (default: neutral)"
    )
    m.add_argument("--v0", type=finite_float, nargs="+", help="initial velocity (default: zero)")
    m.add_argument(
        "--omega-n",
        type=positive_float,
        default=10.0,
        help="the default gains' closed-loop natural frequency, rad/s (default 10)",
    )
    m.add_argument(
        "--zeta",
        type=nonnegative_float,
        default=1.0,
        help="the default gains' damping ratio (default 1: critically damped)",
    )
    m.add_argument(
        "--kp",
        type=nonnegative_float,
        nargs="+",
        help="proportional gain(s), one or nv numbers (default: see below)",
    )
    m.add_argument(
        "--kd", type=nonnegative_float, nargs="+", help="derivative gain(s) (default: see below)"
    )
    m.add_argument(
        "--ki",
        type=nonnegative_float,
        nargs="+",
        help="integral gain(s) of pid (default kp omega_n/5)",
    )
    m.add_argument(
        "--move-time",
        type=positive_float,
        help="computed-torque: seconds of the quintic move (default half the duration)",
    )
    m.add_argument(
        "--duration", type=positive_float, default=5.0, help="seconds simulated (default 5)"
    )
    m.add_argument(
        "--dt",
        type=positive_float,
        help="sample step, s (default 1e-3, or the "
        "stable step when 1e-3 is too large for the gains or the joint damping: "
        "said on stderr)",
    )
    m.add_argument(
        "--integrator",
        default="rk4",
        choices=("rk4", "semi_implicit_euler", "euler", "rk45", "dop853", "radau"),
        help="integration method (default rk4)",
    )
    m.add_argument(
        "--control-dt",
        type=positive_float,
        help="hold the torque for this period, s (zero-order hold; default: continuous)",
    )
    m.add_argument("--max-memory", type=byte_size, metavar="SIZE", help="memory the samples "
                   "may take, e.g. 8G (default: the memory available); a longer run is refused "
                   "before it starts")  # fmt: skip
    m.add_argument("--no-friction", action="store_true", help="leave the joint friction out")
    m.add_argument("--clip-torque", action="store_true", help="clip torques to effort limits")
    m.add_argument(
        "--out",
        metavar="FILE.npz",
        help="write the trajectory (.npz), streamed "
        "while simulating; a run that fails or is interrupted keeps its samples there",
    )
    m.add_argument("--csv", metavar="FILE", help="write the trajectory as CSV")
    m.add_argument("--plot", metavar="FILE", help="write a figure of q, v, tau against time")
    m.add_argument("--animate", metavar="FILE", help="write an animation (.gif or .mp4)")
    m.add_argument("--view", metavar="FILE", help="write a 3-D view of the run (.html)")
    m.add_argument("--mesh-path", action="append", default=[], metavar="DIR",
                   help="--view: folder to search for package:// and relative meshes")  # fmt: skip
    m.add_argument("--allow-outside", action="store_true", help="--view: also read meshes "
                   "outside the allowed roots (for a URDF you trust)")  # fmt: skip
    m.add_argument("--max-triangles", type=positive_int, default=None,
                   help="--view: triangle budget of the page (default 1500000)")  # fmt: skip
    m.add_argument("--progress", action="store_true", help="show a progress bar")
    m.add_argument("--floating-base", action="store_true", help=_FLOATING_HELP)
    m.set_defaults(func=_cmd_simulate)

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

    w = sub.add_parser(
        "mobile", help="wheeled-robot demo (MR ch. 13): prints numbers, writes figures"
    )
    w.add_argument(
        "kind",
        choices=("unicycle", "diffdrive", "car", "omni", "mecanum", "youbot"),
        help="robot type: unicycle, diffdrive, car, omni, mecanum or youbot (the MR capstone)",
    )
    w.add_argument("--out", default="out/mobile", metavar="DIR", help="folder for the figures "
                   "(default out/mobile; a new folder's parent must exist)")  # fmt: skip
    w.add_argument("--no-animation", action="store_true", help="skip the GIF")
    w.set_defaults(func=_cmd_mobile)
    w = sub.add_parser("sweep", help="Monte-Carlo rollouts or a workspace map on Dask (Zarr, "
                       "resumable)")  # fmt: skip
    from .sweep import add_arguments as _sweep_arguments

    _sweep_arguments(w)
    w.set_defaults(func=_cmd_sweep)
    from .viz.cli import add_view_parser

    add_view_parser(sub, _ROBOT_HELP, _FLOATING_HELP).set_defaults(func=_cmd_view)

    from .ident.cli import add_arguments as _identify_arguments

    n = sub.add_parser(
        "identify",
        help="identify inertial parameters and friction from data",
        description="Identify ROBOT's inertial parameters, joint friction and "
        "armature from DATA.csv (or from an experiment simulated with "
        "--simulate); prints OLS, WLS and physically consistent estimates.",
    )
    n.add_argument("robot", metavar="ROBOT", help=_ROBOT_HELP)
    _identify_arguments(n)
    n.set_defaults(func=_cmd_identify)

    for name in _WRITERS:  # one output policy (check_output_path, check_output_dir)
        command = sub.choices[name]
        if "--force" not in command._option_string_actions:
            command.add_argument("--force", action="store_true", help=FORCE_HELP)
    for name, command in sub.choices.items():  # each command's help names its page
        command.epilog = (
            command.epilog or f"Documentation: cli.html#robodyn-{name} of {_DOCS_SITE}."
        )
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
    except RuntimeError as exc:  # SimulationError: what was simulated is in --out
        from .errors import SimulationError

        if not isinstance(exc, SimulationError):
            raise
        print(f"robodyn {args.command}: error: {exc}", file=sys.stderr)
        return 1


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as one line on stderr: ``robodyn: SimulationWarning: ...``."""
    print(f"robodyn: {category.__name__}: {message}", file=sys.stderr if file is None else file)


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
            with warnings.catch_warnings():  # one line per warning, as errors are
                warnings.showwarning = _show_warning
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
