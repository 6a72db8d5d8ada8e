"""What a cell's later lines read is what it hands back (magics/variables.py): a loop that runs zero times
leaves every name as it was, a name it may leave undefined raises Python's NameError where a later line reads
it, and a notebook name of the same name changes nothing of that. Each cell runs by %%whileloop in a real
IPython shell and by plain `exec` from the same notebook names (cell_compare.py), in both forms; cells whose
trip count is known only when the graph runs compute it from the notebook's `xs`."""
import numpy as np
import pytest
from cell_compare import compare

XS = {"xs": np.array([3.0, -1.0, 4.0, 1.0, -5.0])}
NONE = "m = int(np.sum(xs > 100))\n"   # 0, known only when the graph runs
SOME = "m = int(np.sum(xs > 0))\n"     # 3, likewise

CELLS = {
    # issue 20's example, with n from the notebook and with n computed in the graph
    "issue_example": ({"i": 7, "n": 0}, "s = 0\nfor i in range(n):\n    s += i\nresult = i, s"),
    "issue_example_run_time_trip_count": ({**XS, "i": 7},
                                          NONE + "s = 0\nfor i in range(m):\n    s += i\nresult = i, s"),
    "issue_example_runs": ({**XS, "i": 7}, SOME + "s = 0\nfor i in range(m):\n    s += i\nresult = i, s"),
    "inner_loop_that_may_not_run_keeps_the_outer_value": (
        {}, "j = 100\nout = []\nfor k in range(4):\n    for j in range(k % 2 * 2):\n        pass\n    out.append(j)"),
    "inner_loop_run_time_trip_count": (
        XS, "j = 100\nout = []\nfor k in range(4):\n    m = int(np.sum(xs > k * 2))\n    for j in range(m):\n"
            "        pass\n    out.append(j)"),
    "undefined_after_zero_trip_is_a_name_error": (XS, NONE + "for q in range(m):\n    pass\nr = q + 1"),
    "undefined_after_zero_trip_not_read": (XS, NONE + "for q in range(m):\n    pass\nr = 1"),
    "defined_after_some_trips": (XS, SOME + "for q in range(m):\n    pass\nr = q + 1"),
    "python_int_stays_int_after_zero_trip": (XS, NONE + "s = 0\nfor k in range(m):\n    s += 0.5"),
    # a Python number that the body makes a numpy number of the same dtype (not weak after the body)
    "python_float_stays_float_after_zero_trip": (XS, NONE + "t = 0.0\nfor j in range(m):\n    t += xs[j]"),
    "python_float_becomes_numpy_after_trips": (XS, SOME + "t = 0.0\nfor j in range(m):\n    t += xs[j]"),
    "python_int_stays_int_after_zero_trip_of_int64": (
        {"ys": np.array([1, 2, 3])}, "m = int(np.sum(ys > 100))\nt = 0\nfor j in range(m):\n    t += ys[j]"),
    "python_float_stays_float_over_an_empty_array": ({"e": np.zeros(0)}, "t = 0.0\nfor x in e:\n    t += x"),
    "python_int_becomes_float_after_trips": (XS, SOME + "s = 0\nfor k in range(m):\n    s += 0.5\nt = s"),
    "while_zero_trip_temporary_read": (XS, "v = xs[0]\nwhile v > 100:\n    w = v\n    v = v - 1\nu = w"),
    "while_zero_trip_loop_variable_read": (XS, "v = xs[0]\nwhile v > 100:\n    w = v\n    v = v - 1\nu = v"),
    "while_first_test_false_in_python": ({}, "i = 10\nwhile i < 5:\n    i += 1\n    k = i\nj = i"),
    "for_over_an_empty_slice": ({**XS, "x": 9.0}, "for x in xs[:0]:\n    pass\nz = x * 2"),
    "zero_trip_then_else_clause": (XS, NONE + "for i in range(m):\n    pass\nelse:\n    i = -1\nz = i"),
    "zero_trip_name_read_by_a_later_loop": (XS, NONE + "for q in range(m):\n    pass\ns = 0\nfor k in range(3):\n"
                                                       "    s += q"),
    "trips_name_read_by_a_later_loop": (XS, SOME + "for q in range(m):\n    pass\ns = 0\nfor k in range(3):\n"
                                                   "    s += q"),
    "undefined_read_in_the_branch_not_taken": (XS, NONE + "for q in range(m):\n    pass\nif xs[0] > 100:\n    r = q\n"
                                                          "else:\n    r = 2"),
    "undefined_read_in_the_branch_taken": (XS, NONE + "for q in range(m):\n    pass\nif xs[0] > 0:\n    r = q\n"
                                                      "else:\n    r = 2"),
    "assigned_in_one_branch_of_a_loop": (XS, "for x in xs:\n    if x > 0:\n        last = x"),
    "assigned_in_one_branch_never_taken": (XS, "for x in xs:\n    if x > 100:\n        last = x"),
    "assigned_in_one_branch_never_taken_read": (XS, "for x in xs:\n    if x > 100:\n        last = x\nz = last"),
    "notebook_value_of_another_type_loop_runs": ({"x": "hello"}, "for k in range(3):\n    x = k * 2.0\ny = x"),
    "notebook_value_of_another_type_zero_trip": ({**XS, "x": "hello"}, NONE + "for k in range(m):\n    x = k * 2.0"),
    "first_iteration_assigns": ({}, "for i in range(4):\n    if i == 0:\n        a = 1\n    else:\n        a = a + 1"),
    "first_iteration_reads_undefined": ({}, "for i in range(4):\n    if i == 1:\n        a = 1\n    else:\n"
                                            "        a = a + 1"),
    "break_on_the_first_iteration": ({}, "for i in range(5):\n    if i == 0:\n        break\n    y = i\nz = i"),
    "break_before_the_assignment_read": ({}, "for i in range(5):\n    if i == 0:\n        break\n    y = i\nz = y"),
    "read_before_assignment": ({}, "print(zz)\nzz = 1"),
    "read_of_a_name_assigned_after_the_loop": ({}, "i = 0\nwhile i < 3:\n    i += 1\n    w = later\nlater = 1"),
    "del_a_notebook_name": ({"x": 1}, "y = x\ndel x"),
    "del_then_read": ({"x": 1}, "del x\ny = x"),
}


