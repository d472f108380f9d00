"""Policy debugger: what the two RL agents saw and chose, round by round, and where RL leaves critical-path.

Built on an RL schedule's ``trace``: per round the upper agent's flow-tree probabilities
(``tree_probs``), choices (``trees_selected``) and features, and the lower agent's steps
(``steps``: candidates, scores, chosen, and in a real trace each candidate's score split into the
prior's terms and the network's residual, ties and honest counts). The explanation tables come
from `core.rl.explain` (docs/rl.md §6); this screen only displays them.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
import streamlit as st

from core.diff import round_differences
from core.methods import MethodUnavailable
from core.rl import explain
from core.rl.features import LOWER_MEANINGS, UPPER_MEANINGS
from core.schedule import Schedule, ScheduleConfig

from .. import charts, controls, data, figures, labels, tables
from ..axisnames import naming, unnamed_note
from ..controls import forget, method_title, persistent, remembered, with_progress
from ..sources import Source, file_stem

BASELINE = "critical-path"
AXIS_PX = {"trees": 350, "round": 245, "step": 740}
"""The x axis's length (px) of the flow-tree heatmap (left), this round's bars (right) and a step's candidate bars
(full width) in a 1280-px window, a little under what chromium drew (361, 254 and 763 px): each names as many of
its categories as fit it (`axisnames.naming`); a wider window only gives the names more room."""
DECIMALS = "%.4f"
"""How every score, term, probability and feature value is shown: the trace's 4 decimals with trailing zeros kept, as
the CLI's --explain writes them (Streamlit's default dropped them: 16.2040 read 16.204 under "rounded to 4 decimals",
trial 12)."""


SAME_AT_FOUR = "Two scores that read alike at 4 decimals may still differ beyond them: only equal scores are tied."
"""Said under the step's score table: the rounding hides differences the choice still saw (trial 22 read #114 and
#128, both shown 5.6509 and not tied, as a tie)."""


def four(label: str | None = None, help: str | None = None) -> st.column_config.NumberColumn:
    """A number column shown with 4 decimals."""
    return st.column_config.NumberColumn(label, help=help, format=DECIMALS)


def render() -> None:
    """The Policy debugger screen."""
    st.title("Policy debugger")
    st.caption("The upper agent picks flow-trees each round; the lower agent then picks workloads one step at a "
               "time from those trees. Compare its rounds with critical-path's on the same workload DAG.")
    source = controls.topology_picker()
    method, config = options(source)
    rl, cp = load(source, method, config)
    if rl is None or cp is None:
        return
    if hint := controls.routing_hint(source, config):
        st.info(hint)
    only_rl, only_cp = overview(rl, cp, source)
    r = round_picker(rl.n_rounds)
    trace = trace_of(rl)
    stem = file_stem(source)
    if trace:
        st.subheader("Upper agent: flow-tree selection")
        upper_agent(rl, trace, r, stem)
        st.subheader("Lower agent: workload scheduling")
        lower_agent(rl, cp, trace, r, stem)
    st.subheader("Where RL differs from critical-path")
    differences(rl, cp, only_rl, only_cp, r, stem)


def options(source: Source) -> tuple[str, ScheduleConfig]:
    """Sidebar: which RL method, its checkpoint, its seed, (for rl-sample) the number of sampled rollouts, and the
    routing the trees are built with (the player's and Compare's option: one value)."""
    st.sidebar.subheader("RL schedule")
    method = persistent(st.sidebar.radio, "debug.method", "rl", "Method", ["rl", "rl-sample"],
                        format_func=method_title)
    checkpoint = checkpoint_picker(source)
    seed = persistent(st.sidebar.number_input, "debug.seed", 0, "Seed", min_value=0, max_value=10_000, step=1)
    samples = 16
    if method == "rl-sample":
        samples = int(persistent(st.sidebar.number_input, "debug.samples", 16, "Sampled rollouts", min_value=1,
                                 max_value=256, step=1))
    routing = controls.routing_option()
    return method, ScheduleConfig(seed=int(seed), samples=samples, checkpoint=checkpoint, routing=routing)


