"""The graph optimizations (cfnb/passes/meta_optimizer.py): each pass fires on the programs it is for, leaves
alone the ones it must, and keeps every answer (values and gradients, within float rounding) on every program
of the conformance set, the fuzz corpus and the regression programs, in both control-flow forms. The switches
are TensorFlow's (`RewriterConfig`, `disable_meta_optimizer`).

The corpora are compared optimized against unoptimized on the static schedule here; the passes are on by
default, so tests/test_conformance.py, test_fuzz_corpus.py and regressions/test_reliab.py hold the optimized
graphs to TensorFlow's answers on every path (static schedule, executor, strict) as well. The programs the passes
are for are compared here on the executor too."""
import importlib.util
import json
import pathlib
import sys

import numpy as np
import pytest

import cfnb
from cfnb.passes.graph_edit import Rewrite, copy_graph, prune_copy
from cfnb.passes.lowering import has_functional_ops, lower_functional_ops
from cfnb.passes.meta_optimizer import PIPELINE, optimize
from cfnb.viz import to_dot

HERE = pathlib.Path(__file__).parent


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conformance = _load("cfnb_conformance_programs_opt", HERE / "conformance" / "programs.py")
reliab = _load("cfnb_reliab_programs_opt", HERE / "regressions" / "reliab_programs.py")
sys.path.insert(0, str(HERE / "fuzz"))
from generator import Program  # noqa: E402
from harness import build as build_fuzz  # noqa: E402
from sampling import halves  # noqa: E402

RC = cfnb.RewriterConfig
ALL_ON = RC(loop_optimization=RC.ON, loop_fission=RC.ON, accumulation_batching=RC.ON)
OFF = RC(disable_meta_optimizer=True)
FUZZ = json.loads((HERE / "fuzz" / "corpus_tf.json").read_text())["programs"]


def config(rewrite, **kwargs):
    return cfnb.ConfigProto(graph_options=cfnb.GraphOptions(rewrite_options=rewrite), **kwargs)


def rewrites(graph, fetches, feeds=(), rewrite=ALL_ON, memory_limit=None):
    """{pass: what it did} for the graph a Session runs (lowered first when it has functional ops), on a device
    with `memory_limit` bytes (None: no limit)."""
    graph, fetches, feeds = _lowered(graph, list(fetches), list(feeds))
    version, text = graph.version, graph.as_text()
    got = optimize(graph, fetches, feeds, config=rewrite, memory_limit=memory_limit)
    fired = {name: done for name, done in got.rewrites.items() if done}
    # The passes look at the original before anything is copied (has_work), and optimize() copies only when one
    # has work: the graph and rewrites must be those of copying first and running every pass on the copy, and a
    # graph no pass changes comes back itself, untouched.
    want_fired, want_text = _optimize_on_a_copy(graph, fetches, feeds, rewrite, memory_limit)
    assert fired == want_fired and (None if got.graph is graph else got.graph.as_text()) == want_text
    assert graph.version == version and graph.as_text() == text
    return fired


def _lowered(graph, fetches, feeds):
    if has_functional_ops(graph):
        low = lower_functional_ops(graph)
        return low.graph, [low.tensor_map[t] for t in fetches], [low.tensor_map[t] for t in feeds]
    return graph, fetches, feeds


def _optimize_on_a_copy(graph, fetches, feeds, config, memory_limit=None):
    """What `optimize` did before the passes looked first: copy (when the graph has a loop), then run every enabled
    pass on the copy. Returns ({pass: what it did} of those that did something, the text of the graph it returns,
    or None when that is the input graph)."""
    if not any(op.type == "Enter" for op in graph.get_operations()):
        return {}, None
    copy, tmap, _ = copy_graph(graph, fetches + feeds)
    rewrite = Rewrite(copy, [tmap[t] for t in fetches + feeds], [], [tmap[t] for t in feeds], memory_limit)
    done = {p.NAME: p.run(rewrite) for p in PIPELINE if config.enabled(p.NAME, False)}
    if not any(done.values()):
        return {}, None
    return {k: v for k, v in done.items() if v}, copy_graph(copy, rewrite.outputs, rewrite.targets)[0].as_text()


