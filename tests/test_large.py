"""Millions of samples against the vectorised reference (scikit-learn would take too long)."""

import numpy as np
import pytest
import reference

import fastcluster_metrics as fcm

# The reference's sums are exact or compensated; ours may add in another order. Scores near 0
# (MI of nearly independent labelings) lose relative precision in either, hence the abs floor.
CLOSE = {"rel": 1e-10, "abs": 1e-12}


def _labelings(seed, n, k_true, k_pred, agreement):
    """Predicted clusters follow the true classes for a fraction ``agreement`` of samples."""
    rng = np.random.default_rng(seed)
    true = rng.integers(0, k_true, n)
    follow = (true * k_pred) // k_true
    pred = np.where(rng.random(n) < agreement, follow, rng.integers(0, k_pred, n))
    return true, pred


@pytest.fixture(scope="module")
def five_million():
    true, pred = _labelings(seed=20240611, n=5_000_000, k_true=20, k_pred=30, agreement=0.6)
    cells = reference.cells_from_codes(true, pred, 20, 30)
    return true, pred, cells


@pytest.fixture(scope="module")
def two_million_by_thousand():
    true, pred = _labelings(seed=7, n=2_000_000, k_true=1000, k_pred=1000, agreement=0.3)
    cells = reference.cells_from_codes(true, pred, 1000, 1000)
    return true, pred, cells


def _check_all_pair_scores(true, pred, cells):
    assert fcm.rand_score(true, pred) == pytest.approx(reference.large_rand(cells), **CLOSE)
    assert fcm.adjusted_rand_score(true, pred) == pytest.approx(reference.large_ari(cells), **CLOSE)
    assert fcm.fowlkes_mallows_score(true, pred) == pytest.approx(
        reference.large_fowlkes_mallows(cells), **CLOSE
    )
    assert fcm.purity_score(true, pred) == pytest.approx(reference.large_purity(cells), **CLOSE)
    np.testing.assert_array_equal(
        fcm.pair_confusion_matrix(true, pred),
        np.array(reference.large_pair_confusion(cells), dtype=np.int64),
    )


def _check_information_scores(true, pred, cells):
    assert fcm.mutual_info_score(true, pred) == pytest.approx(
        reference.large_mutual_info(cells), **CLOSE
    )
    assert fcm.entropy(true) == pytest.approx(reference.large_entropy(cells.a), **CLOSE)
    assert fcm.entropy(pred) == pytest.approx(reference.large_entropy(cells.b), **CLOSE)
    for method in reference.AVERAGE_METHODS:
        ours = fcm.normalized_mutual_info_score(true, pred, average_method=method)
        assert ours == pytest.approx(reference.large_nmi(cells, method), **CLOSE), method
    h, c, v = reference.large_homogeneity_completeness_v(cells)
    assert fcm.homogeneity_completeness_v_measure(true, pred) == pytest.approx((h, c, v), **CLOSE)
    assert fcm.homogeneity_score(true, pred) == pytest.approx(h, **CLOSE)
    assert fcm.completeness_score(true, pred) == pytest.approx(c, **CLOSE)
    _, _, v2 = reference.large_homogeneity_completeness_v(cells, beta=2.0)
    assert fcm.v_measure_score(true, pred, beta=2.0) == pytest.approx(v2, **CLOSE)


def test_five_million_contingency(five_million):
    true, pred, cells = five_million
    dense = np.zeros((20, 30), dtype=np.int64)
    dense[cells.rows, cells.cols] = cells.counts
    table = fcm.contingency_matrix(true, pred)
    assert table.dtype == np.int64
    np.testing.assert_array_equal(table, dense)
    sparse = fcm.contingency_matrix(true, pred, sparse=True)
    np.testing.assert_array_equal(sparse.toarray(), dense)


def test_five_million_pair_scores(five_million):
    _check_all_pair_scores(*five_million)


def test_five_million_information_scores(five_million):
    _check_information_scores(*five_million)


def test_five_million_ami(five_million):
    true, pred, cells = five_million
    emi = reference.large_expected_mutual_info(cells.a, cells.b)
    for method in reference.AVERAGE_METHODS:
        ours = fcm.adjusted_mutual_info_score(true, pred, average_method=method)
        assert ours == pytest.approx(reference.large_ami(cells, method, emi), **CLOSE), method


