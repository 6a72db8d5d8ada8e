"""The fuzz generator and comparison themselves: programs are deterministic, stay within the promised shape
(nesting depth <= 3, loops in conds and conds in loops, zero-trip loops, outer tensors used several times in
nested functions), and `mismatches` notices what it must."""
import ast
import pathlib
import re
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent / "fuzz"))

from generator import generate  # noqa: E402
from harness import decode, encode, mismatches  # noqa: E402

SEEDS = range(300)


def _calls(fn):
    """Names of the control-flow builders called directly in `fn` (not in functions nested in it)."""
    found, stack = [], list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "cond", "while_loop"):
            found.append(node.func.attr)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _functions(tree):
    """(function node, its depth of nesting below build) for every function of a program."""
    out = []

    def walk(node, depth):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                out.append((child, depth))
                walk(child, depth + 1)
            else:
                walk(child, depth)
    walk(tree, -1)
    return out


def test_same_seed_same_program():
    assert generate(7).source == generate(7).source and generate(7).feeds == generate(7).feeds
    assert generate(7).source != generate(8).source


def test_programs_have_the_promised_shape():
    kinds = set()
    zero_trip = nested_reuse = 0
    deepest = -1
    for seed in SEEDS:
        program = generate(seed)
        tree = ast.parse(program.source)
        functions = _functions(tree)
        deepest = max(deepest, max((d for _, d in functions), default=-1))
        for fn, _ in functions:
            prefix = "loop" if fn.name.startswith("loop_body") else "cond" if "_fn" in fn.name else None
            for call in _calls(fn):
                if prefix:
                    kinds.add(f"{call} in {prefix}")
        zero_trip += bool(re.search(r"tf\.less\(i\d+, 0\)", program.source) or (
            program.feeds["n0"] == 0 and re.search(r"tf\.less\(i\d+, n0\)", program.source)))
        for fn, depth in functions:
            names = [n.id for n in ast.walk(fn) if isinstance(n, ast.Name)]
            if depth >= 1 and any(names.count(x) >= 2 for x in ("x0", "x1", "n0", "k1")):
                nested_reuse += 1
                break
    assert deepest == 2  # functions three levels deep (build's own functions are level 0), never more
    assert kinds == {"cond in cond", "while_loop in cond", "cond in loop", "while_loop in loop"}
    assert zero_trip > 20 and nested_reuse > 50


def test_mismatches_notice_values_dtypes_and_missing_gradients():
    want = {"out": np.array([1.0, 2.0], np.float32), "grad_x0": None, "n": np.array(3, np.int32)}
    assert mismatches(decode(encode(want)), want) == []
    assert mismatches({**want, "out": np.array([1.0, 2.00001], np.float32)}, want) == []
    assert mismatches({**want, "out": np.array([1.0, 2.1], np.float32)}, want)
    assert mismatches({**want, "n": np.array(4, np.int32)}, want)
    assert mismatches({**want, "n": np.array(3, np.int64)}, want)
    assert mismatches({**want, "grad_x0": np.array(0.0, np.float32)}, want)
    assert mismatches({"error": "InvalidArgumentError: x"}, want)