def run(graph, fetches, feeds, init, cfg):
    # the executor gets a deadline (a rewrite that broke a loop would run it forever); the static schedule cannot
    # take one: a deadline sends the run to the executor
    options = cfnb.RunOptions(timeout_in_ms=120_000) if not cfg.static_schedule else None
    with graph.as_default(), cfnb.Session(graph=graph, config=cfg) as sess:
        if init is not None:
            sess.run(init)
        try:
            return sess.run(fetches, feeds, options=options)
        except Exception as e:  # noqa: BLE001 - the same error both ways is an equal answer
            return f"{type(e).__name__}: {str(e).splitlines()[0]}"


def differences(a, b, what):
    if isinstance(a, str) or isinstance(b, str):
        return [] if a == b else [f"{what}: {a if isinstance(a, str) else 'values'} != {b}"]
    out = []
    for key in a:
        x, y = np.asarray(a[key]), np.asarray(b[key])
        ok = x.shape == y.shape and x.dtype == y.dtype and (
            np.allclose(x, y, rtol=1e-4, atol=1e-5 * max(1.0, float(np.max(np.abs(y), initial=0))))
            if np.issubdtype(y.dtype, np.floating) else np.array_equal(x, y))
        if not ok:
            out.append(f"{what} {key}: {x.tolist()} != unoptimized {y.tolist()}")
    return out


def equivalent(graph, fetches, feeds, init=None, schedules=({}, {"static_schedule": False})):
    """(what fired, differences) between the optimized and the unoptimized runs, on each of `schedules`."""
    fired = rewrites(graph, nest_values(fetches), feeds)
    if not fired:
        return fired, []  # optimize() hands back the graph itself: nothing to compare
    want = run(graph, fetches, feeds, init, config(OFF))
    problems = []
    for schedule in schedules:
        got = run(graph, fetches, feeds, init, config(ALL_ON, **schedule))
        problems += differences(got, want, f"{sorted(fired)} {schedule or 'static'}")
    return fired, problems


def nest_values(fetches):
    return [t for t in fetches.values() if t is not None]


# --- which pass fires where ------------------------------------------------------------------------------
FIRES = {  # program: {mode: passes that must fire}; every other pass must not
    # v1: batching multiplies the rows of x the forward loop pushed as x itself, so their stack is emptied
    "opt_rnn_tensorarray": {"v1": {"loop_fission", "accumulation_batching", "stack_push_removal"},
                            "v2": {"loop_fission", "accumulation_batching"}},
    "opt_rnn_gather_chain": {"v1": {"loop_fission", "accumulation_batching", "stack_push_removal"},
                             "v2": {"loop_fission", "accumulation_batching"}},
    "opt_rnn_one_gradient": {"v1": {"loop_fission", "accumulation_batching", "stack_push_removal"},
                             "v2": {"loop_fission", "accumulation_batching"}},  # v2: pruning drops the lists
    "opt_invariant_chain": {"v1": {"loop_invariant_node_motion", "stack_push_removal"},
                            "v2": {"loop_invariant_node_motion"}},
    "opt_rnn_fed_length": {"v1": {"accumulation_batching"}},  # the trip count is fed: no fission
    "opt_rnn_row_in_cond": {"v1": set()},  # the row and the invariant are read in a cond
}


@pytest.mark.parametrize("name", sorted(FIRES))
def test_each_pass_fires_on_the_programs_it_is_for(mode, name):
    graph, fetches, feeds, init, _ = conformance.build_program(cfnb, conformance.PROGRAMS[name])
    want = FIRES[name].get(mode, FIRES[name]["v1"])
    fired, problems = equivalent(graph, fetches, feeds, init)
    assert set(fired) == want and not problems, (fired, problems)


