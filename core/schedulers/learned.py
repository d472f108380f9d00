"""The hierarchical RL scheduler as a method: `rl` (greedy decoding) and `rl-sample` (best of K).

This module is the one bridge between the method registry and `core.rl`; torch is imported
only when a learned method runs.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..schedule import (Openings, Plan, ScheduleConfig, opening_of, opening_rounds, openings, temperature_of,
                        temperatures)
from ..topology import Topology
from ..workloads import WorkloadDAG

TRACE_AUTO_LIMIT = 20_000
"""With `ScheduleConfig.trace` None, a trace is kept for DAGs up to this many workloads."""


def checkpoint_problem(topology: Topology, config: ScheduleConfig) -> str | None:
    """Why the learned methods cannot run on `topology` (no checkpoint, torch missing), or None."""
    try:
        import torch  # noqa: F401
    except ImportError as err:
        return f"the RL scheduler needs torch ({err})"
    if config.checkpoint is None and default_checkpoint(topology) is None:
        return (f"no RL checkpoint for {topology.spec}: train one with "
                f"`allreduce-lab train {topology.spec} --reward rounds` or pass --checkpoint")
    return None


def checkpoint_spec(topology: Topology) -> tuple[str, dict | None]:
    """The spec a learned method looks its checkpoint up by and judges its training against (`training_fit`), and
    the record of a spec the topology carries (`info["file_spec"]`, None when it carries none).

    A topology file carries the spec it was written from (`topology --format json`): when its structure is that
    spec's (`core.topology.carried`), the file is that topology, failed or slowed links being its links' state as
    ``--fail-links``/``--slow-links`` make it on the spec, and the spec is used, so a checkpoint trained on it runs
    as for the spec with those options; otherwise the file's own spec (``file:PATH``: the universal checkpoint) and
    the record says why not. The record's ``links`` names the links' state when it differs (else None)."""
    if topology.carried_spec is None:
        return topology.spec, None
    from ..topology.carried import carried_links, carried_structure
    why = carried_structure(topology)
    record = {"spec": topology.carried_spec, "used": why is None, "why_not": why,
              "links": carried_links(topology) if why is None else None}
    return (topology.carried_spec if why is None else topology.spec), record


def default_checkpoint(topology: Topology):
    """The checkpoint a learned method runs on `topology` when none is given (`find_checkpoint` of
    `checkpoint_spec`), or None."""
    from ..rl.checkpoint import find_checkpoint
    return find_checkpoint(checkpoint_spec(topology)[0])


def file_spec_text(info: dict) -> str | None:
    """What `info["file_spec"]` says, as the CLI prints it under the checkpoint line: the file's graph is the spec's
    it carries (the checkpoint chosen and judged as for that spec), or why not; None without one."""
    said = info.get("file_spec")
    if not isinstance(said, dict):
        return None
    if said.get("used"):
        if said.get("links"):  # a failed or slowed link: as --fail-links/--slow-links on the spec
            return (f"the file's graph is that of the spec it carries, {said.get('spec')}, with its links' state "
                    f"changed ({said['links']}): the checkpoint is chosen and judged as for that spec with "
                    f"--fail-links/--slow-links")
        return (f"the file's graph is that of the spec it carries, {said.get('spec')}: the checkpoint is chosen "
                f"and judged as for that spec")
    return (f"the file carries the spec {said.get('spec')}, but its graph is not that spec's ({said.get('why_not')}): "
            f"the checkpoint is chosen and judged as for any file")


KEPT_START = ("its training kept the starting weights (iteration 0): the heuristic prior alone, the network's "
              "residual is 0")
"""Said under a checkpoint whose training never beat its starting weights (`info["kept_start"]`): by the CLI's
`schedule` and by the dashboard's checkpoint notes."""


def checkpoint_label(info: dict) -> str:
    """A learned method's checkpoint as the CLI and `compare` name it: a shipped one by its name (``universal``),
    any other by its path (a stem of one's own named ``universal`` read as the shipped one, trial 12)."""
    return str(info.get("checkpoint_path") or info["checkpoint"])


