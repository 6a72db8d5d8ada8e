"""The course as a website (`make book`, docs/conf.py): built once per test session from the committed
notebooks, then read as files and opened from file:// in Debian's Chromium, with no Jupyter server.

As files: every chapter is a page, in chapter order, opening with its goal, prerequisites and "Run this
chapter" note; every exercise's check cell says how to run the notebook to check an answer, and its solution
is collapsed; every link and script of the site resolves inside the site. In Chromium: each page loads with
no console error and fetches nothing from the network, every figure is at most as wide as the text column
with its smallest text at least 9 px, and on the tour's first explorer "lowered" changes the drawing and Play
moves the highlighted node, with no kernel. The browser tests are skipped, with the reason, without Chromium.
"""
import contextlib
import functools
import importlib.util
import io
import json
import pathlib
import re
import sys
import urllib.parse
import warnings

import pytest

bs4 = pytest.importorskip("bs4", reason="beautifulsoup4 is not installed (pip install -e '.[test]')")
if importlib.util.find_spec("myst_nb") is None:  # found, not imported (Sphinx imports it when the site is built)
    pytest.skip("the book extra is not installed (pip install -e '.[test,book]')", allow_module_level=True)

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import browser  # noqa: E402  (tests/browser.py: Chromium as the browser tests launch it)
from book_course import chapter_table, present_chapter  # noqa: E402  (docs/_ext: what the site adds)

from cfnb.viz.fit import MIN_FONT, measure  # noqa: E402  (the course's legibility measurement)

CHAPTERS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def needs_chromium(test):
    test = pytest.mark.browser(test)
    return pytest.mark.skipif(browser.CHROMIUM is None,
                              reason="Chromium is not installed (sudo apt-get install chromium)")(test)


def _notebook(key):
    return json.loads((ROOT / "notebooks" / f"{key}.ipynb").read_text(encoding="utf-8"))


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_both_course_tables_name_every_chapter():
    """The front page's table is README.md's, a chapter's goal and prerequisites notebooks/README.md's: a new
    notebooks/NN_name.ipynb needs a row in each (the build fails without, naming the table)."""
    assert list(chapter_table(ROOT, "README.md", after="\n## The course\n")) == CHAPTERS
    assert list(chapter_table(ROOT, "notebooks/README.md")) == CHAPTERS


def test_a_chapter_is_presented_with_its_card_and_exercise_notes():
    cells = [{"cell_type": "markdown", "source": "# 3 · cond\nThe prose."},
             {"cell_type": "code", "source": 'answer = None\ncheck("03.switch_count", answer)',
              "outputs": [{"output_type": "execute_result", "data": {"text/plain": "✗ Not yet."}}]},
             {"cell_type": "markdown", "source": "<details><summary>Solution</summary>\n\n4\n</details>"},
             {"cell_type": "code", "source": "print(1)", "outputs": [{"output_type": "stream", "text": "1"}]}]
    notebook = {"cells": cells, "metadata": {}}
    shown = present_chapter(notebook, "03_cond", "see `cond`", "01", ROOT)["cells"]
    title, card = shown[0]["source"].split("\n", 1)
    assert title == "# 3 · cond" and card.index("**Goal.** see `cond`") < card.index("The prose.")
    assert "[01](01_the_five_primitives.ipynb)" in card and "(run-chapter-03)=" in card
    assert shown[1]["outputs"] == [] and cells[1]["outputs"], "the check cell's output goes, on the site only"
    assert "Run this notebook to check your answer" in shown[2]["source"] and "<run-chapter-03>" in shown[2]["source"]
    assert shown[3:] == cells[2:]


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The site, built as `make book` builds it (warnings and unresolved references are errors), by Sphinx's own
    command-line entry point run in this process: a `python -m sphinx` of its own would import Sphinx, myst-nb and
    nbformat's schema checkers again (about 4 of its 11 CPU-seconds)."""
    from sphinx.cmd.build import build_main
    if not (ROOT / "build" / "book-js" / "require.js").is_file():
        pytest.fail("build/book-js/ holds no widget scripts: run `make setup` (tools/vendor_book_js.py) first")
    out = tmp_path_factory.mktemp("book")
    args = ["-W", "--keep-going", "-n", "-q", "-b", "html", "-c", str(ROOT / "docs"), "-d", str(out / "doctrees"),
            str(ROOT), str(out / "html")]
    with contextlib.redirect_stdout(io.StringIO()) as stdout, contextlib.redirect_stderr(io.StringIO()) as stderr, \
            warnings.catch_warnings():
        for category in (DeprecationWarning, PendingDeprecationWarning):  # hidden, as `python -m sphinx` hides them
            warnings.simplefilter("ignore", category)
        code = build_main(args)
    assert code == 0, f"the book does not build:\n{stdout.getvalue()}\n{stderr.getvalue()}"
    return out / "html"


