"""What a result is, said plainly: what its gap is measured against, whether an optimum is proven,
which RL checkpoint ran and whether it was trained on this topology. Reads `Schedule.stats()` and
`Schedule.info`; decides nothing. No Streamlit here.
"""

from __future__ import annotations

from pathlib import Path

from core.methods import get_method


def dag_name(method: str) -> str:
    """The workload DAG a method schedules, in words."""
    return {"tree": "merged trees", "plain": "plain (unmerged) trees", "ring": "the ring"}.get(
        get_method(method).dag, get_method(method).dag)


def gap_note(method: str, stats: dict) -> str:
    """What a method's gap is measured against: its own DAG's lower bound, named."""
    b = stats["bounds"]
    return (f"gap vs the lower bound of its own DAG ({dag_name(method)}): {stats['lower_bound']} rounds "
            f"(link load {b['link_load']}, critical path {b['critical_path']})")


def optimal_note(info: dict, time_limit: float | None = None) -> str | None:
    """Proven optimal or not, with its bound, for a result carrying CP-SAT's facts; None otherwise."""
    if "proven_optimal" not in info:
        return None
    bound = info.get("proven_bound")
    if info["proven_optimal"]:
        return f"proven optimal (lower bound {bound} met)"
    limit = f"the {time_limit:g} s time limit" if time_limit else "its time limit"
    return (f"NOT proven optimal: CP-SAT stopped at {limit} ({info.get('status', '?')}); "
            f"the optimum lies between {bound} and this result")


def trained_here(info: dict, spec: str) -> bool | None:
    """Whether the RL checkpoint was trained on this topology (the scheduler's own flag when it sets one)."""
    if "trained_on_this_topology" in info:
        return bool(info["trained_on_this_topology"])
    if "trained_on" not in info:
        return None
    return info["trained_on"] == spec


def checkpoint_note(info: dict, spec: str) -> str | None:
    """Which RL checkpoint ran and whether it was trained on this topology; None for other methods."""
    if "checkpoint" not in info:
        return None
    name = Path(str(info["checkpoint"])).stem
    here = trained_here(info, spec)
    if here is None:
        return f"checkpoint {name}"
    if here:
        return f"checkpoint {name}, trained on this topology"
    return f"checkpoint {name}, trained on {info.get('trained_on') or 'another topology'}, NOT on this one"


def result_notes(method: str, info: dict, spec: str, time_limit: float | None = None) -> list[str]:
    """Every note that applies to one result (optimality, checkpoint)."""
    return [n for n in (optimal_note(info, time_limit), checkpoint_note(info, spec)) if n]
