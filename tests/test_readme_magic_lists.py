"""README's "What converts" and "What is refused" lists of the %%whileloop magic say what the magic does: each
"What converts" item names constructs that cells of magic_cells_course.py exercise (those cells are compared with
plain Python in test_magics_course.py), and each "What is refused" item has cells refused here with their line
and message. An item added to the README without cells, or a construct the cells exercise that the README does
not list, fails."""
import pathlib
import re

import numpy as np
import pytest
from magic_cells_course import CELLS

from magics.errors import CellError

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text()


def _keys(start, end):
    block = README[README.index(start):README.index(end)]
    items = [line for line in block.splitlines()[1:]]
    return {k for line in items for k in re.findall(r"\*\*([^*]+)\*\*", line)}


CONVERTS = _keys("* **What converts**", "* **What is refused**")
REFUSED_KEYS = _keys("* **What is refused**", "* **Errors**")

XS = "xs = np.array([3.0, -1.0, 4.0])\n"
REFUSED = {  # README item -> [(cell, line, part of the message)]
    "return, try, with, global": [
        ("i = 0\nwhile i < 3:\n    return i", 3, "`return` is not supported"),
        ("i = 0\ntry:\n    i = 1\nexcept ValueError:\n    pass", 2, "`try` is not supported"),
        ("import contextlib\nwith contextlib.nullcontext():\n    i = 1", 2, "`with` is not supported"),
        ("global g\ng = 1", 1, "`global` is not supported")],
    "def, lambda, comprehensions": [
        ("def f(x):\n    return x", 1, "define functions in another cell"),
        ("f = lambda x: x", 1, "`lambda` is not supported"),
        ("sq = [i * i for i in range(3)]", 1, "write a `for` loop with `list.append`")],
    "del in a loop": [("x = 1\nfor i in range(3):\n    del x", 3, "Delete it after the loop")],
    "for over items": [("a = [0, 0]\nfor a[0] in range(3):\n    pass", 2, "a `for` assigns names")],
    "numpy without a graph form": [(XS + "w = 1.0\nfor k in range(2):\n    w = np.linalg.eig(xs * k)", 4, "eig")],
    "math without a graph form": [(XS + "import math\ng = 0.0\nfor x in xs:\n    g = g + math.gamma(x)", 5,
                                   "math.gamma has no graph form: use numpy's np.gamma")],
    "random in a loop": [("s = 0.0\nfor i in range(3):\n    s += np.random.rand()", 3, "draw all the numbers before")],
    "bool, sum, sorted of a graph value": [
        (XS + "b = False\nfor x in xs:\n    b = bool(x)", 4, "compare it instead (x != 0)"),
        (XS + "s = 0.0\nfor x in xs:\n    s = s + sum(x)", 4, "use np.sum(x)"),
        (XS + "for k in range(2):\n    t = sorted(xs * k)", 3, "use np.sort(x) before the loop")],
    "string operators other than +": [("s = 'ab'\nfor i in range(2):\n    s = s * 2", 3, "a string supports +")],
    "a list changed other than by append": [
        ("ys = [1]\nfor i in range(3):\n    ys = ys + [i]", 3, "can only grow with .append there"),
        ("a = [0, 0, 0]\nfor i in range(3):\n    a[i] = i", 3, "use an array (`a = np.zeros(n)`")],
    "slicing a list grown in a loop": [("v = [1.0]\nfor i in range(3):\n    v.append(i * 1.0)\n    w = v[1:]", 4,
                                        "read its items one at a time")],
    "fancy indices": [("a = np.zeros(3)\nfor i in range(3):\n    a[a > 0] = i", 3, "write `a = np.where(mask, v, a)`")],
    "chained item assignment": [("a = np.zeros((3, 3))\nfor i in range(3):\n    a[i][0] = i", 3, "as `a[i, j] = ...`")],
    "a view whose items are set": [
        ("M = np.zeros((3, 2))\nr = M[0]\nfor i in range(2):\n    r[i] = i", 2, "Write `r = M[0].copy()`"),
        ("M = np.zeros((3, 2))\nfor row in M:\n    row[0] = 1.0", 3, "copy the row first")],
    "in-place array methods in a loop": [("v = np.ones(3)\nfor i in range(3):\n    v.fill(i)", 3, "np.full_like")],
    "a changing dtype or shape": [
        ("x = np.int64(1)\nwhile x < 10:\n    x = x * 1.5", 2, "'x' enters the loop as int64 but the loop body "
                                                              "makes it float64"),
        ("v = np.ones(2)\nwhile np.sum(v) < 10:\n    v = np.concatenate([v, v])", 2, "Give it its final shape")],
    "a dict whose keys change in a loop": [("d = {'a': 1}\nfor i in range(3):\n    d['b'] = i", 2,
                                            "give it every key before the loop")],
    "a loop that cannot end": [("i = 0\nwhile i < 3:\n    j = 5", 2, "would never become false")],
    "a name given a value in one branch only": [("a = np.float64(1.0)\nif a > 0:\n    fresh = 1\nelse:\n    pass",
                                                 2, "give it a value in the else branch too, or before the `if`")],
    "a name of two types after an `if`": [("a = np.float64(1.0)\nt = 0\nif a > 0:\n    t = t + 0.5", 3,
                                           "'t' is a float after the `if` branch and an int after the `else` "
                                           "branch"),
                                          ("a = np.float64(1.0)\nt = 0.0\nif a > 0:\n    t = 1\nelse:\n"
                                           "    t = 2.5", 3, "Give 't' the same type on both paths")],
    "a name of two types after a loop": [("xs = np.array([1.0])\nx = 'hello'\nm = int(np.sum(xs > 5))\n"
                                          "for k in range(m):\n    x = k * 2.0\ny = x", 6,
                                          "Give 'x' a value of the loop's type before the loop")],
    "names that stop sharing an array": [("a = np.zeros(3)\nb = a\nfor k in range(3):\n    a[k] = 1.0\n"
                                          "    b = b.copy()", 3, "Write `b = a.copy()` before the loop")],
    "a side effect whose result is used": [("s = 0.0\nfor i in range(3):\n    s = s + noisy(i * 1.0)", 3,
                                            "Call it on a line of its own")],
    "a graph break in a loop over a Python list": [
        (XS + "s = 0.0\nfor x in xs:\n    s += x\nfor W in [xs, xs * 2]:\n    if W[0] > s:\n        break", 5,
         "move the `break`'s test to a `while`")],
}


