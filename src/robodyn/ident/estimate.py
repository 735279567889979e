"""Estimating the parameters from measured motion: OLS, WLS, physically consistent.

Stacking ``tau_k = Y(q_k, v_k, a_k) pi`` over N samples gives the overdetermined linear
system ``W beta = y`` in the base parameters (``W`` the stacked base regressor, N nv rows):

* ``"ols"``: ``beta = argmin |W beta - y|^2``; covariance ``sigma^2 (W^T W)^-1`` with
  ``sigma^2 = |r|^2 / (N nv - r)``;
* ``"wls"``: each joint's rows weighted by the inverse of its noise standard deviation,
  estimated from the OLS residuals (Gautier and Poignet 2001), or given as ``weights``;
* ``"consistent"``: the standard parameters of every body through the log-Cholesky
  parametrisation of its pseudo-inertia (Rucker and Wensing 2022)
  ``J = U U^T``, ``U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2], [0, 0, e^d3, t3],
  [0, 0, 0, 1]]`` so every iterate is a physical body (positive mass, an inertia about
  the CoM that is positive definite and meets the triangle inequality), fitted by
  ``scipy.optimize.least_squares`` to the weighted torques with a small pull towards the
  prior model (``regularization``) that fixes the directions the data cannot see.

The standard parameters of OLS/WLS are those closest to the prior (the given model) that
reproduce the identified base parameters.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import scipy.linalg
import scipy.optimize

from ..errors import ModelWarning
from ..model.parameters import _TRIU, layout, physical_violations, pseudo_inertia
from .base import BaseParameters, base_parameters
from .regressor import regressor

__all__ = [
    "Identification",
    "check_data",
    "from_log_cholesky",
    "identify",
    "identify_energy",
    "log_cholesky",
]

METHODS = ("ols", "wls", "consistent")


def check_data(model, Q, V, A, TAU, *, names=("Q", "V", "A", "TAU")):
    """Validate identification data: 2-D arrays of the model's widths, one length, finite.

    Returns
    -------
    (Q, V, A, TAU) as float arrays of shapes (N, nq), (N, nv), (N, nv), (N, nv).

    Raises
    ------
    ValueError
        A wrong width, mismatched lengths, or NaN/inf rows (their indices listed).
    """
    widths = (model.nq, model.nv, model.nv, model.nv)
    out = []
    for x, name, w in zip((Q, V, A, TAU), names, widths):
        if x is None:
            raise ValueError(f"{name} must be an array of shape (N, {w}), got None")
        arr = np.asarray(x, dtype=float)
        if arr.ndim == 1 and w == 1:
            arr = arr[:, None]
        if arr.ndim != 2 or arr.shape[1] != w:
            raise ValueError(f"{name} must have shape (N, {w}), got {arr.shape}")
        out.append(arr)
    lengths = {n: a.shape[0] for n, a in zip(names, out)}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{n} has {k}" for n, k in lengths.items())
        raise ValueError(f"the data must have one row per sample: {desc} rows")
    for name, arr in zip(names, out):
        bad = np.flatnonzero(~np.all(np.isfinite(arr), axis=1))
        if bad.size:
            shown = ", ".join(str(i) for i in bad[:10]) + (", ..." if bad.size > 10 else "")
            raise ValueError(
                f"{name} has NaN or inf in {bad.size} row(s): {shown}; drop those samples "
                "(e.g. rows = np.isfinite(X).all(1) on every array) or interpolate them"
            )
    return tuple(out)


# ------------------------------------------------------------------ log-Cholesky
def from_log_cholesky(theta) -> np.ndarray:
    """Standard parameters (..., 10) of log-Cholesky coordinates (..., 10)
    ``[alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3]``: ``J = U U^T`` and
    ``m = J_44, h = J_{1:3,4}, I_o = tr(Sigma) 1 - Sigma`` with ``Sigma = J_{1:3,1:3}``."""
    th = np.asarray(theta)
    alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3 = np.moveaxis(th, -1, 0)
    z = np.zeros_like(alpha)
    o = np.ones_like(alpha)
    U = (
        np.stack(
            [
                np.stack([np.exp(d1), s12, s13, t1], -1),
                np.stack([z, np.exp(d2), s23, t2], -1),
                np.stack([z, z, np.exp(d3), t3], -1),
                np.stack([z, z, z, o], -1),
            ],
            -2,
        )
        * np.exp(alpha)[..., None, None]
    )
    J = U @ np.swapaxes(U, -1, -2)
    S = J[..., :3, :3]
    tr = S[..., 0, 0] + S[..., 1, 1] + S[..., 2, 2]
    I_o = tr[..., None, None] * np.eye(3) - S
    # [m, h, Ixx, Ixy, Ixz, Iyy, Iyz, Izz] from J = [[Sigma, h], [h^T, m]] and I_o
    return np.concatenate([J[..., 3, 3:], J[..., :3, 3], I_o[..., _TRIU[0], _TRIU[1]]], -1)


def log_cholesky(pi10) -> np.ndarray:
    """Inverse of :func:`from_log_cholesky` for physical (positive-definite) parameters.

    ``J = U U^T`` with U upper triangular (the "reverse" Cholesky factor):
    ``U = F L F`` where ``F J F = L L^T`` and F is the exchange matrix.
    """
    J = pseudo_inertia(pi10)
    F = np.eye(4)[::-1]
    L = np.linalg.cholesky(F @ J @ F)
    U = F @ L @ F  # upper triangular, U U^T = F L L^T F = J
    a = np.log(U[..., 3, 3])
    Un = U / U[..., 3, 3][..., None, None]
    # [alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3], the entries of from_log_cholesky's U
    d = np.log(np.diagonal(Un[..., :3, :3], axis1=-2, axis2=-1))
    s = Un[..., [0, 1, 0], [1, 2, 2]]
    return np.concatenate([a[..., None], d, s, Un[..., :3, 3]], -1)


def _physical_start(pi10: np.ndarray, scale_len: float, rel: float = 1e-2) -> np.ndarray:
    """A strictly physical body near pi10: pseudo-inertia eigenvalues lifted to a floor
    (``rel`` of the largest; far from the boundary, where log-Cholesky gradients vanish)."""
    J = pseudo_inertia(pi10)
    w, E = np.linalg.eigh(J)
    floor = max(rel * float(w[-1]), 1e-9 * max(scale_len, 1e-2) ** 2)
    mfloor = 1e-3 * max(abs(float(J[3, 3])), 1e-2)
    w = np.maximum(w, floor)
    J = (E * w) @ E.T
    if J[3, 3] < mfloor:  # no usable mass: a small sphere-like body
        J = np.diag([floor, floor, floor, mfloor])
    Sigma = J[:3, :3]
    I_o = np.trace(Sigma) * np.eye(3) - Sigma
    return np.array(
        [J[3, 3], *J[:3, 3], I_o[0, 0], I_o[0, 1], I_o[0, 2], I_o[1, 1], I_o[1, 2], I_o[2, 2]]
    )


# ------------------------------------------------------------------ the result
@dataclasses.dataclass
class Identification:
    """The result of :func:`identify`.

    Attributes
    ----------
    parameters : numpy.ndarray, shape (P,)
        Standard parameters (10 per body about its joint frame, then joint columns).
    base_parameters : numpy.ndarray, shape (r,)
    base : BaseParameters
        The map ``beta = base.K @ pi`` and the names.
    standard_errors : numpy.ndarray, shape (r,)
        Of the base parameters (from the linearised weighted least-squares covariance).
    condition_number : float
        Of the stacked base regressor with its columns scaled to unit norm (the
        excitation's quality; the unscaled one is ``condition_number_raw``).
    residual_rms : numpy.ndarray, shape (nv,)
        Per joint, of the fitted torques (N m).
    """

    method: str
    parameters: np.ndarray
    base_parameters: np.ndarray
    base: BaseParameters
    standard_errors: np.ndarray
    condition_number: float
    condition_number_raw: float
    residual_rms: np.ndarray
    samples: int
    prior: object  # the Model given
    weights: np.ndarray  # (nv,) row weights used (1 / sigma_j)
    optimizer: dict = dataclasses.field(default_factory=dict)

    @property
    def model(self):
        """The prior model with the identified parameters (non-physical ones kept)."""
        cached = self.__dict__.get("_model")
        if cached is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ModelWarning)
                cached = self.prior.with_parameters(
                    self.parameters,
                    friction=self.base.friction,
                    offset=self.base.offset,
                    armature=self.base.armature,
                )
            self.__dict__["_model"] = cached
        return cached

    def regressor(self, q, v, a) -> np.ndarray:
        """The standard regressor in this identification's layout, (..., nv, P)."""
        b = self.base
        return regressor(
            self.prior, q, v, a, friction=b.friction, offset=b.offset, armature=b.armature
        )

    def predict(self, q, v, a) -> np.ndarray:
        """Torques the identified parameters give, (..., nv) (offsets included)."""
        return self.regressor(q, v, a) @ self.parameters

    def violations(self) -> list[str]:
        """Bodies whose identified parameters are not physical (empty: all valid)."""
        nb = self.prior.nb
        return physical_violations(
            self.parameters[: 10 * (nb - 1)], names=self.prior.body_names[1:]
        )

    @property
    def physical(self) -> bool:
        """True when every body's pseudo-inertia is positive semi-definite."""
        return not self.violations()

    def report(self) -> str:
        """A text report: data, rank, condition number, the base parameters with their
        standard errors, residuals per joint, physical validity."""
        b = self.base
        lines = [
            f"identification of {self.prior.name!r} by {self.method.upper()}: {self.samples} "
            f"samples x {self.prior.nv} joints, {b.rank} base of {b.size} standard parameters",
            f"condition number of the base regressor: {self.condition_number:.4g} "
            f"(columns scaled; raw {self.condition_number_raw:.4g})",
            "",
            f"  {'base parameter':<48} {'estimate':>12} {'std err':>10} {'%':>7}",
        ]
        for e, x, s in zip(b.expressions(), self.base_parameters, self.standard_errors):
            rel = 100 * s / abs(x) if x != 0 else np.inf
            e = e if len(e) <= 48 else e[:45] + "..."
            lines.append(f"  {e:<48} {x:12.5g} {s:10.3g} {rel:7.2f}")
        lines.append("")
        names = self.prior.joint_names
        rms = " ".join(f"{r:.3g}" for r in self.residual_rms)
        lines.append(f"torque residual RMS per joint (N m or N): {rms}")
        if len(names) == len(self.residual_rms):
            lines[-1] += f"  [{', '.join(names)}]"
        viol = self.violations()
        if viol:
            lines.append("NOT physically consistent: " + "; ".join(viol))
        else:
            lines.append("physically consistent: every body has a positive-definite pseudo-inertia")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"Identification({self.method!r}, {self.base.rank} base parameters, "
            f"{self.samples} samples, cond {self.condition_number:.3g})"
        )


