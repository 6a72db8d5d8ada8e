"""The explorer in a real browser: JupyterLab in Debian's Chromium, driven by Playwright.

Opens JupyterLab on a free localhost port, runs the tour (00_tour.ipynb, copied to a temporary
folder), and on the tour's last explorer — the second display of `_loop.explorer()`, where a
shared Play widget used to advance one step and stop — clicks the three view buttons, moves the
slider, presses Play, and checks that the drawing changes and the step advances past 5.

Needs Chromium (`apt-get install chromium`; `make setup` installs it as root) and the `test` extra
(jupyterlab, playwright). Playwright's own browser download is never used: it launches the
system's Chromium through `executable_path`. Skipped, with the reason, when either is missing.
"""
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM = next(filter(None, map(shutil.which, BROWSERS)), None)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (sudo apt-get install chromium)"),
    pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("jupyterlab", reason="jupyterlab is not installed (pip install -e '.[test]')")

TIMEOUT_MS = 60_000


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on a free port, serving a copy of the tour; yields its base URL and token."""
    shutil.copy(ROOT / "notebooks" / "00_tour.ipynb", tmp_path / "00_tour.ipynb")
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces")}
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp_path}",
           "--LabApp.expose_app_in_browser=True", "--ServerApp.port_retries=0"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp_path / "lab.log", "w")
    server = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start:\n" + (tmp_path / "lab.log").read_text()) from None
                time.sleep(0.3)
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _step(explorer):
    return int(explorer.locator(".widget-readout").inner_text().strip())


def test_the_tour_explorer_works_in_chromium(lab):
    base, token = lab
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(f"{base}/lab/tree/00_tour.ipynb?reset&token={token}")
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                                   " && window.jupyterapp.shell.currentWidget.sessionContext"
                                   " && window.jupyterapp.shell.currentWidget.sessionContext.session"
                                   " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
                                   " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
                                   " === 'idle'")
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function("() => document.querySelectorAll('.cfnb-explorer .cfnb-explorer-drawing svg')"
                                   ".length >= 2")
            explorer = page.locator(".cfnb-explorer").last  # the second display: widgets of its own
            explorer.scroll_into_view_if_needed()
            drawing = explorer.locator(".cfnb-explorer-drawing")

            def wait_for_new_drawing(before):
                page.wait_for_function("([el, before]) => el.innerHTML !== before && el.querySelector('svg')",
                                       arg=[drawing.element_handle(), before])
                return drawing.inner_html()

            # the three view buttons each show another drawing
            buttons = {name: explorer.locator("button.widget-toggle-button", has_text=name)
                       for name in ("functional", "lowered", "gradient")}
            active = [n for n, b in buttons.items() if "mod-active" in (b.get_attribute("class") or "")]
            shown = {}
            for name in sorted(buttons, key=lambda n: n in active):  # the view shown now last, so each click changes it
                before = drawing.inner_html()
                buttons[name].click()
                shown[name] = wait_for_new_drawing(before)
            assert len(set(shown.values())) == 3
            assert "While" in shown["functional"] and "StackPushV2" in shown["gradient"]

            # the slider: drag it near its start
            track = explorer.locator(".noUi-target").first
            box = track.bounding_box()
            handle = explorer.locator(".noUi-handle").first
            hbox = handle.bounding_box()
            before, step_before = drawing.inner_html(), _step(explorer)
            page.mouse.move(hbox["x"] + hbox["width"] / 2, hbox["y"] + hbox["height"] / 2)
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] * 0.02, box["y"] + box["height"] / 2, steps=8)
            page.mouse.up()
            page.wait_for_function("([el, s]) => parseInt(el.innerText) !== s",
                                   arg=[explorer.locator(".widget-readout").element_handle(), step_before])
            wait_for_new_drawing(before)
            start = _step(explorer)
            assert start < step_before and start <= 5

            # Play steps on by itself, past step 5, and the drawing follows
            before = drawing.inner_html()
            explorer.locator(".widget-play button").first.click()
            page.wait_for_function("([el, s]) => parseInt(el.innerText) > Math.max(5, s + 2)",
                                   arg=[explorer.locator(".widget-readout").element_handle(), start], timeout=30_000)
            assert _step(explorer) > 5
            wait_for_new_drawing(before)
            caption = explorer.locator(".cfnb-explorer-caption").inner_text()
            assert caption.startswith("step ") and int(caption.split(":")[0].split()[1]) > 5, caption
        finally:
            browser.close()
