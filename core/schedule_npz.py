"""The columnar form of ``allreduce-schedule/1``: one numpy array per field, in a ``.npz`` file.

JSON stays the default for small schedules (readable, diffable). A 4096-server schedule has
33.5 M workloads, which JSON would spell out in several GB; the columnar form holds the same
document as a header (every JSON field but ``workloads``, ``rounds`` and ``prefix_groups``,
stored as UTF-8 JSON in the array ``header``) and these arrays, in a zip of ``.npy`` members
compressed with deflate (docs/scale.md):

==================  =====================================================================
``root``            root server of every workload (its position is its id: 0..n-1)
``chunk``           chunk of every workload
``phase``           0 reduce, 1 broadcast
``carries_own``     1 when the sender adds its own piece
``path_len``,       node count of every path, and the paths concatenated
``path``
``prefix_len``,     prefix entries of every workload, concatenated; a value v >= n names
``prefix``          prefix group v - n (the JSON form's ``prefix_groups`` of that workload)
``group_len``,      members of every prefix group, concatenated
``group``
``round_len``,      workloads of every round, concatenated
``rounds``
==================  =====================================================================

`read_npz` returns the same document shape as the JSON reader, with a `Columns` object in
place of the ``workloads`` list, so `core.validate` and `allreduce-lab replay` read both.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import csr
from .atomic import atomic_file
from .csr import CSR

ENCODING = "npz-columns/1"
_ARRAYS = ("root", "chunk", "phase", "carries_own", "path_len", "path", "prefix_len", "prefix",
           "group_len", "group", "round_len", "rounds")

REWRITE = "cut short or changed since it was written? write it again with allreduce-lab schedule ... --out"
"""What to do about a schedule file that cannot be read: the tool wrote it whole or not at all (trial 24)."""


@dataclass(frozen=True, eq=False)
class Columns:
    """The workloads, prefix groups and rounds of a schedule document as arrays.

    `ids` are the file's workload ids (positions for the columnar file); `prefix` lists file
    ids, `prefix_groups` group ids; `groups` (members) and `rounds` list file ids. `problems`
    holds (workload id or None, message) pairs met while reading a JSON list into columns
    (entries that could not be represented).
    """

    ids: np.ndarray
    root: np.ndarray
    chunk: np.ndarray
    phase: np.ndarray
    carries_own: np.ndarray
    path: CSR
    prefix: CSR
    prefix_groups: CSR
    groups: CSR
    rounds: CSR
    problems: tuple = ()

    @property
    def n(self) -> int:
        """Number of workloads."""
        return len(self.ids)


def columns_of(schedule) -> Columns:
    """A `Schedule`'s workloads and rounds as columns (no copies of the DAG's arrays)."""
    dag = schedule.dag
    lens = np.array([len(r) for r in schedule.rounds], dtype=np.int64)
    ids = np.concatenate([np.asarray(r) for r in schedule.rounds]) if len(lens) else np.zeros(0, np.int64)
    pre, grp = split_prefix(dag.prefix, dag.n)
    return Columns(ids=np.arange(dag.n), root=dag.root, chunk=dag.chunk, phase=dag.phase,
                   carries_own=dag.carries_own, path=dag.path, prefix=pre, prefix_groups=grp, groups=dag.groups,
                   rounds=csr.from_lengths(lens, ids))


def split_prefix(prefix: CSR, n: int) -> tuple[CSR, CSR]:
    """A prefix relation whose values >= n name groups, as (workload prefixes, group ids)."""
    if len(prefix.values) == 0 or int(prefix.values.max()) < n:
        return prefix, csr.from_lengths(np.zeros(prefix.n_rows, np.int64), np.zeros(0, np.int64))
    rows = prefix.rows_of_values()
    g = prefix.values >= n
    return (csr.from_pairs(rows[~g], prefix.values[~g], prefix.n_rows),
            csr.from_pairs(rows[g], prefix.values[g] - n, prefix.n_rows))


def _small(values: np.ndarray) -> np.ndarray:
    """Non-negative integers in the smallest unsigned dtype that holds them."""
    values = np.asarray(values)
    top = int(values.max()) if values.size else 0
    return values.astype(np.min_scalar_type(top) if top >= 0 else np.int64)


def write_npz(path: str | Path, header: dict[str, Any], cols: Columns, level: int = 1) -> None:
    """Write the columnar file: `header` (JSON-ready, without workloads/rounds) and the arrays."""
    head = dict(header, format="allreduce-schedule/1", encoding=ENCODING)
    arrays = {
        "header": np.frombuffer(json.dumps(head, separators=(",", ":")).encode(), dtype=np.uint8),
        "root": csr.ids(cols.root), "chunk": _small(cols.chunk), "phase": np.asarray(cols.phase, np.int8),
        "carries_own": np.asarray(cols.carries_own, np.uint8),
        "path_len": _small(cols.path.lengths), "path": csr.ids(cols.path.values),
        **_joined_prefix(cols),
        "group_len": _small(cols.groups.lengths), "group": csr.ids(cols.groups.values),
        "round_len": _small(cols.rounds.lengths), "rounds": csr.ids(cols.rounds.values),
    }
    with atomic_file(path) as raw, zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED,  # whole or not at all
                                                   compresslevel=level, allowZip64=True) as zf:
        for name, arr in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.ascontiguousarray(arr), allow_pickle=False)


def _joined_prefix(cols: Columns) -> dict[str, np.ndarray]:
    """The file's prefix arrays: workload positions, then n + g for every prefix group g."""
    n = cols.n
    if not np.array_equal(cols.ids, np.arange(n)):
        raise ValueError("the columnar form numbers workloads 0..n-1 by position")
    rows = np.r_[cols.prefix.rows_of_values(), cols.prefix_groups.rows_of_values()]
    vals = np.r_[cols.prefix.values.astype(np.int64), cols.prefix_groups.values.astype(np.int64) + n]
    joined = csr.from_pairs(rows, vals, n) if len(vals) else cols.prefix
    return {"prefix_len": _small(joined.lengths), "prefix": csr.ids(joined.values)}


