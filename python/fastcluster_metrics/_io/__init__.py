"""Files and streams: where a file is read (``readers/``: CSV/TSV, Parquet, Arrow IPC, and
AnnData files through ``anndata_files.py``, which reads their ``obs`` without anndata: the file
opened and each element guarded by ``anndata_store.py``, zarr codecs checked by
``anndata_codecs.py``, elements made arrays by ``anndata_values.py``, errors in
``anndata_errors.py``), its format (``formats.py``), its columns (``columns.py``), the errors
that name the file and the column (``errors.py``), the progress bar (``progress.py``); tables
counted chunk by chunk and from files (``stream.py``); AnnData objects (``anndata.py``).

Imports every folder above but ``plot`` and ``_cli``.
"""
