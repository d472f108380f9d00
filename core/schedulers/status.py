"""What `optimal`'s ``info["status"]`` says, without importing OR-Tools (the CLI and the dashboard print it)."""

from __future__ import annotations

BOUND_MET = "BOUND_MET_BY_WARM_START"
"""``info["status"]`` when the warm start (critical-path's list schedule, CP-SAT's hint) already meets the lower
bound: proven optimal without running CP-SAT. It was ``HEURISTIC`` before, which read as a contradiction beside
``proven_optimal: true``. Otherwise the status is CP-SAT's own (OPTIMAL, FEASIBLE, UNKNOWN...)."""

BOUND_MET_WORDS = "critical-path's schedule, CP-SAT's warm start, meets the lower bound: CP-SAT not needed"
"""What `BOUND_MET` means, as the CLI prints it beside the status (the dashboard's label says it in its own words)."""


def status_text(info: dict) -> str:
    """``info["status"]`` as the CLI prints it: CP-SAT's status with what it means where it stopped unproven
    (`STOPPED_WORDS`) or was not needed (`BOUND_MET`); another status (OPTIMAL...) as is."""
    status = str(info.get("status", "?"))
    if status == BOUND_MET:
        return f"{status} ({BOUND_MET_WORDS})"
    if status in STOPPED_WORDS:
        return f"{status} (CP-SAT {STOPPED_WORDS[status]})"
    return status


STOPPED_WORDS = {
    "UNKNOWN": "found no schedule of its own within the limit, so the result is its starting schedule, "
               "critical-path's",
    "FEASIBLE": "found a schedule but did not prove it the shortest",
}
"""What CP-SAT had when it stopped at its time limit without proving its rounds optimal, by its status: UNKNOWN returns
the hint (`optimal.solve_optimal`), which a bare "(UNKNOWN)" left unsaid (trial 22)."""


def stopped_words(status: object) -> str:
    """What CP-SAT had when it stopped unproven (`STOPPED_WORDS`), a verb phrase (``found no schedule of its own ...
    (status UNKNOWN)``); another status as is (``stopped with status MODEL_INVALID``)."""
    words = STOPPED_WORDS.get(str(status))
    return f"{words} (status {status})" if words else f"stopped with status {status}"
