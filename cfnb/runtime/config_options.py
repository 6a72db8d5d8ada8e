"""`tf.compat.v1.GraphOptions` and `OptimizerOptions`: accepted, kept, and readable back.

Of these settings only `GraphOptions.rewrite_options` changes what a Session does: it is a `RewriterConfig`
(passes/rewriter_config.py) switching cfnb's graph optimizations, as it switches Grappler's in TensorFlow.
The rest (OptimizerOptions' function-library optimizations, ...) change nothing here; programs and TensorFlow's
own tests build them, pass them in `ConfigProto(graph_options=...)` and read them back, so they exist with
TensorFlow's field names and enum values.
"""
from ..passes.rewriter_config import RewriterConfig


class OptimizerOptions:
    # OptimizerOptions.Level and GlobalJitLevel, with TensorFlow's numbers.
    L1, L0 = 0, -1
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2

    def __init__(self, do_common_subexpression_elimination=False, do_constant_folding=False,
                 max_folded_constant_in_bytes=0, do_function_inlining=False, opt_level=0, global_jit_level=0,
                 cpu_global_jit=False):
        self.do_common_subexpression_elimination = do_common_subexpression_elimination
        self.do_constant_folding = do_constant_folding
        self.max_folded_constant_in_bytes = max_folded_constant_in_bytes
        self.do_function_inlining = do_function_inlining
        self.opt_level = opt_level
        self.global_jit_level = global_jit_level
        self.cpu_global_jit = cpu_global_jit

    def __repr__(self):
        return f"OptimizerOptions(opt_level={self.opt_level}, do_function_inlining={self.do_function_inlining})"


class GraphOptions:
    def __init__(self, optimizer_options=None, enable_recv_scheduling=False, build_cost_model=0,
                 infer_shapes=False, place_pruned_graph=False, enable_bfloat16_sendrecv=False, timeline_step=0,
                 rewrite_options=None):
        self.optimizer_options = optimizer_options if optimizer_options is not None else OptimizerOptions()
        self.enable_recv_scheduling = enable_recv_scheduling
        self.build_cost_model = build_cost_model
        self.infer_shapes = infer_shapes
        self.place_pruned_graph = place_pruned_graph
        self.enable_bfloat16_sendrecv = enable_bfloat16_sendrecv
        self.timeline_step = timeline_step
        # A RewriterConfig, set by default, so `config.graph_options.rewrite_options.disable_meta_optimizer = True`
        # works as in TensorFlow.
        self.rewrite_options = rewrite_options if rewrite_options is not None else RewriterConfig()

    def __repr__(self):
        return f"GraphOptions(optimizer_options={self.optimizer_options!r})"
