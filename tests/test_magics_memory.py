"""`%%whileloop --swap-memory`: the cell's history stacks go to host memory on a (simulated) GPU, and the
result object draws device and host memory (cfnb.viz.plot_memory)."""
import numpy as np
import pytest

CELL = "h = h0\nfor k in range(12):\n    h = np.tanh(h * 0.9 + 0.1)\nloss = np.sum(h)"


@pytest.mark.parametrize("form", ["lowered", "functional"])
def test_swap_memory_cell_has_a_memory_plot(ip, form):
    ip.user_ns["np"] = np
    ip.user_ns["h0"] = np.linspace(-1.0, 1.0, 4096)
    ip.run_cell_magic("whileloop", f"--no-display --as loop_mem --form {form} --swap-memory --grad loss:h0", CELL)
    result = ip.user_ns["loop_mem"]
    gpu = result.memory_timeline["GPU:0"]
    assert gpu.count("swap_out") >= 12 and gpu.count("pop") == gpu.count("push")
    assert gpu.swapped_out_bytes >= 12 * 4096 * 8
    svg = result.memory_plot().svg
    assert svg.startswith("<svg") and "backprop" in svg and "swapped" in svg
    # the gradient is the plain one: d/dh0 of sum(h) through 12 tanh steps
    h, d = ip.user_ns["h0"], np.ones(4096)
    hs = []
    for _ in range(12):
        hs.append(h)
        h = np.tanh(h * 0.9 + 0.1)
    for x in reversed(hs):
        d = d * (1 - np.tanh(x * 0.9 + 0.1) ** 2) * 0.9
    np.testing.assert_allclose(result.grads["dloss/dh0"], d, rtol=1e-12)


def test_memory_timeline_needs_swap_memory(ip):
    ip.user_ns["h0"] = np.ones(3)
    ip.run_cell_magic("whileloop", "--no-display --as loop_plain", "h = h0\nfor k in range(2):\n    h = h * 2.0")
    with pytest.raises(AttributeError, match="--swap-memory"):
        _ = ip.user_ns["loop_plain"].memory_timeline
