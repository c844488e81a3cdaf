"""Where an AnnData file is read: the ``obs`` columns of an .h5ad file or of a zarr store (a
directory, or a zip of one), in every layout anndata has written; never ``X``, never a column
that was not asked for.

The layouts, as anndata's own readers take them apart (``anndata/_io/specs/methods.py`` and,
for the old ones, ``anndata/_io/h5ad.py`` and ``anndata/compat``):

- anndata 0.8 and later: ``obs`` is a group of encoding ``dataframe`` 0.2.0 with attributes
  ``_index`` (the element of the cell names) and ``column-order``; each column an element of
  its own encoding: ``array`` or ``string-array`` (a dataset), ``categorical`` (a group of
  ``codes`` and ``categories``, attribute ``ordered``), ``nullable-integer``,
  ``nullable-boolean`` or ``nullable-string-array`` (a group of ``values`` and ``mask``).
- anndata 0.7: ``obs`` is a group of encoding ``dataframe`` 0.1.0; each column a dataset; a
  categorical column holds codes and an attribute ``categories``, an HDF5 object reference
  (in zarr, a path from ``obs``) to the dataset of its categories (``obs/__categories/NAME``).
- before anndata 0.7: ``obs`` is one compound HDF5 dataset whose first field holds the cell
  names; the categories of column ``NAME`` are the dataset ``uns/NAME_categories``.
- the 0.7 layout without its ``encoding-*`` attributes (only ``_index`` and ``column-order``),
  as writers outside anndata leave it: read as anndata 0.7 read it, which never looked at
  them (anndata 0.8 and later read such a group element by element, a categorical column as
  its codes). Text in any of these may be bytes (HDF5 strings of the ASCII character set, as R
  writers such as MuDataSeurat write them; anndata shows them as ``b'B'``): read as UTF-8.

A file is data, never code, and only this file: an element is opened only once its storage
is known to be safe (:class:`_Group`). A zarr array is refused, before zarr parses it, if its
metadata (its own ``.zarray`` or ``zarr.json``, or the store's consolidated metadata) names a
codec outside :data:`ZARR_V2_CODECS` and :data:`ZARR_V3_CODECS` (numcodecs' ``pickle`` runs
code when it decodes); an HDF5 categories reference is followed only to an element of
``obs`` (never a region reference); an HDF5 link to another file, a dataset whose data lies
in other files (external storage, a virtual dataset) are refused. The refusals are
:class:`UnsafeElementError`.

Read with h5py (.h5ad) and zarr (zarr stores), not through anndata itself: anndata reads a
whole ``obs`` (and, for the old layouts, every element but ``X``), pins pandas below 3, and
takes seconds to import. A column becomes a pandas Series: categorical columns a
``Categorical`` (counted by its codes), nullable ones pandas' masked arrays, text columns
``object`` arrays of ``str``. The cell names are the column ``obs_names`` (unless ``obs`` has
a column of that name).
"""

from __future__ import annotations

import importlib
import json
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "NAMES",
    "ZARR_V2_CODECS",
    "ZARR_V3_CODECS",
    "AnnDataError",
    "UnsafeElementError",
    "is_zarr_store",
    "obs_columns",
    "read_obs",
]

NAMES = "obs_names"
"""The column of the cell names (``obs``'s index)."""

_NULLABLE = ("nullable-integer", "nullable-boolean", "nullable-string-array")


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


ZARR_V2_CODECS = frozenset(
    {
        # compressors (zarr 2 wrote Blosc by default; zarr 3 writes Zstd)
        *("blosc", "zstd", "gzip", "zlib", "lz4", "bz2", "lzma"),
        # object codecs: text (what anndata writes), bytes, arrays, JSON, msgpack
        *("vlen-utf8", "vlen-bytes", "vlen-array", "json2", "msgpack2"),
        # checksums and filters that only rearrange numbers
        *("crc32", "crc32c", "adler32", "fletcher32", "jenkins_lookup3"),
        *("shuffle", "delta", "astype", "fixedscaleoffset", "quantize", "bitround"),
        *("packbits", "categorize"),
    }
)
"""The codecs (numcodecs ids) a zarr format 2 array of ``obs`` may name in its ``compressor``
and ``filters`` (where its object codec is): what anndata and zarr write, and the codecs of
numcodecs that decode data as data. Not ``pickle``, which runs code as it decodes, nor any
codec unknown here."""

