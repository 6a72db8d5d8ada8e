"""What the browser tests share: Debian's Chromium under Playwright, a JupyterLab server started the way
`make lab` starts it (tools/lab.py), and the measurements of what a reader sees (JavaScript run in the page).

Playwright's own browser download is never used: it launches the system's Chromium through
`executable_path`, with the flags this machine's closed network needs; a test file launches it once and
gives each test a fresh page in a new browser context (a fresh profile). Each JupyterLab server gets fresh
settings, data (so no notebook is trusted), runtime and workspace folders in the test's tmp_path.
"""
import contextlib
import functools
import json
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import lab as lab_tool  # noqa: E402  (tools/lab.py: what `make lab` runs)

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM = next(filter(None, map(shutil.which, BROWSERS)), None)
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 60_000
POLL_MS = 50  # how often a page's wait_for_function checks (see fresh_page)
# A viewport this short, for tests whose measurements do not depend on its height (widths, fonts and clipping
# are laid out the same; a click scrolls its target into view): Chromium composites every frame of the whole
# viewport in software, about 9 ms a frame at 1400 x 1000, and a page that loads draws some 30 frames a second.
SHORT = 400
MIN_TEXT_PX = 9


@contextlib.contextmanager
def launched():
    """Headless Chromium under Playwright: one browser process, for as many fresh pages (`fresh_page`) as a test
    file needs (a launch and its shutdown cost about 2 CPU-seconds)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def fresh_page(browser, width=1400, height=1000):
    """A page in a new context of `browser` (a fresh profile: no cookies, storage or cache shared with any other
    page); console errors and uncaught exceptions are collected in `page.errors`.

    Its `wait_for_function` checks every POLL_MS unless told otherwise: Playwright's default checks on every
    animation frame, which keeps Chromium drawing 60 frames a second for as long as a test waits (about 0.1
    CPU-s per second of waiting, against 0.005)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.wait_for_function = functools.partial(page.wait_for_function, polling=POLL_MS)
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
        yield page
    finally:
        context.close()


@contextlib.contextmanager
def chromium(width=1400, height=1000):
    """A fresh page in a Chromium of its own (`launched` and `fresh_page`)."""
    with launched() as browser, fresh_page(browser, width, height) as page:
        yield page


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(tmp_path, root):
    """A JupyterLab server on a free port serving `root`, configured as `make lab` configures it; yields
    its base URL and token."""
    port, token = _free_port(), secrets.token_hex(16)
    dirs = {name: tmp_path / name for name in ("settings", "user-settings", "data", "runtime", "workspaces",
                                                "config")}
    lab_tool.write_overrides(dirs["settings"])
    # render every cell at once (JupyterLab renders only the cells near the view by default), so a test
    # can measure every output of a notebook without scrolling it
    overrides = dirs["settings"] / "overrides.json"
    settings = json.loads(overrides.read_text())
    settings["@jupyterlab/notebook-extension:tracker"] = {"windowingMode": "none"}
    overrides.write_text(json.dumps(settings))
    env = {**os.environ, "JUPYTER_DATA_DIR": str(dirs["data"]), "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
           "JUPYTER_CONFIG_DIR": str(dirs["config"]), "JUPYTERLAB_SETTINGS_DIR": str(dirs["user-settings"]),
           "JUPYTERLAB_WORKSPACES_DIR": str(dirs["workspaces"])}
    cmd = lab_tool.lab_command(dirs["settings"], "--no-browser", "--ip=127.0.0.1", f"--port={port}",
                               f"--IdentityProvider.token={token}", "--LabApp.expose_app_in_browser=True",
                               "--ServerApp.port_retries=0", root=root, open_file=None)
    log = open(tmp_path / "lab.log", "w")
    server = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
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


def open_lab(page, base, token):
    """Load JupyterLab in `page` with no document open (`?reset`: the default workspace) and wait until it has
    restored itself; documents are then opened in it with `open_in_lab`."""
    page.goto(f"{base}/lab?reset&token={token}")
    page.wait_for_function("() => window.jupyterapp")
    page.evaluate("async () => { await window.jupyterapp.restored; }")


