"""``robodyn bench``: robodyn beside Pinocchio, MuJoCo and the Modern Robotics library.

Run ``robodyn bench`` or ``python -m robodyn.bench`` (``--help`` lists the options). In one
process and one run it measures, on the same models and the same random states:

* **latency**: one state from Python (forward kinematics of all frames, one frame
  Jacobian, inverse dynamics, mass matrix, forward dynamics, Coriolis matrix, gravity);
* **batch**: the same functions over N states (default 100,000), per state, on 1 and 2
  threads (robodyn's batch calls with ``threads=``; Pinocchio's
  ``rneaInParallel`` / ``abaInParallel`` with a ``ModelPool`` where they exist, else a
  Python loop over Pinocchio's single-state call, said so in the table);
* **cold**: ``import robodyn`` in a fresh process, the first call in a fresh process, and a
  typical script in a fresh process, import included (fk, jacobian, rnea, crba, aba,
  gravity and coriolis, each on one state and on a 10,000-state batch);
* **memory**: peak resident memory (``VmHWM``, else ``ru_maxrss``) of a 1,000,000-state
  inverse-dynamics batch in a fresh process, against the bytes of its inputs plus outputs.

Every figure is the median of ``--repeat`` runs (>= 7 by default; each run is a loop sized
like :meth:`timeit.Timer.autorange`) and is shown as a ratio to Pinocchio (< 1: robodyn
is faster). Before anything is timed, each library's result is checked equal to
Pinocchio's (robodyn to 1e-8 relative, after the :class:`robodyn.convert.PinocchioMap`
reordering); a mismatch is printed as FAIL and its time is not shown. A peer that is not
installed leaves its rows out: each section it would appear in says so in one line naming
the package to install (``skipped: install Pinocchio (pip install pin)``); a peer that has
no such function is an "n/a" row.

Models, from example-robot-data: the UR5 (6 DoF), the Panda arm with the fingers locked
(7 DoF), the solo12 quadruped on a floating base (18 DoF) and Talos full (talos_full_v2,
44 joints + 6 floating-base DoF). Each library parses the same URDF text with its own
parser: robodyn's ``load_urdf``, Pinocchio's ``buildModelFromXML`` (plus its free flyer
for a floating base) and MuJoCo's URDF importer (geometry dropped, every link kept as a
body, a free joint added to the root body for a floating base), so the agreement check
covers model building too. Without example-robot-data the bundled UR5 and Panda are used,
and Pinocchio's and MuJoCo's models are then built from robodyn's Model (said in the
table); solo12 and Talos are skipped in one line. Joint friction, damping and armature
are removed from all models: the benchmark times the rigid-body algorithms, which is what
every peer computes.

MuJoCo runs with contacts and constraints disabled. Its functions have other semantics,
so the table names the timed calls: e.g. the mass matrix is ``mj_kinematics + mj_comPos +
mj_crb + mj_fullM`` and the forward dynamics is a whole ``mj_forward``. MuJoCo's
free-joint velocity is ``[v_world, omega_b]``; results are mapped to robodyn's
``[omega_b, v_b]`` before the check.

Floating-point operation counts (``flops`` section) are analytic: the number of
multiplications, additions, subtractions and divisions that robodyn's kernels execute per
body as written (straight-line code, zeros not skipped; sin/cos/sqrt not counted), summed
over the tree:

=========  ==========  ==========  ===================================================
kernel     revolute    prismatic   free joint (the root of a floating base)
=========  ==========  ==========  ===================================================
rnea       396         338         365
crba       81 + 179    23 + 179    107 + 6 * (42 + 6 * 3)
aba        981         921         546
=========  ==========  ==========  ===================================================

RNEA per revolute body: joint pose 81 (Rodrigues 36, 3x3 product 45), joint rates 8,
twist 48, acceleration 84, body wrench 120, torque 7, wrench to the parent 48 (not for
children of the world). CRBA per body: joint pose; composite inertia moved to the parent
179 (not for children of the world); per column ``Ic S`` 42 plus 8 per diagonal entry
(3 for a free joint); then per ancestor ``j`` of the column's body a wrench transport 42
and 9 per dof of ``j`` (4 for a free joint). ABA per revolute body: pass 1 235, pass 2 679
(42 at a child of the world), pass 3 67; a free root: 257 + 91 (6x6 Cholesky) + 198.
Achieved GFLOP/s = flops per state / seconds per state, shown beside the machine's peak,
which is *estimated* from ``lscpu`` (cores x max MHz x double-precision flops per cycle
from the AVX-512/AVX2/FMA flags) together with the scalar-FMA peak (one state runs scalar
code; batches run vectorised across 16 states).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import math
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
import timeit
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["main", "flop_count", "machine_info", "MODELS", "FUNCTIONS", "LIBRARIES"]

MODELS = ("ur5", "panda", "solo12", "talos")
FUNCTIONS = ("fk", "jacobian", "rnea", "crba", "aba", "coriolis", "gravity")
LIBRARIES = ("robodyn", "pinocchio", "mujoco", "modern_robotics")
SECTIONS = ("latency", "batch", "cold", "memory", "simulate", "ik", "dask", "viz", "ident")
RTOL = 1e-8  # equality to Pinocchio before timing (relative, infinity norm)

FUNCTION_TITLES = {
    "fk": "forward kinematics, all frames",
    "jacobian": "one frame Jacobian",
    "rnea": "inverse dynamics",
    "crba": "mass matrix",
    "aba": "forward dynamics",
    "coriolis": "Coriolis matrix",
    "gravity": "gravity",
}

_ERD_FILES = {
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "panda": "panda_description/urdf/panda.urdf",
    "solo12": "solo_description/robots/solo12.urdf",
    "talos": "talos_data/robots/talos_full_v2.urdf",
}
_PANDA_FINGERS = ("panda_finger_joint1", "panda_finger_joint2")
_FLOATING = ("solo12", "talos")
_JAC_FRAME = {
    "ur5": "tool0", "panda": "panda_hand", "solo12": "FL_FOOT", "talos": "arm_left_7_link"
}  # fmt: skip
_BUNDLED_JAC_FRAME = "ee"  # the tool frame of the bundled robots

# The optional packages: what the user sees, and what pip installs.
_PACKAGES = {
    "pinocchio": ("Pinocchio", "pin"),
    "mujoco": ("MuJoCo", "mujoco"),
    "modern_robotics": ("modern_robotics", "modern-robotics"),
    "example-robot-data": ("example-robot-data", "example-robot-data"),
}
# The peers each section compares with (MuJoCo and modern_robotics have no batched API).
_SECTION_PEERS = {
    "latency": ("pinocchio", "mujoco", "modern_robotics"),
    "batch": ("pinocchio",),
    "cold": ("pinocchio",),
    "memory": ("pinocchio",),
    "simulate": ("pinocchio", "mujoco"),
    "ik": ("modern_robotics",),
    "dask": (),
    "viz": (),
    "ident": ("pinocchio",),
}


def skipped_line(package: str) -> str:
    """The one line that stands for everything a missing optional package would have run.

    Parameters
    ----------
    package : {"pinocchio", "mujoco", "modern_robotics", "example-robot-data"}

    Returns
    -------
    str
        E.g. ``"skipped: install Pinocchio (pip install pin)"``.
    """
    label, pip = _PACKAGES[package]
    return f"skipped: install {label} (pip install {pip})"


# =============================================================================== utilities
class Progress:
    """A plain text progress bar on stderr: ``[#####.....] 12/40 label``."""

    def __init__(self, total: int, enabled: bool = True, stream=None, width: int = 30) -> None:
        self.total = max(int(total), 1)
        self.done = 0
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.t0 = time.perf_counter()

    def step(self, label: str = "") -> None:
        """Advance by one and redraw."""
        self.done = min(self.done + 1, self.total)
        self.show(label)

    def show(self, label: str = "") -> None:
        """Redraw the bar with ``label`` (on a file, one line per tenth of the work)."""
        if not self.enabled:
            return
        tty = getattr(self.stream, "isatty", lambda: False)()
        if not tty:
            tenth = 10 * self.done // self.total
            if tenth == getattr(self, "_tenth", -1):
                return
            self._tenth = tenth
            el = time.perf_counter() - self.t0
            self.stream.write(f"robodyn bench: {self.done}/{self.total} ({el:.0f} s) {label}\n")
            self.stream.flush()
            return
        fill = int(self.width * self.done / self.total)
        el = time.perf_counter() - self.t0
        line = f"\r[{'#' * fill}{'.' * (self.width - fill)}] {self.done}/{self.total} {el:5.0f}s "
        self.stream.write((line + label)[:110].ljust(110))
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if not self.enabled:
            return
        if getattr(self.stream, "isatty", lambda: False)():
            self.stream.write("\n")
        else:
            el = time.perf_counter() - self.t0
            self.stream.write(f"robodyn bench: done ({el:.0f} s)\n")
        self.stream.flush()


def _median_time(fn: Callable[[], Any], repeat: int, target: float) -> dict:
    """Median seconds per call of ``fn`` over ``repeat`` loops of ``number`` calls each.

    ``number`` is sized like :meth:`timeit.Timer.autorange`: 1, 2, 5, 10, 20, ... until
    one loop takes at least ``target`` seconds.
    """
    timer = timeit.Timer(fn)
    number = 1
    while True:
        for k in (1, 2, 5):
            n = number * k
            t = timer.timeit(n)
            if t >= target:
                number = n
                break
        else:
            number *= 10
            continue
        break
    runs = [t / number for t in timer.repeat(repeat=repeat, number=number)]
    return {"median_s": statistics.median(runs), "runs_s": runs, "loops": number}


def _rel_err(x, ref) -> float:
    """``||x - ref||_inf / ||ref||_inf`` (absolute when ref is zero)."""
    x = np.asarray(x, dtype=float)
    ref = np.asarray(ref, dtype=float)
    if x.shape != ref.shape:
        return math.inf
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(x - ref))) if ref.size else 0.0
    return err / scale if scale > 0 else err


