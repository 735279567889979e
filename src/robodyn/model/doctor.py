"""The model doctor: find what would make dynamics silently wrong, and fix URDF inertias.

:func:`check_model` takes a :class:`~robodyn.model.model.Model` or a URDF (path, XML string
or bytes) and returns a :class:`Report`, a list of :class:`Finding` (severity, element,
message with the numbers, fix). For a URDF it works on the raw elements first (so it reports
on a URDF that :func:`~robodyn.model.urdf.load_urdf` refuses), then tries to load it.

:func:`fix_urdf` writes a corrected copy of a URDF: inertias recomputed from the collision
primitives (box, cylinder, sphere) with a stated density where they are missing on a
massless moving subtree, non-physical or implausible, and product-of-inertia signs flipped
where that alone makes the tensor physical; a comment in the output lists each change.
"""

from __future__ import annotations

import math
import os
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._files import atomic_write, output_path
from ..errors import ModelError, ModelWarning
from .builder import MAX_INERTIA, MAX_LENGTH, MAX_MASS
from .inertial import (
    NEGLIGIBLE_NEGATIVE,
    PLAUSIBLE_FACTOR,
    balanced_inertia,
    geometry_problem,
    inertia_scale,
    inertial_issue,
    inertial_problem,
    negligible_negative,
    primitive_inertia,
)
from .mjcf import load_mjcf
from .mjcf_xml import root_tag
from .model import JOINT_PRISMATIC, JOINT_REVOLUTE, Model
from .urdf import (
    JOINT_EXTENSIONS,
    extension_message,
    kinematic_tree,
    magnitude_problems,
    massless_subtrees,
    model_from_urdf,
    parse_xml,
    read_document,
    read_source,
    robot_from_bytes,
)
from .urdf_description import UrdfInertial, UrdfJoint, UrdfLink, UrdfRobot