def test_the_readme_lists_what_the_course_cells_exercise():
    exercised = {c for _nb, _cell, constructs in CELLS.values() for c in constructs}
    assert CONVERTS - exercised == set(), "README items no cell exercises"
    assert exercised - CONVERTS == set(), "constructs the cells exercise that the README does not list"


def test_every_refusal_in_the_readme_has_cells():
    assert REFUSED_KEYS == set(REFUSED)


@pytest.fixture
def shell(ip):
    ip.user_ns["np"] = np
    before = set(ip.user_ns)  # before the notebook function: later tests' shells start without it
    ip.run_cell("history = []\ndef noisy(x):\n    history.append(x)\n    return x * 2\n")
    yield ip
    for name in set(ip.user_ns) - before:
        del ip.user_ns[name]


@pytest.mark.parametrize("key,cell,line,fragment", [(k, *case) for k, cases in sorted(REFUSED.items())
                                                    for case in cases])
def test_refusal_names_its_line_and_what_to_write(shell, key, cell, line, fragment):
    with pytest.raises(CellError) as info:
        shell.run_cell_magic("whileloop", "--no-display", cell)
    assert (info.value.line, fragment in info.value.message) == (line, True), (key, info.value.message)
    assert not re.search(r"\bTensor\b|_Undefined|Maybe|LogicalAnd|Accumulator|cfnb\.|magics", info.value.message)
