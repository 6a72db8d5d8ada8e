"""What a reader sees, in a real browser: Debian's Chromium driven by Playwright (helpers in browser.py).

- The tour in JupyterLab (started as `make lab` starts it): its last explorer — the second display of
  `_loop.explorer()` — switches views, steps with the slider and Play, keeps the firing node in its box,
  and still steps after the kernel is shut down (stepping runs in the page). No first-start news pop-up.
- Explorers of six student-style cells (Newton, for/continue over an array, nested loops, an RNN with
  `--grad`, if/else in a loop, bisection), from their static HTML (what a static export or the course
  site shows, no kernel and no widget manager): in every view, at the lesson's level of detail and with
  every node, nothing cut off, text >= 9 px at the default zoom, the firing node in view after Play (and
  at 200%), the page's caption equal to Python's, and the drawing's classes (unfired, dead, firing) those
  of the trace after Play and one Previous step back. Driven in the page, one round trip per explorer.
- Every course notebook opened unrun and untrusted in JupyterLab (the page the tour test ran its own copy
  in), with no kernel (JupyterLab's "Open With > Notebook (no kernel)": an unrun notebook shows the same
  either way, and twelve kernels would cost more than the rest of the test): every committed picture shows
  (an image, not its text), readable (text >= 9 px) and not cut off. `CFNB_NOTEBOOKS=DIR` checks the
  notebooks in DIR instead (executed copies, before the course is re-executed).

One Chromium serves the file, each test on a fresh page (a new browser context); the two JupyterLab tests
share one page of JupyterLab, loaded once. Skipped, with the reason, where Chromium, Playwright, JupyterLab
or Graphviz's dot is missing.
"""
import importlib.util
import json
import os
import pathlib
import shutil

