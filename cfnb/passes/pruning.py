"""Pruning: keep only the ops the fetches need (TensorFlow's model pruner / subgraph extraction).

Every `Session.run` compiles just this fan-in. It is what makes a graph that was built with
gradients cost nothing extra at inference: the accumulators a gradient added to a loop
(history stacks, TensorList pushes) have no consumer on the path to the forward outputs, so they
are removed before execution. `prune()` returns both sides, so the course can show what went.
"""
from typing import NamedTuple


def needed_ops(fetch_tensors, target_ops, feed_set, inputs_of=None):
    """Ops needed for the fetches and targets, walking data and control inputs; stops at feeds. `inputs_of(op)`,
    when given, is what an op reads instead of its own inputs (runtime/slice_update.py's fused updates)."""
    seen = set()
    stack = [t._op for t in fetch_tensors if t not in feed_set] + list(target_ops)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack += [t._op for t in (op._inputs if inputs_of is None else inputs_of(op)) if t not in feed_set]
        # A control edge from a fed op waits for the feed instead (the op itself does not run).
        stack += [c for c in op._control_inputs
                  if not (feed_set and c._outputs and all(t in feed_set for t in c._outputs))]
    return seen


class PruneResult(NamedTuple):
    kept: list      # ops that run, in graph order
    removed: list   # ops that do not, in graph order


def prune(graph, fetches, feeds=(), targets=()):
    """Split `graph`'s ops into those `fetches` (and `targets`) need and the rest."""
    keep = needed_ops(list(fetches), list(targets), set(feeds))
    ops = graph.get_operations()
    return PruneResult([op for op in ops if op in keep], [op for op in ops if op not in keep])
