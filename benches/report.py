"""The benchmarks' report: every family (``benches/test_bench_*.py``) run at one commit, and its
tables written into ``benches/README.md``.

    python benches/report.py --run                 # every family, then the README's tables
    python benches/report.py --run --only test_bench_weights.py    # one family's tables
    python benches/report.py --run --keep DIR      # ... keeping each family's JSON in DIR
    python benches/report.py --write DIR           # the README's tables again from DIR
    python benches/report.py bench.json [...]      # print the tables of files already written

``--run`` runs each family as ``pytest <file> --benchmark-only --benchmark-json=<file>.json``
(``FCM_BENCH_FULL`` as the environment has it), then replaces, in the README, the text between
``<!-- report: <file> -->`` and ``<!-- /report -->`` with that family's table, and the text
between ``<!-- report: machine -->`` and ``<!-- /report -->`` with the commit, the CPU, the
core's build in use and the versions. A family without its markers is an error.

A table has one row per benchmark group (the cases timed on the same inputs) and one column per
case, in the order of the run. Each cell is the case's time (the minimum of its rounds, or
``--stat``) and, after the row's reference case ("ours", else the first), its time over that
reference: ``sklearn 302x`` is 302 times ours' time, ``floor 0.34x`` a third of it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
REFERENCE = "ours"


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


def _case(bench: dict[str, Any]) -> str:
    """The column of a benchmark: its ``impl`` or ``case`` (a parameter or extra info), else
    its parameters but those its group names, else the test's name."""
    params = bench.get("params") or {}
    info = bench.get("extra_info") or {}
    for key in ("impl", "case"):
        if key in params:
            return str(params[key])
        if key in info:
            return str(info[key])
    group = bench.get("group") or ""
    rest = [str(v) for v in params.values() if str(v) not in group]
    if rest:
        return " ".join(rest)
    return str(bench["name"]).split("[")[0].removeprefix("test_").replace("_", " ")


def groups(data: dict[str, Any], stat: str) -> dict[str, dict[str, float]]:
    """``{group: {case: seconds}}`` in the order of the run."""
    out: dict[str, dict[str, float]] = {}
    for bench in data["benchmarks"]:
        group = bench.get("group") or str(bench["name"]).split("[")[0]
        row = out.setdefault(group, {})
        case = _case(bench)
        while case in row:  # two cases with one label: the test's parameters tell them apart
            case = f"{case} [{bench.get('param', '')}]"
        row[case] = bench["stats"][stat]
    return out


def table(rows: dict[str, dict[str, float]]) -> str:
    cases = list(dict.fromkeys(c for row in rows.values() for c in row))
    if REFERENCE in cases:
        cases.remove(REFERENCE)
        cases.insert(0, REFERENCE)
    lines = [
        "| group | " + " | ".join(cases) + " |",
        "| --- |" + " ---: |" * len(cases),
    ]
    for group, row in rows.items():
        ref = row.get(REFERENCE, next(iter(row.values())))
        ref_case = REFERENCE if REFERENCE in row else next(iter(row))
        cells = []
        for case in cases:
            t = row.get(case)
            if t is None:
                cells.append("")
            elif case == ref_case:
                cells.append(fmt_time(t))
            else:
                cells.append(f"{fmt_time(t)} ({fmt_ratio(t, ref)})")
        lines.append(f"| {group} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=HERE, capture_output=True, text=True, check=True
    ).stdout.strip()


