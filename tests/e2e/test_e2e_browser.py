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


TRY_MS = 15_000
"""How long one try of a click after a list or an expander opened may wait (`choose`, `open_expander`): a rerun of the
page can close what was opened, and a click or wait on its content then waits the page's whole default timeout (420 s
in the 8-method test) for something that will not show; each try is bounded and the opening is done again."""
TRIES = 5
EXPANDER_OPEN = """(title) => Array.from(document.querySelectorAll('[data-testid="stExpander"] details')).some(
  d => d.open && d.querySelector('summary').innerText.includes(title))"""
"""Whether the expander whose header contains `title` is open."""


def open_expander(page, title: str, shown: str = EXPANDER_OPEN, arg=None) -> None:
    """Open the expander whose header contains `title` (a click on its header when closed) and wait for `shown` (a
    JS function of `arg`, `title` when None; by default: the expander is open). A rerun can close it between the click
    and the wait, or rebuild it closed (a changed label or `expanded`): each try waits `TRY_MS` at most, then the
    expander is opened again, up to `TRIES` times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # installed wherever this test runs (conftest)
    header = page.locator('[data-testid="stExpander"] details > summary').filter(has_text=title).first
    for _ in range(TRIES):
        try:
            if not page.evaluate(EXPANDER_OPEN, title):
                header.click(timeout=TRY_MS)
            page.wait_for_function(shown, arg=title if arg is None else arg, timeout=TRY_MS)
        except PlaywrightTimeout:
            continue
        return
    raise AssertionError(f"the expander {title!r} never showed what was waited for")


def choose(page, label: str, option: str, exact: bool = True, inside: str | None = None) -> None:
    """Open the select box `label` and click `option` (the first whose name contains it, without `exact`); `inside`:
    the title of the expander the box is in, opened first. A rerun of the page can close the list (or the expander)
    before the option shows, or after it showed and before the click (a CI run waited the page's whole 420 s default
    timeout on such a click): every click and wait is bounded (`TRY_MS`) and the list is opened again, up to `TRIES`
    times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    wanted = page.get_by_role("option", name=option, exact=exact).first
    for _ in range(TRIES):
        try:
            if inside is not None:
                open_expander(page, inside)
            page.get_by_role("combobox", name=label).click(timeout=TRY_MS)
            wanted.wait_for(timeout=TRY_MS)
            wanted.click(timeout=TRY_MS)
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            continue
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
    names, clashes = page.evaluate(NAME_CLASHES)  # as drawn: DCell(4,1)'s server names overlapped (s1.1 / s1.2)
    assert names >= 3 * 19 and clashes == [], clashes
    drawn, layout = page.evaluate(DRAWN_MARGINS)  # names are placed for the panels' width: plotly adds no margin
    assert drawn == layout, (drawn, layout)
    screenshot_whole(page, ARTIFACTS / f"player-dcell41-round4-{WIDTH}.png")


NAME_CLASHES = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    el => el.layout && el.layout.meta && el.layout.meta.top === 'network');
  const boxes = Array.from(plot.querySelectorAll('g.annotation')).filter(g => {
    const a = plot.layout.annotations[+g.dataset.index]; return a && /label$/.test(a.name || ''); }).map(g => {
    const r = g.querySelector('text').getBoundingClientRect();
    return [g.textContent, r.left, r.top, r.right, r.bottom]; });
  const clash = [];
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach(b => {
    if (a[1] < b[3] && b[1] < a[3] && a[2] < b[4] && b[2] < a[4]) clash.push([a[0], b[0]]); }));
  return [boxes.length, clash];
}"""
"""How many node names the player's network panels draw, and every pair whose drawn text boxes overlap."""
DRAWN_MARGINS = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    el => el.layout && el.layout.meta && el.layout.meta.top === 'network');
  const s = plot._fullLayout._size, m = plot.layout.margin;
  return [[Math.round(s.l), Math.round(s.r)], [Math.round(m.l), Math.round(m.r)]];
}"""
"""The player figure's left and right margins as plotly drew them and as its layout sets them (trial 19: 83 / 66 px
drawn where the layout said 8 / 8, so the network panels were narrower than their names were placed for)."""


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


LEGEND_AND_FIGURE_BOTTOM = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(el => el.layout && el.layout.showlegend);
  const legend = plot.querySelector('.legend').getBoundingClientRect();
  return [legend.bottom, plot.getBoundingClientRect().bottom, window.innerHeight];
}"""
"""Where a step's legend and its figure end in the window, and the window's height."""


