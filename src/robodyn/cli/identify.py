"""``robodyn identify ROBOT [DATA.csv]``: identify a robot's parameters from a CSV of
measured motion, or from an experiment it simulates itself (``--simulate FILE``)."""

from __future__ import annotations

import argparse

import numpy as np

from .common import (
    ROBOT_HELP,
    atomic_output,
    check_output_path,
    distinct_outputs,
    finite_float,
    load_robot,
    nonnegative_float,
    positive_float,
)

__all__ = ["add_parser", "command"]


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn identify``: its parser."""
    n = sub.add_parser(
        "identify",
        help="identify inertial parameters and friction from data",
        description="Identify ROBOT's inertial parameters, joint friction and "
        "armature from DATA.csv (or from an experiment simulated with "
        "--simulate); prints OLS, WLS and physically consistent estimates.",
    )
    n.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    _add_arguments(n)
    n.set_defaults(func=command)
    return n


def _add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``robodyn identify`` after ROBOT."""
    p.add_argument(
        "data",
        metavar="DATA.csv",
        nargs="?",
        help="samples: header t, q[joint]..., v[joint]..., a[joint]... (optional: "
        "else differentiated), tau[joint]... (robodyn.ident.save_csv's format)",
    )
    p.add_argument(
        "--simulate",
        metavar="FILE",
        help="first simulate an experiment on ROBOT (the truth, with joint friction) "
        "tracking an exciting trajectory, add noise, and write it to FILE (CSV); "
        "identifies from FILE when DATA.csv is not given",
    )
    p.add_argument(
        "--method",
        choices=("ols", "wls", "consistent", "all"),
        default="all",
        help="estimator (default all three)",
    )
    p.add_argument(
        "--noise",
        type=nonnegative_float,
        default=0.1,
        help="--simulate: torque noise, fraction of each joint's torque std (default 0.1)",
    )
    p.add_argument(
        "--duration",
        type=positive_float,
        default=20.0,
        help="--simulate: seconds (default 20: two periods of 10 s)",
    )
    p.add_argument(
        "--friction",
        type=nonnegative_float,
        nargs=2,
        metavar=("VISCOUS", "COULOMB"),
        default=(0.5, 0.3),
        help="--simulate: joint friction of the true robot when "
        "its model has none (default 0.5 N m s/rad, 0.3 N m)",
    )
    p.add_argument(
        "--prior-error",
        type=nonnegative_float,
        default=0.3,
        help="--simulate: the prior model's masses and inertias are the truth's "
        "scaled by random factors within +-this fraction, in [0, 1) (default 0.3)",
    )
    p.add_argument("--offset", action="store_true", help="identify torque offsets too")
    p.add_argument(
        "--held-out",
        type=finite_float,
        default=0.3,
        help="fraction of the samples (the last ones) kept to test the prediction (default 0.3)",
    )
    p.add_argument(
        "--cutoff",
        type=positive_float,
        metavar="HZ",
        help="low-pass q, v and tau at HZ (zero-phase Butterworth) and take the "
        "accelerations from the filtered v (default: the data as given)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--plot", metavar="FILE", help="figure of measured vs predicted torques "
                   "and the base-parameter errors")  # fmt: skip


def _scaled_prior(model, spread: float, rng):
    """The model with each body's mass and inertia scaled by its own factor in
    [1 - spread, 1 + spread] (every body stays physical; the CoMs stay)."""
    from ..model.parameters import parameters, with_parameters

    pi = parameters(model)
    nb = model.nb - 1
    f = rng.uniform(1 - spread, 1 + spread, nb)
    pi[: 10 * nb] *= np.repeat(f, 10)
    return with_parameters(model, pi)