def machine() -> str:
    """The commit, the CPU, the build in use and the versions, for the report's head."""
    import numpy
    import sklearn

    from fastcluster_metrics._utils.versions import versions

    v = versions()
    flat = {k: val for part in v.values() for k, val in part.items()}
    cpu = "?"
    model = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name") and cpu == "?":
            cpu = line.split(":", 1)[1].strip()
        if line.startswith("cpu family") and not model:
            model = f"family {line.split(':', 1)[1].strip()}"
        if re.match(r"model\s*:", line) and "model " not in model:
            model += f" model {line.split(':', 1)[1].strip()}"
    changed = _git("status", "--porcelain", "--untracked-files=no")
    dirty = " (with uncommitted changes)" if changed else ""
    full = "with" if os.environ.get("FCM_BENCH_FULL") == "1" else "without"
    text = (
        f"Commit {_git('rev-parse', '--short', 'HEAD')}{dirty}, each `benches/test_bench_*.py`"
        f" run by `python benches/report.py --run` {full} `FCM_BENCH_FULL=1`, on {cpu}"
        f" ({model}), {os.cpu_count()} logical cores; the core's build in use:"
        f" {flat.get('build in use', '?')}, the release profile of `Cargo.toml` (`pip install"
        f" -e .`); threads: {flat.get('threads', '?')}. Python {platform.python_version()},"
        f" NumPy {numpy.__version__}, scikit-learn {sklearn.__version__}."
    )
    return textwrap.fill(text, width=96, break_on_hyphens=False, break_long_words=False)


def write(readme: Path, blocks: dict[str, str]) -> None:
    """Each ``<!-- report: KEY -->...<!-- /report -->`` of ``readme`` holds ``blocks[KEY]``."""
    text = readme.read_text()
    for key, body in blocks.items():
        pattern = re.compile(
            rf"(<!-- report: {re.escape(key)} -->\n).*?(<!-- /report -->)", flags=re.S
        )
        if not pattern.search(text):
            raise SystemExit(f"{readme}: no <!-- report: {key} --> ... <!-- /report --> block")
        text = pattern.sub(lambda m, b=body: m.group(1) + b + "\n" + m.group(2), text, count=1)
    readme.write_text(text)


def run(only: list[str], keep: Path) -> int:
    """Each family's JSON, and the machine's paragraph, into ``keep``."""
    keep.mkdir(parents=True, exist_ok=True)
    (keep / "machine.md").write_text(machine())
    for name in only or sorted(p.name for p in HERE.glob("test_bench_*.py")):
        print(f"== {name}", file=sys.stderr, flush=True)
        cmd = [sys.executable, "-m", "pytest", str(HERE / name), "--benchmark-only", "-q"]
        done = subprocess.run([*cmd, f"--benchmark-json={keep / name}.json"], cwd=HERE.parent)
        if done.returncode != 0:
            print(f"{name}: pytest exited with {done.returncode}", file=sys.stderr)
            return done.returncode
    return 0


def write_from(keep: Path, stat: str, readme: Path) -> None:
    """The README's blocks from the files :func:`run` left in ``keep``."""
    blocks = {"machine": (keep / "machine.md").read_text()}
    for path in sorted(keep.glob("test_bench_*.py.json")):
        blocks[path.name.removesuffix(".json")] = table(groups(json.loads(path.read_text()), stat))
    write(readme, blocks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", type=Path, nargs="*", help="files from --benchmark-json")
    parser.add_argument("--run", action="store_true", help="run the families, write the README")
    parser.add_argument("--only", action="append", default=[], help="a family's file (repeat)")
    parser.add_argument("--keep", type=Path, help="with --run: the folder for the JSON files")
    parser.add_argument("--write", type=Path, help="the README's tables from this folder")
    parser.add_argument("--stat", default="min", choices=("min", "median", "mean"))
    parser.add_argument("--readme", type=Path, default=README)
    args = parser.parse_args(argv)
    if args.run:
        with tempfile.TemporaryDirectory() as tmp:
            keep = args.keep or Path(tmp)
            code = run(args.only, keep)
            if code == 0:
                write_from(keep, args.stat, args.readme)
            return code
    if args.write:
        write_from(args.write, args.stat, args.readme)
        return 0
    if not args.json:
        parser.error("give JSON files, --run or --write")
    for path in args.json:
        print(f"{path}\n\n{table(groups(json.loads(path.read_text()), args.stat))}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
