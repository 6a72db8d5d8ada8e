"""Time per node for graphs of 1,000, 10,000 and 100,000 nodes: build, export, import, compile and run (issue 18).

Two shapes, both made of scalar element-wise ops (`y + 1.0`, `y * 1.0`, alternately):
  * line: x -> op -> op -> ... (issue 18's straight-line graph of 20,000 ops, which took 52 s);
  * loop: the same line as the body of a `while_loop` that runs 3 iterations (the static schedule's frame code).
For each size: build (cfnb's graph API), export (`as_graph_def`), import (`import_graph_def` into a fresh graph,
the validation of every NodeDef and edge included), compile (the first `Session.run` of the imported graph minus a
later one: pruning, the loop-aware order and cycle check, the executable graph, the static schedule's code) and run
(a later `Session.run`, best of 3). Each is printed in µs of CPU time per node and as the ratio of that per-node time
to the one at the size before (ten times fewer nodes), measured in the same run: a linear phase keeps the ratio near
1, a quadratic one makes it 10 (the static schedule's old sort did). Python's cyclic garbage collector scans a heap
that grows with the graph, which adds a little per node from 1,000 to 10,000 nodes; the work itself is flat.

    .venv/bin/python benchmarks/graph_size.py [sizes ...]     # default 1000 10000 100000

Target: every ratio <= 2 from 10,000 to 100,000 nodes (linear; quadratic would be 10). The run exits 1 if a graph
computes a wrong value.
"""
import gc
import sys
import time

import cfnb

SIZES = (1_000, 10_000, 100_000)
ITERATIONS = 3
TARGET_RATIO = 2.0
PHASES = ("build", "export", "import", "compile", "run")


def _timed(fn):
    """(CPU seconds of this process, result): every phase is single-threaded Python, and on a shared machine the
    CPU time moves far less with the other processes' load than the wall time does."""
    gc.collect()
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def _build(shape, n):
    """(graph, x, y): the graph of `shape` with `n` element-wise ops."""
    graph = cfnb.Graph()
    with graph.as_default():
        x = cfnb.placeholder(cfnb.float32, [], name="x")

        def line(y):
            for k in range(n):
                y = y * 1.0 if k % 2 else y + 1.0
            return y
        if shape == "line":
            y = line(x)
        else:
            y = cfnb.while_loop(lambda i, v: i < ITERATIONS, lambda i, v: (i + 1, line(v)), [0, x])[1]
    return graph, x, y


def measure(shape, n):
    """({phase: seconds}, value computed, value expected) for one graph."""
    seconds = {}
    seconds["build"], (graph, x, y) = _timed(lambda: _build(shape, n))
    seconds["export"], graph_def = _timed(graph.as_graph_def)
    imported = cfnb.Graph()

    def import_():
        with imported.as_default():
            cfnb.import_graph_def(graph_def, name="")
    seconds["import"], _ = _timed(import_)
    x, y = imported.get_tensor_by_name(x.name), imported.get_tensor_by_name(y.name)
    sess = cfnb.Session(graph=imported)
    first, value = _timed(lambda: sess.run(y, {x: 0.0}))
    seconds["run"] = min(_timed(lambda: sess.run(y, {x: 0.0}))[0] for _ in range(3))
    seconds["compile"] = max(first - seconds["run"], 0.0)
    sess.close()
    expected = (n + 1) // 2 * (ITERATIONS if shape == "loop" else 1)
    return seconds, value, expected


def main(sizes=SIZES):
    ok = True
    for shape in ("line", "loop"):
        measure(shape, 100)  # warm-up: the OpDefs, kernels and code paths are loaded once, outside the timings
    for shape in ("line", "loop"):
        per_node = {}
        print(f"\n{shape}: µs of CPU time per node (ratio to the size before: 1.0 is linear, 10 quadratic)")
        print(f"  {'nodes':>9}" + "".join(f"{p:>20}" for p in PHASES))
        for k, n in enumerate(sizes):
            seconds, value, expected = measure(shape, n)
            per_node[n] = {p: seconds[p] / n * 1e6 for p in PHASES}
            before = per_node[sizes[k - 1]] if k else per_node[n]
            cells = [f"{per_node[n][p]:9.2f} ({per_node[n][p] / before[p]:5.2f}x)" for p in PHASES]
            print(f"  {n:>9,}" + "".join(f"{c:>20}" for c in cells))
            if value != expected:
                print(f"  check {shape} {n}: FAILED ({value} != {expected})")
                ok = False
        if len(sizes) > 1:
            last, before = per_node[sizes[-1]], per_node[sizes[-2]]
            worst = max(PHASES, key=lambda p: last[p] / before[p])
            ratio = last[worst] / before[worst]
            print(f"  linear: worst ratio {ratio:.2f}x ({worst}) from {sizes[-2]:,} to {sizes[-1]:,} nodes "
                  f"(target <= {TARGET_RATIO}x: {'met' if ratio <= TARGET_RATIO else 'NOT met'})")
    return ok


if __name__ == "__main__":
    raise SystemExit(0 if main(tuple(int(a) for a in sys.argv[1:]) or SIZES) else 1)
