"""Trial 30's leftovers in the learned scheduler's CLI: a truncated weights file, train's --hidden with --init,
--preset with --out, the progress bar's total, the log kept on interrupt, and schedule --explain's p and margin."""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("torch")

from core import cli  # noqa: E402
from core.rl.checkpoint import checkpoint_dir  # noqa: E402


def test_a_truncated_weights_file_is_named_as_truncated(tmp_path, capsys):
    """Trial 30: a .safetensors cut to 20,000 bytes was refused as 'must be F32 of shape [64, 9] inside the file,
    got {'dtype': 'F32', 'shape': [64, 9], ...}', which reads as a wrong dtype or shape."""
    shipped = checkpoint_dir() / "bcube_n3_k1"
    shutil.copy(shipped.with_suffix(".json"), tmp_path / "cut.json")
    (tmp_path / "cut.safetensors").write_bytes(shipped.with_suffix(".safetensors").read_bytes()[:20_000])
    assert cli.main(["schedule", "bcube:n=3,k=1", "--method", "rl", "--checkpoint", str(tmp_path / "cut")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "lies past the end of the file (20000 bytes" in line and line.endswith("truncated?"), line
    assert "must be F32" not in line
