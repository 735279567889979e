"""robodyn inside JAX: the compiled core as differentiable, jit-able, vmap-able JAX functions.

``import robodyn.jax as rdj`` (the optional extra ``robodyn[jax]``) gives

* ``rdj.inverse_dynamics(model, q, v, a)``, ``rdj.forward_dynamics(model, q, v, tau)``,
  ``rdj.mass_matrix(model, q)``, ``rdj.fk(model, q, frame)``, ``rdj.jacobian(model, q,
  frame, kind="space")`` and ``rdj.step(model, q, v, tau, dt, integrator="rk4")`` (one step
  of :func:`robodyn.simulate`'s integrator, the torque held),

each computing in robodyn's C core through :func:`jax.pure_callback` (no second
implementation of any algorithm) with a :func:`jax.custom_jvp` rule built on robodyn's
analytic derivatives (:func:`robodyn.inverse_dynamics_derivatives`,
:func:`robodyn.forward_dynamics_derivatives`, :func:`robodyn.mass_matrix_derivative`,
:func:`robodyn.kinematic_hessian`, :func:`robodyn.linearize`). The rule asks the core for
the derivative matrices at the primal point and applies them to the tangents with jax.numpy,
so the rule is linear in the tangents and JAX transposes it: ``jax.jvp``, ``jax.jacfwd``,
``jax.grad``, ``jax.jacrev`` and ``jax.vjp`` work, under ``jax.jit`` too. Under
``jax.vmap`` a callback receives the whole batch (``vmap_method="broadcast_all"``) and
robodyn computes it as one batch call of the core. Derivatives are first order (the
derivative matrices have no rule of their own: ``jax.hessian`` is not available).

Configurations: JAX differentiates q's coordinates (nq of them); robodyn's derivatives are in
the tangent space (nv, :func:`robodyn.integrate`). A tangent of the coordinates ``dq`` maps
to the tangent space by ``xi = C(q) dq`` (1 for revolute, prismatic, helical, cylindrical
and universal joints; for a quaternion ``omega_b = 2 vec(conj(Q) dQ) / |Q|^2``; a free
joint's position ``v_b = R^T dp``; a planar joint's ``(dphi, R(phi)^T dp)``), and a tangent
of the result ``xi_1`` back to coordinates by ``dq_1 = E(q_1) xi_1`` (``dQ = Q (0,
omega_b / 2)``, ``dp = R v_b``), with ``C E = 1``.

Precision: robodyn computes in float64. Enable JAX's 64-bit mode
(``jax.config.update("jax_enable_x64", True)``); with float32 inputs the results are cast to
float32.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .model.model import Model

__all__ = [
    "inverse_dynamics",
    "forward_dynamics",
    "mass_matrix",
    "fk",
    "jacobian",
    "step",
    "coordinate_to_tangent",
    "tangent_to_coordinate",
]


# ------------------------------------------------------------------ configuration charts
def _slices(model: Model):
    from .model.configuration import _joint_slices

    return _joint_slices(model)


def _quat_matrices(Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For quaternions Q = (w, x, y, z) (..., 4): C (..., 3, 4) with ``omega_b = C dQ``
    (``2 vec(conj(Q) dQ) / |Q|^2``) and E (..., 4, 3) with ``dQ = E omega_b`` (``Q (0,
    omega_b) / 2``)."""
    w, x, y, z = (Q[..., k] for k in range(4))
    # vec(conj(Q) dQ) for dQ = e_k: rows of [-x, w, z, -y; -y, -z, w, x; -z, y, -x, w]
    G = np.stack([np.stack([-x, w, z, -y], -1), np.stack([-y, -z, w, x], -1),
                  np.stack([-z, y, -x, w], -1)], -2)  # fmt: skip
    n2 = np.sum(Q * Q, axis=-1)[..., None, None]
    return 2.0 * G / n2, 0.5 * np.swapaxes(G, -1, -2)


def _rotation(Q: np.ndarray) -> np.ndarray:
    from .spatial import quat_to_rotation

    return quat_to_rotation(Q / np.linalg.norm(Q, axis=-1, keepdims=True))


