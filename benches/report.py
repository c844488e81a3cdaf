"""Markdown tables from a pytest-benchmark JSON file written by benches/test_bench_metrics.py.

    pytest benches --benchmark-only --benchmark-json=bench.json
    python benches/report.py bench.json [--stat min|median|mean]

Prints the machine, then one row per benchmark group (a metric at one size): the times
of ours, scikit-learn and the floor (NumPy reading the inputs once), sklearn/ours
(how many times faster ours is) and ours/floor (how far ours is from reading its
inputs once), then the two ratios as a metric x size table. A missing case (scikit-learn
at 1e7 without FCM_BENCH_FULL=1) shows as "-". Peers (genieclust, permetrics; from
benches/test_bench_shapes.py) get a time and a peer/ours column each, where present.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

IMPLS = ("ours", "sklearn", "floor")
PEERS = ("genieclust", "permetrics")


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def fmt_ratio(num: float | None, den: float | None) -> str:
    if num is None or den is None or den == 0:
        return "-"
    r = num / den
    return f"{r:.3g}x" if r < 100 else f"{round(r):,}x"


def load(path: Path, stat: str) -> tuple[dict[str, Any], dict[tuple[str, str], dict[str, float]]]:
    """-> (machine info, {(metric, size): {impl: seconds}}) in the order of the run."""
    data = json.loads(path.read_text())
    groups: dict[tuple[str, str], dict[str, float]] = {}
    for bench in data["benchmarks"]:
        info = bench.get("extra_info") or {}
        params = bench.get("params") or {}
        metric = info.get("metric", params.get("name"))
        size = info.get("size", params.get("size"))
        impl = info.get("impl", params.get("impl"))
        if metric is None or size is None or impl not in IMPLS + PEERS:
            continue
        groups.setdefault((metric, size), {})[impl] = bench["stats"][stat]
    return data, groups


def machine_line(data: dict[str, Any]) -> str:
    m = data.get("machine_info", {})
    cpu = m.get("cpu", {})
    parts = [
        cpu.get("brand_raw") or m.get("processor") or m.get("machine", "?"),
        f"{cpu.get('count', '?')} logical cores",
        f"{m.get('system', '')} {m.get('release', '')}".strip(),
        f"Python {m.get('python_version', '?')}",
    ]
    return ", ".join(p for p in parts if p) + f"; run {data.get('datetime', '?')}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", type=Path, help="file from --benchmark-json")
    parser.add_argument("--stat", default="min", choices=("min", "median", "mean"))
    args = parser.parse_args(argv)

    data, groups = load(args.json, args.stat)
    if not groups:
        print(f"{args.json}: no benchmarks from benches/test_bench_metrics.py", file=sys.stderr)
        return 1

    peers = [p for p in PEERS if any(p in t for t in groups.values())]
    print(f"Machine: {machine_line(data)}. Times: {args.stat} per call.\n")
    peer_head = "".join(f" {p} | {p}/ours |" for p in peers)
    print("| metric | n | ours | sklearn | floor | sklearn/ours | ours/floor |" + peer_head)
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |" + " ---: | ---: |" * len(peers))
    for (metric, size), t in groups.items():
        ours, skl, floor = (t.get(i) for i in IMPLS)
        peer_cells = "".join(
            f" {fmt_time(t.get(p))} | {fmt_ratio(t.get(p), ours)} |" for p in peers
        )
        print(
            f"| `{metric}` | {size} | {fmt_time(ours)} | {fmt_time(skl)} | {fmt_time(floor)} "
            f"| {fmt_ratio(skl, ours)} | {fmt_ratio(ours, floor)} |" + peer_cells
        )

    sizes = list(dict.fromkeys(size for _, size in groups))
    metrics = list(dict.fromkeys(metric for metric, _ in groups))
    print()
    head = [f"sklearn/ours {s}" for s in sizes] + [f"ours/floor {s}" for s in sizes]
    print("| metric | " + " | ".join(head) + " |")
    print("| --- |" + " ---: |" * len(head))
    for metric in metrics:
        cells = []
        for num, den in (("sklearn", "ours"), ("ours", "floor")):
            for s in sizes:
                t = groups.get((metric, s), {})
                cells.append(fmt_ratio(t.get(num), t.get(den)))
        print(f"| `{metric}` | " + " | ".join(cells) + " |")

    ratios = [t["sklearn"] / t["ours"] for t in groups.values() if "sklearn" in t and "ours" in t]
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\nGeometric mean of sklearn/ours over {len(ratios)} groups: {geo:.3g}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
