"""The README's test command runs the benchmarks once as tests, without timing tables; an option
that asks for timings gets them."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # as a newcomer runs it
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "benches/test_bench_small.py",
            "-q",
            "-p",
            "no:cacheprovider",
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_plain_pytest_prints_no_timing_tables():
    plain = _pytest()
    assert plain.returncode == 0, plain.stdout[-2000:]
    assert "passed" in plain.stdout
    assert "Name (time in" not in plain.stdout


def test_asking_for_timings_prints_them():
    timed = _pytest("--benchmark-enable", "-k", "adjusted_rand_score and ours")
    assert timed.returncode == 0, timed.stdout[-2000:]
    assert "Name (time in" in timed.stdout
