"""``robodyn sweep KIND ROBOT``: Monte-Carlo rollouts or a workspace map on Dask (Zarr,
resumable), and ``robodyn sweep verify STORE``."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from ..distributed.sweep import (
    _count_words,
    _threads,
    check_workspace_memory,
    monte_carlo,
    workspace_grid,
    workspace_map,
    workspace_memory,
)
from .common import (
    check_output_path,
    finite_float,
    load_robot,
    nonnegative_float,
    option_numbers,
    positive_float,
    positive_int,
)

__all__ = ["add_parser", "command"]


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn sweep``: its parser."""
    w = sub.add_parser("sweep", help="Monte-Carlo rollouts or a workspace map on Dask (Zarr, "
                       "resumable)")  # fmt: skip
    _add_arguments(w)
    w.set_defaults(func=command)
    return w


def memory_size(text: str) -> int:
    """``--max-memory``: bytes, as 8e9, 8G, 8GB, 512M, 512MB or 1.5T (powers of 1000)."""
    import argparse
    import re

    m = re.fullmatch(r"\s*([0-9.]+(?:[eE][+-]?[0-9]+)?)\s*([kKMGTP]?)B?\s*", text)
    scale = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
    try:
        value = float(m.group(1)) * scale[m.group(2)] if m else float("nan")
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"a size in bytes such as 8G or 500MB, got {text!r}")
    return int(value)


def _add_arguments(p) -> None:
    """The options of ``robodyn sweep``."""
    p.add_argument("kind", choices=("montecarlo", "workspace", "verify"),
                   help="montecarlo: rollouts of a gravity-compensated PD controller on "
                   "robots with random masses and friction; workspace: frame position and "
                   "manipulability over a joint grid; verify: check a store's every chunk "
                   "against its checksums (robodyn sweep verify STORE)")  # fmt: skip
    p.add_argument("robot", metavar="ROBOT", help="bundled robot name or URDF path (for "
                   "verify: the store)")  # fmt: skip
    p.add_argument("--out", metavar="STORE", help="Zarr store (a new folder, e.g. sweep.zarr, "
                   "in an existing one) the chunks stream to")  # fmt: skip
    p.add_argument("--resume", action="store_true", help="finish an interrupted --out store "
                   "(refused if it was written for other settings, naming them; chunks that "
                   "fail their checksums are computed again)")  # fmt: skip
    p.add_argument("--scheduler-address", metavar="ADDR", help="a running Dask scheduler, "
                   "e.g. tcp://10.0.0.1:8786 (default: --workers local processes)")  # fmt: skip
    p.add_argument("--workers", type=int, default=0, help="local worker processes (default 0: "
                   "Dask's local threads, no cluster)")  # fmt: skip
    p.add_argument("--chunk", type=positive_int, help="items per task (default 1000 rollouts, "
                   "100000 grid points)")  # fmt: skip
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    mc = p.add_argument_group("montecarlo")
    mc.add_argument("--n", type=positive_int, default=1000, help="rollouts (default 1000)")
    mc.add_argument("--duration", type=positive_float, default=1.0,
                    help="seconds per rollout (default 1)")  # fmt: skip
    mc.add_argument("--dt", type=positive_float, default=1e-3, help="step, s (default 1e-3)")
    mc.add_argument("--target", type=finite_float, nargs="+", help="PD target (nq numbers or "
                    "one for all; default neutral + 0.3 rad)")  # fmt: skip
    mc.add_argument("--kp", type=nonnegative_float, default=100.0,
                    help="proportional gain (default 100)")  # fmt: skip
    mc.add_argument("--kd", type=nonnegative_float, default=20.0,
                    help="derivative gain (default 20)")  # fmt: skip
    mc.add_argument("--mass-sigma", type=nonnegative_float, default=0.1,
                    help="std of log mass factors (default 0.1)")  # fmt: skip
    mc.add_argument("--friction-sigma", type=nonnegative_float, default=0.2,
                    help="std of log friction factors (default 0.2)")  # fmt: skip
    mc.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ws = p.add_argument_group("workspace")
    ws.add_argument("--frame", help="operational frame (default: the last)")
    ws.add_argument("--joints", nargs="+", metavar="JOINT",
                    help="joints swept: names (joint2) or numbers counted from 1 in the order "
                    "'robodyn info' lists them (1 is the first joint, not q[1]); a name is "
                    "read first (default: the first three joints)")  # fmt: skip
    ws.add_argument("--points", type=positive_int, default=50,
                    help="values per joint (default 50)")  # fmt: skip
    ws.add_argument("--part", default="linear", help="Jacobian rows: linear (default, "
                    "position manipulability), angular, full, or row indices as 3,4")  # fmt: skip
    ws.add_argument("--max-memory", type=memory_size, metavar="SIZE", help="memory the map "
                    "may take, e.g. 8G (default: the memory available); estimated before it "
                    "starts")  # fmt: skip


