"""Sample and class weights: checked once, at the edge, and turned into what the core counts.

``sample_weight`` is one non-negative finite number per sample (or one for all), read as a
*frequency*: a sample of weight 3 counts as three samples, so whole-number weights give
exactly the table, and every measure, of the labels with each sample repeated that many times.
``class_weight`` multiplies the weights of each true class (``"balanced"``: every class then
totals the same, ``n / K``, as scikit-learn's ``compute_class_weight``); it is applied to the
counted table's rows, never to the samples again.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "WEIGHTS_DOC",
    "check_class_weight",
    "check_sample_weight",
    "class_factors",
    "weighted_error",
    "with_weights_doc",
    "zero_weights",
]


WEIGHTS_DOC = """
    Weights: ``sample_weight`` (one non-negative finite number per sample) makes each cell of
    the table the sum of its samples' weights, read as frequencies: whole-number weights give
    exactly the result of repeating each sample that many times (a weight of 0 drops the
    sample). ``class_weight`` multiplies each true class's weights: ``"balanced"`` gives every
    class the same total ``n / K`` (the balanced measures of Maan et al., Nature Biotechnology
    2024, without their integer truncation), a dict gives the named classes its weights and
    the others 1. Pair counts sum ``w(x) w(y)`` over the pairs of distinct samples, a
    whole-number weight ``k`` standing for ``k`` samples of weight 1: a cell, class, cluster
    or total of weight ``x`` whose samples' squared weights sum to ``s`` holds
    ``(x**2 - s) / 2`` pairs (``x (x - 1) / 2`` for counts), never a negative number, exact;
    a whole class weight repeats its class's samples, any other multiplies their weights.
    Entropies use the weighted proportions. Measures adjusted by the expected mutual
    information, the modified ARI and G+ need whole-number weights.
"""


def with_weights_doc(func: Any) -> Any:
    """``func`` with :data:`WEIGHTS_DOC` in its docstring, before its examples."""
    doc = func.__doc__ or ""
    marker = "\n    Examples\n"
    if marker in doc:
        head, _, tail = doc.partition(marker)
        func.__doc__ = f"{head.rstrip()}\n{WEIGHTS_DOC}{marker}{tail}"
    else:
        func.__doc__ = f"{doc.rstrip()}\n{WEIGHTS_DOC}"
    return func


def check_sample_weight(func: str, sample_weight: Any, n_samples: int) -> NDArray[Any]:
    """``sample_weight`` as a 1-D float64, int64 or uint64 array of ``n_samples`` values, or a
    ``ValueError``/``TypeError`` that says what is wrong (before any counting). The values
    are checked by the core's pass (:func:`weighted_error`)."""
    if isinstance(sample_weight, (str, bytes)):
        raise TypeError(
            f"{func}: sample_weight must be an array-like of numbers, one per sample;"
            f" got {type(sample_weight).__name__}"
        )
    if hasattr(sample_weight, "to_numpy") and not isinstance(sample_weight, np.ndarray):
        sample_weight = sample_weight.to_numpy()
    try:
        w = np.asarray(sample_weight)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"{func}: sample_weight must be an array-like of numbers, one per sample ({e})"
        ) from None
    if w.dtype.kind == "O":
        try:
            w = w.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{func}: sample_weight must hold numbers; it holds"
                f" {sorted({type(x).__name__ for x in w.reshape(-1)[:1000].tolist()})}"
            ) from None
    if w.dtype.kind not in "biuf":
        raise TypeError(
            f"{func}: sample_weight must hold numbers (int, float or bool); its dtype is {w.dtype}"
        )
    if w.ndim == 0:
        w = np.full(n_samples, w.item(), dtype=np.float64 if w.dtype.kind == "f" else np.int64)
    if w.ndim != 1:
        raise ValueError(
            f"{func}: sample_weight must be 1D, one weight per sample: shape is {w.shape!r}"
        )
    if w.shape[0] != n_samples:
        raise ValueError(
            f"{func}: sample_weight has {w.shape[0]} values for {n_samples} samples;"
            " give one weight per sample"
        )
    # Their values (negative, NaN, infinite, too large) are checked by the core as it reads
    # them (``_table/count.py``): no pass of their own.
    return _native_dtype(w)


def weighted_error(func: str, error: ValueError, n_samples: int) -> ValueError:
    """The core's refusal of a weight (``sample_weight[i] is ...``), for the call ``func``."""
    return ValueError(f"{func}: {error}")


def zero_weights(func: str) -> ValueError:
    return ValueError(
        f"{func}: sample_weight is zero for every sample: there is nothing to compare"
    )


def _native_dtype(w: NDArray[Any]) -> NDArray[Any]:
    """Weights as the core takes them: float64, int64 or uint64, contiguous, native order."""
    if w.dtype.kind == "f":
        target: Any = np.float64
    elif w.dtype.kind == "u" and w.dtype.itemsize == 8:
        target = np.uint64
    else:
        target = np.int64
    return np.ascontiguousarray(w, dtype=target)


def check_class_weight(func: str, class_weight: Any) -> str | dict[Any, float | int] | None:
    """``None``, ``"balanced"``, or a dict from class label to a non-negative finite weight."""
    if class_weight is None or (isinstance(class_weight, str) and class_weight == "balanced"):
        return None if class_weight is None else "balanced"
    if not isinstance(class_weight, dict):
        raise ValueError(
            f"{func}: class_weight must be None, 'balanced' or a dict from class label to"
            f" weight; got {class_weight!r}"
        )
    out: dict[Any, float | int] = {}
    for label, weight in class_weight.items():
        if (
            not isinstance(weight, (Real, np.integer, np.floating))
            or isinstance(weight, (bool, np.bool_))
            or not math.isfinite(float(weight))
            or float(weight) < 0
        ):
            raise ValueError(
                f"{func}: class_weight[{label!r}] is {weight!r}; class weights must be"
                " non-negative finite numbers"
            )
        value = weight.item() if isinstance(weight, np.generic) else weight
        out[label] = value if isinstance(value, int) else float(value)
    return out


def class_factors(
    func: str,
    class_weight: str | dict[Any, float | int],
    classes: NDArray[Any],
    sizes: NDArray[Any],
) -> list[float | int]:
    """Each class's weight, for the table's classes (its row labels) and their (weighted)
    sizes: ``"balanced"`` gives ``n / (K n_c)`` with ``K`` the number of classes; a dict gives
    its value, and 1 to the classes it does not name (as scikit-learn's
    ``compute_class_weight``); a class it names that ``labels_true`` lacks is an error."""
    if isinstance(class_weight, str):
        total = math.fsum(float(s) for s in sizes.tolist())
        k = len(sizes)
        return [total / (k * float(s)) for s in sizes.tolist()]
    present = set()
    factors: list[float | int] = []
    for label in classes.tolist():
        key = label
        if key in class_weight:
            present.add(key)
            factors.append(class_weight[key])
        else:
            factors.append(1)
    unknown = [k for k in class_weight if k not in present]
    if unknown:
        raise ValueError(
            f"{func}: class_weight names {len(unknown)} class{'es' if len(unknown) > 1 else ''}"
            f" that labels_true does not have (with a non-zero weight): {unknown[:10]!r}"
        )
    return factors
