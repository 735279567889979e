"""Models made from models: a reduced model with joints locked (:func:`lock_joints`, as
Pinocchio's ``buildReducedModel``) and one model attached to another (:func:`attach`, as
Pinocchio's ``appendModel``).

Both take a Model apart into one record per body (:class:`_Body`: its inboard joint and
placement, its inertia, the joint's per-coordinate limits and coefficients), its frames and
its visuals (:class:`_Tree`); change the records; and lay them out as a Model again
(:func:`_laid_out`) by the builder's rules (:mod:`robodyn.model.builder`): bodies depth first
(removing a body, or inserting a subtree after the subtree of its new parent, keeps the
order depth first), the coordinates of the joints that own some in body order, a mimic
joint on its leader's. Every joint keeps its own numbers exactly: position, velocity and
effort limits, damping, Coulomb friction and armature, per coordinate.

Merging a body into its host (a locked joint; a floating child fixed at a frame) moves the
body's inertia into the host frame and adds it by the parallel-axis theorem (MR eq. 8.26,
:func:`robodyn.inertia.compound`); its frames, its own name (kept as a frame), its
children and its visuals are re-expressed in the host. A body merged into the fixed world
gives its mass to the world, which carries no dynamics (as the builder does for a fixed
link of the world).

The module reads Models and makes new ones with ``dataclasses.replace``, importing no
loader, so it sits below :mod:`robodyn.model.model` and :meth:`Model.lock_joints` calls it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

import numpy as np

from ..inertia import compound
from ..spatial import check_transform, project_to_so3, transform
from .joints import (
    JOINT_FIXED,
    JOINT_FREE,
    JOINT_PLANAR,
    JOINT_SPHERICAL,
    JOINT_TYPE_NAMES,
    joint_motion,
)

__all__ = ["lock_joints", "attach", "ATTACH_JOINTS"]

#: the ``joint=`` values :func:`attach` takes (None is "fixed")
ATTACH_JOINTS = ("fixed", "free", "planar")

_Q_FIELDS = ("q_lower", "q_upper")  # the Model's (nq,) arrays, per coordinate
_V_FIELDS = ("v_limit", "effort_limit", "dof_damping", "dof_friction", "dof_armature")  # (nv,)


@dataclasses.dataclass
class _Body:
    """One body of a Model and its inboard joint, as lock_joints and attach edit them."""

    name: str
    parent: str  # the parent body's name
    joint: str
    jtype: int  # JOINT_*
    axis: np.ndarray  # (3,)
    T: np.ndarray  # (4, 4) the joint frame in the parent body at q = 0
    inertia: tuple  # (m, c (3,), I_c (3, 3)) in the body frame
    pitch: float
    axis2: np.ndarray  # (3,)
    mimic: str | None  # the leader joint's name
    mult: float
    offset: float
    coords: dict  # Model field -> this joint's entries: (nq_j,) for _Q_FIELDS, (nv_j,) others


@dataclasses.dataclass
class _Tree:
    """A Model as records: the world's name, the bodies depth first, every frame (the
    bodies' own among them) as (name, body name, T_body_frame), every visual as (body
    name, T_body_geometry, geometry)."""

    root: str
    bodies: list
    frames: list
    visuals: list


def _tree(model) -> _Tree:
    """The records of ``model``."""
    names = model.body_names
    bodies = []
    for i in range(1, model.nb):
        qa, nq = int(model.jnt_qadr[i]), int(model.jnt_nq[i])
        va, nv = int(model.jnt_vadr[i]), int(model.jnt_nv[i])
        coords = {k: np.array(getattr(model, k)[qa : qa + nq]) for k in _Q_FIELDS}
        coords.update({k: np.array(getattr(model, k)[va : va + nv]) for k in _V_FIELDS})
        lead = int(model.jnt_mimic[i])
        inertia = (float(model.body_mass[i]), np.array(model.body_com[i]),
                   np.array(model.body_inertia[i]))  # fmt: skip
        bodies.append(
            _Body(
                name=names[i], parent=names[model.body_parent[i]],
                joint=model.joint_names_all[i], jtype=int(model.jnt_type[i]),
                axis=np.array(model.jnt_axis[i]), T=transform(model.jnt_R[i], model.jnt_p[i]),
                inertia=inertia, pitch=float(model.jnt_pitch[i]),
                axis2=np.array(model.jnt_axis2[i]),
                mimic=None if lead < 0 else model.joint_names_all[lead],
                mult=float(model.jnt_mimic_mult[i]), offset=float(model.jnt_mimic_offset[i]),
                coords=coords,
            )
        )  # fmt: skip
    frames = [
        (model.frame_names[k], names[model.frame_body[k]],
         transform(model.frame_R[k], model.frame_p[k]))
        for k in range(model.nf)
    ]  # fmt: skip
    visuals = [(names[b], np.array(T), g) for b, T, g in model.visuals]
    return _Tree(names[0], bodies, frames, visuals)


def _no_coordinates(b: _Body) -> None:
    """Make ``b``'s joint fixed: no coordinates, no mimic."""
    b.jtype, b.mimic, b.mult, b.offset = JOINT_FIXED, None, 1.0, 0.0
    b.coords = {k: np.zeros(0) for k in (*_Q_FIELDS, *_V_FIELDS)}


