"""The command line's ``--soft``: membership matrices from columns sharing a prefix, covers from
Parquet list columns, run as a user runs it, on CSV and Parquet files, against the Python API."""

import csv
import io
import json

import numpy as np
import pandas as pd
import pytest
from test_cli import run

import fastcluster_metrics as fcm
from fastcluster_metrics._measures.catalogue import COVERS, of_kind

N = 240
COVER_MEASURES = [row.name for row in of_kind(COVERS)]


def _frame():
    rng = np.random.default_rng(21)
    truth = rng.choice(["B", "T", "NK"], N)
    hard = np.eye(3)[pd.Series(truth).map({"B": 0, "T": 1, "NK": 2}).to_numpy()]
    celltypist = 0.6 * hard + 0.4 * rng.dirichlet(np.ones(3), N)
    scanvi = 0.5 * hard + 0.5 * rng.dirichlet(np.ones(3), N)
    frame = pd.DataFrame({"cell_type": truth, "leiden": rng.integers(0, 4, N)})
    for j, name in enumerate(["B", "T", "NK"]):
        frame[f"prob_{name}"] = celltypist[:, j]
        frame[f"scanvi_{name}"] = scanvi[:, j]
    frame["size"] = rng.integers(1, 4, N)
    return frame


def _sets(rng, n):
    return [sorted(rng.choice(list("abcde"), rng.integers(1, 4), replace=False)) for _ in range(n)]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    pytest.importorskip("pyarrow")
    root = tmp_path_factory.mktemp("soft")
    frame = _frame()
    frame.to_csv(root / "cells.csv", index=False)
    rng = np.random.default_rng(5)
    covers = frame.assign(markers=_sets(rng, N), modules=_sets(rng, N))
    covers.to_parquet(root / "cells.parquet", row_group_size=64)
    missing = frame.copy()
    missing.loc[[9, 30], "scanvi_T"] = np.nan
    missing.to_csv(root / "missing.csv", index=False)
    negative = frame.copy()
    negative.loc[4, "scanvi_NK"] = -0.25
    negative.to_csv(root / "negative.csv", index=False)
    empty = covers.copy()
    empty.at[3, "modules"] = []
    empty.to_parquet(root / "empty.parquet")
    return root, covers


def _matrix(frame, prefix):
    return frame[[c for c in frame.columns if c.startswith(prefix)]].to_numpy()