# ------------------------------------------------------------------ identify
def identify(
    model,
    Q,
    V,
    A,
    TAU,
    method: str = "ols",
    *,
    friction: bool = True,
    offset: bool = False,
    armature: bool = True,
    weights=None,
    regularization: float = 1e-4,
    base: BaseParameters | None = None,
    max_nfev: int = 200,
) -> Identification:
    """Identify the inertial (and joint friction, armature) parameters from measured motion.

    Parameters
    ----------
    model : Model
        The structure (kinematics) and the prior parameters (used only for what the data
        cannot determine: the non-identifiable directions, and the consistent start).
    Q : array_like, shape (N, nq)
    V, A : array_like, shape (N, nv)
        Joint velocities and accelerations (filtered; the accelerations typically by
        differentiating a smoothed V, or from a known excitation).
    TAU : array_like, shape (N, nv)
        Measured joint torques (N m) or forces (N).
    method : {"ols", "wls", "consistent"}
    friction, offset, armature : bool
        Identify joint viscous and Coulomb friction, torque offsets, armature too.
    weights : array_like, shape (nv,), optional
        Row weights ``1 / sigma_j`` for WLS and consistent (default: estimated from the
        OLS residuals per joint; OLS ignores them).
    regularization : float
        Consistent method only: weight of ``|pi - pi_prior|^2`` (parameters scaled by the
        prior's mass and size) relative to the mean squared weighted residual.
    base : BaseParameters, optional
        Precomputed :func:`base_parameters` with the same layout.
    max_nfev : int
        Consistent method: evaluations of the least-squares solver.

    Returns
    -------
    Identification

    Raises
    ------
    ValueError
        Bad data (shapes, lengths, NaN rows), too few samples for the number of base
        parameters, data that do not excite every base parameter, an unknown method.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}")
    Q, V, A, TAU = check_data(model, Q, V, A, TAU)
    N, nv = TAU.shape
    kw = dict(friction=friction, offset=offset, armature=armature)
    base, lay = _base_and_layout(model, base, kw)
    r = base.rank
    _check_sample_count(N, nv, r)
    Ys = regressor(model, Q, V, A, **kw)  # (N, nv, P)
    Wb = base.regressor(Ys)  # (N, nv, r)
    W = Wb.reshape(-1, r)
    y = TAU.reshape(-1)
    cond, cond_raw = _condition_numbers(W, base)
    beta, _ = _normal_solve(W, y)  # OLS
    w = _row_weights(method, weights, W, y, beta, TAU, r)
    Ww = (Wb * w[None, :, None]).reshape(-1, r)
    yw = (TAU * w).reshape(-1)
    if method == "wls":
        beta, _ = _normal_solve(Ww, yw)
    prior = _prior(model, lay)
    info: dict = {}
    if method == "consistent":
        pi, info = _consistent(model, lay, Ys, TAU, w, prior, beta, base, regularization, max_nfev)
        beta = base(pi)
    else:
        pi = base.standard(beta, prior)
    se = _standard_errors(Ww, yw, beta, N * nv - r)
    rms = np.sqrt(np.mean((TAU - Ys @ pi) ** 2, axis=0))
    return Identification(
        method=method,
        parameters=pi,
        base_parameters=beta,
        base=base,
        standard_errors=se,
        condition_number=cond,
        condition_number_raw=cond_raw,
        residual_rms=rms,
        samples=N,
        prior=model,
        weights=w,
        optimizer=info,
    )


def _base_and_layout(model, base: BaseParameters | None, kw: dict):
    """The base parameters (computed unless given) and the layout, checked to agree."""
    if base is None:
        base = base_parameters(model, **kw)
    lay = layout(model, **kw)
    if base.size != lay.size:
        raise ValueError(f"base has {base.size} standard parameters, this layout {lay.size}")
    return base, lay


def _check_sample_count(N: int, nv: int, r: int) -> None:
    """At least one equation more than base parameters."""
    if N * nv < r + 1:
        raise ValueError(
            f"too few samples: {N} samples x {nv} joints = {N * nv} equations for {r} base "
            f"parameters; need at least {-(-(r + 1) // nv)} samples (many more in practice)"
        )


def _condition_numbers(W: np.ndarray, base: BaseParameters) -> tuple[float, float]:
    """The stacked base regressor's condition number with its columns scaled to unit norm
    and unscaled; a ValueError when the data do not excite every base parameter."""
    col = np.linalg.norm(W, axis=0)
    if np.any(col == 0):
        zero = [base.names[base.independent[k]] for k in np.flatnonzero(col == 0)]
        raise ValueError(
            f"the data do not excite {len(zero)} base parameter(s) ({', '.join(zero[:5])}): "
            "the motion is too poor (use rd.ident.excitation_trajectory)"
        )
    G = (W / col).T @ (W / col)  # Gram matrix of the column-scaled regressor, r x r
    ev = np.linalg.eigvalsh(G)
    cond = float(np.sqrt(ev[-1] / ev[0])) if ev[0] > 0 else np.inf
    if not np.isfinite(cond) or cond > 1e7:
        raise ValueError(
            f"the data do not excite every base parameter (rank-deficient stacked regressor, "
            f"condition number {cond:.3g} with scaled columns): too few distinct samples or "
            "a poor motion (use rd.ident.excitation_trajectory)"
        )
    ev_raw = np.linalg.eigvalsh(W.T @ W)
    return cond, float(np.sqrt(ev_raw[-1] / max(ev_raw[0], 1e-300)))


def _row_weights(method: str, weights, W, y, beta, TAU, r: int) -> np.ndarray:
    """Each joint's row weight ``1 / sigma_j``: ones for OLS, else the given ``weights`` or
    the inverse noise level of the OLS residuals per joint (Gautier and Poignet 2001)."""
    N, nv = TAU.shape
    w = np.ones(nv)
    if method in ("wls", "consistent"):
        if weights is not None:
            w = np.asarray(weights, dtype=float)
            if w.shape != (nv,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
                raise ValueError(f"weights must be {nv} positive numbers (1/sigma), got {w!r}")
        else:
            res = (y - W @ beta).reshape(N, nv)
            sig = np.sqrt(np.sum(res**2, axis=0) / max(N - r / nv, 1.0))
            w = 1.0 / np.maximum(sig, 1e-9 * max(float(np.abs(TAU).max()), 1e-300))
    return w


def _standard_errors(Ww, yw, beta, dof_rows: int) -> np.ndarray:
    """Of the base parameters, from the covariance of the (weighted) linear model at the
    estimate: ``s^2 (W^T W)^-1`` with ``s^2`` the residual's mean square per free row."""
    _, Ginv = _normal_solve(Ww, yw)
    res_w = yw - Ww @ beta
    s2 = float(res_w @ res_w) / max(dof_rows, 1)
    return np.sqrt(np.clip(s2 * np.diag(Ginv), 0, None))