def _moved_sum(host: tuple, part: tuple, T_hp: np.ndarray) -> tuple:
    """(m, c, I_c) of ``host`` and ``part`` joined, ``part`` given in its own frame {p} at
    ``T_hp`` in the host frame {h}: c_h = R c_p + p, I_h = R I_p R^T, then the compound
    about the joint centre of mass (parallel-axis theorem, MR eq. 8.26)."""
    R, p = T_hp[:3, :3], T_hp[:3, 3]
    return compound([host, (part[0], R @ part[1] + p, R @ part[2] @ R.T)])


def _merge(tree: _Tree, merged: set, notes: list) -> _Tree:
    """``tree`` with each body named in ``merged`` welded into its host, the nearest kept
    ancestor, at the placement its record says (its joint fixed); depth first, so a
    body's host is known before the body."""
    host: dict[str, tuple[str, np.ndarray]] = {tree.root: (tree.root, np.eye(4))}
    inertia: dict[str, tuple] = {}
    kept = []
    for b in tree.bodies:
        h, T_hp = host[b.parent]
        T_hb = T_hp @ b.T  # T_{h,b} = T_{h,parent} T_{parent,b}
        if b.name not in merged:
            host[b.name] = (b.name, np.eye(4))
            inertia[b.name] = b.inertia
            kept.append(dataclasses.replace(b, parent=h, T=T_hb))
            continue
        host[b.name] = (h, T_hb)
        if h != tree.root:
            inertia[h] = _moved_sum(inertia[h], b.inertia, T_hb)
        elif b.inertia[0] > 0:
            notes.append(f"body {b.name!r} welded to the fixed world: its mass "
                         f"{b.inertia[0]:g} kg is carried by the world")  # fmt: skip
        notes.append(f"body {b.name!r} merged into {h!r} (its name kept as a frame)")
    bodies = [dataclasses.replace(b, inertia=inertia[b.name]) for b in kept]
    frames = [(n, host[b][0], host[b][1] @ T) for n, b, T in tree.frames]
    visuals = [(host[b][0], host[b][1] @ T, g) for b, T, g in tree.visuals]
    return _Tree(tree.root, bodies, frames, visuals)


def _numbering(parent: np.ndarray, nq_j: np.ndarray, nv_j: np.ndarray, mimic: np.ndarray):
    """``(qadr, vadr, subtree_end, dof_body, dof_parent)`` of a depth-first tree: the joints'
    coordinates in body order, a mimic joint's at its leader's; the subtree of i is
    i .. subtree_end[i] - 1; each dof's body and the previous dof towards the root."""
    nb = len(parent)
    qadr = np.concatenate([[0], np.cumsum(nq_j)[:-1]]).astype(np.int64)
    vadr = np.concatenate([[0], np.cumsum(nv_j)[:-1]]).astype(np.int64)
    follows = mimic >= 0
    qadr[follows], vadr[follows] = qadr[mimic[follows]], vadr[mimic[follows]]
    subtree_end = np.arange(1, nb + 1, dtype=np.int64)
    for i in range(nb - 1, 0, -1):
        subtree_end[parent[i]] = max(subtree_end[parent[i]], subtree_end[i])
    dof_body = np.repeat(np.arange(nb, dtype=np.int64), nv_j)
    dof_parent = np.arange(len(dof_body), dtype=np.int64) - 1  # within a joint: the dof before
    last = np.full(nb, -1, np.int64)  # the last dof on the path world .. i
    for i in range(1, nb):
        if nv_j[i]:
            dof_parent[vadr[i]] = last[parent[i]]
            last[i] = vadr[i] + nv_j[i] - 1
        else:
            last[i] = last[parent[i]]
    return qadr, vadr, subtree_end, dof_body, dof_parent


