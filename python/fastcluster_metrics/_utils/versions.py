"""``show_versions()``: what a bug report needs to say about the machine and the build."""

from __future__ import annotations

import os
import platform
import sys

from .. import _native

__all__ = ["show_versions"]

_DEPENDENCIES = (
    "numpy",
    "scipy",
    "pandas",
    "polars",
    "pyarrow",
    "scikit-learn",
    "anndata",
    "h5py",
    "zarr",
    "numcodecs",
    "dask",
    "distributed",
    "matplotlib",
    "tqdm",
)
"""numpy, and the optional dependencies the extras name (pyproject.toml)."""


def _version(name: str) -> str | None:
    """The installed version of a distribution, read from its metadata (never imported)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _threads() -> str:
    value = os.environ.get(_native.THREADS_VAR, "").strip()
    source = f"{_native.THREADS_VAR}={value}" if value else "the number of cores"
    return f"{_native.num_threads()} (from {source})"


def versions() -> dict[str, dict[str, str]]:
    """What :func:`show_versions` prints, by section and line."""
    features, best, used = _native.cpu_info()
    cap = os.environ.get(_native.CPU_VAR, "").strip()
    build = f"{used} (capped by {_native.CPU_VAR}={cap})" if cap else f"{used} (the best it runs)"
    system = {
        "python": sys.version.replace("\n", " "),
        "executable": sys.executable,
        "machine": platform.platform(),
        "processor": platform.processor() or platform.machine(),
    }
    core = {
        "fastcluster-metrics": _version("fastcluster-metrics") or "0+unknown",
        "cpu features": " ".join(features) if features else "(none of the x86-64 extensions)",
        "best build": best,
        "build in use": build,
        "threads": _threads(),
    }
    dependencies = {name: _version(name) or "not installed" for name in _DEPENDENCIES}
    return {"System": system, "fastcluster_metrics": core, "Python dependencies": dependencies}


def show_versions() -> None:
    """Print the versions and the machine a bug report needs, as scikit-learn's
    ``sklearn.show_versions()`` does: Python and the platform; this package's version, the
    CPU's features, the build of the core in use (``FASTCLUSTER_METRICS_CPU`` caps it) and
    the thread count with where it came from; numpy's version and every optional
    dependency's (read from their metadata, none imported).

    >>> import fastcluster_metrics as fcm
    >>> fcm.show_versions()  # doctest: +ELLIPSIS
    <BLANKLINE>
    System:
    ...
    """
    for section, lines in versions().items():
        print(f"\n{section}:")
        width = max(len(k) for k in lines)
        for key, value in lines.items():
            print(f"{key:>{width}}: {value}")