DEFAULT_CHECKPOINT = "default for this topology"
DEFAULT_MARK = " (default)"
"""The default checkpoint's option reads its name first, then this: "default for this topology (dcell_n6_k1)" was
cut to "default for this topology (dcell_n" in the 1280-px sidebar (trial 21)."""
DEFAULT_CHOICE = ""
"""The picker's value for the default checkpoint: a widget value of None is Streamlit's "nothing picked" (the box read
"Choose an option" while the default ran, trial 17), and no checkpoint file is named "" (its name is a file stem)."""


def checkpoint_picker(source: Source) -> str | None:
    """Sidebar: the RL checkpoint, by the name the CLI's --checkpoint takes (None: core picks, as the CLI does without
    --checkpoint: the one trained on this topology, else universal). The checkpoints are the folder's
    (`core.rl.checkpoint.checkpoint_names`): universal, the per-topology ones, and any trained into it."""
    names = list(data.rl_checkpoints())
    default = data.default_checkpoint(source)
    kept = remembered("debug.checkpoint", DEFAULT_CHOICE)
    # the default is the first option; its own name again below read as a second checkpoint (trial 26), so it is
    # listed only when picked by name (kept, on another topology, where it is not the default)
    choices = [DEFAULT_CHOICE, *[n for n in names if n != default or n == kept]]
    if kept not in choices:  # gone from the folder since it was picked
        forget("debug.checkpoint", DEFAULT_CHOICE)

    def title(name: str) -> str:
        if name == DEFAULT_CHOICE:
            return default + DEFAULT_MARK if default else DEFAULT_CHECKPOINT
        return name + (" (all families)" if name == "universal" else "")

    picked = persistent(st.sidebar.selectbox, "debug.checkpoint", DEFAULT_CHOICE, "Checkpoint", choices,
                        format_func=title,
                        help="The RL checkpoint the schedule runs with, as the CLI's `--checkpoint` takes it: the "
                             "default (marked so) is the one trained on this topology, else `universal`. The checkpoints are "
                             "those in the checkpoints folder (a checkpoint trained into it shows up here). The line "
                             "under the numbers says which ran and whether it was trained on this topology.")
    return picked or None


def load(source: Source, method: str, config: ScheduleConfig) -> tuple[Schedule | None, Schedule | None]:
    """The RL schedule and the critical-path schedule of the same DAG; (None, None) when RL cannot run."""
    if not controls.can_schedule(None, source):
        return None, None
    try:
        if method == "rl-sample":
            rl = with_progress(f"Sampling {config.samples} RL rollouts on {source.name}",
                               partial(_schedule, source, method, config), 0.5 * config.samples)
        else:
            rl = data.schedule(source, method, config)
    except (MethodUnavailable, ImportError, checkpoint_error()) as err:
        st.warning(f"{method_title(method)} not available: {err}")
        if config.checkpoint is not None and isinstance(err, checkpoint_error()):
            st.caption("Pick another checkpoint in the sidebar.")
            return None, None
        st.caption("This page shows, for an RL schedule, the upper agent's flow-tree probabilities and choices "
                   "per round, the lower agent's candidate scores per step, and where the schedule differs from "
                   "critical-path. It works as soon as core's RL scheduler is installed.")
        return None, None
    return rl, data.schedule(source, BASELINE, replace(config, checkpoint=None))


def checkpoint_error() -> type[Exception]:
    """What loading an unreadable checkpoint raises (core.rl.checkpoint.CheckpointError; without torch, nothing new)."""
    try:
        from core.rl.checkpoint import CheckpointError
    except ImportError:
        return MethodUnavailable
    return CheckpointError


def _schedule(source: Source, method: str, config: ScheduleConfig, progress) -> Schedule:
    return data.schedule(source, method, config, progress)