def _laid_out(template, tree: _Tree, notes, *, source) -> object:
    """The Model of ``tree`` (bodies depth first, frame and body names unique), with the
    name and gravity of ``template`` (a Model; its class makes the new one)."""
    bodies = tree.bodies
    names = [tree.root] + [b.name for b in bodies]
    index = {n: k for k, n in enumerate(names)}
    by_joint = {b.joint: k + 1 for k, b in enumerate(bodies)}
    parent = np.array([-1] + [index[b.parent] for b in bodies], np.int64)
    nq_j = np.array([0] + [len(b.coords["q_lower"]) for b in bodies], np.int64)
    nv_j = np.array([0] + [len(b.coords["v_limit"]) for b in bodies], np.int64)
    mimic = np.array([-1] + [-1 if b.mimic is None else by_joint[b.mimic] for b in bodies])
    qadr, vadr, subtree_end, dof_body, dof_parent = _numbering(parent, nq_j, nv_j, mimic)
    world = _Body(tree.root, "", "", JOINT_FIXED, np.zeros(3), np.eye(4),
                  (0.0, np.zeros(3), np.zeros((3, 3))), 0.0, np.zeros(3), None, 1.0, 0.0,
                  {})  # fmt: skip
    every = [world, *bodies]
    visuals = []
    for b, T, g in tree.visuals:
        T = np.array(T, dtype=float)
        T.flags.writeable = False
        visuals.append((index[b], T, g))
    fields = dict(
        body_names=tuple(names),
        joint_names_all=tuple(b.joint for b in every),
        frame_names=tuple(f[0] for f in tree.frames),
        body_parent=parent, body_subtree_end=subtree_end,
        body_mass=np.array([b.inertia[0] for b in every]),
        body_com=np.array([b.inertia[1] for b in every]).reshape(-1, 3),
        body_inertia=np.array([b.inertia[2] for b in every]).reshape(-1, 3, 3),
        jnt_type=np.array([b.jtype for b in every], np.int64),
        jnt_axis=np.array([b.axis for b in every]).reshape(-1, 3),
        jnt_R=np.array([b.T[:3, :3] for b in every]).reshape(-1, 3, 3),
        jnt_p=np.array([b.T[:3, 3] for b in every]).reshape(-1, 3),
        jnt_qadr=qadr, jnt_vadr=vadr, jnt_nq=nq_j, jnt_nv=nv_j, jnt_mimic=mimic,
        jnt_mimic_mult=np.array([b.mult for b in every]),
        jnt_mimic_offset=np.array([b.offset for b in every]),
        dof_body=dof_body, dof_parent=dof_parent,
        frame_body=np.array([index[f[1]] for f in tree.frames], np.int64),
        frame_R=np.array([f[2][:3, :3] for f in tree.frames]).reshape(-1, 3, 3),
        frame_p=np.array([f[2][:3, 3] for f in tree.frames]).reshape(-1, 3),
        jnt_pitch=np.array([b.pitch for b in every]),
        jnt_axis2=np.array([b.axis2 for b in every]).reshape(-1, 3),
        notes=tuple(notes), visuals=tuple(visuals), source=source,
    )  # fmt: skip
    for k in (*_Q_FIELDS, *_V_FIELDS):
        fields[k] = np.concatenate([np.zeros(0)] + [b.coords[k] for b in bodies])
    return dataclasses.replace(template, **fields)


