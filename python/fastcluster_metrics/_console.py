"""What the command line and the built-in example share: one-line errors with an exit status,
an argument parser that raises them, and aligned text tables."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["CliError", "Parser", "format_table"]


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
    corner: str, columns: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]]
) -> str:
    """An aligned text table: a first column of names (left), then columns of values (right)."""
    first = max([len(corner), *(len(name) for name, _ in rows)])
    widths = [max([len(c), *(len(values[j]) for _, values in rows)]) for j, c in enumerate(columns)]
    lines = [
        corner.ljust(first) + "".join(f"  {c:>{w}}" for c, w in zip(columns, widths, strict=True))
    ]
    lines.append("-" * len(lines[0]))
    for name, values in rows:
        lines.append(
            name.ljust(first) + "".join(f"  {v:>{w}}" for v, w in zip(values, widths, strict=True))
        )
    return "\n".join(lines)
