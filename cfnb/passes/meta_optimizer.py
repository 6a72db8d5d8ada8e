"""`optimize`: the graph optimizations a Session runs before it schedules a graph (Grappler's `MetaOptimizer`).

TensorFlow hands every graph it is about to run to Grappler (`grappler/optimizers/meta_optimizer.cc`), which runs
its optimizers one after another on a copy, each switchable in `RewriterConfig`. cfnb's pipeline rewrites the
*lowered* graph (v1 primitives, and functional `While`/`If` after lowering), in this order:

  1. loop_invariant_motion.py   (Grappler's loop optimizer) work that is the same every iteration, hoisted;
  3. loop_fission.py            (cuDNN) work on row t of a tensor, for the loop counter t, done for all rows;
  4. accumulation_batching.py   (cuDNN) a sum of per-iteration products, done as one product;
  2. stack_push_removal.py      (Grappler's loop optimizer) history stacks nothing pops, not filled.

Each pass module has `NAME` (its RewriterConfig toggle), `has_work(look)`, which reads the original graph (a
`graph_edit.Look`) and says whether `run` would change it, and `run(rewrite)`, which edits the copy in place and
returns what it did. Writing one: find a pattern in a `loop_frames.FrameView` of the copy (`rewrite.view()`, fresh
after each change), change the copy with `graph_edit` (`Builder` makes nodes in a frame, `rewrite.reroute` moves
consumers and fetches to a new tensor), say in `has_work` when the pattern is there, and add the module to
`PIPELINE`. The graph is copied only when some pass has work: the passes before the first that has any would find
nothing on the copy either, so they are not run; a graph no pass changes is returned as it is, uncopied. What the
passes leave unread is pruned from the copy in place (`graph_edit.prune_copy`), which leaves it exactly as a second
copy of the needed nodes would be, without making one.

A graph with no while loop is returned as it is. Strict functional runs (`lower_functional_ops=False`) are not
optimized: their `While` bodies are functions called whole, not frames of the graph.
"""
from typing import NamedTuple

from . import accumulation_batching, loop_fission, loop_invariant_motion, stack_push_removal
from .graph_edit import Look, Rewrite, copy_graph, prune_copy
from .pruning import needed_ops
from .rewriter_config import RewriterConfig

PIPELINE = (loop_invariant_motion, loop_fission, accumulation_batching, stack_push_removal)


class OptimizedGraph(NamedTuple):
    graph: object        # the rewritten copy (or the graph itself when nothing ran)
    tensor_map: dict     # tensor of the input graph -> tensor of `graph` (fetches and feeds)
    op_map: dict         # op of the input graph -> op of `graph` (targets)
    rewrites: dict       # pass name -> what it did: [(frame or stack name, [node names])]

    def tensor(self, t):
        """The tensor of the optimized graph that stands for `t` of the original (itself when the passes kept it):
        how the Session maps fetches and feeds."""
        return self.tensor_map.get(t, t)

    def op(self, op):
        """The op of the optimized graph that stands for `op` of the original (itself when kept)."""
        return self.op_map.get(op, op)

    def summary(self):
        """One line per pass that did something: `loop_fission: while/MatMul`."""
        return "\n".join(f"{name}: " + "; ".join(", ".join(nodes) for _, nodes in done)
                         for name, done in self.rewrites.items() if done) or "no rewrite applied"


def optimize(graph, fetches, feeds=(), targets=(), config=None, traced=False, memory_limit=None):
    """The graph `fetches` need, rewritten by the passes `config` (a RewriterConfig) enables for a traced or an
    untraced run. `fetches` and `feeds` are tensors, `targets` ops; returns an OptimizedGraph, whose `graph`
    `cfnb.viz.show` draws and whose maps say where each fetch, feed and target went. `memory_limit`: the bytes
    the run's device may hold (None: no limit); the passes that trade memory for speed decline under one."""
    config = config if config is not None else RewriterConfig()
    fetches, feeds, targets = list(fetches), list(feeds), list(targets)
    passes = [p for p in PIPELINE if config.enabled(p.NAME, traced)]
    needed = needed_ops(fetches + feeds, targets, set())
    if not passes or not any(op.type == "Enter" for op in needed) or _functional(needed):
        return OptimizedGraph(graph, {}, {}, {})
    look = Look(graph, fetches + feeds, targets, feeds, memory_limit, needed)
    first = next((k for k, p in enumerate(passes) if p.has_work(look)), len(passes))
    if first == len(passes):
        return OptimizedGraph(graph, {}, {}, {p.NAME: [] for p in passes})
    copy, tmap, opmap = copy_graph(graph, fetches + feeds, targets, needed)
    rewrite = Rewrite(copy, [tmap[t] for t in fetches + feeds], [opmap[op] for op in targets],
                      [tmap[t] for t in feeds], memory_limit)
    rewrites = {p.NAME: p.run(rewrite) if k >= first else [] for k, p in enumerate(passes)}
    if not any(rewrites.values()):
        return OptimizedGraph(graph, {}, {}, rewrites)
    if prune_copy(copy, rewrite.outputs, rewrite.targets):  # without the nodes left unread
        tmap2, opmap2 = {x: x for x in rewrite.outputs}, {x: x for x in rewrite.targets}
    else:
        copy, tmap2, opmap2 = copy_graph(copy, rewrite.outputs, rewrite.targets)
    tensor_map = {t: tmap2[x] for t, x in zip(fetches + feeds, rewrite.outputs)}
    return OptimizedGraph(copy, tensor_map, {op: opmap2[x] for op, x in zip(targets, rewrite.targets)}, rewrites)


def _functional(ops):
    return any(op.type in ("If", "StatelessIf", "While", "StatelessWhile", "Case", "StatelessCase") for op in ops)