__all__ = [
    "Finding",
    "Report",
    "check_model",
    "fix_urdf",
    "FixResult",
    "balanced_inertia",
    "geometry_finding",
    "primitive_inertia",
    "massless_subtrees",
    "SEVERITIES",
    "PLAUSIBLE_FACTOR",
]

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One problem (or remark) about a model.

    Attributes
    ----------
    severity : {"error", "warning", "info"}
        error: dynamics are wrong or undefined; warning: suspicious; info: for the record.
    element : str
        The element, e.g. ``"link 'l2'"`` or ``"joint 'j1'"``.
    message : str
        What is wrong, with the numbers.
    fix : str
        What to do about it.
    kind : str
        Machine-readable category (``"massless_subtree"``, ``"inertia_not_physical"``,
        ``"inertia_sign"``, ``"inertia_geometry"``, ``"overflow"`` (a number whose
        products overflow float64), ``"limit_equal"``, ``"limit_inverted"``,
        ``"limit_missing"``, ``"effort_zero"``, ``"velocity_zero"``, ``"mimic"``,
        ``"fixed_merged"``, ``"no_inertial"``, ``"parse"``, ``"tree"``, ``"load"``,
        ``"mjcf_dropped"``: what an MJCF document holds that robodyn cannot represent).
    """

    severity: str
    element: str
    message: str
    fix: str
    kind: str = ""

    def __str__(self) -> str:
        return f"[{self.severity}] {self.element}: {self.message}\n    fix: {self.fix}"


class Report(list):
    """A list of :class:`Finding`, errors first, with a readable ``str``."""

    def __init__(self, findings=(), subject: str = "model"):
        order = {s: k for k, s in enumerate(SEVERITIES)}
        super().__init__(sorted(findings, key=lambda f: order[f.severity]))
        self.subject = subject

    def by_severity(self, severity: str) -> list[Finding]:
        """Findings of one severity."""
        return [f for f in self if f.severity == severity]

    def kinds(self) -> set[str]:
        """The set of finding kinds present."""
        return {f.kind for f in self}

    @property
    def errors(self) -> list[Finding]:
        return self.by_severity("error")

    @property
    def warnings(self) -> list[Finding]:
        return self.by_severity("warning")

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return not self.errors

    def __str__(self) -> str:
        return self.format()

    def format(self, severities=SEVERITIES) -> str:
        """The report as text, listing the findings of ``severities`` only.

        Parameters
        ----------
        severities : sequence of {"error", "warning", "info"}
            The severities listed (default all). The first line still counts every
            severity, and a last line says how many findings are not listed.

        Returns
        -------
        str
        """
        bad = [s for s in severities if s not in SEVERITIES]
        if bad:
            raise ValueError(f"severities: unknown {bad}; choose from {', '.join(SEVERITIES)}")
        counts = ", ".join(f"{len(self.by_severity(s))} {s}(s)" for s in SEVERITIES)
        lines = [f"robodyn check of {self.subject}: {counts}"]
        lines += [str(f) for f in self if f.severity in severities]
        hidden = [f"{len(self.by_severity(s))} {s}(s)" for s in SEVERITIES
                  if s not in severities and self.by_severity(s)]  # fmt: skip
        if not self:
            lines.append("no findings")
        elif hidden:
            lines.append(f"({', '.join(hidden)} not shown)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Report({self.subject!r}, {len(self)} findings)"


# ============================================================================ inertia
def _flipped_products(I: np.ndarray) -> np.ndarray:
    """The tensor with the off-diagonal signs flipped (CAD products <-> tensor entries)."""
    return I * (2.0 * np.eye(3) - 1.0)


def _inertia_findings(name: str, inertial: UrdfInertial, scale: float = 0.0) -> list[Finding]:
    """An ``error`` when the inertia makes the dynamics undefined (load_urdf refuses it),
    a ``warning`` when it is implausible but usable (load_urdf warns): a negative principal
    moment negligible against the robot's inertia ``scale`` is one (load_urdf replaces the
    tensor by the nearest physical one)."""
    el = f"link {name!r}"
    issue = inertial_issue(inertial)
    if issue is None:
        return []
    severity, problem = issue
    if severity == "error" and inertial.mass >= 0:
        low = negligible_negative(inertial.inertia, scale)
        if low is not None:
            severity = "warning"
            problem += (
                f"; negligible ({low:.3g} kg m^2 is within {NEGLIGIBLE_NEGATIVE:g} of the "
                f"robot's inertia scale {scale:.6g} kg m^2): load_urdf replaces it by the "
                "nearest physical tensor"
            )
    if inertial.mass > 0:
        flipped = UrdfInertial(
            inertial.mass, inertial.xyz, inertial.rpy, _flipped_products(inertial.inertia)
        )
        if inertial_problem(flipped) is None:
            I = inertial.inertia
            return [
                Finding(
                    severity,
                    el,
                    f"{problem}; it becomes physical when the signs of ixy, ixz, iyz "
                    f"(= {I[0, 1]:.6g}, {I[0, 2]:.6g}, {I[1, 2]:.6g}) are flipped: CAD "
                    "products of inertia (+int xy dm) were written where URDF wants the "
                    "tensor entries (-int xy dm)",
                    "negate ixy, ixz and iyz (fix_urdf does it)",
                    "inertia_sign",
                )
            ]
    if severity == "warning" and inertial.mass == 0:
        return [
            Finding(
                "warning",
                el,
                f"<inertial>: {problem}",
                "zero the tensor of a massless link (fix_urdf does it), or give it its mass",
                "inertia_massless",
            )
        ]
    return [
        Finding(
            severity,
            el,
            f"<inertial> is not physical: {problem}",
            "recompute it (CAD or fix_urdf from the collision geometry with a density)",
            "inertia_not_physical",
        )
    ]


def geometry_finding(link: UrdfLink) -> Finding | None:
    """A warning when a link's inertia is more than ``PLAUSIBLE_FACTOR`` off the inertia of
    its collision primitives with the same mass (wrong units, a bad CAD export):
    :func:`~robodyn.model.inertial.geometry_problem` as a :class:`Finding`."""
    problem = geometry_problem(link)
    if problem is None:
        return None
    return Finding(
        "warning",
        f"link {link.name!r}",
        problem,
        "check the units (g vs kg, mm vs m) and the CAD export, or recompute it (fix_urdf)",
        "inertia_geometry",
    )


# ============================================================================ URDF checks
def _massless_findings(robot: UrdfRobot, children, massless) -> list[Finding]:
    """One error per massless moving subtree (``massless``: :func:`massless_subtrees`),
    naming the moving joints inside it too."""
    out = []
    for jname, sub, bare in massless:
        j = robot.joints[jname]
        inner = [k.name for s in sub for k in children.get(s, []) if k.type != "fixed"]
        also = (
            f"; the moving joints inside it move no mass either: "
            f"{', '.join(repr(n) for n in inner)}"
            if inner
            else ""
        )
        out.append(
            Finding(
                "error",
                f"joint {jname!r}",
                f"the {j.type} joint moves a massless subtree (links "
                f"{', '.join(repr(s) for s in sub)}; without <inertial>: "
                f"{', '.join(repr(s) for s in bare) or 'none'}){also}: the mass matrix is "
                "singular and forward dynamics undefined",
                f"give link {j.child!r} an <inertial> (fix_urdf computes one from its "
                "collision geometry), or make the joint fixed",
                "massless_subtree",
            )
        )
    return out


def _joint_findings(robot: UrdfRobot) -> list[Finding]:
    """The findings on each joint as written: merged (fixed), mimic, limits, actuator."""
    out = []
    for j in robot.joints.values():
        if j.type == "fixed":
            out.append(
                Finding(
                    "info",
                    f"joint {j.name!r}",
                    f"fixed joint: link {j.child!r} is merged into its parent body "
                    f"{j.parent!r} (its frame is kept)",
                    "nothing to do",
                    "fixed_merged",
                )
            )
            continue
        if j.type in JOINT_EXTENSIONS:
            out.append(
                Finding(
                    "warning",
                    f"joint {j.name!r}",
                    extension_message(j).split(": ", 1)[1],
                    "nothing to do for robodyn and MuJoCo; tools that follow the URDF "
                    "specification need another joint (e.g. three revolute joints)",
                    "joint_extension",
                )
            )
        out += _mimic_findings(robot, j)
        if j.type in ("revolute", "prismatic"):
            out += _limit_findings(j)
        out += _actuator_findings(j)
    return out


def _mimic_findings(robot: UrdfRobot, j: UrdfJoint) -> list[Finding]:
    """A mimic joint: a warning when its leader does not exist, else an info."""
    el = f"joint {j.name!r}"
    if j.mimic is not None and j.mimic not in robot.joints:
        return [
            Finding(
                "warning",
                el,
                f"<mimic joint={j.mimic!r}>: no such joint; load_urdf makes {j.name!r} an "
                "independent joint",
                "correct the leader's name in the URDF",
                "mimic_unknown",
            )
        ]
    if j.mimic is not None:
        return [
            Finding(
                "info",
                el,
                f"mimic joint: q = {j.multiplier:g} * q_{j.mimic} + {j.offset:g} "
                "(no coordinate of its own; Pinocchio ignores mimic by default)",
                "load_urdf(..., mimic=False) makes it an independent joint",
                "mimic",
            )
        ]
    return []


def _limit_findings(j: UrdfJoint) -> list[Finding]:
    """A revolute or prismatic joint's position limits: missing, inverted or equal."""
    el = f"joint {j.name!r}"
    if not j.has_limit:
        return [
            Finding(
                "warning",
                el,
                f"{j.type} joint without <limit> (required by the URDF "
                "specification); loaded as unlimited",
                "add <limit lower upper effort velocity>, or use type='continuous'",
                "limit_missing",
            )
        ]
    lo = 0.0 if j.lower is None else j.lower
    hi = 0.0 if j.upper is None else j.upper
    if lo > hi:
        return [
            Finding(
                "error",
                el,
                f"lower limit {lo:g} > upper limit {hi:g}",
                "swap the limits",
                "limit_inverted",
            )
        ]
    if lo == hi:
        missing = " (lower/upper absent: the URDF default is 0)" * (
            j.lower is None or j.upper is None
        )
        return [
            Finding(
                "warning",
                el,
                f"lower == upper == {lo:g}{missing}: the joint cannot move",
                "set the real range, or make the joint fixed",
                "limit_equal",
            )
        ]
    return []


