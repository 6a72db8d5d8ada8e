"""Cells of an introductory numerical-methods, Python and ML course (issue 20), each run by %%whileloop and by
plain Python from the same notebook names (test_magics_course.py; "the same" is cell_compare.py's).

Each entry is (notebook names, cell, constructs): the constructs name the README's "What converts" items the cell
exercises (test_readme_magic_lists.py keeps the README's list and this table in step). A notebook's `__defs__`
is source that defines notebook functions (run in the shell, so their source can be read, and by plain Python).
"""
import numpy as np

XS = {"xs": np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, -6.0])}
F_DEFS = {"__defs__": "def f(x):\n    return x ** 3 - 2 * x - 5\n\ndef df(x):\n    return 3 * x ** 2 - 2\n"}

NUMERICAL = {
    "newton_cube_root": ({"a": 10.0}, "x = a\nsteps = 0\nwhile abs(x ** 3 - a) > 1e-12:\n    x = x - (x ** 3 - a) / "
                                      "(3 * x ** 2)\n    steps += 1", ("while",)),
    "newton_notebook_function": (F_DEFS, "x = 2.0\nfor k in range(30):\n    step = f(x) / df(x)\n    x = x - step\n"
                                         "    if abs(step) < 1e-14:\n        break", ("function", "break")),
    "bisection_function": (F_DEFS, "lo, hi = 2.0, 3.0\nn = 0\nwhile hi - lo > 1e-10:\n    mid = (lo + hi) / 2\n"
                                   "    if f(lo) * f(mid) <= 0:\n        hi = mid\n    else:\n        lo = mid\n"
                                   "    n += 1\nroot = (lo + hi) / 2", ("function", "if")),
    "secant": (F_DEFS, "x0, x1 = 2.0, 3.0\nfor it in range(50):\n    f0, f1 = f(x0), f(x1)\n    if f1 == f0:\n"
                       "        break\n    x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)\n    if abs(x1 - x0) < 1e-13:\n"
                       "        break", ("function", "break")),
    "regula_falsi": (F_DEFS, "a, b = 2.0, 3.0\nc = a\nfor k in range(60):\n    c = b - f(b) * (b - a) / (f(b) - f(a))\n"
                             "    if f(a) * f(c) < 0:\n        b = c\n    else:\n        a = c", ("function", "if")),
    "fixed_point_cos": ({}, "import math\nx = 1.0\nfor k in range(200):\n    x_next = math.cos(x)\n"
                            "    if abs(x_next - x) < 1e-12:\n        x = x_next\n        break\n    x = x_next",
                        ("temporary", "break")),
    "euler_preallocated": ({"n": 200, "h": 0.01}, "ys = np.zeros(n + 1)\nys[0] = 1.0\nt = 0.0\nfor k in range(n):\n"
                                                  "    ys[k + 1] = ys[k] + h * (-2.0 * ys[k] + t)\n    t += h",
                           ("setitem",)),
    "rk4_scalar": ({"h": 0.1}, "def_y = 1.0\ny = def_y\nt = 0.0\nfor k in range(20):\n    k1 = -y + t\n"
                               "    k2 = -(y + h * k1 / 2) + (t + h / 2)\n    k3 = -(y + h * k2 / 2) + (t + h / 2)\n"
                               "    k4 = -(y + h * k3) + (t + h)\n    y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)\n"
                               "    t += h", ("temporary",)),
    "rk4_system_arrays": ({}, "u = np.array([1.0, 0.0])\nh = 0.05\nfor k in range(40):\n"
                              "    k1 = np.array([u[1], -u[0]])\n"
                              "    k2 = np.array([u[1] + h / 2 * k1[1], -(u[0] + h / 2 * k1[0])])\n"
                              "    k3 = np.array([u[1] + h / 2 * k2[1], -(u[0] + h / 2 * k2[0])])\n"
                              "    k4 = np.array([u[1] + h * k3[1], -(u[0] + h * k3[0])])\n"
                              "    u = u + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)", ("np.array",)),
    "jacobi_fresh_array": ({"A": np.array([[4.0, 1.0, 0.0], [1.0, 5.0, 2.0], [0.0, 2.0, 6.0]]),
                            "b": np.array([1.0, 2.0, 3.0])},
                           "x = np.zeros(3)\nfor it in range(40):\n    x_new = np.zeros(3)\n    for i in range(3):\n"
                           "        s = b[i]\n        for j in range(3):\n            if j != i:\n"
                           "                s -= A[i, j] * x[j]\n        x_new[i] = s / A[i, i]\n    x = x_new",
                           ("alias", "setitem")),
    "gauss_seidel_in_place": ({"A": np.array([[4.0, 1.0], [2.0, 5.0]]), "b": np.array([1.0, 2.0])},
                              "x = np.zeros(2)\nfor it in range(25):\n    for i in range(2):\n"
                              "        x[i] = (b[i] - A[i, 1 - i] * x[1 - i]) / A[i, i]", ("setitem",)),
    "power_iteration_allclose": ({"A": np.array([[2.0, 1.0], [1.0, 3.0]])},
                                 "v = np.array([1.0, 1.0])\nlam = 0.0\nfor k in range(500):\n    w = A @ v\n"
                                 "    w = w / np.linalg.norm(w)\n    if np.allclose(w, v, atol=1e-12):\n        break\n"
                                 "    v = w\nlam = v @ A @ v", ("allclose", "break")),
    "gcd_euclid": ({}, "a, b = 1071, 462\nwhile b:\n    a, b = b, a % b\ng = a", ("while",)),
    "lcm_from_gcd": ({"p": 84, "q": 120}, "a, b = p, q\nwhile b != 0:\n    a, b = b, a % b\nlcm = p * q // a",
                     ("while",)),
    "collatz_bitwise": ({}, "n = 97\nsteps = 0\nwhile n != 1:\n    if n & 1:\n        n = 3 * n + 1\n    else:\n"
                            "        n >>= 1\n    steps += 1", ("bitwise",)),
    "binary_power": ({}, "base, e = 3, 13\nresult = 1\nwhile e > 0:\n    if e & 1:\n        result *= base\n"
                         "    base *= base\n    e >>= 1", ("bitwise",)),
    "sieve_of_eratosthenes": ({}, "n = 60\nis_prime = np.ones(n + 1, dtype=bool)\nis_prime[0] = False\n"
                                  "is_prime[1] = False\np = 2\nwhile p * p <= n:\n    if is_prime[p]:\n"
                                  "        for j in range(p * p, n + 1, p):\n            is_prime[j] = False\n"
                                  "    p += 1\ncount = int(np.sum(is_prime))", ("setitem",)),
    "running_statistics_welford": (XS, "count = 0\nmean = 0.0\nm2 = 0.0\nfor x in xs:\n    count += 1\n"
                                       "    delta = x - mean\n    mean += delta / count\n    m2 += delta * (x - mean)\n"
                                       "variance = m2 / (count - 1)", ("temporary",)),
    "running_max_min_dict": (XS, "stats = {'max': -1e9, 'min': 1e9, 'n': 0}\nfor x in xs:\n"
                                 "    stats['max'] = max(stats['max'], x)\n    stats['min'] = min(stats['min'], x)\n"
                                 "    stats['n'] += 1", ("dict",)),
    "tiny_rnn_layers": ({"layers": [np.array([[0.5, -0.3], [0.2, 0.4]]), np.array([[1.0, -1.0], [0.5, 0.5]])],
                         "inputs": np.array([[0.1, 0.2], [0.0, -0.1], [0.3, 0.3]])},
                        "h = np.zeros(2)\nfor x in inputs:\n    for W in layers:\n        h = np.tanh(W @ h + x)",
                        ("unrolled",)),
    "kmeans_1d_two_centroids": ({"pts": np.array([1.0, 1.5, 2.0, 8.0, 9.0, 10.0])},
                                "c = np.array([0.0, 5.0])\nfor it in range(10):\n    sums = np.zeros(2)\n"
                                "    counts = np.zeros(2)\n    for p in pts:\n"
                                "        k = 0 if abs(p - c[0]) <= abs(p - c[1]) else 1\n"
                                "        sums[k] += p\n        counts[k] += 1\n    c = sums / counts",
                                ("setitem", "temporary")),
    "perceptron_in_place": ({"X": np.array([[2.0, 1.0], [-1.0, -2.0], [1.5, 2.0], [-2.0, -0.5]]),
                             "y": np.array([1, -1, 1, -1])},
                            "w = np.zeros(2)\nb = 0.0\nfor epoch in range(5):\n    errors = 0\n"
                            "    for i, x in enumerate(X):\n        if y[i] * (x @ w + b) <= 0:\n"
                            "            w += y[i] * x\n            b += y[i]\n            errors += 1",
                            ("enumerate", "inplace")),
    "trapezoid_zip": ({"t": np.linspace(0.0, 1.0, 11)}, "area = 0.0\nfor a, b in zip(t[:-1], t[1:]):\n"
                                                        "    area += (b - a) * (a * a + b * b) / 2", ("zip",)),
    "simpson_rule": ({}, "import math\nn = 10\nh = math.pi / n\ntotal = math.sin(0.0) + math.sin(math.pi)\n"
                         "for k in range(1, n):\n    total += (4 if k % 2 else 2) * math.sin(k * h)\n"
                         "integral = total * h / 3", ("conditional expression",)),
    "horner_coefficients_list": ({"coeffs": [2.0, -6.0, 2.0, -1.0]}, "x = 3.0\nvalue = 0.0\nfor c in coeffs:\n"
                                                                    "    value = value * x + c", ("for list",)),
    "fibonacci_list_reads": ({}, "fib = [0, 1]\nfor i in range(20):\n    fib.append(fib[-1] + fib[-2])\n"
                                 "ratio = fib[-1] / fib[-2]", ("list read",)),
    "moving_average_list": (XS, "avgs = []\nwindow = []\nfor x in xs:\n    window.append(x)\n    k = len(window)\n"
                                "    if k >= 3:\n"
                                "        avgs.append((window[k - 1] + window[k - 2] + window[k - 3]) / 3)",
                            ("list read",)),
    "prime_factors": ({}, "n = 360\nfactors = []\nd = 2\nwhile n > 1:\n    while n % d == 0:\n"
                          "        factors.append(d)\n        n //= d\n    d += 1", ("append",)),
    "bubble_sort_swap": ({}, "a = np.array([5.0, 1.0, 4.0, 2.0, 8.0])\nfor i in range(len(a)):\n"
                             "    for j in range(len(a) - 1 - i):\n        if a[j] > a[j + 1]:\n"
                             "            a[j], a[j + 1] = a[j + 1], a[j]", ("swap",)),
    "golden_section": ({}, "import math\ng = (math.sqrt(5) - 1) / 2\na, b = 0.0, 3.0\nwhile b - a > 1e-8:\n"
                           "    c, d = b - g * (b - a), a + g * (b - a)\n    if (c - 1.3) ** 2 < (d - 1.3) ** 2:\n"
                           "        b = d\n    else:\n        a = c\nxmin = (a + b) / 2", ("while", "if")),
    "gradient_descent_in_place": ({"X": np.array([[1.0, 2.0], [2.0, 0.5], [3.0, 1.0]]),
                                   "t": np.array([5.0, 3.0, 5.0])},
                                  "w = np.zeros(2)\nlr = 0.02\nfor step in range(300):\n    r = X @ w - t\n"
                                  "    w -= lr * (X.T @ r)\nloss = float(np.sum((X @ w - t) ** 2))", ("inplace",)),
    "monte_carlo_predrawn": ({"r": np.random.default_rng(7).random((200, 2))},
                             "inside = 0\nfor p in r:\n    if p @ p <= 1.0:\n        inside += 1\n"
                             "pi_estimate = 4 * inside / len(r)", ("for array",)),
    "leibniz_progress_string": ({}, "total = 0.0\nbar = ''\nfor k in range(12):\n    total += (-1) ** k / (2 * k + 1)\n"
                                    "    if k % 3 == 0:\n        bar += '#'\nestimate = 4 * total", ("string",)),
    "heron_report_fstring": ({}, "x = 10.0\nlog = ''\nfor k in range(5):\n    x = (x + 2.0 / x) / 2\n"
                                 "    log = log + f'{k}:{x:.5f} '", ("string", "fstring")),
    "newton_system_2d": ({}, "v = np.array([1.0, 1.0])\nfor it in range(20):\n    x, y = v\n"
                             "    F = np.array([x * x + y * y - 4.0, x - y])\n"
                             "    J = np.array([[2 * x, 2 * y], [1.0, -1.0]])\n"
                             "    det = J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]\n"
                             "    dx = (J[1, 1] * F[0] - J[0, 1] * F[1]) / det\n"
                             "    dy = (J[0, 0] * F[1] - J[1, 0] * F[0]) / det\n    v = v - np.array([dx, dy])",
                         ("unpack", "np.array")),
}

