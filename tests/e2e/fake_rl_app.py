"""The dashboard with a stand-in RL scheduler (for screenshots of the Policy debugger): `streamlit run` this file."""

import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "dashboard"))

import fake_rl  # noqa: E402

fake_rl.install()
runpy.run_path(str(ROOT / "app.py"), run_name="__main__")
