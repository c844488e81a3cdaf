"""What the command line prints and draws: the measures asked for, scored; text tables cut to
the terminal's width, CSV, JSON and Markdown; the summary figure and the clustering tree."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._measures.catalogue import MEASURES
from .._measures.contingency import Contingency
from .._measures.lookup import default_names, label, resolve_all
from .._utils.params import InvalidParameterError
from .console import PROG, CliError, format_table
from .embedding import ArrayScores, csv_fields, json_fields, table_parts
from .plan import Plan, first_line

__all__ = [
    "TABLE_WIDTH",
    "check_plot_path",
    "note_counts_only",
    "render",
    "resolve_metrics",
    "save_clustree",
    "save_plot",
    "score_of",
    "summary_figure",
]


def resolve_metrics(specs: Sequence[str] | None) -> list[str]:
    """Measure names from ``--metrics`` (comma-separated; full or short names, any case, or
    ``all``): the catalogue's full names, the default ones when none are given."""
    words = [w.strip() for spec in specs or () for w in spec.split(",") if w.strip()]
    if not words:
        return default_names()
    chosen: list[str] = []
    for word in words:
        try:
            names = [m.name for m in resolve_all(word, PROG, "--metrics")]
        except InvalidParameterError as e:
            raise CliError(str(e), 2) from e
        chosen.extend(n for n in names if n not in chosen)
    return chosen


def score_of(table: Contingency, name: str) -> float:
    return MEASURES[name](table)


TABLE_WIDTH = 100
"""The width text tables are cut to (into blocks of columns) when the output is not a
terminal; on a terminal, its width."""


def _numbers(values: Sequence[float], bounded: bool) -> list[str]:
    """One measure's values, all in one format: integers with thousands separators when every
    value is one and the measure is not a bounded score (and not every value is 0); else 4
    decimals when every value is below 10,000 in size, else scientific with 4 significant
    digits (``2.813e+04``). NaN and infinity as Python writes them."""
    finite = [v for v in values if math.isfinite(v)]
    top = max((abs(v) for v in finite), default=0.0)
    if not bounded and 0 < top < 1e15 and all(v == int(v) for v in finite):
        return [f"{int(v):,}" if math.isfinite(v) else str(v) for v in values]
    spec = ".4f" if top < 1e4 else ".3e"
    return [format(v, spec) if math.isfinite(v) else str(v) for v in values]


def _table_width(output: str | None) -> int:
    if output is None and sys.stdout.isatty():
        return max(shutil.get_terminal_size((TABLE_WIDTH, 24)).columns, 40)
    return TABLE_WIDTH


def render(
    fmt: str,
    plan: Plan,
    metrics: list[str],
    tables: list[Contingency],
    args: Any,
    arrays: ArrayScores | None = None,
) -> str:
    """The output in ``fmt``; with ``arrays`` (``--embedding``, ``--graph``), their scores
    too: each prediction's silhouette and scIB's scores (``embedding.py``)."""
    scores = [[score_of(t, m) for m in metrics] for t in tables]
    if fmt == "json":
        doc = {
            "truth": plan.truth,
            "files": [s.name for s in plan.sources],
            "missing": args.missing,
            "metrics": metrics,
            "predictions": {
                name: {
                    "n": t.n,
                    "scores": {
                        m: (None if math.isnan(v) else v) for m, v in zip(metrics, row, strict=True)
                    },
                }
                for name, t, row in zip(plan.preds, tables, scores, strict=True)
            },
        }
        if arrays is not None:
            json_fields(doc, arrays)
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        extra, values = csv_fields(arrays) if arrays is not None else ([], {})
        writer.writerow(["prediction", "n", *metrics, *extra])
        for name, t, row in zip(plan.preds, tables, scores, strict=True):
            writer.writerow([name, t.n, *(repr(v) for v in row), *values.get(name, [])])
        return buffer.getvalue()
    header = f"truth: {plan.truth} ({', '.join(s.name for s in plan.sources)})"
    counts = [f"{int(t.n):,}" if float(t.n).is_integer() else f"{t.n:,.1f}" for t in tables]
    columns = [
        _numbers([row[j] for row in scores], MEASURES[m].range is not None)
        for j, m in enumerate(metrics)
    ]
    width = _table_width(args.output)
    names = [label(m) for m in metrics]
    silhouettes, scib = table_parts(arrays, width) if arrays is not None else (None, "")
    if silhouettes is not None:
        names.append("silhouette")
        columns.append(_numbers(silhouettes, True))
    if args.transpose:
        body = format_table(
            "metric",
            plan.preds,
            [("n", counts), *zip(names, columns, strict=True)],
            width,
        )
    else:
        body = format_table(
            "prediction",
            ["n", *names],
            [(name, [counts[i], *(c[i] for c in columns)]) for i, name in enumerate(plan.preds)],
            width,
        )
    return f"{header}\n\n{body}\n" + (f"\n{scib}" if scib else "")


