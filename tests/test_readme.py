"""The README's first program runs as printed."""
import contextlib
import io
import pathlib
import re


def test_readme_example_runs_and_prints_eleven():
    text = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
    code = re.search(r"## A first program\n\n```python\n(.*?)```", text, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - our own README
    printed = out.getvalue()
    assert "while/Enter = Enter(Const)" in printed
    assert "\n11\n" in printed
    assert "while/Exit" in printed and "live" in printed