def _structure(graph):
    """Everything of a graph the compiler and the executor read, in graph order: ids, names, types, devices, inputs,
    control inputs and outputs, each output's consumers (in order), shapes and attrs."""
    return [(op._id, op.name, op.type, op.device, [t.name for t in op.inputs], [c.name for c in op.control_inputs],
             [c.name for c in op._control_outputs], [[c.name for c in t._consumers] for t in op.outputs],
             [str(t.shape) for t in op.outputs], sorted(op.attr)) for op in graph.get_operations()]


@pytest.mark.parametrize("name", ["opt_rnn_tensorarray", "opt_invariant_chain", "opt_rnn_gather_chain"])
def test_pruning_the_rewritten_copy_in_place_gives_a_second_copy(mode, name):
    """`prune_copy` (what optimize() does once the passes are done) leaves the rewritten copy exactly as copying it
    again would make it: the same ops in the same order, with the same ids, devices and edge lists in the same
    order (the executor's firing order follows them)."""
    graph, fetches, feeds, _, _ = conformance.build_program(cfnb, conformance.PROGRAMS[name])
    graph, fetches, feeds = _lowered(graph, list(fetches.values()), list(feeds))
    copies = []
    for _ in range(2):
        copy, tmap, _ = copy_graph(graph, fetches + feeds)
        rewrite = Rewrite(copy, [tmap[t] for t in fetches + feeds], [], [tmap[t] for t in feeds])
        assert any([p.run(rewrite) for p in PIPELINE if ALL_ON.enabled(p.NAME, False)])
        copies.append((copy, rewrite))
    (first, done), (second, again) = copies
    assert _structure(first) == _structure(second)  # the passes are deterministic
    want = copy_graph(first, done.outputs, done.targets)[0]
    assert prune_copy(second, again.outputs, again.targets)
    # What the passes left unread (in v2 the hoisted invariant's old chain is still read: nothing to drop).
    shrinks = name != "opt_invariant_chain" or mode == "v1"
    assert (len(want.get_operations()) < len(first.get_operations())) == shrinks
    assert _structure(second) == _structure(want)


def test_fission_hoists_the_input_projection_and_batching_the_weight_gradients():
    graph, fetches, feeds, _, _ = conformance.build_program(cfnb, conformance.PROGRAMS["opt_rnn_gather_chain"])
    done = rewrites(graph, fetches.values(), feeds)
    assert done["loop_fission"] == [("while/while_context", ["while/MatMul", "while/add", "while/Sigmoid",
                                                             "while/mul"])]
    assert [exit_name for _, names in done["accumulation_batching"] for exit_name in names] == [
        "gradients/while/MatMul_1/Enter_grad/b_acc_3", "gradients/while/MatMul/Enter_grad/b_acc_3"]
    opt = optimize(graph, list(fetches.values()), list(feeds))
    ops = {op.name: op for op in opt.graph.get_operations()}
    assert ops["while/mul/hoisted/row"].type == "GatherV2"  # the row of F = 2 sigmoid(X W + b), in the loop
    assert "while/MatMul" not in ops and ops["while/MatMul/hoisted"].inputs[0].shape.as_list() == [15, 5]
    assert ops["gradients/while/MatMul/Enter_grad/b_acc_3/batched/MatMul"].get_attr("transpose_a")