def test_merging_walk_through_to_the_round_player(page, app_url):
    page.set_viewport_size({"width": WIDTH, "height": 800})  # a 1280x800 laptop: steps 2-4's legend was below it
    page.goto(f"{app_url}/merging")
    for step in range(2, 7):
        page.get_by_role("button", name="Next").first.click()
        wait_text(page, f"Step {step} of 6")
        if step <= 4:
            page.wait_for_timeout(1500)
            legend, figure, window = page.evaluate(LEGEND_AND_FIGURE_BOTTOM)
            assert legend <= window and figure <= window, (step, legend, figure, window)
        if step == 4:
            page.wait_for_timeout(1500)
            screenshot_whole(page, ARTIFACTS / f"merging-step4-{WIDTH}.png")
    wait_text(page, "Round 1 of")
    page.wait_for_timeout(1500)
    screenshot_whole(page, ARTIFACTS / f"merging-step6-{WIDTH}.png")


PLAYER_SIZE = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    el => el.layout && el.layout.meta && el.layout.meta.top === 'network');
  if (!plot) return null;
  const block = plot.closest('[data-testid="stVerticalBlock"]').getBoundingClientRect().width;
  const s = plot._fullLayout._size, top = plot._fullLayout.yaxis.domain;
  return [plot.getBoundingClientRect().width, block, (top[1] - top[0]) * s.h, plot.layout.meta.name_font,
          plot.data.filter(t => t.showlegend).map(t => t.name)];
}"""
"""The player figure's drawn width, its block's width, the network row's drawn height, the node names' font, and
the legend's names."""