def _fmt_time(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "-"
    for unit, k in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= k:
            return f"{s / k:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _fmt_ratio(r: float | None) -> str:
    if r is None or not math.isfinite(r):
        return "-"
    return f"{r:.3g}"


# ============================================================================== machine
def _lscpu() -> dict[str, str]:
    out: dict[str, str] = {}
    exe = shutil.which("lscpu")
    if exe is None:
        return out
    try:
        text = subprocess.run([exe], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return out
    for line in text.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip()] = v.strip()
    return out


def machine_info() -> dict[str, Any]:
    """CPU model, cores, clock and an *estimated* double-precision peak.

    Returns
    -------
    dict
        ``model_name``, ``cores``, ``mhz``, ``flags`` (SIMD ones), ``flops_per_cycle``
        (vector, per core), ``peak_gflops`` (all cores, vector FMA), ``peak_gflops_core``,
        ``scalar_peak_gflops_core`` (2 scalar FMA per cycle) and ``peak_note``.
    """
    ls = _lscpu()
    name = ls.get("Model name") or platform.processor() or platform.machine()
    cpus = int(ls.get("CPU(s)", os.cpu_count() or 1))
    try:
        cores = int(ls["Core(s) per socket"]) * int(ls.get("Socket(s)", "1"))
    except (KeyError, ValueError):
        cores = cpus
    mhz = None
    for key in ("CPU max MHz", "CPU MHz"):
        try:
            mhz = float(ls[key])
            break
        except (KeyError, ValueError):
            pass
    mhz_note = "lscpu max MHz"
    if mhz is None:
        try:
            with open("/proc/cpuinfo") as fh:
                vals = [float(m) for m in re.findall(r"cpu MHz\s*:\s*([\d.]+)", fh.read())]
            mhz = max(vals) if vals else None
            mhz_note = "/proc/cpuinfo cpu MHz (no max MHz reported)"
        except OSError:
            mhz = None
    flags = set(ls.get("Flags", "").split())
    if "avx512f" in flags:
        fpc, simd = 32, "AVX-512 + FMA: 2 x 8 doubles x 2"
    elif "avx2" in flags and "fma" in flags:
        fpc, simd = 16, "AVX2 + FMA: 2 x 4 doubles x 2"
        fam, mod = ls.get("CPU family", ""), ls.get("Model", "")
        if ls.get("Vendor ID") == "AuthenticAMD" and fam == "23" and mod.isdigit():
            if int(mod) < 0x30:  # Zen 1: 256-bit ops split in two 128-bit halves
                fpc, simd = 8, "AVX2 + FMA on Zen 1 (128-bit units): 2 x 2 doubles x 2"
    elif "avx" in flags:
        fpc, simd = 8, "AVX: 4 doubles add + 4 mul"
    else:
        fpc, simd = 4, "SSE2: 2 doubles add + 2 mul"
    ghz = (mhz or 0.0) / 1000.0
    return {
        "model_name": name,
        "cores": cores,
        "cpus": cpus,
        "mhz": mhz,
        "mhz_source": mhz_note,
        "flags": sorted(f for f in flags if f in {"sse2", "avx", "avx2", "fma", "avx512f"}),
        "flops_per_cycle": fpc,
        "peak_gflops_core": ghz * fpc,
        "peak_gflops": ghz * fpc * cores,
        "scalar_peak_gflops_core": ghz * 4.0,
        "peak_note": f"estimated: {cores} cores x {mhz} MHz x {fpc} flop/cycle ({simd})",
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


# ================================================================================= flops
def flop_count(model) -> dict[str, int]:
    """Floating-point operations per state of robodyn's rnea, crba and aba kernels.

    An analytic count of the kernels' straight-line code per body (see the module
    docstring for the per-joint table): multiplications, additions, subtractions and
    divisions as written, zeros not skipped, sin/cos/sqrt not counted, friction and
    armature terms not counted.

    Parameters
    ----------
    model : Model

    Returns
    -------
    dict
        ``{"rnea": int, "crba": int, "aba": int}``.
    """
    from .model.model import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE

    pose = {JOINT_REVOLUTE: 81, JOINT_PRISMATIC: 23, JOINT_FREE: 107}
    rnea_own = {JOINT_REVOLUTE: 348, JOINT_PRISMATIC: 290, JOINT_FREE: 365}
    aba_own = {JOINT_REVOLUTE: 344, JOINT_PRISMATIC: 284, JOINT_FREE: 546}
    diag = {JOINT_REVOLUTE: 8, JOINT_PRISMATIC: 8, JOINT_FREE: 3}
    per_dof = {JOINT_REVOLUTE: 9, JOINT_PRISMATIC: 9, JOINT_FREE: 4}
    parent = np.asarray(model.body_parent)
    jt = np.asarray(model.jnt_type)
    nvj = np.asarray(model.jnt_nv)
    rnea = crba = aba = 0
    for i in range(1, model.nb):
        t = int(jt[i])
        if t not in pose:
            continue
        lam = int(parent[i])
        inner = lam > 0
        rnea += rnea_own[t] + (48 if inner else 0)
        aba += aba_own[t] + (637 if inner else 0)
        n = int(nvj[i])
        crba += pose[t] + (179 if inner else 0) + n * (42 + n * diag[t])
        j = lam
        while j > 0:
            tj = int(jt[j])
            crba += n * (42 + int(nvj[j]) * per_dof.get(tj, 9))
            j = int(parent[j])
    return {"rnea": rnea, "crba": crba, "aba": aba}


# ================================================================================ models
def erd_dir() -> str | None:
    """The example-robot-data ``robots`` folder in site-packages, or None."""
    for base in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        d = os.path.join(base, "cmeel.prefix", "share", "example-robot-data", "robots")
        if os.path.isdir(d):
            return d
    return None


def _strip_friction(model):
    """The model without joint damping, Coulomb friction and armature (rigid bodies only)."""
    z = np.zeros(model.nv)
    return dataclasses.replace(model, dof_damping=z, dof_friction=z, dof_armature=z)


def _panda_locked_xml(path: str) -> str:
    """The Panda URDF text with the finger joints turned into fixed joints."""
    with open(path, encoding="utf-8") as fh:
        root = ET.fromstring(fh.read())
    for joint in root.iter("joint"):
        if joint.get("name") in _PANDA_FINGERS:
            joint.set("type", "fixed")
            for tag in ("limit", "mimic", "axis", "dynamics", "safety_controller"):
                for el in joint.findall(tag):
                    joint.remove(el)
    return ET.tostring(root, encoding="unicode")


def urdf_text(name: str) -> str | None:
    """The URDF text every library parses for a benchmark robot (the Panda with its fingers
    locked), or None when example-robot-data is not installed (bundled UR5 and Panda)."""
    d = erd_dir()
    if d is None:
        return None
    path = os.path.join(d, _ERD_FILES[name])
    if name == "panda":
        return _panda_locked_xml(path)
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def load_robodyn_model(name: str):
    """robodyn's Model of a benchmark robot (friction removed) and its source text.

    With example-robot-data installed every robot is its URDF (the Panda with its fingers
    locked; solo12 and Talos on a floating base), which robodyn, Pinocchio and MuJoCo each
    parse themselves (:func:`urdf_text`). Without it the UR5 and the Panda are the bundled
    ones (never missing), and solo12 and Talos are skipped.

    Parameters
    ----------
    name : {"ur5", "panda", "solo12", "talos"}

    Returns
    -------
    (Model, str)

    Raises
    ------
    FileNotFoundError
        solo12 or Talos without example-robot-data.
    """
    from . import models
    from .errors import ModelWarning
    from .model.urdf import load_urdf

    text = urdf_text(name) if name in _ERD_FILES else None
    if text is None:
        if name in ("ur5", "panda"):
            source = {
                "ur5": "bundled ur5 (Modern Robotics numbers; example-robot-data's UR5 when "
                "installed)",
                "panda": "bundled panda (modified DH, Gaz et al. 2019; example-robot-data's "
                "Panda when installed)",
            }[name]
            return _strip_friction(models.load(name)), source
        raise FileNotFoundError(f"{name} needs example-robot-data")
    # inertias as written, as Pinocchio reads them; their warnings are not the bench's subject
    floating = name in _FLOATING
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        m = load_urdf(text, floating_base=floating, mimic=False, invalid_inertia="keep")
    how = "fingers locked" if name == "panda" else ("floating base" if floating else "fixed base")
    return _strip_friction(m), f"{_ERD_FILES[name]}, {how}"


def pin_model_from(model, pin):
    """A ``pinocchio.Model`` of the same tree as a robodyn Model (joints, inertias, frames).

    Parameters
    ----------
    model : Model
    pin : module
        ``pinocchio``.

    Returns
    -------
    pinocchio.Model
    """
    from .model.model import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE

    pm = pin.Model()
    pm.name = model.name
    jid = {0: 0}
    for i in range(1, model.nb):
        t = int(model.jnt_type[i])
        ax = np.asarray(model.jnt_axis[i], dtype=float)
        if t == JOINT_REVOLUTE:
            jm = pin.JointModelRevoluteUnaligned(ax)
            for k, cls in enumerate((pin.JointModelRX, pin.JointModelRY, pin.JointModelRZ)):
                if np.allclose(ax, np.eye(3)[k], atol=0, rtol=0):
                    jm = cls()
        elif t == JOINT_PRISMATIC:
            jm = pin.JointModelPrismaticUnaligned(ax)
        elif t == JOINT_FREE:
            jm = pin.JointModelFreeFlyer()
        else:
            raise ValueError(f"joint type {t} of body {model.body_names[i]!r} not supported")
        placement = pin.SE3(np.array(model.jnt_R[i]), np.array(model.jnt_p[i]))
        j = pm.addJoint(jid[int(model.body_parent[i])], jm, placement, model.joint_names_all[i])
        jid[i] = j
        inertia = pin.Inertia(
            float(model.body_mass[i]), np.array(model.body_com[i]), np.array(model.body_inertia[i])
        )
        pm.appendBodyToJoint(j, inertia, pin.SE3.Identity())
    for f, fname in enumerate(model.frame_names):
        b = int(model.frame_body[f])
        pl = pin.SE3(np.array(model.frame_R[f]), np.array(model.frame_p[f]))
        pm.addFrame(pin.Frame(fname, jid[b], pl, pin.FrameType.OP_FRAME))
    pm.gravity.linear = np.array(model.gravity, dtype=float)
    return pm


def _pin_frame_id(pm, pin, name: str) -> int:
    for ft in (pin.FrameType.OP_FRAME, pin.FrameType.BODY, pin.FrameType.FIXED_JOINT):
        if pm.existFrame(name, ft):
            return int(pm.getFrameId(name, ft))
    if pm.existFrame(name):
        return int(pm.getFrameId(name))
    if name == "world":  # a URDF link called "world" is Pinocchio's universe frame
        return 0
    raise KeyError(f"frame {name!r} not in the Pinocchio model")


def load_pin_model(name: str, model, pin):
    """Pinocchio's model of a benchmark robot: Pinocchio's own URDF parser on the text of
    :func:`urdf_text` (a free flyer for a floating base); a bundled robot (no
    example-robot-data) is built from robodyn's Model."""
    text = urdf_text(name) if name in _ERD_FILES else None
    if text is None:
        return pin_model_from(model, pin), "built from robodyn's Model (no URDF)"
    if name in _FLOATING:
        return pin.buildModelFromXML(
            text, pin.JointModelFreeFlyer()
        ), "its URDF parser + free flyer"
    return pin.buildModelFromXML(text), "its URDF parser"


def mujoco_from_urdf(text: str, floating: bool, model, mujoco):
    """MuJoCo's model of a URDF by MuJoCo's own URDF importer: visual and collision
    geometry dropped (meshes are not needed for dynamics), every link kept as a body
    (``fusestatic="false"``) so the frames are bodies of the same names, a free joint on
    the root body for a floating base; joint damping, friction and armature zeroed,
    contacts and constraints off, gravity robodyn's."""
    root = ET.fromstring(text)
    for link in root.iter("link"):
        for tag in ("visual", "collision"):
            for el in link.findall(tag):
                link.remove(el)
    extra = ET.SubElement(root, "mujoco")
    ET.SubElement(
        extra, "compiler", discardvisual="true", fusestatic="false", balanceinertia="false",
        strippath="true", angle="radian",
    )  # fmt: skip
    spec = mujoco.MjSpec.from_string(ET.tostring(root, encoding="unicode"))
    if floating:
        joint = spec.worldbody.first_body().add_freejoint()
        joint.name = "root_joint"
    m = spec.compile()
    m.dof_damping[:] = 0.0
    m.dof_frictionloss[:] = 0.0
    m.dof_armature[:] = 0.0
    m.opt.gravity[:] = model.gravity
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    return m


def mjcf_from(model) -> str:
    """MJCF text of a robodyn Model: the same bodies, joints, inertias and a site per frame.

    Contacts and constraints are disabled; no geometry (MuJoCo needs none for dynamics).
    """
    from xml.sax.saxutils import quoteattr

    from .model.model import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE
    from .spatial import rotation_to_quat

    def num(xs) -> str:
        return " ".join(repr(float(x)) for x in np.ravel(xs))

    children: dict[int, list[int]] = {}
    for i in range(1, model.nb):
        children.setdefault(int(model.body_parent[i]), []).append(i)
    frames: dict[int, list[int]] = {}
    for f in range(len(model.frame_names)):
        frames.setdefault(int(model.frame_body[f]), []).append(f)

    def sites(b: int, ind: str) -> list[str]:
        return [
            f"{ind}<site name={quoteattr('f_' + model.frame_names[f])} "
            f'pos="{num(model.frame_p[f])}" quat="{num(rotation_to_quat(model.frame_R[f]))}"/>'
            for f in frames.get(b, [])
        ]

    def body(i: int, depth: int) -> list[str]:
        ind = "  " * depth
        t = int(model.jnt_type[i])
        quat = rotation_to_quat(np.array(model.jnt_R[i]))
        lines = [
            f'{ind}<body name={quoteattr(model.body_names[i])} pos="{num(model.jnt_p[i])}" '
            f'quat="{num(quat)}">'
        ]
        jn = quoteattr(model.joint_names_all[i])
        if t == JOINT_FREE:
            lines.append(f"{ind}  <freejoint name={jn}/>")
        elif t in (JOINT_REVOLUTE, JOINT_PRISMATIC):
            kind = "hinge" if t == JOINT_REVOLUTE else "slide"
            lines.append(f'{ind}  <joint name={jn} type="{kind}" axis="{num(model.jnt_axis[i])}"/>')
        I = np.asarray(model.body_inertia[i])
        full = [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]
        lines.append(
            f'{ind}  <inertial pos="{num(model.body_com[i])}" mass="{float(model.body_mass[i])!r}" '
            f'fullinertia="{num(full)}"/>'
        )
        lines += sites(i, ind + "  ")
        for c in children.get(i, []):
            lines += body(c, depth + 1)
        lines.append(f"{ind}</body>")
        return lines

    out = [
        f"<mujoco model={quoteattr(model.name or 'robot')}>",
        '  <compiler angle="radian" inertiafromgeom="false" autolimits="true"/>',
        f'  <option gravity="{num(model.gravity)}">',
        '    <flag contact="disable" constraint="disable"/>',
        "  </option>",
        "  <worldbody>",
    ]
    out += sites(0, "    ")
    for c in children.get(0, []):
        out += body(c, 2)
    out += ["  </worldbody>", "</mujoco>"]
    return "\n".join(out)


# ============================================================================= adapters
@dataclasses.dataclass
class Case:
    """One benchmark model in every library, with its random states."""

    name: str
    model: Any
    source: str
    frame: str
    states: dict[str, np.ndarray]  # q (K, nq), v, a, tau (K, nv)
    pin_model: Any = None
    pin_note: str = ""
    pmap: Any = None
    notes: list[str] = dataclasses.field(default_factory=list)


def _random_states(model, k: int, seed: int) -> dict[str, np.ndarray]:
    from .model.configuration import random_configuration

    rng = np.random.default_rng(seed)
    q = np.atleast_2d(random_configuration(model, rng, size=k))
    return {
        "q": np.ascontiguousarray(q),
        "v": rng.standard_normal((k, model.nv)),
        "a": rng.standard_normal((k, model.nv)),
        "tau": rng.standard_normal((k, model.nv)) * 10.0,
    }


class RobodynLib:
    """robodyn's public calls."""

    name = "robodyn"

    def __init__(self, case: Case) -> None:
        from . import dynamics, kinematics

        self.case = case
        self.model = case.model
        self.kin = kinematics
        self.dyn = dynamics
        try:
            from .coriolis import coriolis_matrix

            self.coriolis_matrix = coriolis_matrix
        except ImportError:
            self.coriolis_matrix = None
        self.calls = {
            "fk": "fk(model, q)",
            "jacobian": f"jacobian(model, q, {case.frame!r}, 'body')",
            "rnea": "inverse_dynamics(model, q, v, a)",
            "crba": "mass_matrix(model, q)",
            "aba": "forward_dynamics(model, q, v, tau)",
            "coriolis": "coriolis_matrix(model, q, v)",
            "gravity": "gravity_forces(model, q)",
        }

    def available(self, fn: str) -> str | None:
        if fn == "coriolis" and self.coriolis_matrix is None:
            return "missing: robodyn.coriolis not importable"
        return None

    def bind(self, fn: str, q, v, a, tau, threads=None) -> Callable[[], Any]:
        """A zero-argument call of ``fn`` on the state (one state or a batch)."""
        m, k, d, t = self.model, self.kin, self.dyn, threads
        fr = self.case.frame
        return {
            "fk": lambda: k.fk(m, q, threads=t),
            "jacobian": lambda: k.jacobian(m, q, fr, "body", threads=t),
            "rnea": lambda: d.inverse_dynamics(m, q, v, a, threads=t),
            "crba": lambda: d.mass_matrix(m, q, threads=t),
            "aba": lambda: d.forward_dynamics(m, q, v, tau, threads=t),
            "coriolis": lambda: self.coriolis_matrix(m, q, v, threads=t),
            "gravity": lambda: d.gravity_forces(m, q, threads=t),
        }[fn]

    def result(self, fn: str, q, v, a, tau) -> np.ndarray:
        return np.asarray(self.bind(fn, q, v, a, tau)())


class PinLib:
    """Pinocchio's Python calls (its model and data, its dof order)."""

    name = "pinocchio"

    def __init__(self, case: Case, pin) -> None:
        self.pin = pin
        self.case = case
        self.pm = case.pin_model
        self.pd = self.pm.createData()
        self.pmap = case.pmap
        self.fid = _pin_frame_id(self.pm, pin, case.frame)
        self.frame_ids = [_pin_frame_id(self.pm, pin, n) for n in case.model.frame_names]
        self.calls = {
            "fk": "forwardKinematics + updateFramePlacements",
            "jacobian": "computeFrameJacobian (LOCAL)",
            "rnea": "rnea",
            "crba": "crba (upper triangle)",
            "aba": "aba",
            "coriolis": "computeCoriolisMatrix",
            "gravity": "computeGeneralizedGravity",
        }

    def available(self, fn: str) -> str | None:
        return None

    def convert(self, q, v, a, tau):
        mp = self.pmap
        return mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a), mp.v_to_pin(tau)

    def bind(self, fn: str, qp, vp, ap, tp) -> Callable[[], Any]:
        pin, pm, pd, fid = self.pin, self.pm, self.pd, self.fid

        def fk():
            pin.forwardKinematics(pm, pd, qp)
            pin.updateFramePlacements(pm, pd)

        return {
            "fk": fk,
            "jacobian": lambda: pin.computeFrameJacobian(pm, pd, qp, fid),
            "rnea": lambda: pin.rnea(pm, pd, qp, vp, ap),
            "crba": lambda: pin.crba(pm, pd, qp),
            "aba": lambda: pin.aba(pm, pd, qp, vp, tp),
            "coriolis": lambda: pin.computeCoriolisMatrix(pm, pd, qp, vp),
            "gravity": lambda: pin.computeGeneralizedGravity(pm, pd, qp),
        }[fn]

    def result(self, fn: str, q, v, a, tau) -> np.ndarray:
        """The result of ``fn`` at a robodyn state, in robodyn's conventions."""
        mp = self.pmap
        out = self.bind(fn, *self.convert(q, v, a, tau))()
        if fn == "fk":
            return np.array([self.pd.oMf[f].homogeneous for f in self.frame_ids])
        if fn == "jacobian":
            return mp.jacobian_from_pin(out)
        if fn == "crba":
            M = np.array(out)
            return mp.matrix_from_pin(np.triu(M) + np.triu(M, 1).T)
        if fn == "coriolis":
            return mp.matrix_from_pin(np.array(out))
        return mp.v_from_pin(np.array(out))


class MujocoLib:
    """MuJoCo's calls on MuJoCo's own import of the robot's URDF (:func:`mujoco_from_urdf`),
    or, for a bundled robot without a URDF, on MJCF written from robodyn's Model."""

    name = "mujoco"

    def __init__(self, case: Case, mujoco) -> None:
        from .kinematics import body_poses
        from .model.model import JOINT_FREE

        self.mj = mujoco
        self.case = case
        model = case.model
        text = urdf_text(case.name) if case.name in _ERD_FILES else None
        self.from_urdf = text is not None
        if self.from_urdf:  # MuJoCo's own URDF importer: every frame is a body of its name
            self.m = mujoco_from_urdf(text, case.name in _FLOATING, model, mujoco)
            kind, prefix = mujoco.mjtObj.mjOBJ_BODY, ""
            self.note = "MuJoCo's URDF importer"
        else:  # a bundled robot: MJCF written from robodyn's Model, a site per frame
            self.m = mujoco.MjModel.from_xml_string(mjcf_from(model))
            kind, prefix = mujoco.mjtObj.mjOBJ_SITE, "f_"
            self.note = "MJCF written from robodyn's Model (no URDF)"
        self.d = mujoco.MjData(self.m)
        self.body_poses = body_poses
        self.site = mujoco.mj_name2id(self.m, kind, prefix + case.frame)
        self.sites = [mujoco.mj_name2id(self.m, kind, prefix + n) for n in model.frame_names]
        missing = [n for n, k in zip(model.frame_names, self.sites) if k < 0]
        if missing:
            raise ValueError(f"MuJoCo's model has no frame {missing[0]!r}")
        # per robodyn joint: (kind, robodyn qadr, vadr, MuJoCo qposadr, dofadr, body)
        self.plan = []
        for i in range(1, model.nb):
            if model.jnt_nv[i] == 0:
                continue
            j = mujoco.mj_name2id(self.m, mujoco.mjtObj.mjOBJ_JOINT, model.joint_names_all[i])
            free = int(model.jnt_type[i]) == JOINT_FREE
            self.plan.append(
                (
                    free,
                    int(model.jnt_qadr[i]),
                    int(model.jnt_vadr[i]),
                    int(self.m.jnt_qposadr[j]),
                    int(self.m.jnt_dofadr[j]),
                    i,
                )
            )
        nv = model.nv
        self.jacp = np.zeros((3, nv))
        self.jacr = np.zeros((3, nv))
        self.M = np.zeros((nv, nv))
        self.out = np.zeros(nv)
        self.calls = {
            "fk": "mj_kinematics",
            "jacobian": "mj_kinematics + mj_comPos + mj_jacBody/mj_jacSite (world-aligned)",
            "rnea": "mj_kinematics + mj_comPos + mj_comVel + mj_rne(flg_acc=1)",
            "crba": "mj_kinematics + mj_comPos + mj_crb + mj_fullM",
            "aba": "mj_forward (whole pipeline, no contacts/constraints)",
            "coriolis": "-",
            "gravity": "mj_kinematics + mj_comPos + mj_comVel + mj_rne(flg_acc=0), qvel=0",
        }

    def available(self, fn: str) -> str | None:
        return "n/a: MuJoCo has no Coriolis matrix" if fn == "coriolis" else None

    def maps(self, q, v):
        """T (v_mj = T v) and the acceleration offset b (a_mj = T a + b) at (q, v)."""
        nv = self.case.model.nv
        T = np.zeros((nv, nv))
        b = np.zeros(nv)
        poses = None
        for free, _qa, va, _mq, md, body in self.plan:
            if not free:
                T[md, va] = 1.0
                continue
            if poses is None:
                poses = self.body_poses(self.case.model, q)
            R = poses[body][:3, :3]
            T[md : md + 3, va + 3 : va + 6] = R
            T[md + 3 : md + 6, va : va + 3] = np.eye(3)
            w, vb = v[va : va + 3], v[va + 3 : va + 6]
            b[md : md + 3] = R @ np.cross(w, vb)
        return T, b

    def convert(self, q, v, a, tau):
        """MuJoCo's qpos, qvel, qacc and the applied force giving robodyn's tau."""
        T, b = self.maps(q, v)
        qpos = np.zeros(self.m.nq)
        for free, qa, _va, mq, _md, _body in self.plan:
            n = 7 if free else 1
            qpos[mq : mq + n] = q[qa : qa + n]
        # tau = T^T tau_mj  ->  tau_mj = T^-T tau
        return qpos, T @ v, T @ a + b, np.linalg.solve(T.T, tau)

    def bind(self, fn: str, qpos, qvel, qacc, qfrc) -> Callable[[], Any]:
        mj, m, d = self.mj, self.m, self.d
        jacp, jacr, M, out, site = self.jacp, self.jacr, self.M, self.out, self.site
        jac_at = mj.mj_jacBody if self.from_urdf else mj.mj_jacSite
        zero = np.zeros_like(qvel)

        def fk():
            d.qpos[:] = qpos
            mj.mj_kinematics(m, d)

        def jac():
            d.qpos[:] = qpos
            mj.mj_kinematics(m, d)
            mj.mj_comPos(m, d)
            jac_at(m, d, jacp, jacr, site)

        def rne():
            d.qpos[:] = qpos
            d.qvel[:] = qvel
            d.qacc[:] = qacc
            mj.mj_kinematics(m, d)
            mj.mj_comPos(m, d)
            mj.mj_comVel(m, d)
            mj.mj_rne(m, d, 1, out)

        def crb():
            d.qpos[:] = qpos
            mj.mj_kinematics(m, d)
            mj.mj_comPos(m, d)
            mj.mj_crb(m, d)
            mj.mj_fullM(m, d, M)

        def fwd():
            d.qpos[:] = qpos
            d.qvel[:] = qvel
            d.qfrc_applied[:] = qfrc
            mj.mj_forward(m, d)

        def grav():
            d.qpos[:] = qpos
            d.qvel[:] = zero
            mj.mj_kinematics(m, d)
            mj.mj_comPos(m, d)
            mj.mj_comVel(m, d)
            mj.mj_rne(m, d, 0, out)

        return {"fk": fk, "jacobian": jac, "rnea": rne, "crba": crb, "aba": fwd, "gravity": grav}[
            fn
        ]

    def result(self, fn: str, q, v, a, tau) -> np.ndarray:
        T, b = self.maps(q, v)
        self.bind(fn, *self.convert(q, v, a, tau))()
        d = self.d
        if fn == "fk":
            xmat, xpos = (d.xmat, d.xpos) if self.from_urdf else (d.site_xmat, d.site_xpos)
            out = np.zeros((len(self.sites), 4, 4))
            out[:, 3, 3] = 1.0
            out[:, :3, :3] = xmat[self.sites].reshape(-1, 3, 3)
            out[:, :3, 3] = xpos[self.sites]
            return out
        if fn == "jacobian":
            return np.vstack([self.jacr, self.jacp]) @ T  # world-aligned, robodyn columns
        if fn == "crba":
            return T.T @ self.M @ T
        if fn == "aba":
            return np.linalg.solve(T, d.qacc - b)
        return T.T @ self.out  # rnea, gravity


class MRLib:
    """The Modern Robotics library (UR5 only: it takes M, Slist, Mlist, Glist)."""

    name = "modern_robotics"

    def __init__(self, case: Case, mr) -> None:
        from .model.poe import to_mr
        from .spatial import adjoint, inv_transform

        self.mr = mr
        M, S, Ml, Gl = to_mr(case.model, case.frame)
        self.M, self.S, self.Ml, self.Gl = M, S, Ml, Gl
        self.B = adjoint(inv_transform(M)) @ S
        self.g = np.array(case.model.gravity, dtype=float)
        self.ftip = np.zeros(6)
        self.calls = {
            "fk": "FKinSpace (end-effector only)",
            "jacobian": "JacobianBody",
            "rnea": "InverseDynamics",
            "crba": "MassMatrix",
            "aba": "ForwardDynamics",
            "coriolis": "-",
            "gravity": "GravityForces",
        }

    def available(self, fn: str) -> str | None:
        return "n/a: no Coriolis matrix in the MR library" if fn == "coriolis" else None

    def convert(self, q, v, a, tau):
        return q, v, a, tau

    def bind(self, fn: str, q, v, a, tau) -> Callable[[], Any]:
        mr, M, S, B, Ml, Gl, g, ft = (
            self.mr, self.M, self.S, self.B, self.Ml, self.Gl, self.g, self.ftip
        )  # fmt: skip
        return {
            "fk": lambda: mr.FKinSpace(M, S, q),
            "jacobian": lambda: mr.JacobianBody(B, q),
            "rnea": lambda: mr.InverseDynamics(q, v, a, g, ft, Ml, Gl, S),
            "crba": lambda: mr.MassMatrix(q, Ml, Gl, S),
            "aba": lambda: mr.ForwardDynamics(q, v, tau, g, ft, Ml, Gl, S),
            "gravity": lambda: mr.GravityForces(q, g, Ml, Gl, S),
        }[fn]

    def result(self, fn: str, q, v, a, tau) -> np.ndarray:
        return np.asarray(self.bind(fn, q, v, a, tau)(), dtype=float)


def _reference(case: Case, ref, fn: str, lib_name: str, q, v, a, tau) -> np.ndarray:
    """What ``lib_name`` must equal for ``fn``: Pinocchio's (or robodyn's) result, adapted
    to the quantity the library computes (MuJoCo's Jacobian is world-aligned; the MR
    library's FK is the end-effector pose only)."""
    from . import kinematics

    if lib_name == "mujoco" and fn == "jacobian":
        return kinematics.jacobian(case.model, q, case.frame, "world_aligned")
    if lib_name == "modern_robotics" and fn == "fk":
        return kinematics.fk(case.model, q, case.frame)
    return ref.result(fn, q, v, a, tau)


# ================================================================================ runner
@dataclasses.dataclass
class Config:
    """Options of one benchmark run."""

    models: tuple[str, ...] = MODELS
    sections: tuple[str, ...] = SECTIONS
    repeat: int = 7
    target: float = 0.2  # seconds per timing loop (autorange)
    n_batch: int = 100_000
    n_loop: int = 2_000  # states of a Python-loop baseline
    threads: tuple[int, ...] = (1, 2)
    n_check: int = 5  # random states for the equality checks
    n_memory: int = 1_000_000
    cold_repeat: int = 7
    max_batch_bytes: float = 256e6  # cap N so one batch output stays below this size
    batch_budget: float = 4.0  # cap N so one single-threaded batch call stays below this (s)
    seed: int = 0
    quick: bool = False
    progress: bool = True


def _import_peer(name: str):
    try:
        if name == "pinocchio":
            import pinocchio as mod
        elif name == "mujoco":
            import mujoco as mod
        elif name == "modern_robotics":
            import modern_robotics as mod
        else:
            raise ImportError(name)
    except ImportError:
        return None, "not installed"
    return mod, str(getattr(mod, "__version__", "?"))


def _build_case(name: str, cfg: Config, pin) -> Case:
    from .convert import PinocchioMap

    model, source = load_robodyn_model(name)
    frame = _JAC_FRAME[name] if _JAC_FRAME[name] in model.frame_names else _BUNDLED_JAC_FRAME
    case = Case(
        name=name,
        model=model,
        source=source,
        frame=frame,
        states=_random_states(model, cfg.n_check, cfg.seed + MODELS.index(name)),
    )
    if pin is not None:
        case.pin_model, case.pin_note = load_pin_model(name, model, pin)
        case.pin_model.gravity.linear = np.array(model.gravity, dtype=float)
        case.pmap = PinocchioMap(model, case.pin_model)
    return case


def _row(section: str, case: str, fn: str, lib: str, **kw) -> dict:
    row = {
        "section": section,
        "model": case,
        "function": fn,
        "library": lib,
        "call": "",
        "threads": 1,
        "n_states": 1,
        "median_s": None,
        "runs_s": [],
        "ratio_to_pinocchio": None,
        "status": "ok",
        "check_err": None,
        "note": "",
    }
    row.update(kw)
    return row


def _check(case: Case, lib, ref, fn: str, lib_name: str) -> tuple[str, float | None]:
    """Equality of ``lib``'s ``fn`` to the reference on the case's check states."""
    st = case.states
    worst = 0.0
    for k in range(st["q"].shape[0]):
        q, v, a, tau = st["q"][k], st["v"][k], st["a"][k], st["tau"][k]
        x = lib.result(fn, q, v, a, tau)
        y = _reference(case, ref, fn, lib_name, q, v, a, tau)
        worst = max(worst, _rel_err(x, y))
    return ("ok" if worst <= RTOL else "FAIL"), worst


def run_latency(case: Case, libs: dict, cfg: Config, prog: Progress) -> list[dict]:
    """Single-state latency rows of one model (robodyn, then each peer)."""
    rows = []
    ref = libs.get("pinocchio") or libs["robodyn"]
    st = case.states
    q, v, a, tau = st["q"][0], st["v"][0], st["a"][0], st["tau"][0]
    for fn in FUNCTIONS:
        pin_time = None
        fn_rows = []
        for name in LIBRARIES:
            prog.show(f"latency {case.name} {fn} {name}")
            lib = libs.get(name)
            if lib is None:
                why = libs.get("_why", {}).get(name)
                if why is not None:  # installed, but not for this model; else not installed
                    fn_rows.append(_row("latency", case.name, fn, name, status=why))
                prog.step()
                continue
            row = _row("latency", case.name, fn, name, call=lib.calls.get(fn, ""))
            why = lib.available(fn)
            if why is not None:
                row["status"] = why
                fn_rows.append(row)
                prog.step()
                continue
            try:
                if lib is not ref:
                    row["status"], row["check_err"] = _check(case, lib, ref, fn, name)
                else:
                    row["status"] = "reference"
                if row["status"] in ("ok", "reference"):
                    call = (
                        lib.bind(fn, *lib.convert(q, v, a, tau))
                        if name != "robodyn"
                        else (lib.bind(fn, q, v, a, tau))
                    )
                    call()  # warm up (compiles robodyn's kernel on a cold cache)
                    t = _median_time(call, cfg.repeat, cfg.target)
                    row.update(median_s=t["median_s"], runs_s=t["runs_s"], loops=t["loops"])
                    if name == "pinocchio":
                        pin_time = t["median_s"]
            except Exception as exc:  # noqa: BLE001 - a peer's failure is a row, not a crash
                row["status"] = f"error: {type(exc).__name__}: {exc}"[:200]
                row["median_s"] = None
            fn_rows.append(row)
            prog.step()
        for row in fn_rows:
            if pin_time and row["median_s"] is not None:
                row["ratio_to_pinocchio"] = row["median_s"] / pin_time
        rows += fn_rows
    return rows


def _batch_size(case: Case, fn: str, cfg: Config) -> int:
    m = case.model
    per_state = {
        "fk": len(m.frame_names) * 16,
        "jacobian": 6 * m.nv,
        "crba": m.nv * m.nv,
        "coriolis": m.nv * m.nv,
    }.get(fn, m.nv)
    cap = int(cfg.max_batch_bytes // (8 * per_state))
    return max(1, min(cfg.n_batch, cap))


def _time_capped(rd, fn: str, big: dict, N: int, cfg: Config) -> int:
    """Fewer states than ``N`` when one batch call would take longer than
    ``cfg.batch_budget`` seconds on one thread (slow functions; the table gives N)."""
    n0 = min(N, 16 if cfg.quick else 256)
    args = [big[k][:n0] for k in ("q", "v", "a", "tau")]
    call = rd.bind(fn, *args)
    call()
    per = min(timeit.Timer(call).repeat(repeat=3, number=1)) / n0  # best of 3: noise-robust
    return max(n0, min(N, int(cfg.batch_budget / max(per, 1e-12))))


def run_batch(case: Case, libs: dict, cfg: Config, prog: Progress) -> list[dict]:
    """Batch throughput rows (seconds per state) of one model."""
    rows = []
    rd = libs["robodyn"]
    pinlib = libs.get("pinocchio")
    pin = pinlib.pin if pinlib is not None else None
    has_par = pin is not None and hasattr(pin, "rneaInParallel") and hasattr(pin, "ModelPool")
    m = case.model
    big = _random_states(m, cfg.n_batch, cfg.seed + 100 + MODELS.index(case.name))
    pin_big = None
    if pinlib is not None:
        mp = case.pmap
        pin_big = {
            "q": np.asfortranarray(np.array([mp.q_to_pin(x) for x in big["q"]]).T),
            "v": np.asfortranarray(mp.v_to_pin(big["v"]).T),
            "a": np.asfortranarray(mp.v_to_pin(big["a"]).T),
            "tau": np.asfortranarray(mp.v_to_pin(big["tau"]).T),
        }
    pools: dict[int, Any] = {}
    for fn in FUNCTIONS:
        N = _batch_size(case, fn, cfg)
        fn_rows = []
        # ---- robodyn: check the first rows against Pinocchio, then time
        why = rd.available(fn)
        rd_out = None
        status, err = "ok", None
        if why is None:
            try:
                N = _time_capped(rd, fn, big, N, cfg)
                Q, V, A, TAU = (big[k][:N] for k in ("q", "v", "a", "tau"))
                rd_out = np.asarray(rd.bind(fn, Q, V, A, TAU)())
                ref = pinlib if pinlib is not None else None
                if ref is not None:
                    k = min(N, 20)
                    err = max(
                        _rel_err(rd_out[s], ref.result(fn, Q[s], V[s], A[s], TAU[s]))
                        for s in range(k)
                    )
                    status = "ok" if err <= RTOL else "FAIL"
            except Exception as exc:  # noqa: BLE001
                status, why = "error", f"error: {type(exc).__name__}: {exc}"[:200]
        Q, V, A, TAU = (big[k][:N] for k in ("q", "v", "a", "tau"))
        for t in cfg.threads:
            prog.show(f"batch {case.name} {fn} robodyn {t} thr")
            row = _row(
                "batch", case.name, fn, "robodyn", call=rd.calls[fn] + " on (N, n)",
                threads=t, n_states=N, check_err=err,
            )  # fmt: skip
            if why is not None:
                row["status"] = why
            elif status != "ok":
                row["status"] = status
            else:
                call = rd.bind(fn, Q, V, A, TAU, threads=t)
                res = _median_time(call, cfg.repeat, cfg.target)
                row.update(median_s=res["median_s"] / N, runs_s=[x / N for x in res["runs_s"]])
            fn_rows.append(row)
            prog.step()
        # ---- Pinocchio: rneaInParallel / abaInParallel, else a Python loop
        par = {"rnea": "rneaInParallel", "aba": "abaInParallel"}.get(fn)
        for t in cfg.threads:
            prog.show(f"batch {case.name} {fn} pinocchio {t} thr")
            if pinlib is None:  # not installed: one line for the section, no rows
                prog.step()
                continue
            if par is not None and has_par:
                if t not in pools:
                    pools[t] = pin.ModelPool(case.pin_model, t)
                pool = pools[t]
                Qp, Vp = pin_big["q"][:, :N], pin_big["v"][:, :N]
                Xp = pin_big["a" if fn == "rnea" else "tau"][:, :N]
                out = np.zeros((m.nv, N), order="F")
                f = getattr(pin, par)

                def call(f=f, pool=pool, Qp=Qp, Vp=Vp, Xp=Xp, out=out, t=t):
                    f(t, pool, Qp, Vp, Xp, out)

                call()
                err_p = None
                st_p = "reference"
                if rd_out is not None:
                    err_p = _rel_err(case.pmap.v_from_pin(out.T), rd_out)
                    st_p = "reference" if err_p <= RTOL else "FAIL vs robodyn"
                res = _median_time(call, cfg.repeat, cfg.target)
                row = _row(
                    "batch", case.name, fn, "pinocchio", call=f"{par}({t}, ModelPool, ...)",
                    threads=t, n_states=N, median_s=res["median_s"] / N,
                    runs_s=[x / N for x in res["runs_s"]], status=st_p, check_err=err_p,
                )  # fmt: skip
            elif t == cfg.threads[0]:
                n = min(N, cfg.n_loop)
                qs = [pinlib.convert(Q[s], V[s], A[s], TAU[s]) for s in range(n)]
                calls = [pinlib.bind(fn, *x) for x in qs]

                def call(calls=calls):
                    for c in calls:
                        c()

                res = _median_time(call, cfg.repeat, cfg.target)
                row = _row(
                    "batch", case.name, fn, "pinocchio",
                    call=f"Python loop over {pinlib.calls[fn]}", threads=1, n_states=n,
                    median_s=res["median_s"] / n, runs_s=[x / n for x in res["runs_s"]],
                    status="reference", note="no parallel Pinocchio call for this function",
                )  # fmt: skip
            else:
                row = _row(
                    "batch", case.name, fn, "pinocchio", threads=t,
                    status="n/a: Python loop is single-threaded",
                )  # fmt: skip
            fn_rows.append(row)
            prog.step()
        # ratios at equal thread count (or to the single-threaded loop)
        pin_by_t = {
            r["threads"]: r["median_s"]
            for r in fn_rows
            if r["library"] == "pinocchio" and r["median_s"]
        }
        loop = next(
            (r["median_s"] for r in fn_rows if r["library"] == "pinocchio" and "loop" in r["call"]),
            None,
        )
        for r in fn_rows:
            base = pin_by_t.get(r["threads"], loop)
            if r["median_s"] is not None and base:
                r["ratio_to_pinocchio"] = r["median_s"] / base
        for other in ("mujoco", "modern_robotics"):
            st = libs.get("_why", {}).get(other)
            if libs.get(other) is not None:
                st = "n/a: no batched API"
            if st is not None:  # None: not installed
                fn_rows.append(_row("batch", case.name, fn, other, status=st))
        rows += fn_rows
    return rows


# ------------------------------------------------------------------------- subprocesses
def _python(code: str, env: dict | None = None, timeout: float = 600) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON line last."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed")
    return json.loads(proc.stdout.strip().splitlines()[-1])


_IMPORT_CODE = """
import json, time
t0 = time.perf_counter()
import {mod}
print(json.dumps({{"t": time.perf_counter() - t0}}))
"""

_FIRST_CALL_CODE = """
import json, time
t0 = time.perf_counter()
import numpy as np
import robodyn
from robodyn import models
from robodyn.dynamics import inverse_dynamics
model = models.load("ur5")
q = np.linspace(-1.0, 1.0, model.nq); v = np.ones(model.nv); a = np.ones(model.nv)
t1 = time.perf_counter()
inverse_dynamics(model, q, v, a)
t2 = time.perf_counter()
res = {{"first_call": t2 - t1, "since_start": t2 - t0}}
if {typical}:
    from robodyn import dynamics as d, kinematics as k
    from robodyn.coriolis import coriolis_matrix
    rng = np.random.default_rng(0)
    Q = rng.uniform(-1.0, 1.0, (10_000, model.nq)); V = rng.normal(size=(10_000, model.nv))
    for x, y in ((q, v), (Q, V)):
        k.fk(model, x); k.jacobian(model, x, "ee"); d.inverse_dynamics(model, x, y, y)
        d.mass_matrix(model, x); d.forward_dynamics(model, x, y, y); d.gravity_forces(model, x)
        coriolis_matrix(model, x, y)
    res["typical_script"] = time.perf_counter() - t0
print(json.dumps(res))
"""

_PIN_FIRST_CALL_CODE = """
import json, time
import numpy as np
import pinocchio as pin
from robodyn import models
from robodyn.bench import pin_model_from
pm = pin_model_from(models.load("ur5"), pin); pd = pm.createData()
q = np.linspace(-1.0, 1.0, pm.nq); v = np.ones(pm.nv); a = np.ones(pm.nv)
t1 = time.perf_counter()
pin.rnea(pm, pd, q, v, a)
print(json.dumps({"first_call": time.perf_counter() - t1}))
"""


def _median_runs(fn: Callable[[], float], n: int) -> tuple[float, list[float]]:
    runs = [fn() for _ in range(max(1, n))]
    return statistics.median(runs), runs


def run_cold(cfg: Config, libs: dict, prog: Progress) -> list[dict]:
    """Cold-start rows: import, the first call and a typical script in fresh processes."""
    rows = []
    pin_ok = libs.get("pinocchio") is not None

    def imp(mod: str) -> float:
        return _python(_IMPORT_CODE.format(mod=mod))["t"]

    prog.show("cold: import robodyn")
    med, runs = _median_runs(lambda: imp("robodyn"), cfg.cold_repeat)
    r_imp = _row("cold", "-", "import", "robodyn", call="import robodyn", median_s=med, runs_s=runs)
    prog.step()
    rows.append(r_imp)
    pin_imp = pin_first = None
    if pin_ok:
        prog.show("cold: import pinocchio")
        pin_imp, runs = _median_runs(lambda: imp("pinocchio"), cfg.cold_repeat)
        rows.append(
            _row("cold", "-", "import", "pinocchio", call="import pinocchio", median_s=pin_imp,
                 runs_s=runs, status="reference")
        )  # fmt: skip
        r_imp["ratio_to_pinocchio"] = med / pin_imp
        prog.step()
        prog.show("cold: pinocchio first call")
        pin_first, runs = _median_runs(
            lambda: _python(_PIN_FIRST_CALL_CODE)["first_call"], cfg.cold_repeat
        )
        rows.append(
            _row("cold", "ur5", "first rnea call", "pinocchio", call="pin.rnea, fresh process",
                 median_s=pin_first, runs_s=runs, status="reference")
        )  # fmt: skip
        prog.step()
    # ---- a fresh process: nothing is compiled or cached at run time
    prog.show("cold: first call and a typical script, fresh process")
    res = [_python(_FIRST_CALL_CODE.format(typical=True)) for _ in range(cfg.cold_repeat)]
    first = [r["first_call"] for r in res]
    typ = [r["typical_script"] for r in res]
    rows.append(
        _row("cold", "ur5", "first rnea call", "robodyn",
             call="inverse_dynamics, fresh process",
             median_s=statistics.median(first), runs_s=first,
             ratio_to_pinocchio=statistics.median(first) / pin_first if pin_first else None)
    )  # fmt: skip
    rows.append(
        _row("cold", "ur5", "typical script", "robodyn",
             call="import; fk, jacobian, rnea, crba, aba, gravity, coriolis on one state and "
             "on 10,000 states; fresh process",
             median_s=statistics.median(typ), runs_s=typ)
    )  # fmt: skip
    prog.step()
    return rows


def _peak_rss_kb() -> int:
    """Peak resident memory of this process in KiB: ``VmHWM`` of /proc/self/status on Linux
    (the high-water mark of this process's own address space), else ``ru_maxrss``.

    ``ru_maxrss`` alone is not used on Linux: a child started by a large parent inherits the
    parent's maximum across fork and exec, which would hide the batch's own peak.
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def memory_child(name: str, n: int, lib: str) -> dict:
    """Peak RSS of an ``n``-state inverse-dynamics batch (run in a fresh process).

    Parameters
    ----------
    name : str
        Benchmark model name.
    n : int
        Number of states.
    lib : {"robodyn", "pinocchio"}

    Returns
    -------
    dict
        ``baseline_kb`` (peak RSS before the inputs exist, after a warm-up call),
        ``inputs_kb`` (after the inputs exist), ``peak_kb``, ``data_bytes`` (inputs +
        outputs) and ``seconds``.
    """
    model, _ = load_robodyn_model(name)
    rng = np.random.default_rng(1)
    hwm = _peak_rss_kb
    if lib == "robodyn":
        from .dynamics import inverse_dynamics

        s = _random_states(model, 4, 0)
        inverse_dynamics(model, s["q"], s["v"], s["a"])  # warm up: load the kernels
        gc.collect()
        base = hwm()
        from .model.configuration import random_configuration

        Q = np.atleast_2d(random_configuration(model, rng, size=n))
        V = rng.standard_normal((n, model.nv))
        A = rng.standard_normal((n, model.nv))
        inp = hwm()
        t0 = time.perf_counter()
        out = inverse_dynamics(model, Q, V, A)
    else:
        import pinocchio as pin

        pm, _ = load_pin_model(name, model, pin)
        pool = pin.ModelPool(pm, 2)
        s = np.zeros((pm.nq, 4), order="F")
        for k in range(4):
            s[:, k] = pin.neutral(pm)
        z = np.zeros((pm.nv, 4), order="F")
        pin.rneaInParallel(2, pool, s, z, z, np.zeros((pm.nv, 4), order="F"))
        gc.collect()
        base = hwm()
        Q = np.empty((pm.nq, n), order="F")
        for k in range(0, n, 100_000):
            e = min(n, k + 100_000)
            Q[:, k:e] = np.array([pin.randomConfiguration(pm) for _ in range(e - k)]).T
        V = np.asfortranarray(rng.standard_normal((pm.nv, n)))
        A = np.asfortranarray(rng.standard_normal((pm.nv, n)))
        inp = hwm()
        t0 = time.perf_counter()
        out = np.empty((pm.nv, n), order="F")
        pin.rneaInParallel(2, pool, Q, V, A, out)
    sec = time.perf_counter() - t0
    peak = hwm()
    nbytes = Q.nbytes + V.nbytes + A.nbytes + out.nbytes
    return {"baseline_kb": base, "inputs_kb": inp, "peak_kb": peak, "data_bytes": nbytes,
            "seconds": sec}  # fmt: skip


def run_memory(cfg: Config, libs: dict, prog: Progress, name: str = "panda") -> list[dict]:
    """Peak-RSS rows of a ``cfg.n_memory``-state inverse-dynamics batch of model ``name``."""
    rows = []
    code = (
        "import json\nfrom robodyn.bench import memory_child\n"
        "print(json.dumps(memory_child({name!r}, {n}, {lib!r})))"
    )
    res = {}
    for lib in ("robodyn", "pinocchio"):
        prog.show(f"memory: {lib} {cfg.n_memory} states")
        if lib == "pinocchio" and libs.get("pinocchio") is None:  # not installed: no row
            prog.step()
            continue
        try:
            r = _python(code.format(name=name, n=cfg.n_memory, lib=lib), timeout=1800)
        except Exception as exc:  # noqa: BLE001
            rows.append(_row("memory", name, "rnea batch", lib, status=f"error: {exc}"[:200]))
            prog.step()
            continue
        extra = (r["peak_kb"] - r["baseline_kb"]) * 1024.0
        res[lib] = r
        rows.append(
            _row("memory", name, "rnea batch", lib,
                 call="(peak RSS - baseline) / (inputs + outputs)", n_states=cfg.n_memory,
                 median_s=None, status="ok" if lib == "robodyn" else "reference",
                 peak_rss_mb=r["peak_kb"] / 1024.0, baseline_rss_mb=r["baseline_kb"] / 1024.0,
                 data_mb=r["data_bytes"] / 2**20, extra_mb=extra / 2**20,
                 over_data=extra / r["data_bytes"], batch_seconds=r["seconds"],
                 threads=2 if lib == "pinocchio" else None)
        )  # fmt: skip
        prog.step()
    if "robodyn" in res and "pinocchio" in res and rows[1]["over_data"] > 0:
        rows[0]["ratio_to_pinocchio"] = rows[0]["over_data"] / rows[1]["over_data"]
    return rows


def flops_rows(cases: dict, latency: list[dict], batch: list[dict], mach: dict) -> list[dict]:
    """Achieved GFLOP/s of robodyn's rnea, crba, aba next to the estimated peak."""
    rows = []
    for name, case in cases.items():
        counts = flop_count(case.model)
        for fn, fl in counts.items():
            row = {"section": "flops", "model": name, "function": fn, "flops_per_state": fl}
            for r in latency:
                if (r["model"], r["function"], r["library"]) == (name, fn, "robodyn"):
                    if r["median_s"]:
                        row["gflops_single"] = fl / r["median_s"] / 1e9
                if (r["model"], r["function"], r["library"]) == (name, fn, "pinocchio"):
                    if r["median_s"]:
                        row["gflops_single_pinocchio"] = fl / r["median_s"] / 1e9
            for r in batch:
                if (r["model"], r["function"], r["library"]) == (name, fn, "robodyn"):
                    if r["median_s"]:
                        row[f"gflops_batch_{r['threads']}t"] = fl / r["median_s"] / 1e9
            row["peak_gflops"] = mach["peak_gflops"]
            row["scalar_peak_gflops"] = mach["scalar_peak_gflops_core"] * mach["cores"]
            rows.append(row)
    return rows


# ================================================================================ output
def _status_text(r: dict) -> str:
    st = r["status"]
    if st in ("ok", "reference") and r.get("check_err") is not None:
        return f"{st} ({r['check_err']:.1e})"
    return st


def format_table(result: dict) -> str:
    """The plain-text report of a result dict (as written by ``--json``)."""
    mach = result["machine"]
    out = []
    peers = ", ".join(f"{k} {v}" for k, v in result["versions"].items())
    out.append(f"robodyn bench: {peers}")
    out.append(f"machine: {mach['model_name']}, {mach['cores']} cores, {mach['mhz']} MHz; "
               f"peak {mach['peak_gflops']:.1f} GFLOP/s ({mach['peak_note']})")  # fmt: skip
    out.append(f"compiled core: {mach.get('core', '?')}")
    cfg = result["config"]
    out.append(
        f"every time is the median of {cfg['repeat']} runs (autorange loops); ratio = "
        "time / Pinocchio's time at the same thread count (< 1: robodyn is faster)"
    )
    skipped: dict[str, list[str]] = {}
    for name, info in result["models"].items():
        if info.startswith("skipped"):
            skipped.setdefault(info, []).append(name)
        else:
            out.append(f"  model {name}: {info}")
    for info, names in skipped.items():  # one line for all the models of a missing package
        out.append(f"  models {', '.join(names)}: {info}")
    notes = result.get("skipped", {})

    def section(key: str, title: str) -> None:
        out.append("")
        out.append(title)
        out.extend(notes.get(key, []))

    if result.get("latency") or notes.get("latency"):
        section("latency", "LATENCY: one state, called from Python (time per call)")
        out.append(f"{'model':<7} {'function':<9} {'library':<16} {'median':>10} {'ratio':>7}  "
                   f"{'check':<20} call")  # fmt: skip
        for r in result["latency"]:
            out.append(
                f"{r['model']:<7} {r['function']:<9} {r['library']:<16} "
                f"{_fmt_time(r['median_s']):>10} {_fmt_ratio(r['ratio_to_pinocchio']):>7}  "
                f"{_status_text(r):<20} {r['call']}"
            )
    if result.get("batch") or notes.get("batch"):
        section("batch", "BATCH: time per state over N states")
        out.append(f"{'model':<7} {'function':<9} {'library':<16} {'thr':>3} {'N':>7} "
                   f"{'per state':>10} {'ratio':>7}  {'check':<20} call")  # fmt: skip
        for r in result["batch"]:
            out.append(
                f"{r['model']:<7} {r['function']:<9} {r['library']:<16} {r['threads'] or '-':>3} "
                f"{r['n_states']:>7} {_fmt_time(r['median_s']):>10} "
                f"{_fmt_ratio(r['ratio_to_pinocchio']):>7}  {_status_text(r):<20} {r['call']}"
            )
    if result.get("cold") or notes.get("cold"):
        section("cold", "COLD START (fresh processes)")
        for r in result["cold"]:
            out.append(
                f"{r['model']:<5} {r['function']:<30} {r['library']:<10} "
                f"{_fmt_time(r['median_s']):>10} {_fmt_ratio(r['ratio_to_pinocchio']):>9}  "
                f"{r['status']:<9} {r['call']}"
            )
    if result.get("memory") or notes.get("memory"):
        section("memory", "MEMORY: peak RSS of an inverse-dynamics batch (fresh process)")
        for r in result["memory"]:
            if "peak_rss_mb" not in r:
                out.append(f"{r['model']:<7} {r['library']:<10} {r['status']}")
                continue
            out.append(
                f"{r['model']:<7} {r['library']:<10} N={r['n_states']}  peak {r['peak_rss_mb']:.0f}"
                f" MB, baseline {r['baseline_rss_mb']:.0f} MB, inputs+outputs "
                f"{r['data_mb']:.0f} MB, extra/(inputs+outputs) = {r['over_data']:.2f}"
                f"  (batch {r['batch_seconds']:.2f} s)"
            )
    if result.get("simulate") or notes.get("simulate"):
        section("simulate", "SIMULATE: whole simulations (time per run, or per rollout-step)")
        for r in result.get("simulate", []):
            ratios = f"{_fmt_ratio(r['ratio_to_pinocchio']):>7}"
            if r.get("ratio_to_mujoco") is not None:
                ratios += f" (to MuJoCo {_fmt_ratio(r['ratio_to_mujoco'])})"
            out.append(
                f"{r['model']:<6} {r['function']:<24} {r['library']:<10} "
                f"{_fmt_time(r['median_s']):>10} {ratios}  {_status_text(r):<20} {r['call']}"
            )
    if result.get("ik") or notes.get("ik"):
        section("ik", "IK: random reachable poses from neutral (median, 95th percentile, success)")
        for r in result.get("ik", []):
            out.append(
                f"{r['model']:<6} {r['library']:<16} {_fmt_time(r['median_s']):>10} "
                f"{_fmt_time(r['p95_s']):>10} {100 * r['success']:6.1f} %  {r['call']}"
            )
    if result.get("dask"):
        from .bench_dask import text_lines

        section("dask", "Dask: per-state cost of the dask path vs numpy; 1 -> 2 worker processes")
        out += text_lines(result["dask"])
    if result.get("viz"):
        from .bench_viz import viz_lines

        section("viz", "VIZ: viewer pages in headless Chromium (software WebGL)")
        out += viz_lines(result["viz"])
    if result.get("ident"):
        from .bench_ident import text_lines as ident_lines

        section("ident", "Identification: joint-torque regressor per state (ratio to Pinocchio)")
        out += ident_lines(result["ident"])
    if result.get("flops"):
        out.append("")
        peak, scalar = mach["peak_gflops"], result["flops"][0]["scalar_peak_gflops"]
        out.append(
            f"FLOPS: analytic count per state; achieved GFLOP/s (robodyn; 'pinocchio' = "
            f"robodyn's count over Pinocchio's time) vs peak {peak:.1f} (vector, estimated) / "
            f"{scalar:.1f} (scalar FMA, estimated), all cores"
        )
        for r in result["flops"]:
            parts = [f"{k[7:]}: {v:.2f}" for k, v in r.items() if k.startswith("gflops_")]
            out.append(f"{r['model']:<7} {r['function']:<5} {r['flops_per_state']:>7} flop  "
                       + "  ".join(parts))  # fmt: skip
    return "\n".join(out)


def format_markdown(result: dict) -> str:
    """The README's summary: single-state latency and batch throughput of robodyn beside
    Pinocchio (time, ratio), cold start and memory, and the machine they ran on."""
    m = result["machine"]
    lines = [
        f"Machine: {m.get('model_name', '?')}, {m.get('cores', '?')} cores, "
        f"{m.get('mhz', '?')} MHz; robodyn {result['versions'].get('robodyn')}, "
        f"Pinocchio {result['versions'].get('pinocchio')}; robodyn's compiled core "
        f"{m.get('core', '?')}.",
        "",
    ]
    lat = [r for r in result["latency"] if r.get("median_s")]
    models = list(dict.fromkeys(r["model"] for r in lat))
    if lat:
        fns = list(dict.fromkeys(r["function"] for r in lat))
        lines += [
            "One state, called from Python: robodyn's median time (ratio to Pinocchio)",
            "",
            "| model | " + " | ".join(fns) + " |",
            "|---" * (len(fns) + 1) + "|",
        ]
        for mod in models:
            cells = []
            for fn in fns:
                r = [
                    x
                    for x in lat
                    if (x["model"], x["function"], x["library"]) == (mod, fn, "robodyn")
                ]
                cells.append(
                    f"{_fmt_time(r[0]['median_s'])} ({_fmt_ratio(r[0]['ratio_to_pinocchio'])})"
                    if r
                    else "-"
                )
            lines.append(f"| {mod} | " + " | ".join(cells) + " |")
        lines.append("")
    bat = [r for r in result["batch"] if r.get("median_s") and r["library"] == "robodyn"]
    if bat:
        threads = sorted({r["threads"] for r in bat})
        fns = [f for f in ("rnea", "aba", "crba") if any(r["function"] == f for r in bat)]
        head = [f"{f}, {t} thr." for f in fns for t in threads]
        lines += [
            "Batch of states, time per state (ratio to Pinocchio's rneaInParallel / "
            "abaInParallel, or to a Python loop over crba, at the same thread count)",
            "",
            "| model | " + " | ".join(head) + " |",
            "|---" * (len(head) + 1) + "|",
        ]
        for mod in models:
            cells = []
            for f in fns:
                for t in threads:
                    r = [x for x in bat if (x["model"], x["function"], x["threads"]) == (mod, f, t)]
                    cells.append(
                        f"{_fmt_time(r[0]['median_s'])} ({_fmt_ratio(r[0]['ratio_to_pinocchio'])})"
                        if r
                        else "-"
                    )
            lines.append(f"| {mod} | " + " | ".join(cells) + " |")
        lines.append("")
    cold = [r for r in result["cold"] if r.get("median_s") and r["library"] == "robodyn"]
    if cold:
        lines.append(
            "Cold start: " + "; ".join(f"{r['call']} {r['median_s']:.3g} s" for r in cold) + "."
        )
    for r in result.get("simulate", []):
        if r["library"] != "robodyn" or not r.get("median_s"):
            continue
        vs = []
        if r.get("ratio_to_pinocchio") is not None:
            vs.append(f"{_fmt_ratio(r['ratio_to_pinocchio'])} of the same loop over Pinocchio")
        if r.get("ratio_to_mujoco") is not None:
            vs.append(f"{_fmt_ratio(r['ratio_to_mujoco'])} of mujoco.rollout")
        per = "per rollout-step" if r["model"] == "ur5" else "in all"
        lines.append(
            f"Simulation ({r['model']}, {r['function']}): {r['call']}: "
            f"{_fmt_time(r['median_s'])} {per}" + (f" ({'; '.join(vs)})" if vs else "") + "."
        )
    for r in result.get("ik", []):
        when = f"{_fmt_time(r['median_s'])} per pose"  # a batch row: the whole call over n
        if r.get("p95_s") is not None:
            when = f"median {_fmt_time(r['median_s'])}, 95th percentile {_fmt_time(r['p95_s'])}"
        lines.append(
            f"IK ({r['model']}, {r['library']}): {r['call']}: {when}, "
            f"success {100 * r['success']:.1f} %."
        )
    for r in result.get("viz", []):
        if r["status"] == "ok":
            fps = "" if r.get("fps") is None else f", plays at {r['fps']:.0f} frames/s"
            lines.append(f"Viewer page ({r['model']}): {r['size_mb']:.2f} MB, first frame "
                         f"{1000 * r['median_s']:.0f} ms after navigation{fps}.")  # fmt: skip
    for r in result["memory"]:
        if r["library"] == "robodyn" and r.get("over_data"):
            lines.append(
                f"Memory: a {r['n_states']:,}-state inverse-dynamics batch ({r['model']}) "
                f"peaks at {r['over_data']:.2f}x its inputs plus outputs."
            )
    return "\n".join(lines) + "\n"


def write_plot(result: dict, path: str, *, overwrite: bool = False) -> None:
    """A bar chart of the ratios to Pinocchio (log scale) written to ``path`` (an existing
    file is refused unless ``overwrite=True``)."""
    import matplotlib

    from ._files import output_path, save_figure

    output_path(path, overwrite=overwrite, name="path")  # before drawing
    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    panels = []
    lat = [r for r in result.get("latency", []) if r["library"] == "robodyn"]
    if lat:
        panels.append(("single state (robodyn / Pinocchio)", lat))
    tmax = max((r["threads"] or 1 for r in result.get("batch", [])), default=1)
    bat = [r for r in result.get("batch", []) if r["library"] == "robodyn" and r["threads"] == tmax]
    if bat:
        panels.append((f"batch, {tmax} threads, per state (robodyn / Pinocchio)", bat))
    fig = Figure(figsize=(12, 4 * max(1, len(panels))))
    if not panels:
        ax = fig.add_subplot(1, 1, 1)
        ax.text(0.5, 0.5, "no latency or batch figures", ha="center")
    for k, (title, rows) in enumerate(panels):
        ax = fig.add_subplot(len(panels), 1, k + 1)
        labels = [f"{r['model']}\n{r['function']}" for r in rows]
        vals = [r["ratio_to_pinocchio"] or np.nan for r in rows]
        colors = ["tab:green" if (v or 0) <= 1.0 else "tab:red" for v in vals]
        ax.bar(range(len(rows)), vals, color=colors)
        for i, r in enumerate(rows):
            if r["ratio_to_pinocchio"] is None:
                ax.text(i, 1.0, r["status"].split(":")[0], rotation=90, ha="center", fontsize=7)
        ax.set_yscale("log")
        ax.axhline(1.0, color="k", lw=1)
        if k == len(panels) - 1 and bat:
            ax.axhline(1.0 / 3.0, color="tab:blue", ls="--", lw=1, label="target 1/3 (rnea, aba)")
            ax.legend(loc="upper left", fontsize=8)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("time ratio to Pinocchio (log)")
        ax.set_title(title)
    fig.tight_layout()
    save_figure(fig, path, overwrite=overwrite)


# ================================================================================== main
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="robodyn bench",
        description="Benchmark robodyn against Pinocchio, MuJoCo and modern_robotics.",
    )
    p.add_argument("--models", default=",".join(MODELS), help=f"comma list of {MODELS}")
    p.add_argument("--only", default=",".join(SECTIONS), help=f"comma list of {SECTIONS}")
    p.add_argument("--quick", action="store_true", help="tiny repeats and N (for CI)")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--plot", metavar="FILE", help="write a bar chart of the ratios")
    p.add_argument("--markdown", metavar="FILE", help="write the summary tables as Markdown")
    p.add_argument("--repeat", type=int, help="timing repeats (default 7, quick 3)")
    p.add_argument("--n", type=int, help="batch states (default 100000, quick 64)")
    p.add_argument("--memory-n", type=int, help="states of the memory batch (default 1e6)")
    p.add_argument("--threads", default="1,2", help="thread counts of the batch section")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite existing output files (default: refuse them, exit status 2)",
    )
    return p