def training_answer(info: dict) -> str | None:
    """Whether a learned method's checkpoint was trained on this topology, in words: "yes", "no", or
    "yes (topology only; trained with chunks 1, run with chunks 2)" when the DAG's options differ from
    training's (`rl.checkpoint.training_fit`); None when `info` does not say. The CLI, `compare` and the
    dashboard all print this."""
    if "trained_on_this_topology" not in info:
        return None
    if not info["trained_on_this_topology"]:
        return "no"
    was, now = info.get("trained_with"), info.get("run_with")
    if info.get("trained_on_this_configuration", True) or not isinstance(was, dict) or not isinstance(now, dict):
        return "yes"

    def words(key: str, value) -> str:
        if key == "merge":
            return f"merge {'on' if value else 'off'}"
        if key == "chunks" and isinstance(value, list):
            return "chunks " + " or ".join(map(str, value))
        return f"{key} {value}"

    differ = [k for k in ("merge", "chunks", "routing") if k in was and k in now
              and (now[k] not in was[k] if k == "chunks" and isinstance(was[k], list) else now[k] != was[k])]
    if not differ:
        return "yes"
    return (f"yes (topology only; trained with {' and '.join(words(k, was[k]) for k in differ)}, "
            f"run with {' and '.join(words(k, now[k]) for k in differ)})")


def trained_elsewhere(info: dict, spec: str) -> str:
    """What a checkpoint not trained on this run's topology was trained on, in the Policy debugger's words (`schedule`
    prints it under its checkpoint line, `compare` after its answer):
    ``trained on dcell:n=4,k=1, NOT on this one``; ``trained on bcube:n=3,k=1 with every link up, not with a failed
    link`` (`spec`, the run's before its failed links, or the spec its topology file carries, is one it was trained
    on); ``trained on 29 other topologies (bcube, dcell, ...), as meant: ...`` (the universal one)."""
    from ..topology.links import without_link_options as round_spec  # rl.checkpoint.round_spec's rule
    specs = [str(x) for x in info.get("trained_on") or []]
    said = info.get("file_spec") if isinstance(info.get("file_spec"), dict) else {}
    own = str(said.get("spec")) if said.get("used") else spec
    if any(round_spec(own) == round_spec(x) for x in specs):
        return f"trained on {own} with every link up, not with a failed link"
    if len(set(specs)) > 1:  # trained across topologies: meant for those it never saw
        families = sorted({x.split(":", 1)[0] for x in specs})
        return (f"trained on {len(set(specs))} other topologies ({', '.join(families)}), as meant: one trained "
                f"across topologies is the default on any other")
    return f"trained on {specs[0] if specs else 'another topology'}, NOT on this one"


def sample_opening(opening: Openings, k: int, greedy_rounds: int) -> dict:
    """`play`'s opening arguments for rl-sample's k-th sample: the (k mod n)-th opening of a split (the one opening
    otherwise), covering the first ceil(F x R) rounds, R the greedy rollout's `greedy_rounds` (docs/rl.md)."""
    o = opening_of(opening, k)
    return {"opening_rounds": opening_rounds(o, greedy_rounds), "opening_temperature": o[0] if o else None}