def test_the_player_fills_a_1920_px_page_and_its_drawings_grow_with_it(page, app_url):
    """Trial 21: at 1920 px the Player's figure stayed 820 px wide (drawings ~130 px wide, half the page empty), and
    "How merging works" step 6 dropped to 820 px with a "switch" in its legend. By default the figure is now as wide as
    the page (as the browser reports it), its network row taller and names larger; step 6 fills the page too and its
    legend has no switch."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{app_url}/player")
    wait_text(page, "Round 1 of")
    page.wait_for_function(f"() => ({PLAYER_SIZE})() && ({PLAYER_SIZE})()[0] > 1000")
    width, block, top, font, legend = page.evaluate(PLAYER_SIZE)
    assert block - 20 <= width <= block and top > 250 and font == 13 and "switch" in legend
    page.screenshot(path=str(ARTIFACTS / "player-1920.png"))
    page.goto(f"{app_url}/merging")
    for step in range(2, 7):
        page.get_by_role("button", name="Next").first.click()
        wait_text(page, f"Step {step} of 6")
    wait_text(page, "Round 1 of")
    page.wait_for_function(f"() => ({PLAYER_SIZE})() && ({PLAYER_SIZE})()[0] > 1000")
    width, block, top, font, legend = page.evaluate(PLAYER_SIZE)
    assert block - 20 <= width <= block and font == 13 and "server" in legend and "switch" not in legend
    page.screenshot(path=str(ARTIFACTS / "merging-step6-1920.png"))


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
    choose(page, "Links", "0 · ", exact=False, inside="Fail or slow down a link")
    page.keyboard.press("Escape")
    wait_text(page, "each method re-plans what is left")
    page.wait_for_function(EVENT_MARKED)
    assert page.inner_text("body").count("Lost (ms)") == 3
    assert page.evaluate(CUT_METRICS) == []
    screenshot_whole(page, ARTIFACTS / f"player-metrics-dcell51-{WIDTH}.png")


HEATMAP_ROW_NAMES = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    el => el.data && el.data.some(t => t.type === 'heatmap'));
  return plot.data.filter(t => t.type === 'heatmap').map(t => {
    const boxes = Array.from(plot.querySelectorAll('g.' + t.yaxis + 'tick text')).map(e => e.getBoundingClientRect())
      .filter(r => r.height > 0);
    let clashes = 0;
    boxes.forEach((a, i) => boxes.slice(i + 1).forEach(b => { if (a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) clashes++; }));
    return [t.y.length, boxes.length, clashes]; });
}"""
"""Per heatmap of the player: its rows, the row names chromium draws, and how many pairs of them overlap."""
MYNET = b"""<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="kind" for="node" attr.name="kind" attr.type="string"/>
  <key id="bw" for="edge" attr.name="bandwidth" attr.type="double"/>
  <graph edgedefault="undirected">
    <node id="h1"><data key="kind">server</data></node><node id="h2"><data key="kind">server</data></node>
    <node id="h3"><data key="kind">server</data></node><node id="h4"><data key="kind">server</data></node>
    <node id="h5"><data key="kind">server</data></node><node id="h6"><data key="kind">server</data></node>
    <node id="t1"><data key="kind">switch</data></node><node id="t2"><data key="kind">switch</data></node>
    <node id="t3"><data key="kind">switch</data></node><node id="sp"><data key="kind">switch</data></node>
    <edge source="h1" target="t1"/><edge source="h2" target="t1"/><edge source="h3" target="t2"/>
    <edge source="h4" target="t2"/><edge source="h5" target="t3"/><edge source="h6" target="t3"/>
    <edge source="t1" target="sp"><data key="bw">25</data></edge>
    <edge source="t2" target="sp"/><edge source="t3" target="sp"/><edge source="t1" target="t2"/>
  </graph>
</graphml>"""
"""The new-user trial's uploaded network (trial 12): 10 links, 20 directed."""


def test_heatmap_row_names_are_all_drawn_without_overlap(page, app_url):
    """Trial 12: on the uploaded 20-link GraphML chromium drew only every other link's name (plotly drops category
    ticks it thinks would overlap, without saying so), and BCube(3,1)'s 36 rows none. Both now draw every name, no
    two overlapping, in each of the three heatmaps."""
    page.goto(f"{app_url}/player")
    wait_text(page, "Round 1 of")
    page.wait_for_function(HEATMAP_MARKERS, arg=1)
    assert page.evaluate(HEATMAP_ROW_NAMES) == [[36, 36, 0]] * 3
    page.get_by_text("Upload", exact=True).first.click()
    page.locator('[data-testid="stSidebar"] input[type=file]').set_input_files(
        files=[{"name": "mynet.graphml", "mimeType": "application/xml", "buffer": MYNET}])
    wait_text(page, "Showing mynet.graphml")
    page.wait_for_function("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).some(
        el => el.data && el.data.filter(t => t.type === 'heatmap').length === 3
          && el.data.every(t => t.type !== 'heatmap' || t.y.length === 20))""")
    assert page.evaluate(HEATMAP_ROW_NAMES) == [[20, 20, 0]] * 3
    screenshot_whole(page, ARTIFACTS / f"player-upload-row-names-{WIDTH}.png")


EVENT_MARKED = """() => {
  const plots = Array.from(document.querySelectorAll('.js-plotly-plot')).filter(
    el => el.data && el.data.some(t => t.type === 'heatmap'));
  return plots.length === 1 && plots[0].layout.shapes.filter(s => (s.name || '').startsWith('event')).length === 3;
}"""


def test_fail_a_link_mid_run_and_see_every_method_replan(page, app_url):
    page.goto(f"{app_url}/player")
    wait_text(page, "Round 1 of")
    choose(page, "Links", "0 · s00-sw0.0 · level 0 · 100 Gbit/s", inside="Fail or slow down a link")
    page.keyboard.press("Escape")
    wait_text(page, "Link 0 (s00-sw0.0) fails at 0.5 ms: each method re-plans what is left")
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


def assert_tables_fit_with_sizes_open(page) -> None:
    """Opens Compare's "Sizes and notes" and checks that every table drawn (its three) fits its width."""
    open_expander(page, "Sizes and notes", f"() => ({SIDEWAYS_TABLES})().length >= 3")
    page.wait_for_timeout(1500)
    widths = page.evaluate(SIDEWAYS_TABLES)
    assert all(content <= shown + 1 for content, shown in widths), widths