def _config(args: argparse.Namespace) -> Config:
    models = tuple(m.strip().lower() for m in args.models.split(",") if m.strip())
    models = tuple("solo12" if m == "quadruped" else m for m in models)
    bad = [m for m in models if m not in MODELS]
    if bad:
        raise ValueError(f"--models: unknown {bad}; choose from {', '.join(MODELS)}")
    sections = tuple(s.strip().lower() for s in args.only.split(",") if s.strip())
    bad = [s for s in sections if s not in SECTIONS]
    if bad:
        raise ValueError(f"--only: unknown {bad}; choose from {', '.join(SECTIONS)}")
    cfg = Config(models=models, sections=sections, progress=not args.no_progress)
    if args.quick:
        cfg = dataclasses.replace(
            cfg, quick=True, repeat=3, target=0.002, n_batch=64, n_loop=16, n_check=2,
            n_memory=20_000, cold_repeat=1, batch_budget=0.01,
        )  # fmt: skip
    if args.repeat is not None:
        cfg.repeat = max(1, args.repeat)
    if args.n is not None:
        cfg.n_batch = max(1, args.n)
    if args.memory_n is not None:
        cfg.n_memory = max(1, args.memory_n)
    threads = tuple(dict.fromkeys(int(t) for t in args.threads.split(",") if t.strip()))
    if not threads or min(threads) < 1:
        raise ValueError(f"--threads: positive integers expected, got {args.threads!r}")
    cfg.threads = threads
    return cfg