# ============================================================================ lock_joints
def _locked(model, names) -> tuple[list[str], list[int]]:
    """``(named, bodies)``: the joints named (checked) and the bodies whose joints lock,
    the followers of a locked leader with them, in body order."""
    if isinstance(names, str):
        names = [names]
    try:
        named = list(dict.fromkeys(names))
    except TypeError:
        raise ValueError(
            f"names must be a joint name or a list of joint names, got {type(names).__name__}"
        ) from None
    known = model.joint_names_all[1:]
    if any(not isinstance(n, str) for n in named):
        raise ValueError(f"names must be joint names (str), got {named!r}")
    unknown = [n for n in named if n not in known]
    if unknown:
        raise ValueError(
            f"names: no joint named {', '.join(map(repr, unknown))} in model "
            f"{model.name!r}; its joints: {', '.join(model.joint_names) or 'none'}"
        )
    ids = {model.joint_id(n) for n in named}
    fixed = [model.joint_names_all[i] for i in sorted(ids) if model.jnt_type[i] == JOINT_FIXED]
    if fixed:
        raise ValueError(f"names: joint {', '.join(map(repr, fixed))} is fixed already")
    alone = [
        f"{model.joint_names_all[i]!r} follows {model.joint_names_all[model.jnt_mimic[i]]!r}"
        for i in sorted(ids)
        if model.jnt_mimic[i] >= 0 and model.jnt_mimic[i] not in ids
    ]
    if alone:  # a coupling (gears, a tendon): the follower cannot stop while its leader moves
        raise ValueError(f"names: the mimic joint {', '.join(alone)}; lock its leader, which "
                         "locks its followers")  # fmt: skip
    ids |= {i for i in range(1, model.nb) if model.jnt_mimic[i] in ids}
    return named, sorted(ids)


def _lock_values(model, named: list[str], bodies: list[int], q) -> dict[int, np.ndarray]:
    """Each locked body's joint coordinates: from the full configuration ``q`` (nq,), or
    from a mapping joint name -> value; a follower of a locked leader (unless named with
    its own value) at ``mult * q_leader + offset``."""
    coords = {}  # body -> its own coordinates (a mimic joint's: its position)
    if isinstance(q, Mapping):
        extra = [k for k in q if k not in named]
        missing = [n for n in named if n not in q]
        if extra or missing:
            raise ValueError(
                "q: a mapping needs one value for each locked joint, "
                + (f"no value for {', '.join(map(repr, missing))}" if missing else "")
                + ("; " if extra and missing else "")
                + (f"{', '.join(map(repr, extra))} not locked" if extra else "")
            )
        for n in named:
            i = model.joint_id(n)
            k = 1 if model.jnt_mimic[i] >= 0 else int(model.jnt_nq[i])
            x = np.asarray(q[n], dtype=float).reshape(-1) if _numeric(q[n]) else None
            if x is None or x.shape != (k,) or not np.all(np.isfinite(x)):
                kind = JOINT_TYPE_NAMES[int(model.jnt_type[i])]
                raise ValueError(f"q[{n!r}] must be {k} finite number(s) for the {kind} "
                                 f"joint, got {q[n]!r}")  # fmt: skip
            coords[i] = x
    else:
        x = np.asarray(q, dtype=float) if _numeric(q) else None
        if x is None or x.shape != (model.nq,):
            got = f"shape {x.shape}" if x is not None else f"{type(q).__name__}"
            raise ValueError(f"q must be the model's configuration, shape ({model.nq},), or a "
                             f"mapping joint name -> value; got {got}")  # fmt: skip
        if not np.all(np.isfinite(x)):
            raise ValueError("q contains NaN or inf")
        for i in bodies:  # a mimic joint's qadr is its leader's
            qa, nq = int(model.jnt_qadr[i]), int(model.jnt_nq[i])
            coords[i] = x[qa : qa + nq] if nq else _follow(model, i, x[qa : qa + 1])
    for i in bodies:  # a follower locked with its leader (a mapping names the leader)
        if i not in coords:
            coords[i] = _follow(model, i, coords[int(model.jnt_mimic[i])])
    for i in bodies:
        jt = int(model.jnt_type[i])
        quat = coords[i][3:7] if jt == JOINT_FREE else coords[i] if jt == JOINT_SPHERICAL else None
        if quat is not None and not np.linalg.norm(quat) > 0:
            raise ValueError(f"q: the quaternion of joint {model.joint_names_all[i]!r} is zero")
    return coords


def _follow(model, i: int, x_leader: np.ndarray) -> np.ndarray:
    """The position of the mimic joint i when its leader is at ``x_leader``."""
    return model.jnt_mimic_mult[i] * x_leader + model.jnt_mimic_offset[i]


def _numeric(x) -> bool:
    try:
        np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return False
    return True


