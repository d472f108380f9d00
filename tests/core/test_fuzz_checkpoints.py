"""Fuzzer: RL checkpoints (sidecar JSON + safetensors weights). A damaged checkpoint loads or raises
CheckpointError with one line; nothing is built or allocated from an unchecked field."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("torch")

from core.rl.checkpoint import CheckpointError, checkpoint_dir, load_checkpoint  # noqa: E402

from _fuzzlib import (DEADLINE_MS, JSON, SCALARS, assert_exit_0_or_one_line, assert_one_line,  # noqa: E402,F401
                      cheap_limits, run_cli)

SHIPPED = checkpoint_dir() / "bcube_n3_k1"
POLICY_KEYS = ["hidden", "upper_bias", "prior", "prior_scale", "features_version", "n_lower", "n_dynamic",
               "n_upper", "extra"]
TOP_KEYS = ["format", "features_version", "lower_features", "upper_features", "policy", "topology"]


@st.composite
def damaged(draw) -> tuple[str, bytes]:
    side = json.loads(SHIPPED.with_suffix(".json").read_text())
    weights = SHIPPED.with_suffix(".safetensors").read_bytes()
    what = draw(st.sampled_from(["policy", "policy", "top", "sidecar", "header", "bytes", "truncate", "length"]))
    if what == "policy":
        side["policy"][draw(st.sampled_from(POLICY_KEYS))] = draw(SCALARS | JSON)
    elif what == "top":
        side[draw(st.sampled_from(TOP_KEYS))] = draw(JSON)
    elif what == "sidecar":
        side = draw(JSON)
    n = int.from_bytes(weights[:8], "little")
    if what == "header":  # edit one tensor's entry of the safetensors header
        header = json.loads(weights[8:8 + n])
        name = draw(st.sampled_from(sorted(header)))
        field = draw(st.sampled_from(["dtype", "shape", "data_offsets", None]))
        if field is None:
            header[name] = draw(JSON)
        elif isinstance(header[name], dict):
            header[name][field] = draw(JSON | st.lists(st.integers(-2, 2 ** 40), max_size=3))
        raw = json.dumps(header).encode()
        weights = len(raw).to_bytes(8, "little") + raw + weights[8 + n:]
    elif what == "bytes":
        i = draw(st.integers(0, len(weights) - 1))
        weights = weights[:i] + draw(st.binary(min_size=1, max_size=8)) + weights[i + 1:]
    elif what == "truncate":
        weights = weights[:draw(st.integers(0, len(weights) - 1))]
    elif what == "length":
        weights = draw(st.integers(0, 2 ** 64 - 1)).to_bytes(8, "little") + weights[8:]
    return json.dumps(side), weights


def write(d: Path, side: str, weights: bytes) -> Path:
    (d / "ck.json").write_text(side)
    (d / "ck.safetensors").write_bytes(weights)
    return d / "ck"


@settings(max_examples=200, deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow])
@given(ck=damaged())
def test_damaged_checkpoints_load_or_raise_one_line(ck):
    with tempfile.TemporaryDirectory() as d:
        stem = write(Path(d), *ck)
        try:
            policy, meta = load_checkpoint(stem)
        except CheckpointError as err:
            assert_one_line(err)
            return
        assert policy.config.hidden <= 1024 and isinstance(meta, dict)


@settings(max_examples=15, deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow])
@given(ck=damaged())
def test_schedule_with_a_damaged_checkpoint_exits_0_or_2(ck):
    with tempfile.TemporaryDirectory() as d:
        stem = write(Path(d), *ck)
        code, out, err = run_cli("schedule", "bcube:n=3,k=1", "--method", "rl", "--checkpoint", str(stem))
        assert_exit_0_or_one_line(code, err)


@pytest.mark.parametrize("change,needle", [
    ({"hidden": "64"}, "hidden must be an integer in 1..1024, got '64'"),
    ({"hidden": None}, "got None"), ({"hidden": -1}, "got -1"), ({"hidden": 30000}, "got 30000"),
    ({"hidden": True}, "got True"), ({"n_lower": 0}, "n_lower must be 12"),
    ({"prior_scale": "x"}, "prior_scale must be a number"), ({"upper_bias": 1e308}, "upper_bias must be a number"),
    ({"upper_bias": float("nan")}, "upper_bias"), ({"prior": "magic"}, "prior must be one of"),
    ({"depth": 3}, "unknown policy field 'depth'"),
])
def test_each_policy_field_is_checked(tmp_path, change, needle):
    side = json.loads(SHIPPED.with_suffix(".json").read_text())
    side["policy"].update(change)
    stem = write(tmp_path, json.dumps(side), SHIPPED.with_suffix(".safetensors").read_bytes())
    with pytest.raises(CheckpointError, match=needle.replace("(", r"\(").replace(".", r"\.")) as info:
        load_checkpoint(stem)
    assert_one_line(info.value)


def test_whole_file_faults(tmp_path):
    good_side = SHIPPED.with_suffix(".json").read_text()
    good_w = SHIPPED.with_suffix(".safetensors").read_bytes()
    for side, weights, needle in [("[1, 2]", good_w, "must be a JSON object, got list"),
                                  ('"hello"', good_w, "must be a JSON object, got str"),
                                  (good_side, b"\x00" * 64, "not a safetensors file"),
                                  (good_side, (2 ** 62).to_bytes(8, "little") + b"{}", "not a safetensors file"),
                                  (good_side, good_w[:-4], "past the end of the file")]:
        stem = write(tmp_path, side, weights)
        with pytest.raises(CheckpointError, match=needle) as info:
            load_checkpoint(stem)
        assert_one_line(info.value)
    shutil.copy(SHIPPED.with_suffix(".json"), tmp_path / "ck.json")
    assert load_checkpoint(write(tmp_path, good_side, good_w))[0].config.hidden == 64