def _page(site, path):
    """A page of the site, parsed once for all the tests that read it (they only read it)."""
    return _parsed(site / path)


@functools.cache
def _parsed(file):
    return bs4.BeautifulSoup(file.read_text(encoding="utf-8"), "html.parser")


@pytest.fixture(scope="module", autouse=True)
def _forget_parsed_pages():
    """The parsed pages (tens of MB) are kept for this file's tests only."""
    yield
    _parsed.cache_clear()


def _text(node):
    return " ".join(node.get_text().split())


def _plain(markdown):
    """A table cell's Markdown as the page's text shows it (MyST's typographic quotes made straight)."""
    markdown = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return " ".join(markdown.replace("`", "").replace("**", "").split())


def _straight(text):
    return text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')


def test_every_chapter_is_a_page_in_chapter_order(site):
    front = _page(site, "docs/index.html")
    chapter_column = [a["href"] for a in front.select("article table tbody tr td:first-child a")]
    assert chapter_column == [f"../notebooks/{key}.html" for key in CHAPTERS]
    assert "docs/index.html" in (site / "index.html").read_text()   # the site's root opens the front page
    order = ["../docs/index.html"] + [f"{key}.html" for key in CHAPTERS] + ["../docs/reading-guide.html"]
    for i, key in enumerate(CHAPTERS):
        page = _page(site, f"notebooks/{key}.html")
        assert page.select_one("a.left-prev")["href"] == order[i], key
        assert page.select_one("a.right-next")["href"] == order[i + 2], key
        sections = [h["id"] if h.has_attr("id") else h.parent["id"] for h in page.select("article section > h2")]
        toc = [a["href"] for a in page.select('nav[aria-label="Page"] li.toc-h2 > a')]
        assert toc == [f"#{section}" for section in sections], f"{key}: its table of contents is not its sections"
    sidebar = [a["href"] for a in front.select(".bd-sidenav a")]
    assert sidebar == ["#"] + [f"../notebooks/{key}.html" for key in CHAPTERS] + ["reading-guide.html"]
    assert (site / "search.html").is_file() and (site / "searchindex.js").is_file()
    guide = _page(site, "docs/reading-guide.html")   # its chapters named as notebooks/NN_name.ipynb are links
    named = set(re.findall(r"notebooks/(\d\d_\w+)\.ipynb", (ROOT / "docs" / "reading-guide.md").read_text()))
    assert named and {f"../notebooks/{key}.html" for key in named} <= {a["href"] for a in guide.select("a")}