def _actuator_findings(j: UrdfJoint) -> list[Finding]:
    """An effort or velocity limit of 0 in a ``<limit>``."""
    el = f"joint {j.name!r}"
    out = []
    if j.has_limit and j.effort is not None and j.effort == 0:
        out.append(
            Finding(
                "warning",
                el,
                "effort limit 0: the actuator can apply no force/torque",
                "set the actuator's real effort limit",
                "effort_zero",
            )
        )
    if j.has_limit and j.velocity is not None and j.velocity == 0:
        out.append(
            Finding(
                "warning",
                el,
                "velocity limit 0: the joint may not move",
                "set the real velocity limit",
                "velocity_zero",
            )
        )
    return out


def _check_urdf(source) -> Report:
    subject = "URDF"
    try:
        data, origin, blank = read_document(source)
        subject = f"URDF {origin}"
        robot = robot_from_bytes(data, origin)
    except ModelError as exc:
        return Report(
            [Finding("error", "URDF", str(exc), "fix the XML as the message says", "parse")],
            subject,
        )
    subject = f"URDF robot {robot.name!r} ({origin})"
    too_big = magnitude_problems(robot)
    findings: list[Finding] = [
        Finding("error", el, msg, _TOO_BIG_FIX, "overflow") for el, msg in too_big
    ]
    if blank:
        findings.append(
            Finding(
                "warning",
                "URDF",
                f"{blank} whitespace character(s) before the <?xml declaration, where XML "
                "allows nothing (load_urdf ignores them, with a warning)",
                "delete the blank text before <?xml",
                "xml_leading_blank",
            )
        )
    big = {e for e, _ in too_big}
    scale = inertia_scale(robot.links.values())
    for link in robot.links.values():
        if link.inertial is not None and f"link {link.name!r}" not in big:
            findings += _inertia_findings(link.name, link.inertial, scale)
            g = geometry_finding(link)
            if g is not None:
                findings.append(g)
    findings += _joint_findings(robot)
    try:
        root, children = kinematic_tree(robot)
    except ModelError as exc:
        findings.append(Finding("error", "URDF tree", str(exc), "make it one tree", "tree"))
        return Report(findings, subject)
    massless = massless_subtrees(robot, children)
    findings += _massless_findings(robot, children, massless)
    in_massless = {s for _, _, bare in massless for s in bare}
    for link in robot.links.values():
        if link.inertial is None and link.name != root and link.name not in in_massless:
            findings.append(
                Finding(
                    "info",
                    f"link {link.name!r}",
                    "no <inertial>: massless",
                    "nothing to do if it is a frame; otherwise add its <inertial>",
                    "no_inertial",
                )
            )
    try:
        with warnings.catch_warnings():  # reported above as findings
            warnings.simplefilter("ignore")
            model_from_urdf(robot)
    except ModelError as exc:
        msg = str(exc)
        if not any(f.severity == "error" and f.element in msg for f in findings):
            findings.append(
                Finding("error", "URDF", f"load_urdf fails: {msg}", "see the message", "load")
            )
    return Report(findings, subject)


