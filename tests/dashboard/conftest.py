"""Fixtures of the dashboard tests: a fresh cache per test, a stand-in RL scheduler, a missing one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import streamlit as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # fake_rl, apptest_tools

import fake_rl  # noqa: E402

from core.methods import METHODS  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_caches():
    """Every test starts with empty Streamlit caches (tests monkeypatch methods)."""
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture
def stand_in_rl(monkeypatch):
    """Core's `rl` / `rl-sample` replaced by a greedy schedule carrying a trace of the documented shape."""
    fake_rl.install(monkeypatch)


@pytest.fixture
def missing_rl(monkeypatch):
    """Core's `rl` / `rl-sample` fail the way they do before the RL scheduler is installed."""
    def missing(topology, config):
        return "the RL scheduler needs torch (No module named 'torch')"
    for name in ("rl", "rl-sample"):
        monkeypatch.setitem(METHODS, name, fake_rl.stand_in(name, unavailable=missing))