def open_debugger(page, app_url: str) -> None:
    """The Policy debugger, its tables drawn (why, every step, and the two differences); skips without RL."""
    page.goto(f"{app_url}/debugger")
    page.get_by_role("heading", name="Policy debugger").wait_for()
    page.wait_for_function("() => document.body.innerText.includes('Why step') "
                           "|| document.body.innerText.includes('not available')")
    if "Why step" not in page.inner_text("body"):
        pytest.skip("the RL scheduler is not available here")
    page.wait_for_function(f"() => ({SIDEWAYS_TABLES})().length >= 4")


EXPANDER_TABLE = """(title) => Array.from(document.querySelectorAll('[data-testid="stExpander"] details')).some(
  d => d.open && d.querySelector('summary').innerText.includes(title) && Array.from(
    d.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')).some(s => s.offsetParent !== null))"""
"""Whether the expander whose header contains `title` is open with a table drawn in it."""


def test_debugger_tables_in_expanders_fit_1280_px(page, app_url):
    """The candidates' feature values (17 columns: ~2170 px of content in ~784 px) and the flow-trees' features
    (~1270 px) scrolled sideways inside their expanders. With both expanders open, every table on the page fits."""
    open_debugger(page, app_url)
    before = len(page.evaluate(SIDEWAYS_TABLES))
    for title in ("Flow-tree features and probabilities", "Feature values of the candidates"):
        open_expander(page, title, EXPANDER_TABLE)
    page.wait_for_function(f"(n) => ({SIDEWAYS_TABLES})().length >= n + 2", arg=before)
    page.wait_for_timeout(1000)
    widths = page.evaluate(SIDEWAYS_TABLES)
    assert all(content <= shown + 1 for content, shown in widths), widths
    screenshot_whole(page, ARTIFACTS / f"debugger-expanders-open-{WIDTH}.png")


def test_debugger_tables_fit_1280_px(page, app_url):
    """The "why" table (each candidate's score split into terms) scrolled sideways at 1280 px: headed
    "term: link_pressure_max" and the like. Every table shown on the page fits its width."""
    open_debugger(page, app_url)
    page.wait_for_timeout(1000)
    widths = page.evaluate(SIDEWAYS_TABLES)
    assert widths and all(content <= shown + 1 for content, shown in widths), widths
    screenshot_whole(page, ARTIFACTS / f"debugger-tables-{WIDTH}.png")




TAGS_SCROLL = """() => Array.from(document.querySelectorAll(
    '[data-testid="stSidebar"] [data-testid="stMultiSelectTagsContainer"]')).map(t => [
    t.querySelectorAll('[data-tag]').length,
    Math.max(t.scrollHeight - t.clientHeight, t.parentElement.scrollHeight - t.parentElement.clientHeight)])"""
"""Per sidebar multiselect: its chosen options, and by how many px its box scrolls them (0: every one is seen)."""
CHART_CUT = """() => {
  const page = (document.querySelector('[data-testid="stMainBlockContainer"]')
                || document.querySelector('[data-testid="stMain"]')).getBoundingClientRect();
  return Array.from(document.querySelectorAll('.js-plotly-plot')).filter(el => el.data && el.data.length
    && !(el.layout && el.layout.meta === 'blank')).map(
    el => Array.from(el.querySelectorAll('.main-svg, .legend')).filter(
      g => { const r = g.getBoundingClientRect(); return r.right > page.right + 1 || r.left < page.left - 1; }).length);
}"""
"""Per chart: how many of its parts (the SVG layers, the legend) reach past the page's content box."""