def command(args: argparse.Namespace) -> int:
    """Run ``robodyn identify``: check the outputs, make or read the data, identify by each
    method, compare with the truth (or the model) and on held-out samples, plot."""
    from ..ident.base import base_parameters
    from ..ident.estimate import identify

    model = load_robot(args.robot)
    plot, out = _checked_outputs(args)
    rng = np.random.default_rng(args.seed)
    truth, prior, ex = None, model, None
    if out is not None:
        truth, ex = _simulated_experiment(args, model, out)
        prior = _scaled_prior(model, args.prior_error, rng)
    if args.data is not None:
        from ..ident.data import load_csv

        ex = load_csv(args.data, model)
    if args.cutoff is not None:
        from ..ident.data import filtered

        ex = filtered(ex, args.cutoff)
        print(f"filtered at {args.cutoff:g} Hz (zero phase); accelerations from filtered v")
    n_fit = max(1, int(round((1.0 - args.held_out) * len(ex))))
    fit, test = ex.split(n_fit / len(ex))
    base = base_parameters(model, offset=args.offset)
    methods = ("ols", "wls", "consistent") if args.method == "all" else (args.method,)
    results = {}
    for m in methods:
        res = identify(prior, fit.q, fit.v, fit.a, fit.tau, m, offset=args.offset, base=base)
        results[m] = res
        print()
        print(res.report())
    print()
    print(f"base parameters ({base.rank}):")
    print(base.table())
    print()
    _compare(args, model, base, truth, results, test)
    if plot is not None:
        from ..ident.plot import plot_identification

        t_held = float(test.t[0]) if len(test) else None
        with atomic_output(plot) as tmp:
            plot_identification(results, ex, tmp, truth=truth, held_out=t_held, overwrite=True)
        print(f"figure: {plot}")
    return 0


def _checked_outputs(args):
    """(--plot, --simulate) paths checked before any work (None where not given), and
    the numbers that would make the run meaningless refused."""
    if args.data is None and args.simulate is None:
        raise ValueError("give DATA.csv, or --simulate FILE to make the data first")
    data = (args.data,) if args.data else ()  # never written over
    plot = (
        check_output_path("--plot", args.plot, force=args.force, inputs=data) if args.plot else None
    )
    out = (
        check_output_path("--simulate", args.simulate, force=args.force, inputs=data)
        if args.simulate
        else None
    )
    distinct_outputs({"--plot": plot, "--simulate": out})
    if not 0.0 <= args.held_out < 1.0:
        raise ValueError(f"--held-out must be in [0, 1), got {args.held_out}")
    if not args.prior_error < 1.0:  # a factor 1 - prior_error <= 0 is no mass at all
        raise ValueError(f"--prior-error must be in [0, 1), got {args.prior_error}")
    return plot, out


def _simulated_experiment(args, model, out):
    """--simulate: the true robot (with joint friction), an exciting trajectory tracked on
    it with noise, written to ``out``; returns (the true parameters, the experiment)."""
    from ..ident.data import save_csv, simulate_experiment
    from ..ident.excitation import excitation_trajectory
    from ..model.parameters import parameters, with_parameters

    pi = parameters(model)
    lay_v = slice(10 * (model.nb - 1), 10 * (model.nb - 1) + model.nv)
    if not np.any(pi[lay_v]) and not np.any(model.dof_friction):
        pi[lay_v] = args.friction[0]
        pi[lay_v.stop : lay_v.stop + model.nv] = args.friction[1]
    true = with_parameters(model, pi)
    truth = parameters(true, offset=args.offset)
    print(f"simulating {model.name!r}: exciting Fourier trajectory, {args.duration:g} s ...")
    traj = excitation_trajectory(true, period=10.0, harmonics=5, maxiter=5, seed=args.seed)
    ex = simulate_experiment(
        true, traj, duration=args.duration, sample_dt=0.01, noise=args.noise, seed=args.seed
    )
    with atomic_output(out) as tmp:
        save_csv(tmp, true, ex, overwrite=True)
    print(f"data: {out} ({len(ex)} samples, torque noise {args.noise:g} x std)")
    return truth, ex


def _compare(args, model, base, truth, results, test) -> None:
    """Each estimate's base parameters against the truth (or the model's), and its torque
    error on the held-out samples."""
    from ..model.parameters import parameters

    ref_name = "the truth" if truth is not None else "the model's parameters"
    ref = base(truth) if truth is not None else base(parameters(model, offset=args.offset))
    for m, res in results.items():
        err = np.linalg.norm(res.base_parameters - ref) / max(np.linalg.norm(ref), 1e-300)
        line = f"{m:>10}: base parameters {100 * err:.3g} % from {ref_name} (norm)"
        if len(test):
            rms = np.sqrt(np.mean((res.predict(test.q, test.v, test.a) - test.tau) ** 2))
            line += f"; held-out torque RMS {rms:.4g} N m ({len(test)} samples)"
        line += "; physical" if res.physical else "; NOT physical"
        print(line)
