"""Re-execute the course notebooks in place, so their committed outputs are what nbval checks.

    .venv/bin/python tools/execute_notebooks.py [notebooks/NAME.ipynb ...]

Needs `nbclient` (installed with the `test` extra, through jupyterlab's nbconvert).
Run it after editing a notebook, then `make test`.

The widgets' state goes into each notebook's metadata (`store_widget_state`, nbclient's default, asked for here
by name because the course site depends on it): `make book` renders the explorers from that state, with no
kernel, and tests/test_book.py checks that every widget a notebook shows has its state there.
"""
import pathlib
import sys

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent


def execute(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in nb.cells:  # execution metadata holds timestamps; keep diffs to what matters
        cell.get("metadata", {}).pop("execution", None)
        for output in cell.get("outputs", []):  # a warning names its file: keep this checkout's path out
            if output.get("output_type") == "stream":
                output["text"] = output["text"].replace(str(ROOT) + "/", "")
    nbformat.write(nb, path)
    print(f"executed {path.relative_to(ROOT)}")


if __name__ == "__main__":
    paths = [pathlib.Path(p).resolve() for p in sys.argv[1:]] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for p in paths:
        execute(p)