def test_batching_multiplies_the_rows_a_v1_forward_loop_pushed_as_the_tensor_they_came_from():
    """dW_x = sum_t x_t^T dz_t: x_t is row t of x, pushed on a history stack by the forward loop and popped last to
    first by the gradient loop; the product reads x itself (its rows reversed), and the stack is emptied."""
    was = cfnb.control_flow_v2_enabled()
    cfnb.disable_control_flow_v2()
    try:
        graph, fetches, feeds, _, _ = conformance.build_program(cfnb, conformance.PROGRAMS["opt_rnn_tensorarray"])
    finally:
        (cfnb.enable_control_flow_v2 if was else cfnb.disable_control_flow_v2)()
    opt = optimize(graph, list(fetches.values()), list(feeds))
    ops = {op.name: op for op in opt.graph.get_operations()}
    rows = [op for name, op in ops.items() if name.endswith("/stacked/rows")]
    assert len(rows) == 1 and rows[0].type == "GatherV2" and rows[0].inputs[0].op.type == "Placeholder"
    x_stack = opt.rewrites["stack_push_removal"][0][1]
    assert all(ops[name].type == "NoOp" for name in x_stack)  # pushes nothing: the loop reads no row of x
    assert "while/TensorArrayReadV3" in {op.name for op in graph.get_operations()} and \
        not any(op.type == "TensorArrayReadV3" and op.name.startswith("while/") for op in ops.values())
    fired, problems = equivalent(graph, fetches, feeds)
    assert "accumulation_batching" in fired and not problems


def _loop_program(body, n=4, x_rows=4, init=None, swap=False):
    """(graph, fetches, feeds) of `v <- body(t, v, x, w)` for t < n (a constant), x fed with `x_rows` rows."""
    graph = cfnb.Graph()
    with graph.as_default():
        x = cfnb.placeholder(cfnb.float32, [x_rows, 2, 3], name="x")
        w = cfnb.placeholder(cfnb.float32, [3, 3], name="w")
        _, v = cfnb.while_loop(lambda t, v: t < n, lambda t, v: (t + 1, body(t, v, x, w)),
                               [0, init if init is not None else cfnb.zeros([2, 3])], swap_memory=swap)
        g = cfnb.gradients(cfnb.reduce_sum(v), [w])[0]
    rng = np.random.RandomState(3)
    feeds = {x: rng.randn(x_rows, 2, 3).astype(np.float32), w: rng.randn(3, 3).astype(np.float32) * 0.3}
    return graph, {k: t for k, t in {"v": v, "g": g}.items() if t is not None}, feeds


def test_fission_needs_the_trip_count_to_be_the_number_of_rows(mode):
    row_wise = lambda t, v, x, w: cfnb.tanh(cfnb.matmul(cfnb.gather(x, t), w) + v)
    assert "loop_fission" in rewrites(*_fetched(_loop_program(row_wise, n=4, x_rows=4)))
    for n, rows in ((3, 4), (0, 4), (6, 4)):  # fewer rows read than X has, a zero-trip loop, rows out of range
        graph, fetches, feeds = _loop_program(row_wise, n=n, x_rows=rows)
        assert "loop_fission" not in rewrites(graph, fetches.values(), feeds)
        fired, problems = equivalent(graph, fetches, feeds)
        assert not problems
    graph, fetches, feeds = _loop_program(row_wise, n=6, x_rows=4)  # the loop's own error, unchanged
    error = run(graph, fetches, feeds, None, config(ALL_ON))
    assert error.startswith("InvalidArgumentError: IndexError: indices = 4 is not in [0, 4)")


def _fetched(program):
    graph, fetches, feeds = program
    return graph, fetches.values(), feeds


def test_fission_needs_row_wise_work(mode):
    def columns(t, v, x, w):  # row x_t^T x_t mixes the rows of x_t
        row = cfnb.gather(x, t)
        return v + cfnb.matmul(row, row, transpose_a=True)[:2]
    assert "loop_fission" not in rewrites(*_fetched(_loop_program(columns)))
    recurrent = lambda t, v, x, w: cfnb.matmul(cfnb.gather(x, t) * v, w)  # the row meets the loop variable first
    assert "loop_fission" not in rewrites(*_fetched(_loop_program(recurrent)))


def test_a_stateful_op_stays_in_the_loop(mode):
    def body(t, v, x, w):
        with cfnb.control_dependencies([cfnb.Assert(t >= 0, [t])]):
            scaled = cfnb.tanh(w * 2.0)  # invariant, but ordered after a stateful op
        return v + scaled[:2]
    graph, fetches, feeds = _loop_program(body)
    assert "loop_invariant_node_motion" not in rewrites(graph, fetches.values(), feeds)