def coordinate_to_tangent(model: Model, q) -> np.ndarray:
    """``C(q)`` (..., nv, nq): a tangent of q's coordinates to the tangent space, ``xi = C
    dq`` (see the module)."""
    q = np.asarray(q, dtype=float)
    sl, lead = _slices(model), q.shape[:-1]
    C = np.zeros((*lead, model.nv, model.nq))
    C[..., sl.v1, sl.q1] = 1.0
    for qa, va in sl.free:
        Cq, _ = _quat_matrices(q[..., qa + 3 : qa + 7])
        C[..., va : va + 3, qa + 3 : qa + 7] = Cq
        C[..., va + 3 : va + 6, qa : qa + 3] = np.swapaxes(
            _rotation(q[..., qa + 3 : qa + 7]), -1, -2
        )
    for qa, va in sl.spherical:
        C[..., va : va + 3, qa : qa + 4] = _quat_matrices(q[..., qa : qa + 4])[0]
    for qa, va in sl.planar:
        c, s = np.cos(q[..., qa]), np.sin(q[..., qa])
        C[..., va, qa] = 1.0
        C[..., va + 1 : va + 3, qa + 1 : qa + 3] = np.stack([np.stack([c, s], -1),
                                                            np.stack([-s, c], -1)], -2)  # fmt: skip
    return C


def tangent_to_coordinate(model: Model, q) -> np.ndarray:
    """``E(q)`` (..., nq, nv): a tangent at q to q's coordinates, ``dq = E xi``."""
    q = np.asarray(q, dtype=float)
    sl, lead = _slices(model), q.shape[:-1]
    E = np.zeros((*lead, model.nq, model.nv))
    E[..., sl.q1, sl.v1] = 1.0
    for qa, va in sl.free:
        E[..., qa + 3 : qa + 7, va : va + 3] = _quat_matrices(q[..., qa + 3 : qa + 7])[1]
        E[..., qa : qa + 3, va + 3 : va + 6] = _rotation(q[..., qa + 3 : qa + 7])
    for qa, va in sl.spherical:
        E[..., qa : qa + 4, va : va + 3] = _quat_matrices(q[..., qa : qa + 4])[1]
    for qa, va in sl.planar:
        c, s = np.cos(q[..., qa]), np.sin(q[..., qa])
        E[..., qa, va] = 1.0
        E[..., qa + 1 : qa + 3, va + 1 : va + 3] = np.stack([np.stack([c, -s], -1),
                                                            np.stack([s, c], -1)], -2)  # fmt: skip
    return E


# ------------------------------------------------------------------ callbacks
def _call(fn, shapes, *args):
    """``fn(*numpy args)`` in the core through jax.pure_callback. Every argument is a state
    vector (..., n): the results have ``shapes`` after the arguments' leading (batch)
    shape, the arguments' dtype; under vmap the callback receives the whole batch."""
    dtype = jnp.result_type(*args)
    lead = jnp.broadcast_shapes(*(jnp.shape(a)[:-1] for a in args))
    specs = tuple(jax.ShapeDtypeStruct((*lead, *s), dtype) for s in shapes)

    def host(*xs):
        out = fn(*(np.asarray(x, dtype=np.float64) for x in xs))
        out = out if isinstance(out, tuple) else (out,)
        return tuple(np.asarray(o, dtype=dtype) for o in out)

    r = jax.pure_callback(host, specs, *args, vmap_method="broadcast_all")
    return r if len(r) > 1 else r[0]


def _matvec(M, x):
    """``M x`` over the last two / one axes, batched."""
    return jnp.einsum("...ij,...j->...i", M, x)


