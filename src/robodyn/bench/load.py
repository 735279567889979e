"""The ``load`` section of ``robodyn bench``: reading a robot description file, robodyn
beside its peer on the same file.

URDF: ``rd.load_urdf(path)`` beside Pinocchio's ``pin.buildModelFromUrdf(path)`` on every
example-robot-data URDF Pinocchio reads (fixed base, each library parsing the file
itself). A file whose inertias Pinocchio keeps as written but robodyn refuses by default
(not positive semi-definite beyond round-off) is timed with ``invalid_inertia="keep"``,
said in its row. Each row is checked before it is timed: robodyn's mass matrix at a
random configuration equals Pinocchio's (relative ``RTOL``, after the
:class:`~robodyn.convert.PinocchioMap` reordering; a file with mimic joints is checked
with ``mimic=False``, as Pinocchio reads them). The time is the least of ``repeat`` single
calls (at least 15; a load is one call, and the least is the one nothing interrupted) in
the calling thread's CPU time, robodyn's and Pinocchio's alternated so that both see the
same machine; ratio = robodyn's / Pinocchio's. ModelWarnings are silenced while timing
(the checks load with them on).

``--quick`` runs the files of ``--models`` only (the UR5's, by default of the tests).
Other formats join through :data:`FORMATS`: a format is the files of its rows
(``files(cfg)``) and a function that returns the rows for a file list
(``rows(files, cfg, peers, prog)``).

MJCF: ``rd.load_mjcf(path)`` beside MuJoCo's ``mujoco.MjModel.from_xml_path(path)`` (which
also compiles: its inertias from geoms and meshes, as robodyn's reader computes them) on
the MJCF files shipped in dm_control (the suite, the locomotion walkers, the soccer
players, the third-party ant and Kinova Jaco) and gymnasium's MuJoCo environments that
MuJoCo compiles and that have joints (``--quick``: cartpole and humanoid of the suite).
Each row is checked first: the total mass of the moving bodies, and the eigenvalues of
the mass matrix at MuJoCo's reference configuration ``qpos0`` (hinges and slides at
q = qpos0 - ref = 0, balls and free joints at their written pose; eigenvalues are unchanged
by the dofs' order and by the free joint's [v_world; omega_b] vs robodyn's [omega_b; v_b],
an orthogonal change of coordinates), relative to the largest; a file with mimic couplings
(MuJoCo's ``<equality><joint>``: robodyn has fewer dofs) is checked on its mass only.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import glob
import os
import statistics
import sys
import time
import warnings

import numpy as np

from .common import RTOL, _fmt_ratio, _fmt_time, _rel_err, _row
from .robots import _ERD_FILES, erd_dir

__all__ = ["FORMATS", "run_load", "urdf_files", "urdf_rows", "mjcf_files", "text_lines"]

MIN_REPEAT = 15  # single calls per loader and file (the least is kept)


def urdf_files(cfg=None) -> list[str]:
    """Every example-robot-data URDF, sorted (none without example-robot-data); with
    ``--quick``, only the files of the run's robots (``--models``)."""
    d = erd_dir()
    if d is None:
        return []
    if cfg is not None and cfg.quick:
        return [os.path.join(d, _ERD_FILES[m]) for m in cfg.models if m in _ERD_FILES]
    return sorted(glob.glob(os.path.join(d, "**", "*.urdf"), recursive=True))


#: where the load section looks for MJCF files, under site-packages (as tests/oracle)
MJCF_GLOBS = ("dm_control/suite/*.xml", "dm_control/locomotion/walkers/assets/**/*.xml",
              "dm_control/locomotion/soccer/assets/**/*.xml", "dm_control/third_party/**/*.xml",
              "gymnasium/envs/mujoco/assets/*.xml")  # fmt: skip
MJCF_QUICK = ("dm_control/suite/cartpole.xml", "dm_control/suite/humanoid.xml")


