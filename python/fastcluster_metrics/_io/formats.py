"""Which format a file is in: the tables of suffixes, compressions and format names, and the
text encodings a CSV or TSV file may be read in."""

from __future__ import annotations

import codecs
import os
from pathlib import Path

from .errors import FormatError

__all__ = [
    "COMPRESSIONS",
    "FORMATS",
    "FORMAT_NAMES",
    "NULL_VALUES",
    "check_encoding",
    "file_format",
    "is_store",
]


FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".parq": "parquet",
    ".pq": "parquet",
    ".arrow": "ipc",
    ".arrows": "ipc",
    ".feather": "ipc",
    ".ipc": "ipc",
    ".h5ad": "h5ad",
    ".zarr": "zarr",
}
"""The format of a file by its (last, or last but a compression's) suffix."""


COMPRESSIONS = {
    ".gz": "gzip",
    ".bz2": "bz2",
    ".xz": "xz",
    ".zst": "zstd",
    ".lz4": "lz4",
    ".zip": "zip",
}
"""The compression of a CSV or TSV file by its last suffix."""


FORMAT_NAMES = {
    "csv": "csv",
    "tsv": "tsv",
    "parquet": "parquet",
    "ipc": "ipc",
    "arrow": "ipc",
    "feather": "ipc",
    "h5ad": "h5ad",
    "zarr": "zarr",
}
"""The formats a caller may name, and their aliases."""


_TEXT = ("csv", "tsv")


_ANNDATA = ("h5ad", "zarr")
"""AnnData files: their ``obs`` columns are read whole (not in batches)."""


_SEPARATORS = {"csv": ",", "tsv": "\t"}


_NEEDS = {
    "csv": ("pyarrow", "io"),
    "tsv": ("pyarrow", "io"),
    "parquet": ("pyarrow", "io"),
    "ipc": ("pyarrow", "io"),
    "h5ad": ("h5py", "h5ad"),
    "zarr": ("zarr", "h5ad"),
}
"""The library that reads each format, and the extra that installs it."""


NULL_VALUES = [
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
]
"""CSV fields read as missing labels: those pandas reads as missing."""


def file_format(
    path: str | os.PathLike[str],
    format: str | None = None,
    choose: str = "pass format='csv', 'tsv', 'parquet', 'ipc', 'h5ad' or 'zarr'",
) -> tuple[str, str | None]:
    """The format (a value of :data:`FORMAT_NAMES`) and compression of a file, from
    ``format`` (any name of :data:`FORMAT_NAMES`) or the file's name; ``choose`` ends the
    message of a name that tells nothing (how the caller names a format)."""
    name = os.fspath(path)
    suffixes = [s.lower() for s in Path(name).suffixes]
    compression = COMPRESSIONS.get(suffixes[-1]) if suffixes else None
    if compression is not None:
        suffixes.pop()
    if format is not None:
        kind = FORMAT_NAMES.get(str(format).lower())
        if kind is None:
            raise FormatError(
                f"unknown format {format!r}; choose from 'csv', 'tsv', 'parquet', 'ipc' (or"
                " 'arrow', 'feather'), 'h5ad', 'zarr'"
            )
    else:
        kind = FORMATS.get(suffixes[-1]) if suffixes else None
        if kind is None:
            known = ", ".join(sorted(FORMATS))
            raise FormatError(
                f"cannot tell the format of {name} from its name ({known}, CSV/TSV also"
                f" compressed); {choose}"
            )
    if compression is not None and kind not in _TEXT and (kind, compression) != ("zarr", "zip"):
        raise FormatError(
            f"{name}: only CSV and TSV files are read compressed (and zarr stores zipped)"
        )
    return kind, compression


def check_encoding(encoding: object) -> str:
    """The name of a text encoding as the CSV reader takes it (``utf8`` for UTF-8, read as it
    is; any other is transcoded by pyarrow), or the ``ValueError`` that names an unknown one."""
    if not isinstance(encoding, str):
        raise TypeError(f"encoding must be a str; got {encoding!r}")
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True):  # (not base64, rot13)
        raise ValueError(
            f"unknown encoding {encoding!r}; text encodings are named as in Python, such as"
            " 'utf-8', 'latin-1', 'cp1252', 'utf-16'"
        )
    return "utf8" if info.name == "utf-8" else info.name


def is_store(path: Path) -> bool:
    """Whether a directory is one file to read: a zarr store (by its name or its content)."""
    from .anndata_files import is_zarr_store

    return path.is_dir() and (path.suffix.lower() == ".zarr" or is_zarr_store(path))
