"""Arrays written one item per step in %%whileloop cells, against plain Python: issue 20's quadratic `a[k] = v`.

Two cells a numerical-methods course starts with: an Euler loop storing each step in a preallocated array
(`ys[k + 1] = y`) and a sieve of Eratosthenes (`is_prime[j] = False`), of 10,000 and 100,000 steps (numbers, for the
sieve), each timed as a whole cell run (build, v1 rebuild, static schedule, names handed back) in a real
InteractiveShell against `exec` of the same source, round-robin (best of 3). Before the slice update wrote in place
(runtime/slice_update.py) every assignment built three arrays of the array's size: 0.14 s at 5,000 Euler steps,
0.74 s at 20,000, 2.5 s at 40,000. Printed: the ratios against plain Python of a fresh cell's first run (what a
student sees) and of the same cell run again (its converted code cached, magics/converters/__init__.py), target <=
10x at both lengths (at 10,000 steps the cell's fixed cost of converting, building and compiling its graph
dominates), and how time grows from 10,000 to 100,000 steps: the cost of 1,000 more steps between the two lengths,
and t(100k) / t(10k), ~10 for a linear cost and ~100 for a quadratic one. The names the cell leaves must equal plain
Python's, types and bytes included.
"""
import numpy as np
from _timing import best_of_each, check, print_table

SIZES = (10_000, 100_000)
TARGET = 10.0


def euler(n):
    return f"ys = np.zeros({n} + 1)\ny = 1.0\nh = 1.0 / {n}\nfor k in range({n}):\n    y = y + h * (-y)\n" \
           f"    ys[k + 1] = y"


def sieve(n):
    """The primes up to `n` (n log log n assignments, ~2.3 n here)."""
    return f"n = {n}\nis_prime = np.ones(n + 1, dtype=bool)\nis_prime[0] = False\nis_prime[1] = False\n" \
           f"i = 2\nwhile i * i <= n:\n    if is_prime[i]:\n        j = i * i\n        while j <= n:\n" \
           f"            is_prime[j] = False\n            j += i\n    i += 1"


CELLS = {"Euler, ys[k + 1] = y": euler, "sieve, is_prime[j] = False": sieve}


def main():
    from IPython.testing.globalipapp import get_ipython, start_ipython
    ip = start_ipython() or get_ipython()  # one shell per process: `make bench` runs both magic benchmarks
    ip.run_line_magic("load_ext", "cfnb")
    ip.user_ns["np"] = np
    ok = True
    for name, make in CELLS.items():
        seconds = {}
        for n in SIZES:
            cell = make(n)
            seconds[n] = best_of_each(_runs(ip, cell), repeat=3)
            for who, what in (("first run", "a fresh cell's first run"), ("re-run", "the same cell run again")):
                print_table(f"%%whileloop cell '{name}', {n:,} steps: {what}", "s",
                            [("cfnb", seconds[n][f"cfnb, {who}"]), ("python", seconds[n]["python"])],
                            targets={"python": TARGET})
            ok &= check("names == plain Python's", [("cfnb", _same(ip, cell))], lambda x: x)
        small, large = SIZES
        for who in ("cfnb, first run", "cfnb, re-run", "python"):
            per_step = (seconds[large][who] - seconds[small][who]) / (large - small) * 1000
            print(f"  {who:15}: {per_step * 1000:7.3f} ms per 1,000 more steps;  t({large:,}) / t({small:,}) = "
                  f"{seconds[large][who] / seconds[small][who]:5.1f}")
    return ok


def _runs(ip, cell):
    """The cell as a student runs it: a fresh cell (a source the magic has not seen: each call appends a new
    comment, so nothing of an earlier run is reused), the same cell again (its conversion is cached), and plain
    Python."""
    fresh = iter(range(1_000_000))

    def first():
        ip.run_cell_magic("whileloop", "--no-display", f"{cell}\n# fresh cell {next(fresh)}")

    return {"cfnb, first run": first,
            "cfnb, re-run": lambda: ip.run_cell_magic("whileloop", "--no-display", cell),
            "python": lambda: exec(cell, {"np": np})}  # noqa: S102


def _same(ip, cell):
    expected = {"np": np}
    exec(cell, expected)  # noqa: S102 - our own cells
    names = [k for k in expected if not k.startswith("__") and k != "np"]
    return all(type(ip.user_ns[k]) is type(expected[k]) and np.asarray(ip.user_ns[k]).dtype ==
               np.asarray(expected[k]).dtype and np.array_equal(ip.user_ns[k], expected[k]) for k in names)


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
