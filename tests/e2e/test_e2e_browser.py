"""The dashboard in a real browser: pick a preset, step rounds, see the heatmaps; every page renders offline."""

from __future__ import annotations

import pytest
from browser_tools import ARTIFACTS

from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology

pytestmark = pytest.mark.e2e

HEATMAP_MARKERS = """(r) => {
  const plots = Array.from(document.querySelectorAll('.js-plotly-plot')).filter(
    el => el.data && el.data.some(t => t.type === 'heatmap'));
  return plots.length === 1 && plots[0].layout.shapes.length > 0
    && plots[0].layout.shapes.every(s => s.x0 === r - 0.5);
}"""
PAGES = [("", "Topology & trees"), ("player", "Schedule player"), ("compare", "Compare"),
         ("debugger", "Policy debugger"), ("merging", "How merging works")]


def wait_text(page, text: str) -> None:
    page.wait_for_function("(t) => document.body.innerText.includes(t)", arg=text)


def choose(page, label: str, option: str) -> None:
    page.get_by_role("combobox", name=label).click()
    page.get_by_role("option", name=option, exact=True).click()


def test_pick_a_preset_step_rounds_and_see_the_heatmaps(page, app_url):
    page.goto(f"{app_url}/player")
    wait_text(page, "Round 1 of")
    choose(page, "Configuration", "DCell(4,1)")
    wait_text(page, "Showing DCell(4,1)")
    wait_text(page, "of 60 directed links busy")  # the player shows DCell(4,1)
    tags = page.locator('[data-testid="stMultiSelectTagsContainer"]').last.locator("[data-tag]")
    if tags.nth(2).get_attribute("aria-label") != "Critical-path":  # keep PS and Ring; the third is critical-path
        tags.nth(2).get_by_role("button").click()
        page.get_by_role("combobox", name="Methods").click()
        page.get_by_role("option", name="Critical-path", exact=True).click()
        page.keyboard.press("Escape")
    wait_text(page, "Critical-path: round 1 of")
    t = make_topology("dcell:n=4,k=1")
    rounds = {m: run_method(m, t, ScheduleConfig()).n_rounds for m in ("ps", "ring", "critical-path")}
    last = max(rounds.values())
    wait_text(page, f"Round 1 of {last}")
    for r in (2, 3, 4):
        page.get_by_role("button", name="Next").click()
        wait_text(page, f"Round {r} of {last}")
        page.wait_for_function(HEATMAP_MARKERS, arg=r)
    assert page.locator(".js-plotly-plot .heatmaplayer image").count() == 3  # three heatmaps drawn
    for m, n in rounds.items():
        assert f"round 4 of {n}" in page.inner_text("body")
    page.screenshot(path=str(ARTIFACTS / "player.png"), full_page=True)


@pytest.mark.parametrize("path,title", PAGES)
def test_every_page_renders_offline(page, app_url, path, title):
    page.goto(f"{app_url}/{path}")
    page.get_by_role("heading", name=title).wait_for()
    page.wait_for_timeout(3000)  # charts and iframes settle
    if path == "compare":
        page.locator(".js-plotly-plot").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(ARTIFACTS / f"{path or 'player'}-page.png"), full_page=True)


def test_merging_walk_through_to_the_round_player(page, app_url):
    page.goto(f"{app_url}/merging")
    for step in range(2, 7):
        page.get_by_role("button", name="Next").first.click()
        wait_text(page, f"Step {step} of 6")
        if step == 4:
            page.wait_for_timeout(1500)
            page.screenshot(path=str(ARTIFACTS / "merging-step4.png"), full_page=True)
    wait_text(page, "Round 1 of")
    page.wait_for_timeout(1500)
    page.screenshot(path=str(ARTIFACTS / "merging-step6.png"), full_page=True)
