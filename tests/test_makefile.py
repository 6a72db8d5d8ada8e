"""The Makefile's choice of the interpreter `.venv` is made from (read from `make -n`, which prints the recipe without
running it): the distribution's /usr/bin/python3 where it is 3.11 or newer and can make a venv with pip, else
`python3` on PATH; PYTHON, on the command line or in the environment, wins."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _venv_command(*args, **env):
    """The line of `make`'s recipe for .venv that makes the venv (`<python> -m venv .venv`), with PYTHON taken out of
    the environment and `env` put in. Also out: MAKEFLAGS and the like, which carry a `make test PYTHON=...` that runs
    this test into the make it starts."""
    env = {**{k: v for k, v in os.environ.items() if k not in ("PYTHON", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}, **env}
    out = subprocess.run(["make", "-n", "-B", *args, ".venv/.installed-test"], cwd=ROOT, capture_output=True,
                         text=True, check=True, env=env).stdout
    return next(line for line in out.splitlines() if line.endswith(" -m venv .venv"))


def _system_python_qualifies():
    """The rule, checked here on its own: /usr/bin/python3 runs, is 3.11+, and has ensurepip with its wheels."""
    try:
        probe = subprocess.run(["/usr/bin/python3", "-c", "import sys, ensurepip; "
                                "print(sys.version_info >= (3, 11) and bool(ensurepip.version()))"],
                               capture_output=True, text=True, timeout=30)
    except OSError:
        return False
    return probe.stdout.strip() == "True"


def test_the_venv_is_made_from_the_distributions_python_where_it_qualifies():
    want = "/usr/bin/python3" if _system_python_qualifies() else "python3"
    assert _venv_command() == f"{want} -m venv .venv"


def test_python_on_the_command_line_or_in_the_environment_wins():
    assert _venv_command("PYTHON=/opt/some/python3.12") == "/opt/some/python3.12 -m venv .venv"
    assert _venv_command(PYTHON="/opt/other/python3") == "/opt/other/python3 -m venv .venv"
