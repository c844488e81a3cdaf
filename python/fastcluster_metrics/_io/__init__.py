"""Files and streams: where a file is read (``readers/``: CSV/TSV, Parquet, Arrow IPC, and
AnnData files through ``anndata_files.py``, which reads their ``obs`` without anndata), its
format (``formats.py``), its columns (``columns.py``), the errors that name the file and the
column (``errors.py``), the progress bar (``progress.py``); tables counted chunk by chunk and
from files (``stream.py``); AnnData objects (``anndata.py``).

Imports every folder above but ``plot`` and ``_cli``.
"""