ZARR_V3_CODECS = frozenset(
    {
        *("bytes", "endian", "transpose", "sharding_indexed", "crc32c"),
        *("blosc", "zstd", "gzip", "vlen-utf8", "vlen-bytes"),
        # numcodecs' as zarr 3 names them (those zarr registers, less pcodec and zfpy)
        *(f"numcodecs.{name}" for name in ("blosc", "zstd", "gzip", "zlib", "lz4", "bz2")),
        *(f"numcodecs.{name}" for name in ("lzma", "crc32", "crc32c", "adler32", "fletcher32")),
        *(f"numcodecs.{name}" for name in ("jenkins_lookup3", "shuffle", "delta", "astype")),
        *(f"numcodecs.{name}" for name in ("fixedscaleoffset", "quantize", "bitround")),
        "numcodecs.packbits",
    }
)
"""The codecs a zarr format 3 array of ``obs`` may name in its ``codecs`` (and in those of a
shard): zarr's own, and numcodecs' as zarr names them (``numcodecs.zlib``)."""


def is_zarr_store(path: Path) -> bool:
    """Whether a directory is a zarr store (version 2 or 3)."""
    return (path / ".zgroup").is_file() or (path / "zarr.json").is_file()


# --- opening ---------------------------------------------------------------------------------


@contextmanager
def _root(path: Path, kind: str) -> Iterator[_Group]:
    """The root group of an .h5ad file (``kind="h5ad"``) or a zarr store (``"zarr"``: a
    directory, or a zip of one), open for reading while in the block."""
    if kind == "h5ad":
        h5py = importlib.import_module("h5py")
        try:
            handle = h5py.File(path, "r")
        except OSError as e:
            raise AnnDataError(f"not an HDF5 file ({_reason(e)})") from e
        with handle:
            yield _Group(handle, "", None)
        return
    zarr = importlib.import_module("zarr")
    with _ZarrMetadata(path) as metadata:
        metadata.check_consolidated("obs")  # (zarr 3 parses all of it as it opens the store)
        store = None
        try:
            if path.is_dir():
                root = zarr.open_group(str(path), mode="r")
            else:
                store = zarr.storage.ZipStore(str(path), mode="r")
                root = zarr.open_group(store, mode="r")
        except Exception as e:
            if store is not None:
                store.close()
            if metadata.document("zarr.json") is not None and zarr.__version__[:2] == "2.":
                raise AnnDataError(
                    f"a zarr format 3 store, which zarr {zarr.__version__} does not read (zarr 3"
                    " does: pip install 'zarr>=3')"
                ) from e
            raise AnnDataError(f"not a zarr store ({_reason(e)})") from e
        try:
            yield _Group(root, "", metadata)
        finally:
            if store is not None:
                store.close()


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


class _Group:
    """A group of the file (h5py or zarr) whose elements are opened only once known to be
    this file's data, safe to decode: ``group[key]`` refuses a link to another file (HDF5), a
    zarr array whose metadata names a codec that is not allowed (checked in the store before
    zarr parses it, and in what zarr parsed), a key that leaves the group; ``deref`` follows a
    categories reference only into the group. Subgroups come wrapped; datasets and arrays
    as they are (checked)."""

    def __init__(self, group: Any, path: str, metadata: _ZarrMetadata | None) -> None:
        self._group, self._path, self._metadata = group, path, metadata

    @property
    def attrs(self) -> Any:
        return self._group.attrs

    def __contains__(self, key: str) -> bool:
        return key in self._group

    def __getitem__(self, key: str) -> Any:
        key = str(key)
        parts = key.split("/")
        if key.startswith("/") or any(part in ("", ".", "..") for part in parts):
            inside = f"/{self._path}" if self._path else "the root"
            raise UnsafeElementError(
                f"refers to {key!r}, which is not inside {inside}; refusing to follow it"
            )
        where = f"{self._path}/{key}" if self._path else key
        if self._metadata is None:  # h5py: each link on the way, then the element
            element, at = self._group, self._path
            for part in parts:
                at = f"{at}/{part}" if at else part
                _check_link(element, part, at)
                element = element[part]
            return self._checked(element, where)
        self._metadata.check(where)
        return self._checked(self._group[key], where)

    def deref(self, reference: Any) -> Any:
        """The element a 0.7 column's ``categories`` attribute refers to: an HDF5 object
        reference (to an element inside this group), or a path from this group (zarr)."""
        if isinstance(reference, bytes):
            reference = reference.decode()
        if isinstance(reference, str):
            return self[reference]
        h5py = importlib.import_module("h5py")
        if isinstance(reference, h5py.RegionReference):
            raise UnsafeElementError(
                "has a region reference for its categories (anndata writes an object reference"
                " to an element of obs); refusing to follow it"
            )
        if not isinstance(reference, h5py.Reference):
            raise AnnDataError(
                f"its categories attribute is {type(reference).__name__}, not a reference"
            )
        try:
            element = self._group[reference]
        except (KeyError, ValueError, TypeError, OSError) as e:
            raise AnnDataError(f"its categories cannot be found ({_reason(e)})") from e
        name = element.name
        if name is None or not name.startswith(f"/{self._path}/"):
            raise UnsafeElementError(
                f"refers to {name or 'an unnamed element'} for its categories, outside"
                f" /{self._path}; refusing to follow it"
            )
        return self._checked(element, name.lstrip("/"))

    def _checked(self, element: Any, where: str) -> Any:
        if self._metadata is None and element.file.filename != self._group.file.filename:
            raise UnsafeElementError(  # (a soft link to an external link, say)
                f"is in another file ({element.file.filename}, from {where}); refusing to read it"
            )
        if _is_group(element):
            return _Group(element, where, self._metadata)
        if self._metadata is not None:
            _check_codecs(_parsed_metadata(element), where)
        else:
            _check_storage(element, where)
        return element


