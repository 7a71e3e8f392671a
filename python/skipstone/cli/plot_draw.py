"""Drawing the plots' data as PNG files with matplotlib (headless: the Agg backend)."""
from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any, Sequence

from skipstone.cli.plot_data import BlocksFigure, WorkloadBar

#: Block ids are written inside the boxes only when there are few enough to read.
MAX_LABELLED_BLOCKS = 64


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _number(value: Any) -> float:
    """A bound as a plot coordinate: dates and timestamps as matplotlib's day numbers."""
    if isinstance(value, (dt.date, dt.datetime)):
        from matplotlib.dates import date2num

        return float(date2num(value))
    return float(value)


def _extent(values: Sequence[Any]) -> tuple[float, float]:
    finite = [_number(v) for v in values if v is not None and math.isfinite(_number(v))]
    if not finite:
        return (0.0, 1.0)
    low, high = min(finite), max(finite)
    pad = (high - low) * 0.03 or 1.0
    return (low - pad, high + pad)


def _side(bounds: tuple[Any, Any], extent: tuple[float, float]) -> tuple[float, float]:
    """A box side clipped to the axis: an unbounded or infinite end is drawn at the axis' edge."""
    def clip(v: Any, default: float) -> float:
        if v is None or not math.isfinite(_number(v)):
            return default
        return min(max(_number(v), extent[0]), extent[1])
    return clip(bounds[0], extent[0]), clip(bounds[1], extent[1])


def draw_blocks(figure: BlocksFigure, out: Path) -> Path:
    """Blocks as outlined boxes (labelled with their id) and the query's boxes in red on top."""
    plt = _pyplot()
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Rectangle

    x_extent = _extent([v for b in figure.blocks for v in b.x])
    y_extent = _extent([v for b in figure.blocks for v in b.y])
    fig, ax = plt.subplots(figsize=(8, 6.5))
    for b in figure.blocks:
        (x0, x1), (y0, y1) = _side(b.x, x_extent), _side(b.y, y_extent)
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor=to_rgba("tab:green", 0.12),
                               edgecolor="darkgreen", lw=0.9))
        if len(figure.blocks) <= MAX_LABELLED_BLOCKS:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2, str(b.block), ha="center", va="center", fontsize=7, color="0.25")
    for q in figure.query_boxes:
        (x0, x1), (y0, y1) = _side(q.x, x_extent), _side(q.y, y_extent)
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor="tab:red", lw=2.0))
    ax.set_xlim(*x_extent)
    ax.set_ylim(*y_extent)
    for axis, values in ((ax.xaxis, [v for b in figure.blocks for v in b.x]),
                         (ax.yaxis, [v for b in figure.blocks for v in b.y])):
        if any(isinstance(v, (dt.date, dt.datetime)) for v in values):
            from matplotlib.dates import AutoDateFormatter, AutoDateLocator

            locator = AutoDateLocator()
            axis.set_major_locator(locator)
            axis.set_major_formatter(AutoDateFormatter(locator))
    ax.set_xlabel(figure.x)
    ax.set_ylabel(figure.y)
    title = f"{len(figure.blocks)} blocks of {figure.table}"
    if figure.where:
        title += f"\nred: WHERE {figure.where}"
    ax.set_title(title, fontsize=10)
    return _save(fig, plt, out)


def draw_workload(bars: Sequence[WorkloadBar], table: str, out: Path) -> Path:
    """Per logged query, files read (blue) stacked under files skipped (grey)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6.0, min(0.25 * len(bars), 24.0)), 4.5))
    numbers = [b.query for b in bars]
    ax.bar(numbers, [b.files_read for b in bars], color="tab:blue", label="files read", width=0.8)
    ax.bar(numbers, [b.files_skipped for b in bars], bottom=[b.files_read for b in bars], color="0.75",
           label="files skipped", width=0.8)
    ax.set_xlabel("query (oldest first)")
    ax.set_ylabel("files")
    read = sum(b.files_read for b in bars)
    total = sum(b.files_total for b in bars)
    ax.set_title(f"{len(bars)} logged queries on {table}: read {read:,} of {total:,} files", fontsize=10)
    ax.legend(loc="upper right")
    return _save(fig, plt, out)


def _save(fig: Any, plt: Any, out: Path) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
