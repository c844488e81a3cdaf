"""Principal component regression (PCR, Büttner et al. 2019) and its comparison before and
after integration, as scib-metrics' ``principal_component_regression`` and
``pcr_comparison`` define them.

scib-metrics regresses each principal component of ``X`` on the (one-hot, centred) covariate
and weights each component's R² by its variance: ``sum_j R²_j var_j / sum_j var_j``. Over
all the components, as the benchmark takes them, that is the share of ``X``'s total
variance the covariate explains, ``‖P X_c‖² / ‖X_c‖²`` (``X_c`` centred, ``P`` the projection
on the covariate): for batches, the between-batch sum of squares over the total sum of
squares, from one pass over ``X`` with no decomposition. Only ``n_components=`` (the first
components alone) needs the SVD. In float64 where scib-metrics computes in float32 on JAX:
the two agree to about 1e-6 relative.

The PCA that ``Benchmarker`` runs on ``adata.X`` when it has no pre-integration embedding
(scanpy's ``sc.tl.pca``: 50 components, ARPACK) is :func:`pca_coordinates`: the same
components, by scipy's ARPACK from a fixed start, the data centred without being copied
when sparse.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._utils.public import public
from .validation import check_features, check_labelings

__all__ = ["pca_coordinates", "pcr_comparison", "principal_component_regression"]


def _explained(xc: NDArray[np.float64], covariate: Any, categorical: bool) -> float:
    """``‖P X_c‖² / ‖X_c‖²`` of centred ``xc``."""
    n = xc.shape[0]
    total = float(np.einsum("ij,ij->", xc, xc))
    if categorical:
        found = check_labelings(covariate, n, "raise")
        codes = found.codes[0]
        order = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes)
        starts = np.r_[0, np.cumsum(sizes)[:-1]]
        sums = np.add.reduceat(xc[order], starts, axis=0)
        between = float(np.sum(sums * sums / sizes[:, None]))
    else:
        c = np.asarray(covariate, dtype=np.float64).reshape(n)
        c = c - c.mean()
        norm = float(c @ c)
        proj = c @ xc
        between = float(proj @ proj) / norm if norm > 0 else 0.0
    return between / total if total > 0 else math.nan


@public
def principal_component_regression(
    X: Any, covariate: Any, categorical: bool = False, n_components: int | None = None
) -> float:
    """Principal component regression (Büttner et al. 2019), as scib-metrics'.

    The share of ``X``'s variance that ``covariate`` explains: each principal component's R²
    in a linear regression on the covariate (one-hot encoded when ``categorical``), weighted
    by the component's variance. Over all the components (``n_components=None``) that is the
    covariate's share of the total sum of squares, computed directly.

    Parameters
    ----------
    X
        Array of shape (n_cells, n_features).
    covariate
        Array of shape (n_cells,): the batches (``categorical``, any label type of the
        package) or a number per cell.
    categorical
        One-hot encode the covariate.
    n_components
        The first components only (None: all).

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> x = [[0.0, 1.0], [1.0, 0.0], [4.0, 1.0], [5.0, 0.0]]
    >>> round(fcm.principal_component_regression(x, ["a", "a", "b", "b"], categorical=True), 4)
    0.8889
    """
    x = check_features(X, sparse="densify")
    if len(x.shape) != 2:  # pragma: no cover - check_features gives 2-D arrays
        raise ValueError("Dimension mismatch: X must be 2-dimensional.")
    n = x.shape[0]
    if np.shape(covariate)[0] != n:
        raise ValueError("Dimension mismatch: X and batch must have the same number of samples.")
    xc = np.asarray(x, dtype=np.float64)
    xc = xc - xc.mean(axis=0)
    if n_components is not None:
        most = min(x.shape)
        if n_components > most:
            raise ValueError(
                f"n_components = {n_components} must be <= min(n_cells, n_features) = {most}"
            )
        u, s, _ = np.linalg.svd(xc, full_matrices=False)
        xc = u[:, :n_components] * s[:n_components]
    return _explained(xc, covariate, categorical)


@public
def pcr_comparison(
    X_pre: Any, X_post: Any, covariate: Any, scale: bool = True, **kwargs: Any
) -> float:
    """Principal component regression comparison (Büttner et al. 2019), as scib-metrics'.

    ``(pcr_pre - pcr_post) / pcr_pre`` of :func:`principal_component_regression` before and
    after integration, set to 0 (with scib-metrics' warning) where the covariate explains
    more after; with ``scale=False``, ``pcr_post - pcr_pre``. Higher (scaled) is better.

    Parameters
    ----------
    X_pre, X_post
        Arrays of shape (n_cells, n_features): the embeddings before and after integration
        (the numbers of features may differ).
    covariate
        Array of shape (n_cells,): the batches.
    scale
        Scale the score into [0, 1].
    **kwargs
        Passed to :func:`principal_component_regression` (``categorical``, as the benchmark
        passes ``categorical=True``, and ``n_components``).

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> pre = [[0.0, 1.0], [1.0, 0.0], [4.0, 1.0], [5.0, 0.0]]
    >>> post = [[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]]
    >>> round(fcm.pcr_comparison(pre, post, ["a", "a", "b", "b"], categorical=True), 4)
    0.25
    """
    if np.shape(X_pre)[0] != np.shape(X_post)[0]:
        raise ValueError(
            "Dimension mismatch: `X_pre` and `X_post` must have the same number of samples."
        )
    if np.shape(covariate)[0] != np.shape(X_pre)[0]:
        raise ValueError(
            "Dimension mismatch: `X_pre` and `covariate` must have the same number of samples."
        )
    pcr_pre = principal_component_regression(X_pre, covariate, **kwargs)
    pcr_post = principal_component_regression(X_post, covariate, **kwargs)
    if not scale:
        return pcr_post - pcr_pre
    if pcr_pre == 0:
        return math.nan
    compared = (pcr_pre - pcr_post) / pcr_pre
    if compared < 0:
        warnings.warn(
            "PCR comparison score is negative, meaning variance contribution increased after"
            " integration. Setting to 0.",
            stacklevel=2,
        )
        compared = 0.0
    return compared


def pca_coordinates(x: Any, n_comps: int | None = None) -> NDArray[np.float64]:
    """The first principal components' coordinates of ``x`` (dense or sparse), as scanpy's
    ``sc.tl.pca`` finds them by default (ARPACK; 50 components, fewer for a narrow
    matrix)."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import LinearOperator, svds

    n, d = x.shape
    if n_comps is None:
        smallest = min(n, d)
        n_comps = smallest - 1 if smallest <= 50 else 50
    if sp.issparse(x):
        mat = sp.csr_matrix(x, dtype=np.float64)
        mean = np.asarray(mat.mean(axis=0)).ravel()
        ones = np.ones(n)

        def matvec(v: NDArray[np.float64]) -> Any:
            return mat @ v - ones * (mean @ v)

        def rmatvec(v: NDArray[np.float64]) -> Any:
            return mat.T @ v - mean * v.sum()

        def matmat(m: NDArray[np.float64]) -> Any:
            return mat @ m - np.outer(ones, mean @ m)

        def rmatmat(m: NDArray[np.float64]) -> Any:
            return mat.T @ m - np.outer(mean, m.sum(axis=0))

        op: Any = LinearOperator(
            (n, d),
            matvec=matvec,
            rmatvec=rmatvec,
            matmat=matmat,
            rmatmat=rmatmat,
            dtype=np.float64,
        )
    else:
        dense = np.asarray(x, dtype=np.float64)
        op = dense - dense.mean(axis=0)
    v0 = np.random.default_rng(0).uniform(-1.0, 1.0, min(n, d))
    u, s, _ = svds(op, k=n_comps, solver="arpack", v0=v0)
    coords: NDArray[np.float64] = u * s
    return coords