def lock_joints(model, names, q):
    """The reduced model with the joints ``names`` fixed at the configuration ``q``.

    Each locked joint becomes a fixed joint at its placement for ``q``, and its body is
    merged into its parent: masses added, centres of mass and inertias combined about the
    joint centre of mass by the parallel-axis theorem (MR eq. 8.26); every frame is kept,
    re-expressed in the body it now belongs to, and the merged body's name stays a frame.
    The remaining joints keep their order, limits, damping, friction, armature and mimic
    couplings; locking a mimic joint's leader locks its followers (at ``mult * q_leader +
    offset``). Pinocchio's ``buildReducedModel`` does the same.

    Parameters
    ----------
    model : Model
    names : str or iterable of str
        The joints to lock (any moving joint: free, spherical, planar ... included).
    q : array_like, shape (nq,), or mapping
        The configuration of ``model`` to lock them at, or ``{joint name: value}`` with one
        value for each joint of ``names`` (a number for a 1-dof or mimic joint, the joint's
        coordinates otherwise, e.g. [qw, qx, qy, qz] for a spherical joint).

    Returns
    -------
    Model
        With ``nq`` and ``nv`` reduced by the locked joints' coordinates; ``model.notes``
        records what was locked and merged.

    Raises
    ------
    ValueError
        Naming the argument: an unknown or fixed joint in ``names`` (the joints listed),
        ``q`` of the wrong size or not finite, a mapping missing a locked joint or naming
        another, a zero quaternion.
    """
    named, bodies = _locked(model, names)
    if not bodies:
        return model
    coords = _lock_values(model, named, bodies, q)
    tree = _tree(model)
    notes = list(model.notes)
    for i in bodies:
        b = tree.bodies[i - 1]
        b.T = b.T @ joint_motion(b.jtype, b.axis, coords[i], pitch=b.pitch, axis2=b.axis2)
        why = f" (follows {b.mimic!r})" if b.mimic is not None and b.joint not in named else ""
        notes.append(f"joint {b.joint!r} locked at {np.round(coords[i], 12).tolist()}{why}")
        _no_coordinates(b)
    merged = _merge(tree, {tree.bodies[i - 1].name for i in bodies}, notes)
    return _laid_out(model, merged, notes, source=model.source)


# ================================================================================= attach
def _attach_args(parent, frame, child, T, prefix, joint) -> tuple[int, np.ndarray, str]:
    """``(frame index, T, joint)`` checked: ValueError naming the argument."""
    for what, m in (("parent", parent), ("child", child)):
        if not all(hasattr(m, k) for k in ("body_names", "frame_body", "jnt_type")):
            raise ValueError(f"{what} must be a robodyn Model, got {type(m).__name__}")
    if not isinstance(frame, (str, int, np.integer)) or isinstance(frame, bool):
        raise ValueError(f"frame must be a frame name or index, got {frame!r}")
    try:
        f = parent.frame_id(frame)
    except ValueError as exc:
        raise ValueError(f"frame: {exc} (of the parent model {parent.name!r})") from None
    if T is None:
        T = np.eye(4)
    else:
        check_transform(T, "T")
        T = np.asarray(T, dtype=float)
        if T.shape != (4, 4):
            raise ValueError(f"T must have shape (4, 4), got {T.shape}")
        T = transform(project_to_so3(T[:3, :3]), T[:3, 3])
    if not isinstance(prefix, str):
        raise ValueError(f"prefix must be a string, got {prefix!r}")
    kind = "fixed" if joint is None else joint
    if kind not in ATTACH_JOINTS:
        raise ValueError(f"joint must be one of {', '.join(map(repr, ATTACH_JOINTS))} or "
                         f"None, got {joint!r}")  # fmt: skip
    return f, T, kind


def _prefixed(tree: _Tree, prefix: str) -> _Tree:
    """``tree`` with ``prefix`` before every name but the world's."""

    def p(n: str) -> str:
        return n if n == tree.root else prefix + n

    bodies = [
        dataclasses.replace(b, name=p(b.name), parent=p(b.parent), joint=prefix + b.joint,
                            mimic=None if b.mimic is None else prefix + b.mimic)
        for b in tree.bodies
    ]  # fmt: skip
    frames = [(n if n == tree.root and b == tree.root else prefix + n, p(b), T)
              for n, b, T in tree.frames]  # fmt: skip
    visuals = [(p(b), T, g) for b, T, g in tree.visuals]
    return _Tree(tree.root, bodies, frames, visuals)