def overview(rl: Schedule, cp: Schedule, source: Source) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Metrics (RL rounds, critical-path rounds, bound, differing rounds); returns the per-round differences."""
    only_rl, only_cp = round_differences(rl.rounds, cp.rounds)
    differ = sum(1 for a, b in zip(only_rl, only_cp) if len(a) or len(b))
    s = rl.stats()
    cols = st.columns(4)
    cols[0].metric(method_title(rl.method), rl.n_rounds, delta=f"{rl.n_rounds - cp.n_rounds:+d} vs critical-path",
                   delta_color="inverse", help="rounds; the delta is RL minus critical-path (negative: RL is shorter)")
    cols[1].metric("Critical-path", cp.n_rounds, help="rounds")
    cols[2].metric("Lower bound", s["lower_bound"])
    cols[3].metric("Rounds that differ", differ, help="rounds whose workload set is not critical-path's")
    # trial 26: four bare numbers, and "Rounds that differ 18" beside RL's 12 read as a contradiction
    st.caption(f"All four in rounds. Rounds that differ counts the rounds 1 to {max(rl.n_rounds, cp.n_rounds)} "
               "(the longer schedule's) in which the two send different workloads; a round only the longer "
               "schedule has counts too, so the count can exceed the shorter one's rounds.")
    note = labels.checkpoint_note(rl.info, source.spec)
    if note:
        st.caption(f"{method_title(rl.method)}: {note}.")
    sampled = labels.sampling_note(rl.info)
    if sampled:
        kept = labels.kept_note(rl.info)
        st.caption(f"{method_title(rl.method)}: {sampled}." + (f" Here: {kept}." if kept else ""))
    return only_rl, only_cp


def trace_of(rl: Schedule) -> dict | None:
    """The RL schedule's trace, or None (with a note) when it has none."""
    trace = rl.trace
    if not trace:
        st.info("This RL schedule carries no trace (Schedule.trace); only the differences are shown.")
        return None
    return trace


def round_picker(n_rounds: int) -> int:
    """A slider over the RL schedule's rounds (1-based)."""
    forget("debug.round", min(max(1, int(remembered("debug.round", 1))), max(1, n_rounds)))
    return int(persistent(st.slider, "debug.round", 1, "Round", 1, max(2, n_rounds), disabled=n_rounds < 2))


def tree_labels(rl: Schedule) -> list[str]:
    """One name per flow-tree: its root (and chunk when there are several)."""
    d = rl.dag
    lab = d.topology.labels
    return [lab[int(root)] + (f"/{int(c)}" if d.chunks > 1 else "")
            for root, c in zip(d.tree_root.tolist(), d.tree_chunk.tolist())]


def upper_agent(rl: Schedule, trace: dict, r: int, stem: str) -> None:
    """Flow-tree selection: probabilities over all rounds (x = chosen), and round r's bars."""
    probs = np.asarray(trace["tree_probs"], dtype=float)
    names = tree_labels(rl)
    left, right = st.columns([3, 2])
    on_left, on_right = naming(len(names), AXIS_PX["trees"]), naming(len(names), AXIS_PX["round"])
    with left:
        charts.show(figures.tree_probs_figure(probs, trace["trees_selected"], names, current_round=r, names=on_left),
                    key="debug-tree-probs", name=f"{stem}-{rl.method}-tree-probabilities")
    with right:
        chosen = set(trace["trees_selected"][r - 1]) if r <= len(trace["trees_selected"]) else set()
        row = probs[r - 1] if r <= len(probs) else np.zeros(len(names))
        charts.show(figures.bars_figure(names, row, [t in chosen for t in range(len(names))],
                                        title=f"Round {r}: {len(chosen)} of {len(names)} trees selected",
                                        value_name="probability", names=on_right),
                    key="debug-tree-round", name=f"{stem}-{rl.method}-round{r}-trees")
    unnamed = [note for note in (unnamed_note(on_left, "flow-tree", "under the heatmap", hover=False),
                                 unnamed_note(on_right, "flow-tree", "under the bars", hover=False)) if note]
    st.caption("Left: the upper agent's probability of selecting each flow-tree (columns, by root) in each round "
               "(rows), purple scale; red ×: the trees it selected; red box: this round. Right: this round's "
               "probabilities, selected trees in red."
               + (f" No room to name all {len(names)} trees: {'; '.join(unnamed)}; hover for the rest." if unnamed else ""))
    if "tree_features" not in trace:  # a trace without explanations (docs/rl.md §6)
        return
    everything = trace["summary"]["upper"] if "summary" in trace else None
    if everything:
        st.info(everything)
    if r <= len(trace["tree_features"]):
        ready, chosen = trace["trees_ready"][r - 1], trace["trees_selected"][r - 1]
        st.caption(f"Round {r}: {len(ready)} flow-trees had ready work; the upper agent selected {len(chosen)}"
                   + (" — every ready tree." if trace["all_ready_selected"][r - 1] else "."))
        with st.expander(f"Flow-tree features and probabilities, round {r}"):
            upper_tables(explain.upper_table(trace, r - 1, names))


