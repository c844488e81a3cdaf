"""The command line, end to end: a subprocess on small files of each format, every error path,
and the JSON output against the Python API."""

import importlib.util
import io
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._cli import demo
from fastcluster_metrics._cli import main as _cli
from fastcluster_metrics._cli import plan as cli_plan
from fastcluster_metrics._cli import render as cli_render
from fastcluster_metrics._measures import catalogue as _catalogue
from fastcluster_metrics._measures import lookup as _lookup

METRICS = _lookup.default_names()
N = 300

HAS_ANNDATA = importlib.util.find_spec("anndata") is not None
needs_anndata = pytest.mark.skipif(not HAS_ANNDATA, reason="the .h5ad files need anndata")


def _frame():
    rng = np.random.default_rng(7)
    truth = rng.choice(["B", "T", "NK", "mono", "DC"], N)
    # leiden_a follows the truth with some noise; leiden_b is unrelated.
    codes = {"B": 0, "T": 1, "NK": 2, "mono": 3, "DC": 4}
    leiden_a = np.array([codes[t] for t in truth])
    noisy = rng.random(N) < 0.2
    leiden_a[noisy] = rng.integers(0, 7, int(noisy.sum()))
    return pd.DataFrame(
        {
            "cell": [f"cell{i:04d}" for i in range(N)],
            "cell_type": truth,
            "leiden_a": leiden_a,
            "leiden_b": rng.integers(0, 4, N),
        }
    )


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Small files of every format, and the frame they hold."""
    pytest.importorskip("pyarrow")
    root = tmp_path_factory.mktemp("cli")
    frame = _frame()
    frame.to_csv(root / "cells.csv", index=False)
    frame.to_csv(root / "cells.tsv", sep="\t", index=False)
    frame.to_csv(root / "cells.csv.gz", index=False)
    frame.to_parquet(root / "cells.parquet", row_group_size=64)
    if HAS_ANNDATA:
        import anndata

        obs = frame.set_index("cell").astype(str).astype("category")
        anndata.AnnData(obs=obs).write_h5ad(root / "cells.h5ad")
    # Two files to join on "cell": the predictions shuffled and a few cells short.
    frame[["cell", "cell_type"]].to_csv(root / "truth.csv", index=False)
    shuffled = frame[["cell", "leiden_a", "leiden_b"]].sample(frac=1.0, random_state=1)
    shuffled.iloc[:-10].to_csv(root / "pred.csv", index=False)
    shuffled.rename(columns={"cell": "barcode"}).to_parquet(root / "pred.parquet")
    with_missing = frame.copy()
    with_missing.loc[[4, 150], "leiden_a"] = None
    with_missing.to_csv(root / "missing.csv", index=False)
    with_missing.to_parquet(root / "missing.parquet", row_group_size=100)
    late = frame.copy()
    late.loc[250, "leiden_b"] = None
    late.to_parquet(root / "late.parquet", row_group_size=100)
    (root / "cells.dat").write_text("cell_type,leiden_a\nB,1\n")
    (root / "elsewhere.csv").write_text("cell,leiden_a\nx1,0\nx2,1\n")
    (root / "bad.parquet").write_bytes(b"this is not a parquet file\n" * 4)
    (root / "bad.h5ad").write_bytes(b"\x00\x01 not an hdf5 file")
    (root / "bad.csv").write_bytes(b"cell_type,leiden_a\n\xff\xfe\x00\x81,1\n")
    return root, frame


def run(root, *args):
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, "-m", "fastcluster_metrics", *map(str, args)],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def cli(data, capsys, monkeypatch):
    """The command in this process (same code as the script, minus the interpreter start):
    returns (exit status, stdout, stderr)."""
    monkeypatch.chdir(data[0])

    def call(*args):
        status = _cli.main([str(a) for a in args])
        out, err = capsys.readouterr()
        return status, out, err

    return call


def _expected(frame, preds=("leiden_a", "leiden_b"), **kw):
    return fcm.compare_many(frame["cell_type"], {p: frame[p] for p in preds}, **kw)


def _check_json(stdout, want, n=N):
    doc = json.loads(stdout)
    assert list(doc["predictions"]) == list(want.index)
    assert doc["metrics"] == list(want.columns)
    for name, row in want.iterrows():
        got = doc["predictions"][name]
        assert got["n"] == n
        assert list(got["scores"]) == list(want.columns)
        for metric, value in row.items():
            assert got["scores"][metric] == pytest.approx(value, rel=1e-12, abs=1e-15)
    return doc


# --- each format, end to end through the interpreter ---------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "cells.csv",
        "cells.tsv",
        "cells.csv.gz",
        "cells.parquet",
        pytest.param("cells.h5ad", marks=needs_anndata),
    ],
)
def test_json_equals_python_api(data, name):
    root, frame = data
    # Small chunks: the tables of several chunks are merged by label value.
    out = run(
        root,
        name,
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--pred",
        "leiden_b",
        "--format",
        "json",
        "--chunk-rows",
        "50",
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    doc = _check_json(out.stdout, _expected(frame))
    assert doc["truth"] == "cell_type"
    assert doc["files"] == [name]
    assert doc["missing"] == "raise"


def test_two_files_joined_on_an_id_column(data):
    root, frame = data
    out = run(
        root,
        "truth.csv",
        "pred.csv",
        "--on",
        "cell",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--pred",
        "leiden_b",
        "--format",
        "json",
    )
    assert out.returncode == 0, out.stderr
    kept = frame.iloc[frame["cell"].isin(pd.read_csv(root / "pred.csv")["cell"]).to_numpy()]
    _check_json(out.stdout, _expected(kept), n=N - 10)
    assert "290 in both files; 10 only in truth.csv, 0 only in pred.csv" in out.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nofile.csv", "--truth", "a", "--pred", "b"], "no such file: nofile.csv"),
        (
            ["cells.parquet", "--truth", "celltype", "--pred", "leiden_a"],
            "cells.parquet: no truth column 'celltype'; the columns are: cell, cell_type,"
            " leiden_a, leiden_b",
        ),
        (["cells.csv", "--truth", "cell_type"], "the following arguments are required: --pred"),
    ],
)
def test_errors_through_the_interpreter(data, args, message):
    root, _ = data
    out = run(root, *args)
    assert out.returncode == (2 if "required" in message else 1)
    assert out.stdout == ""
    assert out.stderr == f"fastcluster-metrics: error: {message}" + (
        " (see fastcluster-metrics --help)\n" if "required" in message else "\n"
    )


@pytest.mark.skipif(shutil.which("fastcluster-metrics") is None, reason="script not installed")
def test_console_script(data):
    root, _ = data
    out = subprocess.run(
        [
            "fastcluster-metrics",
            "cells.csv",
            "--truth",
            "cell_type",
            "--pred",
            "leiden_a",
            "--format",
            "csv",
            "--metrics",
            "ARI",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "prediction,n,adjusted_rand_score"
    assert out.stdout.splitlines()[1].startswith(f"leiden_a,{N},")


# --- outputs and options, in this process ------------------------------------------------------


def _parse_table(out):
    """A text table's header and its rows by name, its blocks of columns put back together:
    (corner, column names, {row name: values})."""
    lines = out.splitlines()
    assert lines[1] == ""
    corner, columns, rows = None, [], {}
    for block in "\n".join(lines[2:]).split("\n\n"):
        head, rule, *body = block.splitlines()
        assert set(rule) == {"-"} and len(rule) == len(head)
        assert {len(line) for line in body} <= {len(head)}  # aligned
        assert len(head) <= cli_render.TABLE_WIDTH
        words = head.split("  ")
        corner = corner or words[0]
        assert words[0] == corner  # each block repeats the first column
        columns += [w.strip() for w in words[1:] if w.strip()]
        for line in body:
            name, *values = line.split()
            rows.setdefault(name, []).extend(values)
    return corner, columns, rows


@pytest.mark.parametrize("n_preds", [1, 2, 7])
@pytest.mark.parametrize("metrics", ["ARI", None])
def test_table_has_a_row_per_prediction(data, cli, n_preds, metrics):
    """Whatever the number of predictions and of measures (it used to turn around)."""
    root, frame = data
    preds = {f"res_{i}": frame["leiden_a"].where(frame.index % 7 != i, i) for i in range(n_preds)}
    pd.DataFrame({"cell_type": frame["cell_type"], **preds}).to_csv(root / "many.csv", index=False)
    args = [a for p in preds for a in ("--pred", p)] + (["--metrics", metrics] if metrics else [])
    status, out, err = cli("many.csv", "--truth", "cell_type", *args)
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == "truth: cell_type (many.csv)"
    corner, columns, rows = _parse_table(out)
    names = [metrics] if metrics else [_lookup.label(m) for m in METRICS]
    assert (corner, columns) == ("prediction", ["n", *names])
    assert list(rows) == list(preds)
    want = fcm.compare_many(frame["cell_type"], preds)
    for name, values in rows.items():
        assert values[:2] == [f"{N}", f"{want['adjusted_rand_score'][name]:.4f}"]
        assert len(values) == 1 + len(names)


def test_table_transposed(data, cli):
    _, frame = data
    status, out, err = cli("cells.csv", "--truth", "cell_type", "--pred", "leiden_*", "--transpose")
    assert (status, err) == (0, "")
    corner, columns, rows = _parse_table(out)
    assert (corner, columns) == ("metric", ["leiden_a", "leiden_b"])
    assert list(rows) == ["n", *(_lookup.label(m) for m in METRICS)]
    assert rows["n"] == [f"{N}", f"{N}"]
    want = _expected(frame)
    assert rows["ARI"] == [f"{v:.4f}" for v in want["adjusted_rand_score"]]
    assert rows["purity"] == [f"{v:.4f}" for v in want["purity_score"]]


def test_default_table_fits_100_columns_in_two_blocks(data, cli):
    """Ten measures are wider than 100 columns: two even blocks, each naming the predictions."""
    status, out, _ = cli("cells.csv", "--truth", "cell_type", "--pred", "leiden_*")
    assert status == 0
    blocks = out.split("\n\n")[1:]
    assert len(blocks) == 2
    widths = [len(b.splitlines()[0]) for b in blocks]
    assert max(widths) <= 100 and abs(widths[0] - widths[1]) < 20
    for block in blocks:
        assert [line.split()[0] for line in block.splitlines()[2:]] == ["leiden_a", "leiden_b"]
    every = cli("cells.csv", "--truth", "cell_type", "--pred", "leiden_*", "--metrics", "all")[1]
    assert _parse_table(every)[1] == ["n", *(m.label for m in _catalogue.MEASURES.values())]


def test_table_width_follows_a_terminal(monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    assert cli_render._table_width(None) == 80
    assert cli_render._table_width("out.txt") == cli_render.TABLE_WIDTH


def test_format_table_blocks():
    from fastcluster_metrics._cli.console import format_table

    rows = [("a", ["1", "22", "333"]), ("bb", ["4", "5", "6"])]
    whole = format_table("x", ["c1", "c2", "c3"], rows)
    assert whole == format_table("x", ["c1", "c2", "c3"], rows, width=100)
    assert whole.splitlines()[0] == "x   c1  c2   c3"
    cut = format_table("x", ["c1", "c2", "c3"], rows, width=12)
    assert cut.split("\n\n") == [
        "x   c1  c2\n----------\na    1  22\nbb   4   5",
        "x    c3\n-------\na   333\nbb    6",
    ]
    # A column wider than the width stays whole, in a block of its own.
    assert format_table("x", ["c" * 20, "d"], rows[:1], width=10).count("\n\n") == 1


@pytest.mark.parametrize(
    ("values", "bounded", "want"),
    [
        ([19_000_000.0, 10_340_000.5], False, ["1.900e+07", "1.034e+07"]),
        ([19_000_000.0, 10_340_000.0, math.nan], False, ["19,000,000", "10,340,000", "nan"]),
        ([3.0, 12.0], False, ["3", "12"]),
        ([0.0, 0.0], False, ["0.0000", "0.0000"]),
        ([1.0, 0.5, -0.25], True, ["1.0000", "0.5000", "-0.2500"]),
        ([1.0, 1.0], True, ["1.0000", "1.0000"]),
        ([3144.33461, 2.5], False, ["3144.3346", "2.5000"]),
        ([28130.2, 0.001], False, ["2.813e+04", "1.000e-03"]),
        ([math.nan, math.nan], True, ["nan", "nan"]),
        ([math.inf, 2.0], False, ["inf", "2"]),
    ],
)
def test_one_number_format_per_measure(values, bounded, want):
    assert cli_render._numbers(values, bounded) == want


def test_a_column_of_large_and_small_values_has_one_format(data, cli, monkeypatch):
    """chi2 of a good and of a poor prediction: 1.9e7 and 1.0e3 written alike."""
    # leiden_a has 7 clusters, leiden_b 4.
    monkeypatch.setattr(
        cli_render, "score_of", lambda t, name: 19_000_000.25 if t.shape[1] > 4 else 1034.5
    )
    status, out, _ = cli(
        "cells.csv", "--truth", "cell_type", "--pred", "leiden_*", "--metrics", "chi2"
    )
    assert status == 0
    rows = _parse_table(out)[2]
    assert rows["leiden_a"] == [f"{N}", "1.900e+07"]
    assert rows["leiden_b"] == [f"{N}", "1.034e+03"]


def test_version():
    from importlib.metadata import version

    out = subprocess.run(
        [sys.executable, "-m", "fastcluster_metrics", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout == f"fastcluster-metrics {version('fastcluster-metrics')}\n"
    assert fcm.__version__ == version("fastcluster-metrics")


def test_csv_output_and_chosen_metrics(data, cli):
    _, frame = data
    status, out, _ = cli(
        "cells.parquet",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_b",
        "--pred",
        "leiden_a",
        "--metrics",
        "ARI,ami",
        "--metrics",
        "jaccard_index",
        "--format",
        "csv",
    )
    assert status == 0
    got = pd.read_csv(io.StringIO(out), index_col="prediction")
    assert list(got.columns) == [
        "n",
        "adjusted_rand_score",
        "adjusted_mutual_info_score",
        "jaccard_index",
    ]
    assert list(got.index) == ["leiden_b", "leiden_a"]
    want = _expected(
        frame,
        ("leiden_b", "leiden_a"),
        metrics=["adjusted_rand_score", "adjusted_mutual_info_score"],
    )
    np.testing.assert_allclose(got[want.columns].to_numpy(), want.to_numpy(), rtol=1e-12)
    table = fcm.Contingency.from_labels(frame["cell_type"], frame["leiden_a"])
    assert got.loc["leiden_a", "jaccard_index"] == pytest.approx(table.jaccard_index(), rel=1e-12)


@needs_anndata
def test_h5ad_joined_with_parquet_by_cell_names(data, cli):
    _, frame = data
    status, out, err = cli(
        "cells.h5ad",
        "pred.parquet",
        "--on",
        "obs_names=barcode",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--format",
        "json",
    )
    assert (status, err) == (0, "")
    _check_json(out, _expected(frame, ("leiden_a",)))


@pytest.mark.parametrize("policy", ["drop", "cluster"])
@pytest.mark.parametrize("name", ["missing.csv", "missing.parquet"])
def test_missing_labels_dropped_or_counted(data, cli, policy, name):
    root, _ = data
    missing = pd.read_csv(root / "missing.csv")
    status, out, err = cli(
        name,
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--missing",
        policy,
        "--format",
        "json",
        "--chunk-rows",
        "100",
    )
    assert (status, err) == (0, "")
    want = fcm.compare_many(missing["cell_type"], {"leiden_a": missing["leiden_a"]}, missing=policy)
    _check_json(out, want, n=N - 2 if policy == "drop" else N)


def test_clustree_from_the_tables_counted_in_chunks(data, cli, monkeypatch):
    pytest.importorskip("matplotlib")
    root, frame = data
    seen = {}
    save = _cli.save_clustree

    def spy(path, names, edges, truths):
        seen.update(names=names, edges=edges, truths=truths)
        save(path, names, edges, truths)

    monkeypatch.setattr(_cli, "save_clustree", spy)
    args = ["cells.csv", "--truth", "cell_type", "--pred", "leiden_b", "--pred", "leiden_a"]
    status, out, err = cli(*args, "--chunk-rows", "50", "--clustree", "tree.png")
    assert (status, err) == (0, "")
    assert out.rstrip().endswith("clustering tree: tree.png")
    # Names without a trailing number keep the order given.
    assert seen["names"] == ["leiden_b", "leiden_a"]
    (edge,) = seen["edges"]
    assert edge == fcm.Contingency.from_labels(frame["leiden_b"], frame["leiden_a"])
    for table, name in zip(seen["truths"], seen["names"], strict=True):
        assert table == fcm.Contingency.from_labels(frame["cell_type"], frame[name])
    png = (root / "tree.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    status, _, err = cli(*args, "--clustree", "tree.txt")
    assert status == 2
    assert "--clustree tree.txt: the file name must end in one of" in err


def test_clustree_sorts_resolutions_by_the_number_ending_their_names(tmp_path, cli, monkeypatch):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 5, 400)
    frame = pd.DataFrame({"cell_type": truth})
    for r in ("1.0", "0.2", "10", "0.5"):
        frame[f"leiden_{r}"] = (truth + rng.integers(0, 2, 400) * int(float(r) * 3)) % 17
    frame.to_csv(tmp_path / "res.csv", index=False)
    seen = []
    save = _cli.save_clustree
    monkeypatch.setattr(
        _cli,
        "save_clustree",
        lambda path, names, *rest: (seen.extend(names), save(path, names, *rest)),
    )
    status, _, _ = cli(
        tmp_path / "res.csv", "--truth", "cell_type", "--pred", "leiden_*",
        "--clustree", tmp_path / "res.png",
    )  # fmt: skip
    assert status == 0
    assert seen == ["leiden_0.2", "leiden_0.5", "leiden_1.0", "leiden_10"]
    assert (tmp_path / "res.png").stat().st_size > 10_000


def test_plot_and_output_file(data, cli):
    pytest.importorskip("matplotlib")
    root, _ = data
    status, out, err = cli(
        "cells.parquet",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--pred",
        "leiden_b",
        "--plot",
        "summary.png",
        "-o",
        "scores.txt",
    )
    assert (status, out, err) == (0, "", "")
    text = (root / "scores.txt").read_text()
    assert text.startswith("truth: cell_type (cells.parquet)")
    assert text.rstrip().endswith("plot: summary.png")
    png = (root / "summary.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) > 20_000


def _summary_cases():
    """The command line's figure for a wide table of long labels (33 cell types, 66 clusters)
    and for a small one of large counts."""
    from fastcluster_metrics._cli.demo import example

    truth, clusterings = example(60_000)
    names = np.array([f"celltype_{t}" for t in range(33)], dtype=object)
    wide = [fcm.Contingency.from_labels(names[truth], p) for p in clusterings.values()]
    rng = np.random.default_rng(0)
    t = rng.integers(0, 12, 400_000)
    small = []
    for noise in (0.1, 0.3):
        p = t.copy()
        wrong = rng.random(t.size) < noise
        p[wrong] = rng.integers(0, 14, int(wrong.sum()))
        small.append(fcm.Contingency.from_labels(t, p))
    return [(list(clusterings), wide), (["k9", "k10"], small)]


@pytest.mark.parametrize("case", [0, 1])
def test_plot_figure_has_nothing_cut_or_covered(case):
    """Every text of the figure lies inside it (titles, labels, legends, the colour bar), the
    colour bar sits by the heatmap, the legend beside the curves, the heatmap's classes in
    natural order."""
    pytest.importorskip("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    preds, tables = _summary_cases()[case]
    figure = cli_render.summary_figure("cell_type", preds, METRICS, tables)
    FigureCanvasAgg(figure)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    inside = figure.bbox.padded(1.0)
    scores, heatmap, pairs = figure.axes[:3]
    texts = [t for ax in figure.axes for t in (ax.title, ax.xaxis.label, ax.yaxis.label)]
    texts += [t for ax in figure.axes for t in ax.texts]
    texts += [t for ax in figure.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            texts += [
                tick.label1
                for tick in axis.get_major_ticks()
                if low <= tick.get_loc() <= high and tick.label1.get_visible()
            ]
    for text in texts:
        if text.get_text() and text.get_visible():
            box = text.get_window_extent(renderer)
            assert inside.contains(box.x0, box.y0) and inside.contains(box.x1, box.y1), (
                text.get_text()
            )
    tight = figure.get_tightbbox(renderer)
    width, height = figure.get_size_inches()
    assert tight.x0 >= -0.01 and tight.y0 >= -0.01
    assert tight.x1 <= width + 0.01 and tight.y1 <= height + 0.01
    # The colour bar is an inset of the heatmap, right of it and left of the pair counts.
    colour_bar = [a for a in heatmap.child_axes if a.get_ylabel().startswith("share of")]
    assert len(colour_bar) == 1
    box = colour_bar[0].get_tightbbox(renderer)
    assert heatmap.get_window_extent().x1 < box.x0 and box.x1 < pairs.get_tightbbox(renderer).x0
    legend = scores.get_legend().get_window_extent()
    assert legend.x0 >= scores.get_window_extent().x1  # beside the curves, never on them
    rows = [t.get_text() for t in heatmap.get_yticklabels()]
    if case == 0:
        assert rows == [f"celltype_{k}" for k in range(33)]
        assert all(t.get_fontsize() >= 8 for t in heatmap.get_yticklabels())
        assert scores.get_lines()[0].get_linestyle() == "None"  # named clusterings: points
    else:
        assert scores.get_xlabel() == "k"  # k9, k10: numbers, joined by a line
        assert scores.get_lines()[0].get_linestyle() != "None"
        cell = heatmap.get_window_extent().width / heatmap.images[0].get_array().shape[1]
        assert heatmap.texts and all(
            t.get_window_extent(renderer).width < cell for t in heatmap.texts
        )  # the counts fit their cells (30,123 or 30k)


# --- every error: one line on stderr, exit status 1 (data) or 2 (usage) ----------------------


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["nofile.parquet", "--truth", "a", "--pred", "b"], 1, "no such file: nofile.parquet"),
        (
            ["cells.csv", "--truth", "celltype", "--pred", "leiden_a"],
            1,
            "cells.csv: no truth column 'celltype'; the columns are: cell, cell_type, leiden_a,"
            " leiden_b",
        ),
        pytest.param(
            ["cells.h5ad", "--truth", "cell_type", "--pred", "louvain"],
            1,
            "cells.h5ad: no pred column 'louvain'; the columns are: obs_names, cell_type,"
            " leiden_a, leiden_b",
            marks=needs_anndata,
        ),
        (
            ["truth.csv", "pred.csv", "--on", "id", "--truth", "cell_type", "--pred", "leiden_a"],
            1,
            "truth.csv: no id column 'id'; the columns are: cell, cell_type",
        ),
        (
            ["truth.csv", "pred.csv", "--truth", "cell_type", "--pred", "leiden_a"],
            1,
            "length mismatch: truth.csv has 300 rows and pred.csv has 290; pass --on COLUMN",
        ),
        (["bad.parquet", "--truth", "a", "--pred", "b"], 1, "cannot read bad.parquet as parquet:"),
        pytest.param(
            ["bad.h5ad", "--truth", "a", "--pred", "b"],
            1,
            "cannot read bad.h5ad as h5ad:",
            marks=needs_anndata,
        ),
        (
            ["bad.csv", "--truth", "cell_type", "--pred", "leiden_a"],
            1,
            "bad.csv: column 'cell_type' is not UTF-8 text (the first such label in data row 1:"
            " b'\\xff\\xfe\\x00\\x81'); name the file's encoding, such as --encoding latin-1",
        ),
        (
            ["missing.csv", "--truth", "cell_type", "--pred", "leiden_a"],
            1,
            "missing.csv: column 'leiden_a' has missing labels (the first in data row 5)",
        ),
        (
            [
                "late.parquet",
                "--truth",
                "cell_type",
                "--pred",
                "leiden_b",
                "--chunk-rows",
                "100",
            ],
            1,
            "late.parquet: column 'leiden_b' has missing labels (the first in data row 251)",
        ),
        (
            ["cells.csv", "--truth", "cell_type", "--pred", "leiden_a", "--metrics", "ARI,bogus"],
            2,
            "unknown metric 'bogus'",
        ),
        (
            ["cells.csv", "--truth", "cell_type", "--pred", "leiden_a", "--missing", "ignore"],
            2,
            "argument --missing: invalid choice: 'ignore'",
        ),
        (
            ["cells.csv", "--truth", "cell_type", "--pred", "leiden_a", "--on", "cell"],
            2,
            "--on joins two files",
        ),
        (
            ["cells.csv", "--truth", "leiden_*", "--pred", "cell_type"],
            2,
            "--truth leiden_* names 2 columns",
        ),
        (["cells.dat", "--truth", "a", "--pred", "b"], 2, "cannot tell the format of cells.dat"),
        (
            ["cells.csv", "--truth", "cell_type", "--pred", "leiden_a", "--plot", "plot.txt"],
            2,
            "--plot plot.txt: the file name must end in one of",
        ),
        (
            ["cells.csv", "--truth", "cell_type", "--pred", "leiden_a", "--plot", "no/dir/p.png"],
            1,
            "--plot no/dir/p.png: no such directory",
        ),
        (["demo", "--k-max", "1"], 2, "-n and --k-max must be at least 2"),
        (
            ["cells.csv", "--truth", "cell_type", "--pred", "leiden_a", "--chunk-rows", "0"],
            2,
            "--chunk-rows must be at least 1",
        ),
        (
            [
                "truth.csv",
                "elsewhere.csv",
                "--on",
                "cell",
                "--truth",
                "cell_type",
                "--pred",
                "leiden_a",
            ],
            1,
            "no ids in common: truth.csv and elsewhere.csv share no 'cell' value",
        ),
    ],
)
def test_errors(cli, args, status, message):
    got, out, err = cli(*args)
    assert got == status
    assert out == ""
    assert err.startswith(f"fastcluster-metrics: error: {message}")
    assert err.count("\n") == 1  # one line, no traceback


def test_unknown_format_read_with_input_format(data, cli):
    root, _ = data
    (root / "semicolons.dat").write_text("a;b\n1;2\n1;2\n")
    status, out, _ = cli(
        "semicolons.dat",
        "--truth",
        "a",
        "--pred",
        "b",
        "--input-format",
        "csv",
        "--sep",
        ";",
        "--format",
        "csv",
        "--metrics",
        "ARI",
    )
    assert status == 0
    assert out == "prediction,n,adjusted_rand_score\nb,2,1.0\n"


def test_duplicate_ids_refused(data, cli):
    root, frame = data
    pd.concat([frame, frame.iloc[:3]]).to_csv(root / "doubled.csv", index=False)
    status, _, err = cli(
        "truth.csv", "doubled.csv", "--on", "cell", "--truth", "cell_type", "--pred", "leiden_a"
    )
    assert status == 1
    assert "id column 'cell' has 3 repeated values (such as 'cell0000')" in err


def test_missing_ids_refused(data, cli):
    """A row without an id cannot be joined: refused, not matched with another row without one
    (a missing id in each file became the same text, 'nan', and joined two unrelated cells)."""
    root, frame = data
    truth = frame[["cell", "cell_type"]].copy()
    truth.loc[[5, 9], "cell"] = None
    truth.to_csv(root / "truth_gaps.csv", index=False)
    pred = frame[["cell", "leiden_a"]].copy()
    pred.loc[7, "cell"] = None
    pred.to_parquet(root / "pred_gaps.parquet")
    for first, second, file, count, row in (
        ("truth_gaps.csv", "pred.csv", "truth_gaps.csv", 2, 6),
        ("truth.csv", "pred_gaps.parquet", "pred_gaps.parquet", 1, 8),
    ):
        status, out, err = cli(
            first, second, "--on", "cell", "--truth", "cell_type", "--pred", "leiden_a"
        )
        assert (status, out) == (1, "")
        assert err == (
            f"fastcluster-metrics: error: {file}: id column 'cell' has {count} missing values (the"
            f" first in data row {row}); ids must be present to join on them\n"
        )


def test_every_row_missing(data, cli):
    root, _ = data
    (root / "empty.csv").write_text("cell_type,leiden_a\nB,\nT,\n")
    status, _, err = cli(
        "empty.csv", "--truth", "cell_type", "--pred", "leiden_a", "--missing", "drop"
    )
    assert status == 1
    assert "no samples to compare 'leiden_a' with 'cell_type'" in err


# --- progress bar, demo ------------------------------------------------------------------------


def test_progress_bar_on_a_terminal_only(cli, monkeypatch):
    pytest.importorskip("tqdm")
    args = [
        "cells.parquet",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--chunk-rows",
        "32",
        "--format",
        "csv",
    ]
    monkeypatch.setattr(cli_plan, "PROGRESS_DELAY", 0.0)
    assert cli(*args)[2] == ""  # stderr is not a terminal here
    monkeypatch.setattr(cli_plan, "stderr_is_tty", lambda: True)
    status, _, err = cli(*args)
    assert status == 0
    assert "cells.parquet" in err
    assert f"/{N} [" in err  # the bar counts rows of a known total
    assert cli(*args, "--no-progress")[2] == ""


def test_no_arguments_or_demo_options_run_the_demo(monkeypatch):
    import fastcluster_metrics._cli.demo as entry

    calls = []
    monkeypatch.setattr(entry, "demo", lambda argv: calls.append(list(argv)) or 0)
    assert _cli.main([]) == 0
    assert _cli.main(["demo", "--out", "x"]) == 0
    assert _cli.main(["--out", "y", "-n", "10"]) == 0
    assert calls == [[], ["--out", "x"], ["--out", "y", "-n", "10"]]


def test_metric_names():
    assert cli_render.resolve_metrics(None) == METRICS
    assert cli_render.resolve_metrics(["all"]) == list(_catalogue.MEASURES)
    assert cli_render.resolve_metrics(["ari, V-measure", "purity_score,ARI"]) == [
        "adjusted_rand_score",
        "v_measure_score",
        "purity_score",
    ]
    names = cli_render.resolve_metrics(["all"])
    assert names[: len(METRICS)] == METRICS
    assert "jaccard_index" in names
    assert "pair_counts" not in names  # a dict, not one number
    assert "to_numpy" not in names


def test_demo(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    assert _cli.main(["--out", "example", "-n", "5000", "--k-max", "3", "--no-sklearn"]) == 0
    text, err = capsys.readouterr()
    assert err == ""
    assert "1. Model selection" in text
    assert "2. Speed: 5,000 simulated cells" in text
    chosen = int(text.split("chosen k = ")[1].split(":")[0])
    written = sorted(p.name for p in (tmp_path / "example").iterdir())
    assert written == sorted(
        [
            "cells_contingency_leiden_mid.png",
            f"digits_contingency_k{chosen}.png",
            f"digits_pair_confusion_k{chosen}.png",
            "digits_kmeans.csv",
            "digits_scores_vs_k.png",
        ]
    )
    for name in written:
        if name.endswith(".png"):
            assert (tmp_path / "example" / name).read_bytes()[:4] == b"\x89PNG"
    runs = pd.read_csv(tmp_path / "example" / "digits_kmeans.csv")
    assert list(runs.columns) == ["image", "digit", "k2", "k3"]
    assert len(runs) == 1797
    # The k chosen is the one whose clustering (as written out) has the highest AMI.
    ami = fcm.compare_many(runs["digit"], {k: runs[f"k{k}"] for k in (2, 3)})[
        "adjusted_mutual_info_score"
    ]
    assert chosen == int(ami.idxmax())
    assert f"{ami[chosen]:.4f}" in text
    # The silhouette's k, from the clusterings written out and the digits' components.
    points, _ = demo.digits_points()
    silhouettes = {k: fcm.silhouette_score(points, runs[f"k{k}"]) for k in (2, 3)}
    best = max(silhouettes, key=silhouettes.get)
    assert f"highest at k = {best} ({silhouettes[best]:.4f})" in text


# --- errors nobody foresaw: one line naming the input, or the traceback with --debug ----------


def _boom(*args, **kwargs):
    raise AttributeError("'numpy.ndarray' object has no attribute 'columns'")


def test_unexpected_error_is_one_line_naming_the_files(data, cli, monkeypatch):
    monkeypatch.setattr(fcm.Contingency, "from_labels", _boom)
    status, out, err = cli(
        "truth.csv", "pred.csv", "--on", "cell", "--truth", "cell_type", "--pred", "leiden_a"
    )
    assert (status, out) == (1, "")
    note, line = err.splitlines(keepends=True)  # the join's note, then the error's one line
    assert note.startswith("fastcluster-metrics: note: joined on ids")
    assert line == (
        "fastcluster-metrics: error: unexpected error reading truth.csv and pred.csv:"
        " AttributeError: 'numpy.ndarray' object has no attribute 'columns' (run again with"
        " --debug to see the traceback; please report it)\n"
    )
    assert "Traceback" not in err
    with pytest.raises(AttributeError, match="no attribute 'columns'"):
        cli("cells.csv", "--truth", "cell_type", "--pred", "leiden_a", "--debug")


def test_debug_lets_every_error_through(data, cli):
    with pytest.raises(_cli.CliError, match="no truth column 'celltype'"):
        cli("cells.csv", "--truth", "celltype", "--pred", "leiden_a", "--debug")
    with pytest.raises(_cli.CliError, match="required: --pred"):
        cli("--debug", "cells.csv", "--truth", "cell_type")
    assert "--debug" in _cli.parser().format_help()


def test_unexpected_error_in_the_demo(monkeypatch, capsys, tmp_path):
    import fastcluster_metrics._cli.demo as entry

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(entry.fcm, "compare_many", _boom)
    demo = ["-n", "100", "--k-max", "2", "--no-sklearn", "--no-plots"]
    assert _cli.main(["demo", *demo]) == 1
    _, err = capsys.readouterr()
    assert err.startswith(
        "fastcluster-metrics: error: unexpected error in the built-in example: AttributeError:"
    )
    assert err.count("\n") == 1
    with pytest.raises(AttributeError):
        _cli.main(["--debug", *demo])
    capsys.readouterr()
    with pytest.raises(SystemExit):
        _cli.main(["demo", "--help"])
    assert "--debug" in capsys.readouterr().out


def test_unexpected_error_through_the_interpreter(data):
    root, _ = data
    patch = (
        "import sys, fastcluster_metrics as fcm\n"
        "from fastcluster_metrics._cli import main as _cli\n"
        "def boom(*a, **k):\n"
        "    raise AttributeError(\"'numpy.ndarray' object has no attribute 'columns'\")\n"
        "fcm.Contingency.from_labels = boom\n"
        "sys.exit(_cli.main(sys.argv[1:]))\n"
    )
    args = ["cells.parquet", "--truth", "cell_type", "--pred", "leiden_a"]
    command = [sys.executable, "-c", patch, *args]
    out = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr.startswith(
        "fastcluster-metrics: error: unexpected error reading cells.parquet: AttributeError:"
    )
    assert out.stderr.count("\n") == 1
    assert "Traceback" not in out.stderr
    out = subprocess.run(
        [*command, "--debug"], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1
    assert out.stderr.startswith("Traceback (most recent call last):")
    assert out.stderr.rstrip().endswith(
        "AttributeError: 'numpy.ndarray' object has no attribute 'columns'"
    )


def test_a_column_that_changes_type_is_read_again_as_text(data, cli):
    """A CSV column of numbers whose later rows hold text ("7a") is read again as text, from
    the start, with a note on stderr; alone and joined with another file."""
    root, _ = data
    rng = np.random.default_rng(5)
    rows = 40_000  # several blocks of --chunk-rows 1000
    frame = pd.DataFrame(
        {
            "cell": [f"c{i}" for i in range(rows)],
            "cell_type": rng.choice(["B", "T", "NK"], rows),
            "leiden": rng.integers(0, 9, rows).astype(str),
        }
    )
    frame.loc[rows - 1, "leiden"] = "7a"
    frame.to_csv(root / "late.csv", index=False)
    frame[["cell", "cell_type"]].to_csv(root / "late_truth.csv", index=False)
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    want = sklearn_metrics.adjusted_rand_score(frame["cell_type"], frame["leiden"])
    for files in (["late.csv"], ["late_truth.csv", "late.csv", "--on", "cell"]):
        status, out, err = cli(
            *files, "--truth", "cell_type", "--pred", "leiden", "--chunk-rows", "1000",
            "--format", "json", "--metrics", "ARI",
        )  # fmt: skip
        assert status == 0, err
        score = json.loads(out)["predictions"]["leiden"]["scores"]["adjusted_rand_score"]
        assert score == pytest.approx(want, abs=1e-12)
        assert err.startswith(
            "fastcluster-metrics: note: late.csv: column 'leiden' was read as int64 from its"
            " first rows; after data row "
        )
        assert err.endswith(" it holds '7a'; reading it again as text\n")


# --- weights ------------------------------------------------------------------------------------


def _weighted(root):
    """The frame with a column of real weights (magnitudes far apart), as CSV and Parquet."""
    frame = _frame()
    rng = np.random.default_rng(3)
    frame["w"] = rng.random(N) * 10.0 ** rng.integers(-5, 6, N)
    frame.to_csv(root / "weighted.csv", index=False)
    frame.to_parquet(root / "weighted.parquet", row_group_size=64)
    return frame


@pytest.mark.parametrize("name", ["weighted.csv", "weighted.parquet"])
def test_weights_column_scores_equal_the_python_api(tmp_path, name):
    frame = _weighted(tmp_path)
    args = ["--truth", "cell_type", "--pred", "leiden_a", "--pred", "leiden_b", "--weights", "w"]
    out = run(tmp_path, name, *args, "--format", "json", "--chunk-rows", "50")
    assert out.returncode == 0, out.stderr
    # AMI (a default) is NaN with real weights, and a note says why.
    assert out.stderr == (
        "fastcluster-metrics: note: AMI needs whole-number weights (it is defined for counts"
        " only): nan with these weights\n"
    )
    # The modified ARI counts quadruples of samples: not the expected mutual information.
    noted = run(tmp_path, name, *args, "--metrics", "ami,mari,rand")
    assert noted.returncode == 0, noted.stderr
    assert noted.stderr == (
        "fastcluster-metrics: note: AMI, MARI need whole-number weights (they are defined for"
        " counts only): nan with these weights\n"
    )
    want = _expected(frame, sample_weight=frame["w"])
    doc = json.loads(out.stdout)
    for pred, row in want.iterrows():
        got = doc["predictions"][pred]
        table = fcm.Contingency.from_labels(
            frame["cell_type"], frame[pred], sample_weight=frame["w"]
        )
        assert got["n"] == table.n
        for metric, value in row.items():  # exactly: the chunks' tables merge exactly
            assert got["scores"][metric] == (None if math.isnan(value) else value), metric
    assert doc["predictions"]["leiden_a"]["scores"]["adjusted_mutual_info_score"] is None


def test_weighted_table_output_shows_the_total_weight_and_no_note_for_whole_weights(tmp_path):
    frame = _frame()
    frame["w"] = np.arange(N) % 3 + 0.3
    frame.loc[0, "w"] = 0.05  # a total that is not whole
    frame.to_csv(tmp_path / "quarters.csv", index=False)
    out = run(
        tmp_path,
        "quarters.csv",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--weights",
        "w",
        "--metrics",
        "ARI,NMI",
    )
    assert out.returncode == 0 and out.stderr == ""
    total = fcm.Contingency.from_labels(
        frame["cell_type"], frame["leiden_a"], sample_weight=frame["w"]
    ).n
    assert f"{total:,.1f}" in out.stdout and not float(total).is_integer()
    frame["w"] = np.arange(N) % 3
    frame.to_csv(tmp_path / "whole.csv", index=False)
    out = run(
        tmp_path,
        "whole.csv",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--weights",
        "w",
        "--metrics",
        "ARI,AMI",
    )
    assert out.returncode == 0 and out.stderr == ""
    assert f"{int(frame['w'].sum()):,}" in out.stdout


def test_weights_column_of_the_truth_file_when_joined(tmp_path):
    frame = _weighted(tmp_path)
    frame[["cell", "cell_type", "w"]].to_csv(tmp_path / "truth.csv", index=False)
    frame[["cell", "leiden_a"]].sample(frac=1.0, random_state=2).to_csv(
        tmp_path / "pred.csv", index=False
    )
    out = run(
        tmp_path,
        "truth.csv",
        "pred.csv",
        "--on",
        "cell",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--weights",
        "w",
        "--format",
        "json",
        "--metrics",
        "ari,nmi",
    )
    assert out.returncode == 0, out.stderr
    scores = json.loads(out.stdout)["predictions"]["leiden_a"]["scores"]
    w = frame["w"]
    assert scores["adjusted_rand_score"] == fcm.adjusted_rand_score(
        frame["cell_type"], frame["leiden_a"], sample_weight=w
    )
    assert scores["normalized_mutual_info_score"] == fcm.normalized_mutual_info_score(
        frame["cell_type"], frame["leiden_a"], sample_weight=w
    )


@pytest.mark.parametrize(
    ("value", "what"),
    [(-2.0, "the weight -2.0"), ("heavy", "'heavy' (not a number)"), (None, "a missing weight")],
)
@pytest.mark.parametrize("name", ["weighted.csv", "weighted.parquet"])
def test_a_bad_weight_is_one_line_naming_the_file_and_column(tmp_path, value, what, name):
    frame = _frame().assign(w=1.5).astype({"w": object})
    frame.loc[120, "w"] = value
    if name.endswith(".csv"):
        frame.to_csv(tmp_path / name, index=False)
    else:
        frame.astype({"w": str if isinstance(value, str) else float}).to_parquet(tmp_path / name)
    out = run(tmp_path, name, "--truth", "cell_type", "--pred", "leiden_a", "--weights", "w")
    assert out.returncode == 1
    assert out.stdout == ""
    assert out.stderr == (
        f"fastcluster-metrics: error: {name}: column 'w' holds {what} in data row 121;"
        " sample weights are non-negative finite numbers\n"
    )


def test_weights_usage_errors(tmp_path):
    _weighted(tmp_path)
    out = run(
        tmp_path, "weighted.csv", "--truth", "cell_type", "--pred", "leiden_a", "--weights", "nope"
    )
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "no weights column 'nope'" in out.stderr
    out = run(
        tmp_path,
        "weighted.csv",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--weights",
        "leiden_*",
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "--weights leiden_* names 2 columns" in out.stderr


# --- per-sample scores (--per-sample FILE) ------------------------------------------------------


# pandas 3 reads floats back exactly by default and deprecates asking for it.
_EXACT = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _read_scores(path):
    """A --per-sample file as a DataFrame, each float as written (CSV read back exactly)."""
    path = str(path)
    if path.endswith(".parquet"):
        return pd.read_parquet(path)
    return pd.read_csv(path, sep="\t" if path.endswith(".tsv") else ",", **_EXACT)


def _per_sample(truth, preds, labels, **kw):
    """The columns --per-sample writes, from the Python API: {pred}:{label} for each."""
    return {
        f"{name}:{label}": fcm.per_sample_score(truth, values, measure=label, **kw)
        for name, values in preds.items()
        for label in labels
    }


def _assert_scores(got, want):
    assert list(got.columns) == list(want)
    for name, values in want.items():
        column = got[name].to_numpy(dtype=np.float64)
        assert np.array_equal(column, values, equal_nan=True), name  # exactly


@pytest.mark.parametrize("output", ["rows.csv", "rows.tsv", "rows.parquet"])
def test_per_sample_scores_equal_the_python_api(data, cli, output):
    """A column per prediction and per-sample measure of --metrics, a row per row of the file
    (read in chunks), each value exactly per_sample_score's; the scores printed as without."""
    root, frame = data
    args = ["cells.csv", "--truth", "cell_type", "--pred", "leiden_a", "--pred", "leiden_b"]
    args += ["--metrics", "ARI,ECS,bcubed_recall", "--chunk-rows", "50"]
    status, plain, err = cli(*args, "--format", "json")
    assert (status, err) == (0, "")
    status, out, err = cli(*args, "--format", "json", "--per-sample", output)
    assert (status, err) == (0, "")
    assert out == plain
    got = _read_scores(root / output)
    preds = {p: frame[p] for p in ("leiden_a", "leiden_b")}
    _assert_scores(got, _per_sample(frame["cell_type"], preds, ["ECS", "BCubed recall"]))
    assert len(got) == N
    # The table says where the scores went, as it does for --plot.
    status, out, err = cli(*args, "--per-sample", output)
    assert (status, err) == (0, "")
    assert out.endswith(
        f"\n\nper-sample scores: {output} ({N} rows; ECS, BCubed recall of each prediction)\n"
    )