def add_methods(page, titles: list[str]) -> None:
    """Pick each of `titles` in the sidebar's Methods box (`choose`: opened again if a rerun closed it)."""
    for title in titles:
        choose(page, "Methods", title)
        page.keyboard.press("Escape")
        page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelectTagsContainer"] [data-tag]').filter(
            has_text=title).first.wait_for()


def test_the_sidebar_methods_box_shows_every_chosen_method(page, app_url):
    """With 5 or more methods the box scrolled its own list (Streamlit caps it at 4.5 rows of tags): the chosen
    methods could not all be seen. Every chosen method shows, the box grown to hold them."""
    page.goto(f"{app_url}/compare")
    wait_text(page, "Rounds per configuration")
    add_methods(page, ["Time-aware (HEFT)"])  # beside the defaults' ps, ring, greedy, critical-path (and rl)
    wait_text(page, "time-aware = Time-aware (HEFT)")
    page.wait_for_timeout(1000)
    (tags,) = page.evaluate(TAGS_SCROLL)
    assert tags[0] >= 5 and tags[1] == 0, tags
    screenshot_whole(page, ARTIFACTS / f"compare-sidebar-methods-{WIDTH}.png")


def test_compare_every_method_on_table2_fits_1280_px(page, app_url):
    """All 8 methods on the nine Table 2 configurations: every table (ours, the paper's, sizes and notes) fits the
    page, the bar chart and its legend stay inside their box, and the Methods box shows all 8. Slow methods run at
    the page's shortest time limit (2 s per configuration); the whole run takes minutes, so each wait is long but
    bounded, and `choose` opens the list again when a rerun closed it."""
    page.set_default_timeout(420_000)
    page.goto(f"{app_url}/compare")
    wait_text(page, "Rounds per configuration")
    add_methods(page, ["Optimal (CP-SAT)"])
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="Time limit of slow methods")
    slider = slider.get_by_role("slider")
    slider.wait_for()
    slider.focus()
    page.keyboard.press("Home")  # 2 s, the least
    page.wait_for_function("""() => Array.from(document.querySelectorAll('[data-testid="stSlider"]')).some(
        s => s.innerText.includes('Time limit of slow methods') && s.querySelector('input').value === '2')""")
    wanted = ["Parameter Server", "Ring AllReduce", "Greedy (merged)", "Critical-path", "Time-aware (HEFT)",
              "Optimal (CP-SAT)", "Hierarchical RL", "RL, best of samples"]
    shown = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelectTagsContainer"] [data-tag]')
    add_methods(page, [m for m in wanted if m not in [t.get_attribute("aria-label") for t in shown.all()]])
    assert slider.input_value() == "2"
    page.wait_for_function("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).some(
        el => el.data && el.data.filter(t => t.type === 'bar').length === 8)""")
    wait_text(page, "Spread over seeds")
    assert_tables_fit_with_sizes_open(page)
    assert page.evaluate(CHART_CUT) == [0, 0, 0]  # rounds, seconds (trial 27), spread over seeds
    (tags,) = page.evaluate(TAGS_SCROLL)
    assert tags == [8, 0], tags
    # trial 22: a screen reader reads a number cell's value, 50 for "50*": the rounds table's region label names them
    rounds = page.locator('[data-testid="stDataFrame"]').first.locator('[data-testid="stDataFrameResizable"]')
    label = rounds.get_attribute("aria-label") or ""
    assert rounds.get_attribute("role") == "region", label
    assert label.startswith("Rounds per configuration and method; Optimal (CP-SAT) NOT proven optimal, marked *, on "
                            "BCube(5,1), DCell(4,1)"), label  # CP-SAT's limit is deterministic work: so on any machine
    assert page.locator('[data-testid="stException"]').count() == 0
    screenshot_whole(page, ARTIFACTS / f"compare-8-methods-{WIDTH}.png")


SECONDS_TABLE = """Array.from(document.querySelectorAll('[data-testid="stDataFrame"]')).find(
    d => d.textContent.includes('async'))"""
SECONDS_ROWS = (f"() => {{ const t = {SECONDS_TABLE}; return t ? Array.from(t.querySelectorAll('table tr')).map("
                "r => [Number(r.getAttribute('aria-rowindex')), Array.from(r.children).map(c => c.textContent)]) "
                ": []; }")
"""[row index, cells] of the seconds table's header (index 1: the column names under the units' row) and the rows
drawn (the grid draws those in view; its accessible table has the numbers, not their display text); none before the
table is drawn."""
HEADER_TEXT_PX = f"""(titles) => {{
    const t = {SECONDS_TABLE}, el = t.querySelector('[style*="--gdg-header-font-style"]') || t;
    const css = getComputedStyle(el), c = document.createElement('canvas').getContext('2d');
    c.font = css.getPropertyValue('--gdg-header-font-style') + ' ' + css.getPropertyValue('--gdg-font-family');
    return [parseFloat(css.getPropertyValue('--gdg-cell-horizontal-padding')), titles.map(x => c.measureText(x).width)];
}}"""
"""[the grid's cell padding, the width of each title in the grid's header font]."""
UNITS_ROW_PX = 35
"""Height of the seconds table's first header row (the units above their columns); the column names are under it."""


