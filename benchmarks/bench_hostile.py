"""Hostile inputs against the CLI: exit code, seconds, peak memory and the message of each.

Every case runs in a fresh interpreter under an address-space limit (RLIMIT_AS, default
3 GiB) and a wall-clock limit (default 60 s), so a case that would exhaust the machine ends
in MemoryError or a timeout instead. Prints one row per case, then the load average.

    python benchmarks/bench_hostile.py                    # every case
    python benchmarks/bench_hostile.py --only seed,chunks # cases whose name contains a word
    python benchmarks/bench_hostile.py --limit-gib 2 --timeout 30
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _schedule_doc(spec: str, method: str = "critical-path") -> dict:
    """A correct schedule document (computed in this process: the cases edit copies of it)."""
    sys.path.insert(0, str(ROOT))
    from core.schedule_io import schedule_to_dict
    from core.methods import run_method
    from core.schedule import ScheduleConfig
    from core.topology import make_topology
    return schedule_to_dict(run_method(method, make_topology(spec), ScheduleConfig()))


def _permuted(doc: dict, mapping: dict[int, int], order: list[int] | None = None) -> dict:
    """The same schedule with node ids renamed by `mapping` and nodes listed in `order`."""
    d = json.loads(json.dumps(doc))
    topo = d["topology"]
    for node in topo["nodes"]:
        node["id"] = mapping[node["id"]]
    if order is not None:
        topo["nodes"] = [topo["nodes"][i] for i in order]
    topo["links"] = [[mapping[u], mapping[v], *rest] for u, v, *rest in topo["links"]]
    for w in d["workloads"]:
        w["root"] = mapping[w["root"]]
        w["path"] = [mapping[x] for x in w["path"]]
    return d


def _checkpoint(tmp: Path, name: str, change: dict | None = None, policy: dict | None = None,
                raw_sidecar: str | None = None, weights: bytes | None = None) -> str:
    """A copy of the shipped bcube_n3_k1 checkpoint with its sidecar or weights altered."""
    src = ROOT / "checkpoints" / "bcube_n3_k1"
    side = json.loads(src.with_suffix(".json").read_text())
    side["policy"] = {**side["policy"], **(policy or {})}
    side.update(change or {})
    (tmp / f"{name}.json").write_text(raw_sidecar if raw_sidecar is not None else json.dumps(side))
    (tmp / f"{name}.safetensors").write_bytes(weights if weights is not None
                                              else src.with_suffix(".safetensors").read_bytes())
    return str(tmp / name)


def cases(tmp: Path) -> list[tuple[str, list[str]]]:
    """(name, argv) of every hostile input; files are written under `tmp`."""
    fig3 = _schedule_doc("example:fig3")
    bc = _schedule_doc("bcube:n=3,k=1")
    ring = _schedule_doc("example:fig3", "ring")
    out: list[tuple[str, list[str]]] = []

    def doc_case(name: str, d: dict | str) -> None:
        f = tmp / f"{name}.json"
        f.write_text(d if isinstance(d, str) else json.dumps(d))
        out.append((name, ["validate", str(f)]))

    def edited(base: dict, fn) -> dict:
        d = json.loads(json.dumps(base))
        fn(d)
        return d

    # --- spec strings and sizes
    for name, argv in [
        ("spec repeated key", ["topology", "bcube:n=3,k=1,k=2"]),
        ("spec k=1_0", ["topology", "bcube:n=3,k=1_0"]),
        ("spec unicode digit", ["topology", "bcube:n=3,k=\u0661"]),
        ("spec huge int", ["topology", "bcube:n=3,k=" + "9" * 5000]),
        ("topology dcell:n=2,k=30", ["topology", "dcell:n=2,k=30"]),
        ("topology bcube:n=3,k=1e9", ["topology", "bcube:n=3,k=1000000000"]),
        ("topology fattree:k=48", ["topology", "fattree:k=48"]),
        ("topology fattree:k=1000000", ["topology", "fattree:k=1000000"]),
        ("topology jellyfish huge ports", ["topology", "jellyfish:switches=10,ports=100000000000,switch_ports=4"]),
        ("schedule bcube:n=8,k=3", ["schedule", "bcube:n=8,k=3"]),
        ("schedule bcube:n=10,k=4", ["schedule", "bcube:n=10,k=4"]),
        ("schedule fattree:k=48", ["schedule", "fattree:k=48"]),
        ("schedule --chunks 1000000", ["schedule", "bcube:n=3,k=1", "--chunks", "1000000"]),
        ("schedule dcell:n=5,k=2 ps", ["schedule", "dcell:n=5,k=2", "--method", "ps"]),
        ("schedule bcube:n=8,k=2 (must run)", ["schedule", "bcube:n=8,k=2"]),
        ("compare bcube:n=8,k=3", ["compare", "bcube:n=8,k=3", "--methods", "critical-path"]),
    ]:
        out.append((name, argv))
    # a 30,000-server file: 300 switches with 100 servers each, switches in a ring
    nodes = [{"id": i, "kind": "server"} for i in range(30000)] + \
            [{"id": 30000 + j, "kind": "switch"} for j in range(300)]
    links = [[i, 30000 + i // 100] for i in range(30000)] + [[30000 + j, 30000 + (j + 1) % 300] for j in range(300)]
    (tmp / "big.json").write_text(json.dumps({"nodes": nodes, "links": links}))
    out.append(("schedule 30,000-server file", ["schedule", f"file:{tmp / 'big.json'}"]))
    out.append(("topology 30,000-server file", ["topology", f"file:{tmp / 'big.json'}"]))
    # --- schedule files
    n = len(fig3["topology"]["nodes"])
    doc_case("validate nodes out of id order", _permuted(fig3, {i: i for i in range(n)}, list(range(n))[::-1]))
    doc_case("validate ids shifted by 10", _permuted(fig3, {i: i + 10 for i in range(n)}))
    # nodes listed in reverse with their ids kept, paths and roots written as list positions: wrong
    doc_case("validate positions, not ids", edited(fig3, lambda d: (
        d["topology"]["nodes"].reverse(),
        [w.update(root=n - 1 - w["root"], path=[n - 1 - x for x in w["path"]]) for w in d["workloads"]])))
    doc_case("validate ring through root", ring)
    doc_case("validate chunks 1e9", edited(fig3, lambda d: d.update(chunks=1000000000)))
    doc_case("validate chunks 2**70", edited(fig3, lambda d: d.update(chunks=2 ** 70)))
    doc_case("validate id list", edited(fig3, lambda d: d["workloads"][0].update(id=[1])))
    doc_case("validate id dict", edited(fig3, lambda d: d["workloads"][0].update(id={"a": 1})))
    doc_case("validate id 2**70", edited(fig3, lambda d: d["workloads"][0].update(id=2 ** 70)))
    doc_case("validate root 2**70", edited(fig3, lambda d: d["workloads"][0].update(root=2 ** 70)))
    doc_case("validate path 2**70", edited(fig3, lambda d: d["workloads"][0].update(path=[0, 2 ** 70])))
    doc_case("validate round id 2**70", edited(fig3, lambda d: d["rounds"][0].append(2 ** 70)))
    doc_case("validate capacity 2**70", edited(fig3, lambda d: d["topology"]["links"][0].__setitem__(2, 2 ** 70)))
    doc_case("validate node id 2**70", edited(fig3, lambda d: d["topology"]["nodes"][0].update(id=2 ** 70)))
    doc_case("validate node id list", edited(fig3, lambda d: d["topology"]["nodes"][0].update(id=[0])))
    doc_case("validate 10**6 nodes", edited(fig3, lambda d: d["topology"]["nodes"].extend(
        {"id": 100 + i, "kind": "server"} for i in range(10 ** 6))))
    doc_case("validate 200,000 workloads bcube", edited(bc, lambda d: d["workloads"].extend(
        dict(d["workloads"][0], id=10 ** 6 + i) for i in range(200000))))
    doc_case("validate deep nesting", '{"format": "allreduce-schedule/1", "topology": ' + "[" * 100000 + "]" * 100000 + "}")
    doc_case("validate NaN stats", edited(fig3, lambda d: d["stats"].update(rounds=float("nan"))))
    doc_case("validate rounds not list", edited(fig3, lambda d: d["rounds"].__setitem__(0, {"a": 1})))
    # --- checkpoints
    ck = ["schedule", "bcube:n=3,k=1", "--method", "rl", "--checkpoint"]
    out.append(("checkpoint corrupted safetensors", ck + [_checkpoint(tmp, "corrupt", weights=b"\x00" * 64)]))
    out.append(("checkpoint huge header length", ck + [_checkpoint(tmp, "hdr", weights=(2 ** 62).to_bytes(8, "little") + b"{}")]))
    out.append(("checkpoint sidecar list", ck + [_checkpoint(tmp, "list", raw_sidecar="[1, 2]")]))
    out.append(("checkpoint sidecar string", ck + [_checkpoint(tmp, "str", raw_sidecar='"hello"')]))
    for name, pol in [("hidden '64'", {"hidden": "64"}), ("hidden null", {"hidden": None}),
                      ("hidden -1", {"hidden": -1}), ("hidden 30000", {"hidden": 30000}),
                      ("n_lower 0", {"n_lower": 0}), ("prior_scale 'x'", {"prior_scale": "x"}),
                      ("upper_bias 1e308", {"upper_bias": 1e308}), ("policy extra key", {"depth": 3})]:
        out.append((f"checkpoint {name}", ck + [_checkpoint(tmp, name.replace(" ", "_").replace("'", ""), policy=pol)]))
    out.append(("checkpoint policy list", ck + [_checkpoint(tmp, "pollist", change={"policy": [1]})]))
    # --- options
    for name, argv in [
        ("--seed 2**40 optimal", ["schedule", "bcube:n=3,k=1", "--method", "optimal", "--seed", "1099511627776",
                                  "--time-limit", "2"]),
        ("--seed -1 ps", ["schedule", "bcube:n=3,k=1", "--method", "ps", "--seed", "-1"]),
        ("--time-limit nan", ["schedule", "bcube:n=3,k=1", "--method", "optimal", "--time-limit", "nan"]),
        ("--time-limit inf", ["schedule", "bcube:n=3,k=1", "--method", "optimal", "--time-limit", "inf"]),
        ("--time-limit -1", ["schedule", "bcube:n=3,k=1", "--method", "optimal", "--time-limit", "-1"]),
        ("--samples 10**9", ["schedule", "bcube:n=3,k=1", "--method", "rl-sample", "--samples", "1000000000"]),
        ("train --budget -5", ["train", "bcube:n=3,k=1", "--budget", "-5", "--out", str(tmp / "t"), "--quiet"]),
        ("train --budget nan", ["train", "bcube:n=3,k=1", "--budget", "nan", "--out", str(tmp / "t"), "--quiet"]),
        ("train --iterations -1", ["train", "bcube:n=3,k=1", "--iterations", "-1", "--out", str(tmp / "t"), "--quiet"]),
        ("--out a directory", ["schedule", "bcube:n=3,k=1", "--out", str(tmp)]),
        ("--out missing folder", ["schedule", "bcube:n=3,k=1", "--out", str(tmp / "no" / "s.json")]),
        ("--out unwritable", ["schedule", "bcube:n=3,k=1", "--out", "/proc/s.json"]),
        ("--out under a file", ["schedule", "bcube:n=3,k=1", "--out", str(tmp / "big.json" / "s.json")]),
        ("compare --seeds 10**9", ["compare", "bcube:n=3,k=1", "--methods", "ps", "--seeds", "1000000000"]),
        ("validate --max-report -1", ["validate", str(tmp / "validate ring through root.json"), "--max-report", "-1"]),
    ]:
        out.append((name, argv))
    return out


def run_case(argv: list[str], limit_gib: float, timeout: float) -> dict:
    """Run the CLI once in a child under the limits: rc, wall, CPU, peak MiB, stderr lines."""
    limit = int(limit_gib * 2 ** 30)

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "core.cli", *argv], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, preexec_fn=limits, env=env, cwd=ROOT)
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    timer.cancel()
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    lines = [x for x in err.splitlines() if x.strip()]
    last = lines[-1] if lines else ""
    if rc < 0:
        last = f"killed (timeout {timeout:.0f} s)" if wall >= timeout else f"signal {-rc}"
    elif "Traceback" in err:
        last = "Traceback ... " + last
    return {"rc": rc, "wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "peak_mib": ru.ru_maxrss / 1024,
            "lines": len(lines), "message": last}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma-separated words; run cases whose name contains one")
    ap.add_argument("--limit-gib", type=float, default=3.0,
                    help="address-space limit of each CLI run, GiB (default %(default)s)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds before a CLI run counts as a hang (default %(default)s)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    a = ap.parse_args()
    words = [w for w in a.only.split(",") if w]
    with tempfile.TemporaryDirectory() as d:
        todo = [(n, argv) for n, argv in cases(Path(d)) if not words or any(w in n for w in words)]
        if a.markdown:
            print("| input | exit | wall s | CPU s | peak MiB | stderr lines | message |\n|---|---|---|---|---|---|---|")
        for name, argv in todo:
            r = run_case(argv, a.limit_gib, a.timeout)
            msg = r["message"][:150]
            if a.markdown:
                print(f"| {name} | {r['rc']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['peak_mib']:.0f} | "
                      f"{r['lines']} | {msg.replace('|', '/')} |", flush=True)
            else:
                print(f"{name:36} rc={r['rc']:4d} {r['wall']:6.1f}s wall {r['cpu']:6.1f}s CPU "
                      f"{r['peak_mib']:6.0f} MiB {r['lines']:3d} lines  {msg}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}; limits {a.limit_gib} GiB address space, {a.timeout:.0f} s")


if __name__ == "__main__":
    main()
