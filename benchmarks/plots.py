"""PNG figures for docs/benchmarks.md (matplotlib, no display needed)."""
from __future__ import annotations

import os
from typing import Sequence

from benchmarks.harness import Measurement
from benchmarks.report import IMAGES


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def grouped_bars(name: str, title: str, ms: Sequence[Measurement], settings: Sequence[str],
                 log: bool = False) -> str:
    """Median time per query and setting; returns the markdown image link. ``log`` when the
    settings differ by orders of magnitude, so the fast ones stay visible."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(11, 4))
    width = 0.8 / len(settings)
    for i, s in enumerate(settings):
        ax.bar([q + i * width for q in range(len(ms))], [m.seconds[s] * 1000 for m in ms], width, label=s)
    ax.set_xticks([q + width * (len(settings) - 1) / 2 for q in range(len(ms))])
    ax.set_xticklabels([m.query for m in ms], rotation=15, ha="right", fontsize=8)
    ax.set_ylabel("median time (ms)")
    if log:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the axes: never over a bar
    fig.tight_layout()
    return _save(fig, plt, name)


def lines(name: str, title: str, xs: Sequence[float], series: dict[str, Sequence[float]],
          xlabel: str, ylabel: str, log: bool = True) -> str:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, ys in series.items():
        ax.plot(xs, ys, marker="o", label=label)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, plt, name)


def _save(fig, plt, name: str) -> str:
    os.makedirs(IMAGES, exist_ok=True)
    fig.savefig(os.path.join(IMAGES, f"{name}.png"), dpi=110)
    plt.close(fig)
    return f"![{name}](img/{name}.png)"
