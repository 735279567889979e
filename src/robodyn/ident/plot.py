"""Figures of an identification (matplotlib, no pyplot): measured against predicted torques
per joint, and the base parameters' errors (or changes from the prior model)."""

from __future__ import annotations

import numpy as np

from .._files import figure_path, save_figure

__all__ = ["plot_identification"]


def plot_identification(
    results, experiment, path=None, *, truth=None, held_out=None, overwrite: bool = False
):
    """Measured and predicted joint torques against time, and base-parameter errors.

    Parameters
    ----------
    results : Identification or dict of name -> Identification
        One estimate or several (e.g. ``{"ols": ..., "consistent": ...}``), same layout.
    experiment : Experiment
        The samples to predict (t, q, v, a, tau); ``tau_true`` is drawn when present.
    path : str or Path, optional
        Write the figure there (PNG).
    truth : numpy.ndarray, shape (P,), optional
        True standard parameters: the lower panel shows each base parameter's error
        relative to the truth; without it, its change from the prior model.
    held_out : float, optional
        Time (s) from which the samples were not used to fit (shaded).
    overwrite : bool
        Replace an existing file at ``path`` (else FileExistsError, before drawing).

    Returns
    -------
    matplotlib.figure.Figure
        One panel of torques per joint (one time axis), and the base parameters' panel.
    """
    from matplotlib.figure import Figure

    figure_path(path, overwrite)
    if not isinstance(results, dict):
        results = {results.method: results}
    first = next(iter(results.values()))
    model = first.prior
    nv = model.nv
    names = (
        list(model.joint_names) if len(model.joint_names) == nv else [f"dof {k}" for k in range(nv)]
    )
    e = experiment
    fig = Figure(figsize=(9.0, 1.0 + 1.9 * nv + 2.8), layout="constrained")
    gs = fig.add_gridspec(nv + 1, 1, height_ratios=[1] * nv + [1.6])
    axes = [fig.add_subplot(gs[0])]
    axes += [fig.add_subplot(gs[j], sharex=axes[0]) for j in range(1, nv)]  # one time axis
    axes.append(fig.add_subplot(gs[nv]))
    for j in range(nv):
        ax = axes[j]
        ax.plot(e.t, e.tau[:, j], color="0.6", lw=0.8, label="measured")
        if e.tau_true is not None:
            ax.plot(e.t, e.tau_true[:, j], color="k", lw=1.0, ls=":", label="noise-free")
        for name, res in results.items():
            ax.plot(e.t, res.predict(e.q, e.v, e.a)[:, j], lw=1.1, label=f"predicted ({name})")
        if held_out is not None:
            ax.axvspan(held_out, e.t[-1], color="C2", alpha=0.08, label="held out")
        ax.set_ylabel(f"{names[j]}\n(N m, N)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
        if j < nv - 1:
            ax.tick_params(labelbottom=False)
    axes[0].set_title(f"{model.name}: measured and predicted joint torques")
    axes[nv - 1].set_xlabel("t (s)")
    ax = axes[nv]
    base = first.base
    ref = base(truth) if truth is not None else base(_prior(first))
    scale = np.maximum(np.abs(ref), 1e-3 * max(np.abs(ref).max(), 1e-12))
    k = np.arange(base.rank)
    width = 0.8 / len(results)
    errs = {name: 100.0 * (res.base_parameters - ref) / scale for name, res in results.items()}
    for n, (name, err) in enumerate(errs.items()):
        ax.bar(k + (n - (len(results) - 1) / 2) * width, err, width, label=name)
    ax.axhline(0.0, color="k", lw=0.6, label="truth" if truth is not None else "prior")
    what = "error from the truth" if truth is not None else "change from the prior model"
    ax.set(
        xlabel="base parameter beta[k] (index k, see BaseParameters.table())",
        ylabel=f"{what} (%)",
        title=f"base parameters: {what}, relative",
    )
    lim = min(float(np.abs(ax.dataLim.intervaly).max()), 200.0)  # clip the few huge ones
    ax.set_ylim(-1.1 * lim - 1, 1.1 * lim + 1)
    _mark_clipped(ax, k, width, errs, 1.1 * lim + 1)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    if path is not None:
        save_figure(fig, path, overwrite=overwrite, dpi=100)
    return fig


def _mark_clipped(ax, k, width, errs: dict, edge: float) -> None:
    """A triangle at the axis edge over each bar the axis cuts, with its value."""
    xs, ys = [], []
    for n, err in enumerate(errs.values()):
        for kk, e in zip(k, err):
            if abs(e) > edge:
                x = kk + (n - (len(errs) - 1) / 2) * width
                xs.append(x)
                ys.append(np.sign(e) * 0.97 * edge)
                ax.annotate(f"{e:.0f} %", (x, ys[-1]), textcoords="offset points",
                            xytext=(0, -10 if e > 0 else 4), ha="center", fontsize=6)  # fmt: skip
    if xs:
        ax.plot(xs, ys, "k^", ms=5, ls="none", label="beyond the axis (value written)")


def _prior(res):
    from ..model.parameters import parameters

    b = res.base
    return parameters(res.prior, friction=b.friction, offset=b.offset, armature=b.armature)