def test_swapping_graphs_keep_their_per_step_form(mode):
    row_wise = lambda t, v, x, w: cfnb.tanh(cfnb.matmul(cfnb.gather(x, t), w) + v)
    graph, fetches, feeds = _loop_program(row_wise, swap=True)
    done = rewrites(graph, fetches.values(), feeds)
    assert "loop_fission" not in done and "accumulation_batching" not in done


def test_a_loop_variable_set_to_an_invariant_still_ends_its_loop(mode):
    """The body hands back tanh(w) * 2 for v: hoisted, it reaches the NextIteration through a constant Enter,
    which is replayed into every iteration; the pivot's control edge keeps the NextIteration dead when the loop
    ends (the executor would otherwise start iterations forever; found by the fuzz corpus, program 99)."""
    graph = cfnb.Graph()
    with graph.as_default():
        w = cfnb.placeholder(cfnb.float32, [3], name="w")
        _, v = cfnb.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, cfnb.tanh(w) * 2.0), [0, cfnb.ones([3])])
        g = cfnb.gradients(cfnb.reduce_sum(v * v), w)[0]
    fired, problems = equivalent(graph, {"v": v, "g": g}, {w: np.array([0.1, -0.2, 0.3], np.float32)})
    assert "loop_invariant_node_motion" in fired and not problems


def test_invariant_work_leaves_nested_loops_one_frame_per_pass(mode):
    graph = cfnb.Graph()
    with graph.as_default():
        w = cfnb.placeholder(cfnb.float32, [3], name="w")

        def inner(i, s):
            return i + 1, s + cfnb.exp(w * 0.5)

        def outer(j, acc):
            return j + 1, acc + cfnb.while_loop(lambda i, s: i < 3, inner, [0, acc])[1]

        _, acc = cfnb.while_loop(lambda j, a: j < 2, outer, [0, cfnb.ones([3])])
        g = cfnb.gradients(cfnb.reduce_sum(acc), w)[0]
    feeds = {w: np.array([0.1, 0.2, -0.3], np.float32)}
    fired, problems = equivalent(graph, {"acc": acc, "g": g}, feeds)
    assert "loop_invariant_node_motion" in fired and not problems
    frames = [frame for frame, _ in fired["loop_invariant_node_motion"]]
    assert len(frames) == len(set(frames)) >= 2  # the inner loop first, then the outer one


# --- the switches ------------------------------------------------------------------------------------------
def test_rewriter_config_toggles_as_tensorflow_spells_them():
    assert RC().enabled("loop_fission") and not RC().enabled("loop_fission", traced=True)
    assert RC(loop_fission=RC.ON).enabled("loop_fission", traced=True)
    assert not RC(disable_meta_optimizer=True, loop_fission=RC.ON).enabled("loop_fission")
    off = RC(loop_optimization=RC.OFF)
    assert not off.enabled("loop_invariant_node_motion") and not off.enabled("stack_push_removal")
    assert off.enabled("loop_fission") and off.enabled("accumulation_batching")
    assert RC(constant_folding=RC.OFF).constant_folding == RC.OFF  # TensorFlow's other fields are kept
    cfg = cfnb.ConfigProto()
    cfg.graph_options.rewrite_options.disable_meta_optimizer = True  # TensorFlow's idiom
    assert not cfg.graph_options.rewrite_options.enabled("loop_fission")