@pytest.mark.parametrize("name", ["cells.csv", "cells.parquet"])
def test_matrices_json_equals_the_python_api(data, name):
    root, frame = data
    out = run(
        root, name, "--soft", "--truth", "prob_*", "--pred", "scanvi_*", "--pred", "cell_type",
        "--format", "json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["truth"] == "prob_*"
    assert doc["truth_columns"] == ["prob_B", "prob_T", "prob_NK"]
    assert list(doc["predictions"]) == ["scanvi_*", "cell_type"]
    p = _matrix(frame, "prob_")
    for spec, other in (("scanvi_*", _matrix(frame, "scanvi_")), ("cell_type", frame.cell_type)):
        got = doc["predictions"][spec]
        assert got["n"] == N
        assert got["scores"] == {
            "frobenius_rand_score": fcm.frobenius_rand_score(p, other),
            "frobenius_adjusted_rand_score": fcm.frobenius_adjusted_rand_score(p, other),
        }
    assert doc["predictions"]["scanvi_*"]["columns"] == ["scanvi_B", "scanvi_T", "scanvi_NK"]


def test_matrices_table_and_transposed(data):
    root, frame = data
    out = run(root, "cells.csv", "--soft", "--truth", "cell_type", "--pred", "prob_*")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "truth: cell_type (cells.csv)"
    assert lines[2].split() == ["prediction", "n", "FRI", "FARI"]
    fari = fcm.frobenius_adjusted_rand_score(frame.cell_type, _matrix(frame, "prob_"))
    assert lines[4].split() == [
        "prob_*",
        f"{N}",
        f"{fcm.frobenius_rand_score(frame.cell_type, _matrix(frame, 'prob_')):.4f}",
        f"{fari:.4f}",
    ]
    out = run(root, "cells.csv", "--soft", "--truth", "prob_*", "--pred", "scanvi_*", "--transpose")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "truth: prob_* (3 columns of cells.csv)"
    firsts = [line.split()[0] for line in out.stdout.splitlines()[2:]]
    assert firsts[:1] + firsts[2:] == ["metric", "n", "FRI", "FARI"]
    assert out.stdout.splitlines()[2].split() == ["metric", "scanvi_*"]


def test_weights_and_missing_rows_dropped(data):
    root, frame = data
    out = run(
        root, "cells.csv", "--soft", "--truth", "prob_*", "--pred", "scanvi_*", "--weights",
        "size", "--format", "csv",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    (row,) = csv.DictReader(io.StringIO(out.stdout))
    w = frame["size"].to_numpy()
    assert float(row["n"]) == w.sum()
    p, q = _matrix(frame, "prob_"), _matrix(frame, "scanvi_")
    want = fcm.frobenius_adjusted_rand_score(p, q, sample_weight=w)
    assert float(row["frobenius_adjusted_rand_score"]) == pytest.approx(want, rel=1e-12)
    out = run(
        root, "missing.csv", "--soft", "--truth", "prob_*", "--pred", "scanvi_*", "--missing",
        "drop", "--format", "json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)["predictions"]["scanvi_*"]
    keep = np.ones(N, dtype=bool)
    keep[[9, 30]] = False
    assert got["n"] == N - 2
    want = fcm.frobenius_adjusted_rand_score(p[keep], q[keep])
    assert got["scores"]["frobenius_adjusted_rand_score"] == pytest.approx(want, rel=1e-12)


def test_list_columns_are_covers(data):
    root, frame = data
    out = run(
        root, "cells.parquet", "--soft", "--truth", "markers", "--pred", "modules", "--pred",
        "cell_type", "--format", "json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    markers = [set(x) for x in frame.markers]
    for spec, other in (
        ("modules", [set(x) for x in frame.modules]),
        ("cell_type", frame.cell_type),
    ):
        scores = doc["predictions"][spec]["scores"]
        assert list(scores) == COVER_MEASURES
        assert scores["omega_index"] == pytest.approx(
            fcm.omega_index(markers, other), rel=1e-12, abs=1e-15
        )
        for variant, key in (("MGH", COVER_MEASURES[1]), ("LFK", COVER_MEASURES[2])):
            want = fcm.overlapping_normalized_mutual_info_score(markers, other, variant=variant)
            assert scores[key] == pytest.approx(want, rel=1e-12, abs=1e-15)
        want = fcm.extended_bcubed_precision_recall_f(markers, other)
        assert [scores[m] for m in COVER_MEASURES[3:]] == pytest.approx(want, rel=1e-12)


def test_covers_and_matrices_in_one_table(data):
    root, _ = data
    out = run(
        root, "cells.parquet", "--soft", "--truth", "cell_type", "--pred", "markers", "--pred",
        "prob_*",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[2].split() == [
        "prediction", "n", "FRI", "FARI", "Omega", "ONMI", "ONMI-LFK", "xBCubed-P",
        "xBCubed-R", "xBCubed-F",
    ]  # fmt: skip
    assert len(lines[4].split()) == 8  # markers: n and the cover measures
    assert len(lines[5].split()) == 4  # prob_*: n, FRI, FARI


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (
            ["missing.csv", "--truth", "prob_*", "--pred", "scanvi_*"],
            1,
            "missing.csv: column 'scanvi_T' has missing values (the first in data row 10);"
            " pass --missing drop",
        ),
        (
            ["negative.csv", "--truth", "prob_*", "--pred", "scanvi_*"],
            1,
            "scoring 'scanvi_*' against 'prob_*': negative.csv: --pred scanvi_* has a negative"
            " entry in row 4 (column 2: -0.25)",
        ),
        (
            ["empty.parquet", "--truth", "markers", "--pred", "modules"],
            1,
            "gives row 3 no label",
        ),
        (["cells.csv", "--truth", "prob_*", "--pred", "nope_*"], 1, "no pred column 'nope_*'"),
        (
            ["cells.csv", "--truth", "prob_*", "--pred", "leiden", "--metrics", "ARI"],
            2,
            "--metrics",
        ),
        (["cells.csv", "cells.csv", "--truth", "prob_*", "--pred", "leiden"], 2, "one file"),
        (
            ["cells.csv", "--truth", "prob_*", "--pred", "leiden", "--missing", "cluster"],
            2,
            "raise",
        ),
        (
            ["cells.parquet", "--truth", "markers", "--pred", "leiden", "--weights", "size"],
            2,
            "--weights applies to membership matrices",
        ),
    ],
)
def test_errors_are_one_line(data, args, status, message):
    root, _ = data
    out = run(root, *args, "--soft")
    assert out.returncode == status
    assert out.stdout == ""
    assert out.stderr.startswith("fastcluster-metrics: error: ")
    assert len(out.stderr.strip().splitlines()) == 1
    assert message in out.stderr


def test_list_columns_are_refused_without_soft(data):
    root, _ = data
    out = run(root, "cells.parquet", "--truth", "markers", "--pred", "leiden")
    assert out.returncode == 1
    assert "column 'markers' holds list values" in out.stderr
