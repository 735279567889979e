"""Workspace and manipulability maps, and singular configurations along a path (MR ch. 5).

:func:`workspace` samples the reachable positions of a frame: forward kinematics of
random (or grid) configurations within the joint limits, in one batched call, with the
Jacobian of every sample (one more batched call) reduced to the measures of MR sec. 5.4
from its singular values ``sigma_1 >= ... >= sigma_k`` (``lambda_i = sigma_i^2`` are
the eigenvalues of ``A = J J^T``):

* ``manipulability`` ``mu_3 = sqrt(lambda_1 ... lambda_k) = sigma_1 ... sigma_k``, the
  volume factor of the velocity ellipsoid (Yoshikawa's measure), 0 at a singularity;
* ``condition`` ``mu_2 = lambda_max / lambda_min``, the condition number of A;
* ``isotropy`` ``mu_1 = sqrt(lambda_max / lambda_min) = sigma_1 / sigma_k`` (1: the
  ellipsoid is a sphere; inf at a singularity).

Its outer boundary is given radially: from a centre (default the first joint's origin),
the farthest sample within each of a set of nearly uniform directions (a star-shaped
envelope, no alpha shape), and as scipy's convex hull. :func:`singularities` finds the
configurations along a joint path where the smallest singular value of the Jacobian
drops below a threshold, refines each to a local minimum, and reports which twist
directions the frame loses there and which joint motion does nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ._files import figure_path, save_figure
from .kinematics import fk, jacobian
from .kinematics.forward import _frame_index, _kept_rows, _packed, _rows, _sample_ranges
from .model.model import Model

__all__ = ["workspace", "Workspace", "singularities", "Singularity", "MEASURES"]

#: measure name -> (symbol, description for the colour bars)
MEASURES = {
    "manipulability": ("mu_3", "manipulability mu_3 = prod sigma_i"),
    "condition": ("mu_2", "condition number mu_2 = lambda_max / lambda_min"),
    "isotropy": ("mu_1", "isotropy mu_1 = sigma_max / sigma_min"),
    "sigma_min": ("sigma_min", "smallest singular value sigma_min"),
}


def _unit(measure: str, part, k: int) -> str:
    """Unit of a measure: J maps joint rates (rad/s) to [omega (rad/s); v (m/s)]."""
    if measure in ("condition", "isotropy"):
        return "1"
    row = {"linear": "m/rad", "angular": "rad/rad"}.get(part) if isinstance(part, str) else None
    if row is None:
        return "mixed rad/rad, m/rad"
    return row if measure == "sigma_min" else f"({row})^{k}"


def _measures(J: np.ndarray, part) -> dict:
    """The measures of MR sec. 5.4 of a batch of Jacobians (n, 6, nv), rows ``part``."""
    Jp = _kept_rows(J, part)
    n_rows, nv = Jp.shape[-2:]
    s = np.linalg.svd(Jp, compute_uv=False)  # (n, min(k, nv)), largest first
    if n_rows > nv:  # more rows than joints: rank <= nv < k, the missing sigmas are 0
        s = np.concatenate([s, np.zeros((*s.shape[:-1], n_rows - nv))], axis=-1)
    smax, smin = s[..., 0], s[..., -1]
    with np.errstate(divide="ignore"):
        iso = np.where(smin > 0, smax / np.where(smin > 0, smin, 1.0), np.inf)
    return {
        "sigma": s,
        "manipulability": np.prod(s, axis=-1),
        "condition": iso**2,
        "isotropy": iso,
        "sigma_min": smin,
    }


def _directions(n: int) -> np.ndarray:
    """n nearly uniform unit vectors (a Fibonacci sphere), shape (n, 3)."""
    k = np.arange(n) + 0.5
    z = 1.0 - 2.0 * k / n
    r = np.sqrt(1.0 - z * z)
    phi = math.pi * (3.0 - math.sqrt(5.0)) * k
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def _radial_boundary(points, centre, directions, chunk=20000):
    """Farthest sample of each direction's cell (points assigned to their nearest
    direction): radius (d,), 0 for an empty cell."""
    radius = np.zeros(len(directions))
    for a in range(0, len(points), chunk):
        d = points[a : a + chunk] - centre
        r = np.linalg.norm(d, axis=1)
        cell = np.argmax(d @ directions.T, axis=1)
        np.maximum.at(radius, cell, r)
    return radius


@dataclass(frozen=True)
class Workspace:
    """Sampled reachable workspace of a frame and its manipulability measures.

    Attributes
    ----------
    frame : str
    q : numpy.ndarray, shape (n, nq)
        The sampled configurations.
    points : numpy.ndarray, shape (n, 3)
        Positions of the frame origin in the world (m).
    sigma : numpy.ndarray, shape (n, k)
        Singular values of the Jacobian rows kept, largest first.
    manipulability, condition, isotropy, sigma_min : numpy.ndarray, shape (n,)
        MR sec. 5.4's ``mu_3``, ``mu_2``, ``mu_1`` and ``sigma_k`` (see :data:`MEASURES`).
    kind, part
        The Jacobian kind and rows the measures use.
    centre : numpy.ndarray, shape (3,)
        Centre of the radial boundary (m).
    directions : numpy.ndarray, shape (d, 3)
        Unit directions of the radial boundary.
    radius : numpy.ndarray, shape (d,)
        Farthest sample from the centre within each direction's cell (m; 0: no sample).
    jacobians : numpy.ndarray, shape (n, 6, nv)
        The Jacobian (all six rows, the kind above) at every sample.
    """

    frame: str
    q: np.ndarray
    points: np.ndarray
    sigma: np.ndarray
    manipulability: np.ndarray
    condition: np.ndarray
    isotropy: np.ndarray
    sigma_min: np.ndarray
    kind: str
    part: object
    centre: np.ndarray
    directions: np.ndarray
    radius: np.ndarray
    model_name: str = field(default="")
    jacobians: np.ndarray | None = field(default=None, repr=False)  # (n, 6, nv), all rows

    def torques(self, wrench) -> np.ndarray:
        """Joint torques that hold a wrench at the frame in every sample: statics,
        ``tau = J^T F`` (MR eq. 5.26).

        Parameters
        ----------
        wrench : array_like, shape (6,) or (n, 6)
            ``F = [m; f]`` (N m, N) in the coordinates of the Jacobian kind (``"body"``:
            frame axes; ``"world_aligned"``: world axes at the frame origin, e.g. a payload's
            weight ``[0, 0, 0, 0, 0, -m g]``).

        Returns
        -------
        numpy.ndarray, shape (n, nv)
            Joint torques (N m) and forces (N).
        """
        F = np.asarray(wrench, dtype=float)
        n = len(self.points)
        if F.shape not in ((6,), (n, 6)):
            raise ValueError(f"wrench must have shape (6,) or ({n}, 6), got {F.shape}")
        return np.einsum("nij,ni->nj", self.jacobians, np.broadcast_to(F, (n, 6)))

    @property
    def boundary(self) -> np.ndarray:
        """Points of the radial boundary, ``centre + radius * direction``, shape (d, 3) (m)."""
        return self.centre + self.radius[:, None] * self.directions

    @property
    def reach(self) -> float:
        """Largest distance of a sample from the centre (m)."""
        return float(self.radius.max(initial=0.0))

    def hull(self):
        """scipy's convex hull of the samples (``.volume`` in m^3, ``.vertices``)."""
        from scipy.spatial import ConvexHull

        return ConvexHull(self.points)

    def measure(self, name: str) -> np.ndarray:
        """One of :data:`MEASURES` by name, shape (n,)."""
        if name not in MEASURES:
            raise ValueError(f"measure must be one of {', '.join(MEASURES)}, got {name!r}")
        return getattr(self, name)

    def _colour(self, values, measure):
        """Scatter colours: linear from 0 for manipulability and sigma_min; logarithmic from
        1 for the condition number and the isotropy (heavy-tailed near singularities),
        clipped at the 99th percentile (an infinite value takes the top colour)."""
        from matplotlib.colors import LogNorm, Normalize

        finite = np.isfinite(values)
        top = float(np.percentile(values[finite], 99)) if finite.any() else 1.0
        if measure in ("condition", "isotropy"):
            norm = LogNorm(vmin=1.0, vmax=max(top, 10.0), clip=True)
        else:
            norm = Normalize(vmin=0.0, vmax=top if top > 0 else 1.0, clip=True)
        return dict(c=np.where(finite, values, top), cmap="viridis", norm=norm)

    def _colourbar(self, fig, sc, ax, measure, **kw):
        unit = _unit(measure, self.part, self.sigma.shape[-1])
        cb = fig.colorbar(sc, ax=ax, label=f"{MEASURES[measure][1]} [{unit}]", **kw)
        cb.ax.set_xlabel(f"[{'mixed' if unit.startswith('mixed') else unit}]", fontsize="small")
        return cb

    def plot(
        self,
        measure: str = "manipulability",
        path=None,
        *,
        max_points: int = 20000,
        overwrite: bool = False,
    ):
        """3-D scatter of the samples coloured by a measure, with a colour bar.

        Parameters
        ----------
        measure : str
            A name of :data:`MEASURES`.
        path : str or Path, optional
            Write the figure there.
        max_points : int
            Plot at most this many samples (evenly thinned).
        overwrite : bool
            Replace an existing file at ``path`` (else FileExistsError, before drawing).

        Returns
        -------
        matplotlib.figure.Figure
            One 3-D axes (x, y, z in m) and the measure's colour bar.
        """
        from matplotlib.figure import Figure

        figure_path(path, overwrite)
        values = self.measure(measure)
        step = max(1, len(values) // max_points)
        fig = Figure(figsize=(7.5, 6.0), layout="constrained")
        ax = fig.add_subplot(projection="3d")
        P = self.points[::step]
        sc = ax.scatter(P[:, 0], P[:, 1], P[:, 2], s=2, **self._colour(values[::step], measure))
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.set_zlabel("z (m)")
        ax.set_title(f"Workspace of {self.frame!r}{self._of()}\n{MEASURES[measure][0]} of the "
                     f"{self.part} rows of J_{self.kind}", fontsize="medium")  # fmt: skip
        self._colourbar(fig, sc, ax, measure, shrink=0.7)
        if path is not None:
            save_figure(fig, path, overwrite=overwrite, dpi=110)
        return fig

    def plot_slice(
        self,
        measure: str = "manipulability",
        path=None,
        *,
        axis: str = "z",
        value: float | None = None,
        thickness: float | None = None,
        overwrite: bool = False,
    ):
        """2-D slice of the workspace: the samples within ``thickness / 2`` of the plane
        ``axis = value``, coloured by a measure, with the radial boundary's points in the
        same slab.

        Parameters
        ----------
        measure : str
        path : str or Path, optional
        axis : {"x", "y", "z"}
            The normal of the slicing plane.
        value : float, optional
            Its coordinate (m; default the centre's).
        thickness : float, optional
            Slab thickness (m; default 5 % of the workspace's extent along the axis).
        overwrite : bool
            Replace an existing file at ``path`` (else FileExistsError, before drawing).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from matplotlib.figure import Figure

        if axis not in ("x", "y", "z"):
            raise ValueError(f"axis must be 'x', 'y' or 'z', got {axis!r}")
        figure_path(path, overwrite)
        a = "xyz".index(axis)
        u, w = [i for i in range(3) if i != a]
        values = self.measure(measure)
        c = self.points[:, a]
        value = float(self.centre[a] if value is None else value)
        if thickness is None:
            thickness = 0.05 * float(np.ptp(c)) if len(c) else 0.0
        keep = np.abs(c - value) <= thickness / 2
        fig = Figure(figsize=(7.0, 5.5), layout="constrained")
        ax = fig.add_subplot()
        P = self.points[keep]
        sc = ax.scatter(P[:, u], P[:, w], s=4, **self._colour(values[keep], measure))
        B = self.boundary
        near = (np.abs(B[:, a] - value) <= max(thickness, 0.1 * self.reach)) & (self.radius > 0)
        if near.any():
            ax.scatter(B[near, u], B[near, w], marker="x", color="k", s=18,
                       label="radial boundary")  # fmt: skip
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize="small")
        ax.set_xlabel(f"{'xyz'[u]} (m)")
        ax.set_ylabel(f"{'xyz'[w]} (m)")
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_title(f"Workspace of {self.frame!r}{self._of()}, slice {axis} = {value:.3g} m "
                     f"(+/- {thickness / 2:.2g} m)\n{MEASURES[measure][0]} of the {self.part} "
                     f"rows of J_{self.kind}", fontsize="medium")  # fmt: skip
        self._colourbar(fig, sc, ax, measure)
        if path is not None:
            save_figure(fig, path, overwrite=overwrite, dpi=110)
        return fig

    def _of(self) -> str:
        return f" ({self.model_name})" if self.model_name else ""


def _grid(model: Model, grid) -> np.ndarray:
    """Configurations on a grid within the limits (unlimited revolute: [-pi, pi],
    prismatic: [-1, 1] m): ``grid`` points per joint (int) or one sequence per joint."""
    q1, lo1, hi1 = _sample_ranges(model)  # random_configuration's ranges
    lo, hi = np.zeros(model.nq), np.zeros(model.nq)
    lo[q1], hi[q1] = lo1, hi1
    if np.isscalar(grid):
        m = int(grid)
        if m < 1 or m != grid:
            raise ValueError(f"grid must be an int >= 1 or one sequence per joint, got {grid!r}")
        axes = [np.linspace(lo[j], hi[j], m) for j in range(model.nq)]
    else:
        if len(grid) != model.nq:
            raise ValueError(f"grid must have one sequence per joint ({model.nq}), got {len(grid)}")
        axes = [np.asarray(g, dtype=float).ravel() for g in grid]
    if math.prod(len(g) for g in axes) > 5_000_000:
        raise ValueError("grid has more than 5,000,000 configurations; use random sampling (n=)")
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.stack([x.ravel() for x in mesh], axis=-1)


def workspace(
    model: Model,
    frame,
    n: int = 20000,
    grid=None,
    rng=None,
    *,
    kind: str = "body",
    part="full",
    centre=None,
    n_directions: int = 400,
    threads: int | None = None,
) -> Workspace:
    """Sample the reachable workspace of a frame and its manipulability measures.

    Parameters
    ----------
    model : Model
        A fixed-base model (no floating joint).
    frame : str or int
    n : int
        Random configurations, uniform within the joint limits
        (:func:`robodyn.random_configuration`), when ``grid`` is None.
    grid : int or sequence of array_like, optional
        Instead of random sampling: ``grid`` evenly spaced values per joint within its
        limits (unlimited revolute joints: [-pi, pi]), or one sequence of values per joint.
    rng : numpy.random.Generator or int, optional
    kind : {"body", "space", "world_aligned"}
        Jacobian kind of the measures (they do not depend on it for the full J).
    part : {"full", "linear", "angular"} or sequence of int
        Rows of J the measures use (as :func:`robodyn.manipulability`).
    centre : array_like, shape (3,), optional
        Centre of the radial boundary (default: the origin of the first joint).
    n_directions : int
        Directions of the radial boundary.
    threads : int, optional
        Threads of the batched kinematics.

    Returns
    -------
    Workspace
    """
    from .model.configuration import random_configuration

    pack = _packed(model)
    k = _frame_index(model, pack, frame)
    if _sample_ranges(model) is None:
        raise ValueError(
            "workspace needs a fixed-base model of one-coordinate joints (it has a floating "
            "or multi-coordinate joint)"
        )
    if grid is None:
        if int(n) != n or n < 1:
            raise ValueError(f"n must be an integer >= 1, got {n!r}")
        Q = random_configuration(model, rng, size=int(n))
    else:
        Q = _grid(model, grid)
    T = fk(model, Q, k, threads=threads)
    J = jacobian(model, Q, k, kind, threads=threads)
    m = _measures(J, part)
    P = np.ascontiguousarray(T[:, :3, 3])
    if centre is None:
        centre = np.array(model.jnt_p[1], dtype=float)  # body 1 hangs from the world
    else:
        centre = np.asarray(centre, dtype=float)
        if centre.shape != (3,):
            raise ValueError(f"centre must have shape (3,), got {centre.shape}")
    D = _directions(int(n_directions))
    return Workspace(
        frame=model.frame_names[k], q=Q, points=P, sigma=m["sigma"],
        manipulability=m["manipulability"], condition=m["condition"], isotropy=m["isotropy"],
        sigma_min=m["sigma_min"], kind=kind, part=part, centre=centre, directions=D,
        radius=_radial_boundary(P, centre, D), model_name=model.name, jacobians=J,
    )  # fmt: skip


# ------------------------------------------------------------------ singularities
@dataclass(frozen=True)
class Singularity:
    """A singular configuration found along a path.

    Attributes
    ----------
    index : int
        The path sample nearest to it.
    s : float
        Its path parameter in sample units (``index`` plus the fraction towards the next
        sample, configurations interpolated linearly).
    q : numpy.ndarray, shape (nq,)
    sigma : numpy.ndarray, shape (k,)
        Singular values of the Jacobian rows kept there, largest first.
    lost : numpy.ndarray, shape (r, k)
        Unit twist directions (rows, in the coordinates of the Jacobian kind and rows
        kept, ``[omega; v]`` for the full body Jacobian) the frame cannot move along:
        the left singular vectors of the singular values below the threshold.
    null_motion : numpy.ndarray, shape (r', nv)
        Unit joint velocities that move the frame (almost) not at all.
    """

    index: int
    s: float
    q: np.ndarray
    sigma: np.ndarray
    lost: np.ndarray
    null_motion: np.ndarray

    @property
    def sigma_min(self) -> float:
        return float(self.sigma[-1])

    def __str__(self) -> str:
        dirs = "; ".join(np.array2string(u, precision=3, suppress_small=True) for u in self.lost)
        return (f"singular at s = {self.s:.4f} (sample {self.index}), q = "
                f"{np.array2string(self.q, precision=4, suppress_small=True)}, sigma_min = "
                f"{self.sigma_min:.3g}; lost directions: {dirs}")  # fmt: skip


def singularities(
    model: Model,
    frame,
    path,
    threshold: float = 1e-3,
    *,
    kind: str = "body",
    part="full",
    refine: bool = True,
) -> list[Singularity]:
    """Singular configurations along a joint path.

    The smallest singular value ``sigma_min`` of the Jacobian rows kept is computed at
    every sample (one batched Jacobian call); every local minimum is refined (with
    ``refine``) by a bounded scalar minimisation of ``sigma_min`` over the linearly
    interpolated configurations between its neighbours, and reported when below
    ``threshold``. Where ``sigma_min`` stays below it over several samples (a path
    along a singular set) the lowest point of that run is reported.

    Parameters
    ----------
    model : Model
    frame : str or int
    path : array_like, shape (K, nq)
        Configurations along the path, K >= 2.
    threshold : float
        ``sigma_min`` below which a configuration counts as singular (units of J: rad/s
        and m/s per unit joint rate).
    kind : {"body", "space", "world_aligned"}
    part : {"full", "linear", "angular"} or sequence of int
    refine : bool

    Returns
    -------
    list of Singularity
        In path order.
    """
    pack = _packed(model)
    k = _frame_index(model, pack, frame)
    Q = np.asarray(path, dtype=float)
    if Q.ndim != 2 or Q.shape[1] != model.nq or Q.shape[0] < 2:
        raise ValueError(f"path must have shape (K >= 2, nq = {model.nq}), got {Q.shape}")
    if not np.all(np.isfinite(Q)):
        raise ValueError("path contains NaN or inf")
    if not (np.isfinite(threshold) and threshold > 0):
        raise ValueError(f"threshold must be a positive number, got {threshold!r}")

    def smin(x):
        return _measures(jacobian(model, x, k, kind)[None], part)["sigma_min"][0]

    s = _measures(jacobian(model, Q, k, kind), part)["sigma_min"]
    K = len(s)
    # local minima of sigma_min over the samples (a flat stretch counts once)
    left = np.r_[True, s[1:] < s[:-1]]  # strictly below the previous sample
    right = np.r_[s[:-1] <= s[1:], True]
    cands = np.flatnonzero(left & right)
    run = np.cumsum(s >= threshold)  # samples in one stretch below the threshold share it
    found: dict = {}
    for i in cands:
        t, q = float(i), Q[i]
        if refine and s[i] > 0:
            from scipy.optimize import minimize_scalar

            a, b = max(i - 1, 0), min(i + 1, K - 1)

            def at(t):
                j = min(int(math.floor(t)), K - 2)
                f = t - j
                return (1 - f) * Q[j] + f * Q[j + 1]

            r = minimize_scalar(lambda t: smin(at(t)), bounds=(a, b), method="bounded",
                                options={"xatol": 1e-10})  # fmt: skip
            if r.fun < s[i]:
                t, q = float(r.x), at(r.x)
        Jp = _rows(jacobian(model, q, k, kind), part)
        U, S, Vt = np.linalg.svd(Jp)
        sig = np.zeros(Jp.shape[0])
        sig[: S.size] = S
        if sig[-1] >= threshold:
            continue
        key = ("run", run[i]) if s[i] < threshold else ("dip", i)
        if key in found and found[key].sigma_min <= sig[-1]:
            continue
        lost = U[:, sig < threshold].T
        null = Vt[np.r_[S < threshold, np.ones(Vt.shape[0] - S.size, bool)]]
        found[key] = Singularity(int(round(t)), t, q, sig, lost, null)
    out = sorted(found.values(), key=lambda x: x.s)
    return out
