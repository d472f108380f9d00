"""The dashboard in a real browser: pick a preset, step rounds, see the heatmaps; every page renders offline."""

from __future__ import annotations

import pytest
from browser_tools import ARTIFACTS, WIDTH, screenshot_whole

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
PAGES = [("player", "player", "Schedule player"), ("compare", "compare", "Compare"),
         ("debugger", "debugger", "Policy debugger"), ("merging", "merging", "How merging works"),
         ("cluster", "cluster", "Cluster")]
PICTURES = ["topology-network", "topology-node-tree", "wtree-unmerged", "wtree-merged"]


def wait_text(page, text: str) -> None:
    page.wait_for_function("(t) => document.body.innerText.includes(t)", arg=text)


def choose(page, label: str, option: str, exact: bool = True) -> None:
    """Open the select box `label` and click `option` (the first whose name contains it, without `exact`). A click
    that lands while the page reruns can close the list before the option shows: open it again, up to 5 times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # installed wherever this test runs (conftest)
    wanted = page.get_by_role("option", name=option, exact=exact).first
    for _ in range(5):
        page.get_by_role("combobox", name=label).click()
        try:
            wanted.wait_for(timeout=15_000)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            continue
        wanted.click()
        return
    raise AssertionError(f"the {label!r} list never showed {option!r}")


def test_pick_a_preset_step_rounds_and_see_the_heatmaps(page, app_url):
    page.goto(f"{app_url}/player")
    wait_text(page, "Round 1 of")
    choose(page, "Configuration", "DCell(4,1)")
    wait_text(page, "Showing DCell(4,1)")
    wait_text(page, "of 60 directed links busy")  # the player shows DCell(4,1)
    tags = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelectTagsContainer"]').locator("[data-tag]")
    if tags.nth(2).get_attribute("aria-label") != "Critical-path":  # keep PS and Ring; the third is critical-path
        tags.nth(2).get_by_role("button").click()
        choose(page, "Methods", "Critical-path")
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
    screenshot_whole(page, ARTIFACTS / f"player-dcell41-round4-{WIDTH}.png")


def test_first_screen_draws_static_pictures_and_interactive_charts_one_click_away(page, app_url):
    page.goto(app_url)
    page.get_by_role("heading", name="Topology & trees").wait_for()
    wait_text(page, "Merging saves")
    page.wait_for_function("(n) => document.querySelectorAll('svg[data-picture]').length === n", arg=len(PICTURES))
    assert page.evaluate("() => Array.from(document.querySelectorAll('svg[data-picture]'), s => s.dataset.picture)"
                         ) == PICTURES
    sizes = page.evaluate("() => Array.from(document.querySelectorAll('svg[data-picture]'), s => { "
                          "const r = s.getBoundingClientRect(); return [r.width, r.height]; })")
    assert all(w > 300 and h > 250 for w, h in sizes), sizes  # drawn across their columns, not collapsed
    net = page.locator('svg[data-picture="topology-network"]')
    assert {"s00", "sw0.0", "server (computes, merges)"} <= set(net.locator("text").all_text_contents())
    tips = page.locator('svg[data-picture="wtree-merged"] circle title').all_text_contents()  # hover tooltips
    assert "s00 (root)" in tips and any(t.startswith("#0 reduce s01->s00") for t in tips)
    assert page.locator(".js-plotly-plot").count() == 0  # plotly.js is not even loaded
    assert not page.evaluate("() => Array.from(performance.getEntriesByType('resource')).some("
                             "e => /plotly/i.test(e.name))")
    screenshot_whole(page, ARTIFACTS / f"page-topology-{WIDTH}.png")
    page.get_by_text("Interactive (zoom, hover, export)", exact=True).click()
    page.wait_for_function("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(
        el => el.data && el.data.length && ['wtree-unmerged', 'wtree-merged'].includes(el.layout.meta)).length === 2""")
    assert page.locator("svg[data-picture]").count() == 0
    assert page.locator('.modebar-btn[data-title^="Download plot"]').count() >= 4  # every chart saves itself
    assert page.locator('[data-testid="stException"]').count() == 0
    screenshot_whole(page, ARTIFACTS / f"page-topology-interactive-{WIDTH}.png")


