"""The fast path: a precompiled schedule for well-formed loops, run as generated Python code.

The tagged-token executor (`runtime/executor.py`) runs every graph by TensorFlow's rules, deciding
token by token what may fire. For a loop built by `while_loop` (or lowered from a `While`) that
decision is the same every iteration, so this room makes it once, when the graph is compiled:

- `schedule.py`          compile_static: which frames qualify, and running the compiled graph;
- `loop_form.py`         what a well-formed while frame is (one Enter/Merge/Switch/NextIteration/
                         Exit chain per loop variable, one LoopCond), else NotStatic;
- `frame_graph.py`       the graph as the generator walks it: consumers, frames, units in order;
- `codegen.py`           the code generator: one Python function per frame, one line per node,
                         one emitter per node kind chosen from a table;
- `cond_to_if.py`        a well-formed cond becomes a Python `if`/`else`;
- `inline_kernels.py`    kernels that are an operator on numpy scalars, written inline;
- `buffer_forwarding.py` element-wise ops that write into an input nobody else holds
                         (TensorFlow's `forward_input_or_allocate_output`).

The generated code is public: `StaticSchedule.source`, also handed back by a run in
`RunMetadata.static_schedule`. TensorFlow has no counterpart: it always runs the executor. The
schedule is one the executor's rules allow (the order `parallel_iterations=1` gives), and the
tests hold it to the executor's values bit for bit.
"""