def _moving_joint(b: _Body, kind: str) -> None:
    """Give ``b`` a free or planar joint (normal z) with no limits and no friction."""
    b.jtype = JOINT_FREE if kind == "free" else JOINT_PLANAR
    b.axis = np.array([0.0, 0.0, 1.0]) if kind == "planar" else np.zeros(3)
    b.mimic, b.pitch, b.axis2 = None, 0.0, np.zeros(3)
    nq, nv, unit = (7, 6, slice(3, 7)) if kind == "free" else (3, 3, slice(0, 0))
    b.coords = {"q_lower": np.full(nq, -np.inf), "q_upper": np.full(nq, np.inf),
                "v_limit": np.full(nv, np.inf), "effort_limit": np.full(nv, np.inf),
                "dof_damping": np.zeros(nv), "dof_friction": np.zeros(nv),
                "dof_armature": np.zeros(nv)}  # fmt: skip
    b.coords["q_lower"][unit], b.coords["q_upper"][unit] = -1.0, 1.0  # a quaternion's entries


def _mount(tree: _Tree, child, host: str, T_hm: np.ndarray, kind: str, prefix: str, notes):
    """The child's records hung from the parent's body ``host`` at ``T_hm`` (the frame moved
    by T) by ``kind``: ``(tree of the child's bodies and frames, bodies to merge)``."""
    root, merged = tree.root, set()
    bodies, frames = list(tree.bodies), [f for f in tree.frames if f[1] != root or f[0] != root]
    floating = child.floating_base
    carrier, T_cm = host, T_hm  # the body the child's world becomes, and where in it
    new = None
    if floating and kind == "fixed":
        merged.add(bodies[0].name)
        notes.append(f"the free joint {bodies[0].joint!r} of {child.name!r} replaced by the "
                     "fixed attachment")  # fmt: skip
        _no_coordinates(bodies[0])
    elif floating:
        if kind == "planar":
            notes.append(f"the free joint {bodies[0].joint!r} of {child.name!r} replaced by "
                         "a planar joint")  # fmt: skip
        _moving_joint(bodies[0], kind)
    elif kind != "fixed":
        new = _Body(prefix + child.name, host, prefix + "root_joint", JOINT_FIXED, np.zeros(3),
                    T_hm, (0.0, np.zeros(3), np.zeros((3, 3))), 0.0, np.zeros(3), None, 1.0,
                    0.0, {})  # fmt: skip
        _moving_joint(new, kind)
        frames.insert(0, (new.name, new.name, np.eye(4)))
        carrier, T_cm = new.name, np.eye(4)
    for b in bodies:
        if b.parent == root:
            b.parent, b.T = carrier, T_cm @ b.T
    if new is not None:  # (its parent, the host, may share the child's world's name)
        bodies.insert(0, new)
    frames = [(n, carrier, T_cm @ T) if b == root else (n, b, T) for n, b, T in frames]
    visuals = [(carrier, T_cm @ T, g) if b == root else (b, T, g) for b, T, g in tree.visuals]
    return _Tree(root, bodies, frames, visuals), merged


def _clashes(parent, child, mounted: _Tree) -> None:
    """ValueError naming the child's names that the parent already uses."""
    taken = set(parent.body_names) | set(parent.frame_names)
    names = [b.name for b in mounted.bodies] + [f[0] for f in mounted.frames]
    same = sorted({n for n in names if n in taken})
    joints = sorted({b.joint for b in mounted.bodies} & set(parent.joint_names_all[1:]))
    if same or joints:
        parts = ([f"bodies/frames {', '.join(map(repr, same[:12]))}"] if same else []) + (
            [f"joints {', '.join(map(repr, joints[:12]))}"] if joints else [])  # fmt: skip
        raise ValueError(
            f"the child's names clash with the parent's: {'; '.join(parts)}"
            f"{' ...' if max(len(same), len(joints)) > 12 else ''}; pass prefix= (e.g. "
            f"prefix={child.name + '_'!r})"
        )


def _rebased(tree: _Tree, source: str | None) -> _Tree:
    """The child's visual meshes named relative to its file made absolute (the result's
    ``source`` is the parent's)."""
    if source is None:
        return tree
    folder = os.path.dirname(os.path.abspath(source))
    visuals = []
    for b, T, g in tree.visuals:
        name = getattr(g, "filename", None)
        if name and "://" not in name and not os.path.isabs(name):
            g = dataclasses.replace(g, filename=os.path.normpath(os.path.join(folder, name)))
        visuals.append((b, T, g))
    return _Tree(tree.root, tree.bodies, tree.frames, visuals)


