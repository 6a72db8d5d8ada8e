"""tests/sampling.py: `make test` runs each program on exactly one path, every path gets programs, and `make
test-all` runs every pair."""
import pytest
from sampling import kept, rotated

NAMES = [f"p{k}" for k in range(7)]
PATHS = [("v1", "static"), ("v1", "interpreted"), ("v1", "strict")]


def _pairs(params):
    return [(tuple(p.values[:-1]), p.values[-1]) for p in params]


@pytest.mark.parametrize("salt", [0, 1, 5])
def test_each_program_runs_once_in_make_test_and_everywhere_in_make_test_all(salt):
    params = rotated(NAMES, PATHS, salt=salt)
    assert sorted(_pairs(params)) == sorted((path, name) for name in NAMES for path in PATHS)  # test-all: all
    chosen = _pairs(kept(params))
    assert sorted(name for _, name in chosen) == NAMES  # each program once
    assert {path for path, _ in chosen} == set(PATHS)  # every path on some program
    assert [p.id for p in params[:3]] == ["v1-static-p0", "v1-interpreted-p0", "v1-strict-p0"]


def test_salt_moves_the_programs_between_paths():
    assert _pairs(kept(rotated(NAMES, PATHS, salt=0))) != _pairs(kept(rotated(NAMES, PATHS, salt=1)))


def test_a_long_pair_gives_its_program_the_next_path():
    plain = dict((name, path) for path, name in _pairs(kept(rotated(NAMES, PATHS))))
    long = {(plain["p2"], "p2")}
    moved = dict((name, path) for path, name in _pairs(kept(rotated(NAMES, PATHS, long=long))))
    assert moved["p2"] != plain["p2"] and {k: v for k, v in moved.items() if k != "p2"} == {
        k: v for k, v in plain.items() if k != "p2"}
    assert (plain["p2"], "p2") in _pairs(rotated(NAMES, PATHS, long=long))  # still in make test-all
