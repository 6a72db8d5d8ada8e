"""`make lab` (tools/lab.py): the server's root is the repository, so every relative link of the course
resolves; the tour opens first; JupyterLab's first-start news question is answered in the environment's
own settings directory. (tests/test_browser.py checks in Chromium that the question does not show.)"""
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import lab  # noqa: E402

LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _markdown_of_the_course():
    yield ROOT / "notebooks" / "README.md", (ROOT / "notebooks" / "README.md").read_text()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        yield path, "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def test_the_server_root_is_the_repository_and_the_tour_opens_first(tmp_path):
    cmd = lab.lab_command(tmp_path)
    assert f"--ServerApp.root_dir={ROOT}" in cmd and f"--LabApp.app_settings_dir={tmp_path}" in cmd
    assert cmd[-1] == str(ROOT / "notebooks" / "00_tour.ipynb")


def test_the_server_starts_with_rfc3987_syntax_deferred():
    """`make lab` and the browser tests start JupyterLab through tools/lab_server.py, which puts the stand-in of
    tools/lazy_rfc3987.py in place first, as the repository's conftest.py does in this process: jsonschema (imported
    here by nbformat, there by jupyter_events) has not imported the real module."""
    import jsonschema  # noqa: F401  (what imports rfc3987_syntax)
    assert lab.lab_command(ROOT)[1] == str(ROOT / "tools" / "lab_server.py")
    assert "defer_rfc3987_syntax()" in (ROOT / "tools" / "lab_server.py").read_text()
    assert sys.modules["rfc3987_syntax"].__doc__.startswith("Stands for rfc3987_syntax until it is used")


def test_every_relative_link_of_the_course_resolves_under_the_server_root():
    checked = 0
    for path, text in _markdown_of_the_course():
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            resolved = (path.parent / target).resolve()
            assert resolved.exists(), (path.name, target)
            assert ROOT in resolved.parents, (path.name, target)  # served: under the root
            checked += 1
    assert checked > 10
    assert any("reading-guide.md" in t for _, text in _markdown_of_the_course() for t in LINK.findall(text))


def test_the_news_question_is_answered_in_the_settings_dir(tmp_path):
    (tmp_path / "overrides.json").write_text(json.dumps({"other:plugin": {"x": 1}}))
    path = lab.write_overrides(tmp_path)
    settings = json.loads(path.read_text())
    assert settings["@jupyterlab/apputils-extension:notification"] == {"fetchNews": "false", "checkForUpdates": False}
    assert settings["other:plugin"] == {"x": 1}  # merged, not replaced
    assert lab.app_settings_dir() == pathlib.Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings"
