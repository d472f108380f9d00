"""Trial 32, a teacher on BCube(2,1): at 1 KB the report said per-hop latency sets the time, at 1 GB it said nothing
of what does, and busbw read 18.75 GB/s under "links 100 Gbit/s" (12.5 GB/s) without a word."""

from __future__ import annotations

import contextlib
import io

from core import cli
from core.seconds import size_note_parts


def report(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["schedule", "bcube:n=2,k=1", *argv]) == 0
    return out.getvalue()


BUSBW = ("    busbw is above one link's bandwidth: it is algbw x 2(n-1)/n, which counts one link per server\n"
         "      (nccl-tests), and a server here sends on several links at once (docs/time.md)\n")


def test_each_size_says_what_sets_its_time_and_why_busbw_tops_a_link():
    # by hand: a chain of 4 workloads, each over 2 links of 1 µs: latency bound 8 µs; a server sends 2(S-1)/S x M =
    # 1.5 M bytes over its 2 links of 12.5 GB/s: bandwidth bound 60 ns at 1 KB, 60 µs at 1 MB, 60 ms at 1 GB
    big = report("--size", "1GB")
    assert big.endswith("    bandwidth-dominated: latency bound 8.00 µs is 0.013% of the bandwidth bound 60.0 ms:\n"
                        "      at this size bytes over the links, not per-hop latency, set the time\n" + BUSBW), big
    assert "busbw  18.75 GB/s" in big  # 12.5 GB/s x 2(4-1)/4, above a link's 12.5 GB/s
    mid = report("--size", "1MB")
    assert mid.endswith("    latency and bandwidth both count: latency bound 8.00 µs is 13% of the bandwidth bound "
                        "60.0 µs:\n      at this size neither alone sets the time\n" + BUSBW), mid
    small = report("--size", "1KB")
    assert "latency-dominated: latency bound 8.00 µs > bandwidth bound 60.0 ns:" in small
    assert "bandwidth-dominated" not in small and "busbw is above" not in small  # 185.64 MB/s: under a link


def test_the_size_note_is_none_where_latency_dominates_or_there_are_no_bytes():
    bounds = {"latency": 8e-6, "bandwidth": 6e-8}
    assert size_note_parts({"bounds": bounds}) is None
    assert size_note_parts({"bounds": {"latency": 8e-6, "bandwidth": 0.0}}) is None
    assert size_note_parts({"bounds": {"latency": 1e-6, "bandwidth": 1e-5}})[0].startswith("bandwidth-dominated")
    assert size_note_parts({"bounds": {"latency": 1e-6, "bandwidth": 1e-6}})[0].startswith("latency and bandwidth")


def test_the_size_line_says_each_kind_once_with_each_bound_once():
    """Trial 33: the player's caption wrote the whole note once per method; one clause per kind now, its bounds with
    their owners where they differ (as latency_line)."""
    from core.seconds import size_line
    bw = {"latency": 8e-6, "bandwidth": 0.06}
    line = size_line([("PS", {"bounds": bw}), ("Ring", {"bounds": dict(bw, latency=1.2e-5)}),
                      ("RL", {"bounds": dict(bw, latency=0.01)}), ("tiny", {"bounds": dict(bw, latency=1.0)})])
    assert line == ("PS, Ring: bandwidth-dominated: latency bound 8.00 µs (PS) to 12.0 µs (Ring) against the "
                    "bandwidth bound 60.0 ms: at this size bytes over the links, not per-hop latency, set the time; "
                    "RL: latency and bandwidth both count: latency bound 10.0 ms against the bandwidth bound 60.0 ms: "
                    "at this size neither alone sets the time"), line
    assert size_line([("tiny", {"bounds": dict(bw, latency=1.0)})]) is None


def test_rl_samples_explain_says_which_rollout_its_rows_follow_and_whose_odds_p_is(capsys):
    """Trial 33: `--method rl-sample --explain` printed "temperature: 0.2" above a legend saying p is the softmax "at
    temperature 1", and did not say which rollout the rows follow (the kept one: the greedy one here)."""
    from core.cli.common import unwrapped
    assert cli.main(["schedule", "example:fig3", "--method", "rl-sample", "--explain", "2"]) == 0
    out = "\n".join(unwrapped(capsys.readouterr().out))
    assert "  kept: the greedy rollout;" in out
    assert "explain: the first 2 steps of the lower agent in the kept rollout (the greedy one), a step a row" in out
    assert "at temperature 1 over every candidate scored (the scores' own odds, whatever temperature the samples " \
           "drew at); margin" in out
    assert cli.main(["schedule", "example:fig3", "--method", "rl", "--explain", "2"]) == 0
    out = "\n".join(unwrapped(capsys.readouterr().out))
    assert "lower agent, a step a row" in out and "kept rollout" not in out and "samples drew" not in out