def mjcf_files(cfg=None) -> list[str]:
    """The MJCF files of dm_control and gymnasium (none without MuJoCo or those packages);
    with ``--quick``, :data:`MJCF_QUICK`. Files MuJoCo refuses or without joints are
    left out by :func:`mjcf_rows`."""
    try:
        import mujoco
    except ImportError:
        return []
    root = os.path.dirname(os.path.dirname(mujoco.__file__))
    if cfg is not None and cfg.quick:
        return [f for f in (os.path.join(root, g) for g in MJCF_QUICK) if os.path.isfile(f)]
    files = {f for g in MJCF_GLOBS for f in glob.glob(os.path.join(root, g), recursive=True)}
    return sorted(files)


def _name(path: str) -> str:
    if path.endswith(".xml"):  # an MJCF file: its package and path
        parts = path.replace(os.sep, "/").split("/")
        top = next((i for i, p in enumerate(parts) if p in ("dm_control", "gymnasium")), 0)
        return os.path.splitext("/".join(parts[top:]))[0]
    d = erd_dir()
    rel = os.path.relpath(path, d) if d else os.path.basename(path)
    return os.path.splitext(rel.replace(os.sep, "/"))[0]


def _best_alternating(fns: list, repeat: int) -> list[float]:
    """The least time of one call of each of ``fns``, the calls alternated ``repeat`` times
    (the garbage collector off during each call, as :mod:`timeit` does). The time is the
    calling thread's CPU time: both loaders run in it alone, and a machine shared with
    other work, which takes the core away for milliseconds, does not lengthen it."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            gc.disable()
            try:
                t0 = time.thread_time()
                fn()
                dt = time.thread_time() - t0
            finally:
                gc.enable()
            best[k] = min(best[k], dt)
    return best


@contextlib.contextmanager
def _quiet_stderr():
    """File descriptor 2 sent to the null device while the block runs (C++ code writes
    there directly, past sys.stderr)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _robodyn_options(path: str) -> dict:
    """``{}``, or ``{"invalid_inertia": "keep"}`` for a file robodyn refuses by default for
    an inertia that is not positive semi-definite (Pinocchio keeps it as written)."""
    from ..errors import ModelError
    from ..model.urdf import load_urdf

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            load_urdf(path)
        return {}
    except ModelError as exc:
        if "positive semi-definite" in str(exc):
            return {"invalid_inertia": "keep"}
        raise


def _check_urdf(path: str, options: dict, pin, seed: int) -> float:
    """Relative difference of robodyn's and Pinocchio's mass matrices at a random q of the
    file (robodyn loaded with mimic=False, as Pinocchio reads mimic joints)."""
    from ..convert import PinocchioMap
    from ..dynamics import mass_matrix
    from ..model.configuration import random_configuration
    from ..model.urdf import load_urdf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_urdf(path, mimic=False, **options)
    pm = pin.buildModelFromUrdf(path)
    if model.nv == 0 and pm.nv == 0:
        return 0.0
    pmap = PinocchioMap(model, pm)
    q = random_configuration(model, np.random.default_rng(seed))
    M_pin = pin.crba(pm, pm.createData(), pmap.q_to_pin(q))
    M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
    return _rel_err(mass_matrix(model, q), pmap.matrix_from_pin(M_pin))


