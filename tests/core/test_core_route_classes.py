"""The route classes' one hash table (`core.route_classes`): link tuples numbered by first appearance, for the
hashed classes (`greedy._class_ids`) and the plain PS DAG's hop classes (`workloads._plain_classes`) alike."""

from __future__ import annotations

import numpy as np
import pytest

from core import greedy, jit, route_classes, workloads
from core.routing import compute_routes
from core.workloads import ring_dag, tree_dag

from _corelib import topo


def first_appearance(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(class of each row, each class's row): rows numbered in order of first appearance, by a dict."""
    seen: dict[tuple[int, ...], int] = {}
    cls = np.array([seen.setdefault(tuple(k), len(seen)) for k in keys.tolist()], np.int32)
    links = np.array(list(seen), np.int64).reshape(len(seen), keys.shape[1])
    return cls, links


def insert_in_blocks(f, keys: np.ndarray, cuts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every row of `keys` through `classes_of` (`f`: compiled or its Python body), a block between two cuts."""
    table, clinks, chash = route_classes.class_table.py_func(keys.shape[1])
    out = np.full(len(keys), -1, np.int32)
    n_cls = 0
    for a, b in zip(cuts, cuts[1:]):
        n_cls, table, clinks, chash = f(keys[a:b], out[a:b], table, clinks, chash, n_cls)
    return out, clinks[:n_cls]


@pytest.mark.parametrize("compiled", [True, False])
def test_classes_of_numbers_link_tuples_by_first_appearance_through_growth(compiled):
    """3,000 distinct tuples among 20,000 (the links and hashes grow from 512 rows three times, the table from 1,024
    slots twice), in blocks of uneven sizes, one of them empty, with repeats inside a block and across blocks; keys
    that differ only in high bits (the same low bits: the same first slot)."""
    rng = np.random.default_rng(5)
    distinct = rng.integers(0, 50, size=(3000, 3)) + (rng.integers(0, 4, size=(3000, 1)) << 20)
    keys = distinct[rng.integers(0, len(distinct), size=20_000)]
    keys[:3] = keys[0]  # one tuple three times in the first block
    f = route_classes.classes_of if compiled else route_classes.classes_of.py_func
    got, links = insert_in_blocks(f, keys, [0, 7, 7, 1500, 9000, 20_000])
    want, want_links = first_appearance(keys)
    assert len(want_links) > 2048  # grown past 512 rows twice, the table past 1,024 slots
    assert np.array_equal(got, want) and np.array_equal(links, want_links)


def padded(dag) -> np.ndarray:
    """Each workload's links padded with the sentinel link to the most links of one workload."""
    width = max(1, int(dag.links.lengths.max()))
    sentinel = len(dag.topology.link_capacity)
    keys = np.full((dag.n, width), sentinel, np.int64)
    for w in range(dag.n):
        row = dag.links.row(w)
        keys[w, : len(row)] = row
    return keys


@pytest.mark.parametrize("spec", ["example:fig3", "bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4"])
@pytest.mark.parametrize("kind", ["merged", "plain", "ring"])
def test_hashed_route_classes_are_the_link_tuples_by_first_appearance(spec, kind):
    """`_class_ids` against a dict over every workload's padded links: the same class of every workload and the
    same links of every class (the builder's classes are compared with these in test_core_scale.py)."""
    t = topo(spec)
    dag = ring_dag(t) if kind == "ring" else tree_dag(t, merge=kind == "merged")
    keys = padded(dag)
    cls, clinks = greedy._class_ids(dag.links.ptr, dag.links.values, keys.shape[1], len(t.link_capacity))
    want, want_links = first_appearance(keys)
    assert cls.dtype == np.int32 and np.array_equal(cls, want)
    assert clinks.dtype == np.int64 and np.array_equal(clinks, want_links)


@pytest.mark.parametrize("spec", ["bcube:n=4,k=2", "dcell:n=2,k=2", "fattree:k=4"])
def test_plain_classes_run_interpreted_without_numba_and_match_the_compiled(spec, monkeypatch):
    """Until numba is loaded, `_plain_classes` on small inputs runs its Python body, and so does the table it calls
    (`inner` kernels, whatever their arrays' sizes): numba stays unloaded and the classes are the compiled ones."""
    t = topo(spec)
    r = compute_routes(t, "shortest")
    source = workloads.PlainClasses(r)
    monkeypatch.setattr(jit, "_loaded", True)
    compiled = source.find()
    monkeypatch.setattr(jit, "_loaded", False)
    calls = {"classes_of": 0}

    def counted(*args, _f=route_classes.classes_of.py_func):
        calls["classes_of"] += 1
        return _f(*args)
    for k in (workloads._plain_classes, route_classes.class_table, route_classes.classes_of):
        monkeypatch.setattr(k, "_dispatcher", None)
    monkeypatch.setattr(route_classes.classes_of, "py_func", counted)
    interpreted = source.find()
    assert not jit._loaded, "the plain classes loaded numba"
    assert calls["classes_of"] == 2 * t.n_servers  # one block a tree and phase
    for a, b in zip(interpreted, compiled, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