# ============================================================================ Model checks
_TOO_BIG_FIX = "correct the number (lengths in m, masses in kg, inertias in kg m^2)"


def _magnitude_findings(model: Model) -> list[Finding]:
    """Numbers of a Model beyond the builder's bounds (a Model changed after it was built:
    the builder refuses them)."""
    out = []
    checks = (
        ("joint", "origin", model.jnt_p, MAX_LENGTH, "m"),
        ("body", "centre of mass", model.body_com, MAX_LENGTH, "m"),
        ("body", "mass", model.body_mass, MAX_MASS, "kg"),
        ("body", "inertia", model.body_inertia, MAX_INERTIA, "kg m^2"),
    )
    for kind, what, values, bound, unit in checks:
        big = np.abs(np.asarray(values, dtype=float).reshape(model.nb, -1)).max(axis=1)
        for i in np.flatnonzero(big > bound):
            name = model.joint_names_all[i] if kind == "joint" else model.body_names[i]
            out.append(
                Finding(
                    "error",
                    f"{kind} {name!r}",
                    f"{what}: {big[i]:.3g} {unit} is beyond robodyn's bound of {bound:.0e} "
                    f"{unit} (the dynamics' products of such numbers overflow float64)",
                    _TOO_BIG_FIX,
                    "overflow",
                )
            )
    return out