def test_chapter_pages_open_with_goal_prerequisites_and_how_to_run(site):
    rows = {}
    for line in (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8").splitlines():
        key = re.match(r"\| \[`(\d\d_\w+)`\]", line)
        if key:
            rows[key.group(1)] = [c.strip() for c in line.strip().strip("|").split("|")][1:3]
    assert sorted(rows) == CHAPTERS, "notebooks/README.md's table must have a row per chapter"
    for key, (goal, prerequisites) in rows.items():
        page = _page(site, f"notebooks/{key}.html")
        card = page.select_one(".cfnb-chapter-card")
        assert card is not None and card.find_previous_sibling().name == "h1", f"{key}: no card under the title"
        text = _straight(_text(card))
        assert f"Goal. {_plain(goal)}" in text, key
        assert f"Prerequisites. {_plain(prerequisites)}" in text, key
        linked = {a["href"] for a in card.select("a")}
        for number in re.findall(r"\b\d\d\b", prerequisites):
            target = next(k for k in CHAPTERS if k.startswith(number))
            assert f"{target}.html" in linked, (key, number)
        assert "make lab" in text and "make test" in text and f"notebooks/{key}.ipynb" in text, key
        assert card.select_one(f"#run-chapter-{key[:2]}") is not None, key


def test_exercises_say_how_to_check_an_answer_and_hide_their_solutions(site):
    for key in CHAPTERS:
        cells = _notebook(key)["cells"]
        checks = [c for c in cells if c["cell_type"] == "code" and re.search(r"^check\(", _source(c), re.M)]
        solutions = sum(_source(c).count("<summary>Solution</summary>") for c in cells if c["cell_type"] == "markdown")
        page = _page(site, f"notebooks/{key}.html")
        notes = page.select(".cfnb-check-note")
        assert len(notes) == len(checks), key
        for note in notes:
            cell = note.find_previous_sibling(class_="cell")
            assert cell is not None and "check(" in _text(cell.select_one(".cell_input")), key
            assert cell.select_one(".cell_output") is None, f"{key}: a check cell still shows its output"
            assert "Run this notebook to check your answer" in _text(note) and f"notebooks/{key}.ipynb" in _text(note)
            assert note.select_one(f'a[href="#run-chapter-{key[:2]}"]') is not None, key
        assert "Not yet" not in _text(page.select_one("article")), key
        details = page.select("article details")
        assert len(details) == solutions, key
        assert all(d.summary and _text(d.summary) == "Solution" and not d.has_attr("open") for d in details), key


def test_every_link_and_script_stays_inside_the_site(site):
    broken, fetched = [], []
    pages = sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)   # not the themes' templates
    ids = {}
    for page in pages:
        soup = _page(site, page.relative_to(site))
        ids[page] = {tag["id"] for tag in soup.select("[id]")}
        for tag, attr in (("a", "href"), ("link", "href"), ("script", "src"), ("img", "src"), ("iframe", "src")):
            for element in soup.select(f"{tag}[{attr}]"):
                url = urllib.parse.urlsplit(element[attr])
                if url.scheme in ("http", "https"):
                    if tag != "a":
                        fetched.append(f"{page.relative_to(site)}: <{tag}> {element[attr]}")
                    continue
                if url.scheme or (not url.path and not url.fragment):
                    continue
                target = (page.parent / urllib.parse.unquote(url.path)).resolve() if url.path else page
                if not target.is_file():
                    broken.append(f"{page.relative_to(site)}: {element[attr]}")
                elif url.fragment and target.suffix == ".html":
                    broken.append((page, element[attr], target, url.fragment))
    missing = [f"{p.relative_to(site)}: {href}" for p, href, target, fragment in
               (b for b in broken if isinstance(b, tuple)) if fragment not in ids.get(target, set())]
    broken = [b for b in broken if not isinstance(b, tuple)] + missing
    assert not broken, "broken links:\n" + "\n".join(broken)
    assert not fetched, "resources from the network:\n" + "\n".join(fetched)


