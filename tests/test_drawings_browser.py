"""The course's key drawings, measured in Debian's Chromium the way a learner sees them.

The building cells of chapters 02, 05, 06, 07, 08 and 10 run, unchanged, in a real IPython shell (the notebooks'
own code, read from the .ipynb files), and every SVG figure they show is put into one page (each in a shadow root
of its own) at a notebook's output width, 960 px: as an `<img>` (how JupyterLab shows an SVG output: at its
natural size, cut off past the edge) and inline (so the browser can say how big each text is on screen). Each must
be at most 960 px wide with no text below 9 px at the default zoom, and `cfnb.viz.measure` must agree with the
browser.

Needs Chromium (`apt-get install chromium`) and the `test` extra (playwright); Playwright's own browser download is
never used. Skipped, with the reason, when either is missing.
"""
import os
import pathlib
import shutil

import pytest
from browser import CHROMIUM, chromium  # tests/browser.py: Chromium as the browser tests launch it

import cfnb
from cfnb import viz

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHAPTERS = ("02_while_loop_lowered", "05_cond_gradients", "06_while_gradients", "07_functional_while_if",
            "08_python_to_graphs", "10_distributed")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (sudo apt-get install chromium)"),
    pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed"),
    pytest.mark.filterwarnings("ignore:%%whileloop:UserWarning"),  # chapter 08's float32 loop warns, as it should
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[test]')")

# Every figure on one page, each in a shadow root of its own (an SVG's <style> stays inside it): as an <img> in a
# 960 px column and inline. Its smallest text on screen: font size times the text's scale from the SVG's viewBox
# and transforms.
MEASURE_JS = """async (svgs) => {
  const shown = svgs.map((svg) => {
    const host = document.createElement('section');
    document.body.append(host);
    const root = host.attachShadow({mode: 'open'});
    root.innerHTML = '<div style="width:960px"><img></div><div class="inline"></div>';
    root.querySelector('.inline').innerHTML = svg;
    const img = root.querySelector('img');
    img.src = 'data:image/svg+xml,' + encodeURIComponent(svg);
    return {root, img};
  });
  await Promise.all(shown.map(({img}) => img.decode().catch(() => null)));
  return shown.map(({root, img}) => {
    const svg = root.querySelector('.inline svg');
    let font = Infinity;
    for (const t of svg.querySelectorAll('text')) {
      const m = t.getScreenCTM();
      font = Math.min(font, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b));
    }
    return {width: svg.getBoundingClientRect().width, img: img.naturalWidth, font: font};
  });
}"""

def _figures_of(ip, chapter):
    """(cell label, SVG) for every SVG figure the chapter's cells show, run in `ip`."""
    from IPython.utils.capture import capture_output
    found = []
    nb = nbformat.read(ROOT / "notebooks" / f"{chapter}.ipynb", as_version=4)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        with capture_output() as captured:
            result = ip.run_cell(cell.source)
        if not result.success:
            raise AssertionError(f"{chapter} cell {k} failed: {result.error_before_exec or result.error_in_exec}")
        bundles = [out.data for out in captured.outputs]
        if result.result is not None:
            bundles.append(ip.display_formatter.format(result.result)[0])
        found += [(f"{chapter}[{k}]", data["image/svg+xml"]) for data in bundles if "image/svg+xml" in data]
    return found


@pytest.fixture(scope="module")
def figures(ip):
    cwd, before = os.getcwd(), set(ip.user_ns)
    os.chdir(ROOT / "notebooks")  # chapter 10 reads ../tests/conformance/ as the notebook does
    try:
        return {chapter: _figures_of(ip, chapter) for chapter in CHAPTERS}
    finally:
        os.chdir(cwd)
        for name in set(ip.user_ns) - before:
            del ip.user_ns[name]
        cfnb.disable_control_flow_v2()
        cfnb.reset_default_graph()


def test_every_key_figure_fits_the_page_with_readable_text(figures):
    assert all(figures[c] for c in CHAPTERS), {c: len(f) for c, f in figures.items()}
    labels, svgs = zip(*(figure for chapter in CHAPTERS for figure in figures[chapter]))
    with chromium(width=1000, height=800) as page:
        page.set_content("<!doctype html><html><body></body></html>")
        measured = {label: (m, viz.measure(svg)) for label, svg, m in
                    zip(labels, svgs, page.evaluate(MEASURE_JS, list(svgs)))}
    bad = {k: m for k, (m, _) in measured.items() if max(m["width"], m["img"]) > 960.5 or m["font"] < 9 - 0.01}
    assert not bad, f"figures cut off or with text below 9 px: {bad}"
    for label, (m, ours) in measured.items():  # cfnb.viz.measure says what the browser says
        assert abs(m["width"] - ours.width) < 1.5 and abs(m["font"] - ours.font_px) < 0.2, (label, m, ours)
    assert len(measured) >= 12


def test_the_key_figures_speak_the_lesson(figures):
    text = {c: " ".join(svg for _, svg in figures[c]) for c in CHAPTERS}
    assert "stack of v" in text["06_while_gradients"] and "\u2207" in text["06_while_gradients"]
    assert "StackState" not in "".join(text.values())
    assert "&gt; loop again?" in text["07_functional_while_if"] or "loop again?" in text["07_functional_while_if"]
    ch10 = figures["10_distributed"]
    loops = [svg for _, svg in ch10 if ">control loop</text>" in svg]
    assert loops and all('<g id="device_1" class="cluster">' in svg for svg in loops)
