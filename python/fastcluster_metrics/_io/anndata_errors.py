"""What cannot be read from an AnnData file (:class:`AnnDataError`), and what would do more
than read its data (:class:`UnsafeElementError`), told without the file's name (the caller adds
it); the column of the cell names they tell of (:data:`NAMES`), and the reason an error of a
library gives, in one line (:func:`_reason`).
"""

from __future__ import annotations

__all__ = ["NAMES", "AnnDataError", "UnsafeElementError"]

NAMES = "obs_names"
"""The column of the cell names (``obs``'s index)."""


class AnnDataError(ValueError):
    """What cannot be read from an AnnData file, told without the file's name (the caller
    adds it)."""


class UnsafeElementError(AnnDataError):
    """An element whose reading would do more than read this file's data: decode with a
    codec that can run code, follow a reference out of ``obs``, read another file. Told as
    ``SUBJECT PREDICATE`` (``obs column 'x'`` and ``is stored with the codec 'pickle' ...``);
    the subject is added by the caller that knows it."""

    def __init__(self, predicate: str, subject: str | None = None) -> None:
        super().__init__(predicate, subject)
        self.predicate, self.subject = predicate, subject

    def about(self, subject: str) -> UnsafeElementError:
        """This error, told of ``subject`` (unless it already names one)."""
        return self if self.subject is not None else UnsafeElementError(self.predicate, subject)

    def __str__(self) -> str:
        return f"{self.subject} {self.predicate}" if self.subject else self.predicate


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