def _check_loaded(model: Model) -> Report:
    """The findings on a loaded Model, body by body: inertia, massless moving subtrees,
    mimic joints, limits; then the merges its notes record."""
    findings: list[Finding] = _magnitude_findings(model)
    end = model.body_subtree_end
    # bodies with mass or inertia among 0..k-1 (subtrees are contiguous ranges): a subtree's
    # count in O(1), so the check is linear in the bodies
    weighty = model.body_mass > 0
    weighty |= np.any(model.body_inertia.reshape(model.nb, 9) != 0, axis=1)
    before = np.concatenate([[0], np.cumsum(weighty)])
    reported = 0  # bodies before this index are in a massless subtree already reported
    for i in range(1, model.nb):
        findings += _body_inertia_findings(model, i)
        if (model.jnt_nv[i] > 0 or model.jnt_mimic[i] >= 0) and i >= reported:
            sub = slice(i, int(end[i]))
            if before[end[i]] == before[i]:  # nothing in bodies i..end-1 has mass or inertia
                reported = int(end[i])  # the moving joints inside it: in this finding
                findings.append(
                    Finding(
                        "error",
                        f"joint {model.joint_names_all[i]!r}",
                        "moves a massless subtree (bodies "
                        f"{', '.join(repr(n) for n in model.body_names[sub])}): the mass "
                        "matrix is singular",
                        "give the bodies mass and inertia, or make the joint fixed",
                        "massless_subtree",
                    )
                )
        if model.jnt_mimic[i] >= 0:
            lead = model.joint_names_all[model.jnt_mimic[i]]
            findings.append(
                Finding(
                    "info",
                    f"joint {model.joint_names_all[i]!r}",
                    f"mimic joint: q = {model.jnt_mimic_mult[i]:g} * q_{lead} + "
                    f"{model.jnt_mimic_offset[i]:g}",
                    "nothing to do",
                    "mimic",
                )
            )
        findings += _loaded_limit_findings(model, i)
    for note in model.notes:
        if "merged" in note:
            findings.append(Finding("info", "model", note, "nothing to do", "fixed_merged"))
    return Report(findings, f"model {model.name!r}")


def _body_inertia_findings(model: Model, i: int) -> list[Finding]:
    """Body i's inertia checked as a URDF ``<inertial>`` would be (:func:`inertial_issue`)."""
    issue = inertial_issue(
        UrdfInertial(float(model.body_mass[i]), (0, 0, 0), (0, 0, 0), model.body_inertia[i])
    )
    if issue is None:
        return []
    return [
        Finding(
            issue[0],
            f"body {model.body_names[i]!r}",
            f"inertia is not physical: {issue[1]}",
            "recompute the body's inertia",
            "inertia_not_physical",
        )
    ]


def _loaded_limit_findings(model: Model, i: int) -> list[Finding]:
    """A one-coordinate revolute or prismatic joint i that cannot move: equal position
    limits, an effort or velocity limit of 0."""
    jt = int(model.jnt_type[i])
    if not (jt in (JOINT_REVOLUTE, JOINT_PRISMATIC) and model.jnt_nq[i] == 1):
        return []
    out = []
    a, v = model.jnt_qadr[i], model.jnt_vadr[i]
    jel = f"joint {model.joint_names_all[i]!r}"
    if model.q_lower[a] == model.q_upper[a]:
        out.append(
            Finding(
                "warning",
                jel,
                f"lower == upper == {model.q_lower[a]:g}: the joint cannot move",
                "set the real range, or make the joint fixed",
                "limit_equal",
            )
        )
    if model.effort_limit[v] == 0:
        out.append(
            Finding("warning", jel, "effort limit 0", "set the real effort limit", "effort_zero")
        )
    if model.v_limit[v] == 0:
        out.append(
            Finding(
                "warning", jel, "velocity limit 0", "set the real velocity limit", "velocity_zero"
            )
        )
    return out


