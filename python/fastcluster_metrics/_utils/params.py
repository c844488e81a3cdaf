"""Parameter checks with scikit-learn's messages (a reduced ``validate_params``)."""

from __future__ import annotations

import importlib
import math
from numbers import Real
from typing import Any

import numpy as np

from .public import public

__all__ = [
    "InvalidParameterError",
    "check_array_like",
    "check_average_method",
    "check_beta",
    "check_random_model",
]

AVERAGE_METHODS = ("arithmetic", "geometric", "max", "min")
RANDOM_MODELS = ("perm", "perm1", "num", "num1", "all", "all1")
"""clusim's names of the random models (Gates and Ahn 2017), in its order."""


@public
class InvalidParameterError(ValueError, TypeError):
    """A parameter has the wrong type or value (as scikit-learn's, a ValueError and a TypeError)."""


def _fail(name: str, func: str, expected: str, value: Any) -> InvalidParameterError:
    return InvalidParameterError(
        f"The {name!r} parameter of {func} must be {expected}. Got {value!r} instead."
    )


def is_array_like(x: object) -> bool:
    """scikit-learn's ``_is_arraylike_not_scalar``."""
    has_len = hasattr(x, "__len__") or hasattr(x, "shape") or hasattr(x, "__array__")
    return has_len and not np.isscalar(x)


def check_array_like(func: str, allow_none: bool = False, **params: object) -> None:
    for name, value in params.items():
        if value is None and allow_none:
            continue
        if not is_array_like(value):
            expected = "an array-like or None" if allow_none else "an array-like"
            raise _fail(name, func, expected, value)


def check_average_method(func: str, average_method: object) -> str:
    if not isinstance(average_method, str) or average_method not in AVERAGE_METHODS:
        among = "{" + ", ".join(repr(m) for m in AVERAGE_METHODS) + "}"
        raise _fail("average_method", func, f"a str among {among}", average_method)
    return average_method


def check_random_model(func: str, random_model: object) -> str:
    if not isinstance(random_model, str) or random_model not in RANDOM_MODELS:
        among = "{" + ", ".join(repr(m) for m in RANDOM_MODELS) + "}"
        raise _fail("random_model", func, f"a str among {among}", random_model)
    return random_model


def _non_negative_real(x: object) -> bool:
    """In [0.0, inf): scikit-learn's ``Interval(Real, 0, None, closed="left")`` (no NaN, no inf)."""
    return isinstance(x, Real) and 0 <= float(x) < math.inf


def check_beta(func: str, beta: object) -> float:
    if type(beta) is float and 0.0 <= beta < math.inf:  # the usual case, without the ABC check
        return beta
    if not _non_negative_real(beta):
        raise _fail("beta", func, "a float in the range [0.0, inf)", beta)
    return float(beta)  # type: ignore[arg-type]


def check_eps(func: str, eps: object) -> None:
    if eps is not None and not _non_negative_real(eps):
        raise _fail("eps", func, "a float in the range [0.0, inf) or None", eps)


def check_bool(func: str, name: str, value: object) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise _fail(name, func, "an instance of 'bool' or an instance of 'numpy.bool'", value)


def scipy_module(name: str, what: str) -> Any:
    """``scipy.<name>`` (scipy is an optional dependency), or an ImportError that says ``what``
    needs it and how to install it."""
    try:
        return importlib.import_module(f"scipy.{name}")
    except ImportError as e:  # pragma: no cover - scipy is installed with the test extras
        raise ImportError(f"{what} need scipy: pip install 'fastcluster-metrics[sparse]'") from e