def _normal_solve(W, y):
    """Least squares by the normal equations of the column-scaled W (r x r, cheap for the
    tall stacked regressors; scaled, their condition number is small).

    Returns
    -------
    (x (r,), (W^T W)^-1 (r, r))
    """
    col = np.linalg.norm(W, axis=0)
    Ws = W / col
    G = Ws.T @ Ws
    cf = scipy.linalg.cho_factor(G)
    x = scipy.linalg.cho_solve(cf, Ws.T @ y) / col
    Ginv = scipy.linalg.cho_solve(cf, np.eye(len(col))) / np.outer(col, col)
    return x, Ginv


def _prior(model, lay) -> np.ndarray:
    from ..model.parameters import parameters

    return parameters(model, friction=lay.friction, offset=lay.offset, armature=lay.armature)


def _consistent(model, lay, Ys, TAU, w, prior, beta0, base, regularization, max_nfev):
    """Physically consistent estimate by log-Cholesky coordinates (module docstring)."""
    N, nv, P = Ys.shape
    nbody = model.nb - 1
    nB = 10 * nbody
    # compress the weighted problem: |W pi - y|^2 = |R pi - z|^2 + const with
    # W^T W = E diag(l) E^T, R = diag(sqrt l) E^T, z = diag(1/sqrt l) E^T W^T y
    Ww = (Ys * w[None, :, None]).reshape(-1, P)
    yw = (TAU * w).reshape(-1)
    lam_g, E = np.linalg.eigh(Ww.T @ Ww)
    keep = lam_g > 1e-13 * lam_g[-1]
    sq = np.sqrt(lam_g[keep])
    Rf = sq[:, None] * E[:, keep].T
    z = (E[:, keep].T @ (Ww.T @ yw)) / sq
    # scales: a mass, a length -> parameter scales for the prior pull
    m_tot = max(float(np.sum(np.abs(prior[0:nB:10]))), 1e-3)
    length = _length_scale(model)
    unit = np.tile([1.0, length, length, length] + [length**2] * 6, nbody) * m_tot / max(nbody, 1)
    unit = np.concatenate([unit, np.maximum(np.abs(prior[nB:]), 1e-2)]) if P > nB else unit
    mse = float(np.sum((Ww @ base.standard(beta0, prior) - yw) ** 2)) / max(len(yw), 1)
    lam = np.sqrt(regularization * max(mse, 1e-12) * len(yw) / P)

    # start: the OLS/WLS standard estimate made physical body by body
    def start(pi_s):
        theta = [
            log_cholesky(_physical_start(pi_s[10 * i : 10 * i + 10], length)) for i in range(nbody)
        ]
        return np.concatenate([np.ravel(theta), pi_s[nB:]])

    # two starts: the OLS/WLS standard estimate and the prior, each made physical
    starts = [start(base.standard(beta0, prior)), start(prior)]

    logs = np.zeros((nbody, 10), bool)
    logs[:, :4] = True  # alpha, d1, d2, d3: kept where exp stays finite in J

    def unpack(x):
        pi = np.empty(P)
        th = x[:nB].reshape(nbody, 10)
        th = np.where(logs, np.clip(th, -100.0, 100.0), th)
        pi[:nB] = from_log_cholesky(th).ravel()
        pi[nB:] = x[nB:]
        return pi

    def jac_pi(x):
        """d pi / d x: block diagonal, each 10x10 block by complex step (exact)."""
        Jb = np.zeros((nbody, 10, 10))
        th = x[:nB].reshape(nbody, 10).astype(complex)
        h = 1e-20
        for k in range(10):
            t = th.copy()
            t[:, k] += 1j * h
            Jb[:, :, k] = from_log_cholesky(t).imag / h
        return Jb

    def residual(x):
        pi = unpack(x)
        return np.concatenate([Rf @ pi - z, lam * (pi - prior) / unit])

    def jacobian(x):
        Jb = jac_pi(x)
        D = np.zeros((P, P))
        for i in range(nbody):
            D[10 * i : 10 * i + 10, 10 * i : 10 * i + 10] = Jb[i]
        D[nB:, nB:] = np.eye(P - nB)
        return np.vstack([Rf @ D, (lam / unit)[:, None] * D])

    best = None
    for x0 in starts:
        sol = scipy.optimize.least_squares(
            residual, x0, jac=jacobian, method="lm", max_nfev=max_nfev, xtol=1e-15,
            ftol=1e-15, gtol=1e-15, x_scale="jac",
        )  # fmt: skip
        if best is None or sol.cost < best.cost:
            best = sol
    pi = unpack(best.x)
    return pi, dict(status=int(best.status), nfev=int(best.nfev), message=str(best.message))


