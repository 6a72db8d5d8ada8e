"""Open the course in JupyterLab: what `make lab` runs.

    .venv/bin/python tools/lab.py [extra jupyter lab arguments]

The server's root is the repository (so the notebooks' links to `../docs/reading-guide.md` and to the
code resolve), and it opens the first chapter, notebooks/00_tour.ipynb. JupyterLab's first-start
question "get notified about Jupyter news?" would cover the explorer: an `overrides.json` in the
server's own application settings directory (inside this environment, never the user's home) answers
it "no" and turns off the update check. As root (a container) it passes `--allow-root`; without a
display it passes `--no-browser` and the URL with its token is printed to open by hand.
"""
import json
import os
import pathlib
import platform
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIRST_CHAPTER = "notebooks/00_tour.ipynb"
SERVER = pathlib.Path(__file__).resolve().parent / "lab_server.py"  # `jupyter lab`, started faster
OVERRIDES = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}


def app_settings_dir():
    """This environment's JupyterLab application settings directory (where overrides.json is read)."""
    return pathlib.Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings"


def write_overrides(settings_dir):
    """Write (merging with what is there) the settings overrides that keep first-start pop-ups away."""
    path = pathlib.Path(settings_dir) / "overrides.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    current = json.loads(path.read_text()) if path.exists() else {}
    for plugin, values in OVERRIDES.items():
        current.setdefault(plugin, {}).update(values)
    path.write_text(json.dumps(current, indent=2) + "\n")
    return path


def lab_command(settings_dir, *extra, root=ROOT, open_file=FIRST_CHAPTER):
    """The `jupyter lab` command line (run by lab_server.py): `root` served, `open_file` (relative to it) opened,
    the given settings dir."""
    cmd = [sys.executable, str(SERVER), f"--ServerApp.root_dir={root}",
           f"--LabApp.app_settings_dir={settings_dir}", *extra]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd + ([str(pathlib.Path(root) / open_file)] if open_file else [])


def main(argv):
    settings = app_settings_dir()
    write_overrides(settings)
    extra = list(argv)
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and platform.system() != "Darwin":
        extra.append("--no-browser")
        print("No display: open the URL with its token, printed below, in a browser.")
    cmd = lab_command(settings, *extra)
    print(" ".join(cmd[1:]))
    os.execv(sys.executable, cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