@pytest.mark.parametrize(
    ("metrics", "labels"),
    [
        ([], ["ECS"]),  # the defaults have no per-sample form
        (["--metrics", "ARI,NMI"], ["ECS"]),
        (["--metrics", "bcubed_f_score"], ["BCubed F"]),
        (["--metrics", "all"], ["BCubed precision", "BCubed recall", "BCubed F", "ECS"]),
    ],
)
def test_per_sample_measures_are_those_of_metrics_or_ecs(data, cli, metrics, labels):
    root, frame = data
    status, _, err = cli(
        "cells.parquet", "--truth", "cell_type", "--pred", "leiden_*", *metrics,
        "--per-sample", "chosen.csv",
    )  # fmt: skip
    assert (status, err) == (0, "")
    preds = {p: frame[p] for p in ("leiden_a", "leiden_b")}
    _assert_scores(
        _read_scores(root / "chosen.csv"), _per_sample(frame["cell_type"], preds, labels)
    )


@pytest.mark.parametrize("policy", ["drop", "cluster"])
@pytest.mark.parametrize("output", ["gaps.csv", "gaps.parquet"])
@pytest.mark.parametrize("name", ["missing.csv", "missing.parquet"])
def test_per_sample_missing_labels(data, cli, policy, output, name):
    """--missing drop: the rows left out score NaN (an empty CSV field); --missing cluster:
    missing labels are one more cluster, as for the other scores."""
    root, _ = data
    missing = pd.read_csv(root / "missing.csv")
    status, _, err = cli(
        name, "--truth", "cell_type", "--pred", "leiden_a", "--missing", policy,
        "--chunk-rows", "100", "--per-sample", output,
    )  # fmt: skip
    assert (status, err) == (0, "")
    got = _read_scores(root / output)
    want = _per_sample(
        missing["cell_type"], {"leiden_a": missing["leiden_a"]}, ["ECS"], missing=policy
    )
    _assert_scores(got, want)
    absent = np.isnan(got["leiden_a:ECS"].to_numpy())
    assert list(np.flatnonzero(absent)) == ([4, 150] if policy == "drop" else [])
    if output.endswith(".csv") and policy == "drop":
        lines = (root / output).read_text().splitlines()
        assert lines[0] == "leiden_a:ECS"
        assert lines[1 + 4] == lines[1 + 150] == '""'  # (a blank line would be skipped)