def joint_coordinates(model, joints=None) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The coordinates of q swept by ``robodyn sweep workspace --joints``.

    Parameters
    ----------
    model : Model
    joints : sequence of str, optional
        Joint names, or numbers counted from 1 in ``model.joint_names`` order (a name is
        read first); default the first three joints (all when fewer). Each must be a joint
        with one coordinate.

    Returns
    -------
    coordinates : tuple of int
        Indices into q.
    names : tuple of str
        The joints' names.

    Raises
    ------
    ValueError
        Naming ``--joints``, the bad entry and the robot's joints.
    """
    names = list(model.joint_names)
    listing = ", ".join(f"{k} {n}" for k, n in enumerate(names, 1))
    if joints is None:
        joints = [str(k) for k in range(1, min(3, len(names)) + 1)]
    chosen = []
    for text in joints:
        if text in names:
            name = text
        elif text.isdigit() and 1 <= int(text) <= len(names):
            name = names[int(text) - 1]
        else:
            raise ValueError(
                f"--joints: {text!r} is neither a joint name nor a number 1..{len(names)} "
                f"(joints of {model.name!r}: {listing})"
            )
        i = model.joint_id(name)
        if int(model.jnt_nq[i]) != 1:
            raise ValueError(f"--joints: joint {name!r} has {int(model.jnt_nq[i])} "
                             "coordinates; give joints with one")  # fmt: skip
        if name in chosen:
            raise ValueError(f"--joints: joint {name!r} is given twice")
        chosen.append(name)
    coords = tuple(int(model.jnt_qadr[model.joint_id(n)]) for n in chosen)
    return coords, tuple(chosen)


def _check_store(out, resume: bool) -> None:
    """``--out STORE``, before any work: a new store in an existing folder, or an existing
    one with ``--resume``."""
    if out is None:
        return
    if Path(out).exists():
        if not resume:
            raise ValueError(
                f"--out {str(out)!r}: the store exists; pass --resume to finish it, or remove it"
            )
        return
    check_output_path("--out", out)


def _verify_command(store) -> int:
    """``robodyn sweep verify STORE``: every chunk against its checksums; exit 1 when one
    fails (each named), 0 when every finished chunk verifies."""
    from ..distributed import verify_store

    found = verify_store(store)
    attrs = found.attrs
    print(f"{store}: {attrs['n']} items of {attrs['model']!r} in {found.total} chunks of "
          f"{attrs['chunk']}: {len(found.verified)} verified, {len(found.bad)} bad, "
          f"{len(found.missing)} not finished")  # fmt: skip
    c, n = attrs["chunk"], attrs["n"]
    for i, why in sorted(found.bad.items()):
        print(f"  chunk {i} (items {i * c}-{min(n, (i + 1) * c) - 1}): {'; '.join(why)}")
    if found.bad or found.missing:
        print("  finish it with the same robodyn sweep command and --resume (the bad and "
              "unfinished chunks are computed again)")  # fmt: skip
    return 1 if found.bad else 0


def _client(args):
    """(client, cluster) for --scheduler-address / --workers, or (None, None)."""
    if args.scheduler_address:
        from distributed import Client

        return Client(args.scheduler_address), None
    if args.workers > 0:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)  # fmt: skip
        return Client(cluster), cluster
    return None, None


def _monte_carlo_command(args, model, common) -> None:
    import dask

    from ..control import PD
    from ..model.configuration import neutral
    from ..sim.result import STATUS

    q0 = neutral(model)
    target = option_numbers("--target", args.target, model.nq, "nq")
    target = q0 + 0.3 if target is None else target
    ctrl = PD(model, target, args.kp, args.kd, gravity_compensation=True)
    run = monte_carlo(model, ctrl, args.n, duration=args.duration, dt=args.dt,
                      mass_sigma=args.mass_sigma, friction_sigma=args.friction_sigma,
                      seed=args.seed, chunk=args.chunk or 1000, **common)  # fmt: skip
    qf, tp, st = dask.compute(run.arrays["q_final"], run.arrays["tau_peak"],
                              run.arrays["status"])  # fmt: skip
    ok = st == 0
    err = np.max(np.abs(qf[ok] - target), axis=1) if ok.any() else np.full(1, np.nan)
    tp = tp[ok] if ok.any() else tp
    failed = ", ".join(f"{np.sum(st == k)} {STATUS[k]}" for k in (1, 2, 3) if np.any(st == k))
    print(f"{args.n} rollouts of {model.name!r} ({len(run.computed)} chunks computed; "
          f"{np.sum(~ok)} failed{': ' + failed if failed else ''})")  # fmt: skip
    print(f"  max |target - q(end)|: median {np.median(err):.3e}, 95 % "
          f"{np.quantile(err, 0.95):.3e}, worst {err.max():.3e} rad")  # fmt: skip
    with np.printoptions(precision=4, suppress=True, linewidth=110):
        print(f"  peak |tau| per joint, 95 %: {np.quantile(tp, 0.95, axis=0)} N m")


def _workspace_command(args, model, joints, joint_names, common) -> None:
    """The map, then its summary read chunk by chunk (from the store with --out: two
    passes, nothing held; without, only the manipulability, 8 B a configuration)."""
    import dask
    import dask.array as da

    frame = args.frame if args.frame is not None else model.frame_names[-1]
    part = args.part
    if part and part[0].isdigit():
        part = tuple(int(r) for r in part.split(","))
    run = workspace_map(model, frame, joints, args.points, part=part, chunk=args.chunk or 100_000,
                        max_memory=args.max_memory, **common)  # fmt: skip
    p, w = run.arrays["p"], run.arrays["manipulability"]
    reach = da.sqrt((p**2).sum(axis=1)).max()
    if args.out:
        r, wmax, k = dask.compute(reach, w.max(), w.argmax())
        near = float((w < 1e-3 * wmax).mean().compute())
    else:
        r, wmax, k, wv = dask.compute(reach, w.max(), w.argmax(), w)
        near = float(np.mean(wv < 1e-3 * wmax))
    axes = workspace_grid(model, joints, args.points)
    idx = np.unravel_index(int(k), [a.size for a in axes])
    best = ", ".join(f"{j} = {a[i]:.3f}" for j, a, i in zip(joint_names, axes, idx))
    print(f"{w.size} configurations of {model.name!r}, frame {frame!r} "
          f"({len(run.computed)} chunks computed)")  # fmt: skip
    print(f"  reach: max |p| = {float(r):.4f} m")
    print(f"  manipulability: max {float(wmax):.4g} at {best}; {near:.1%} of the grid near "
          "singular")  # fmt: skip


def _workspace_check(args, model, joints) -> None:
    """Before any work (and before a cluster starts): the map's memory, as
    :func:`workspace_map` will check it, in the command line's words."""
    n = args.points ** len(joints)
    chunk = args.chunk or 100_000
    threads = args.workers if args.workers > 0 else _threads(None)
    if args.scheduler_address:
        threads = 0  # a running cluster: workspace_map counts those of its workers here
    check_workspace_memory(
        workspace_memory(model, n, chunk, out=args.out, threads=threads), args.max_memory,
        f"sweep workspace: --points {args.points} over {len(joints)} joints "
        f"({_count_words(n)} configurations in chunks of {chunk})",
        "lower --points, sweep fewer --joints, "
        + ("" if args.out else "give --out STORE to keep the map on disk, ")
        + "or raise --max-memory",
    )  # fmt: skip


def command(args) -> int:
    """``robodyn sweep``: run the sweep on Dask and print a summary (or verify a store)."""
    if args.kind == "verify":
        return _verify_command(args.robot)
    model = load_robot(args.robot)
    _check_store(args.out, args.resume)
    if args.workers < 0:
        raise ValueError(f"--workers must be >= 0, got {args.workers}")
    if args.kind == "workspace":
        joints, joint_names = joint_coordinates(model, args.joints)
        _workspace_check(args, model, joints)
    client, cluster = _client(args)
    common = {"out": args.out, "resume": args.resume, "client": client,
              "progress": not args.no_progress}  # fmt: skip
    try:
        if args.kind == "montecarlo":
            _monte_carlo_command(args, model, common)
        else:
            _workspace_command(args, model, joints, joint_names, common)
        if args.out:
            print(f"store: {args.out}")
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    return 0
