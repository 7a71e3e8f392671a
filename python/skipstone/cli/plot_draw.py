"""Drawing the plots' data as PNG files with matplotlib (headless: the Agg backend)."""
from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any, Sequence

from skipstone.cli.plot_data import BlocksFigure, WorkloadBar, WorkloadEvent


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


#: Fills of the blocks: read by the query, skipped by it, or (no query) just blocks.
READ_FILL, SKIPPED_FILL, PLAIN_FILL = "tab:orange", "0.6", "tab:green"
#: A label is written only in a box at least this share of the axes wide and high.
MIN_LABEL_SHARE = (0.045, 0.035)


def draw_blocks(figure: BlocksFigure, out: Path) -> Path:
    """``blocks_plot`` written as a PNG."""
    return _save(blocks_plot(figure), out)


def blocks_plot(figure: BlocksFigure) -> Any:
    """The blocks as a matplotlib figure: blocks as translucent boxes (overlapping boxes of curve layouts stay visible), filled by
    whether the query reads them, its boxes outlined in red on top, a legend with the counts.
    A box is labelled with its block id only where the label fits and meets no other label."""
    plt = _pyplot()
    from matplotlib.patches import Patch, Rectangle
    from matplotlib.lines import Line2D

    x_extent = _extent([v for b in figure.blocks for v in b.x])
    y_extent = _extent([v for b in figure.blocks for v in b.y])
    fig, ax = plt.subplots(figsize=(8, 6.5))
    width, height = x_extent[1] - x_extent[0], y_extent[1] - y_extent[0]
    placed: list[tuple[float, float, float, float]] = []  # labels so far, in shares of the axes
    # skipped first, read on top: the blocks the query reads are the ones to see
    order = sorted(figure.blocks, key=lambda b: figure.read is not None and b.block in figure.read)
    for b in order:
        (x0, x1), (y0, y1) = _side(b.x, x_extent), _side(b.y, y_extent)
        fill = PLAIN_FILL if figure.read is None else READ_FILL if b.block in figure.read else SKIPPED_FILL
        read = figure.read is not None and b.block in figure.read
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor=fill, alpha=0.35 if read else 0.15,
                               edgecolor=fill, lw=0.8, gid=f"block-{b.block}"))
        spot = _label_spot(x0, x1, y0, y1, x_extent, y_extent, str(b.block), placed)
        if spot is not None:
            ax.text(spot[0] * width + x_extent[0], spot[1] * height + y_extent[0], str(b.block), ha="center",
                    va="center", fontsize=7, color="0.2")
    for q in figure.query_boxes:
        (x0, x1), (y0, y1) = _side(q.x, x_extent), _side(q.y, y_extent)
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor="tab:red", lw=2.0, gid="query"))
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
    files = sum(b.files for b in figure.blocks)
    if figure.read is None:
        handles = [Patch(facecolor=PLAIN_FILL, alpha=0.3, label=f"{len(figure.blocks)} blocks, {files} files")]
        title = f"Blocks of {_short(figure.table)}"
    else:
        read = sum(1 for b in figure.blocks if b.block in figure.read)
        handles = [Patch(facecolor=READ_FILL, alpha=0.5, label=f"read: {read} blocks, {figure.files_read} files"),
                   Patch(facecolor=SKIPPED_FILL, alpha=0.3, label=f"skipped: {len(figure.blocks) - read} blocks, "
                                                                  f"{files - figure.files_read} files"),
                   Line2D([], [], color="tab:red", lw=2.0, label=_wrapped(figure.where or "query"))]
        title = f"Blocks of {_short(figure.table)} read by a query"
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    ax.set_title(title, fontsize=10)
    return fig


def _label_spot(x0: float, x1: float, y0: float, y1: float, x_extent: tuple[float, float],
                y_extent: tuple[float, float], text: str,
                placed: list[tuple[float, float, float, float]]) -> tuple[float, float] | None:
    """Where a box's label goes, in shares of the axes (its centre), or None when the box is too
    small for it or the label would meet one already placed; a placed label is remembered."""
    width, height = x_extent[1] - x_extent[0], y_extent[1] - y_extent[0]
    box = ((x0 - x_extent[0]) / width, (x1 - x_extent[0]) / width, (y0 - y_extent[0]) / height,
           (y1 - y_extent[0]) / height)
    if box[1] - box[0] < MIN_LABEL_SHARE[0] or box[3] - box[2] < MIN_LABEL_SHARE[1]:
        return None
    cx, cy = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
    half_w, half_h = 0.008 * len(text) + 0.004, 0.014  # 7-point digits on an 8 x 6.5 inch figure
    mine = (cx - half_w, cx + half_w, cy - half_h, cy + half_h)
    if any(mine[0] < o[1] and o[0] < mine[1] and mine[2] < o[3] and o[2] < mine[3] for o in placed):
        return None
    placed.append(mine)
    return cx, cy


def _short(root: str) -> str:
    """A table's root as a title shows it: its last two path parts."""
    parts = [p for p in root.rstrip("/").split("/") if p]
    return "/".join(parts[-2:]) if len(parts) >= 2 else root


def _wrapped(text: str, width: int = 34, lines: int = 4) -> str:
    """A legend entry over a few short lines, so that a long predicate does not squeeze the axes."""
    import textwrap

    wrapped = textwrap.wrap(text, width) or [""]
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: width - 1] + "…"
    return "\n".join(wrapped)


def draw_workload(bars: Sequence[WorkloadBar], table: str, out: Path,
                  events: Sequence[WorkloadEvent] = ()) -> Path:
    """``workload_plot`` written as a PNG."""
    return _save(workload_plot(bars, table, events), out)


def workload_plot(bars: Sequence[WorkloadBar], table: str, events: Sequence[WorkloadEvent] = ()) -> Any:
    """Files read by each logged query, in the order they ran, over the files it could have read;
    optimize commits as dashed vertical lines labelled with their version and strategy. Falling
    bars after a line are self-organization working."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(max(6.0, min(0.25 * len(bars), 24.0)), 4.5))
    numbers = [b.query for b in bars]
    ax.bar(numbers, [b.files_total for b in bars], color="0.85", label="files the query could read", width=0.8)
    ax.bar(numbers, [b.files_read for b in bars], color="tab:blue", label="files read", width=0.8)
    top = max([b.files_total for b in bars], default=1)
    for i, e in enumerate(events):
        ax.axvline(e.position, color="tab:red", ls="--", lw=1.2)
        # labels right of their line, at alternating heights so that neighbours do not meet
        ax.text(e.position, top * (1.08 + 0.1 * (i % 2)), f" {e.label}", ha="left", va="center", fontsize=7,
                color="tab:red", bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    ax.set_ylim(0, top * 1.45 if events else top * 1.25)
    ax.set_xlim(0.3, max(numbers, default=1) + 0.7)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("query, in the order run")
    ax.set_ylabel("files")
    read = sum(b.files_read for b in bars)
    total = sum(b.files_total for b in bars)
    ax.set_title(f"Files read per query on {_short(table)}: {read:,} of {total:,}", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, ncol=2)
    return fig


def _save(fig: Any, out: Path) -> Path:
    plt = _pyplot()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