def test_the_topology_address_opens_the_first_screen(page, app_url):
    page.goto(f"{app_url}/topology")  # the screen's own name; Streamlit serves the default page at "/"
    page.get_by_role("heading", name="Topology & trees").wait_for()
    page.wait_for_function("(n) => document.querySelectorAll('svg[data-picture]').length === n", arg=len(PICTURES))
    assert "Page not found" not in page.inner_text("body")
    page.wait_for_url(f"{app_url}/")  # sent on to the root: the address bar and the sidebar name the screen
    current = page.locator('[data-testid="stSidebarNav"] a[aria-current="page"]')
    assert current.count() == 1 and "Topology & trees" in current.inner_text()


@pytest.mark.parametrize("path,name,title", PAGES)
def test_every_page_renders_offline_with_exportable_charts(page, app_url, path, name, title):
    page.goto(f"{app_url}/{path}")
    page.get_by_role("heading", name=title).wait_for()
    page.wait_for_function("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).some(
        el => el.data && el.data.length && !(el.layout && el.layout.meta === 'blank'))
        || document.body.innerText.includes('not available')""")
    page.wait_for_timeout(1500)  # the rest of the charts settle
    assert page.locator('[data-testid="stException"]').count() == 0
    if name != "debugger" or page.locator(".js-plotly-plot").count() > 1:  # every chart saves itself as an image
        assert page.locator('.modebar-btn[data-title^="Download plot"]').count() >= 1
    screenshot_whole(page, ARTIFACTS / f"page-{name}-{WIDTH}.png")  # one file per page


def test_merging_walk_through_to_the_round_player(page, app_url):
    page.goto(f"{app_url}/merging")
    for step in range(2, 7):
        page.get_by_role("button", name="Next").first.click()
        wait_text(page, f"Step {step} of 6")
        if step == 4:
            page.wait_for_timeout(1500)
            screenshot_whole(page, ARTIFACTS / f"merging-step4-{WIDTH}.png")
    wait_text(page, "Round 1 of")
    page.wait_for_timeout(1500)
    screenshot_whole(page, ARTIFACTS / f"merging-step6-{WIDTH}.png")


CUT_METRICS = """() => Array.from(document.querySelectorAll('[data-testid="stMetric"] *')).filter(
    el => el.scrollWidth > el.clientWidth + 1).map(el => el.innerText || el.getAttribute('data-testid'))"""
"""What a metric shows cut off at this width ("Time (m…", "18…"): any element in it wider than its box."""


def test_player_metrics_are_not_cut_at_1280_px(page, app_url):
    """Three methods side by side at 1280 px: every metric's label and value is whole, on DCell(5,1) (three-digit
    gaps), in rounds, in seconds and with a link failing (they read "Time (m…", "Lost (…" before)."""
    page.goto(f"{app_url}/player")
    wait_text(page, "Round 1 of")
    choose(page, "Configuration", "DCell(5,1)")
    wait_text(page, "Showing DCell(5,1)")
    wait_text(page, f"of {make_topology('dcell:n=5,k=1').n_links} directed links busy")
    assert page.locator('[data-testid="stMetric"]').count() == 9
    assert page.evaluate(CUT_METRICS) == []
    page.get_by_text("seconds", exact=True).click()
    wait_text(page, "Column 1 of")
    page.get_by_text("busbw").first.wait_for()
    assert page.evaluate(CUT_METRICS) == []
    page.get_by_text("Fail or slow down a link", exact=False).click()
    choose(page, "Links", "0 · ", exact=False)
    page.keyboard.press("Escape")
    wait_text(page, "each method re-plans what is left")
    page.wait_for_function(EVENT_MARKED)
    assert page.inner_text("body").count("Lost (ms)") == 3
    assert page.evaluate(CUT_METRICS) == []
    screenshot_whole(page, ARTIFACTS / f"player-metrics-dcell51-{WIDTH}.png")


EVENT_MARKED = """() => {
  const plots = Array.from(document.querySelectorAll('.js-plotly-plot')).filter(
    el => el.data && el.data.some(t => t.type === 'heatmap'));
  return plots.length === 1 && plots[0].layout.shapes.filter(s => (s.name || '').startsWith('event')).length === 3;
}"""


def test_fail_a_link_mid_run_and_see_every_method_replan(page, app_url):
    page.goto(f"{app_url}/player")
    wait_text(page, "Round 1 of")
    page.get_by_text("Fail or slow down a link", exact=False).click()
    choose(page, "Links", "0 · s00–sw0.0 · level 0 · 100 Gbit/s")
    page.keyboard.press("Escape")
    wait_text(page, "Link 0 (s00–sw0.0) fails at 0.5 ms: each method re-plans what is left")
    page.wait_for_function(EVENT_MARKED)  # the change marked on each method's heatmap
    body = page.inner_text("body")
    assert body.count("failure-free") == 3 and body.count("Lost (ms)") == 3  # time lost per method
    page.get_by_text("seconds", exact=True).click()  # the re-planned runs on one time axis
    wait_text(page, "Column 1 of")
    page.wait_for_function(EVENT_MARKED)
    assert page.locator('[data-testid="stException"]').count() == 0
    screenshot_whole(page, ARTIFACTS / f"player-link-fails-seconds-{WIDTH}.png")


def test_cluster_page_compares_schedulers_and_survives_a_bad_trace(page, app_url):
    page.goto(f"{app_url}/cluster")
    page.get_by_role("heading", name="Cluster").wait_for()
    wait_text(page, "Scheduler to inspect")
    wait_text(page, "jobs over time")
    page.wait_for_function("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).some(
        el => el.data && el.data.some(t => t.type === 'bar' && t.orientation === 'h' && t.name === 'waiting'))""")
    table = page.locator('[data-testid="stDataFrame"]').first.inner_text()
    for name in ("sjf+closest", "gadget", "topdrl", "ours"):
        assert name in page.inner_text("body") or name in table
    trace = page.get_by_role("textbox", name="Trace")
    trace.fill("synthetic:jobs=-3,seed=0")
    trace.press("Enter")
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="jobs must be an integer")
    alert.wait_for()
    assert "Change the trace" not in alert.inner_text()  # the error alone, no generic hint after it (trial 9)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_role("heading", name="Cluster").wait_for()  # the page kept running
    trace.fill("synthetic:jobs=2*3_x_,seed=<b>1</b>")  # Markdown and HTML in what was typed: shown as typed
    trace.press("Enter")
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="2*3_x_,seed=<b>1</b>")
    alert.wait_for()
    assert alert.locator("em, strong, b, code").count() == 0


SIDEWAYS_TABLES = """() => Array.from(document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')).filter(
    s => s.offsetParent !== null).map(s => [s.scrollWidth, s.clientWidth])"""
"""[content width, visible width] of every table drawn (a closed expander's is not): wider content scrolls sideways."""


def test_debugger_tables_fit_1280_px(page, app_url):
    """The "why" table (each candidate's score split into terms) scrolled sideways at 1280 px: headed
    "term: link_pressure_max" and the like. Every table shown on the page fits its width."""
    page.goto(f"{app_url}/debugger")
    page.get_by_role("heading", name="Policy debugger").wait_for()
    page.wait_for_function("() => document.body.innerText.includes('Why step') "
                           "|| document.body.innerText.includes('not available')")
    if "Why step" not in page.inner_text("body"):
        pytest.skip("the RL scheduler is not available here")
    page.wait_for_function(f"() => ({SIDEWAYS_TABLES})().length >= 4")  # why, every step, and the two differences
    page.wait_for_timeout(1000)
    widths = page.evaluate(SIDEWAYS_TABLES)
    assert widths and all(content <= shown + 1 for content, shown in widths), widths
    screenshot_whole(page, ARTIFACTS / f"debugger-tables-{WIDTH}.png")


