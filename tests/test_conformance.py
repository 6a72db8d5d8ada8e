"""Conformance: every program of tests/conformance/programs.py, run on cfnb, must give what TensorFlow gave
(tests/conformance/expected_tf.json, written by tests/conformance/record.py) in value, shape and dtype; values
and tf.gradients alike (a gradient TensorFlow answers None for is a key both leave out). TensorFlow itself is
never imported here; only its recorded answers are used.

Independently of TensorFlow, test_gradient_matches_finite_differences checks cfnb's gradients w.r.t. fed float
placeholders against central differences of cfnb's own forward values."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest
from sampling import rotated

import cfnb
from cfnb.passes.lowering import has_functional_ops

HERE = pathlib.Path(__file__).parent / "conformance"
# Loaded by path, so the test does not depend on where pytest puts tests/ on sys.path.
_spec = importlib.util.spec_from_file_location("cfnb_conformance_programs", HERE / "programs.py")
programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(programs)

EXPECTED = json.loads((HERE / "expected_tf.json").read_text())

# Control-flow modes checked against TensorFlow. Add "v2" once cfnb has functional If/While.
MODES = ["v1", "v2"]
# cfnb's two ways of running a graph: the precompiled static schedule (the default where it applies)
# and the tagged-token interpreter. Both must agree with TensorFlow.
# static: lowered, then the precompiled schedule; interpreted: lowered, then the tagged-token
# executor; strict: functional If/While run as function calls (same as static for v1 graphs).
EXECUTORS = {"static": {}, "interpreted": {"static_schedule": False}, "strict": {"lower_functional_ops": False}}
RTOL, ATOL = 2e-4, 2e-5


@pytest.fixture
def control_flow(mode):
    """Switch cfnb to `mode` for one test, then restore what was there (the toggle is global)."""
    was_v2 = cfnb.control_flow_v2_enabled()
    (cfnb.enable_control_flow_v2 if mode == "v2" else cfnb.disable_control_flow_v2)()
    yield
    (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()


def test_every_program_is_recorded():
    """A program added without re-running record.py would otherwise go unchecked."""
    for mode in MODES:
        missing = sorted(set(programs.PROGRAMS) - set(EXPECTED[mode]))
        assert not missing, f"run tests/conformance/record.py again; missing in {mode}: {missing}"


def mismatches(got, want, dtypes, shapes):
    """One line per fetched key that differs from TensorFlow; floats within tolerance, others exactly."""
    problems = []
    if sorted(got) != sorted(want):
        return [f"fetched keys {sorted(got)} != recorded {sorted(want)}"]
    for key, value in got.items():
        expected = np.asarray(want[key], dtype=dtypes[key]).reshape(shapes[key])
        if value.dtype != expected.dtype:
            problems.append(f"{key}: dtype {value.dtype} != TensorFlow's {expected.dtype}")
        elif value.shape != expected.shape:
            problems.append(f"{key}: shape {value.shape} != TensorFlow's {expected.shape}")
        elif np.issubdtype(expected.dtype, np.floating):
            if not np.allclose(value, expected, rtol=RTOL, atol=ATOL):
                problems.append(f"{key}: {value.tolist()} != TensorFlow's {expected.tolist()}")
        elif not np.array_equal(value, expected):
            problems.append(f"{key}: {value.tolist()} != TensorFlow's {expected.tolist()}")
    return problems


@pytest.mark.parametrize("name", list(programs.PROGRAMS))
@pytest.mark.parametrize("mode", MODES)
def test_program(mode, name, control_flow):
    """The program on every execution path (EXECUTORS), each in its own Session, on one built graph: a Session
    runs a copy where it lowers or optimizes (Session._runnable, _optimized), so every path runs the graph as
    built; that its version never moves is checked too. (Building it once per path was a third of the cost.)
    A graph without functional ops (every v1 graph) skips the strict path: with nothing to lower, the Session
    runs the static schedule there (Session._runnable), the same run twice."""
    want = EXPECTED[mode].get(name)
    if want is None:
        pytest.fail("not recorded: run /work/tfenv/bin/python tests/conformance/record.py")
    if "error" in want:
        pytest.skip(f"TensorFlow itself fails: {want['error'][:200]}")
    graph, fetches, feeds, init, _ = programs.build_program(cfnb, programs.PROGRAMS[name])
    version, problems = graph.version, []
    for executor, config in EXECUTORS.items():
        if executor == "strict" and not has_functional_ops(graph):
            continue
        try:
            got = programs.run_built(cfnb, graph, fetches, feeds, init, cfnb.ConfigProto(**config))
        except Exception as e:
            e.add_note(f"(on the {executor} path)")
            raise
        assert graph.version == version, f"the {executor} run changed the graph it was given"
        problems += [f"{executor}: {p}" for p in mismatches(got, want, EXPECTED["dtypes"][mode][name],
                                                            EXPECTED["shapes"][mode][name])]
    assert not problems, "\n".join(problems)


def _finite_difference_programs():
    """Programs with at least one gradient that a finite difference can check (built once with cfnb, v1 mode;
    a program cfnb cannot build is left to test_program to report)."""
    names = []
    for name, build in programs.PROGRAMS.items():
        try:
            _, _, feeds, _, calls = programs.build_program(cfnb, build)
        except Exception:  # noqa: BLE001 - test_program reports it
            continue
        if programs.finite_difference_targets(calls, feeds):
            names.append(name)
    return names


# What _finite_difference_programs() finds, written down: building every program to find out cost each xdist worker
# ~1.5 CPU-s at collection. test_finite_difference_list_is_current finds it again, once.
FINITE_DIFFERENCE_PROGRAMS = [
    "maximum_iterations_larger", "newton_sqrt_three_vars", "float_halving_counter", "float64_loop",
    "body_ignores_loop_var", "dynamic_bound_from_shape", "loops_in_series_and_parallel", "zero_iteration_loop",
    "parallel_iterations_1", "parallel_iterations_10", "parallel_iterations_32", "rnn_matmul_tanh",
    "sigmoid_reductions", "reshape_transpose_stack_loop", "nested_inner_uses_outer_var", "nested_matrix_powers",
    "cond_runtime_true", "cond_runtime_false", "while_in_both_branches_true", "while_in_both_branches_false",
    "dict_in_list_loop_vars", "ta_write_stack", "ta_unstack_read", "where_cast_gather", "slicing",
    "control_dependencies_in_loop", "t27_zero_iteration_base_shape", "t39_write_pack_gradients",
    "t39_write_pack_gradients_dynamic", "t08_second_derivative_true", "t08_second_derivative_false",
    "hessians_cond_true", "hessians_cond_false", "grad_nested_two_levels", "grad_nested_three_levels",
    "grad_nested_parallel_iterations", "grad_cond_in_while", "grad_cond_on_counter_in_while",
    "grad_while_in_cond_true", "grad_while_in_cond_false", "grad_while_cond_while", "grad_invariant_many_uses",
    "grad_pass_through_loop_var", "grad_unused_exit", "grad_int_counter_float_acc", "grad_several_xs",
    "grad_ys_weights", "grad_unconnected", "grad_zero_iterations_fed", "grad_maximum_iterations",
    "grad_namedtuple_loop_vars", "grad_dict_loop_vars", "grad_elementwise_ops_in_loop",
    "grad_reductions_where_in_loop", "grad_gather_concat_stack_in_loop", "grad_matmul_loop", "grad_rnn_two_weights",
    "grad_ta_scatter_gather", "grad_ta_gather_subset", "grad_ta_second_gradients_call", "grad_ta_split_read",
    "grad_ta_concat", "grad_int_ys_in_list", "grad_growing_matrix_rows", "grad_ta_read_twice",
    "grad_ta_dynamic_size", "t12_switch_case", "opt_rnn_tensorarray", "opt_rnn_gather_chain", "opt_invariant_chain",
]


@pytest.mark.parametrize(("mode", "name"), rotated(FINITE_DIFFERENCE_PROGRAMS, [(m,) for m in MODES]))
def test_gradient_matches_finite_differences(mode, name, control_flow):
    """d(sum ys * grad_ys)/dx from cfnb's tf.gradients against central differences of cfnb's forward value, in
    float32 with a relative step and tolerance (programs.finite_difference_check). Programs whose calls pass
    fd=False (stop_gradient, back_prop=False, a fed intermediate, a trip count near its boundary) are left out.
    A second oracle beside TensorFlow's answers, which test_program checks in both versions on every path: `make
    test` checks each program in one version, alternating (tests/sampling.py), `make test-all` in both."""
    problems = programs.finite_difference_check(cfnb, programs.PROGRAMS[name])
    assert not problems, "\n".join(f"{what}: {problem}" for what, problem in problems)


def test_finite_difference_check_covers_gradients():
    """The finite-difference check must keep covering a good part of the gradient programs."""
    assert len(FINITE_DIFFERENCE_PROGRAMS) >= 40, FINITE_DIFFERENCE_PROGRAMS


def test_finite_difference_list_is_current():
    """A program added (or changed) is checked by finite differences as soon as it has a gradient to check."""
    found = _finite_difference_programs()
    assert FINITE_DIFFERENCE_PROGRAMS == found, f"set FINITE_DIFFERENCE_PROGRAMS to {found}"


# --- graphs: node for node as TensorFlow builds them ------------------------------------------------
GRAPHS_TF = json.loads((pathlib.Path(__file__).parent / "conformance" / "graphs_tf.json").read_text())
# The programs whose whole graph (forward and gradient ops: names, types, inputs, control edges) is
# identical to TensorFlow 2.21's under control flow v1. The others differ where TensorFlow folds a
# static shape into a Const at graph-build time (Shape, Size, ZerosLike of a known shape) and in the
# helper constants of `t[...]` slicing; values agree everywhere (test_program).
IDENTICAL_GRAPHS = sorted({
    "t13_long_counter",
    "t14_two_vars_sum",
    "maximum_iterations_fed",
    "t15_four_vars",
    "float_halving_counter",
    "loops_in_series_and_parallel",
    "zero_iteration_loop",
    "zero_maximum_iterations",
    "t20_nested_sum",
    "t20_nested_square",
    "nested_inner_uses_outer_var",
    "nested_matrix_powers",
    "t05_cond",
    "cond_int_predicate_both",
    "nested_cond_tt",
    "nested_cond_tf",
    "nested_cond_ft",
    "nested_cond_ff",
    "cond_nested_outputs",
    "t23_cond_in_while",
    "collatz_steps",
    "t22_while_in_cond_true",
    "t22_while_in_cond_false",
    "while_in_both_branches_true",
    "while_in_both_branches_false",
    "while_cond_while",
    "case_dict_order_by_name",
    "case_in_while",
    "t16_shape_invariants_concat",
    "growing_matrix_rows",
    "t19_nested_loop_vars",
    "dict_in_list_loop_vars",
    "return_same_structure",
    "single_var_unpacked",
    "ta_write_stack",
    "ta_dynamic_size",
    "ta_gather",
    "ta_nested_loops",
    "integer_gcd",
    "fibonacci_pair",
    "digit_sum_floordiv_mod",
    "integer_division_semantics",
    "python_constants_dtypes",
    "feed_intermediate_tensor",
    "placeholder_with_default_unfed",
    "nested_maximum_iterations_outer_var",
    "loop_result_drives_cond",
    "nested_mixed_parallel_iterations",
    "t25_mul_invariant_p1",
    "t25_mul_invariant_p10",
    "t26_ys_xs",
    "t29_back_prop_false",
    "t30_serial_two_loops",
    "t30_parallel_two_loops",
    "t31_nested_simple",
    "t31_serial_inner",
    "t31_parallel_inner",
    "t32_pred_in_while_true",
    "t32_pred_in_while_false",
    "t34_maximum_iterations_grad",
    "t36_multiple_loop_vars",
    "t36_capture_external",
    "t37_nested_outer_captured",
    "grad_nested_two_levels",
    "grad_cond_in_while",
    "grad_while_in_cond_true",
    "grad_while_in_cond_false",
    "grad_pass_through_loop_var",
    "grad_int_counter_float_acc",
    "grad_several_xs",
    "grad_stop_gradient_in_body",
    "grad_stop_gradients_argument",
    "grad_back_prop_false_mixed",
    "grad_namedtuple_loop_vars",
    "grad_matmul_loop",
    "grad_ta_second_gradients_call",
    "grad_int_ys_in_list",
})


@pytest.mark.parametrize("name", IDENTICAL_GRAPHS)
def test_graph_is_tensorflows_node_for_node(name):
    cfnb.disable_control_flow_v2()
    graph, *_ = programs.build_program(cfnb, programs.PROGRAMS[name])
    nodes = [[op.name, op.type, [t.name for t in op.inputs], sorted(c.name for c in op.control_inputs)]
             for op in graph.get_operations()]
    assert nodes == GRAPHS_TF[name]