def learned(dag: WorkloadDAG, config: ScheduleConfig, progress: Callable[[float], None] | None = None,
            sample: bool = False) -> Plan:
    """Schedule with the trained agents; with `sample`, keep the best of the greedy and K sampled rollouts.

    `info` says which checkpoint ran and whether it was trained on this topology; the trace
    (docs/rl.md) explains the kept rollout step by step. When the rollout decoded large pools
    in the scaled mode (docs/rl.md section 5) and critical-path's schedule has fewer rounds,
    that schedule is returned instead and `info["fallback"]` says so (`policy_rounds` and
    `critical_path_rounds` keep both counts; no trace then).
    """
    from ..rl.checkpoint import (CheckpointError, checkpoint_name, checkpoint_stem, find_checkpoint, load_checkpoint,
                                 trained_on, training_fit)
    from ..rl.features import Observer
    from ..rl.policy import use_torch_threads
    from ..rl.rollout import play

    spec, file_spec = checkpoint_spec(dag.topology)
    found = config.checkpoint or find_checkpoint(spec)
    if found is None:
        raise CheckpointError(checkpoint_problem(dag.topology, config) or "no RL checkpoint")
    path = checkpoint_stem(found)
    use_torch_threads()
    policy, meta = load_checkpoint(path)
    obs = Observer(dag)
    want_trace = config.trace if config.trace is not None else dag.n <= TRACE_AUTO_LIMIT

    def rng_of(k: int) -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence([config.seed, k]))

    best, best_k = play(dag, policy, sample=False, observer=obs, trace=want_trace and not sample), -1
    tried = [best.n_rounds]
    if sample:
        for k in range(config.samples):
            ep = play(dag, policy, sample=True, rng=rng_of(k), observer=obs,
                      temperature=temperature_of(config.temperature, k),
                      **sample_opening(config.opening, k, tried[0]))
            tried.append(ep.n_rounds)
            if ep.n_rounds < best.n_rounds:
                best, best_k = ep, k
            if progress:
                progress((k + 1) / config.samples)
    trace = best.trace
    if want_trace and sample:  # replay the kept rollout (deterministic) with its explanation
        again = play(dag, policy, sample=best_k >= 0, rng=rng_of(best_k) if best_k >= 0 else None,
                     observer=obs, trace=True, temperature=temperature_of(config.temperature, max(best_k, 0)),
                     **sample_opening(config.opening, max(best_k, 0), tried[0]))
        if [r.tolist() for r in again.rounds] != [r.tolist() for r in best.rounds]:
            raise RuntimeError("the replayed rollout did not reproduce its schedule (a bug in rollout seeding)")
        trace = again.trace
    # failed links do not show in a spec: a degraded topology is not the one trained on
    fit = training_fit(meta, spec, merge=dag.merge, chunks=dag.chunks,
                       routing=dag.meta.get("routing", config.routing), intact=not bool(np.any(dag.topology.failed)))
    info = {"checkpoint": path.name, "checkpoint_path": checkpoint_name(path), "trained_on": trained_on(meta), **fit,
            "samples": config.samples if sample else 0, "kept_rollout": "greedy" if best_k < 0 else f"sample {best_k}",
            "rollout_rounds": tried, "scaled_rounds": best.scaled_rounds}
    if file_spec is not None:
        info["file_spec"] = file_spec
    if meta.get("kept_iteration") == 0 and not meta.get("init"):  # training never beat its starting weights
        info["kept_start"] = True
    if sample:  # one number, or the list the samples were spread over (sample k at the (k mod n)-th)
        ts = temperatures(config.temperature)
        info["temperature"] = ts[0] if len(ts) == 1 else list(ts)
        # the opening: T_open and F as given, and the rounds it covered (of the greedy rollout's); None: none;
        # a split: the list of them, sample k's the (k mod n)-th
        said = [None if o is None else {"temperature": o[0], "fraction": o[1],
                                        "rounds": opening_rounds(o, tried[0]), "of_rounds": tried[0]}
                for o in openings(config.opening)]
        info["opening"] = said[0] if len(said) == 1 else said
        info["kept_opening"] = None if best_k < 0 else opening_of(said, best_k)  # the kept sample's item (trial 17)
        # the temperature the kept sample drew at (after its opening), so that a reader need not work it out again
        info["kept_temperature"] = None if best_k < 0 else temperature_of(config.temperature, best_k)
    rounds = best.rounds
    if best.scaled_rounds:  # the policy decoded critical-path shortlists: keep critical-path if it is better
        from .listsched import critical_path
        cp = critical_path(dag, config)
        info.update(policy_rounds=best.n_rounds, critical_path_rounds=len(cp), fallback=None)
        if len(cp) < best.n_rounds:
            rounds, trace = cp, None  # the trace would explain the policy's rollout, not this schedule
            info["fallback"] = (f"critical-path: {len(cp)} rounds against the policy's {best.n_rounds} "
                                f"(scaled mode, docs/rl.md section 5); the schedule is critical-path's")
    if trace is not None:
        info["upper_agent"] = trace["summary"]["upper"]
    return Plan(rounds, info, trace)


def learned_sample(dag: WorkloadDAG, config: ScheduleConfig,
                   progress: Callable[[float], None] | None = None) -> Plan:
    """`learned` with sampling: the best of greedy decoding and `config.samples` sampled rollouts."""
    return learned(dag, config, progress, sample=True)