def check_model(model_or_urdf) -> Report:
    """Report what would make the dynamics of a model silently wrong.

    Parameters
    ----------
    model_or_urdf : Model, str, os.PathLike or bytes
        A loaded model, or a URDF or MJCF document (path, XML string or bytes; MJCF when
        its root element is ``<mujoco>``). A URDF is checked on its raw elements, so a URDF
        that does not load still gets a full report; an MJCF document is loaded by
        :func:`~robodyn.load_mjcf` (what it cannot represent, its warning, is a finding of
        kind ``"mjcf_dropped"``; a document it refuses, one of kind ``"parse"``) and the
        Model is checked.

    Returns
    -------
    Report
        A list of :class:`Finding`, errors first; ``print(report)`` is readable and
        ``report.ok`` is True when there is no error.
    """
    if isinstance(model_or_urdf, Model):
        return _check_loaded(model_or_urdf)
    if _is_mjcf(model_or_urdf):
        return _check_mjcf(model_or_urdf)
    return _check_urdf(model_or_urdf)


def _is_mjcf(source) -> bool:
    """Whether ``source`` (a path, XML text or bytes) is an MJCF document; a path that does
    not name a readable file is left to the URDF road, which says so."""
    try:
        return root_tag(source) == "mujoco"
    except (OSError, TypeError, ValueError):
        return False


_DROPPED_FIX = (
    "nothing to do for the rigid-body dynamics; model those elements outside robodyn (e.g. "
    "actuator forces as joint torques) or simulate them with MuJoCo"
)


def _check_mjcf(source) -> Report:
    """An MJCF document: loaded by load_mjcf, its warnings (what robodyn cannot represent)
    as findings, then the loaded Model's checks."""
    text = source if isinstance(source, (str, os.PathLike)) else ""
    origin = os.fspath(text) if text and not str(text).lstrip().startswith("<") else "<xml>"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = load_mjcf(source)
    except ModelError as exc:
        return Report(
            [Finding("error", "MJCF", str(exc), "fix the XML as the message says", "parse")],
            f"MJCF {origin}",
        )
    dropped = [
        Finding("warning", "MJCF", str(w.message), _DROPPED_FIX, "mjcf_dropped")
        for w in caught
        if issubclass(w.category, ModelWarning)
    ]
    return Report([*dropped, *_check_loaded(model)], f"MJCF robot {model.name!r} ({origin})")


# ============================================================================ fix
def _inertial_element(mass: float, com, I: np.ndarray) -> ET.Element:
    el = ET.Element("inertial")
    ET.SubElement(el, "origin", xyz=" ".join(f"{x:.12g}" for x in com), rpy="0 0 0")
    ET.SubElement(el, "mass", value=f"{mass:.12g}")
    ET.SubElement(
        el,
        "inertia",
        ixx=f"{I[0, 0]:.12g}",
        ixy=f"{I[0, 1]:.12g}",
        ixz=f"{I[0, 2]:.12g}",
        iyy=f"{I[1, 1]:.12g}",
        iyz=f"{I[1, 2]:.12g}",
        izz=f"{I[2, 2]:.12g}",
    )
    return el


class FixResult(list):
    """What :func:`fix_urdf` did: a list of the changes (one line each, with the numbers),
    and

    Attributes
    ----------
    path : pathlib.Path
        The corrected URDF that was written.
    not_fixed : list of str
        Problems it found and could not correct (no collision primitive to rebuild an
        inertia from, a negative mass without geometry).
    after : Report
        :func:`check_model` of the written file: what remains.
    """

    def __init__(self, changes, path, not_fixed, after):
        super().__init__(changes)
        self.path = path
        self.not_fixed = list(not_fixed)
        self.after = after

    def __str__(self) -> str:
        what = f"{len(self)} change(s)" if self else "nothing to correct"
        lines = [f"wrote {self.path}: {what}"]
        lines += [f"  changed: {c}" for c in self]
        lines += [f"  not fixed: {c}" for c in self.not_fixed]
        if self.after.errors:
            lines.append(f"  {len(self.after.errors)} error(s) remain in {self.path.name}")
        return "\n".join(lines)


def _set_inertia(i_el: ET.Element, I: np.ndarray) -> None:
    for k, (r, c) in {"ixx": (0, 0), "ixy": (0, 1), "ixz": (0, 2), "iyy": (1, 1),
                      "iyz": (1, 2), "izz": (2, 2)}.items():  # fmt: skip
        i_el.set(k, f"{I[r, c]:.12g}")


