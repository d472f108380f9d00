"""The route classes' hash table: link tuples (a workload's, or a plain PS hop's) numbered by first appearance.

Workloads with the same tuple of directed links form one route class (`core.greedy`). Both places that find
the classes, `core.greedy._class_ids` (every workload's links) and `core.workloads._plain_classes` (each hop of
the plain PS DAG once), insert-or-find their keys here: an open-addressing table of class ids, the classes'
links (the callers pad them with a sentinel link to one width) and their hashes, grown as classes come.

The hash is a polynomial over the key, kept below 2^32 in an int64: `_plain_classes` runs interpreted on small
inputs (`core.jit`), where numpy's integer scalars would warn on a uint64 product's wrap-around, and no int64
product here overflows. The classes do not depend on the hash (a class is found by comparing its links); only
the probes do.
"""

from __future__ import annotations

import numpy as np

from .jit import kernel


@kernel(inner=True)
def class_table(width):  # pragma: no cover - compiled
    """An empty table for keys of `width` links: (slots, each -1 or a class id; each class's links; each class's
    hash), with room for 512 classes before the first growth."""
    return np.full(1024, -1, np.int64), np.empty((512, width), np.int64), np.empty(512, np.int64)


@kernel(inner=True)
def classes_of(keys, out, table, clinks, chash, n_cls):  # pragma: no cover - compiled
    """Insert-or-find each row of `keys` (link tuples, in order) among the `n_cls` classes so far: ``out[r]`` is
    the class of ``keys[r]``, a new one (numbered next) when it is not there yet. Returns (number of classes,
    table, links, hashes): the last three are new arrays when they grew (the links and hashes doubled when full,
    the table four times larger once half full). A block of keys a call, not one: a kernel's call to another
    passes and counts references to each array (4 of them), which per key cost as much as the look-up."""
    width = keys.shape[1]
    size = len(table)  # a power of two
    for r in range(keys.shape[0]):
        h = np.int64(0)
        for k in range(width):
            h = (h * 1000003 + keys[r, k] + 1) & 0xFFFFFFFF
        slot = h & (size - 1)
        while True:
            c = table[slot]
            if c < 0:  # a new class
                if n_cls == len(clinks):
                    bigger = np.empty((2 * n_cls, width), np.int64)
                    bigger[:n_cls] = clinks
                    clinks = bigger
                    hb = np.empty(2 * n_cls, np.int64)
                    hb[:n_cls] = chash
                    chash = hb
                clinks[n_cls] = keys[r]
                chash[n_cls] = h
                table[slot] = n_cls
                out[r] = n_cls
                n_cls += 1
                if 2 * n_cls > size:  # grow and rehash
                    size *= 4
                    table = np.full(size, -1, np.int64)
                    for cc in range(n_cls):
                        s2 = chash[cc] & (size - 1)
                        while table[s2] >= 0:
                            s2 = (s2 + 1) & (size - 1)
                        table[s2] = cc
                break
            if chash[c] == h:
                same = True
                for k in range(width):
                    if clinks[c, k] != keys[r, k]:
                        same = False
                        break
                if same:
                    out[r] = c
                    break
            slot = (slot + 1) & (size - 1)
    return n_cls, table, clinks, chash