def upper_tables(rows: list[dict]) -> None:
    """The flow-trees' features and probabilities, one row per tree, in as many tables as fit a 1280-px window (each
    starting with the tree's name): in one table the 13 columns scrolled sideways (~1270 px of content in ~784 px).
    A feature's column is headed by its name alone (the full name on hover) unless a column of the table has it."""
    names = {c: c.removeprefix("value: ") for c in rows[0]}
    headers = {c: (h if c.startswith("value: ") and h not in rows[0] else c) for c, h in names.items()}
    config = {c: four(headers[c], help=f"{c}: the upper agent's input feature of this tree"
                      + (f": {UPPER_MEANINGS[names[c]]}" if names[c] in UPPER_MEANINGS else ""))
              for c in rows[0] if c.startswith("value: ")}
    config["probability"] = four()
    for group in tables.split_columns(rows, ["tree"], headers):
        st.dataframe([{c: row[c] for c in group} for row in rows], hide_index=True, width="stretch",
                     column_config={c: config[c] for c in group if c in config})


def lower_agent(rl: Schedule, cp: Schedule, trace: dict, r: int, stem: str) -> None:
    """Workload scheduling in round r: candidate scores of a step, and every step in a table."""
    steps = trace["steps"][r - 1] if r <= len(trace["steps"]) else []
    if not steps:
        st.caption(f"Round {r}: the lower agent took no step.")
        return
    cp_round = set(cp.rounds[r - 1].tolist()) if r <= cp.n_rounds else set()
    d = rl.dag
    forget("debug.step", min(max(1, int(remembered("debug.step", 1))), len(steps)))
    k = int(persistent(st.slider, "debug.step", 1, "Step within the round", 1, max(2, len(steps)),
                       disabled=len(steps) < 2))
    step = steps[k - 1]
    cands = [int(w) for w in step["candidates"]]
    on_axis = naming(len(cands), AXIS_PX["step"])
    charts.show(figures.bars_figure([f"#{w}" for w in cands], step["scores"], [w == step["chosen"] for w in cands],
                                    title=f"Step {k}: chose {d.describe(step['chosen'])}",
                                    value_name="score", marked=[w not in cp_round for w in cands], names=on_axis,
                                    zoom=True),
                key="debug-step-scores", name=f"{stem}-{rl.method}-round{r}-step{k}")
    explained = "n_valid" in step  # a real trace; a stand-in lists every candidate and nothing more
    count = explain.step_note(trace, r - 1, k - 1) if explained else f"{len(cands)} candidates scored."
    unnamed = unnamed_note(on_axis, "candidate", "under the bars")
    zoomed = figures.zoomed_range(step["scores"])
    if zoomed is not None:
        spread = max(step["scores"]) - min(step["scores"])
        count = (f"The score axis starts at {zoomed[0]:.4f}, not 0: the scores shown differ by "
                 + (f"at most {spread:.4f}" if spread else "nothing (a tie)") + f". {count}")
    st.caption(f"Red: the workload chosen. Black outline: not sent by critical-path in this round. {count}"
               + (f" No room to name all {len(cands)} candidates: {unnamed}." if unnamed else ""))
    if explained:
        score_split(trace, r, k, d)
    sampled = trace.get("decoding") == "sampled"
    rows = []
    for i, s in enumerate(steps, start=1):
        scores = dict(zip((int(w) for w in s["candidates"]), (float(x) for x in s["scores"])))
        p = dict(zip((int(w) for w in s["candidates"]), explain.probabilities(s))) if scores else {}
        rows.append({"step": i, "chosen": d.describe(s["chosen"]), "score": scores.get(int(s["chosen"])),
                     "p": p.get(int(s["chosen"])), "margin": margin_text(explain.margin(s) if scores else None),
                     "candidates": s.get("n_valid", len(scores)), "shown": len(scores),
                     # the others tied with the top score: 0 without a tie ("1" read as a tie: trial 28)
                     "others tied at the top": s.get("n_tied", 1) - 1,
                     # greedy: the chosen score is the best; sampled: a pick may be lower (trial 12)
                     **({"best score": explain.best_score(s) if scores else None} if sampled else {}),
                     "critical-path sends it too": int(s["chosen"]) in cp_round})
    st.markdown("**Every step of this round**")
    st.dataframe(rows, hide_index=True, width="stretch", column_config=step_columns(rows))
    lone = any(row["margin"] == NO_MARGIN for row in rows)
    st.caption(probability_note(rl.info, explained) + (f" {NO_MARGIN_NOTE}" if lone else "") + " " + STEP_HEADINGS)