def fix_urdf(path, out_path, density: float = 1000.0, *, overwrite: bool = False) -> FixResult:
    """Write a corrected copy of a URDF (the original file is never touched).

    Each change is recorded in an XML comment in the output and in the result:

    * product-of-inertia signs flipped where that alone makes a tensor physical (CAD
      products written where URDF wants the tensor entries);
    * a tensor that violates the triangle inequality or is not positive semi-definite:
      the nearest physical tensor with the same principal axes and mass
      (:func:`balanced_inertia`);
    * zero mass with a non-zero tensor: the tensor set to zero;
    * an inertia implausible for the collision geometry, a negative mass, or a link without
      ``<inertial>`` on a massless moving subtree: recomputed from the collision primitives
      (box, cylinder, sphere) with the stated mass when positive, else uniform ``density``.

    What it cannot correct (no primitive collision geometry) is listed in
    ``result.not_fixed`` and left as it was; ``result.after`` re-checks the written file.

    Parameters
    ----------
    path : str or os.PathLike
        The URDF file.
    out_path : str or os.PathLike
        Where to write the corrected URDF: never ``path`` itself nor a link to it; an
        existing file only with ``overwrite=True`` (a symbolic link there is replaced, its
        target left alone). Written atomically.
    density : float
        kg/m^3 for recomputed inertias (1000: water, plastics ~1200, aluminium 2700).

    Returns
    -------
    FixResult
        The list of changes, with ``.path``, ``.not_fixed`` and ``.after``.
    """
    src, dst = _fix_paths(path, out_path, density, overwrite)
    data, origin = read_source(src)
    root = parse_xml(data, origin, comments=True)  # (the tree the fixes are written into)
    robot = robot_from_bytes(data, origin)
    massless_links = _massless_links(robot)
    changes: list[str] = []
    not_fixed: list[str] = []
    link_elements = {el.get("name"): el for el in root.findall("link")}
    for name, link in robot.links.items():
        change, failed = _fix_link(link_elements[name], link, name in massless_links, density)
        if change is not None:
            changes.append(change)
        if failed is not None:
            not_fixed.append(failed)
    _write_fixed(root, src, dst, changes, not_fixed)
    return FixResult(changes, dst, not_fixed, check_model(dst))


def _fix_paths(path, out_path, density, overwrite: bool) -> tuple[Path, Path]:
    """``(path, out_path)`` as Paths, after checking the density and that the output may be
    written (never the input; an existing file only with ``overwrite``), before any work."""
    if not (isinstance(density, (int, float)) and math.isfinite(density) and density > 0):
        raise ValueError(f"density must be a positive number (kg/m^3), got {density!r}")
    src, dst = Path(os.fspath(path)), Path(os.fspath(out_path))
    if dst.exists() and src.exists() and dst.resolve() == src.resolve():
        raise ValueError("out_path must differ from path: fix_urdf never overwrites the original")
    output_path(dst, overwrite=overwrite, name="out_path", inputs=(src,))
    return src, dst


def _massless_links(robot: UrdfRobot) -> set[str]:
    """The links without ``<inertial>`` on a massless moving subtree (none when the links
    do not form one tree)."""
    try:
        _, children = kinematic_tree(robot)
    except ModelError:
        return set()
    return {s for _, _, bare in massless_subtrees(robot, children) for s in bare}


def _fix_link(el: ET.Element, link: UrdfLink, massless: bool, density: float) -> tuple:
    """Correct one ``<link>`` element ``el`` in place: ``(change, not fixed)``, each a line
    saying what was done (or could not be), or None. A change is also written as a
    comment at the top of the element."""
    old = el.find("inertial")
    change, rebuild = _correct_inertial(old, link, massless)
    if rebuild is not None:
        change = _rebuild_inertial(el, old, link, rebuild, density)
        if change is None:
            return None, (
                f"link {link.name!r}: inertia {rebuild}; no box/cylinder/sphere collision to "
                "recompute it from: left as it was"
            )
    if change is not None:
        el.insert(0, ET.Comment(f" robodyn fix_urdf: {change} "))
    return change, None