def urdf_rows(files: list[str], cfg, peers: dict, prog) -> list[dict]:
    """Two rows per URDF file Pinocchio reads (robodyn's with its ratio, Pinocchio's as the
    reference), each checked before it is timed."""
    from ..model.urdf import load_urdf

    pin = peers.get("pinocchio")
    repeat = 3 if cfg.quick else max(cfg.repeat, MIN_REPEAT)
    rows = []
    for path in files:
        name = _name(path)
        prog.show(f"load: {name}")
        try:
            with _quiet_stderr():  # (urdfdom prints its refusal on file descriptor 2)
                pin.buildModelFromUrdf(path)
        except Exception:  # noqa: BLE001 - Pinocchio refuses the file (ur3.urdf: no link)
            continue
        options = _robodyn_options(path)
        call = "rd.load_urdf(path" + "".join(f", {k}={v!r}" for k, v in options.items()) + ")"
        err = _check_urdf(path, options, pin, cfg.seed)
        mine = dict(call=call, check_err=err)  # robodyn's row
        if not err <= RTOL:
            failed = f"FAIL: mass matrix differs from Pinocchio's ({err:.1e})"
            rows.append(_row("load", name, "urdf", "robodyn", status=failed, **mine))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            calls = [functools.partial(load_urdf, path, **options),
                     functools.partial(pin.buildModelFromUrdf, path)]  # fmt: skip
            t_rd, t_pin = _best_alternating(calls, repeat)
        mine.update(median_s=t_rd, ratio_to_pinocchio=t_rd / t_pin, repeat=repeat)
        rows.append(_row("load", name, "urdf", "robodyn", **mine))
        peer = dict(call="pin.buildModelFromUrdf(path)", status="reference", repeat=repeat)
        rows.append(_row("load", name, "urdf", "pinocchio", median_s=t_pin, **peer))
    return rows


def _check_mjcf(model, m, mujoco) -> float:
    """Relative difference of the total masses and, without mimic couplings, of the sorted
    eigenvalues of the mass matrices at MuJoCo's qpos0 (module docstring)."""
    from ..dynamics import mass_matrix

    moving = m.body_mass[m.body_weldid != 0].sum()  # bodies welded to the world: no Model body
    err = abs(model.body_mass.sum() - moving) / max(moving, 1e-300)
    if model.nv != m.nv or model.nq != m.nq:
        return err
    q = m.qpos0.copy()
    for j in range(m.njnt):  # hinges and slides: robodyn's q is qpos - ref
        if m.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
            q[m.jnt_qposadr[j]] = 0.0
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    mujoco.mj_forward(m, d)
    M_mj = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M_mj)
    M_mj -= np.diag(m.dof_armature)  # robodyn's mass_matrix(armature=False)
    eig_rd = np.linalg.eigvalsh(mass_matrix(model, q, armature=False))
    eig_mj = np.linalg.eigvalsh(M_mj)
    return max(err, float(np.abs(eig_rd - eig_mj).max() / max(eig_mj.max(), 1e-300)))


def mjcf_rows(files: list[str], cfg, peers: dict, prog) -> list[dict]:
    """Two rows per MJCF file MuJoCo compiles and that has joints (robodyn's with its ratio,
    MuJoCo's as the reference), each checked before it is timed."""
    from ..model.mjcf import load_mjcf

    mujoco = peers.get("mujoco")
    repeat = 3 if cfg.quick else max(cfg.repeat, MIN_REPEAT)
    rows = []
    for path in files:
        name = _name(path)
        prog.show(f"load: {name}")
        try:
            with _quiet_stderr():
                m = mujoco.MjModel.from_xml_path(path)
        except Exception:  # noqa: BLE001 - MuJoCo refuses the file (a mesh not shipped)
            continue
        if m.njnt == 0:
            continue  # defaults or assets only: nothing to load as a robot
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            err = _check_mjcf(load_mjcf(path), m, mujoco)
        mine = dict(call="rd.load_mjcf(path)", check_err=err)
        if not err <= 1e-6:  # MuJoCo's mesh inertias: principal axes to ~1e-6 (tests/oracle)
            failed = f"FAIL: mass matrix differs from MuJoCo's ({err:.1e})"
            rows.append(_row("load", name, "mjcf", "robodyn", status=failed, **mine))
            continue
        with warnings.catch_warnings(), _quiet_stderr():
            warnings.simplefilter("ignore")
            calls = [functools.partial(load_mjcf, path),
                     functools.partial(mujoco.MjModel.from_xml_path, path)]  # fmt: skip
            t_rd, t_mj = _best_alternating(calls, repeat)
        mine.update(median_s=t_rd, ratio_to_pinocchio=t_rd / t_mj, repeat=repeat)
        rows.append(_row("load", name, "mjcf", "robodyn", **mine))
        peer = dict(call="mujoco.MjModel.from_xml_path(path)", status="reference", repeat=repeat)
        rows.append(_row("load", name, "mjcf", "mujoco", median_s=t_mj, **peer))
    return rows