def json_rows(cols: Columns) -> dict[str, list]:
    """The JSON form's ``workloads``, ``rounds`` and ``prefix_groups`` of columns (node ids as in the file), for
    readers that walk workloads one by one (`core.execute.plan`); small schedules only (one dict per workload)."""
    phases = ["reduce" if p == 0 else "broadcast" for p in np.asarray(cols.phase).tolist()]
    paths, prefixes, groups = cols.path.to_lists(), cols.prefix.to_lists(), cols.prefix_groups.to_lists()
    items = []
    for w, r, c, ph, pa, pr, g, own in zip(np.asarray(cols.ids).tolist(), np.asarray(cols.root).tolist(),
                                           np.asarray(cols.chunk).tolist(), phases, paths, prefixes, groups,
                                           np.asarray(cols.carries_own).astype(bool).tolist()):
        item = {"id": w, "root": r, "chunk": c, "phase": ph, "path": pa, "prefix": pr, "carries_own": own}
        if g:
            item["prefix_groups"] = g
        items.append(item)
    return {"workloads": items, "rounds": cols.rounds.to_lists(), "prefix_groups": cols.groups.to_lists()}


def is_npz(path: str | Path) -> bool:
    """True when the file starts like a zip archive (the columnar form)."""
    with open(path, "rb") as f:
        return f.read(4) == b"PK\x03\x04"


class ColumnsError(ValueError):
    """A columnar file that does not hold the arrays this format needs (one-line reason)."""


def read_npz(path: str | Path) -> dict[str, Any]:
    """The columnar file as a document: its header's fields plus ``workloads`` (a `Columns`) and
    ``rounds`` (the same Columns); raises ColumnsError naming what is missing or malformed."""
    try:
        with np.load(path, allow_pickle=False) as z:
            names = set(z.files)
            missing = [a for a in ("header",) + _ARRAYS if a not in names]
            if missing:
                raise ColumnsError(f"{path}: columnar schedule lacks array(s) {', '.join(missing)}")
            arr = {a: z[a] for a in ("header",) + _ARRAYS}
    except (OSError, zipfile.BadZipFile, ValueError) as err:
        if isinstance(err, ColumnsError):
            raise
        raise ColumnsError(f"{path}: not a readable .npz archive ({err}); {REWRITE}") from None
    try:
        head = json.loads(arr["header"].tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ColumnsError(f"{path}: header is not JSON ({err})") from None
    if not isinstance(head, dict):
        raise ColumnsError(f"{path}: header must be a JSON object")
    for a in _ARRAYS:
        if arr[a].ndim != 1 or arr[a].dtype.kind not in "iub":
            raise ColumnsError(f"{path}: array {a} must be one-dimensional integers, got {arr[a].dtype} {arr[a].shape}")
    n = len(arr["root"])
    for a in ("chunk", "phase", "carries_own", "path_len", "prefix_len"):
        if len(arr[a]) != n:
            raise ColumnsError(f"{path}: array {a} has {len(arr[a])} entries, root has {n}")

    def rows(lens: str, vals: str) -> CSR:
        lengths = arr[lens].astype(np.int64)
        if (lengths < 0).any() or lengths.sum() != len(arr[vals]):
            raise ColumnsError(f"{path}: {lens} must sum to the length of {vals} ({len(arr[vals])})")
        return csr.from_lengths(lengths, arr[vals])

    pre, grp = split_prefix(rows("prefix_len", "prefix"), n)
    cols = Columns(ids=np.arange(n), root=csr.ids(arr["root"]), chunk=csr.ids(arr["chunk"]),
                   phase=arr["phase"].astype(np.int8), carries_own=arr["carries_own"].astype(bool),
                   path=rows("path_len", "path"), prefix=pre, prefix_groups=grp,
                   groups=rows("group_len", "group"), rounds=rows("round_len", "rounds"))
    return dict(head, workloads=cols, rounds=cols)