def test_session_runs_the_optimized_graph_untraced_and_the_built_one_traced():
    graph, fetches, feeds, _, _ = conformance.build_program(cfnb, conformance.PROGRAMS["opt_rnn_tensorarray"])
    fetch = [fetches["h"], fetches["g_wx"]]
    full = cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE)
    fired = lambda meta: {f.node for f in meta.trace.firings if "hoisted" in f.node or "batched" in f.node}
    for rewrite, hoisted in ((RC(), False), (ALL_ON, True)):
        sess = cfnb.Session(graph=graph, config=config(rewrite))
        meta = cfnb.RunMetadata()
        traced = sess.run(fetch, feeds, options=full, run_metadata=meta)
        assert bool(fired(meta)) is hoisted  # DEFAULT: a trace shows the graph as built
        np.testing.assert_allclose(sess.run(fetch, feeds)[1], traced[1], rtol=1e-5)
    assert set(rewrites(graph, fetch, feeds, RC())) == {"loop_fission", "accumulation_batching", "stack_push_removal"}
    only_fission = RC(accumulation_batching=RC.OFF, loop_optimization=RC.OFF)
    assert set(rewrites(graph, fetch, feeds, only_fission)) == {"loop_fission"}


def test_the_rewritten_graph_can_be_drawn():
    graph, fetches, feeds, _, _ = conformance.build_program(cfnb, conformance.PROGRAMS["opt_rnn_tensorarray"])
    opt = optimize(graph, list(fetches.values()), list(feeds))
    dot = to_dot(opt.graph).source
    assert "hoisted" in dot and "TensorListStack" in dot and "loop_fission: while/MatMul" in opt.summary()
    assert opt.tensor(fetches["h"]).graph is opt.graph and opt.tensor(fetches["h"]).name == "while/Exit_1:0"


# --- equivalence over the corpora ------------------------------------------------------------------------------
def _check_corpus(items, mode):
    fired_on, failures = [], []
    for label, make in items:
        try:
            graph, fetches, feeds, init = make()
        except Exception:  # noqa: BLE001 - a program TensorFlow refuses to build: nothing to optimize
            continue
        fired, problems = equivalent(graph, fetches, feeds, init, schedules=({},))
        if fired:
            fired_on.append((label, sorted(fired)))
        failures += [f"{label} ({mode}): {p}" for p in problems]
    assert not failures, "\n".join(failures[:20])
    return fired_on


@pytest.mark.parametrize(("mode", "half"), halves(), indirect=["mode"])
def test_conformance_programs_keep_their_answers(mode, half):
    """Half the programs in each version in `make test` (tests/sampling.py), all in both in `make test-all`: every
    pass fires on some program of each half (test_each_pass_fires_on_the_programs_it_is_for: on which)."""
    def make(build):
        graph, fetches, feeds, init, _ = conformance.build_program(cfnb, build)
        return graph, fetches, feeds, init
    items = [(name, lambda b=b: make(b)) for name, b in list(conformance.PROGRAMS.items())[half::2]]
    passes = {p for _, fired in _check_corpus(items, mode) for p in fired}
    assert passes == {"loop_invariant_node_motion", "loop_fission", "accumulation_batching"} | (
        {"stack_push_removal"} if mode == "v1" else set()), passes


# `make test` checks one quarter of the fuzz corpus in each version (v1 the first, v2 the second); `make test-all` all
# four quarters in both.
FUZZ_QUARTERS = [pytest.param(mode, start, id=f"{mode}-{start}", marks=[] if start == 125 * k else [pytest.mark.long])
                 for k, mode in enumerate(["v1", "v2"]) for start in range(0, 500, 125)]


@pytest.mark.parametrize(("mode", "start"), FUZZ_QUARTERS, indirect=["mode"])
def test_fuzz_corpus_keeps_its_answers(mode, start):
    def make(entry):
        built = build_fuzz(cfnb, Program(entry["source"], entry["feeds"]))
        return built.graph, built.fetches, built.feed_dict, None
    items = [(f"fuzz {k}", lambda e=FUZZ[k]: make(e)) for k in range(start, start + 125)]
    assert _check_corpus(items, mode)  # something fires in every slice: LINM and (v1) stack push removal


def test_regression_programs_keep_their_answers(mode):
    def make(build):
        graph = cfnb.Graph()
        with graph.as_default():
            fetches, feeds = build(cfnb)
        feeds = dict(feeds)
        init = feeds.pop(reliab.INIT, None)
        return graph, fetches, feeds, init
    items = [(name, lambda b=b: make(b)) for name, b in reliab.PROGRAMS.items() if mode in reliab.MODES[name]]
    _check_corpus(items, mode)