def seconds_column(page, j: int) -> list[str]:
    """Every cell of the seconds table's column j in the order shown: the table is scrolled through, as the grid
    draws only the rows in view, then back to the top."""
    n = int(page.evaluate(f"() => ({SECONDS_TABLE}).querySelector('table').getAttribute('aria-rowcount')")) - 1
    got: dict[int, str] = {}
    for top in range(0, 200 * n, 200):  # a row is 35 px: each step overlaps the last
        page.evaluate(f"(top) => {{ ({SECONDS_TABLE}).querySelector('.dvn-scroller').scrollTop = top; }}", top)
        page.wait_for_timeout(300)
        got.update((i, cells[j]) for i, cells in page.evaluate(SECONDS_ROWS) if i > 1)
        if len(got) == n:
            break
    page.evaluate(f"() => {{ ({SECONDS_TABLE}).querySelector('.dvn-scroller').scrollTop = 0; }}")
    page.wait_for_timeout(300)
    assert sorted(got) == list(range(2, n + 2)), sorted(got)
    return [got[i] for i in sorted(got)]


def column_lines(png: bytes) -> list[int]:
    """x of every vertical grid line of a table's screenshot (a column's borders): a pixel column that is grey,
    not white, over 90% of the rows under the header."""
    import io

    from PIL import Image  # Streamlit's own dependency
    img = Image.open(io.BytesIO(png)).convert("RGB")
    width, height = img.size
    px = img.load()
    rows = range(40, height - 10)
    return [x for x in range(width)
            if sum(1 for y in rows if max(px[x, y]) < 250 and max(px[x, y]) - min(px[x, y]) < 12) > 0.9 * len(rows)]