def open_in_lab(page, path, kernel=True):
    """Open `path` in the JupyterLab loaded in `page`, closing what was open (JupyterLab's `application:close-all`
    and `docmanager:open` commands, what its file browser runs on a double-click, or with `kernel=False` on "Open
    With > Notebook (no kernel)"): the app's scripts load once, not once per notebook as a page load would
    (about 6 CPU-seconds each). With `kernel`, wait until the notebook's kernel is idle."""
    page.evaluate("""async ([path, kernel]) => {
        const app = window.jupyterapp;
        await app.commands.execute('application:close-all');
        const noKernel = {kernelPreference: {shouldStart: false, shouldReuse: false}};
        const panel = await app.commands.execute('docmanager:open',
                                                 {path, factory: 'Notebook', ...(kernel ? {} : noKernel)});
        app.shell.activateById(panel.id);
        await panel.context.ready;
    }""", [path, kernel])
    if kernel:
        page.wait_for_function("() => { const w = window.jupyterapp.shell.currentWidget;"
                               " const k = w.sessionContext.session && w.sessionContext.session.kernel;"
                               " return k && k.status === 'idle'; }")


# What a reader sees of one picture: JavaScript run on an <img> (a data: URL SVG) or an inline <svg>.
# Text size: the SVG's smallest font-size in its own units times the displayed px per unit.
# Cut off: the picture's right or bottom edge beyond its clipping box, when that box cannot scroll.
MEASURE_JS = r"""
(el) => {
  let svg = el, scale;
  if (el.tagName.toLowerCase() === 'img') {
    const src = el.getAttribute('src') || '';
    if (!src.startsWith('data:image/svg+xml')) {
      return {kind: 'raster', width: el.clientWidth, loaded: el.naturalWidth > 0};
    }
    const b64 = src.includes(';base64,');
    const text = b64 ? atob(src.split(';base64,')[1]) : decodeURIComponent(src.split(',').slice(1).join(','));
    svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
  }
  const vb = (svg.getAttribute('viewBox') || '').split(/[ ,]+/).map(Number);
  const unitsWide = vb.length === 4 ? vb[2] : parseFloat(svg.getAttribute('width'));
  const shown = el.getBoundingClientRect();
  scale = shown.width / unitsWide;
  const inner = /scale\(([\d.]+)/.exec((svg.querySelector('#graph0') || svg).getAttribute('transform') || '');
  if (inner) scale *= parseFloat(inner[1]);  // graphviz scaled the drawing down to a size (viz.drawing)
  const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size') ||
      (t.closest('[font-size]') || {getAttribute: () => '14'}).getAttribute('font-size')));
  const fonts = sizes.filter(s => s > 0);
  let clip = el.parentElement, cut = false;
  while (clip && clip !== document.body) {
    const style = getComputedStyle(clip);
    if (style.overflowX !== 'visible' || style.overflowY !== 'visible') {
      const box = clip.getBoundingClientRect();
      const scrolls = /(auto|scroll)/.test(style.overflowX) && /(auto|scroll)/.test(style.overflowY);
      const beyond = shown.right - box.right > 1 || shown.bottom - box.bottom > 1 || box.left - shown.left > 1;
      if (beyond && !scrolls) { cut = true; break; }
      if (scrolls) break;
    }
    clip = clip.parentElement;
  }
  return {kind: 'svg', width: shown.width, loaded: el.tagName.toLowerCase() !== 'img' || el.naturalWidth > 0,
          minTextPx: fonts.length ? Math.min(...fonts) * scale : null, cut,
          texts: [...svg.querySelectorAll('text')].map(t => t.textContent)};
}
"""

# MEASURE_JS on every element `selector` finds, in one call (not two round trips per picture).
MEASURE_ALL_JS = "(selector) => [...document.querySelectorAll(selector)].map(" + MEASURE_JS.strip() + ")"

# Is the firing node of the explorer in `root` (an element holding one explorer, or the document) inside the
# visible part of its scroll box? null when no node fires (the step's node is not drawn in this view).
FIRING_IN_VIEW_JS = """
(root) => {
  const explorer = root.querySelector('.cfnb-explorer'), firing = explorer.dataset.firing;
  if (!firing) return null;
  const box = explorer.querySelector('.cfnb-explorer-drawing');
  const r = box.querySelector(`[id="${firing}"]`).getBoundingClientRect(), b = box.getBoundingClientRect();
  return r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom;
}
"""
