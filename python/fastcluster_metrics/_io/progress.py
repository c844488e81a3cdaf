"""The progress bar of a read (tqdm, on stderr, shown only once a read takes a while)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["Progress", "progress_bar"]


@dataclass(frozen=True)
class Progress:
    """How the progress bar of a read shows: on stderr, once ``delay`` seconds have passed
    (short reads show none), and kept when done or not (``leave``)."""

    delay: float
    leave: bool = True


class _NoBar:
    def update(self, n: float = 1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(progress: Progress | None, total: float | None, unit: str, desc: str) -> Any:
    """A tqdm bar (none without tqdm, or if no progress is asked for)."""
    if progress is None:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with the io and cli extras
        return _NoBar()
    return tqdm(
        total=total,
        unit=unit,
        unit_scale=True,
        desc=desc,
        file=sys.stderr,
        delay=progress.delay,
        leave=progress.leave,
        dynamic_ncols=True,
    )