def probability_note(info: dict, explained: bool) -> str:
    """What the p and margin columns are: the policy's own distribution (softmax at temperature 1), what greedy `rl`
    and rl-sample do with it, and over which candidates it is taken."""
    over = ("over every candidate scored at that step, shown or not" if explained
            else "over the candidates listed at that step")
    note = (f"p: the policy's probability of picking the workload, the softmax of the scores at temperature 1 {over}; "
            "training samples from it, and greedy Hierarchical RL takes the highest (the best score), so p says how "
            "sure the pick was. margin: the chosen one's score minus the runner-up's (the best other candidate), the log "
            "of how many times likelier the pick was: 0.0003 is a near coin toss between the two, 1 makes it 2.7 times "
            "as likely; negative where a sampled pick was not the best.")
    if info.get("kept_rollout", "greedy") != "greedy" and info.get("kept_temperature") is not None:
        opening = info.get("kept_opening")
        note += (f" The rollout shown, the kept sample, drew each pick from the softmax of "
                 f"score / T at T = {info['kept_temperature']:g}"
                 + (f" (T = {opening['temperature']:g} in its first {opening['rounds']} rounds)" if opening else "")
                 + ": a T below 1 makes the likeliest pick likelier than p says, a T above 1 less likely.")
    return note


STEP_COLUMNS_PX = {"step": 44, "score": 64, "p": 56, "margin": 64, "candidates": 58, "shown": 52,
                   "others tied at the top": 44, "best score": 64, "critical-path sends it too": 52}
"""Widths (px) of the step table's columns other than "chosen", which takes the rest (`STEP_TABLE_PX` in all): in a
1280-px window the table is ~818 px wide and Streamlit's own widths cut "chosen" to "(tree s5.0" (trial 21). Long
headings are shortened (the full one on hover): with rl-sample's "best score" on DCell(2,2) the columns came to 871 px
and "in crit.-path" was cut to "in crit" (trial 30). "best score" only for a sampled rollout: under greedy decoding it
is the chosen score."""
STEP_TABLE_PX = 800
"""The widths of the step table's columns add up to at most this: the table is ~818 px wide in a 1280-px window."""
CHAR_PX = 7.2
"""Room (px) per character of "chosen", above the ~5.8 px the dataframe's 14-px Source Sans takes on average."""


