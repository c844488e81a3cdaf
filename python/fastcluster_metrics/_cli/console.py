"""What the command line and the built-in example share: one-line errors with an exit status,
an argument parser that raises them, and aligned text tables."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["PROG", "CliError", "Parser", "format_table"]

PROG = "fastcluster-metrics"
"""The command's name, as its messages and help name it."""


class CliError(Exception):
    """An error reported as one line on stderr, with an exit status (1 data, 2 usage)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors raised as :class:`CliError` (one line, status 2)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see {self.prog} --help)", 2)


def format_table(
    corner: str,
    columns: Sequence[str],
    rows: Sequence[tuple[str, Sequence[str]]],
    width: int | None = None,
) -> str:
    """An aligned text table: a first column of names (left), then columns of values (right).

    With ``width``, a table wider than that is cut into blocks of columns, one under the
    other (a blank line between them), each repeating the first column; the blocks are made
    as even as their number allows. A single column wider than ``width`` stays whole."""
    first = max([len(corner), *(len(name) for name, _ in rows)])
    widths = [max([len(c), *(len(values[j]) for _, values in rows)]) for j, c in enumerate(columns)]
    blocks = _blocks([2 + w for w in widths], width - first) if width else [len(widths)]
    parts = []
    start = 0
    for size in blocks:
        part = range(start, start + size)
        start += size
        lines = [corner.ljust(first) + "".join(f"  {columns[j]:>{widths[j]}}" for j in part)]
        lines.append("-" * len(lines[0]))
        for name, values in rows:
            lines.append(name.ljust(first) + "".join(f"  {values[j]:>{widths[j]}}" for j in part))
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _blocks(widths: Sequence[int], room: int) -> list[int]:
    """How many of the columns of these widths go in each block of at most ``room``
    characters: as few blocks as fit, then the narrowest limit that keeps that many."""

    def fill(limit: int) -> list[int]:
        sizes = [0]
        used = 0
        for w in widths:
            if sizes[-1] and used + w > limit:
                sizes.append(0)
                used = 0
            sizes[-1] += 1
            used += w
        return sizes

    best = fill(room)
    limit = room
    while limit > 1 and len(fill(limit - 1)) == len(best):
        limit -= 1
        best = fill(limit)
    return best
