"""The batch rule (issue 29): every public numeric function of a state, given a batch of
100 states, returns the 100 single-state results stacked along a leading axis of 100.

The functions are not listed here by hand: the walker takes every function registered by
:func:`robodyn.kernels.call.batched` (:data:`robodyn.kernels.call.BATCHED`) and every
public function (``dir(robodyn)`` and the ``__all__`` of each public module) whose first
parameters are ``(model, q, ...)`` or ``(model, q0, ...)``. Each one's state arguments
are built from its parameter names (:data:`STATE`); a string option documented as a set
(``kind : {"space", "body", "world_aligned"}``) is run at each of its values. A function
the walker finds and cannot drive (a required parameter this file does not know) fails
with its name, unless :data:`NOT_STATE_FUNCTIONS` says why it is not a function of one
state. A new public function therefore either obeys the rule or fails here.

Models: the Panda, and a random tree on a floating base with every joint type that moves
(free, spherical, planar, helical, cylindrical, universal, revolute, continuous,
prismatic), friction and armature. A function that refuses a joint type of the tree with
a ModelError must refuse the batch with the same message, and is then held to the rule on
the same tree without universal joints; a refusal there too, or of the Panda, fails unless
:data:`REFUSES_JOINTS` says which joints the function takes.

Equality: bitwise (entry by entry ``==``, NaN equal to NaN), with no tolerance. Where the
core computes both the batch and the single state, each lane runs the single state's
arithmetic; where a function loops in Python it calls the single-state path; so any
difference, even in the last bit, is a state mixing into another, a lane computed with
different operations, or a batch path that is not the single path. A function computed
by numpy vectorised over the batch (not the core) may round differently, as a stacked
matmul or einsum sums in another order: :data:`NOT_BITWISE` names each with the reason,
held to 1e-12 relative to max(1, |single|) (measured: ~5e-16).

A function whose batch is not its single calls is a bug: it goes in :data:`KNOWN_BROKEN`
with the numbers and is marked xfail(strict=True), so fixing it turns the case into a
failure that asks for the mark to go. So are the functions that still refuse a batch
(:data:`ONE_STATE_ONLY`, issue 29's work), xfail on the ValueError of the refusal only.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import zlib

import numpy as np
import pytest

import robodyn as rd
from helpers import JOINT_KINDS, random_tree
from robodyn.kernels import call

N = 100  # states in the batch

# ------------------------------------------------------------------ the walk
#: the parameter names the walker knows as a configuration; the second parameter of a
#: public function of a state (after ``model``) is one of them
CONFIG = ("q", "q0")

#: functions the walker finds that are not numeric functions of one state, and why (by
#: the public name the walker reports: robodyn.name, else robodyn.module.name)
NOT_STATE_FUNCTIONS = {
    # a simulation: q0 is where a trajectory starts, the result a trajectory in time
    "robodyn.simulate": "q0 starts a simulation in time, not a state mapped",
    "robodyn.forward_dynamics_trajectory": "integrates in time from q0",
    "robodyn.distributed.simulate_chunks": "simulate() over a cluster, in chunks of runs",
    # one number for a whole experiment: q is the experiment's samples stacked, not a batch
    "robodyn.ident.regressor_condition": "the condition number of all samples' regressor",
    # draws a page; q is a pose to show
    "robodyn.viz.show": "draws an HTML page, not a number",
    # the constraint is the user's Python callables of one state (c(q) -> (k,)); the
    # batch form is constrained_forward_dynamics, with A and dA/dt v given
    "robodyn.holonomic_forward_dynamics": "user callables of one state",
    # the teaching reference in the book's 6x6 notation, one state by design
    # (ARCHITECTURE: reference/ is the parity oracle, never the production path)
    "robodyn.reference.rnea": "teaching reference, one state",
    "robodyn.reference.rnea_craig": "teaching reference, one state",
    "robodyn.reference.crba": "teaching reference, one state",
    "robodyn.reference.aba": "teaching reference, one state",
    # the course's planar arms only (issue 33): every frame of the Panda and of the tree
    # leaves the x-y plane, which they refuse; their batches are held on the planar arm
    # in tests/test_planar.py::test_batches_equal_single_calls
    "robodyn.planar.jacobian": "planar arms only (the walker's models are 3-D)",
    "robodyn.planar.tip_wrench": "planar arms only (the walker's models are 3-D)",
    "robodyn.planar.inverse_dynamics": "planar arms only (the walker's models are 3-D)",
    "robodyn.planar.task_space_inertia": "planar arms only (the walker's models are 3-D)",
}

#: functions whose batch is not bitwise its single calls, and why; they are held to
#: 1e-12 relative to max(1, |single|) (what was measured is beside each)
NOT_BITWISE = {
    # numpy over the whole batch (einsum, pw @ g over N rows), not the core; 4.4e-16
}

#: functions whose batch differs from their single calls (bugs), with the numbers
KNOWN_BROKEN: dict[str, str] = {}

#: functions that refuse a batch (issue 29's work): each case fails with the refusal, a
#: ValueError, until the function takes a batch, when strict=True fails it to drop the entry
ONE_STATE_ONLY: dict[str, str] = {}


#: functions that take only some joint types (a ModelError for the others, on the tree and
#: on the tree without universal joints): held to the rule on the Panda only
REFUSES_JOINTS = {
    "robodyn.ident.regressor_reference": "fixed, revolute, prismatic and free joints (numpy)",
}


def _qualname(fn) -> str:
    fn = inspect.unwrap(fn)
    return f"{fn.__module__}.{fn.__name__}"


def _public_modules():
    mods = {"robodyn": rd}
    for name in dir(rd):
        obj = getattr(rd, name)
        if isinstance(obj, types.ModuleType):
            mods[f"robodyn.{name}"] = obj
    return mods


def _params(fn):
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []


def walk() -> dict:
    """{public name: function} of every public function of a state (one entry per
    function: its first public name, robodyn.* before the modules')."""
    found = {}
    for modname, mod in _public_modules().items():
        for name in getattr(mod, "__all__", None) or [n for n in dir(mod) if n[0] != "_"]:
            obj = getattr(mod, name)
            if not callable(obj) or inspect.isclass(obj) or isinstance(obj, types.ModuleType):
                continue
            ps = _params(obj)
            if len(ps) >= 2 and ps[0].name == "model" and ps[1].name in CONFIG:
                found.setdefault(_qualname(obj), (obj, f"{modname}.{name}"))
    for fn in call.BATCHED:  # every batch function, whether or not a public name holds it
        found.setdefault(_qualname(fn), (fn, _qualname(fn)))
    return {public: fn for fn, public in found.values()}


# ------------------------------------------------------------------ the states
def _models():
    panda = rd.models.load("panda")
    # a floating base and every joint type that moves (free, spherical, planar, helical,
    # cylindrical, universal, ...), with friction and armature, fixed links merged
    n = len(JOINT_KINDS) + 2
    tree = random_tree(29, n, floating=True, damping=True, kinds=JOINT_KINDS)[0]
    # for a function that refuses a joint type of it (ModelError): the same without
    plain = tuple(k for k in JOINT_KINDS if k != "universal")
    fallback = random_tree(29, n, floating=True, damping=True, kinds=plain)[0]
    return {"panda": (panda, "ee"), "tree": (tree, "tool"), "tree_fallback": (fallback, "tool")}


MODELS = _models()
K_CONSTRAINTS = 2  # rows of A for constrained dynamics


def _state(model, name: str, rng):
    """A batch of N values of the state argument ``name`` (one of :data:`STATE`)."""
    nv, nb = model.nv, model.nb
    if name in ("q", "q0", "q1"):
        return rd.random_configuration(model, rng, size=N)
    if name in ("v", "a", "tau"):
        return rng.normal(size=(N, nv))
    if name == "f_ext":
        return rng.normal(size=(N, nb, 6))
    if name == "f_tip":
        return rng.normal(size=(N, 6))
    if name == "A":
        return rng.normal(size=(N, K_CONSTRAINTS, nv))
    assert name == "dA_dq_v", name
    return rng.normal(size=(N, K_CONSTRAINTS))


STATE = ("q", "q0", "q1", "v", "a", "tau", "f_ext", "f_tip", "A", "dA_dq_v")
#: optional arguments: a case with the default (None) and a case with a batch; and an
#: optional positional frame (fk: every frame, or one); f_tip comes with its frame=
OPTIONAL_STATE = ("f_ext", "f_tip", "frame")


def _choices(fn, docs: dict) -> dict:
    """{parameter: values} for the string options documented as a set, ``x : {"a", "b"}``
    (in the function's docstring, else in another walked function's for that name)."""
    out = {}
    own = _doc_sets(fn)
    for p in _params(fn):
        if isinstance(p.default, str) or p.default is inspect.Parameter.empty:
            values = own.get(p.name) or docs.get(p.name)
            if values:
                out[p.name] = values
    return out


def _doc_sets(fn) -> dict:
    doc = inspect.getdoc(fn) or ""
    sets = {}
    for m in re.finditer(r"^\s*(\w+) : \{([^}]*)\}", doc, re.M):
        vals = re.findall(r"\"([^\"]*)\"|'([^']*)'", m.group(2))
        sets[m.group(1)] = tuple(a or b for a, b in vals)
    return sets


def _cases():
    found = walk()
    docs = {}
    for fn in found.values():
        for k, v in _doc_sets(fn).items():
            docs.setdefault(k, v)
    cases = []
    for qn, fn in sorted(found.items()):
        if qn in NOT_STATE_FUNCTIONS:
            continue
        marks = []
        if qn in KNOWN_BROKEN:
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BROKEN[qn])]
        elif qn in ONE_STATE_ONLY:
            reason = f"issue 29: takes one state only ({ONE_STATE_ONLY[qn]})"
            marks = [pytest.mark.xfail(strict=True, raises=ValueError, reason=reason)]
        options = [{}]
        for name, values in _choices(fn, docs).items():
            options = [{**o, name: v} for o in options for v in values]
        optional = [p.name for p in _params(fn) if p.default is not inspect.Parameter.empty
                    and (p.name != "frame" or p.kind != p.KEYWORD_ONLY)]  # fmt: skip
        extra = [{}] + [{n: True} for n in OPTIONAL_STATE if n in optional]
        for mname in ("panda", "tree"):
            for opt in options:
                for ex in extra:
                    kw = ",".join(f"{k}={v}" for k, v in {**opt, **ex}.items())
                    cid = f"{qn}-{mname}" + (f"-{kw}" if kw else "")
                    cases.append(pytest.param(qn, mname, opt, ex, id=cid, marks=marks))
    return found, cases