def test_per_sample_missing_labels_raise(data, cli):
    status, out, err = cli(
        "missing.csv", "--truth", "cell_type", "--pred", "leiden_a", "--per-sample", "no.csv"
    )
    assert (status, out) == (1, "")
    assert err.count("\n") == 1 and "missing" in err
    assert not (data[0] / "no.csv").exists()


@needs_anndata
def test_per_sample_of_an_h5ad_file(data, cli):
    root, frame = data
    status, _, err = cli(
        "cells.h5ad", "--truth", "cell_type", "--pred", "leiden_*", "--metrics", "ECS,BCubed F",
        "--per-sample", "obs.parquet",
    )  # fmt: skip
    assert (status, err) == (0, "")
    preds = {p: frame[p] for p in ("leiden_a", "leiden_b")}
    _assert_scores(
        _read_scores(root / "obs.parquet"),
        _per_sample(frame["cell_type"], preds, ["ECS", "BCubed F"]),
    )


def test_per_sample_of_two_files(data, cli):
    """Joined on ids: the id column first, a row per joined row in the first file's order.
    Matched by position: a row per row, no id column."""
    root, frame = data
    status, _, err = cli(
        "truth.csv", "pred.csv", "--on", "cell", "--truth", "cell_type", "--pred", "leiden_*",
        "--per-sample", "joined.csv",
    )  # fmt: skip
    assert status == 0
    assert "290 in both files" in err
    got = pd.read_csv(root / "joined.csv", **_EXACT)
    kept = frame.iloc[frame["cell"].isin(pd.read_csv(root / "pred.csv")["cell"]).to_numpy()]
    assert list(got["cell"]) == list(kept["cell"])
    preds = {p: kept[p] for p in ("leiden_a", "leiden_b")}
    _assert_scores(got.drop(columns="cell"), _per_sample(kept["cell_type"], preds, ["ECS"]))
    frame[["cell_type"]].to_csv(root / "types.csv", index=False)
    frame[["leiden_b"]].to_parquet(root / "clusters.parquet")
    status, _, err = cli(
        "types.csv", "clusters.parquet", "--truth", "cell_type", "--pred", "leiden_b",
        "--per-sample", "paired.tsv",
    )  # fmt: skip
    assert (status, err) == (0, "")
    want = _per_sample(frame["cell_type"], {"leiden_b": frame["leiden_b"]}, ["ECS"])
    _assert_scores(_read_scores(root / "paired.tsv"), want)


