"""plot_bk: the B_k curve, its expectation and band are compare_dendrograms' numbers."""

from __future__ import annotations

import numpy as np
import pytest

import fastcluster_metrics as fcm

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
pytest.importorskip("pandas")
hierarchy = pytest.importorskip("scipy.cluster.hierarchy")

import matplotlib.pyplot as plt  # noqa: E402

from fastcluster_metrics import plot  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _linkages(n: int):
    x = np.random.default_rng(n).normal(size=(n, 2))
    return hierarchy.linkage(x, "ward"), hierarchy.linkage(x, "single")


def test_the_lines_are_the_comparisons_numbers():
    z1, z2 = _linkages(50)
    frame = fcm.compare_dendrograms(z1, z2)
    ax = plot.plot_bk(frame, title="t")
    lines = {line.get_label(): line for line in ax.get_lines()}
    kept = frame.iloc[:-1]  # k = n: all single samples, left out
    np.testing.assert_array_equal(lines["B_k"].get_xdata(), kept.index.to_numpy(float))
    np.testing.assert_array_equal(lines["B_k"].get_ydata(), kept["fowlkes_mallows_score"])
    np.testing.assert_array_equal(lines["expected"].get_ydata(), kept["fowlkes_mallows_expected"])
    (band,) = ax.collections
    top = band.get_paths()[0].vertices[:, 1].max()
    want = kept["fowlkes_mallows_expected"] + 2 * np.sqrt(kept["fowlkes_mallows_variance"])
    assert top == pytest.approx(min(want.max(), 1.0))
    assert ax.get_title() == "t" and ax.get_xscale() == "linear"


def test_two_linkages_are_compared_first_and_many_k_get_a_log_axis():
    z1, z2 = _linkages(300)
    ax = plot.plot_bk(z1, z2)
    assert ax.get_xscale() == "log"
    ax = plot.plot_bk(z1, z2, ks=range(1, 40))
    assert ax.get_xscale() == "linear"
    assert ax.get_lines()[-1].get_xdata().size == 39


def test_draws_on_given_axes_and_saves():
    import io

    z1, z2 = _linkages(30)
    _, given = plt.subplots()
    assert plot.plot_bk(z1, z2, ax=given, band=1) is given
    given.figure.savefig(io.BytesIO(), format="png")


def test_errors():
    z1, z2 = _linkages(10)
    with pytest.raises(TypeError, match="compare_dendrograms' DataFrame"):
        plot.plot_bk([1, 2, 3])
    with pytest.raises(ValueError, match="band must be"):
        plot.plot_bk(z1, z2, band=-1)
