"""Compressed sparse rows (CSR) of integers: the flat list-of-lists used for paths, links and prefixes.

Row pointers are int64 (int32 where a builder knows the entries fit: the plain PS DAG's
relations); values are int32 whenever they fit (ids of workloads, nodes and links
stay far below 2^31), which halves the memory of the large relations (docs/scale.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .jit import SMALL, kernel

ID = np.int32
"""The dtype of ids in large arrays (workloads, nodes, links, rounds)."""


def ids(values: np.ndarray) -> np.ndarray:
    """`values` as int32 when every value fits (no copy if it already is), else int64."""
    values = np.asarray(values)
    if values.dtype == ID:
        return values
    if values.size == 0 or (values.min() >= np.iinfo(ID).min and values.max() <= np.iinfo(ID).max):
        return values.astype(ID)
    return values.astype(np.int64)


@dataclass(frozen=True, eq=False)
class CSR:
    """Row r holds ``values[ptr[r]:ptr[r+1]]``."""

    ptr: np.ndarray
    values: np.ndarray

    @property
    def n_rows(self) -> int:
        """Number of rows."""
        return len(self.ptr) - 1

    @property
    def lengths(self) -> np.ndarray:
        """Length of every row."""
        return np.diff(self.ptr)

    def row(self, r: int) -> np.ndarray:
        """The values of row r."""
        return self.values[self.ptr[r]:self.ptr[r + 1]]

    def rows_of_values(self) -> np.ndarray:
        """For every entry of `values`, the row it belongs to."""
        return np.repeat(np.arange(self.n_rows, dtype=ID if self.n_rows < 2 ** 31 else np.int64), self.lengths)

    def rows_between(self, start: int, stop: int) -> "CSR":
        """Rows start..stop-1 as a CSR of their own (values are views; the whole relation itself when it is all)."""
        if (start, stop) == (0, self.n_rows):
            return self
        return CSR(self.ptr[start:stop + 1] - self.ptr[start], self.values[self.ptr[start]:self.ptr[stop]])

    def padded(self, fill: int, width: int | None = None) -> np.ndarray:
        """The rows as an (n_rows, width) matrix padded with `fill` (column-major, so every column is contiguous);
        `width` defaults to the longest row (at least 1)."""
        if width is None:
            width = max(1, int(self.lengths.max()) if self.n_rows else 1)
        out = np.full((self.n_rows, width), fill, dtype=ID, order="F")
        rows = self.rows_of_values()
        out[rows, np.arange(len(rows)) - self.ptr[rows]] = self.values
        return out

    def gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Entries of the given rows: ``(position in rows, value)`` pairs, row by row."""
        rows = np.asarray(rows, dtype=np.int64)
        starts = self.ptr[rows]
        lens = self.ptr[rows + 1] - starts
        pos = np.repeat(np.arange(len(rows)), lens)
        offs = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        return pos, self.values[np.repeat(starts, lens) + offs]

    def to_lists(self) -> list[list[int]]:
        """Plain Python lists, one per row."""
        v = self.values.tolist()
        p = self.ptr.tolist()
        return [v[p[i]:p[i + 1]] for i in range(self.n_rows)]

    def transpose(self, n_cols: int) -> "CSR":
        """The reverse relation: row c lists the rows r that contain c, ascending (a counting sort over the rows,
        with no (row, value) pair arrays: the result is the only array as long as `values`)."""
        if len(self.values) and (self.values.min() < 0 or self.values.max() >= n_cols):
            raise ValueError(f"row ids must be in 0..{n_cols - 1}")
        out = np.empty(len(self.values), ID if self.n_rows < 2 ** 31 else np.int64)
        return CSR(*_transpose(self.ptr, self.values, n_cols, out))


@kernel(interpret_below=SMALL)
def _bucket(rows, n_rows, perm):  # pragma: no cover - compiled
    """Row pointers, and in `perm` the stable order that groups entries by row (a counting sort)."""
    ptr = np.zeros(n_rows + 1, np.int64)
    for r in rows:
        ptr[r + 1] += 1
    for r in range(n_rows):
        ptr[r + 1] += ptr[r]
    fill = ptr[:-1].copy()
    for i in range(len(rows)):
        r = rows[i]
        perm[fill[r]] = i
        fill[r] += 1
    return ptr, perm


@kernel(interpret_below=SMALL)
def _transpose(ptr, values, n_cols, out):  # pragma: no cover - compiled
    """Row pointers of the transpose, and in `out` its values: the rows holding each value, ascending."""
    tptr = np.zeros(n_cols + 1, np.int64)
    for v in values:
        tptr[v + 1] += 1
    for c in range(n_cols):
        tptr[c + 1] += tptr[c]
    fill = tptr[:-1].copy()
    for r in range(len(ptr) - 1):
        for e in range(ptr[r], ptr[r + 1]):
            v = values[e]
            out[fill[v]] = r
            fill[v] += 1
    return tptr, out


def from_pairs(rows: np.ndarray, values: np.ndarray, n_rows: int) -> CSR:
    """CSR from (row, value) pairs; pairs of one row keep their given order (linear time)."""
    rows = np.asarray(rows)
    values = ids(values)
    if len(rows) == 0:
        return CSR(np.zeros(n_rows + 1, np.int64), values.astype(ID))
    if rows.dtype.kind not in "iu":
        rows = rows.astype(np.int64)
    if rows.min() < 0 or rows.max() >= n_rows:
        raise ValueError(f"row ids must be in 0..{n_rows - 1}")
    perm = np.empty(len(rows), ID if len(rows) < 2 ** 31 else np.int64)
    ptr, perm = _bucket(rows, n_rows, perm)
    return CSR(ptr, values[perm])


def from_lists(lists: list[list[int]] | list[np.ndarray]) -> CSR:
    """CSR from a list of integer sequences."""
    lens = np.array([len(x) for x in lists], dtype=np.int64)
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    vals = np.concatenate([np.asarray(x, dtype=np.int64) for x in lists]) if len(lists) and lens.sum() else \
        np.zeros(0, np.int64)
    return CSR(ptr, ids(vals))


def from_padded(arr: np.ndarray) -> CSR:
    """CSR from a 2-D array padded with -1 (padding may sit anywhere in a row)."""
    mask = arr >= 0
    ptr = np.zeros(arr.shape[0] + 1, dtype=np.int64)
    np.cumsum(mask.sum(axis=1), out=ptr[1:])
    return CSR(ptr, ids(arr[mask]))


def from_lengths(lengths: np.ndarray, values: np.ndarray) -> CSR:
    """CSR from row lengths and the concatenated values."""
    ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    return CSR(ptr, ids(values))