import pytest
from browser import (
    CHROMIUM,
    FIRING_IN_VIEW_JS,
    MEASURE_ALL_JS,
    MEASURE_JS,
    MIN_TEXT_PX,
    ROOT,
    SHORT,
    fresh_page,
    jupyterlab,
    launched,
    open_in_lab,
    open_lab,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (sudo apt-get install chromium)"),
    pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
# found, not imported: JupyterLab runs as a server of its own, and importing it cost each xdist worker a CPU-second
# at collection (whichever worker runs this file, every worker collects it)
for _module, _reason in [("jupyterlab", "jupyterlab is not installed (pip install -e '.[test]')"),
                         ("anywidget", "anywidget is not installed (pip install -e .)")]:
    if importlib.util.find_spec(_module) is None:
        pytest.skip(_reason, allow_module_level=True)


def _step(explorer):
    return int(explorer.locator(".cfnb-readout").inner_text().split("/")[0])


def _firing_in_view(holder):
    """Is the firing node of the explorer in `holder` (a locator) in view in its box? (None: nothing fires in
    this view.) One round trip."""
    return holder.evaluate(FIRING_IN_VIEW_JS)


def _notebooks_dir():
    return pathlib.Path(os.environ.get("CFNB_NOTEBOOKS", ROOT / "notebooks")).resolve()


@pytest.fixture(scope="module")
def chromium():
    """One Chromium for this file's tests (a launch costs about 2 CPU-s), each test on a fresh page of it; closed
    after the file (Playwright's sync API keeps an asyncio loop in this thread while it is open)."""
    with launched() as browser:
        yield browser


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One JupyterLab server (started as `make lab` starts it: about 7 s and 5 CPU-s) for this file's two
    JupyterLab tests: it serves the course as committed (notebooks/ from
    `_notebooks_dir()`, docs/), never run or trusted, and a copy of the tour in tour/ for the test that runs it."""
    served = tmp_path_factory.mktemp("lab") / "served"
    shutil.copytree(_notebooks_dir(), served / "notebooks")
    shutil.copytree(ROOT / "docs", served / "docs")
    (served / "tour").mkdir()
    shutil.copy(ROOT / "notebooks" / "00_tour.ipynb", served / "tour" / "00_tour.ipynb")
    with jupyterlab(served.parent, served) as (base, token):
        yield base, token, served


@pytest.fixture(scope="module")
def lab_page(lab, chromium):
    """JupyterLab loaded once (about 6 CPU-s of Chromium) in a fresh page, for the two JupyterLab tests: each
    opens its notebooks in it with `open_in_lab`, which closes whatever was open."""
    base, token, _ = lab
    with fresh_page(chromium, height=SHORT) as page:  # the pictures measure the same at 1000 px high
        open_lab(page, base, token)
        yield page


def test_the_tour_explorer_works_in_chromium(lab_page):
    page = lab_page
    open_in_lab(page, "tour/00_tour.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function("() => document.querySelectorAll('.cfnb-explorer .cfnb-explorer-drawing svg')"
                           ".length >= 2")
    assert page.get_by_text("Would you like to get notified").count() == 0  # make lab's settings answer it
    explorer = page.locator(".jp-OutputArea-output:has(.cfnb-explorer)").last  # the second display
    explorer.scroll_into_view_if_needed()
    drawing = explorer.locator(".cfnb-explorer-drawing")

    shown = {}
    for name in ("functional", "lowered", "gradient"):
        explorer.locator("button.cfnb-view", has_text=name).click()
        page.wait_for_function("([el, v]) => el.querySelector(`button.cfnb-view.cfnb-active`).textContent === v",
                               arg=[explorer.element_handle(), name])
        shown[name] = drawing.inner_html()
    assert len(set(shown.values())) == 3
    assert "While" in shown["functional"] and "StackPushV2" in shown["gradient"]

    slider = explorer.locator("input.cfnb-slider")
    slider.fill("2")  # a range input: sets the value and fires `input`
    assert _step(explorer) == 2
    caption = explorer.locator(".cfnb-explorer-caption").inner_text()
    assert caption.startswith("step 2: ") and "iteration" in caption or "root frame" in caption, caption

    explorer.locator("select.cfnb-speed").select_option("40")  # 25 steps/s
    explorer.locator("button.cfnb-play").click()
    page.wait_for_function("([el]) => parseInt(el.innerText) > 30",
                           arg=[explorer.locator(".cfnb-readout").element_handle()], timeout=30_000)
    explorer.locator("button.cfnb-play").click()  # pause
    assert _firing_in_view(explorer) is True
    step = _step(explorer)
    assert explorer.locator(".cfnb-explorer-caption").inner_text().startswith(f"step {step}: ")

    # stepping runs in the page: it goes on after the kernel is gone
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.sessionContext.session")
    explorer.locator("button.cfnb-next").click()
    assert _step(explorer) == step + 1
    assert explorer.locator(".cfnb-explorer-caption").inner_text().startswith(f"step {step + 1}: ")


def _executed_notebook(tmp_path, cells):
    """A notebook of `cells`, run by a real kernel (nbclient), as tools/execute_notebooks.py runs the course."""
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    return nb


def test_a_static_html_export_steps_with_no_kernel_and_no_network(chromium, tmp_path):
    """nbconvert's HTML of an executed notebook, opened from file:// with every http(s) request refused: the
    explorer's own HTML (drawings, trace and script all inside it) switches views and plays."""
    from nbconvert import HTMLExporter
    nb = _executed_notebook(tmp_path, ["%load_ext cfnb",
                                       "%%whileloop --grad v:x\nx = 2.0\nv = x\nwhile v < 8.0:\n    v = v * v"])
    nb.metadata.pop("widgets", None)  # without a widget manager (that would come from a CDN), the page shows
    page_path = tmp_path / "tour.html"  # the output's text/html: the explorer itself
    page_path.write_text(HTMLExporter().from_notebook_node(nb)[0])
    with fresh_page(chromium, height=SHORT) as page:
        refused = []
        page.context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            ("file:", "blob:", "data:")) else (refused.append(route.request.url), route.abort()))
        page.goto(page_path.as_uri())
        page.wait_for_function("() => document.querySelectorAll('.cfnb-explorer svg').length === 1")
        explorer = page.locator(".cfnb-explorer")
        before = explorer.locator(".cfnb-explorer-drawing").inner_html()
        explorer.locator("button.cfnb-view", has_text="gradient").click()
        assert "StackPushV2" in explorer.locator(".cfnb-explorer-drawing").inner_html() != before
        explorer.locator("select.cfnb-speed").select_option("40")
        explorer.locator("button.cfnb-play").click()
        page.wait_for_function("([el]) => parseInt(el.innerText) > 10",
                               arg=[explorer.locator(".cfnb-readout").element_handle()])
        explorer.locator("button.cfnb-play").click()  # pause
        assert _firing_in_view(page.locator("body")) is True
        # only nbconvert's own page template asks the network for anything (require.js, MathJax)
        assert all("cdnjs.cloudflare.com" in url for url in refused), refused
        assert [e for e in page.errors if "Failed to load resource" not in e] == []