# --- a device's memory limit ------------------------------------------------------------------------------------
def _gpu_rnn(steps=12):
    """(graph, fetches, feeds) of an RNN whose fission and batching fire: h <- tanh(x_t W_x + h W_h), with gradients."""
    rng = np.random.RandomState(5)
    graph = cfnb.Graph()
    with graph.as_default():
        x = cfnb.placeholder(cfnb.float32, [steps, 8, 16], name="x")
        w_x = cfnb.constant(rng.randn(16, 16).astype(np.float32) * 0.3)
        w_h = cfnb.constant(rng.randn(16, 16).astype(np.float32) * 0.3)
        step = lambda t, h: cfnb.tanh(cfnb.matmul(cfnb.gather(x, t), w_x) + cfnb.matmul(h, w_h))
        _, h = cfnb.while_loop(lambda t, h: t < steps, lambda t, h: (t + 1, step(t, h)), [0, cfnb.zeros([8, 16])])
        fetches = [h] + cfnb.gradients(cfnb.reduce_sum(h), [w_x, w_h])
    return graph, fetches, {x: rng.randn(steps, 8, 16).astype(np.float32)}


def _gpu_peak(graph, fetches, feeds, rewrite, limit_mb=None):
    """(values, the GPU's peak bytes) of one run on a simulated GPU, with a memory limit or without."""
    vd = cfnb.GPUOptions.Experimental.VirtualDevices
    gpu = {"device_count": {"GPU": 1}} if limit_mb is None else {"gpu_options": cfnb.GPUOptions(
        experimental=cfnb.GPUOptions.Experimental(virtual_devices=[vd(memory_limit_mb=[limit_mb])]))}
    with pytest.warns(UserWarning, match="simulated"), cfnb.Session(graph=graph, config=config(rewrite, **gpu)) as sess:
        meta = cfnb.RunMetadata()
        values = sess.run(fetches, feeds, run_metadata=meta)
    return values, meta.memory_timeline["GPU:0"].peak_bytes


def test_fission_and_batching_decline_on_a_device_with_a_memory_limit(mode):
    graph, fetches, feeds = _gpu_rnn()
    cuDNN = {"loop_fission", "accumulation_batching"}
    assert cuDNN <= set(rewrites(graph, fetches, feeds))
    assert not cuDNN & set(rewrites(graph, fetches, feeds, memory_limit=1 << 20))
    as_built, peak_as_built = _gpu_peak(graph, fetches, feeds, OFF, limit_mb=1)
    on_limited, peak_limited = _gpu_peak(graph, fetches, feeds, RC(), limit_mb=1)
    on_unlimited, peak_unlimited = _gpu_peak(graph, fetches, feeds, RC())
    assert peak_limited <= peak_as_built < peak_unlimited  # unlimited, the passes fire and the peak grows
    for got in (on_limited, on_unlimited):
        for a, b in zip(got, as_built):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_a_rewrite_reuses_its_frame_view_until_the_graph_or_the_outputs_change():
    """The passes ask for a FrameView before each frame; one made for the same graph version and outputs is reused,
    and every kind of edit a pass makes (a new op, a rerouted input, control inputs removed) makes a new one."""
    g = cfnb.Graph()
    with g.as_default():
        i, s = cfnb.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2.0), [0, 1.0])
    rewrite = Rewrite(g, [i, s], [], [])
    first = rewrite.view()
    assert rewrite.view() is first and len(first.loops) == 1
    with g.as_default():
        extra = cfnb.identity(s)
    assert rewrite.view() is not first
    second = rewrite.view()
    rewrite.outputs[1] = extra
    assert rewrite.view() is not second and extra.op in rewrite.view().ops
    third = rewrite.view()
    merge = next(op for op in g.get_operations() if op.type == "Merge")
    merge._remove_all_control_inputs()
    assert rewrite.view() is not third