def run(cfg: Config) -> dict:
    """Run the benchmark sections of ``cfg``; the result dict (see ``--json``)."""
    mach = machine_info()
    mods = {name: _import_peer(name) for name in LIBRARIES[1:]}
    versions = {"robodyn": _robodyn_version()}
    mach["omp_wait_policy"] = os.environ.get("OMP_WAIT_POLICY", "")
    from .kernels import _pack, core

    mach["core"] = (
        f"C, {_pack.LANES} states per vector chunk, batches on up to {core.threads()} threads"
    )
    versions.update({k: v[1] for k, v in mods.items()})
    pin = mods["pinocchio"][0]
    result: dict[str, Any] = {
        "machine": mach,
        "versions": versions,
        "config": {k: v for k, v in dataclasses.asdict(cfg).items()},
        "models": {},
        "checks_rtol": RTOL,
        "latency": [],
        "batch": [],
        "cold": [],
        "memory": [],
        "simulate": [],
        "ik": [],
        "dask": [],
        "viz": [],
        "ident": [],
        "flops": [],
        # section -> one line per optional package it needs that is not installed
        "skipped": {},
    }
    absent = [lib for lib in LIBRARIES[1:] if mods[lib][0] is None]
    for sec in cfg.sections:
        lines = [f"{lib}: {skipped_line(lib)}" for lib in _SECTION_PEERS[sec] if lib in absent]
        if lines:
            result["skipped"][sec] = lines
    nf, nlib = len(FUNCTIONS), len(LIBRARIES)
    total = 0
    if "latency" in cfg.sections:
        total += len(cfg.models) * nf * nlib
    if "batch" in cfg.sections:
        total += len(cfg.models) * nf * 2 * len(cfg.threads)
    total += 5 if "cold" in cfg.sections else 0
    total += 2 if "memory" in cfg.sections else 0
    total += 2 if "simulate" in cfg.sections else 0
    total += 2 if "ik" in cfg.sections else 0
    total += 2 if "dask" in cfg.sections else 0
    total += 6 if "viz" in cfg.sections else 0
    total += 2 if "ident" in cfg.sections else 0
    prog = Progress(total + len(cfg.models), enabled=cfg.progress)
    cases: dict[str, Case] = {}
    try:
        for name in cfg.models:
            prog.show(f"loading {name}")
            try:
                case = _build_case(name, cfg, pin)
            except FileNotFoundError:  # solo12, talos: one line, no rows
                result["models"][name] = skipped_line("example-robot-data")
                prog.step()
                continue
            cases[name] = case
            m = case.model
            pin_note = f"; Pinocchio: {case.pin_note}" if pin is not None else ""
            result["models"][name] = (
                f"nq={m.nq} nv={m.nv} bodies={m.nb - 1} frames={len(m.frame_names)}; "
                f"{case.source}{pin_note}; jacobian frame {case.frame!r}"
            )
            libs: dict[str, Any] = {"robodyn": RobodynLib(case), "_why": {}}
            if pin is not None:
                libs["pinocchio"] = PinLib(case, pin)
            if mods["mujoco"][0] is not None:
                try:
                    libs["mujoco"] = MujocoLib(case, mods["mujoco"][0])
                    result["models"][name] += f"; MuJoCo: {libs['mujoco'].note}"
                except Exception as exc:  # noqa: BLE001
                    libs["_why"]["mujoco"] = f"error: MuJoCo rejected the model: {exc}"[:200]
            if mods["modern_robotics"][0] is not None:
                if name == "ur5":
                    libs["modern_robotics"] = MRLib(case, mods["modern_robotics"][0])
                else:
                    libs["_why"]["modern_robotics"] = "n/a: UR5 only (needs M, Slist, Mlist, Glist)"
            prog.step()
            if "latency" in cfg.sections:
                result["latency"] += run_latency(case, libs, cfg, prog)
            if "batch" in cfg.sections:
                result["batch"] += run_batch(case, libs, cfg, prog)
        if "cold" in cfg.sections:
            result["cold"] = run_cold(cfg, {"pinocchio": pin}, prog)
        if "memory" in cfg.sections and cases:
            name = "panda" if "panda" in cases else next(iter(cases))
            result["memory"] = run_memory(cfg, {"pinocchio": pin}, prog, name)
        if "simulate" in cfg.sections:
            from .bench_simulate import run_simulate

            peers = {"pinocchio": pin, "mujoco": mods["mujoco"][0]}
            result["simulate"] = run_simulate(cfg, peers, prog, cases, _build_case, _row)
        if "ik" in cfg.sections:
            from .bench_ik import run_ik

            result["ik"] = run_ik(cfg, {"modern_robotics": mods["modern_robotics"][0]}, prog,
                                  cases, _row)  # fmt: skip
        if "dask" in cfg.sections:
            from .bench_dask import run_dask

            result["dask"] = run_dask(cfg, prog, _row)
        if "viz" in cfg.sections:
            from .bench_viz import run_viz

            result["viz"] = run_viz(cfg, prog, _row)
        if "ident" in cfg.sections and pin is not None:
            from .bench_ident import run_ident

            result["ident"] = run_ident(cfg, pin, prog, cases, _row)
    finally:
        prog.close()
    if cases and ("latency" in cfg.sections or "batch" in cfg.sections):
        result["flops"] = flops_rows(cases, result["latency"], result["batch"], mach)
    return result