#: The formats of the load section: name -> (the files, the function returning their rows
#: for a file list, the peer it needs). Ratios are to the peer (the rows' key
#: ``ratio_to_pinocchio`` holds MuJoCo's for MJCF).
FORMATS = {"urdf": (urdf_files, urdf_rows, "pinocchio"), "mjcf": (mjcf_files, mjcf_rows, "mujoco")}


def run_load(cfg, peers: dict, prog) -> list[dict]:
    """Rows of the load section: each format whose peer is installed, on its files."""
    rows: list[dict] = []
    for files, rows_of, peer in FORMATS.values():
        if peers.get(peer) is not None:
            rows += rows_of(files(cfg), cfg, peers, prog)
    prog.step()
    return rows


def summary(rows: list[dict]) -> dict:
    """Worst and median ratio, the number of files and of those within 3x, per format."""
    out = {}
    for fmt in dict.fromkeys(r["function"] for r in rows):
        ratios = [r["ratio_to_pinocchio"] for r in rows
                  if r["function"] == fmt and r["library"] == "robodyn"
                  and r.get("ratio_to_pinocchio")]  # fmt: skip
        if ratios:
            out[fmt] = dict(files=len(ratios), median=statistics.median(ratios),
                            worst=max(ratios), within_3x=sum(x <= 3 for x in ratios))  # fmt: skip
    return out


def text_lines(rows: list[dict]) -> list[str]:
    """The load section of the text report: a line per file (robodyn's time, Pinocchio's,
    the ratio, the check), then the worst and median ratio."""
    pin = {(r["model"], r["function"]): r for r in rows if r["library"] != "robodyn"}  # peers
    out = []
    for r in rows:
        if r["library"] != "robodyn":
            continue
        peer = pin.get((r["model"], r["function"]))
        t_pin = _fmt_time(peer["median_s"]) if peer else "-"
        check = r["status"] if r["check_err"] is None else f"{r['status']} ({r['check_err']:.0e})"
        out.append(f"{r['function']:<5} {r['model']:<58} {_fmt_time(r['median_s']):>9} "
                   f"{t_pin:>9} {_fmt_ratio(r['ratio_to_pinocchio']):>6}  {check}")  # fmt: skip
    for fmt, s in summary(rows).items():
        out.append(f"{fmt}: {s['files']} files, ratio median {s['median']:.2f}, worst "
                   f"{s['worst']:.2f}, {s['within_3x']} within 3x")  # fmt: skip
    return out


_DESCRIBED = {
    "urdf": ("example-robot-data", "Pinocchio's buildModelFromUrdf"),
    "mjcf": ("dm_control and gymnasium", "MuJoCo's MjModel.from_xml_path"),
}


def markdown_lines(rows: list[dict]) -> list[str]:
    """The README's load paragraph: per format the worst and median ratio, and the slowest
    files."""
    lines = []
    for fmt, s in summary(rows).items():
        mine = sorted((r for r in rows if r["function"] == fmt and r["library"] == "robodyn"
                       and r.get("ratio_to_pinocchio")),
                      key=lambda r: -r["ratio_to_pinocchio"])  # fmt: skip
        worst = ", ".join(f"{r['model'].split('/')[-1]} {r['ratio_to_pinocchio']:.2f}"
                          for r in mine[:3])  # fmt: skip
        where, peer = _DESCRIBED[fmt]
        lines.append(
            f"Load ({fmt}, {s['files']} {where} files, least CPU time of single "
            f"calls, each checked first): robodyn's time / {peer} median "
            f"{s['median']:.2f}, worst {s['worst']:.2f} ({worst}); {s['within_3x']} files "
            "within 3x."
        )
    return lines
