"""Kernels load numba on first use; single-pass kernels run their Python body on small inputs until then."""

from __future__ import annotations

import os

import numpy as np
import pytest

from core import csr, jit, routing, workloads
from core.routing import compute_routes
from core.topology import graph, make_topology
from core.workloads import build_dag

SPECS = ["example:fig3", "bcube:n=3,k=1", "dcell:n=4,k=1", "fattree:k=4",
         "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"]
INNER = [graph._spread]  # called only from other kernels: compiled into them, it never gets a dispatcher of its own
INTERPRETED = [graph._bfs, graph._spread, graph._components, routing._next_hops, routing._segment_lengths, routing._segment_nodes,
               routing._segment_links, workloads._segments, csr._bucket]


def first_screen(spec: str, mode: str) -> list[np.ndarray]:
    """What the dashboard's first screen computes: summary, routes, node tree, the tree DAG merged and not."""
    t = make_topology(spec)
    r = compute_routes(t, mode)
    merged, plain = (build_dag(t, "tree" if m else "plain", merge=m, chunks=1, routes=r) for m in (True, False))
    tree = r.node_tree(int(t.servers[0]))
    return [np.array(t.summary()["diameter"]), r.dist, r.next_hop, r.parent, r.seg_nodes, r.seg_len, r.seg_links,
            tree.used_edges, tree.pruned_edges, *(np.asarray(a) for d in (merged, plain)
                                                  for a in (d.src, d.dst, d.tree, d.phase, d.path.values, d.links.values))]


@pytest.mark.parametrize("mode", ["shortest", "balanced"])
@pytest.mark.parametrize("spec", SPECS)
def test_first_screen_runs_without_numba_and_matches_the_compiled_kernels(spec, mode, monkeypatch):
    monkeypatch.setattr(jit, "_loaded", True)  # as once numba is loaded: every kernel runs compiled
    compiled = first_screen(spec, mode)
    assert all(k._dispatcher is not None for k in INTERPRETED if k not in INNER)
    calls = {k.__name__: 0 for k in INTERPRETED}
    monkeypatch.setattr(jit, "_loaded", False)
    for k in INTERPRETED:
        def counted(*args, _k=k, _f=k.py_func):
            calls[_k.__name__] += 1
            return _f(*args)
        monkeypatch.setattr(k, "_dispatcher", None)
        monkeypatch.setattr(k, "py_func", counted)
    interpreted = first_screen(spec, mode)
    assert not jit._loaded, "a kernel on the first screen's path loaded numba"
    assert all(calls.values()), calls
    for a, b in zip(interpreted, compiled, strict=True):
        assert a.shape == b.shape and np.array_equal(a, b)


def test_large_inputs_and_plain_kernels_compile(monkeypatch):
    monkeypatch.setattr(jit, "_loaded", False)
    monkeypatch.setattr(graph._bfs, "_dispatcher", None)
    n = 400  # a path of 400 nodes, searched from every node: 160,000 distances > SMALL
    ptr = np.r_[0, np.cumsum([1] + [2] * (n - 2) + [1])].astype(np.int64)
    nbr = np.array([w for v in range(n) for w in (v - 1, v + 1) if 0 <= w < n], np.int64)
    out = graph._bfs(ptr, nbr, np.arange(n, dtype=np.int64), np.ones(n, np.bool_), np.full((n, n), n + 1, np.int64))
    assert graph._bfs._dispatcher is not None and jit._loaded
    assert out[0, n - 1] == n - 1 and out[n - 1, 0] == n - 1 and np.array_equal(out, out.T)


def test_unreachable_nodes_keep_n_plus_one():
    ptr = np.array([0, 1, 2, 2], np.int64)  # 0 - 1, and 2 alone
    out = graph._bfs.py_func(ptr, np.array([1, 0], np.int64), np.array([0, 2], np.int64), np.ones(3, np.bool_),
                             np.full((2, 3), 4, np.int64))
    assert out.tolist() == [[0, 1, 4], [4, 4, 0]]


def test_an_inner_kernel_runs_its_python_body_for_an_interpreted_caller_at_any_size(monkeypatch):
    """An `inner` kernel called from Python (its caller's body, run interpreted) runs as Python while numba is not
    loaded, even with more than SMALL elements; a kernel that is neither inner nor small loads numba."""
    from core import route_classes
    monkeypatch.setattr(jit, "_loaded", False)
    monkeypatch.setattr(route_classes.classes_of, "_dispatcher", None)
    keys = np.arange(2 * jit.SMALL, dtype=np.int64).reshape(-1, 2) % 7  # 7 classes among SMALL keys
    table, clinks, chash = route_classes.class_table(2)
    out = np.empty(len(keys), np.int32)
    n_cls, *_ = route_classes.classes_of(keys, out, table, clinks, chash, 0)
    assert not jit._loaded and route_classes.classes_of._dispatcher is None
    assert n_cls == 7 and out[:8].tolist() == [0, 1, 2, 3, 4, 5, 6, 0]


CALLEE = '''
from core.jit import kernel

@kernel(inner=True)
def plus(x):
    return x + {add}
'''
CALLER = '''
from core.jit import kernel
from {callee} import plus

@kernel
def twice(x):
    return plus(plus(x))
'''


def test_a_cached_kernel_goes_stale_when_a_kernel_it_calls_from_another_file_changes(tmp_path, monkeypatch):
    """numba stamps a cached kernel with its own file only: the stamp `Kernel` gives it also holds the files of the
    kernels it calls, so that a changed callee recompiles its callers instead of serving its old body."""
    import importlib
    import sys
    monkeypatch.syspath_prepend(str(tmp_path))
    name = f"jit_callee_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(CALLEE.format(add=1))
    (tmp_path / f"{name}_caller.py").write_text(CALLER.format(callee=name))

    def fresh():  # the modules imported anew, as by a new process
        for m in (name, f"{name}_caller"):
            sys.modules.pop(m, None)
        importlib.invalidate_caches()
        return importlib.import_module(f"{name}_caller").twice

    twice = fresh()
    assert twice(1) == 3
    assert jit.callee_files(twice.py_func) == [str(tmp_path / f"{name}.py")]
    assert jit.kernel_cached(fresh().dispatcher)  # cached, and fresh while nothing changed
    (tmp_path / f"{name}.py").write_text(CALLEE.format(add=10))  # an edit of the callee only
    again = fresh()
    assert not jit.kernel_cached(again.dispatcher)
    assert again(1) == 21