def test_five_million_other_dtypes(five_million):
    """int32 codes and a non-contiguous uint16 view give the same table and scores."""
    true, pred, cells = five_million
    expected = reference.large_ari(cells)
    assert fcm.adjusted_rand_score(true.astype(np.int32), pred.astype(np.int32)) == (
        pytest.approx(expected, **CLOSE)
    )
    wide_true = np.repeat(true.astype(np.uint16), 2)[::2]
    wide_pred = np.repeat(pred.astype(np.uint16), 2)[::2]
    assert fcm.adjusted_rand_score(wide_true, wide_pred) == pytest.approx(expected, **CLOSE)


def test_two_million_thousand_by_thousand(two_million_by_thousand):
    true, pred, cells = two_million_by_thousand
    _check_all_pair_scores(true, pred, cells)
    _check_information_scores(true, pred, cells)


def test_two_million_thousand_by_thousand_ami(two_million_by_thousand):
    true, pred, cells = two_million_by_thousand
    ours = fcm.adjusted_mutual_info_score(true, pred)
    assert ours == pytest.approx(reference.large_ami(cells), **CLOSE)


def test_one_million_singleton_predictions():
    """A table of 1000 x 1 000 000 (far too large to hold densely)."""
    n = 1_000_000
    rng = np.random.default_rng(11)
    true = rng.integers(0, 1000, n)
    pred = rng.permutation(n)
    cells = reference.cells_from_codes(true, pred, 1000, n)
    t, p, q, m = reference.large_pair_counts(cells)
    assert (t, p) == (0, 0)
    assert fcm.rand_score(true, pred) == pytest.approx(reference.large_rand(cells), **CLOSE)
    assert fcm.adjusted_rand_score(true, pred) == pytest.approx(0.0, abs=1e-15)
    assert fcm.adjusted_rand_score(true, pred) == pytest.approx(reference.large_ari(cells), **CLOSE)
    assert fcm.purity_score(true, pred) == 1.0
    mi = fcm.mutual_info_score(true, pred)
    assert mi == pytest.approx(reference.large_mutual_info(cells), **CLOSE)
    assert mi == pytest.approx(reference.large_entropy(cells.a), **CLOSE)  # MI = H(true)
    np.testing.assert_array_equal(
        fcm.pair_confusion_matrix(true, pred), np.array([[2 * (m - q), 0], [2 * q, 0]])
    )
    # The information measures, computed from the rows alone (no cells are kept for them).
    assert fcm.normalized_mutual_info_score(true, pred) == pytest.approx(
        reference.large_nmi(cells), **CLOSE
    )
    assert fcm.adjusted_mutual_info_score(true, pred) == pytest.approx(
        reference.large_ami(cells), **CLOSE
    )
    h, c, v = fcm.homogeneity_completeness_v_measure(true, pred, beta=2.0)
    assert (h, c, v) == pytest.approx(
        reference.large_homogeneity_completeness_v(cells, beta=2.0), **CLOSE
    )
    # The table itself, with its cells, from the same labels.
    sparse = fcm.contingency_matrix(true, pred, sparse=True)
    np.testing.assert_array_equal(sparse.indices, cells.cols)


