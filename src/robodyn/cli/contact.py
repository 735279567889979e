"""``robodyn simulate --controller {force,hybrid,impedance,admittance} --environment table``:
the table preset and the force-side controllers of the command line (MR sec. 11.5-11.7).

The table is a plane ``--gap`` under the controlled frame at q0, normal up (world +z),
touched by the frame's origin. Every law's gains come from the frame's task-space inertia
Lambda at q0 (its diagonal, ``m_i``) and the closed-loop response ``--omega-n``,
``--zeta``, as :func:`robodyn.control.gains_for` does for joints: ``K = m omega_n^2``,
``B = 2 zeta omega_n m`` (impedance and admittance render the robot's own inertia,
``M = m``); force control damps with ``K_damp = B``. The force laws press ``--press``
newtons along -z of the world (in the frame's coordinates at q0), integral action on
that direction only.

* force: :class:`robodyn.control.ForceControl` presses on the table;
* hybrid: :class:`robodyn.control.HybridMotionForce` presses and wipes ``--wipe`` metres
  along the world's x in the first half of the run (natural constraint: the frame's
  velocity along the table's normal);
* impedance, admittance: :class:`robodyn.control.Impedance`,
  :class:`robodyn.control.Admittance` about the pose at q0 lowered 1 cm into the table
  (the virtual spring presses ``K_z`` x (1 cm - depth)).
"""

from __future__ import annotations

import numpy as np

FORCE_LAWS = ("force", "hybrid", "impedance", "admittance")
SINK = 0.01  # m: how far into the table impedance and admittance are told to go


def add_options(m) -> None:
    """The environment's and the force laws' options of ``robodyn simulate``."""
    from .common import nonnegative_float, positive_float

    m.add_argument("--environment", choices=("none", "table"), default=None,
                   help="table: a plane --gap under the controlled frame at --q0 (default "
                        "for the force, hybrid, impedance and admittance controllers; else "
                        "none)")  # fmt: skip
    m.add_argument("--frame", help="the controlled frame of the force-side controllers and "
                   "the table's contact point (default: the model's last frame)")  # fmt: skip
    m.add_argument(
        "--gap",
        type=nonnegative_float,
        default=0.002,
        help="the table's distance under the frame at --q0, m (default 0.002)",
    )
    m.add_argument(
        "--stiffness",
        type=positive_float,
        default=1e4,
        help="the table's stiffness, N/m (default 1e4)",
    )
    m.add_argument(
        "--contact-damping",
        type=nonnegative_float,
        default=100.0,
        help="the table's damping, N s/m (default 100)",
    )
    m.add_argument(
        "--friction",
        type=nonnegative_float,
        default=0.2,
        help="the table's friction coefficient (default 0.2)",
    )
    m.add_argument(
        "--press",
        type=positive_float,
        default=10.0,
        help="force and hybrid: the force pressed on the table, N (default 10)",
    )
    m.add_argument(
        "--kfp",
        type=nonnegative_float,
        default=0.5,
        help="force and hybrid: proportional force gain (default 0.5)",
    )
    m.add_argument("--kfi", type=nonnegative_float, default=10.0,
                   help="force and hybrid: integral force gain along the press, 1/s "
                        "(default 10)")  # fmt: skip
    m.add_argument(
        "--wipe",
        type=float,
        default=0.1,
        help="hybrid: the distance wiped along the world's x, m (default 0.1)",
    )


def frame_of(args, model) -> str:
    """``--frame`` (checked), or the model's last frame."""
    from ..errors import ModelError

    frame = args.frame if args.frame is not None else model.frame_names[-1]
    try:
        model.frame_id(frame)
    except ModelError as exc:
        raise ValueError(f"--frame: {exc}") from None
    return frame


def environment(args, model, q0):
    """The table of ``--environment table`` (None for none), and its height."""
    from ..kinematics import fk
    from ..sim.environment import ContactPoint, Environment, Plane

    kind = args.environment or ("table" if args.controller in FORCE_LAWS else "none")
    if kind == "none":
        return None, None
    frame = frame_of(args, model)
    z = float(fk(model, q0, frame)[2, 3]) - args.gap
    table = Plane([0.0, 0.0, z], [0.0, 0.0, 1.0], stiffness=args.stiffness,
                  damping=args.contact_damping, friction=args.friction)  # fmt: skip
    return Environment(model, [ContactPoint(frame)], [table]), z


def controller(args, model, q0, z_table):
    """The force-side law of ``--controller`` (None when it is not one)."""
    from .. import control
    from ..kinematics import fk
    from ..taskspace import task_space_inertia

    if args.controller not in FORCE_LAWS:
        return None
    if model.nv < 6:
        raise ValueError(f"--controller {args.controller} needs a robot of six joints or "
                         f"more (a frame's six task directions); {model.name!r} has "
                         f"{model.nv}")  # fmt: skip
    frame = frame_of(args, model)
    X0 = fk(model, q0, frame)
    try:
        m = np.diagonal(task_space_inertia(model, q0, frame)).copy()
    except ValueError as exc:
        raise ValueError(
            f"--q0: the frame {frame!r} has no task-space inertia there ({exc}); "
            "start from a configuration away from singularities"
        ) from None
    K, B = m * args.omega_n**2, 2.0 * args.zeta * args.omega_n * m
    down = X0[:3, :3].T @ [0.0, 0.0, -1.0]  # the press direction in the frame
    F_d = np.concatenate([np.zeros(3), args.press * down])
    kfi = np.zeros((6, 6))
    kfi[3:, 3:] = args.kfi * np.outer(down, down)  # integral action along the press
    if args.controller == "force":
        return control.ForceControl(model, frame, F_d, args.kfp, kfi, kdamp=B)
    X_a = X0.copy()
    if args.controller == "hybrid":
        if z_table is not None:
            X_a[2, 3] = z_table - args.press / args.stiffness  # at the depth of the press
        X_b = X_a.copy()
        X_b[0, 3] += args.wipe
        from ..trajectory import cartesian_trajectory

        ref = cartesian_trajectory(X_a, X_b, 0.5 * args.duration)
        A = np.concatenate([np.zeros(3), down])[None, :]  # no velocity along the normal
        return control.HybridMotionForce(
            model,
            frame,
            A,
            ref,
            F_d,
            args.omega_n**2,
            0.0,
            2.0 * args.zeta * args.omega_n,
            args.kfp,
            kfi,
        )
    X_a[2, 3] -= args.gap + SINK
    law = control.Impedance if args.controller == "impedance" else control.Admittance
    return law(model, frame, X_a, m, B, K)


def report(res, args) -> None:
    """The contact force at the end (and the force laws' error to --press)."""
    if res.contact_force is None:
        return
    f = res.contact_force[-1].sum(axis=0)
    print(f"  contact force (end) = {f} N (world axes)")
    if args.controller in ("force", "hybrid"):
        err = abs(f[2] - args.press) / args.press
        print(f"  |normal force - press| / press = {err:.3e}")