def _check_link(group: Any, key: str, where: str) -> None:
    """Refuses an HDF5 link to another file (h5py would open it)."""
    h5py = importlib.import_module("h5py")
    link = group.get(key, getlink=True)
    if isinstance(link, h5py.ExternalLink):
        raise UnsafeElementError(
            f"is a link to {link.path} in another file ({link.filename}, from {where});"
            " refusing to follow it"
        )


def _check_storage(dataset: Any, where: str) -> None:
    """Refuses an HDF5 dataset whose data lies outside the file."""
    if getattr(dataset, "external", None):
        files = ", ".join(sorted({str(f[0]) for f in dataset.external}))
        raise UnsafeElementError(
            f"keeps its data in other files ({files}, for {where}); refusing to read them"
        )
    if getattr(dataset, "is_virtual", False):
        raise UnsafeElementError(
            f"is a virtual dataset ({where}: its data is mapped from other datasets or files);"
            " refusing to read it"
        )


class _ZarrMetadata:
    """The metadata documents of a zarr store as they are stored (a directory, or a zip of
    one), read as JSON before zarr parses them: an array's own (``.zarray``, ``zarr.json``)
    and the store's consolidated copies (``.zmetadata``; ``consolidated_metadata`` in a
    group's ``zarr.json``), any of which zarr may take."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._zip: zipfile.ZipFile | None = None
        self._cache: dict[str, Any] = {}
        self._flat: dict[str, dict[str, Any]] = {}

    def __enter__(self) -> _ZarrMetadata:
        if not self._path.is_dir():
            try:
                self._zip = zipfile.ZipFile(self._path)
            except (OSError, zipfile.BadZipFile):  # (zarr tells what it is not)
                self._zip = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._zip is not None:
            self._zip.close()

    def document(self, key: str) -> Any:
        """The JSON document at ``key`` (a path in the store), None if absent or not JSON."""
        if key not in self._cache:
            try:
                if self._zip is not None:
                    data = self._zip.read(key)
                else:
                    data = (self._path / key).read_bytes()
                self._cache[key] = json.loads(data)
            except (KeyError, OSError, ValueError):
                self._cache[key] = None
        return self._cache[key]

    def documents(self, where: str) -> list[Any]:
        """Every metadata document of the array at ``where`` (``obs/leiden``) zarr may read."""
        found = [self.document(f"{where}/.zarray"), self.document(f"{where}/zarr.json")]
        consolidated = self.document(".zmetadata")
        if isinstance(consolidated, dict) and isinstance(consolidated.get("metadata"), dict):
            found.append(consolidated["metadata"].get(f"{where}/.zarray"))
        parts = where.split("/")
        for i in range(len(parts)):  # the consolidated metadata of each group above
            found.append(self.consolidated("".join(f"{part}/" for part in parts[:i])).get(where))
        return [d for d in found if d is not None]

    def consolidated(self, prefix: str = "") -> dict[str, Any]:
        """The documents in the zarr format 3 consolidated metadata of the group at
        ``prefix`` (``""``, ``"obs/"``), by their paths from the root."""
        if prefix not in self._flat:
            self._flat[prefix] = _flattened(self.document(f"{prefix}zarr.json"), prefix)
        return self._flat[prefix]

    def check(self, where: str) -> None:
        for document in self.documents(where):
            _check_codecs(document, where)

    def check_consolidated(self, group: str) -> None:
        """Checks the arrays below ``group`` in the store's consolidated metadata: a column
        is named by its key in ``group`` (``obs_names`` for ``_index``)."""
        entries: dict[str, Any] = {}
        consolidated = self.document(".zmetadata")
        if isinstance(consolidated, dict) and isinstance(consolidated.get("metadata"), dict):
            for key, document in consolidated["metadata"].items():
                if str(key).endswith("/.zarray"):
                    entries[str(key)[: -len("/.zarray")]] = document
        entries.update(self.consolidated())
        for where, document in entries.items():
            parts = where.split("/")
            if parts[0] != group or len(parts) < 2:
                continue
            column = parts[2] if parts[1] == "__categories" and len(parts) > 2 else parts[1]
            subject = NAMES if column == "_index" else f"{group} column {column!r}"
            try:
                _check_codecs(document, where)
            except UnsafeElementError as e:
                raise e.about(subject) from None


def _flattened(group: Any, prefix: str = "") -> dict[str, Any]:
    """The documents of a zarr format 3 group's consolidated metadata (and of the groups in
    it), by their paths from the root."""
    found: dict[str, Any] = {}
    inline = group.get("consolidated_metadata") if isinstance(group, dict) else None
    entries = inline.get("metadata") if isinstance(inline, dict) else None
    if not isinstance(entries, dict):
        return found
    for key, document in entries.items():
        where = f"{prefix}{key}"
        found[where] = document
        found.update(_flattened(document, f"{where}/"))
    return found


def _parsed_metadata(array: Any) -> dict[str, Any]:
    """What zarr parsed of an array's codecs, as a metadata document: zarr 3's codecs (format
    3), or compressor and filters (format 2; zarr 2 keeps them on the array)."""
    metadata: Any = getattr(array, "metadata", None)
    if getattr(metadata, "zarr_format", None) == 3:
        return {"zarr_format": 3, "codecs": [codec.to_dict() for codec in metadata.codecs]}
    source = array if metadata is None else metadata
    compressor = getattr(source, "compressor", None)
    return {
        "zarr_format": 2,
        "compressor": None if compressor is None else compressor.get_config(),
        "filters": [f.get_config() for f in getattr(source, "filters", None) or ()],
    }


def _is_v3(document: Any) -> bool:
    return isinstance(document, dict) and (document.get("zarr_format") == 3 or "codecs" in document)


def _codec_names(document: Any) -> list[str]:
    """The codecs a zarr array's metadata names: format 2 its compressor and filters (its
    object codec among them), format 3 its codecs and those of its shards. A codec given
    as anything but a name is told by its ``repr`` (and so is never allowed)."""
    if not isinstance(document, dict):
        return []
    if not _is_v3(document):
        listed = [document.get("compressor"), *_listed(document.get("filters"))]
        return [_name(c, "id") for c in listed if c is not None]
    names, todo = [], _listed(document.get("codecs"))
    while todo:
        codec = todo.pop(0)
        names.append(codec if isinstance(codec, str) else _name(codec, "name"))
        configuration = codec.get("configuration") if isinstance(codec, dict) else None
        if isinstance(configuration, dict):  # a shard's codecs
            todo += _listed(configuration.get("codecs"))
            todo += _listed(configuration.get("index_codecs"))
    return names


def _name(codec: Any, key: str) -> str:
    name = codec.get(key) if isinstance(codec, dict) else codec
    return name if isinstance(name, str) else repr(name)


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


_RUNS_CODE = frozenset({"pickle", "numcodecs.pickle"})


def _check_codecs(document: Any, where: str) -> None:
    """Refuses a zarr array whose metadata names a codec that is not allowed."""
    allowed = ZARR_V3_CODECS if _is_v3(document) else ZARR_V2_CODECS
    for name in _codec_names(document):
        if name in allowed:
            continue
        why = (
            "which could run code when decoded"
            if name in _RUNS_CODE
            else "which is not among the codecs anndata and zarr write, known safe to decode"
        )
        raise UnsafeElementError(
            f"is stored with the codec {name!r} ({where}), {why}; refusing to read it"
        )


# --- obs -------------------------------------------------------------------------------------


def _obs(root: _Group) -> Any:
    if "obs" not in root:
        raise AnnDataError("no obs: not an AnnData file")
    try:
        return root["obs"]
    except UnsafeElementError as e:
        raise e.about("obs") from e


def _is_group(element: Any) -> bool:
    return not hasattr(element, "dtype")


def _attr(element: Any, name: str, default: Any = None) -> Any:
    value = element.attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else value


def _names(value: Any) -> list[str]:
    """An attribute that lists names (``column-order``): h5py gives an array (a float one when
    empty), zarr a list."""
    if value is None:
        return []
    return [v.decode() if isinstance(v, bytes) else str(v) for v in np.atleast_1d(value)]


def _layout(obs: Any) -> str:
    """``"compound"`` (before anndata 0.7), ``"0.1.0"`` (anndata 0.7, also without its
    encoding attributes) or ``"0.2.0"``."""
    if not _is_group(obs):
        if obs.dtype.names is None:
            raise AnnDataError("obs is neither a group nor a compound dataset")
        return "compound"
    kind, version = _attr(obs, "encoding-type"), _attr(obs, "encoding-version")
    if kind is None and version is None:  # the 0.7 layout as writers outside anndata leave it
        absent = [a for a in ("_index", "column-order") if a not in obs.attrs]
        if absent:
            raise AnnDataError(
                "obs is not a dataframe (a group without encoding attributes, and without"
                f" {' or '.join(repr(a) for a in absent)})"
            )
        return "0.1.0"
    if kind != "dataframe" or "_index" not in obs.attrs:
        raise AnnDataError(f"obs is not a dataframe (encoding {kind!r}, version {version!r})")
    return "0.1.0" if version == "0.1.0" else "0.2.0"


def obs_columns(path: Path, kind: str) -> tuple[list[str], int]:
    """The names of the columns of ``obs`` (``obs_names`` first, then ``obs``'s in order) and
    the number of cells."""
    with _root(path, kind) as root:
        obs = _obs(root)
        if _layout(obs) == "compound":
            names = list(obs.dtype.names[1:])
            n = int(obs.shape[0])
        else:
            names = _names(_attr(obs, "column-order"))
            try:
                n = int(_length(obs[_attr(obs, "_index")]))
            except UnsafeElementError as e:
                raise e.about(NAMES) from e
    return ([] if NAMES in names else [NAMES]) + names, n


def read_obs(path: Path, kind: str, columns: Sequence[str]) -> dict[str, Any]:
    """The columns of ``obs`` asked for (names from :func:`obs_columns`), as pandas Series."""
    import pandas as pd

    with _root(path, kind) as root:
        obs = _obs(root)
        layout = _layout(obs)
        out: dict[str, Any] = {}
        for name in columns:
            try:
                values = _column(root, obs, layout, name)
            except UnsafeElementError as e:
                raise e.about(f"obs column {name!r}") from e
            except AnnDataError as e:
                raise AnnDataError(f"obs column {name!r}: {e}") from e
            except (KeyError, ValueError, TypeError, OSError) as e:
                raise AnnDataError(
                    f"obs column {name!r} cannot be read: {_reason(e)} ({type(e).__name__})"
                ) from e
            out[name] = pd.Series(values, name=name, copy=False)
    return out


def _column(root: _Group, obs: Any, layout: str, name: str) -> Any:
    if layout == "compound":
        fields = obs.dtype.names
        field = fields[0] if name == NAMES and name not in fields else name
        values = _text(obs[field])
        categories = _legacy_categories(root, field)
        if categories is not None and _codes_fit(values, categories):
            return _categorical(values, categories, ordered=False)
        return values
    key = _attr(obs, "_index") if name == NAMES and name not in obs else name
    element = obs[key]
    if layout == "0.1.0" and not _is_group(element):
        values = _dataset(element)
        reference = element.attrs.get("categories")
        if reference is None:
            return values
        categories = obs.deref(_reference(reference))
        return _categorical(values, _dataset(categories), _ordered(categories))
    return _element(element)


def _element(element: Any) -> Any:
    """A column of the current layout, by its encoding."""
    kind = _attr(element, "encoding-type")
    if not _is_group(element):
        if kind not in (None, "array", "string-array"):
            raise AnnDataError(f"stored as {kind!r}, not as labels")
        return _dataset(element)
    if kind == "categorical":
        return _categorical(
            _dataset(element["codes"]), _dataset(element["categories"]), _ordered(element)
        )
    if kind in _NULLABLE:
        return _masked(kind, _dataset(element["values"]), _dataset(element["mask"]))
    if kind is None:
        raise AnnDataError(
            "a group without an encoding; label columns are arrays, categoricals or nullable arrays"
        )
    raise AnnDataError(
        f"stored as {kind!r}; label columns are arrays, categoricals or nullable arrays"
    )


# --- values ----------------------------------------------------------------------------------


def _length(element: Any) -> int:
    if _is_group(element):  # a nullable or categorical index
        inner = element["codes"] if "codes" in element else element["values"]
        return int(inner.shape[0])
    return int(element.shape[0])


def _dataset(element: Any) -> Any:
    """A 1-D dataset (h5py or zarr) as a NumPy array, text as ``object`` arrays of ``str``."""
    if _is_group(element):
        raise AnnDataError("a group where an array is expected")
    if len(element.shape) != 1:
        raise AnnDataError(f"an array of shape {tuple(element.shape)}, not one label per cell")
    h5py = _h5py_of(element)
    try:
        if h5py is not None and h5py.check_string_dtype(element.dtype) is not None:
            # as UTF-8 whatever the character set says (R writers call UTF-8 text ASCII)
            return _text(element.asstr("utf-8")[()])
        return _text(np.asarray(element[...]))
    except UnicodeDecodeError as e:
        raise AnnDataError(f"text that is not UTF-8 ({_reason(e)})") from e


def _h5py_of(element: Any) -> Any:
    return importlib.import_module("h5py") if type(element).__module__.startswith("h5py") else None


def _text(values: Any) -> Any:
    """Bytes (fixed-length HDF5 strings, zarr's ``vlen-bytes``) as UTF-8 text, and NumPy's
    variable-width strings, as ``str``."""
    values = np.asarray(values)
    if values.dtype.kind == "S":
        return np.char.decode(values, "utf-8").astype(object)
    if values.dtype.kind in "UT":
        return values.astype(object)
    if values.dtype.kind == "O":
        return np.array([v.decode() if isinstance(v, bytes) else v for v in values], dtype=object)
    return values


def _ordered(element: Any) -> bool:
    return bool(_attr(element, "ordered", False))


def _categorical(codes: Any, categories: Any, ordered: bool) -> Any:
    import pandas as pd

    codes = np.asarray(codes)
    if codes.dtype.kind not in "iu":
        raise AnnDataError(f"categorical codes of type {codes.dtype}, not integers")
    categories = np.atleast_1d(categories)
    if codes.size and int(codes.min()) < -1:
        raise AnnDataError(
            f"a categorical code {int(codes.min())}, below -1 (the code of a missing label)"
        )
    if codes.size and int(codes.max()) >= len(categories):
        raise AnnDataError(
            f"a categorical code {int(codes.max())} past its {len(categories)} categories"
        )
    return pd.Categorical.from_codes(codes, pd.Index(categories), ordered=ordered)


def _masked(kind: str, values: Any, mask: Any) -> Any:
    import pandas as pd

    mask = np.asarray(mask, dtype=bool)
    if kind == "nullable-integer":
        return pd.arrays.IntegerArray(np.asarray(values), mask)
    if kind == "nullable-boolean":
        return pd.arrays.BooleanArray(np.asarray(values, dtype=bool), mask)
    text = np.array(values, dtype=object)
    text[mask] = None
    return pd.array(text, dtype="string")


def _reference(value: Any) -> Any:
    """A ``categories`` attribute as one reference (or path): h5py gives a reference, zarr a
    path; an array of one is taken as its element."""
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise AnnDataError(f"its categories attribute holds {value.size} references, not one")
        value = value.reshape(-1)[0]
    return value


def _legacy_categories(root: Any, field: str) -> Any:
    """The categories of a column of a compound ``obs`` (``uns/NAME_categories``), or None."""
    key = f"{field}_categories"
    if "uns" not in root or key not in root["uns"]:
        return None
    element = root["uns"][key]
    if _is_group(element):
        return None
    return _text(np.atleast_1d(element[()]))


def _codes_fit(values: Any, categories: Any) -> bool:
    """anndata's test that ``uns`` categories belong to this column: integer codes below
    their number (a column of ``var`` may share the name)."""
    return values.dtype.kind in "iu" and (values.size == 0 or int(values.max()) < len(categories))