def test_per_sample_ids_are_quoted_where_needed(tmp_path, cli):
    pd.DataFrame({"id": ["a,b", 'c"d', "e"], "t": [1, 1, 2], "p": [1, 2, 2]}).to_csv(
        tmp_path / "ids.csv", index=False
    )
    status, _, err = cli(
        tmp_path / "ids.csv", tmp_path / "ids.csv", "--on", "id", "--truth", "t", "--pred", "p",
        "--per-sample", tmp_path / "ids_out.csv",
    )  # fmt: skip
    assert (status, err) == (0, "")
    assert (tmp_path / "ids_out.csv").read_text() == 'id,p:ECS\n"a,b",0.5\n"c""d",0.5\n"e",0.5\n'
    pd.DataFrame({"id": ["a", "b"], "t": [1, 2], "p": [1, 1]}).to_csv(
        tmp_path / "plain.csv", index=False
    )
    status, _, _ = cli(
        tmp_path / "plain.csv", tmp_path / "plain.csv", "--on", "id", "--truth", "t",
        "--pred", "p", "--per-sample", tmp_path / "plain_out.csv",
    )  # fmt: skip
    assert status == 0
    assert (tmp_path / "plain_out.csv").read_text() == "id,p:ECS\na,0.5\nb,0.5\n"