def _length_scale(model) -> float:
    """A typical link length (m): the mean joint offset, at least 1 cm."""
    d = np.linalg.norm(model.jnt_p[1:], axis=1)
    d = d[d > 0]
    return float(np.mean(d)) if d.size else 0.1


def identify_energy(
    model,
    t,
    Q,
    V,
    TAU,
    *,
    window: int = 10,
    friction: bool = True,
    offset: bool = False,
    armature: bool = True,
    base: BaseParameters | None = None,
) -> Identification:
    """Energy-based identification: no acceleration needed (Gautier and Khalil 1988).

    The energy theorem ``dH/dt = v . (tau - tau_f)`` with ``tau_f = b v + f_c sgn(v) +
    tau_0`` integrated over windows ``[t_k, t_{k+window}]`` (trapezoid rule) gives one
    linear equation per window::

        int v . tau dt = (e(q, v)|_{t_k}^{t_{k+w}}) pi_bodies+armature
                         + sum_j b_j int v_j^2 + f_cj int |v_j| + tau_0j int v_j

    solved by least squares for the base parameters (:func:`robodyn.ident.energy_regressor`).

    Parameters
    ----------
    model : Model
    t : array_like, shape (N,)  sample times (s)
    Q : (N, nq); V, TAU : (N, nv)
    window : int
        Samples per window (the windows do not overlap).

    Returns
    -------
    Identification  (method ``"energy"``; ``residual_rms`` is of the torques the
    parameters predict with accelerations differentiated from V)
    """
    from ..model.parameters import parameters
    from .regressor import energy_regressor

    t = np.asarray(t, dtype=float)
    Q, V, _, TAU = check_data(model, Q, V, np.zeros_like(np.asarray(V, dtype=float)), TAU)
    N, nv = TAU.shape
    if t.shape != (N,) or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise ValueError(f"t must be {N} increasing finite times, got shape {t.shape}")
    kw = dict(friction=friction, offset=offset, armature=armature)
    base = base or base_parameters(model, **kw)
    lay = layout(model, **kw)
    if window < 1 or N < window + 1:
        raise ValueError(f"need more than window={window} samples, got {N}")
    E = energy_regressor(model, Q, V, **kw)  # (N, P)
    dof = lay.dofs
    dt = np.diff(t)

    def integral(f):  # running trapezoid integral from t_0, (N, ...)
        inc = 0.5 * (f[1:] + f[:-1]) * dt.reshape(-1, *([1] * (f.ndim - 1)))
        return np.concatenate([np.zeros((1, *f.shape[1:])), np.cumsum(inc, axis=0)])

    power = integral(np.einsum("ni,ni->n", V, TAU))
    cols = np.zeros((N, lay.size))
    for name, f in (
        ("viscous", V[:, dof] ** 2),
        ("coulomb", np.abs(V[:, dof])),
        ("offset", V[:, dof]),
    ):
        sl = lay.block(name)
        if sl is not None:
            cols[:, sl] = integral(f)
    k0 = np.arange(0, N - window, window)  # windows [t_k0, t_k0+window]
    k1 = k0 + window
    Phi = (E[k1] - E[k0]) + (cols[k1] - cols[k0])
    y = power[k1] - power[k0]
    r = base.rank
    if len(y) < r + 1:
        raise ValueError(
            f"too few samples: {len(y)} energy windows of {window} samples for {r} base "
            f"parameters; need at least {(r + 1) * window + 1} samples"
        )
    Wb = base.regressor(Phi)
    beta = np.linalg.lstsq(Wb, y, rcond=None)[0]
    prior = parameters(model, **kw)
    pi = base.standard(beta, prior)
    res = y - Wb @ beta
    s2 = float(res @ res) / max(len(y) - r, 1)
    se = np.sqrt(np.clip(np.diag(s2 * np.linalg.pinv(Wb.T @ Wb)), 0, None))
    col = np.linalg.norm(Wb, axis=0)
    ev = np.linalg.eigvalsh((Wb / np.maximum(col, 1e-300)).T @ (Wb / np.maximum(col, 1e-300)))
    cond = float(np.sqrt(ev[-1] / ev[0])) if ev[0] > 0 else np.inf
    ev_raw = np.linalg.eigvalsh(Wb.T @ Wb)
    A = np.gradient(V, t, axis=0)
    rms = np.sqrt(np.mean((TAU - regressor(model, Q, V, A, **kw) @ pi) ** 2, axis=0))
    return Identification(
        method="energy",
        parameters=pi,
        base_parameters=beta,
        base=base,
        standard_errors=se,
        condition_number=cond,
        condition_number_raw=float(np.sqrt(ev_raw[-1] / max(ev_raw[0], 1e-300))),
        residual_rms=rms,
        samples=N,
        prior=model,
        weights=np.ones(nv),
    )