FOUND, CASES = _cases()


def _arguments(fn, qn, model, frame, opt, extra, rng):
    """(args, kwargs) of a batch call, or a failure naming what cannot be driven: the
    positional parameters in order up to the first left at its default, then keywords."""
    args, kwargs, gap = [], dict(opt), False
    for p in _params(fn)[1:]:
        required = p.default is inspect.Parameter.empty
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name in opt:
            gap = True
            continue
        if p.name in STATE and (required or extra.get(p.name)):
            value = _state(model, p.name, rng)
        elif p.name == "frame" and (required or extra.get("frame") or extra.get("f_tip")):
            value = frame
        elif required:
            pytest.fail(f"{qn}: the walker cannot drive its parameter {p.name!r}: teach "
                        f"tests/test_batch_rule.py the argument, or say in NOT_STATE_FUNCTIONS "
                        f"why it is not a function of one state")  # fmt: skip
        else:
            gap = True  # left at its default
            continue
        if not gap and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(value)
        else:
            kwargs[p.name] = value
    return args, kwargs


def _take(x, i: int):
    """State i of a batch argument."""
    return x[i] if isinstance(x, np.ndarray) else x


def _leaves(r, path="result"):
    """The arrays of a result: an array, a number, a tuple of them, or a dataclass /
    named tuple of them (an Ellipsoid), as (path, array)."""
    if isinstance(r, (tuple, list)) and not hasattr(r, "_fields"):
        for k, x in enumerate(r):
            yield from _leaves(x, f"{path}[{k}]")
    elif hasattr(r, "_fields"):
        for f in r._fields:
            yield from _leaves(getattr(r, f), f"{path}.{f}")
    elif dataclasses.is_dataclass(r):
        for f in dataclasses.fields(r):
            yield from _leaves(getattr(r, f.name), f"{path}.{f.name}")
    else:
        yield path, np.asarray(r)


