"""The read-ahead thread: the next batch read while the caller counts this one."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

__all__ = ["read_ahead"]


def read_ahead(items: Iterator[Any]) -> Generator[Any, None, None]:
    """``items``, each next one read on a thread of its own while the caller works on this
    one: pyarrow decodes without the GIL, and the count releases it, so a stream runs at the
    slower of the two, not at their sum (one more batch is held). The reader's exceptions are
    raised here, in order; once the caller stops (an error, an interrupt, ``close``), the
    reader stops after the item it is reading and closes ``items``."""
    import queue
    import threading

    handed: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def hand(last: bool, item: Any) -> None:
        while not stop.is_set():
            try:
                handed.put((last, item), timeout=0.05)
                return
            except queue.Full:
                continue

    def read() -> None:
        try:
            for item in items:
                hand(False, item)
                if stop.is_set():
                    return
        except BaseException as e:  # raised in the caller's thread
            hand(True, e)
            return
        finally:
            # A generator's files close now, on the thread that runs it.
            close = getattr(items, "close", None)
            if close is not None:
                close()
        hand(True, None)

    reader = threading.Thread(target=read, name="fastcluster_metrics read-ahead", daemon=True)
    reader.start()
    try:
        while True:
            last, item = handed.get()
            if last:
                if item is not None:
                    raise item
                return
            yield item
    finally:
        stop.set()
        reader.join()