def _hat(V):
    """The 4 x 4 matrix of a twist [w; v]: [[w^, v], [0, 0]] (MR eq. 3.70), batched."""
    w, v = V[..., :3], V[..., 3:]
    z = jnp.zeros_like(w[..., 0])
    W = jnp.stack([jnp.stack([z, -w[..., 2], w[..., 1]], -1),
                   jnp.stack([w[..., 2], z, -w[..., 0]], -1),
                   jnp.stack([-w[..., 1], w[..., 0], z], -1)], -2)  # fmt: skip
    top = jnp.concatenate([W, v[..., :, None]], axis=-1)
    return jnp.concatenate([top, jnp.zeros_like(top[..., :1, :])], axis=-2)


# ------------------------------------------------------------------ the functions
def _cached(model: Model, key, make):
    """A model's JAX function for ``key`` (the static arguments), made once: kept on the
    immutable model."""
    table = model.__dict__.get("_jax_functions")
    if table is None:
        table = {}
        object.__setattr__(model, "_jax_functions", table)
    if key not in table:
        table[key] = make()
    return table[key]


def _chart(model: Model):
    nq, nv = model.nq, model.nv
    return lambda q: _call(lambda x: coordinate_to_tangent(model, x), [(nv, nq)], q)


def _dynamics_fn(model: Model, which: str):
    """Inverse (``"id"``) or forward (``"fd"``) dynamics with its derivatives' JVP."""
    from . import derivatives, dynamics

    nv, C = model.nv, _chart(model)
    value = dynamics.inverse_dynamics if which == "id" else dynamics.forward_dynamics
    deriv = (derivatives.inverse_dynamics_derivatives if which == "id"
             else derivatives.forward_dynamics_derivatives)  # fmt: skip

    @jax.custom_jvp
    def f(q, v, x):
        return _call(lambda *s: value(model, *s), [(nv,)], q, v, x)

    @f.defjvp
    def _jvp(primals, tangents):
        q, v, x = primals
        dq, dv, dx = tangents
        Dq, Dv, Dx = _call(lambda *s: deriv(model, *s), [(nv, nv)] * 3, q, v, x)
        xi = _matvec(C(q), dq)
        return f(q, v, x), _matvec(Dq, xi) + _matvec(Dv, dv) + _matvec(Dx, dx)

    return f


def _mass_fn(model: Model):
    from . import coriolis, dynamics

    nv, C = model.nv, _chart(model)

    @jax.custom_jvp
    def f(q):
        return _call(lambda s: dynamics.mass_matrix(model, s), [(nv, nv)], q)

    @f.defjvp
    def _jvp(primals, tangents):
        (q,), (dq,) = primals, tangents
        dM = _call(lambda s: coriolis.mass_matrix_derivative(model, s), [(nv, nv, nv)], q)
        return f(q), jnp.einsum("...ijk,...k->...ij", dM, _matvec(C(q), dq))

    return f


def _fk_fn(model: Model, frame):
    """The frame's pose; ``dT = T [J_b xi]`` (MR eq. 5.18's body Jacobian)."""
    from .kinematics import forward

    nv, C = model.nv, _chart(model)

    @jax.custom_jvp
    def f(q):
        return _call(lambda s: forward.fk(model, s, frame), [(4, 4)], q)

    @f.defjvp
    def _jvp(primals, tangents):
        (q,), (dq,) = primals, tangents
        Jb = _call(lambda s: forward.jacobian(model, s, frame, "body"), [(6, nv)], q)
        T = f(q)
        return T, T @ _hat(_matvec(Jb, _matvec(C(q), dq)))

    return f


def _jacobian_fn(model: Model, frame, kind: str):
    """The frame's Jacobian; ``dJ = H xi`` (the kinematic Hessian)."""
    from .kinematics import derivatives as kd
    from .kinematics import forward

    nv, C = model.nv, _chart(model)

    @jax.custom_jvp
    def f(q):
        return _call(lambda s: forward.jacobian(model, s, frame, kind), [(6, nv)], q)

    @f.defjvp
    def _jvp(primals, tangents):
        (q,), (dq,) = primals, tangents
        H = _call(lambda s: kd.kinematic_hessian(model, s, frame, kind), [(6, nv, nv)], q)
        return f(q), jnp.einsum("...rij,...j->...ri", H, _matvec(C(q), dq))

    return f


