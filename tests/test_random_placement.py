"""Property: placing a program's ops on random CPU devices changes neither its values nor its gradients.

Every program of the conformance set (tests/conformance/programs.py) is built, each of its ops (and each op of
its functions, for control flow v2) is given one of two or three CPU devices at random, and the Session, made
with `device_count={"CPU": 3}` and `allow_soft_placement=True` (ops TensorFlow must colocate, such as a stack
and its pushes, keep one device), must fetch what TensorFlow fetched on one device (expected_tf.json). The run
goes through placement, partitioning with control loops, one executor thread per device and the rendezvous.
"v2 strict" runs the functional graphs without lowering them: each If/While is one call on its own device (its
functions' device requests are set aside, with a warning), and the graph around it is partitioned.
The "pooled" modes send every stateless kernel to its device's inter-op worker pool (runtime/inter_op.py), not only
the expensive ones, so that results coming back from workers in any order meet every control-flow construct.
Seeds are fixed, so a failure reproduces. `make test` runs each program in one of the five modes, `make test-all`
in all of them (tests/sampling.py)."""
import pathlib
import random
import sys
import warnings

import numpy as np
import pytest

import cfnb
from cfnb.runtime import inter_op

# test_conformance as pytest imports it (as test_graph_def does): loading it again by path under another name built
# every conformance program a second time at collection (its finite-difference list), in every worker.
sys.path.insert(0, str(pathlib.Path(__file__).parent))
from sampling import rotated  # noqa: E402
from test_conformance import EXPECTED, mismatches, programs  # noqa: E402

DEVICES = ["/cpu:0", "/device:CPU:1", "/job:localhost/replica:0/task:0/device:CPU:2"]


def place_randomly(graph, rng, n_devices):
    """Give every op of `graph` and of its function library a device drawn from the first n_devices."""
    graphs = [graph, *graph._functions.values()]
    for g in graphs:
        for op in g.get_operations():
            op._device = rng.choice(DEVICES[:n_devices])


def run_placed(build, mode, seed):
    graph, fetches, feeds, init, _ = programs.build_program(cfnb, build)
    rng = random.Random(f"{build.__name__}/{mode}/{seed}")
    n_devices = 2 + seed % 2
    place_randomly(graph, rng, n_devices)
    config = cfnb.ConfigProto(device_count={"CPU": 3}, allow_soft_placement=True,
                              lower_functional_ops=not mode.endswith("strict"))
    with graph.as_default(), cfnb.Session(graph=graph, config=config) as sess, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # strict calls say their functions' devices are set aside
        if init is not None:
            sess.run(init)
        values = sess.run(fetches, feed_dict=feeds)
    return {key: np.asarray(v) for key, v in values.items()}


MODES = ["v1", "v2", "v2 strict", "v1 pooled", "v2 pooled"]
# Pooled, the 10,000-iteration counter sends every kernel of every iteration through a worker pool (25 s on two
# cores): only `make test-all` runs it so (the `long` mark). `make test` runs each program in one mode, a different
# one per program (tests/sampling.py); `make test-all` in all five.
LONG = {(("v1 pooled",), "t13_long_counter"), (("v2 pooled",), "t13_long_counter")}
CASES = rotated(list(programs.PROGRAMS), [(mode,) for mode in MODES], salt=2, long=LONG)


@pytest.mark.parametrize(("mode", "name"), CASES)
def test_random_placement_keeps_values(name, mode, control_flow_mode, monkeypatch):
    form = mode.split()[0]
    want = EXPECTED[form][name]
    if "error" in want:
        pytest.skip("TensorFlow itself raises for this program")
    submitted = []
    if mode.endswith("pooled"):
        monkeypatch.setattr(inter_op, "POOL_EVERY_KERNEL", True)
        submit = inter_op.Pool.submit
        monkeypatch.setattr(inter_op.Pool, "submit", lambda pool, token, args: (submitted.append(token[0].name),
                                                                                 submit(pool, token, args)))
    got = run_placed(programs.PROGRAMS[name], mode, seed=len(name))
    if mode.endswith("pooled") and got:
        assert submitted, "no kernel went to an inter-op pool"
    problems = mismatches(got, want, EXPECTED["dtypes"][form][name], EXPECTED["shapes"][form][name])
    assert not problems, "\n".join(problems)


@pytest.fixture
def control_flow_mode(mode):
    was_v2 = cfnb.control_flow_v2_enabled()
    (cfnb.enable_control_flow_v2 if mode.startswith("v2") else cfnb.disable_control_flow_v2)()
    yield
    (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()