def test_per_sample_weights(tmp_path, cli):
    frame = _weighted(tmp_path)
    status, _, _ = cli(
        tmp_path / "weighted.csv", "--truth", "cell_type", "--pred", "leiden_a", "--weights", "w",
        "--metrics", "bcubed_precision", "--chunk-rows", "50", "--per-sample",
        tmp_path / "w.parquet",
    )  # fmt: skip
    assert status == 0
    want = _per_sample(
        frame["cell_type"], {"leiden_a": frame["leiden_a"]}, ["BCubed precision"],
        sample_weight=frame["w"],
    )  # fmt: skip
    _assert_scores(_read_scores(tmp_path / "w.parquet"), want)


def test_per_sample_after_a_column_read_again_as_text(tmp_path, cli):
    """A column read again from the start (its type changed): the rows are the file's, once."""
    rng = np.random.default_rng(5)
    rows = 20_000
    frame = pd.DataFrame(
        {"cell_type": rng.choice(["B", "T", "NK"], rows), "leiden": rng.integers(0, 9, rows)}
    ).astype({"leiden": str})
    frame.loc[rows - 1, "leiden"] = "7a"
    frame.to_csv(tmp_path / "late.csv", index=False)
    status, _, err = cli(
        tmp_path / "late.csv", "--truth", "cell_type", "--pred", "leiden", "--chunk-rows", "1000",
        "--per-sample", tmp_path / "late_rows.csv",
    )  # fmt: skip
    assert status == 0
    assert "reading it again as text" in err
    want = _per_sample(frame["cell_type"], {"leiden": frame["leiden"]}, ["ECS"])
    _assert_scores(_read_scores(tmp_path / "late_rows.csv"), want)