def _step_fn(model: Model, dt: float, integrator: str):
    """One step of the simulator's integrator under a held torque; its JVP by
    :func:`robodyn.linearize` (the chain rule through the stages) and the charts."""
    from .sim.integrators import STEPS, Chart
    from .sim.linearize import linearize

    nq, nv, C = model.nq, model.nv, _chart(model)
    if integrator not in STEPS:
        raise ValueError(f"integrator must be one of {', '.join(map(repr, STEPS))}, got "
                         f"{integrator!r}")  # fmt: skip
    chart = Chart(model)

    def host(q, v, tau):
        from .dynamics import forward_dynamics

        def rate(t, qs, vs, z):
            return forward_dynamics(model, qs, vs, np.broadcast_to(tau, vs.shape)), None

        q1, v1, _, _ = STEPS[integrator](chart, rate, 0.0, q, v, None, dt)
        return q1, v1

    @jax.custom_jvp
    def f(q, v, tau):
        return _call(host, [(nq,), (nv,)], q, v, tau)

    @f.defjvp
    def _jvp(primals, tangents):
        q, v, tau = primals
        dq, dv, dtau = tangents
        A, B = _call(lambda *s: linearize(model, *s, dt=dt, integrator=integrator),
                     [(2 * nv, 2 * nv), (2 * nv, nv)], q, v, tau)  # fmt: skip
        q1, v1 = f(q, v, tau)
        dx = _matvec(A, jnp.concatenate([_matvec(C(q), dq), dv], -1)) + _matvec(B, dtau)
        E1 = _call(lambda s: tangent_to_coordinate(model, s), [(nq, nv)], q1)
        return (q1, v1), (_matvec(E1, dx[..., :nv]), dx[..., nv:])

    return f


def inverse_dynamics(model: Model, q, v, a):
    """``tau = rd.inverse_dynamics(model, q, v, a)`` as a JAX function (friction and
    armature included, as robodyn's default); JVP by
    :func:`robodyn.inverse_dynamics_derivatives`."""
    f = _cached(model, ("id",), lambda: _dynamics_fn(model, "id"))
    return f(*map(jnp.asarray, (q, v, a)))


def forward_dynamics(model: Model, q, v, tau):
    """``a = rd.forward_dynamics(model, q, v, tau)`` as a JAX function; JVP by
    :func:`robodyn.forward_dynamics_derivatives`."""
    f = _cached(model, ("fd",), lambda: _dynamics_fn(model, "fd"))
    return f(*map(jnp.asarray, (q, v, tau)))


def mass_matrix(model: Model, q):
    """``M(q)`` as a JAX function; JVP by :func:`robodyn.mass_matrix_derivative`."""
    f = _cached(model, ("mass",), lambda: _mass_fn(model))
    return f(jnp.asarray(q))


def fk(model: Model, q, frame):
    """The pose (4 x 4) of ``frame`` as a JAX function; JVP ``T [J_b xi]``."""
    f = _cached(model, ("fk", frame), lambda: _fk_fn(model, frame))
    return f(jnp.asarray(q))


def jacobian(model: Model, q, frame, kind: str = "space"):
    """The Jacobian (6, nv) of ``frame``, of ``kind``, as a JAX function; JVP by
    :func:`robodyn.kinematic_hessian`."""
    f = _cached(model, ("jacobian", frame, kind), lambda: _jacobian_fn(model, frame, kind))
    return f(jnp.asarray(q))


def step(model: Model, q, v, tau, dt: float, integrator: str = "rk4"):
    """``(q_1, v_1)``: one step of ``dt`` of :func:`robodyn.simulate`'s ``integrator`` with
    the torque ``tau`` held, as a JAX function (a differentiable rollout is a
    ``jax.lax.scan`` of it); JVP by :func:`robodyn.linearize` (``dt``, ``integrator``)."""
    dt = float(dt)
    if not (np.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive finite number, got {dt!r}")
    f = _cached(model, ("step", dt, integrator), lambda: _step_fn(model, dt, integrator))
    return f(*map(jnp.asarray, (q, v, tau)))
