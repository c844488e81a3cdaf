"""A Parquet stream against its decoder: ``read_contingency`` on 2e7 rows (33 cell
type names, dictionary-encoded, and 60 int32 clusters) against pyarrow decoding the same two
columns batch by batch and doing nothing else, in one run, alternating, the best of the rounds.

Not a pytest module; run it by hand::

    python benches/stream_overlap.py                     # 2e7 rows, 7 rounds
    python benches/stream_overlap.py --arrow-threads 1   # pyarrow decoding on one thread
    python benches/stream_overlap.py --rows 2e6          # a quick check

Three cases: pyarrow decoding alone; ``read_contingency`` as it is (the next batch decoded on
a thread of its own while this one is counted); and the same with the batches read one after
the other (``_stream.read_ahead`` replaced by a plain loop), for the effect of reading ahead.
The ratio is each stream's throughput over the decoder's (the issue's goal: at least 0.9).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import fastcluster_metrics as fcm
from fastcluster_metrics._io import stream as _stream

BATCH = 1 << 20


def write(path: Path, rows: int) -> None:
    rng = np.random.default_rng(0)
    names = pa.array([f"cell_type_{i}" for i in range(33)])
    chunk = 1_000_000
    with pq.ParquetWriter(path, pa.schema([("truth", pa.string()), ("pred", pa.int32())])) as w:
        for start in range(0, rows, chunk):
            k = min(chunk, rows - start)
            codes = rng.integers(0, 33, k)
            pred = np.where(rng.random(k) < 0.9, codes * 7 % 60, rng.integers(0, 60, k))
            truth = pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32()), names)
            w.write_table(
                pa.table({"truth": truth.cast(pa.string()), "pred": pred.astype(np.int32)})
            )


def decode(path: Path) -> int:
    file = pq.ParquetFile(path, read_dictionary=["truth"], pre_buffer=False)
    n = 0
    with file:
        for batch in file.iter_batches(batch_size=BATCH, columns=["truth", "pred"]):
            n += batch.num_rows
    return n


def stream(path: Path) -> int:
    table = fcm.read_contingency(path, "truth", "pred", batch_size=BATCH, progress=False)
    return int(table.n)


def _one_after_the_other(items):  # type: ignore[no-untyped-def]
    yield from items


def stream_without_reading_ahead(path: Path) -> int:
    ahead = _stream.read_ahead
    _stream.read_ahead = _one_after_the_other  # type: ignore[assignment]
    try:
        return stream(path)
    finally:
        _stream.read_ahead = ahead


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=float, default=2e7)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--arrow-threads", type=int, default=None)
    args = parser.parse_args()
    if args.arrow_threads:
        pa.set_cpu_count(args.arrow_threads)
    rows = int(args.rows)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d, "cells.parquet")
        write(path, rows)
        cases = {
            "pyarrow decoding": decode,
            "read_contingency": stream,
            "read_contingency, batches one after the other": stream_without_reading_ahead,
        }
        best = dict.fromkeys(cases, float("inf"))
        for _ in range(args.rounds):
            for name, run in cases.items():
                start = time.perf_counter()
                assert run(path) == rows
                best[name] = min(best[name], time.perf_counter() - start)
    print(
        f"{rows:,} rows, {fcm.num_threads()} threads counting, pyarrow on"
        f" {pa.cpu_count()} threads, best of {args.rounds}"
    )
    floor = best["pyarrow decoding"]
    for name, t in best.items():
        print(f"  {name}: {t * 1e3:,.0f} ms, {rows / t / 1e6:,.1f} M rows/s, {floor / t:.2f}")


if __name__ == "__main__":
    main()