def _correct_inertial(old: ET.Element | None, link: UrdfLink, massless: bool) -> tuple:
    """``(change, rebuild)``: what was corrected in the ``<inertial>`` element ``old`` (signs
    flipped, a massless link's tensor zeroed, a tensor balanced), or why the inertia must be
    recomputed from the collision geometry instead; None for either when not the case."""
    name, inertial = link.name, link.inertial
    kinds = {f.kind for f in _inertia_findings(name, inertial)} if inertial else set()
    if "inertia_sign" in kinds:
        i_el = old.find("inertia")
        for k in ("ixy", "ixz", "iyz"):
            v = i_el.get(k)
            if v is not None and float(v) != 0:
                i_el.set(k, f"{-float(v):.17g}")
        return f"link {name!r}: signs of ixy, ixz, iyz flipped (CAD products -> tensor)", None
    if inertial is not None and inertial.mass < 0:
        return None, f"negative mass {inertial.mass:g} kg"
    if "inertia_massless" in kinds:
        _set_inertia(old.find("inertia"), np.zeros((3, 3)))
        return f"link {name!r}: zero mass with a non-zero tensor; tensor set to zero", None
    if "inertia_not_physical" in kinds:
        return _balance_inertial(old, link)
    if inertial is not None and geometry_problem(link) is not None:
        return None, "implausible for the collision geometry"
    if massless:
        return None, "missing on a massless moving subtree"
    return None, None


def _balance_inertial(old: ET.Element, link: UrdfLink) -> tuple:
    """``(change, rebuild)`` for a tensor that is not physical: the nearest physical one
    (:func:`balanced_inertia`) written into ``old``, unless that one is implausible for the
    collision geometry too (then the geometry knows better: rebuild)."""
    inertial = link.inertial
    new_I = balanced_inertia(inertial.inertia)
    balanced = UrdfLink(
        link.name, UrdfInertial(inertial.mass, inertial.xyz, inertial.rpy, new_I),
        link.collisions, link.visuals,
    )  # fmt: skip
    if inertial.mass > 0 and geometry_problem(balanced) is not None:
        # grossly wrong, not a round-off of the export: the geometry knows better
        return None, "not physical and implausible for the collision geometry"
    _set_inertia(old.find("inertia"), new_I)
    was = np.array2string(np.linalg.eigvalsh(inertial.inertia), precision=6)
    now = np.array2string(np.linalg.eigvalsh(new_I), precision=6)
    return (
        f"link {link.name!r}: inertia not physical (principal moments {was}); the "
        f"nearest physical tensor with the same axes and mass: principal moments "
        f"{now}"
    ), None


def _rebuild_inertial(el, old, link: UrdfLink, rebuild: str, density: float) -> str | None:
    """Replace (or add) the link's ``<inertial>`` by the one of its collision primitives,
    with the stated mass when positive, else ``density``; the change, or None when there
    is no primitive to compute it from."""
    inertial = link.inertial
    keep = inertial is not None and inertial.mass > 0
    prim = primitive_inertia(link.collisions, mass=inertial.mass if keep else None, density=density)
    if prim is None:
        return None
    m, c, I = prim
    new = _inertial_element(m, c, I)
    how = "stated mass kept" if keep else f"density {density:g} kg/m^3"
    shapes = "+".join(g.kind for g in link.collisions)
    if old is not None:
        index = list(el).index(old)
        el.remove(old)
        el.insert(index, new)
    else:
        el.insert(0, new)
    return (
        f"link {link.name!r}: inertia {rebuild}; recomputed from the collision {shapes} "
        f"({how}): m = {m:.6g} kg, diag I = {np.array2string(np.diag(I), precision=6)}"
    )


def _write_fixed(root: ET.Element, src: Path, dst: Path, changes, not_fixed) -> None:
    """Write the corrected tree to ``dst`` atomically, a comment at the top listing every
    change and what was not fixed."""
    body = changes + [f"not fixed: {c}" for c in not_fixed]
    header = (
        "robodyn fix_urdf of "
        + str(src.name)
        + ":\n  "
        + ("\n  ".join(body) if body else "no change needed")
    )
    root.insert(0, ET.Comment(" " + header.replace("--", "- -") + "\n"))
    with atomic_write(dst) as tmp:  # written beside, then renamed: never half a file
        ET.ElementTree(root).write(tmp, encoding="utf-8", xml_declaration=True)