def test_every_widget_shown_has_its_state_in_the_notebook():
    """myst-nb renders a widget from the state stored in the notebook's metadata (tools/execute_notebooks.py
    stores it); a widget view without its state would be an empty box on the site."""
    for key in CHAPTERS:
        notebook = _notebook(key)
        state = notebook["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
        for cell in notebook["cells"]:
            for output in cell.get("outputs", []):
                view = output.get("data", {}).get("application/vnd.jupyter.widget-view+json")
                if view:
                    assert view["model_id"] in state, f"{key}: widget {view['model_id']} has no stored state"


# --- in Chromium, from file:// -----------------------------------------------------------------------------

WIDGETS_RENDERED_JS = """() => {
  const views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
  const shown = [...document.querySelectorAll('.widget-subarea')].filter(d => d.childElementCount > 0).length;
  return shown >= views;
}"""

FIGURES_JS = """() => {
  const article = document.querySelector('article.bd-article');
  const style = getComputedStyle(article);
  const column = article.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return [...document.querySelectorAll('.cfnb-figure')].map(box => {
    const img = box.querySelector('img');
    const scrolls = /(auto|scroll)/.test(getComputedStyle(box).overflowX);
    return {src: img.src, loaded: img.complete && img.naturalWidth > 0, column, scrolls,
            box: box.getBoundingClientRect().width, shown: img.getBoundingClientRect().width};
  });
}"""


def _figure_problems(figures, page_name):
    """What a reader could not read: a figure wider than the column, cut off, or with text under 9 px."""
    problems = []
    for figure in figures:
        name = f"{page_name}: {figure['src'].rsplit('/', 1)[1]}"
        natural = measure(pathlib.Path(urllib.parse.unquote(figure["src"][len("file://"):])).read_text())
        shown_font = natural.font_px * figure["shown"] / natural.width if natural.font_px else None
        if not figure["loaded"]:
            problems.append(f"{name} did not load")
        if figure["box"] > figure["column"] + 0.5:
            problems.append(f"{name} is {figure['box']:.0f} px wide in a {figure['column']:.0f} px column")
        if figure["shown"] > figure["box"] + 0.5 and not figure["scrolls"]:
            problems.append(f"{name} is cut off")
        if shown_font is not None and shown_font < MIN_FONT - 0.01:
            problems.append(f"{name} shows text at {shown_font:.1f} px")
    return problems


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for this file's browser tests; every request off this machine is refused and
    recorded in `page.fetched`. Closed after this file's tests: Playwright's sync API keeps an asyncio loop
    running in this thread while it is open, which later tests (IPython's shell, other Playwright tests)
    must not inherit."""
    if browser.CHROMIUM is None:
        pytest.skip("Chromium is not installed (sudo apt-get install chromium)")
    with browser.chromium(height=browser.SHORT) as page:  # measured the same at 1000 px high
        page.fetched = []
        page.route(re.compile(r"^(https?|wss?)://"),
                   lambda route: (page.fetched.append(route.request.url), route.abort()))
        yield page


# An explorer as the page shows it when it is drawn: its controls and its drawing.
EXPLORER_DRAWINGS = ".cfnb-explorer:has(.cfnb-explorer-controls) .cfnb-explorer-drawing > svg"


def _open(page, path, explorers=0):
    """Open a page of the site from file:// and wait until its widgets are drawn, and its `explorers` explorers
    with them; its console errors are collected from here on.

    The explorers are waited for on their own: anywidget gives an explorer its place in the widget area first and
    draws it once its script module has loaded, so a busy machine measured a page whose explorer was not drawn yet
    (1 run of `make test` in 9). Those that are still missing after 20 s are left to `_explorer_problems` to
    report."""
    page.errors.clear()
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.wait_for_function(WIDGETS_RENDERED_JS)
    if explorers:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        try:
            page.wait_for_function("([drawings, n]) => document.querySelectorAll(drawings).length >= n",
                                   arg=[EXPLORER_DRAWINGS, explorers], timeout=20_000)
        except PlaywrightTimeout:
            pass


def _explorers_stored(page_name):
    """How many explorers the page's notebook stores (a widget view whose model is the browser-side explorer, an
    anywidget); none on a page that is not a chapter."""
    if not page_name.startswith("notebooks/"):
        return 0
    nb = _notebook(page_name[len("notebooks/"):-len(".html")])
    state = nb["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    views = [out["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] for cell in nb["cells"]
             for out in cell.get("outputs", ()) if "application/vnd.jupyter.widget-view+json" in out.get("data", {})]
    return sum(state.get(view, {}).get("model_module") == "anywidget" for view in views)


def _explorer_problems(page, page_name):
    """The explorers' drawings at their default zoom (the browser-side explorer's, measured as
    tests/browser.py measures them in JupyterLab): text under 9 px, or cut off; and every explorer the notebook
    stores is drawn (a page whose explorers all failed would otherwise have nothing to measure)."""
    measured = page.evaluate(browser.MEASURE_ALL_JS, EXPLORER_DRAWINGS)  # one round trip for them all
    stored = _explorers_stored(page_name)
    problems = [f"{page_name}: {len(measured)} explorers drawn, the notebook stores {stored}"] \
        if len(measured) != stored else []
    for i, seen in enumerate(measured):
        if seen["cut"] or (seen["minTextPx"] or browser.MIN_TEXT_PX) < browser.MIN_TEXT_PX - 0.01:
            problems.append(f"{page_name}: explorer {i}: text {seen['minTextPx']:.1f} px, cut off: {seen['cut']}")
    return problems


@needs_chromium
def test_pages_load_cleanly_with_readable_figures_in_chromium(site, chromium):
    pages = ["docs/index.html"] + [f"notebooks/{key}.html" for key in CHAPTERS] + ["docs/reading-guide.html"]
    problems = []
    for name in pages:
        _open(chromium, site / name, _explorers_stored(name))
        problems += _figure_problems(chromium.evaluate(FIGURES_JS), name) + _explorer_problems(chromium, name)
        problems += [f"{name}: console error: {e}" for e in chromium.errors]
    assert not chromium.fetched, "the site fetched from the network:\n" + "\n".join(chromium.fetched)
    assert not problems, "\n".join(problems)


@needs_chromium
def test_search_finds_the_chapters_from_file(site, chromium):
    chromium.errors.clear()
    chromium.goto((site / "search.html").as_uri() + "?q=NextIteration")
    chromium.wait_for_selector("#search-results li a")
    found = {pathlib.Path(urllib.parse.urlsplit(a).path).name for a in
             chromium.eval_on_selector_all("#search-results li a", "links => links.map(a => a.href)")}
    assert {"01_the_five_primitives.html", "02_while_loop_lowered.html"} <= found, found
    assert not chromium.errors, chromium.errors


def _tour_has_the_browser_explorer():
    state = _notebook("00_tour")["metadata"].get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    return any(model["model_module"] == "anywidget" for model in state.values())


@needs_chromium
@pytest.mark.xfail(not _tour_has_the_browser_explorer(), strict=True,
                   reason="notebooks/00_tour.ipynb was executed before the explorer stepped in the browser (its "
                          "widgets call the kernel): re-execute the course with tools/execute_notebooks.py")
def test_the_tour_explorer_switches_views_and_plays_on_the_page(site, chromium):
    tour = site / "notebooks" / "00_tour.html"
    assert '"model_module": "anywidget"' in tour.read_text(), "the tour's explorer is not the browser-side one"
    page = chromium
    _open(page, tour)
    page.wait_for_selector(".cfnb-explorer .cfnb-explorer-drawing svg")
    explorer = page.locator(".cfnb-explorer").first
    explorer.scroll_into_view_if_needed()
    drawing = explorer.locator(".cfnb-explorer-drawing")

    def click_view(view):
        before = drawing.inner_html()
        explorer.locator(f'button.cfnb-view[data-view="{view}"]').click()
        page.wait_for_function("([el, before]) => el.innerHTML !== before",
                               arg=[drawing.element_handle(), before])
        assert "cfnb-active" in explorer.locator(f'button.cfnb-view[data-view="{view}"]').get_attribute("class")
        return drawing.inner_html()

    if "cfnb-active" in (explorer.locator('button.cfnb-view[data-view="lowered"]').get_attribute("class") or ""):
        click_view("functional")
    lowered = click_view("lowered")
    assert ">Merge<" in lowered and ">Switch<" in lowered and ">NextIteration<" in lowered
    seen = drawing.locator("svg").evaluate(browser.MEASURE_JS)   # the explorer's own legibility check
    assert not seen["cut"] and seen["minTextPx"] >= browser.MIN_TEXT_PX - 0.01, seen

    explorer.locator("button.cfnb-next").click()   # a firing node is highlighted from the first step on
    start = (explorer.get_attribute("data-firing"), explorer.locator(".cfnb-readout").inner_text())
    explorer.locator("button.cfnb-play").click()
    page.wait_for_function("([el, node, readout]) => el.dataset.firing && el.dataset.firing !== node"
                           " && el.querySelector('.cfnb-readout').textContent !== readout",
                           arg=[explorer.element_handle(), *start], timeout=20_000)
    assert explorer.locator(".cfnb-firing").count() == 1
    assert int(explorer.locator(".cfnb-readout").inner_text().split("/")[0]) > int(start[1].split("/")[0])
    explorer.locator("button.cfnb-play").click()   # pause
    assert not page.errors and not page.fetched, (page.errors, page.fetched)