STUDENT_CELLS = {
    "newton": ("", "x = 1.0\nsteps = 0\nwhile abs(x * x - 2.0) > 1e-9:\n    x = x - (x * x - 2.0) / (2.0 * x)\n"
                   "    steps += 1", ["x", "steps"]),
    "for_continue": ("", "xs = np.array([3.0, -1.0, 4.0, 1.0])\ntotal = 0.0\nfor x in xs:\n    if x < 0:\n"
                         "        continue\n    total += np.sqrt(x)", ["total"]),
    "nested": ("", "total = 0\nk = 0\nwhile k < 3:\n    j = 0\n    while j < 2:\n        total += j\n"
                   "        j += 1\n    k += 1", ["total", "k", "j"]),
    "rnn_grad": ("--grad h:w", "xs = np.array([0.5, -1.0, 2.0])\nw = 0.8\nh = 0.0\nfor x in xs:\n"
                               "    h = np.tanh(w * h + x)", ["h"]),
    "if_else": ("", "evens = 0\nodds = 0\ni = 0\nwhile i < 5:\n    if i % 2 == 0:\n        evens += i\n"
                    "    else:\n        odds += i\n    i += 1", ["evens", "odds", "i"]),
    "bisection": ("", "lo, hi = 0.0, 2.0\nwhile hi - lo > 1e-3:\n    mid = (lo + hi) / 2\n    if mid * mid > 2.0:\n"
                      "        hi = mid\n    else:\n        lo = mid", ["lo", "hi"]),
}


@pytest.fixture(scope="module")
def student_explorers(ip):
    import numpy as np
    before = set(ip.user_ns)
    ip.user_ns["np"] = np
    explorers = {}
    for name, (options, cell, _) in STUDENT_CELLS.items():
        ip.run_cell_magic("whileloop", f"--no-display --as _student {options}", cell)
        explorers[name] = ip.user_ns["_student"].explorer()
    for added in set(ip.user_ns) - before:  # the shell is shared: leave no `k` or `x` to later tests
        del ip.user_ns[added]
    return explorers


def _static_page(path, explorers):
    """A page of the explorers' static HTML, each in a 960 px column as in a notebook's output area."""
    body = "".join(f'<section id="{name}" style="width:960px;margin-bottom:40px">'
                   f'{e._repr_mimebundle_()["text/html"]}</section>' for name, e in explorers.items())
    path.write_text(f"<!doctype html><html><head><meta charset='utf-8'></head><body>{body}</body></html>")
    return path.as_uri()


# Every view of one student explorer, each at both levels of detail, driven in the page (the buttons' and
# inputs' own events, as a click or a drag sends them; the tour test clicks with Playwright's mouse): the
# drawing measured as MEASURE_JS measures a picture, then Play from step 0 at 25 steps/s until the step passes
# 3 (a MutationObserver on the readout: no polling), paused, and what the page shows read back (caption, the
# drawing's classes, and its classes one Previous step back). Then at 200% three Next steps, each with the firing
# node in view. One round trip per explorer.
EVERY_VIEW_JS = """async ([name, combos]) => {
  const measure = MEASURE_JS, inView = FIRING_IN_VIEW_JS;
  const section = document.querySelector(`section#${name}`), $ = (sel) => section.querySelector(sel);
  const set = (sel, value, event) => { const e = $(sel); e.value = value; e.dispatchEvent(new Event(event)); };
  const step = () => parseInt($('.cfnb-readout').textContent);
  const classes = () => [...$('.cfnb-explorer-drawing svg').querySelectorAll('g.node, g.cluster')].map((g) =>
    [g.id, ...['node', 'cfnb-unfired', 'cfnb-dead', 'cfnb-firing'].map((c) => g.classList.contains(c))]);
  const passes = (n) => new Promise((resolve, reject) => {
    const observer = new MutationObserver(() => step() > n && done(resolve));
    const timer = setTimeout(() => done(() => reject(new Error(`${name}: Play stopped at step ${step()}`))), 20000);
    const done = (then) => { observer.disconnect(); clearTimeout(timer); then(); };
    observer.observe($('.cfnb-readout'), {childList: true, characterData: true, subtree: true});
  });
  const seen = [];
  for (const [view, detail] of combos) {
    [...section.querySelectorAll('button.cfnb-view')].find((b) => b.textContent === view).click();
    if ($('input.cfnb-detail').checked !== (detail === 'all')) $('input.cfnb-detail').click();
    const m = measure($('.cfnb-explorer-drawing svg'));
    set('select.cfnb-speed', '40', 'change');
    set('input.cfnb-slider', '0', 'input');
    $('button.cfnb-play').click();
    await passes(3);
    $('button.cfnb-play').click();
    seen.push({view, detail, cut: m.cut, minTextPx: m.minTextPx, step: step(),
               caption: $('.cfnb-explorer-caption').innerText, inView: inView(section), classes: classes()});
    $('button.cfnb-prev').click();
    seen.at(-1).back = classes();
  }
  set('select.cfnb-zoom', '2', 'change');
  const zoomed = [];
  for (let k = 0; k < 3; k++) { $('button.cfnb-next').click(); zoomed.push(inView(section)); }
  set('select.cfnb-zoom', 'auto', 'change');
  return {seen, zoomed};
}""".replace("MEASURE_JS", MEASURE_JS.strip()).replace("FIRING_IN_VIEW_JS", FIRING_IN_VIEW_JS.strip())


