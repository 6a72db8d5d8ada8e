"""The graph a %%whileloop cell builds, as drawings read it: only this cell's graph (every op on a path to what
the run fetches or to a side effect; a notebook value enters as an op named after its Python name), the student's
names on every While and If op (the contract with cfnb/viz/: `_cfnb_var_names`, `_cfnb_out_names`, the magic's
own flags starting with "."), and the copies of an unrolled loop marked (`_cfnb_unrolled`)."""
import numpy as np
import pytest

from cfnb.passes.pruning import needed_ops

CELLS = [
    "x = x0\nsteps = 0\nwhile abs(x * x - 2.0) > 1e-9:\n    x = x - (x * x - 2.0) / (2.0 * x)\n    steps += 1",
    "total, kept = 0.0, []\nfor x in xs:\n    if x < 0:\n        continue\n    kept.append(x)\n"
    "    total += np.sqrt(x)\n    if total > 4.0:\n        break",
    "d = {'n': 0, 's': 0.0}\nfor i, x in enumerate(xs):\n    if x > 0:\n        d['s'] += x\n        best = x\n"
    "    d['n'] += 1\nprint(d['n'])",
    "h = np.ones(2) * xs[0]\nfor W in layers:\n    h = np.tanh(W @ h)\nunused = x0 * 3",
]
NOTEBOOK = {"x0": 1.0, "xs": np.array([3.0, -1.0, 4.0, 1.0]), "layers": [np.eye(2), np.ones((2, 2))],
            "other": np.arange(3.0)}


@pytest.fixture
def shell(clean):
    clean.user_ns.update(NOTEBOOK)
    return clean


def _graphs(result):
    graph = result.functional
    yield graph
    for op in graph.get_operations():
        for attr in ("body", "cond", "then_branch", "else_branch"):
            if attr in op.attr:
                yield op.get_attr(attr)


@pytest.mark.parametrize("cell", CELLS)
def test_only_this_cells_graph_every_op_on_a_path_to_a_fetch_or_a_side_effect(shell, cell):
    shell.run_cell_magic("whileloop", "--no-display --form functional", cell)
    graph = shell.user_ns["_loop"].functional
    from magics import cell as cell_module
    plan = cell_module._last_plan
    fetches = [t for t in _flat(plan.fetches) if hasattr(t, "op")]
    effects = [op for op in _flat(plan.fetches) if not hasattr(op, "op") and hasattr(op, "type")]
    keep = needed_ops(fetches, effects, set())
    stray = [f"{op.name} ({op.type})" for op in graph.get_operations() if op not in keep]
    assert stray == [], f"ops with no path to a fetch or a side effect: {stray}"
    assert "other" not in [op.name for op in graph.get_operations()]  # a notebook value the cell does not read


def _flat(structure):
    if isinstance(structure, dict):
        for v in structure.values():
            yield from _flat(v)
    elif isinstance(structure, (list, tuple)):
        for v in structure:
            yield from _flat(v)
    else:
        yield structure


def test_a_notebook_value_enters_as_an_op_named_after_it(shell):
    shell.user_ns["k0"] = 2.0
    shell.run_cell_magic("whileloop", "--no-display", "s = 0.0\nfor x in xs:\n    s += x * k0")
    graph = shell.user_ns["_loop"].functional
    named = {op.name: op.attr.get("_cfnb_source") for op in graph.get_operations() if "_cfnb_source" in op.attr}
    assert named == {"xs": "notebook", "k0": "notebook"}
    assert shell.user_ns["s"] == 2.0 * float(np.sum(NOTEBOOK["xs"]))


@pytest.mark.parametrize("cell", CELLS)
def test_every_while_and_if_carries_the_students_names(shell, cell):
    shell.run_cell_magic("whileloop", "--no-display", cell)
    for graph in _graphs(shell.user_ns["_loop"]):
        for op in graph.get_operations():
            if op.type in ("While", "StatelessWhile"):
                names = op.attr["_cfnb_var_names"]
                assert len(names) == len(op.inputs) and names[:2] == [".loop_counter", ".maximum_iterations"]
            if op.type in ("If", "StatelessIf") and op.outputs:
                assert len(op.attr["_cfnb_out_names"]) == len(op.outputs)


def test_names_of_a_loop_with_a_dict_a_list_and_a_defined_flag(shell):
    shell.run_cell_magic("whileloop", "--no-display", CELLS[2])
    loop = next(op for op in shell.user_ns["_loop"].functional.get_operations() if op.type == "StatelessWhile")
    names = loop.attr["_cfnb_var_names"]
    assert {"d['n']", "d['s']", "i", "x", "best", ".defined_best", ".count"} <= set(names), names


def test_the_copies_of_an_unrolled_loop_are_marked(shell):
    shell.run_cell_magic("whileloop", "--no-display", CELLS[3])
    copies = {op.attr["_cfnb_unrolled"] for op in shell.user_ns["_loop"].functional.get_operations()
              if "_cfnb_unrolled" in op.attr}
    assert copies == {"for W (line 2): item 0 of 2", "for W (line 2): item 1 of 2"}