@pytest.mark.parametrize("flip", [False, True])
def test_two_million_clusters_each_within_one_class(flip):
    """Over-clustering: 600,000 clusters, each inside one of 50 classes (counted through a
    dense map of the cluster keys); with ``flip``, one late sample puts a cluster in a second
    class (the map is given up there, and the usual count takes over)."""
    n = 2_000_000
    rng = np.random.default_rng(23)
    pred = rng.integers(0, 600_000, n) * 2 - 5  # keys two apart, some negative
    true = (pred // 2) % 50
    if flip:
        true[-10] = (true[-10] + 1) % 50
    codes_true = true
    _, codes_pred = np.unique(pred, return_inverse=True)
    cells = reference.cells_from_codes(codes_true, codes_pred, 50, int(codes_pred.max()) + 1)
    sparse = fcm.contingency_matrix(true, pred, sparse=True)
    np.testing.assert_array_equal(
        sparse.indptr, np.r_[0, np.cumsum(np.bincount(cells.rows, minlength=50))]
    )
    np.testing.assert_array_equal(sparse.indices, cells.cols)
    np.testing.assert_array_equal(sparse.data, cells.counts)
    assert fcm.purity_score(true, pred) == pytest.approx(reference.large_purity(cells), **CLOSE)
    assert fcm.adjusted_rand_score(true, pred) == pytest.approx(reference.large_ari(cells), **CLOSE)
    assert fcm.mutual_info_score(true, pred) == pytest.approx(
        reference.large_mutual_info(cells), **CLOSE
    )
    assert fcm.adjusted_mutual_info_score(true, pred) == pytest.approx(
        reference.large_ami(cells), **CLOSE
    )


@pytest.mark.parametrize("clusters", [5_000_000, 700_000])
def test_a_table_kept_as_its_cluster_map_answers_as_the_full_table(clusters):
    """Five million samples whose clusters each lie within one class: the table is kept as
    the map it was counted in (four bytes a cluster key, not a sparse table), and every
    method of it answers as the same table given cell by cell does, before and after its
    cells are asked for; counted for its measures only, all singletons are kept as their
    rows alone (no cells to give), and their measures are the same."""
    from fastcluster_metrics import _native

    n = 5_000_000  # singletons: 78,125 words of bits, past those within L2 (prefetched)
    rng = np.random.default_rng(29)
    pred = rng.permutation(n) % clusters - 1_000  # all singletons, or clusters of 1 to ~15
    true = (pred * 7 + 3) % 40
    kept = _native.count(true, pred)
    rows, cols, counts = kept.cells()
    full = _native.table_from_cells(
        *kept.shape, rows.astype(np.int64), cols.astype(np.int64), counts.astype(np.int64)
    )
    # The cells themselves against NumPy's count.
    keys, codes = np.unique(pred, return_inverse=True)
    np.testing.assert_array_equal(kept.col_keys(), keys)
    np.testing.assert_array_equal(kept.col_sums(), np.bincount(codes))
    np.testing.assert_array_equal(kept.row_keys(), np.arange(40))
    np.testing.assert_array_equal(kept.row_sums(), np.bincount(true, minlength=40))
    assert kept.nnz == keys.size == len(counts)
    assert np.array_equal(np.sort(cols), np.arange(keys.size))  # one cell a cluster
    np.testing.assert_array_equal(rows, np.sort(rows))
    # Counted for its measures only: all singletons are counted by their rows alone.
    measures = _native.count(true, pred, cells=False)
    if clusters == n:
        for no_cells in (measures.cells, measures.col_keys, measures.col_sums):
            with pytest.raises(ValueError, match="counted for its measures only"):
                no_cells()
    else:
        np.testing.assert_array_equal(measures.cells()[0], rows)
    np.testing.assert_array_equal(measures.row_keys(), kept.row_keys())
    np.testing.assert_array_equal(measures.row_sums(), kept.row_sums())
    # Measures before and after the cells are asked for, and without them.
    for table in (_native.count(true, pred), kept, measures):
        assert (table.n, table.shape, table.nnz) == (full.n, full.shape, full.nnz)
        assert table.pair_sums() == full.pair_sums()
        assert table.entropy_rows() == full.entropy_rows()
        assert table.entropy_cols() == pytest.approx(full.entropy_cols(), rel=1e-15)
        assert table.purity() == full.purity() == 1.0
        assert table.mutual_info() == pytest.approx(full.mutual_info(), rel=1e-14)
        assert table.expected_mutual_info() == full.expected_mutual_info()
        mi, emi, h_true, h_pred = table.ami_parts()
        assert (emi, h_true, h_pred) == (*full.ami_parts()[1:3], table.entropy_cols())
        assert mi == pytest.approx(full.mutual_info(), rel=1e-14)
    cells = reference.cells_from_codes(true, codes, 40, keys.size)
    assert fcm.adjusted_mutual_info_score(true, pred) == pytest.approx(
        reference.large_ami(cells), **CLOSE
    )
    assert fcm.v_measure_score(true, pred, beta=0.5) == pytest.approx(
        reference.large_homogeneity_completeness_v(cells, beta=0.5)[2], **CLOSE
    )


def test_evaluate_on_a_million_singletons():
    """``evaluate``'s default measures come from the table's sums (the singletons counted
    without their cells), the catalogue's from its cells: both as the functions give them."""
    n = 1_000_000
    rng = np.random.default_rng(31)
    true = rng.integers(0, 30, n)
    pred = rng.permutation(n) - 77
    scores = fcm.evaluate(true, pred)
    for name, value in scores.items():
        assert value == getattr(fcm, name)(true, pred), name
    cells = reference.cells_from_codes(true, pred + 77, 30, n)
    assert scores["adjusted_mutual_info_score"] == pytest.approx(
        reference.large_ami(cells), **CLOSE
    )
    more = fcm.evaluate(true, pred, metrics=["purity_score", "inverse_purity_score"])
    assert more["purity_score"] == 1.0
    # Each class's best cluster holds one of its samples.
    assert more["inverse_purity_score"] == pytest.approx(np.unique(true).size / n, **CLOSE)