def _check_classes(explorer, step, shown, where):
    """The classes explorer.js gives the drawing's elements at `step` (`shown`: [id, is a node, unfired, dead,
    firing] for each), against the trace: unfired (a node not fired yet), dead (its last firing was dead),
    firing (the element of the step's node)."""
    data, key, last = explorer.data, explorer.key, {}
    element = {i: per_view.get(key, [None])[0] for i, (_, _, per_view) in enumerate(data["nodes"])}
    for node, _, _, live, _ in data["steps"][:step + 1]:
        if element[node] is not None:
            last[element[node]] = live
    firing, used = element[data["steps"][step][0]], set(element.values())
    wrong = [(id_, flags) for id_, node, *flags in shown
             if id_ in used and flags != [node and id_ not in last, last.get(id_) == 0, id_ == firing]]
    assert wrong == [] and (firing is None or firing in {id_ for id_, *_ in shown}), (where, step, wrong[:3])


def test_student_explorers_are_readable_in_every_view(student_explorers, chromium, tmp_path):
    url = _static_page(tmp_path / "explorers.html", student_explorers)
    with fresh_page(chromium, width=1100, height=SHORT) as page:  # measured the same at 900 px high
        page.goto(url)
        page.wait_for_function(f"() => document.querySelectorAll('.cfnb-explorer svg').length === "
                               f"{len(student_explorers)}")
        for name, explorer in student_explorers.items():
            combos = [(v, d) for d in ("lesson", "all") for v in explorer.views]
            shown = page.evaluate(EVERY_VIEW_JS, [name, combos])
            assert [(m["view"], m["detail"]) for m in shown["seen"]] == combos
            for m in shown["seen"]:
                view, detail, step = m["view"], m["detail"], m["step"]
                assert not m["cut"], (name, view, detail)
                assert m["minTextPx"] >= MIN_TEXT_PX - 0.01, (name, view, detail, m["minTextPx"])
                assert step > 3, (name, view, detail)
                explorer.view, explorer.detail, explorer.step = view, detail, step
                assert m["caption"] == explorer.caption
                if explorer.highlighted is not None:
                    assert m["inView"] is True, (name, view, detail, step)
                _check_classes(explorer, step, m["classes"], (name, view, detail))
                _check_classes(explorer, step - 1, m["back"], (name, view, detail, "one step back"))
            assert False not in shown["zoomed"] and len(shown["zoomed"]) == 3, name  # at 200% the box follows too
        assert page.errors == []


@pytest.mark.parametrize("name", sorted(STUDENT_CELLS))
def test_captions_name_the_students_variables(student_explorers, name):
    explorer = student_explorers[name]
    explorer.view, explorer.detail = "lowered", "lesson"  # the view a cell opens in (the test above moves it)
    captions = set()
    for step in range(explorer.last_step + 1):
        explorer.step = step
        captions.add(explorer.caption)
    for variable in STUDENT_CELLS[name][2]:
        assert any(f"Merge {variable} (" in c for c in captions), variable


def _pictures_expected(nb_path):
    """How many outputs of the committed notebook hold a picture (SVG or PNG, an explorer included)."""
    nb = json.loads(nb_path.read_text())
    return sum(1 for cell in nb["cells"] for out in cell.get("outputs", ())
               if {"image/svg+xml", "image/png", "application/vnd.jupyter.widget-view+json"} & set(out.get("data", {})))


def test_notebooks_opened_unrun_and_untrusted_show_readable_pictures(lab, lab_page):
    _, _, served = lab
    page, problems = lab_page, []
    selector = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output img"
    for nb_path in sorted((served / "notebooks").glob("*.ipynb")):
        expected = _pictures_expected(nb_path)
        open_in_lab(page, f"notebooks/{nb_path.name}", kernel=False)
        try:
            page.wait_for_function(f"() => [...document.querySelectorAll('{selector}')]"
                                   f".filter(i => i.complete).length >= {expected}", timeout=20_000)
        except sync_api.TimeoutError:
            pass  # counted below
        measured = page.evaluate(MEASURE_ALL_JS, selector)  # every cell is rendered (jupyterlab(): no windowing)
        if len(measured) < expected:
            problems.append(f"{nb_path.name}: {len(measured)} of {expected} pictures show")
        for k, m in enumerate(measured):
            if not m["loaded"] or m.get("cut") or (m.get("minTextPx") or 99) < MIN_TEXT_PX - 0.01:
                problems.append(f"{nb_path.name} picture {k}: {m.get('width'):.0f} px wide, "
                                f"text {m.get('minTextPx')} px, cut off {m.get('cut')}, loaded {m['loaded']}")
        texts = page.locator(".jp-OutputArea-output").all_inner_texts()
        problems += [f"{nb_path.name}: shows {t.strip()[:60]!r}" for t in texts if t.strip().startswith("<cfnb ")]
    assert problems == [], "\n".join(problems)
