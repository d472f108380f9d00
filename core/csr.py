"""Compressed sparse rows (CSR) of integers: the flat list-of-lists used for paths, links and prefixes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
        return np.repeat(np.arange(self.n_rows), self.lengths)

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
        """The reverse relation: row c lists the rows r that contain c, ascending."""
        rows = self.rows_of_values()
        order = np.argsort(self.values, kind="stable")
        return from_pairs(self.values[order], rows[order], n_cols)


def from_pairs(rows: np.ndarray, values: np.ndarray, n_rows: int) -> CSR:
    """CSR from (row, value) pairs; pairs of one row keep their given order."""
    rows = np.asarray(rows, dtype=np.int64)
    values = np.asarray(values, dtype=np.int64)
    order = np.argsort(rows, kind="stable")
    ptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=ptr[1:])
    return CSR(ptr, values[order])


def from_lists(lists: list[list[int]] | list[np.ndarray]) -> CSR:
    """CSR from a list of integer sequences."""
    lens = np.array([len(x) for x in lists], dtype=np.int64)
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    vals = np.concatenate([np.asarray(x, dtype=np.int64) for x in lists]) if len(lists) and lens.sum() else \
        np.zeros(0, np.int64)
    return CSR(ptr, vals)


def from_padded(arr: np.ndarray) -> CSR:
    """CSR from a 2-D array padded with -1 (padding may sit anywhere in a row)."""
    mask = arr >= 0
    ptr = np.zeros(arr.shape[0] + 1, dtype=np.int64)
    np.cumsum(mask.sum(axis=1), out=ptr[1:])
    return CSR(ptr, arr[mask].astype(np.int64))