def check_plot_path(text: str, flag: str = "--plot") -> Path:
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise CliError(
            f"{flag} needs matplotlib: pip install 'fastcluster-metrics[plot]' ({e})"
        ) from e
    path = Path(text)
    kinds = Figure().canvas.get_supported_filetypes()
    if path.suffix.lower().lstrip(".") not in kinds:
        raise CliError(
            f"{flag} {text}: the file name must end in one of"
            f" {', '.join('.' + k for k in sorted(kinds))}",
            2,
        )
    if not path.parent.is_dir():
        raise CliError(f"{flag} {text}: no such directory: {path.parent}")
    return path


def save_plot(path: Path, plan: Plan, metrics: list[str], tables: list[Contingency]) -> None:
    """The figure of :func:`summary_figure`, written to ``path``."""
    figure = summary_figure(plan.truth, plan.preds, metrics, tables)
    try:
        figure.savefig(path, dpi=110)
    except OSError as e:
        raise CliError(f"cannot write {path}: {first_line(e)}") from e


def summary_figure(
    truth: str, preds: list[str], metrics: list[str], tables: list[Contingency]
) -> Any:
    """One figure: scores per prediction (when several: the first metric and the plotted
    ones), and the contingency heatmap and pair counts of the best one (by the first metric),
    side by side, each panel as wide as its labels need (constrained layout: nothing is cut)."""
    import pandas as pd
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from ..plot import plot_contingency, plot_pair_confusion, plot_scores

    first = metrics[0]
    scores = [score_of(t, first) for t in tables]
    best = max(range(len(tables)), key=lambda i: -math.inf if math.isnan(scores[i]) else scores[i])
    table, name = tables[best], preds[best]
    several = len(tables) > 1
    n_rows, n_cols = table.shape
    # The heatmap: its cells, and room for the bars of sizes, the colour bar and the labels.
    width = min(2.5 + 0.2 * n_cols, 14.0) + 2.0
    height = min(max(5.0, 2.5 + 0.22 * n_rows), 12.0)
    ratios = [7.5, width, 4.5] if several else [width, 4.5]
    figure = Figure(
        figsize=(sum(ratios) + 0.5, height), layout=ConstrainedLayoutEngine(w_pad=0.1, wspace=0.05)
    )
    axes = figure.subplots(1, len(ratios), width_ratios=ratios)
    if several:
        curves = [m for m in metrics if MEASURES[m].plotted or m == first]
        frame = pd.DataFrame(
            [[score_of(t, m) for m in curves] for t in tables], index=preds, columns=curves
        )
        plot_scores(frame, best=first, ax=axes[0])
    plot_contingency(
        table,
        xlabel=f"{name} (predicted cluster)",
        ylabel=f"{truth} (true class)",
        title=f"{name}: {label(first)} {scores[best]:.4f}",
        ax=axes[-2],
    )
    plot_pair_confusion(table, ax=axes[-1])
    return figure


def save_clustree(
    path: Path, names: list[str], edges: list[Contingency], truths: list[Contingency]
) -> None:
    """The clustering tree of the predictions (in resolution order) from their tables."""
    from matplotlib.figure import Figure

    from ..plot._clustree import draw, figure_size

    widest = max(len(t.clusters) for t in truths)
    figure = Figure(figsize=figure_size(len(names), widest), layout="constrained")
    draw(names, edges, truths, "purity", 0.1, figure.subplots())
    try:
        figure.savefig(path, dpi=110)
    except OSError as e:
        raise CliError(f"cannot write {path}: {first_line(e)}") from e


def note_counts_only(metrics: Sequence[str], tables: Sequence[Contingency]) -> None:
    """One note on stderr for the measures that need counts, asked for with weights that make
    some cell non-integral (they are NaN then)."""
    if not any(t.weighted for t in tables):
        return
    names = [MEASURES[m].label for m in metrics if MEASURES[m].counts]
    if names:
        verb, defined = ("needs", "it is") if len(names) == 1 else ("need", "they are")
        print(
            f"{PROG}: note: {', '.join(names)} {verb} whole-number weights ({defined} defined"
            " for counts only): nan with these weights",
            file=sys.stderr,
        )
