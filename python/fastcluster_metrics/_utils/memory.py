"""How much more memory this process may take: its cgroup's limit less what the cgroup uses
(version 2, or version 1's memory controller; the tightest of its ancestors), and the
system's available memory. An allocation past it is not refused at once: the pages are
promised and the process is killed when it touches them, which no ``except`` can catch. So
the paths whose need is known before they start check it here and refuse with a
``MemoryError`` instead.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["usable_memory"]

UNLIMITED = 2**62
"""Limits from here on mean none (cgroup version 1 writes 2**63 rounded down to a page)."""


def usable_memory(root: Path = Path("/")) -> tuple[int, str] | None:
    """The bytes this process may still use and what limits them (``"available memory"`` or
    ``"its cgroup's memory limit"``), the smaller; ``None`` where neither can be read (not
    Linux). ``root`` is where ``/proc`` and ``/sys`` are found (the tests give others)."""
    found: list[tuple[int, str]] = []
    available = _available(root)
    if available is not None:
        found.append((available, "available memory"))
    for limit, usage in _cgroup_levels(root):
        found.append((max(limit - usage, 0), "its cgroup's memory limit"))
    return min(found, key=lambda f: f[0]) if found else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


def _number(path: Path) -> int | None:
    text = _read(path)
    return int(text) if text is not None and text.isdigit() else None


def _available(root: Path) -> int | None:
    """``MemAvailable`` of ``/proc/meminfo``, in bytes."""
    text = _read(root / "proc" / "meminfo")
    for line in (text or "").splitlines():
        name, _, value = line.partition(":")
        if name == "MemAvailable" and value.split() and value.split()[0].isdigit():
            return int(value.split()[0]) * 1024
    return None


def _cgroup_levels(root: Path) -> list[tuple[int, int]]:
    """(limit, usage) of each cgroup level above this process that has a limit."""
    levels = []
    for line in (_read(root / "proc" / "self" / "cgroup") or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":
            base, files = root / "sys" / "fs" / "cgroup", ("memory.max", "memory.current")
        elif "memory" in controllers.split(","):
            base = root / "sys" / "fs" / "cgroup" / "memory"
            files = ("memory.limit_in_bytes", "memory.usage_in_bytes")
        else:
            continue
        here = Path(path)
        for level in [here, *here.parents]:
            folder = base / level.relative_to("/") if level.is_absolute() else base / level
            limit, usage = (_number(folder / name) for name in files)
            if limit is not None and usage is not None and limit < UNLIMITED:
                levels.append((limit, usage))
    return levels
