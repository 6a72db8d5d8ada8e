"""Which cells of a program x execution-path matrix `make test` runs; `make test-all` runs every cell.

test_conformance.py runs each conformance program on every path (v1 and v2; static schedule, executor, strict) in
every run: that is the definition of correct. The tests that put the same programs through further machinery
(the GraphDef bridge, random device placement, the strict GPU simulation, the optimizer's equivalence check)
would repeat that whole product, about four times the cost of the conformance set itself. In `make test` such a test
runs program k on one path, `paths[(k + salt) % len(paths)]`: every program still goes through the machinery, and
every path sees its share of the programs (a different share per test, by `salt`). The other cells carry the `long`
mark, so `make test-all` (`-m "long or not long"`) runs the whole product, as the fuzz corpora's long runs do."""
import pytest


def rotated(names, paths, salt=0, long=()):
    """pytest params `(*path, name)` for every program in `names` on every path in `paths` (a path is a tuple of
    parameter values, e.g. `("v2", "static")`): pair (k, j) runs in `make test` when `j == (k + salt) % len(paths)`,
    the rest only in `make test-all`. `long`: pairs `(path, name)` that only `make test-all` runs (a program too
    slow on some path); such a program takes the next path in `make test`. Ids read `path-name`, as stacked
    parametrize decorators would write them."""
    params = []
    for k, name in enumerate(names):
        turn = [paths[(k + salt + i) % len(paths)] for i in range(len(paths))]
        chosen = next((path for path in turn if (path, name) not in long), None)
        params += [pytest.param(*path, name, id="-".join([*path, name]),
                                marks=[] if path == chosen else [pytest.mark.long]) for path in paths]
    return params


def kept(params):
    """The params `make test` runs (those without the `long` mark)."""
    return [p for p in params if not any(m.name == "long" for m in p.marks)]


def halves(modes=("v1", "v2")):
    """pytest params `(mode, half)` for a test that loops over a program list itself (`programs[half::2]`):
    `make test` runs the even-numbered programs in the first mode and the odd-numbered ones in the second (every
    program once), `make test-all` both halves in every mode."""
    return [pytest.param(mode, half, id=f"{mode}-{('even', 'odd')[half]}",
                         marks=[] if half == k % 2 else [pytest.mark.long])
            for k, mode in enumerate(modes) for half in (0, 1)]