@pytest.mark.parametrize(("qn", "mname", "opt", "extra"), CASES)
def test_batch_equals_single_calls(qn, mname, opt, extra):
    model, frame = MODELS[mname]
    seed = zlib.crc32(f"{qn}-{mname}-{opt}-{extra}".encode())
    if _check(qn, model, frame, opt, extra, np.random.default_rng(seed)):
        return
    assert mname == "tree", f"{qn} refuses the {mname}: {_REFUSAL[qn]}"
    # it refuses a joint type of the tree (a ModelError, the same for the batch): the
    # rule on the tree without universal joints (still floating, spherical, planar, ...)
    model, frame = MODELS["tree_fallback"]
    if not _check(qn, model, frame, opt, extra, np.random.default_rng(seed)):
        assert qn in REFUSES_JOINTS, f"{qn} refuses the tree's joints: {_REFUSAL[qn]}"


_REFUSAL: dict[str, str] = {}  # the ModelError of a function that refused a model


def _check(qn, model, frame, opt, extra, rng) -> bool:
    """Assert the batch of N states equals the N single calls; False when the single call
    refuses the model with a ModelError (after checking that the batch refuses it too)."""
    fn = FOUND[qn]
    args, kwargs = _arguments(fn, qn, model, frame, opt, extra, rng)

    def single(i):
        return fn(
            model, *[_take(a, i) for a in args], **{k: _take(x, i) for k, x in kwargs.items()}
        )

    try:
        batch = fn(model, *args, **kwargs)
    except rd.ModelError as exc:  # the same refusal for one state
        with pytest.raises(rd.ModelError) as info:
            single(0)
        assert str(info.value) == str(exc)
        _REFUSAL[qn] = str(exc)
        return False
    singles = [single(i) for i in range(N)]
    got = list(_leaves(batch))
    per_state = [list(_leaves(s)) for s in singles]
    assert [p for p, _ in got] == [p for p, _ in per_state[0]], f"{qn}: result structure"
    for k, (path, b) in enumerate(got):
        one = np.stack([s[k][1] for s in per_state])
        assert b.shape == one.shape, f"{qn} {path}: batch shape {b.shape}, singles {one.shape}"
        assert b.shape[:1] == (N,)
        if qn in NOT_BITWISE:
            scale = np.maximum(1.0, np.abs(one))
            err = float(np.max(np.abs(b - one) / scale, initial=0.0))
            assert err <= 1e-12, f"{qn} {path}: batch vs single calls, rel. error {err:.3g}"
        else:
            bad = np.argwhere(~((b == one) | (np.isnan(b) & np.isnan(one))))
            if len(bad):
                i = tuple(int(j) for j in bad[0])
                err = float(np.max(np.abs(b - one) / np.maximum(1.0, np.abs(one))))
                pytest.fail(
                    f"{qn} {path}: batch differs from the single calls at {len(bad)} of "
                    f"{b.size} entries, first {i}: {b[i]!r} vs {one[i]!r} "
                    f"(max rel. error {err:.3g})"
                )
    return True


def test_the_walk_finds_the_state_functions():
    """The walk is not empty or stale: it finds the core's functions and the Python
    loops of issue 29's table, and every NOT_STATE_FUNCTIONS entry still exists."""
    names = {qn.rsplit(".", 1)[1] for qn in FOUND}
    issue_29 = ("inverse_dynamics", "mass_matrix", "jacobian", "kinetic_energy", "christoffel",
                "momentum_matrix", "task_space_inertia", "manipulability")  # fmt: skip
    for name in issue_29:
        assert name in names, name
    stale = sorted(set(NOT_STATE_FUNCTIONS) - set(FOUND))
    assert not stale, f"NOT_STATE_FUNCTIONS names functions the walk no longer finds: {stale}"
    for table in (NOT_BITWISE, KNOWN_BROKEN, ONE_STATE_ONLY, REFUSES_JOINTS):
        assert not set(table) - set(FOUND), set(table) - set(FOUND)
