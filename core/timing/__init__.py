"""Seconds, not only rounds: the α-β time model and the time replay of any schedule (docs/time.md).

- `model`: piece sizes, per-workload transfer times on given per-link bandwidths, algbw/busbw;
- `replay`: synchronous (barrier per round) and asynchronous replay of a schedule's rounds.

Lower bounds in seconds live with the round bounds in `core.bounds` (`time_bounds`).
"""

from ..units import DEFAULT_SIZE, format_seconds, format_size, parse_size
from .model import algbw, busbw, link_arrays, longest_chain, n_ranks, piece_bytes, transfer_times
from .replay import DEFAULT_SIZE_BYTES, MODES, ReplayPlan, Timing, replay, replay_modes

__all__ = ["DEFAULT_SIZE", "DEFAULT_SIZE_BYTES", "MODES", "ReplayPlan", "Timing", "algbw", "busbw", "format_seconds",
           "format_size", "link_arrays", "longest_chain", "n_ranks", "parse_size", "piece_bytes", "replay",
           "replay_modes", "transfer_times"]
