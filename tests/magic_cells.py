"""Cells a student writes, each run by %%whileloop and by plain Python on the same source.

"The same" (tests/test_magics_python.py): every name plain Python leaves, the magic leaves, of the
same type (a Python int stays an int, a numpy.float64 a numpy.float64, an ndarray an ndarray of
the same dtype and shape, a list a list of such items) and value (exactly for integers and bools;
floats to 1e-12 relative, since a graph may add in another order than numpy does). Printed output
must be the same text.
"""
import numpy as np

# Names a notebook holds before these cells run (both sides see copies).
NOTEBOOK = {
    "xs": np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, -6.0]),
    "A": np.array([[2.0, 1.0], [1.0, 3.0]]),
    "W": np.array([[0.5, -0.2], [0.1, 0.4]]),
    "X": np.array([[0.1, 0.2], [0.3, -0.1], [0.0, 0.5], [-0.2, 0.1]]),
    "ns": np.arange(1, 11),
    "M": np.arange(12.0).reshape(3, 4),
    "n_steps": 6,
    "data": [4, 8, 15, 16, 23, 42],
}

PYTHON_CELLS = {
    "count_by_two": "i = 1\nn = 10\nwhile i < n:\n    i = i + 2",
    "gcd": "a, b = 1071, 462\nwhile b > 0:\n    a, b = b, a % b",
    "nested_inner_counter": "s = 0\nk = 0\nwhile k < 4:\n    j = 0\n    while j < k:\n        s += j\n        j += 1\n"
                            "    k += 1",
    "collatz": "n = 27\nsteps = 0\nwhile n != 1:\n    if n % 2 == 0:\n        n = n // 2\n    else:\n"
               "        n = 3 * n + 1\n    steps += 1",
    "zero_trip_while_leaves_name_undefined": "q = 5\nwhile q < 0:\n    z = q * 2\n    q = q + 1",
    "fibonacci_for": "a, b = 0, 1\nfor _ in range(15):\n    a, b = b, a + b",
    "sum_of_squares_for": "total = 0\nfor k in range(1, 11):\n    total += k * k",
    "range_negative_step": "s = 0\nfor i in range(10, 0, -3):\n    s += i",
    "range_empty_keeps_name_undefined": "s = 0\nfor j in range(5, 2):\n    s += j",
    "range_empty_keeps_old_value": "j = 42\nfor j in range(0):\n    pass",
    "for_variable_holds_last_value": "for i in range(7):\n    sq = i * i",
    "range_from_variable": "n = 9\nacc = 1\nfor i in range(2, n, 2):\n    acc *= i",
    "int_sum_past_2_31": "total = 0\nfor i in range(100000):\n    total += i",
    "int_product_past_2_31": "p = 1\nfor i in range(1, 21):\n    p *= i",
    "float_step": "x = 0.0\nn = 0\nwhile x < 1.0:\n    x = x + 0.1 * n\n    n += 1",
    "mixed_int_float": "n = 3\nx = 0.1 * n\nfor k in range(4):\n    x = x + k / 2",
    "while_true_break": "i = 0\nwhile True:\n    i += 3\n    if i > 20:\n        break",
    "break_in_for": "found = -1\nfor i in range(100):\n    if i * i > 50:\n        found = i\n        break",
    "continue_in_for": "t = 0\nfor i in range(10):\n    if i % 3 == 0:\n        continue\n    t += i",
    "break_and_continue": "t = 0\nfor i in range(20):\n    if i % 2 == 0:\n        continue\n    if t > 30:\n"
                          "        break\n    t += i",
    "continue_in_else_branch": "t = 0\nfor i in range(10):\n    if i < 5:\n        t += 1\n    else:\n"
                               "        continue\n    t += 100",
    "continue_nested_in_if": "t = 0\nfor i in range(10):\n    if i % 2 == 0:\n        if i > 4:\n"
                             "            continue\n        t += 1\n    t += 10",
    "for_else_without_break": "s = 0\nfor i in range(4):\n    s += i\nelse:\n    s = -s",
    "for_else_with_break_taken": "s = 0\nfor i in range(10):\n    if i == 3:\n        break\n    s += i\nelse:\n"
                                 "    s = 100",
    "for_else_with_break_not_taken": "s = 0\nfor i in range(3):\n    if i == 7:\n        break\n    s += i\n"
                                     "else:\n    s = 100",
    "while_else": "i = 0\nwhile i < 3:\n    i += 1\nelse:\n    i = i * 10",
    "nested_break_inner_only": "c = 0\nfor i in range(4):\n    for j in range(10):\n        if j > i:\n"
                               "            break\n        c += 1",
    "elif_chain": "i = 0\nc = 0\nwhile i < 12:\n    if i % 3 == 0:\n        c += 1\n    elif i % 3 == 1:\n"
                  "        c += 10\n    else:\n        c += 100\n    i += 1",
    "and_or_not": "i = 0\ns = 0\nwhile i < 10 and not s > 20:\n    s += i\n    i += 1\nodd = i % 2 == 1 or s == 0",
    "chained_comparison": "i = 0\nj = 10\nwhile 0 <= i < j:\n    i += 3",
    "conditional_expression": "x = 0\nfor k in range(6):\n    x = x + (k if k % 2 == 0 else -k)",
    "abs_min_max_builtins": "lo = 100\nhi = -100\nsize = 0\nfor k in range(-4, 5):\n    v = k * k - 3 * k\n"
                            "    lo = min(lo, v)\n    hi = max(hi, v)\n    size += abs(v)",
    "math_functions": "import math\nv = 1.0\nfor k in range(5):\n    v = math.sqrt(v + 2.0) + math.sin(k) * "
                      "math.exp(-k)\nr = math.log(v) + math.pi",
    "math_floor_is_int": "import math\nc = 0\nfor k in range(5):\n    c += math.floor(k * 0.7)",
    "float_and_int_builtins": "s = 0\nfor k in range(5):\n    s += int(k * 1.5) + float(k)",
    "list_append_ints": "vals = []\nfor i in range(5):\n    vals.append(i * i)",
    "list_append_to_existing": "vals = [100]\nfor i in range(3):\n    vals.append(i)",
    "list_append_in_branch": "evens = []\nfor i in range(9):\n    if i % 2 == 0:\n        evens.append(i)",
    "list_indexed_by_loop_counter": "s = 0\nfor i in range(len(data)):\n    s += data[i]",
    "len_and_index_of_list_loop": "k = 0\nwhile k < len(data) and data[k] < 16:\n    k += 1",
    # A name written on some paths only (an `if` in an inner loop) carries its value across iterations
    # of the outer loop: it must not enter the outer loop as if undefined.
    "nested_search_with_breaks": "found = -1\nfor i in range(5):\n    for j in range(5):\n        if i * j == 6:\n"
                                 "            found = i * 10 + j\n            break\n    if found >= 0:\n        break",
    "inner_if_assign_no_break": "found = -1\nfor i in range(5):\n    for j in range(5):\n        if i * j == 6:\n"
                                "            found = i * 10 + j",
    "inner_break_assigns_constant": "found = -1\nfor i in range(2):\n    for j in range(5):\n        if j == 3:\n"
                                    "            found = 7\n            break",
    "print_in_loop": "for i in range(3):\n    print('i is', i)\nprint('done', i)",
    "print_fstring_in_loop": "s = 0\nfor i in range(4):\n    s += i\n    print(f'after {i}: s = {s}')",
    "print_sep_end": "for i in range(3):\n    print(i, i * 2, sep=', ', end='; ')\nprint()",
    "print_once_outside_loop": "print('start')\nt = 0\nfor i in range(2):\n    t += i\nprint('end', t)",
    "newton_sqrt_1e9": "x = 2.0\ng = 1.0\nwhile abs(g * g - x) > 1e-9:\n    g = (g + x / g) / 2",
    "bisection_1e9": "lo, hi = 0.0, 2.0\nwhile hi - lo > 1e-9:\n    mid = (lo + hi) / 2\n    if mid * mid > 2.0:\n"
                     "        hi = mid\n    else:\n        lo = mid",
    "range_tensor_bounds_negative_step": "s = 0\nn = 3\nfor k in range(4):\n    for i in range(k + n, 0, -2):\n"
                                         "        s += i",
    "notebook_int_bound": "acc = 0\nfor i in range(n_steps):\n    acc += i",
    "print_in_branch_in_loop": "s = 0\nfor i in range(5):\n    s += i\n    if i == 3:\n        print('at', i)\n"
                               "if s > 3:\n    print('big')",
    "digits": "n = 12345\nd = 0\nwhile n > 0:\n    n //= 10\n    d += 1",
    "power_of_two": "p = 1\nwhile p < 1000:\n    p *= 2",
    "triangular": "n = 0\nt = 0\nwhile t < 50:\n    n += 1\n    t += n",
    "reverse_digits": "n = 1234\nr = 0\nwhile n > 0:\n    r = r * 10 + n % 10\n    n = n // 10",
    "count_ones": "n = 237\nones = 0\nwhile n > 0:\n    ones += n % 2\n    n //= 2",
    "binary_search": "lo = 0\nhi = 100\ntarget = 37\nsteps = 0\nwhile lo < hi:\n    mid = (lo + hi) // 2\n"
                     "    if mid < target:\n        lo = mid + 1\n    else:\n        hi = mid\n    steps += 1",
    "if_in_nested_while": "c = 0\nu = 0\nwhile u < 3:\n    w = 0\n    while w < 3:\n        if u == w:\n"
                          "            c += 1\n        w += 1\n    u += 1",
    "top_level_if": "a = 5\nb = 3\nif a > b:\n    big = a\nelse:\n    big = b",
    "int_becomes_float_in_loop": "s = 0\nfor k in range(5):\n    s += k / 4",
    "nested_append": "vals = []\nfor i in range(3):\n    for j in range(i):\n        vals.append(i * 10 + j)",
    "print_in_nested_loops": "for i in range(2):\n    for j in range(2):\n        print(i, j)",
    "while_else_with_break": "i = 0\nwhile i < 10:\n    i += 1\n    if i == 4:\n        break\nelse:\n    i = -1",
    "empty_body": "for i in range(3):\n    pass",
    "for_over_list_of_ints": "s = 0\nfor x in [1, 2, 3]:\n    s += x",
    "sum_len_of_appended_list": "vals = []\nfor i in range(4):\n    vals.append(i * 0.5)\nt = sum(vals)\n"
                                "n = len(vals)\nprint(n, t)",
    "print_in_untaken_branch": "for i in range(3):\n    if i > 5:\n        print('never')\nprint('ok')",
    "chained_assignment": "a = b = 0\nfor i in range(3):\n    a = b = a + i",
    "nested_break_and_continue": "c = 0\nfor i in range(5):\n    if i == 1:\n        continue\n    for j in range(5):\n"
                                 "        if j > i:\n            break\n        c += j",
    'setitem_list_outside_loop': 'ys = [0, 0, 0]\nys[1] = 5\nt = 0\nfor y in ys:\n    t += y',
}