@pytest.fixture
def shell(ip):
    ip.user_ns["np"] = np
    ip.names_before = set(ip.user_ns)
    yield ip
    for name in set(ip.user_ns) - ip.names_before:
        del ip.user_ns[name]


@pytest.mark.parametrize("name", sorted(CELLS))
@pytest.mark.parametrize("form", ["lowered", "functional"])
def test_cell_reads_and_hands_back_what_plain_python_does(shell, name, form):
    notebook, cell = CELLS[name]
    compare(shell, notebook, cell, f"--form {form}")


def test_the_name_error_names_the_line_and_the_iteration(shell):
    error = compare(shell, {}, CELLS["first_iteration_reads_undefined"][1])
    assert error.message.startswith("name 'a' is not defined (in iteration")
    error = compare(shell, XS, CELLS["undefined_after_zero_trip_is_a_name_error"][1])
    assert (error.line, error.message) == (4, "name 'q' is not defined")


def test_running_a_cell_twice_leaves_the_same_names(shell):
    cell = NONE + "s = 0\nfor i in range(m):\n    s += i\n    last = i\nresult = s"
    shell.user_ns.update(XS)
    for _ in range(2):
        shell.run_cell_magic("whileloop", "--no-display", cell)
        assert shell.user_ns["result"] == 0 and "last" not in shell.user_ns and "i" not in shell.user_ns
    shell.user_ns.update(i=7, last=-1)
    shell.run_cell_magic("whileloop", "--no-display", cell)
    assert (shell.user_ns["i"], shell.user_ns["last"]) == (7, -1)


def test_a_value_a_graph_cannot_carry_after_a_zero_trip_loop_is_refused_where_it_is_read(shell):
    shell.user_ns.update(XS, x="hello")
    with pytest.raises(Exception) as info:
        shell.run_cell_magic("whileloop", "--no-display", NONE + "for k in range(m):\n    x = k * 2.0\ny = x")
    error = info.value
    assert error.line == 4 and error.message.startswith("'x' holds a str before the loop at line 2 and a float "
                                                        "after it when the loop runs"), error.message
