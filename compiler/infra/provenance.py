"""Provenance: the hashes that identify a chart's inputs, and the ``usermeta.chartc`` block.

Every export carries a provenance block without timestamps (chartc version,
Vega-Lite version, a hash of the spec file and one of its data), so the same
inputs give the same bytes anywhere. The gallery's manifest records the same
hashes (`commands.manifest`) to tell a stale chart from an up-to-date one
without importing altair, numpy or vl-convert.

This module imports nothing heavy; keep it that way (a no-op `chartc build`
runs on it).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re

from ..version import __version__

PROVENANCE_KEY = "chartc"  # the usermeta key; also the PNG tEXt keyword
DATASET_DISTRIBUTION = "vega_datasets"
VEGA_LITE_SCHEMA = re.compile(r"/vega-lite/v([^/]+?)\.json$")
CRLF = re.compile(b"\r\n")
# The data formats that are binary (Parquet, Arrow IPC and Feather: the engine's, `stages.data.read.SUFFIXES`),
# by file name suffix: the one thing the manifest knows of an input. A file of one of them is hashed as its
# bytes are (`binary_hash`); any other as text, blind to CRLF vs LF (`input_hash`).
BINARY_SUFFIXES = (".parquet", ".arrow", ".feather", ".ipc")
# Largest spec or project file a build's staleness check reads: one the pipeline would refuse
# (`load.MAX_SPEC_BYTES`) is not read at all. A data file has no such bound: it is streamed
# (`infra.datahash`), as the compile streams it.
MAX_INPUT_BYTES = 50 * 1024 * 1024


# ------------------------------------------------------------------ hashes

def input_hash(content: bytes) -> str:
    """SHA-256 of a text input (spec or data file), blind to CRLF vs LF.

    A checkout with ``core.autocrlf`` reads the same spec and rows, so it must
    give the same hash, and so the same output bytes.
    """
    return hashlib.sha256(content.replace(b"\r\n", b"\n")).hexdigest()


def file_hash(content: bytes, name: str) -> str:
    """A data or spec file's hash, by its name: `binary_hash` for the binary formats, else `input_hash`.

    The manifest's staleness check (`commands.manifest.current_input_hash`) and a compile's provenance
    (`stages.data.read`) both give this hash (a data file's streamed, `infra.datahash`), so the two agree
    on every file.
    """
    return binary_hash(content) if is_binary(name) else input_hash(content)


def is_binary(name: str) -> bool:
    """Whether a file is of a binary format (`BINARY_SUFFIXES`), hashed as its exact bytes."""
    return os.path.splitext(name)[1].lower() in BINARY_SUFFIXES


def binary_hash(content: bytes) -> str:
    """BLAKE3 (256 bits, hex: what ``b3sum`` prints) of a binary file's exact bytes: git never rewrites line
    endings in one, so there is nothing to be blind to (and looking for the CRLFs a Parquet file holds by
    chance made hashing it twice as slow). Not SHA-256: a binary data file is the large one (a Parquet file
    of 10⁸ rows is 1.7 GB), and a compile hashes it beside the engine's queries on the same cores; BLAKE3
    hashes 3 times as fast on one core (benchmarks/bench_bigdata_peers.py)."""
    return binary_blocks_hash((content,))


def output_hash(content: bytes) -> str:
    """SHA-256 of an output file's exact bytes."""
    return hashlib.sha256(content).hexdigest()


@functools.cache
def dist_version(name: str) -> str:
    """An installed distribution's version, read without importing it."""
    from importlib import metadata  # ~30 ms (it loads the email package): only once a version is needed

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "none"


def input_blocks_hash(blocks) -> str:
    """`input_hash` of the bytes `blocks` yields in turn: the same hash for a file of any size, in constant memory.

    A CR ending one block is held back until the next shows whether an LF follows it. Each CR of a CRLF
    is skipped where the regular expression finds it rather than by `bytes.replace`: binary data (a
    Parquet file) holds a CRLF every ~64 kB by chance, and `replace` took 2.5 times as long over 1.7 GB of it.
    """
    digest, held = hashlib.sha256(), b""
    for block in blocks:
        block = held + block
        held = b"\r" if block.endswith(b"\r") else b""
        view, start = memoryview(block)[:len(block) - len(held)], 0
        for found in CRLF.finditer(view):
            digest.update(view[start:found.start()])
            start = found.start() + 1  # the LF starts the next piece
        digest.update(view[start:])
    digest.update(held)
    return digest.hexdigest()


def binary_blocks_hash(blocks) -> str:
    """`binary_hash` of the bytes `blocks` yields in turn (bytes or views of them), in constant memory."""
    import blake3

    digest = blake3.blake3()  # one thread: the engine has the others
    for block in blocks:
        digest.update(block)
    return digest.hexdigest()


def dataset_hash(name: str) -> str:
    """Identity of a vega-datasets table: its name and the package version."""
    return hashlib.sha256(f"{DATASET_DISTRIBUTION} {dist_version(DATASET_DISTRIBUTION)}\0{name}".encode()).hexdigest()


def values_hash(values) -> str:
    """Identity of inline rows (they are part of the spec, hashed for symmetry)."""
    text = json.dumps(values, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -------------------------------------------------------------- provenance

def vega_lite_version(vega_lite: dict) -> str | None:
    """The Vega-Lite version a compiled chart targets, from its ``$schema``."""
    match = VEGA_LITE_SCHEMA.search(str(vega_lite.get("$schema", "")))
    return match.group(1) if match else None


def add_provenance(vega_lite: dict, spec_hash: str, data: tuple, lookups: tuple = ()) -> dict:
    """The chart with ``usermeta.chartc`` = versions and input hashes (no timestamps).

    Args:
        vega_lite: the translated chart.
        spec_hash: `input_hash` of the spec bytes that were compiled.
        data: ``(label, hash, path)`` of its rows (`stages.data.data_identity`),
            taken before they were read.
        lookups: ``(label, hash, path)`` of each lookup's second source
            (`stages.data.lookup_identities`), listed under ``lookups`` in
            spec order; a chart without lookups has no such key, so its
            block reads as before.

    Returns:
        A new dict; any ``usermeta`` the spec declares is kept beside ``chartc``.
    """
    label, data_hash, _ = data
    block = {
        "version": __version__,
        "vega_lite": vega_lite_version(vega_lite),
        "spec_hash": spec_hash,
        "data": label,
        "data_hash": data_hash,
    }
    if lookups:
        block["lookups"] = [{"data": label, "data_hash": digest} for label, digest, _ in lookups]
    usermeta = dict(vega_lite.get("usermeta") or {})
    usermeta[PROVENANCE_KEY] = block
    return {**vega_lite, "usermeta": usermeta}


def provenance(vega_lite: dict) -> dict | None:
    """The ``usermeta.chartc`` block of a compiled chart, if it has one."""
    usermeta = vega_lite.get("usermeta")
    block = usermeta.get(PROVENANCE_KEY) if isinstance(usermeta, dict) else None
    return block if isinstance(block, dict) else None
