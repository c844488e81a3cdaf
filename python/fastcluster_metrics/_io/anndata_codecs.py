"""The codecs a zarr array of an AnnData store may name, checked in its metadata as stored.

The metadata documents of a zarr store (a directory, or a zip of one) are read as JSON before
zarr parses them: an array's own (``.zarray``, ``zarr.json``) and the store's consolidated
copies (``.zmetadata``; ``consolidated_metadata`` in a group's ``zarr.json``), and what zarr
parsed of an array's codecs after. An array that names a codec outside
:data:`ZARR_V2_CODECS` and :data:`ZARR_V3_CODECS` (numcodecs' ``pickle`` runs code when it
decodes) is refused: :class:`UnsafeElementError`.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from .anndata_errors import NAMES, UnsafeElementError

__all__ = ["ZARR_V2_CODECS", "ZARR_V3_CODECS"]

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