def test_compare_seconds_table_sorts_by_value_with_every_header_readable(page, app_url):
    """Issue 12: the seconds table's columns were text, so clicking a header sorted text ("100.5%" before "50.3%").
    Its numeric columns are numbers: a click on "BW" (gap to the bandwidth bound) sorts by value, and the table still
    fits 1280 px. A browser trial then saw a sorted header cut, "↑ gap BW bou⋮" (Streamlit's sort mark before the
    title, the column menu over its last 35 px while hovered): each column is sorted by a click here, and its title as
    the grid then draws it ("↑ BW") must end before the menu's 35 px, measured in the grid's font; and the numbers the
    grid exposes (its accessible table) carry no unit, as the cells show them. The header is found on the canvas by
    the grid's lines; a picture of each sorted header is saved."""
    page.goto(f"{app_url}/compare")
    wait_text(page, "Seconds for M")
    page.wait_for_function(f"() => ({SECONDS_ROWS})().length > 2")
    table = page.locator('[data-testid="stDataFrame"]').filter(has_text="async")
    table.scroll_into_view_if_needed()
    page.wait_for_timeout(1000)
    (_, header), *_ = page.evaluate(SECONDS_ROWS)
    lines = column_lines(table.screenshot())
    assert len(lines) == len(header) + 1, (lines, header)
    name = table.locator('[data-testid="stDataFrameResizable"]').get_attribute("aria-label")  # the units, for it
    assert name == "Seconds for M = 100 MB, units: time (ms), bandwidth (GB/s), gap to bound (%)", name
    j = header.index("BW")
    values = seconds_column(page, j)

    def number(cell: str) -> float:
        return float(cell.replace(",", ""))

    assert sorted(values, key=number) != sorted(values), values  # text order differs here: the test can fail
    box = table.bounding_box()
    shots = []
    for k, title in enumerate(header):
        x = box["x"] + (lines[k] + lines[k + 1]) / 2
        page.mouse.click(x, box["y"] + UNITS_ROW_PX + 18)  # the column's name: ascending; the mouse stays on it
        page.wait_for_function(f"([k, t]) => ({SECONDS_ROWS})()[0][1][k] === t", arg=[k, f"↑ {title}"])
        page.wait_for_timeout(300)
        pad, (drawn,) = page.evaluate(HEADER_TEXT_PX, [f"↑ {title}"])
        assert pad + drawn + 35 <= lines[k + 1] - lines[k], (title, pad + drawn + 35, lines[k + 1] - lines[k])
        shots.append(page.screenshot(clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": 110}))
        if k == j:
            shown = seconds_column(page, j)
            assert shown == sorted(values, key=number), shown
            assert all("%" not in c for c in shown), shown  # the number, as the cell shows it; the unit above
    scroll = page.evaluate(f"() => {{ const s = ({SECONDS_TABLE}).querySelector('.dvn-scroller');"
                           " return [s.scrollWidth, s.clientWidth]; }")
    assert scroll[0] <= scroll[1] + 1, scroll
    stack_pictures(shots, ARTIFACTS / f"compare-seconds-sorted-headers-{WIDTH}.png")
    screenshot_whole(page, ARTIFACTS / f"compare-seconds-sorted-{WIDTH}.png")


def stack_pictures(pngs: list[bytes], path) -> None:
    """PNG pictures one under another, saved as one."""
    import io

    from PIL import Image
    imgs = [Image.open(io.BytesIO(b)).convert("RGB") for b in pngs]
    out = Image.new("RGB", (max(i.width for i in imgs), sum(i.height for i in imgs)), "white")
    y = 0
    for i in imgs:
        out.paste(i, (0, y))
        y += i.height
    out.save(path)


def test_compare_sizes_and_notes_table_fits_1280_px(page_with_scrollbars, app_url):
    """The "Sizes and notes" table (configuration, nodes, edges, workloads, paper workloads) scrolled sideways by
    9 px at 1280 px in a new user's browser, stretched to the expander's width. Drawn with scrollbars, as a desktop
    browser does, at 1280 px: every table on the page fits, the sizes table with room to spare."""
    page = page_with_scrollbars
    page.goto(f"{app_url}/compare")
    wait_text(page, "Rounds per configuration")
    assert_tables_fit_with_sizes_open(page)
    sizes = page.locator('[data-testid="stExpander"] [data-testid="stDataFrame"]').first.bounding_box()
    expander = page.locator('[data-testid="stExpander"]').first.bounding_box()
    assert sizes["width"] < expander["width"] - 100, (sizes, expander)  # its own width, not the page's
    screenshot_whole(page, ARTIFACTS / f"compare-sizes-and-notes-{WIDTH}.png")
