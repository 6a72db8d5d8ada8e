"""%%whileloop in a real IPython shell: final namespaces equal plain Python's, errors point at lines,
gradients match finite differences, and the explorer widget is driven from Python."""
import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.testing.globalipapp import start_ipython

import cfnb


@pytest.fixture(scope="module")
def ip():
    shell = start_ipython()
    shell.run_line_magic("load_ext", "cfnb")
    return shell


@pytest.fixture
def clean(ip):
    ip.user_ns["np"] = np  # as a notebook's `import numpy as np` would
    before = set(ip.user_ns)
    yield ip
    for name in set(ip.user_ns) - before:
        del ip.user_ns[name]


PYTHON_HELPERS = {"np": np, "tanh": np.tanh, "sqrt": np.sqrt, "exp": np.exp, "sin": np.sin, "matmul": np.matmul,
                  "float32": np.float32, "cast": lambda x, dtype: dtype(x)}

CELLS = {
    "count_by_two": "i = 1\nn = 10\nwhile i < n:\n    i = i + 2",
    "gcd": "a, b = 1071, 462\nwhile b > 0:\n    a, b = b, a % b",
    "square_until": "x = 2.0\nv = x\nwhile v < 8.0:\n    v = v * v",
    "nested_inner_counter": "s = 0\nk = 0\nwhile k < 4:\n    j = 0\n    while j < k:\n        s += j\n        j += 1\n"
                            "    k += 1",
    "collatz": "n = 27\nsteps = 0\nwhile n != 1:\n    if n % 2 == 0:\n        n = n // 2\n    else:\n"
               "        n = 3 * n + 1\n    steps += 1",
    "zero_trip_leaves_name_undefined": "q = 5\nwhile q < 0:\n    z = q * 2\n    q = q + 1",
    "fibonacci": "a, b = 0, 1\nk = 0\nwhile k < 15:\n    a, b = b, a + b\n    k += 1",
    "sum_of_squares": "total = 0\nk = 1\nwhile k <= 10:\n    total += k * k\n    k += 1",
    "newton_sqrt": "x = 2.0\ng = 1.0\nk = 0\nwhile k < 6:\n    g = (g + x / g) / 2\n    k += 1",
    "factorial": "f = 1\nm = 1\nwhile m <= 6:\n    f *= m\n    m += 1",
    "elif_chain": "i = 0\nc = 0\nwhile i < 12:\n    if i % 3 == 0:\n        c += 1\n    elif i % 3 == 1:\n"
                  "        c += 10\n    else:\n        c += 100\n    i += 1",
    "numpy_vector": "v = np.array([1.0, 2.0, 3.0])\nk = 0\nwhile k < 3:\n    v = v * 0.5 + 1.0\n    k += 1",
    "numpy_matrix": "m = np.array([[0.5, 0.1], [0.2, 0.3]])\np = np.eye(2)\nk = 0\nwhile k < 4:\n    p = matmul(p, m)\n"
                    "    k += 1",
    "and_condition": "i = 0\ns = 0\nwhile i < 10 and s < 20:\n    s += i\n    i += 1",
    "or_condition": "i = 0\nwhile i < 3 or i % 5 != 0:\n    i += 1",
    "not_in_if": "i = 0\nodd = 0\nwhile i < 9:\n    if not i % 2 == 0:\n        odd += 1\n    i += 1",
    "digits": "n = 12345\nd = 0\nwhile n > 0:\n    n //= 10\n    d += 1",
    "power_of_two": "p = 1\nwhile p < 1000:\n    p *= 2",
    "float_accumulation": "t = 0.0\nk = 0\nwhile k < 5:\n    t += 0.1 * cast(k, float32)\n    k += 1",
    "top_level_if": "a = 5\nb = 3\nif a > b:\n    big = a\nelse:\n    big = b",
    "conditional_expression": "x = 3.0\ny = x * 2 if x > 2 else x - 2",
    "if_in_nested_while": "c = 0\nu = 0\nwhile u < 3:\n    w = 0\n    while w < 3:\n        if u == w:\n"
                          "            c += 1\n"
                          "        w += 1\n    u += 1",
    "tanh_iteration": "v = 0.5\nk = 0\nwhile k < 5:\n    v = tanh(v) + 0.1\n    k += 1",
    "sqrt_iteration": "v = 100.0\nk = 0\nwhile k < 4:\n    v = sqrt(v)\n    k += 1",
    "triangular": "n = 0\nt = 0\nwhile t < 50:\n    n += 1\n    t += n",
    "reverse_digits": "n = 1234\nr = 0\nwhile n > 0:\n    r = r * 10 + n % 10\n    n = n // 10",
    "count_ones": "n = 237\nones = 0\nwhile n > 0:\n    ones += n % 2\n    n //= 2",
    "binary_search": "lo = 0\nhi = 100\ntarget = 37\nsteps = 0\nwhile lo < hi:\n    mid = (lo + hi) // 2\n"
                     "    if mid < target:\n        lo = mid + 1\n    else:\n        hi = mid\n    steps += 1",
    "chained_comparison": "i = 0\nj = 10\nwhile 0 <= i < j:\n    i += 3",
    "exp_decay": "v = 1.0\nk = 0\nwhile v > 0.05:\n    v = v * exp(-0.5)\n    k += 1",
    "two_accumulators_if": "i = 0\npos = 0.0\nneg = 0.0\nwhile i < 6:\n    x = sin(cast(i, float32))\n"
                           "    if x > 0:\n"
                           "        pos += x\n    else:\n        neg += x\n    i += 1",
    "for_over_python_range": "total = 0\nfor r in range(4):\n    total += r\nk = 0\nwhile k < total:\n    k += 4",
}