PYTHON = {
    "dict_counts": (XS, "d = {'pos': 0, 'neg': 0}\nfor x in xs:\n    if x > 0:\n        d['pos'] += 1\n    else:\n"
                        "        d['neg'] += 1", ("dict",)),
    "dict_read_after_loop": ({}, "d = {'a': 0, 'b': 1.0}\nfor i in range(5):\n    d['a'] += i\n    d['b'] *= 2\n"
                                 "total = d['a'] + d['b']", ("dict",)),
    "notebook_dict_shared": ({"D": {"count": 0}}, "E = D\nfor i in range(4):\n    D['count'] += i", ("dict", "alias")),
    "string_stars": ({}, "s = ''\nfor k in range(5):\n    s = s + '*'", ("string",)),
    "string_str_digits": ({}, "s = ''\nfor k in range(4):\n    s += str(k * k)\nn = len(s)", ("string", "str")),
    "string_print_in_loop": ({}, "line = ''\nfor k in range(3):\n    line = line + '=' \n    print(line, k)",
                             ("string", "print")),
    "fstring_format_spec_print": (XS, "total = 0.0\nfor k, x in enumerate(xs):\n    total += x\n"
                                      "    print(f'{k:>2}: {total:8.3f} {x!r}')", ("fstring", "enumerate")),
    "enumerate_start": (XS, "s = 0.0\nfor i, x in enumerate(xs, start=1):\n    s += i * x", ("enumerate",)),
    "zip_range_array": (XS, "s = 0.0\nfor k, x in zip(range(10, 20), xs):\n    s += k * x", ("zip",)),
    "zip_python_lists_unrolled": ({}, "names = ['a', 'b', 'c']\nweights = [0.5, 0.25, 0.25]\nlabel = ''\n"
                                      "total = 0.0\nfor n, w in zip(names, weights):\n    label = label + n\n"
                                      "    total += w", ("zip", "unrolled")),
    "for_list_of_lists": ({"m": [[1, 2, 3], [4, 5, 6]]}, "row_sums = []\nfor row in m:\n    s = 0\n"
                                                          "    for v in row:\n        s += v\n    row_sums.append(s)",
                          ("unrolled",)),
    "for_dict_keys": ({"prices": {"a": 1.5, "b": 2.0}}, "total = 0.0\nfor k in prices:\n    total += prices[k]",
                      ("unrolled",)),
    "range_object_in_notebook": ({"r": range(3, 20, 4)}, "s = 0\nfor i in r:\n    s += i * i", ("range",)),
    "unrolled_changes_list_arrays": ({"layers": [np.zeros(2), np.ones(2)]}, "for W in layers:\n    W[0] = 7.0",
                                     ("unrolled", "setitem")),
    "result_alias_sees_setitem": ({}, "x = np.zeros(4)\nresult = x\nfor k in range(4):\n    x[k] = k * k\n"
                                      "s = result.sum()", ("alias",)),
    "copy_does_not_alias": ({}, "x = np.zeros(3)\ny = x.copy()\nfor k in range(3):\n    x[k] = 1.0", ("copy",)),
    "notebook_alias_written_back": ({"a": np.zeros(3)}, "b = a\nfor i in range(3):\n    a[i] = i + 0.5\nc = b * 2",
                                    ("alias",)),
    "inplace_plus_shares": ({}, "w = np.zeros(3)\nv = w\nfor k in range(3):\n    w += k", ("inplace", "alias")),
    "inplace_keeps_float32": ({}, "w = np.ones(3, dtype=np.float32)\nfor k in range(4):\n    w *= 0.5",
                              ("inplace",)),
    "list_len_in_condition": ({}, "vals = []\nwhile len(vals) < 5:\n    vals.append(len(vals) ** 2)", ("list read",)),
    "first_iteration_defines": ({}, "for i in range(5):\n    if i == 0:\n        best = i * 10\n    else:\n"
                                    "        best = max(best, i * 3)", ("defined flag",)),
    "temporary_not_before_loop": (XS, "tot = 0.0\nfor i in range(4):\n    tmp = xs[i] * 2\n    tot += tmp",
                                  ("temporary",)),
    "zero_trip_keeps_notebook_value": ({**XS, "i": 7}, "m = int(np.sum(xs > 100))\ns = 0\nfor i in range(m):\n"
                                                        "    s += i\nresult = i, s", ("defined flag",)),
    "bitwise_mask_ops": ({}, "flags = 0\nfor bit in range(6):\n    if bit % 2 == 0:\n        flags |= 1 << bit\n"
                             "mask = flags & 0b1111\ntoggled = flags ^ 0b111\ninv = ~flags", ("bitwise",)),
    "swap_names_and_items": ({}, "a = np.array([1.0, 2.0, 3.0])\nx, y = 0, 1\nfor k in range(3):\n"
                                 "    a[0], a[2] = a[2], a[0]\n    x, y = y, x", ("swap",)),
    "array_equal_loop": ({}, "a = np.zeros(3)\nb = np.ones(3)\nk = 0\nwhile not np.array_equal(a, b):\n"
                             "    a[k] = 1.0\n    k += 1\nsame = np.array_equal(a, b)", ("allclose",)),
    "isclose_elementwise": (XS, "target = xs * 1.0\nv = np.zeros(8)\nfor k in range(8):\n    v[k] = xs[k]\n"
                                "close = np.isclose(v, target)\nall_close = np.allclose(v, target)", ("allclose",)),
    "np_array_in_notebook_function": ({"__defs__": "def features(x):\n    return np.array([1.0, x, x * x])\n"},
                                      "acc = np.zeros(3)\nfor k in range(4):\n    acc = acc + features(k * 0.5)",
                                      ("function", "np.array")),
    "side_effect_function_every_iteration": ({"__defs__": "history = []\ndef record(k, x):\n"
                                                          "    history.append((k, x))\n"},
                                             "x = 1.0\nfor k in range(5):\n    x = x / 2 + 1\n    record(k, x)",
                                             ("side effect",)),
    "side_effect_print_function": ({"__defs__": "def report(k, x):\n    print(f'iter {k}: {x:.4f}')\n"},
                                   "x = 2.0\nfor k in range(4):\n    x = (x + 2 / x) / 2\n    report(k, x)",
                                   ("side effect", "print")),
    "del_at_top_level": ({"old": 1}, "y = old * 2\ndel old", ("del",)),
}

CELLS = {**NUMERICAL, **PYTHON}
