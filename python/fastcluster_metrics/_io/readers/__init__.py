"""Where a file is read: the one set of file readers of :func:`read_contingency` (and its Dask
tasks) and of the command line.

One module per format behind one reader interface (``base.py``, :class:`~.base.Reader`: the
columns, the batches of those asked for, the errors that name the file): ``csv.py``,
``parquet.py``, ``ipc.py``, ``h5ad.py``, with what the pyarrow readers share in ``arrow.py``
and the guard against pickles in ``unpickling.py``. :class:`DataFile` (``file.py``) picks the
reader of its format; the read-ahead thread is ``readahead.py``.

A file's format follows its name (one table of suffixes, one of compressions) or a format
name (``csv``, ``tsv``, ``parquet``, ``ipc`` with its aliases ``arrow`` and ``feather``,
``h5ad``). :func:`open_file` checks that the file is there and tells its format;
:meth:`DataFile.columns` lists its columns; :meth:`DataFile.batches` yields the columns asked
for, batch by batch, as ``{name: labels}``, under a progress bar if asked; :func:`read_ahead`
reads the next batch on a thread of its own while the caller counts this one:

- CSV and TSV (also compressed: ``.gz``, ``.bz2``, ``.xz``, ``.zst``, ``.lz4``, ``.zip``) with
  pyarrow's streaming CSV reader, in blocks of about ``batch_size`` rows. String columns arrive
  as Arrow dictionaries (their codes, not their strings, are counted); types are inferred from
  the first block; the fields pandas reads as missing (empty, ``NA``, ``<NA>``, ``None``, ...)
  are missing labels. Text is UTF-8 (a byte-order mark is skipped) unless another encoding is
  named (pyarrow transcodes it); fields may be quoted, lines end in LF or CRLF.
- Parquet with pyarrow, by record batches of ``batch_size`` rows (string columns straight from
  the dictionary pages, as Arrow dictionaries), optionally of some row groups only.
- Arrow IPC (file or stream format) with pyarrow, in the batches it was written with.
- AnnData files, .h5ad and zarr stores (a directory, or a ``.zarr.zip``): the ``obs`` columns
  asked for (never ``X``), in every layout anndata has written or reads, by
  ``anndata_files.py``, in one batch of pandas Series; the cell names are the column
  ``obs_names``.

Label columns hold text, numbers, booleans or categories: a column of nested values (struct,
list, map, union) or of bytes is refused once its type is known, before it is counted.

Errors name the file (and the column): :class:`FileError` and its subclasses, which are also
the built-in exceptions a caller expects (``KeyError`` for a missing column, ``ValueError`` for
an unknown format, text that is not in the file's encoding, an empty file or missing labels,
``TypeError`` for a column of nested values, ``OSError`` for compressed data that is truncated
or corrupt, ``FileNotFoundError``, ``ImportError``). A message that suggests an option spells
it as the caller passes it (:meth:`FileError.describe`). pyarrow, tqdm, h5py and
zarr are imported only when a file is read.

A file is data, never code: what would have its reader run code or read another file (a
zarr codec such as numcodecs' ``pickle``, an HDF5 reference out of ``obs`` or link to another
file) is refused before anything is decoded, :class:`UnsafeFileError` (a ``ValueError``);
Parquet and Arrow IPC files are read only with a pyarrow that does not unpickle the
``arrow.py_extension_type`` columns a file may hold (14.0.1 or later, not told to by
``PyExtensionType.set_auto_load(True)``), and such a column is refused. CSV holds text only.
"""

from __future__ import annotations

from .file import DataFile, check_batch_size, open_file, read_again
from .readahead import read_ahead

__all__ = ["DataFile", "check_batch_size", "open_file", "read_again", "read_ahead"]