NUMPY_CELLS = {
    "np_vector_update": "v = np.array([1.0, 2.0, 3.0])\nfor k in range(3):\n    v = v * 0.5 + 1.0",
    "np_matrix_power": "p = np.eye(2)\nfor k in range(4):\n    p = p @ W",
    "np_index_by_counter": "s = 0.0\nfor i in range(len(xs)):\n    s += xs[i]",
    "np_for_over_array": "s = 0.0\nfor x in xs:\n    s += x",
    "np_for_over_array_loop_var_last_item": "for x in xs:\n    y = x * 2",
    "np_for_over_matrix_rows": "tot = np.zeros(4)\nfor row in M:\n    tot = tot + row",
    "np_count_positive": "c = 0\nfor x in xs:\n    if x > 0:\n        c += 1",
    "np_max_by_hand": "best = xs[0]\nfor x in xs:\n    if x > best:\n        best = x",
    "np_argmax_by_hand": "best_i = 0\nfor i in range(1, len(xs)):\n    if xs[i] > xs[best_i]:\n        best_i = i",
    "np_continue_negative": "s = 0.0\nfor x in xs:\n    if x < 0:\n        continue\n    s += x",
    "np_break_on_first_negative_after_3": "k = 0\nfor x in xs:\n    if x < -4:\n        break\n    k += 1",
    "np_tanh_iteration": "v = 0.5\nfor k in range(5):\n    v = np.tanh(v) + 0.1",
    "np_sqrt_iteration": "v = np.float64(100.0)\nfor k in range(4):\n    v = np.sqrt(v)",
    "np_exp_decay": "v = 1.0\nk = 0\nwhile v > 0.05:\n    v = v * np.exp(-0.5)\n    k += 1",
    "np_power_iteration": "b = np.array([1.0, 0.0])\nfor k in range(20):\n    b = A @ b\n    b = b / np.linalg.norm(b)",
    "np_rnn_step": "h = np.zeros((2, 1))\nfor t in range(4):\n    h = np.tanh(W @ h + X[t].reshape(2, 1))",
    "np_sum_mean_methods": "acc = 0.0\nfor row in M:\n    acc = acc + row.sum() - row.mean()",
    "np_sum_function": "acc = 0.0\nfor k in range(3):\n    acc += np.sum(M[k] * k)",
    "np_maximum_relu": "v = np.array([-1.0, 0.5, 2.0])\nfor k in range(3):\n    v = np.maximum(v - 0.4, 0.0)",
    "np_where": "v = np.array([1.0, -2.0, 3.0])\nfor k in range(2):\n    v = np.where(v > 0, v * 2, -v)",
    "np_int_array_sum": "s = 0\nfor x in ns:\n    s += x * x",
    "np_int64_sum_past_2_31": "s = 0\nfor x in ns:\n    s += x * 1000000000",
    "np_append_scalars": "sq = []\nfor x in xs:\n    sq.append(x * x)",
    "np_append_rows": "rows = []\nfor k in range(3):\n    rows.append(M[k] * 2)",
    "np_float_of_element": "s = 0.0\nfor i in range(len(xs)):\n    s += float(xs[i])",
    "np_abs_of_element": "s = 0.0\nfor x in xs:\n    s += abs(x)",
    "np_max_of_elements": "m = -100.0\nfor x in xs:\n    m = max(m, x)",
    "np_slice_by_counter": "s = 0.0\nfor i in range(1, 4):\n    s += np.sum(xs[:i])",
    "np_transpose_dot": "v = np.ones(2)\nfor k in range(3):\n    v = W.T @ v + 1.0",
    "np_astype": "c = np.zeros(3, dtype=np.int64)\nfor k in range(3):\n    c = c + (M[k, :3] * 0.5).astype(np.int64)",
    "np_newton_vector_1e9": "t = np.array([2.0, 3.0, 10.0])\ng = np.ones(3)\nwhile np.max(np.abs(g * g - t)) > 1e-9:\n"
                            "    g = (g + t / g) / 2",
    "np_bisection_cubic_1e9": "lo, hi = np.float64(0.0), np.float64(3.0)\nwhile hi - lo > 1e-9:\n"
                              "    mid = (lo + hi) / 2\n    if mid ** 3 - 2 * mid - 5 > 0:\n        hi = mid\n"
                              "    else:\n        lo = mid",
    "np_print_array_in_loop": "v = np.array([1.0, 2.0])\nfor k in range(2):\n    v = v * 2\n    print('v', v)",
    "np_print_scalar_in_loop": "pp = 1.0\nfor x in xs[:3]:\n    pp = pp * x\n    print('pp is', pp)",
    "np_dot_accumulate": "acc = 0.0\nfor i in range(len(X)):\n    acc += np.dot(X[i], X[i])",
    "np_mean_of_array": "m = 0.0\nfor k in range(3):\n    m = m + np.mean(M[k])",
    "np_for_over_dynamic_leading_dim": "s = 0.0\nfor k in range(5):\n    for x in xs[:k]:\n        s += x * k",
    "np_append_arrays_in_branch": "rows = []\nfor k in range(4):\n    if k % 2 == 1:\n"
                                  "        rows.append(np.ones(2) * k)",
    "np_trapezoid_by_index": "g = np.linspace(0, 1, 5)\nacc = 0.0\nfor i in range(len(g) - 1):\n"
                             "    acc += (g[i + 1] - g[i]) * (g[i] ** 2)",
    "np_while_and_on_array_item": "a = np.array([1.0, 2.0, 3.0])\ni = 0\nwhile i < 3 and a[i] < 2.5:\n    i += 1",
    "np_mean_of_appended_list": "vals = []\nfor x in xs:\n    vals.append(x * 2)\nm = np.mean(vals)",
    "np_readme_example": "xs = np.array([3.0, -1.0, 4.0, 1.0, -5.0])\ntotal, kept = 0.0, []\nfor x in xs:\n"
                         "    if x < 0:\n        continue\n    kept.append(x)\n    total += np.sqrt(x)\n"
                         "    print('x =', x, 'total =', total)",
    # ndarray's own methods with a loop value as argument (issue 8: ndarray.dot never dispatches)
    "np_ndarray_dot_method": "M2 = np.array([[1.0, 2.0], [3.0, 4.0]])\nv = np.array([1.0, 1.0])\nfor i in range(3):\n"
                             "    v = M2.dot(v) / 10",
    "np_ndarray_reshape_tensor_dims": "Y = np.arange(6.0)\ns = 0.0\nfor n in range(1, 4):\n"
                                      "    s = s + Y[:2 * n].reshape(n, 2).sum()",
    "np_ndarray_sum_tensor_axis": "M2 = np.arange(6.0).reshape(2, 3)\nt = 0.0\nfor k in range(2):\n"
                                  "    t = t + M2.sum(axis=k).max()",
    "np_ndarray_methods_nested": "M2 = np.arange(6.0).reshape(2, 3)\nv = np.ones(3)\nfor k in range(2):\n"
                                 "    v = v + M2.T.dot(M2.dot(v)) * 0.01",
    # Python numbers promote as weak scalars (NEP 50): a float32/int32/float16 array stays so (issue 8)
    'np_float32_times_range_counter': 'v = np.ones(3, dtype=np.float32)\nfor i in range(3):\n    v = v * 0.5 + i',
    'np_int32_times_range_counter': 'v = np.ones(3, dtype=np.int32)\nfor i in range(4):\n    v = v * 2 + i',
    'np_float16_times_range_counter': 'v = np.ones(3, dtype=np.float16)\nfor i in range(3):\n    v = v * 0.5 + i',
    'np_python_float_accumulates_float32_items': 'xs = np.array([1.5, 2.5, -1.0], dtype=np.float32)\n'
                                                 's = 0.0\nfor x in xs:\n    s = s + x',
    'np_python_int_accumulates_int32_items': 'xs = np.array([1, 2, 3], dtype=np.int32)\ns = 0\nfor x in xs:\n'
                                             '    s += x * 2',
    'np_float32_plus_python_float_accumulator': 'v = np.ones(2, dtype=np.float32)\na = 0.0\nfor i in range(3):\n'
                                                '    a = a + 0.25 * i\n    v = v + a',
    'np_float32_while_python_counter': 'v = np.ones(2, dtype=np.float32)\nk = 0\nwhile k < 4:\n    v = v / 2 + k\n'
                                       '    k += 1',
    'np_float32_in_branches_python_numbers': 'v = np.zeros(2, dtype=np.float32)\nfor i in range(4):\n'
                                             '    if i % 2 == 0:\n        v = v + i * 0.5\n    else:\n'
                                             '        v = v - float(i)',
    'np_float32_times_list_items': 'v = np.ones(3, dtype=np.float32)\nfor x in [1, 2, 3]:\n    v = v * x',
    'np_float32_scalar_times_counter': 's = np.float32(1.0)\nfor i in range(3):\n    s = s * 2 + i',
    'np_float32_nested_counters': 'v = np.ones(2, dtype=np.float32)\nfor i in range(3):\n    for j in range(2):\n'
                                  '        v = v + i * j',
    # a[k] = v and a[k] += v in a loop: a functional update, an ndarray afterwards (issue 8)
    'np_setitem_running_sum': 'x = np.arange(5.0)\nacc = np.zeros_like(x)\nfor i in range(1, 5):\n'
                              '    acc[i] = acc[i-1] + x[i]',
    'np_setitem_casts_to_int': 'c = np.zeros(4, dtype=np.int64)\nfor i in range(4):\n'
                               '    c[i] = i * 2.7',
    'np_setitem_augmented_float32': 'a = np.ones(5, dtype=np.float32)\nfor i in range(5):\n'
                                    '    a[i] += i * 0.5',
    'np_setitem_row_slice': 'M = np.zeros((3, 3))\nfor i in range(3):\n'
                            '    M[i, :i + 1] = i + 1.0',
    'np_setitem_in_branch': 'a = np.zeros(4)\na[0] = 1.0\nfor i in range(1, 4):\n'
                            '    a[i] = a[i - 1] * 3\n    if a[i] > 5:\n        a[i] = 5.0',
    'np_setitem_fibonacci_while': 'fib = np.zeros(10, dtype=np.int64)\nfib[1] = 1\nk = 2\n'
                                  'while k < 10:\n    fib[k] = fib[k - 1] + fib[k - 2]\n    k += 1',
    # np.array of loop values: np.stack in numpy's array dtype
    "np_array_of_loop_values_into_row": "M3 = np.zeros((3, 2))\nfor i in range(3):\n"
                                        "    M3[i] = np.array([i, -i]) * 1.5",
    "np_array_of_loop_values_float32": "v = np.zeros(2, dtype=np.float32)\nfor i in range(3):\n"
                                       "    v = v + np.array([i, 2 * i], dtype=np.float32)",
    "np_array_of_nested_loop_values": "P = np.zeros((2, 2))\nfor i in range(3):\n"
                                      "    P = P + np.array([[i, 0.5], [1, i * i]])",
    # a Python int to a negative literal power is a float, as in Python
    "python_int_to_a_negative_power": "t = 0.0\nfor i in range(1, 5):\n    t += i ** -1 + i ** -2 * 0.5\n"
                                      "u = 0\nfor i in range(1, 3):\n    u = i ** -1",
    # round: half to even (TensorFlow's Round), as Python's round and numpy's
    "round_builtin_half_to_even": "r = 0\nfor x in xs:\n    r += round(x / 2)\nq = round(xs[0] * 0.5)",
    "round_builtin_of_python_float": "r = []\nfor k in range(6):\n    r.append(round(k + 0.5))",
    "round_builtin_ndigits_of_numpy": "t = 0.0\nfor x in xs:\n    t += round(x / 3, 2)",
    "np_round_decimals": "v = np.zeros(8)\nfor k in range(3):\n    v = np.round(v + xs / 7, 1)\n"
                         "w = np.around(xs / 4)",
    "np_setitem_on_a_copy_of_a_slice": "M4 = np.zeros((3, 2))\nr = M4[1:].copy()\nfor i in range(2):\n"
                                       "    r[0, i] = i + 0.5",
}

CELLS = {**PYTHON_CELLS, **NUMPY_CELLS}