def _robodyn_version() -> str:
    try:
        from importlib.metadata import version

        return version("robodyn")
    except Exception:  # noqa: BLE001
        return "?"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; ``argv`` as for ``robodyn bench`` (see ``--help``).

    Parameters
    ----------
    argv : list of str, optional
        Command-line options; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        0 when every equality check passed, 1 when one failed (FAIL rows), 2 on bad
        options or an output file that cannot be written (checked before any timing).
    """
    from .cli import atomic_output, check_output_path, distinct_outputs

    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        cfg = _config(args)
        for option in ("json", "plot", "markdown"):  # before minutes of timing, not after
            if getattr(args, option):
                check_output_path(f"--{option}", getattr(args, option), force=args.force)
        distinct_outputs({f"--{o}": getattr(args, o) for o in ("json", "plot", "markdown")})
    except ValueError as exc:
        print(f"robodyn bench: error: {exc}", file=sys.stderr)
        return 2
    # OpenMP threads (Pinocchio's) sleep between parallel regions instead of spinning, so
    # idle threads do not steal the cores of robodyn's batches.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    result = run(cfg)
    print(format_table(result))
    if args.markdown:
        with atomic_output(args.markdown) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            fh.write(format_markdown(result))
    if args.json:
        with atomic_output(args.json) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1, default=str)
    if args.plot:
        with atomic_output(args.plot) as tmp:
            write_plot(result, tmp, overwrite=True)  # tmp exists: atomic_output made it
    failed = any(
        str(r.get("status", "")).startswith("FAIL")
        for sec in ("latency", "batch")
        for r in result[sec]
    )
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    from .cli import main as cli_main  # quiet when piped into head, like ``robodyn bench``

    sys.exit(cli_main(["bench", *sys.argv[1:]]))