def _python(cell, namespace=None):
    ns = dict(PYTHON_HELPERS, **(namespace or {}))
    exec(cell, ns)  # noqa: S102 - the test's own cells
    return {k: v for k, v in ns.items() if k not in PYTHON_HELPERS and not k.startswith("__")}


def _equal(a, b):
    if isinstance(b, float) or (isinstance(b, np.ndarray) and b.dtype.kind == "f"):
        return np.allclose(a, b, rtol=1e-5, atol=1e-6)
    return np.array_equal(a, b)


@pytest.mark.parametrize("name", sorted(CELLS))
@pytest.mark.parametrize("form", ["lowered", "functional"])
def test_final_namespace_equals_plain_python(clean, name, form):
    ip = clean
    expected = _python(CELLS[name])
    ip.run_cell_magic("whileloop", f"--no-display --form {form}", CELLS[name])
    for key, value in expected.items():
        assert key in ip.user_ns, f"{name}: {key} missing"
        assert _equal(ip.user_ns[key], value), (name, key, ip.user_ns[key], value)
    if name == "zero_trip_leaves_name_undefined":
        assert "z" not in ip.user_ns
    ints = [k for k, v in expected.items() if isinstance(v, int)]
    assert all(np.issubdtype(np.asarray(ip.user_ns[k]).dtype, np.integer) for k in ints)


def test_names_from_the_notebook_are_read_and_assigned_names_start_from_their_value(clean):
    ip = clean
    ip.user_ns.update(limit=7, acc=100)
    ip.run_cell_magic("whileloop", "--no-display", "i = 0\nwhile i < limit:\n    i += 2\n    acc += i")
    assert ip.user_ns["i"] == 8 and ip.user_ns["acc"] == 100 + 2 + 4 + 6 + 8


def test_explicit_cond_body_loop_vars_form(clean):
    ip = clean
    ip.run_cell_magic("whileloop", "--no-display",
                      "def cond(i, s):\n    return i < 5\n\ndef body(i, s):\n    return i + 1, s * 2.0\n\n"
                      "loop_vars = [0, 1.0]\n")
    final = ip.user_ns["loop_vars"]
    assert final == [5, 32.0]


def test_options_reach_the_loop(clean):
    ip = clean
    ip.run_cell_magic("whileloop", "--no-display --maximum-iterations 3 --parallel-iterations 1 --as r",
                      "i = 0\nwhile i < 100:\n    i += 1")
    result = ip.user_ns["r"]
    assert ip.user_ns["i"] == 3
    enters = [op for op in result.graph.get_operations() if op.type == "Enter"]
    assert enters and all(op.get_attr("parallel_iterations") == 1 for op in enters)


@pytest.mark.parametrize("form", ["lowered", "functional"])
def test_gradient_option_matches_finite_differences(clean, form):
    ip = clean
    cell = "x = 0.7\nv = x\nk = 0\nwhile k < 4:\n    v = sin(v) * x + v\n    k += 1"
    ip.run_cell_magic("whileloop", f"--no-display --form {form} --grad v:x", cell)
    grad = ip.user_ns["_loop"].grads["dv/dx"]

    def f(x):
        v = x
        for _ in range(4):
            v = np.sin(v) * x + v
        return v

    numeric = (f(0.7 + 1e-5) - f(0.7 - 1e-5)) / 2e-5
    np.testing.assert_allclose(grad, numeric, rtol=1e-3)


# --- errors point at the cell's line ---------------------------------------------------------
def test_syntax_errors_are_pythons(clean):
    with pytest.raises(SyntaxError) as info:
        clean.run_cell_magic("whileloop", "--no-display", "i = 0\nwhile i < 3\n    i += 1")
    assert info.value.lineno == 2


