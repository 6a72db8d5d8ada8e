"""The conformance programs on a simulated GPU whose arrays refuse implicit mixing with host numpy
(cfnb.runtime.backends.strict): every kernel on the GPU must compute with its device's array module, or
the run fails naming the kernel. The values must still be TensorFlow's (tests/conformance/expected_tf.json).
This is how a numpy-only machine proves the cupy path has no silent host fallback."""
import importlib.util
import json
import pathlib
import warnings

import numpy as np
import pytest
from sampling import halves

import cfnb
from cfnb.framework.registry import register_op
from cfnb.runtime import backends
from cfnb.runtime.backends.strict import DeviceArray, DeviceMixingError, on_device
from cfnb.runtime.device_memory import SimulatedDeviceWarning

HERE = pathlib.Path(__file__).parent / "conformance"
_spec = importlib.util.spec_from_file_location("cfnb_conformance_programs_strict", HERE / "programs.py")
programs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(programs)
EXPECTED = json.loads((HERE / "expected_tf.json").read_text())
GPU = "/job:localhost/replica:0/task:0/device:GPU:0"


@pytest.fixture(params=["strict", "cupy"])
def gpu_backend(request):
    """A GPU Session config under the strict simulated backend (always) or on a real GPU with cupy."""
    if request.param == "cupy":
        if not backends.has_gpu():
            pytest.skip("needs cupy and a GPU (pip install -e .[gpu]); the strict backend covers this machine")
        yield cfnb.ConfigProto(device_count={"GPU": 1})
        return
    with warnings.catch_warnings(), backends.strict_simulation():
        warnings.simplefilter("ignore", SimulatedDeviceWarning)
        yield cfnb.ConfigProto(device_count={"GPU": 1})


@pytest.fixture
def strict_gpu():
    with warnings.catch_warnings(), backends.strict_simulation():
        warnings.simplefilter("ignore", SimulatedDeviceWarning)
        yield cfnb.ConfigProto(device_count={"GPU": 1})


# `make test` runs the even-numbered programs in v1 and the odd-numbered ones in v2 (tests/sampling.py says why);
# `make test-all` runs every program in both.
@pytest.mark.parametrize(("mode", "half"), halves())
def test_conformance_on_gpu(mode, half, gpu_backend):
    was_v2 = cfnb.control_flow_v2_enabled()
    (cfnb.enable_control_flow_v2 if mode == "v2" else cfnb.disable_control_flow_v2)()
    problems, ran = [], 0
    try:
        for name, build in list(programs.PROGRAMS.items())[half::2]:
            want = EXPECTED[mode].get(name)
            if want is None or "error" in want:
                continue
            ran += 1
            try:
                got = programs.run_program(cfnb, build, gpu_backend)
            except Exception as e:  # noqa: BLE001 - every failing program is listed
                problems.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
                continue
            for key, value in got.items():
                expected = np.asarray(want[key], dtype=EXPECTED["dtypes"][mode][name][key])
                expected = expected.reshape(EXPECTED["shapes"][mode][name][key])
                if value.shape != expected.shape or not np.allclose(value, expected, rtol=2e-4, atol=2e-5):
                    problems.append(f"{name}/{key}: {value.tolist()} != TensorFlow's {expected.tolist()}")
    finally:
        (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()
    assert ran > 60
    assert not problems, "\n".join(problems)


def test_device_arrays_refuse_host_arrays_and_other_devices():
    a = on_device(np.ones(3, np.float32), GPU)
    assert isinstance(a + 1, DeviceArray) and (a + 1).device == GPU
    assert np.tanh(a).device == GPU and np.stack([a, a]).device == GPU
    with pytest.raises(DeviceMixingError, match="host numpy array"):
        _ = a + np.ones(3, np.float32)
    with pytest.raises(DeviceMixingError, match="mixed without a copy"):
        _ = a + on_device(np.ones(3, np.float32), GPU.replace("GPU:0", "GPU:1"))
    # int32 (TensorFlow's HostMemory) and rank-0 host values may be kernel arguments
    assert np.reshape(a, np.array([3, 1], np.int32)).shape == (3, 1)
    assert backends.to_host(a).__class__ is np.ndarray


register_op("CfnbTestHostFallback", lambda op: [(op._inputs[0].dtype, op._inputs[0].shape)],
            lambda op: lambda x: np.zeros(np.shape(x), np.float32))  # builds on the host: the bug to catch


def test_a_kernel_that_falls_back_to_host_numpy_fails(strict_gpu):
    g = cfnb.Graph()
    with g.as_default():
        x = cfnb.placeholder(cfnb.float32, [2])
        y = g.create_op("CfnbTestHostFallback", [x], {}, name="fallback").outputs[0]
        z = y + 1.0
    with cfnb.Session(graph=g, config=strict_gpu) as sess:
        with pytest.raises(cfnb.errors.InvalidArgumentError, match="fallback.*host numpy"):
            sess.run(z, {x: np.ones(2, np.float32)})
    # the same kernel is fine on a CPU, where host numpy is the device's module
    with cfnb.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(z, {x: np.ones(2, np.float32)}), [1.0, 1.0])


_reliab_spec = importlib.util.spec_from_file_location("cfnb_reliab_for_strict",
                                                      pathlib.Path(__file__).parent / "regressions" / "test_reliab.py")
reliab = importlib.util.module_from_spec(_reliab_spec)
_reliab_spec.loader.exec_module(reliab)


def test_regression_programs_on_strict_gpu(strict_gpu):
    """Issue 9's programs too (tests/regressions/reliab_programs.py): same values, or the same error type."""
    problems, ran = [], 0
    was_v2 = cfnb.control_flow_v2_enabled()
    try:
        for name, build in reliab.programs.PROGRAMS.items():
            for mode in reliab.programs.MODES[name]:
                if mode in reliab.programs.PENDING[name]:
                    continue
                want = reliab.EXPECTED[mode][name]
                (cfnb.enable_control_flow_v2 if mode == "v2" else cfnb.disable_control_flow_v2)()
                _, values, error = reliab.run(build, {"strict-gpu": strict_gpu})["strict-gpu"]
                ran += 1
                if "error" in want:
                    if error is None or type(error[1]).__name__ != want["error"]["type"]:
                        problems.append(f"{name} ({mode}): {error and error[1]!r} instead of {want['error']['type']}")
                    continue
                if error is not None:
                    problems.append(f"{name} ({mode}): {error[1]!r}"[:400])
                    continue
                for key, value in values.items():
                    expected = np.asarray(want["values"][key], dtype=want["dtypes"][key]).reshape(want["shapes"][key])
                    if value.shape != expected.shape or not np.allclose(value, expected, rtol=2e-4, atol=2e-5):
                        problems.append(f"{name} ({mode}) {key}: {value.tolist()} != {expected.tolist()}")
    finally:
        (cfnb.enable_control_flow_v2 if was_v2 else cfnb.disable_control_flow_v2)()
    assert ran > 100
    assert not problems, "\n".join(problems)