def attach(parent, frame, child, *, T=None, prefix: str = "", joint: str | None = None):
    """One model: ``child`` hung from the frame ``frame`` of ``parent``.

    The child's world (its body 0) is placed at the frame moved by ``T``, ``T_{f,c}``:
    every body the child's world carried (and every frame on it) hangs from the parent's
    body that carries ``frame``; the child's world itself is not kept (its name is not a
    frame of the result).

    ``joint`` says how the child's root moves relative to that place:

    * ``None`` or ``"fixed"`` (a gripper on an arm, an arm on a mobile base): welded. A
      floating-base child (body 1 on a free joint from its world, e.g.
      ``load_urdf(path, floating_base=True)``) has that free joint replaced by the fixed
      attachment: its root body is merged into the parent's body (inertias added by the
      parallel-axis theorem, its name kept as a frame), which carries its root link's
      mass. A fixed-base child's root link was welded to the world when it was loaded and
      its mass dropped with it: load the child with ``floating_base=True`` to bring that
      mass along (Pinocchio's ``appendModel`` adds it from its universe body).
    * ``"free"``: the child's root on a free joint at that place (a floating-base child
      keeps its own free joint, placed there; q = [x, y, z, qw, qx, qy, qz] of the root in
      the frame, v = its body twist).
    * ``"planar"``: the child's root on a planar joint moving in the xy-plane of that
      place (q = (phi, x, y), v = (omega_z, v_x, v_y) body twist); a floating-base child's
      free joint becomes this planar joint.

    With ``"free"`` or ``"planar"`` a fixed-base child rides on a new massless body named
    ``prefix + child.name`` (its joint ``prefix + "root_joint"``), which carries what the
    child's world carried.

    The result has the parent's name, gravity and source. Its bodies are depth first: the
    child's bodies follow the subtree of the frame's body, so the child's coordinates come
    after that subtree's in q (use ``model.joint_names``). Frames, limits, damping,
    friction, armature and mimic couplings of both models are kept (the child's mimic
    couplings by their prefixed names); ``notes`` of both, and what was done, are in
    ``model.notes``.

    Parameters
    ----------
    parent : Model
    frame : str or int
        A frame of ``parent`` (an operational frame or a body's own frame).
    child : Model
    T : array_like, shape (4, 4), optional
        Pose of the child's world in ``frame`` (SE(3), checked; identity by default).
    prefix : str
        Put before every name of the child (bodies, joints, frames). Names that clash
        with the parent's are an error without one.
    joint : {None, "fixed", "free", "planar"}
        How the child's root moves at the frame (see above).

    Returns
    -------
    Model

    Raises
    ------
    ValueError
        Naming the argument: not a Model, an unknown frame, ``T`` not a 4x4 rigid
        transform, an unknown ``joint``, or the child's names that clash with the parent's
        (pass ``prefix=``).
    """
    f, T, kind = _attach_args(parent, frame, child, T, prefix, joint)
    host = int(parent.frame_body[f])
    T_hm = transform(parent.frame_R[f], parent.frame_p[f]) @ T  # T_{host,frame} T_{frame,c}
    notes = [*parent.notes, *(f"{child.name}: {n}" for n in child.notes)]
    mounted, merged = _mount(
        _rebased(_prefixed(_tree(child), prefix), child.source),
        child, parent.body_names[host], T_hm, kind, prefix, notes,
    )  # fmt: skip
    _clashes(parent, child, mounted)
    notes.append(f"model {child.name!r} attached at frame {parent.frame_names[f]!r} "
                 f"({kind}{f', prefix {prefix!r}' if prefix else ''})")  # fmt: skip
    whole = _tree(parent)
    k = int(parent.body_subtree_end[host]) - 1  # after the host's subtree: still depth first
    tree = _Tree(whole.root, whole.bodies[:k] + mounted.bodies + whole.bodies[k:],
                 whole.frames + mounted.frames, whole.visuals + mounted.visuals)  # fmt: skip
    return _laid_out(parent, _merge(tree, merged, notes), notes, source=parent.source)
