"""`RewriterConfig`: which graph optimizations a Session runs (TensorFlow's `rewriter_config.proto`).

TensorFlow switches each Grappler optimizer with a `Toggle` (DEFAULT, ON, OFF, AGGRESSIVE) and all of them with
`disable_meta_optimizer`, inside `ConfigProto(graph_options=GraphOptions(rewrite_options=RewriterConfig(...)))`.
cfnb reads the same fields: `loop_optimization` is Grappler's loop optimizer (loop-invariant node motion and
stack push removal), `disable_meta_optimizer=True` turns every pass off. The passes TensorFlow leaves to cuDNN
have toggles of their own, cfnb's: `loop_fission` (per-iteration work that depends only on the loop counter,
done once before the loop), `accumulation_batching` (a gradient accumulated as a sum of per-iteration products,
done as one product after the loop), and one per loop-optimizer pass, `loop_invariant_node_motion` and
`stack_push_removal`. Every other field of TensorFlow's message is accepted and kept, with no effect.

DEFAULT means: on for the runs that are not traced. A traced run (`RunOptions(trace_level=FULL_TRACE)`, the
explorer's) runs the graph as it was built, so that every node of the drawing fires in the trace; ON optimizes
traced runs too, so that the trace shows the optimized graph (chapter 11 does this).
"""

PASSES = ("loop_invariant_node_motion", "stack_push_removal", "loop_fission", "accumulation_batching")
_LOOP_OPTIMIZER = ("loop_invariant_node_motion", "stack_push_removal")


class RewriterConfig:
    # Toggle, with TensorFlow's numbers.
    DEFAULT, ON, OFF, AGGRESSIVE = 0, 1, 2, 3

    def __init__(self, loop_optimization=0, disable_meta_optimizer=False, loop_invariant_node_motion=0,
                 stack_push_removal=0, loop_fission=0, accumulation_batching=0, **tensorflow_fields):
        self.loop_optimization = loop_optimization
        self.disable_meta_optimizer = disable_meta_optimizer
        self.loop_invariant_node_motion = loop_invariant_node_motion
        self.stack_push_removal = stack_push_removal
        self.loop_fission = loop_fission
        self.accumulation_batching = accumulation_batching
        for key, value in tensorflow_fields.items():  # constant_folding, arithmetic_optimization, ...: kept
            setattr(self, key, value)

    def toggle(self, name):
        """The Toggle that decides pass `name`: OFF when the meta optimizer or (for its passes) the loop optimizer
        is off, else the pass's own (or, when that is DEFAULT, the loop optimizer's)."""
        if self.disable_meta_optimizer:
            return self.OFF
        own = getattr(self, name)
        if name in _LOOP_OPTIMIZER:
            if self.loop_optimization == self.OFF:
                return self.OFF
            return own if own != self.DEFAULT else self.loop_optimization
        return own

    def enabled(self, name, traced=False):
        """Does pass `name` run, for a traced run or an untraced one?"""
        toggle = self.toggle(name)
        return toggle in (self.ON, self.AGGRESSIVE) or (toggle == self.DEFAULT and not traced)

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)}" for k in ("loop_optimization", *PASSES) if getattr(self, k))
        off = "disable_meta_optimizer=True" if self.disable_meta_optimizer else ""
        return f"RewriterConfig({', '.join(x for x in (fields, off) if x)})"