def test_per_sample_csv_without_pyarrow(tmp_path, monkeypatch):
    """Without pyarrow (an AnnData file read with h5py), CSV is written by pandas: the same
    values, NaN as an empty field."""
    from fastcluster_metrics._cli import per_sample as cli_per_sample

    columns = {"a:ECS": np.array([0.1, np.nan, 1 / 3]), "b:ECS": np.array([1.0, 2e-7, 0.5])}
    ids = ("cell", np.array(["x", "y,z", "w"], dtype=object))
    cli_per_sample.save_per_sample(tmp_path / "arrow.csv", columns, ids)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.csv", None)
    cli_per_sample.save_per_sample(tmp_path / "pandas.csv", columns, ids)
    monkeypatch.undo()  # pandas 3 reads text columns back with pyarrow where it has it
    for name in ("arrow.csv", "pandas.csv"):
        got = _read_scores(tmp_path / name)
        assert list(got["cell"]) == ["x", "y,z", "w"]
        _assert_scores(got.drop(columns="cell"), columns)
    assert (tmp_path / "pandas.csv").read_text().splitlines()[2] == '"y,z",,2e-07'


@pytest.mark.parametrize(
    ("target", "status", "message"),
    [
        ("rows.txt", 2, "--per-sample rows.txt: the file name must end in .csv, .tsv or .parquet"),
        ("rows", 2, "--per-sample rows: the file name must end in .csv, .tsv or .parquet"),
        ("nowhere/rows.csv", 1, "--per-sample nowhere/rows.csv: no such directory: nowhere"),
        ("cells.csv/rows.csv", 1, "--per-sample cells.csv/rows.csv: no such directory: cells.csv"),
        ("folder.csv", 1, "--per-sample folder.csv: a directory, not a file"),
        ("dangling.csv", 1, "cannot write dangling.csv: "),
        ("dangling.parquet", 1, "cannot write dangling.parquet: "),
    ],
)
def test_per_sample_errors(data, cli, target, status, message):
    """One line, before any row is read where it can be; a file that cannot be written, after
    scoring, and nothing printed."""
    root, _ = data
    (root / "folder.csv").mkdir(exist_ok=True)
    for name in ("dangling.csv", "dangling.parquet"):  # a link to a folder that is not there
        if not (root / name).is_symlink():
            (root / name).symlink_to(root / "gone" / name)
    got, out, err = cli("cells.csv", "--truth", "cell_type", "--pred", "leiden_a",
                        "--per-sample", target)  # fmt: skip
    assert (got, out) == (status, "")
    assert err.startswith(f"fastcluster-metrics: error: {message}")
    assert err.count("\n") == 1


def test_per_sample_parquet_needs_pyarrow(data, cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    status, out, err = cli(
        "cells.csv", "--truth", "cell_type", "--pred", "leiden_a", "--per-sample", "rows.parquet"
    )
    assert (status, out) == (1, "")
    assert err.startswith(
        "fastcluster-metrics: error: --per-sample rows.parquet: writing Parquet needs pyarrow:"
        " pip install 'fastcluster-metrics[io]'"
    )
    assert err.count("\n") == 1


def test_per_sample_through_the_interpreter(data):
    root, frame = data
    out = run(root, "cells.tsv", "--truth", "cell_type", "--pred", "leiden_a", "--per-sample",
              "script.csv", "--format", "csv")  # fmt: skip
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout.splitlines()[0].startswith("prediction,n,")
    want = _per_sample(frame["cell_type"], {"leiden_a": frame["leiden_a"]}, ["ECS"])
    _assert_scores(_read_scores(root / "script.csv"), want)
    assert "--per-sample FILE" in run(root, "--help").stdout