@pytest.mark.parametrize("cell,line,pattern", [
    ("i = 0\nwhile i < 3:\n    i += 1\n    break", 4, "`break` cannot end a graph loop"),
    ("i = 0\nwhile i < 3:\n    i += 1\n    continue", 4, "`continue`"),
    ("i = 0\nwhile i < 3:\n    return i", 3, "`return`"),
    ("v = np.ones(3)\nfor e in v * 2:\n    pass", 2, "`for` over a tensor"),
    ("x = 1\nwhile x < 10:\n    x = x * 1.5", 2, "Mul"),
    ("x = 1\nwhile x < 10:\n    x = cast(x, float32) + 1.0", 2, "'x' enters the loop with type int32 but has type "
                                                                 "float32"),
    ("v = np.ones(2)\nwhile reduce_sum(v) < 10:\n    v = concat([v, v], 0)", 2, "shape_invariants"),
    ("i = 0\nwhile i < 3:\n    k += 1\n    i += 1", 2, "'k' is used before it is given a value"),
    ("a = 1\nif a > 0:\n    fresh = 1\nelse:\n    pass", 2, "'fresh' is given a value in one branch only"),
    ("i = 0\nwhile i < 3:\n    j = 5", 2, "would never become false"),
])
def test_unsupported_constructs_and_bad_loops_are_usage_errors_naming_the_line(clean, cell, line, pattern):
    with pytest.raises(UsageError) as info:
        clean.run_cell_magic("whileloop", "--no-display", cell)
    message = str(info.value)
    assert f"line {line}:" in message and pattern in message


def test_bad_options_and_run_time_errors(clean):
    with pytest.raises(UsageError, match="write it as OUT:IN"):
        clean.run_cell_magic("whileloop", "--no-display --grad v", "v = 1.0")
    with pytest.raises(UsageError, match="--parallel-iterations must be a positive integer"):
        clean.run_cell_magic("whileloop", "--no-display --parallel-iterations 0", "v = 1.0")
    with pytest.raises(UsageError, match="graph failed while running.*Integer division by zero"):
        clean.run_cell_magic("whileloop", "--no-display", "i = 4\nd = 0\nwhile i > 0:\n    i = i // d")
    with pytest.raises(UsageError, match="only float values have gradients"):
        clean.run_cell_magic("whileloop", "--no-display --grad i:i", "i = 0\nwhile i < 3:\n    i += 1")


def test_help_comes_from_magic_arguments(clean):
    doc = clean.find_cell_magic("whileloop").__doc__
    assert "--grad OUT:IN[,IN...]" in doc and "--form {functional,lowered}" in doc and "--as NAME" in doc


# --- the result object and the explorer ----------------------------------------------------------
@pytest.fixture
def result(clean):
    clean.run_cell_magic("whileloop", "--no-display --grad v:x", "x = 2.0\nv = x\nwhile v < 8.0:\n    v = v * v")
    return clean.user_ns["_loop"]


def test_result_object(result):
    assert result.values["v"] == 16.0 and result.grads == {"dv/dx": 32.0}
    assert {op.type for op in result.functional.get_operations()} >= {"StatelessWhile"}
    assert {op.type for op in result.lowered.get_operations()} >= {"Enter", "Merge", "Switch", "NextIteration",
                                                                  "Exit"}
    assert len(result.trace) > 0
    assert repr(result) == f"<whileloop (lowered): x=2, v=16, dv/dx=32; {len(result.trace)} firings>"
    bundle = result._repr_mimebundle_()
    assert bundle["text/plain"] == repr(result) and bundle["image/svg+xml"].startswith("<svg")
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_explorer_views_show_the_right_graphs(result):
    explorer = result.explorer()
    assert list(explorer.view.options) == ["functional", "lowered", "gradient"]
    shown = {}
    for view in explorer.view.options:
        explorer.view.value = view
        (output,) = explorer.output.outputs
        shown[view] = output["data"]["image/svg+xml"]
    for primitive in ("Enter", "Merge", "Switch", "NextIteration", "Exit"):
        assert primitive in shown["lowered"]
    assert "While" in shown["functional"] and "NextIteration" not in shown["functional"]
    assert "StackPushV2" in shown["gradient"] and "StackPushV2" not in shown["lowered"]


def test_stepping_moves_the_highlight_and_play_drives_the_slider(result):
    explorer = result.explorer()
    explorer.view.value = "lowered"
    merges = [f.step for f in result.trace.firings if f.node == "while/Merge"]
    explorer.slider.value = merges[0]
    first, caption = explorer.output.outputs[0]["data"]["image/svg+xml"], explorer.caption.value
    explorer.play.value = merges[1]  # the Play button drives the slider through widgets.link
    assert explorer.slider.value == merges[1]
    second = explorer.output.outputs[0]["data"]["image/svg+xml"]
    assert first != second and caption != explorer.caption.value
    assert explorer.caption.value.startswith(f"step {merges[1]}: while/Merge (Merge)")
    assert 'stroke-width="3"' in second and "iteration 1" in explorer.caption.value
    assert explorer.svg("lowered", merges[1]) is explorer.svg("lowered", merges[1])  # rendered once, cached


def test_magic_displays_the_result_unless_told_not_to(clean):
    out = clean.run_cell_magic("whileloop", "", "i = 0\nwhile i < 2:\n    i += 1")
    assert out is clean.user_ns["_loop"]
    assert clean.run_cell_magic("whileloop", "--no-display", "i = 0\nwhile i < 2:\n    i += 1") is None


def test_engine_never_imports_ipython():
    import subprocess
    import sys
    code = "import sys, cfnb, cfnb.viz, cfnb.gradients; print('IPython' in sys.modules, 'ipywidgets' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False False"
    assert cfnb.load_ipython_extension