NO_MARGIN = "—"
"""The margin of a step with one candidate: there is no runner-up (Streamlit showed the missing number as "None",
trial 30)."""
NO_MARGIN_NOTE = f"A margin of {NO_MARGIN}: the step had one candidate, so no runner-up."


def margin_text(margin: float | None) -> str:
    """A step's margin as the table shows it: 4 decimals, or `NO_MARGIN` where the chosen one was the only
    candidate (a text column: a number column shows a missing value as "None")."""
    return NO_MARGIN if margin is None else DECIMALS % margin


STEP_HEADINGS = ("Short headings, the full one on hover: scored, the candidates scored; ties, the others tied at the "
                 "top; in CP, whether critical-path sends the chosen workload in this round too.")
"""Said under the step table: its shortened headings in full (trial 30 read "in crit" where the column was cut)."""


P_HELP = "the policy's probability of this pick: the softmax of the step's scores at temperature 1 (see below)"


def step_columns(rows: list[dict]) -> dict:
    """The step table's column configuration: "chosen" as wide as its longest entry (`CHAR_PX` a character) within
    what the others leave of `STEP_TABLE_PX`, the others narrow, numbers with 4 decimals."""
    longest = max((len(str(row["chosen"])) for row in rows), default=10)
    others = sum(STEP_COLUMNS_PX[c] for c in (rows[0] if rows else {}) if c in STEP_COLUMNS_PX)
    number = st.column_config.NumberColumn
    return {"step": number(width=STEP_COLUMNS_PX["step"]),
            "chosen": st.column_config.TextColumn(width=min(int(CHAR_PX * longest) + 20, STEP_TABLE_PX - others)),
            "score": number(format=DECIMALS, width=STEP_COLUMNS_PX["score"]),
            "p": number(format=DECIMALS, width=STEP_COLUMNS_PX["p"], help=P_HELP),
            "margin": st.column_config.TextColumn(
                width=STEP_COLUMNS_PX["margin"], alignment="right",
                help="the chosen workload's score minus the runner-up's (the best other candidate): p(chosen) / "
                     f"p(runner-up) = exp(margin); {NO_MARGIN} where the chosen one was the only candidate (no "
                     "runner-up)"),
            "candidates": number("scored", width=STEP_COLUMNS_PX["candidates"],
                                 help="candidates: workloads the lower agent scored at this step (all valid ones), "
                                      "as the CLI's --explain calls them"),
            "shown": number(width=STEP_COLUMNS_PX["shown"], help="kept in the trace: the best, and the chosen one "
                                                                 "always"),
            "others tied at the top": number("ties", width=STEP_COLUMNS_PX["others tied at the top"],
                                             help="others tied at the top: candidates other than the top one with "
                                                  "its score (0: no tie; the tie rule picked among them)"),
            "best score": number("best", format=DECIMALS, width=STEP_COLUMNS_PX["best score"],
                                 help="best score: the highest of the candidates scored"),
            "critical-path sends it too": st.column_config.CheckboxColumn(
                "in CP", width=STEP_COLUMNS_PX["critical-path sends it too"],
                help="critical-path sends it too: the chosen workload is in critical-path's same round")}


def score_split(trace: dict, r: int, k: int, d) -> None:
    """Each shown candidate's score as the sum of its terms (the prior's, one per feature, and the network's
    residual), then its feature values; terms that are 0 for every shown candidate are named, not drawn."""
    rows = explain.step_table(trace, r - 1, k - 1, d.describe)
    terms = [c for c in rows[0] if c.startswith("term: ")]
    zero = explain.zero_terms(rows)
    st.markdown(f"**Why step {k} chose it: each candidate's score split into its terms**")
    shown = [c for c in terms if c not in zero]
    st.dataframe([{c: v for c, v in row.items() if not c.startswith("value: ") and c not in zero} for row in rows],
                 hide_index=True, width="stretch",
                 column_config={"score": four(), "p": four(help=P_HELP.replace("this pick", "picking it")),
                                **term_columns(shown)})
    st.caption("score = the sum of the terms (rounded to 4 decimals): one term per feature from the heuristic prior "
               "(the skip path), `bias`, and `network`, the residual the network learned (docs/rl.md §6). "
               + (f"Zero for every candidate shown: {', '.join(c.removeprefix('term: ') for c in zero)}. " if zero
                  else "")
               + f"Ties are broken by {trace.get('tie_rule', 'lowest workload id')}. " + SAME_AT_FOUR)
    with st.expander(f"Feature values of the candidates, step {k}"):
        feature_values(explain.step_table(trace, r - 1, k - 1), d.describe)


