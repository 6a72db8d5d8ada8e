"""Evidence, by finite differences in float64, for each mismatch tests/fuzz2/KNOWN.md explains as TensorFlow's fault.

    /tmp/tfvenv/bin/python tests/fuzz2/explain2.py          # writes tests/fuzz2/explained2.json
    /tmp/tfvenv/bin/python tests/fuzz2/explain2.py SEED     # prints one gen2 program's evidence

The explained programs are the corpus entries with an "explained" field (explain_segment.py) and the long-run seeds
in LONG_RUN_SEEDS. For each, TensorFlow 2.21 runs the program in float64 (float64.Float64Program: float32 read as
float64): the forward values at the program's feeds (control flow v1, whose forward TensorFlow runs; only its
gradient is refused), the central differences of the harness's loss along each element of `x` and `w` (step 1e-6,
and 1e-4 to show the loss is smooth there), and, in control flow v2, the central differences of TensorFlow's own
first-order gradient (sum(grad_x * harness2.WEIGHTS), step 1e-5): the second-order `grad2_x`. The record holds
TensorFlow's float32 answers too. tests/test_fuzz2_explained.py checks the claim with them and cfnb's float64
forward values and gradients against them, without TensorFlow.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from explain_segment import CORPUS, WHY  # noqa: E402
from float64 import Float64Program, central_differences  # noqa: E402
from gen2 import Program, generate  # noqa: E402
from record2 import config, record  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "explained2.json")
# long run (fuzz2.py --seeds 500:688): TensorFlow's v1 refuses with explain_segment.REFUSAL, its v2 answers
LONG_RUN_SEEDS = (509, 596, 681)
STEP, COARSE_STEP, STEP2 = 1e-6, 1e-4, 1e-5


class FrozenStopGradient:
    """`stop_gradient` for finite differences. The gradient of f(x, stop_gradient(t(x))) holds t at its value at the
    program's feeds, so a finite difference must too: each stop_gradient becomes a numpy_function that records its
    input's values, in call order, in a run at the feeds (`record`) and hands the same values back, in the same order,
    in a run at a perturbed point (`replay`). Loops run one iteration at a time (parallel_iterations=1), so each
    op's calls come in iteration order; a replay must use every recorded value. TensorFlow does not differentiate a
    numpy_function (PyFunc), so its own gradients of this graph treat it as stop_gradient does."""

    def __init__(self, tf1):
        self.tf1, self.recorded, self.position, self.replaying = tf1, [], [], False

    def replacements(self):
        def one_at_a_time(function):
            return lambda *args, **kwargs: function(*args, **{**kwargs, "parallel_iterations": 1})
        loops = {name: one_at_a_time(getattr(self.tf1, name))
                 for name in ("while_loop", "map_fn", "scan", "foldl", "foldr")}
        return {"stop_gradient": self.stop_gradient, **loops}

    def stop_gradient(self, t, name=None):
        key = len(self.recorded)
        self.recorded.append([])
        self.position.append(0)

        def frozen(value):
            if not self.replaying:
                self.recorded[key].append(value.copy())
                return value
            self.position[key] += 1
            return self.recorded[key][self.position[key] - 1]
        t = self.tf1.convert_to_tensor(t)
        out = self.tf1.numpy_function(frozen, [t], t.dtype, stateful=True)
        out.set_shape(t.shape)
        return out

    def record(self, run):
        self.replaying, self.recorded[:] = False, [[] for _ in self.recorded]
        return run()

    def replay(self, run):
        self.replaying, self.position[:] = True, [0 for _ in self.position]
        value = run()
        assert self.position == [len(r) for r in self.recorded], "a replay used other stop_gradient calls"
        return value


def evidence(tf1, program):
    """The float64 forward values at the feeds (v1), the central differences of the loss along x and w (v1) and of
    the weighted first-order gradient along x (v2), stop_gradient values held at the feeds throughout."""
    tf1.disable_control_flow_v2()
    frozen = FrozenStopGradient(tf1)
    built = Float64Program(tf1, program, first_order=False, replace=frozen.replacements())
    with tf1.Session(graph=built.graph, config=config(tf1)) as sess:
        x, w = built.inputs()
        forward = frozen.record(lambda: built.forward(sess, x, w))

        def loss(xp, wp):
            return frozen.replay(lambda: built.loss(sess, xp, wp))
        fine, coarse = ({"grad_x": central_differences(lambda p: loss(p, w), x, step),
                         "grad_w": central_differences(lambda p: loss(x, p), w, step)} for step in (STEP, COARSE_STEP))
    tf1.enable_control_flow_v2()
    frozen = FrozenStopGradient(tf1)
    built = Float64Program(tf1, program, first_order=False, weighted=True, replace=frozen.replacements())
    with tf1.Session(graph=built.graph, config=config(tf1)) as sess:
        frozen.record(lambda: sess.run(built.weighted, built._feed(x, w)))
        grad2 = central_differences(lambda p: frozen.replay(lambda: sess.run(built.weighted, built._feed(p, w))),
                                    x, STEP2)
    tf1.disable_control_flow_v2()
    return {"forward_float64": {k: v.tolist() for k, v in sorted(forward.items())},
            "finite_differences_float64": {"step": STEP, **{k: v.tolist() for k, v in fine.items()},
                                           "grad2_x_step": STEP2, "grad2_x": grad2.tolist()},
            "steps_agree_within": max(float(np.max(np.abs(fine[k] - coarse[k]))) for k in fine)}


def explained_programs(tf1):
    """(where, program, TensorFlow's answers) for every explained mismatch: corpus entries, then long-run seeds."""
    entries = json.loads(CORPUS.read_text())["programs"]
    for index, e in enumerate(entries):
        if "explained" in e:
            yield f"corpus program {index}", Program(e["source"], e["feeds"]), {"v1": e["v1"], "v2": e["v2"]}
    for seed in LONG_RUN_SEEDS:
        program = generate(seed)
        yield f"gen2 seed {seed}", program, record(tf1, program)


def main():
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    if len(sys.argv) > 1:
        print(json.dumps(evidence(tf1, generate(int(sys.argv[1])))))
        return
    records = []
    for where, program, answers in explained_programs(tf1):
        records.append({"where": where, **program.as_json(), "why": WHY, "tensorflow": answers,
                        **evidence(tf1, program)})
        print(where, "steps agree within", records[-1]["steps_agree_within"], file=sys.stderr)
    meta = {"tensorflow": tf.__version__, "written_by": "tests/fuzz2/explain2.py", "grappler": "off"}
    with open(OUT, "w") as f:
        f.write('{"meta":' + json.dumps(meta) + ',"programs":[\n')
        f.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in records) + "\n]}\n")
    print(f"wrote {OUT}: {len(records)} programs", file=sys.stderr)


if __name__ == "__main__":
    main()