def feature_values(rows: list[dict], describe) -> None:
    """The shown candidates' feature values on their side: one row per feature, one column per candidate (``#id``,
    the chosen one marked, its description on hover), split into more tables only if they would not fit a 1280-px
    window. With a column per feature (17) the table scrolled sideways (~2170 px of content in ~784 px)."""
    features = [c for c in rows[0] if c.startswith("value: ")]
    heads = [f"#{row['workload']}" + (" chosen" if row["chosen"] else "") for row in rows]
    table = tables.transpose(rows, heads, features, "feature")
    for line in table:
        line["feature"] = line["feature"].removeprefix("value: ")
    help_of = {h: describe(row["workload"]) + (" (chosen)" if row["chosen"] else "") for h, row in zip(heads, rows)}
    for group in tables.split_columns(table, ["feature"]):
        st.dataframe([{c: line[c] for c in group} for line in table], hide_index=True, width="stretch",
                     height=tables.rows_height(len(table)),  # all 15 features, no scrolling inside the table
                     column_config={c: four(c, help=help_of[c]) for c in group if c in help_of})
    # what each feature is, in a table of its own: beside the values a long text column pushed the candidates'
    # columns sideways (trial 26: the page showed bare names)
    st.markdown("**What the features are**")
    st.dataframe([{"feature": line["feature"], "what it is": LOWER_MEANINGS.get(line["feature"], "")}
                  for line in table], hide_index=True, width="stretch", height=tables.rows_height(len(table)))


def term_columns(columns: list[str]) -> dict:
    """Each `term: NAME` column headed by NAME alone (the heading says they are terms; the full name on hover), so the
    table fits a 1280-px window: "term: link_pressure_max" and its like made it scroll sideways."""
    def meaning(c: str) -> str:  # trial 26: the feature names alone said nothing
        name = c.removeprefix("term: ")
        return f"; the feature: {LOWER_MEANINGS[name]}" if name in LOWER_MEANINGS else ""
    return {c: four(c.removeprefix("term: "), help=f"{c}: this term of the score" + (
        " (the network's learned residual)" if c == "term: network" else " (the heuristic prior's, for this feature)"
        if c != "term: bias" else " (the prior's constant)") + meaning(c)) for c in columns}


def differences(rl: Schedule, cp: Schedule, only_rl: list[np.ndarray], only_cp: list[np.ndarray], r: int,
                stem: str) -> None:
    """Where RL differs from critical-path: per-round counts, and the workloads of round r."""
    charts.show(figures.round_diff_figure([len(x) for x in only_rl], [len(x) for x in only_cp], rl.method,
                                          BASELINE, current_round=r,
                                          titles=(method_title(rl.method), method_title(BASELINE))),
                key="debug-diff", name=f"{stem}-{rl.method}-vs-{BASELINE}")
    a, b = st.columns(2)
    d = rl.dag
    with a:
        st.markdown(f"**Only {method_title(rl.method)} sends in round {r}**")
        st.dataframe({"workload": [d.describe(w) for w in only_rl[r - 1].tolist()] if r <= len(only_rl) else []},
                     hide_index=True, width="stretch")
    with b:
        st.markdown(f"**Only {method_title(BASELINE)} sends in round {r}**")  # as the chart names it (trial 28)
        st.dataframe({"workload": [d.describe(w) for w in only_cp[r - 1].tolist()] if r <= len(only_cp) else []},
                     hide_index=True, width="stretch")
