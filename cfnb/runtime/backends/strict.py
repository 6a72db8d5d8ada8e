"""A strict array backend for tests: numpy arrays tagged with their device that refuse implicit mixing.

cupy refuses to combine a GPU array with a host numpy array; a numpy-only machine would never notice a
kernel that quietly computes on the host (`np.zeros(shape)` where `np.zeros_like(x)` was meant,
`np.asarray(x)` that drops the device). `DeviceArray` makes that visible without a GPU: it is a numpy
array that carries `device`; a ufunc or numpy function given a DeviceArray and a host array of rank >= 1,
or arrays of two devices, raises `DeviceMixingError`; results are tagged with the device. The runtime
(device_memory.py) then checks that every kernel on a simulated GPU returns arrays of its own device.
Rank-0 host arrays and numpy scalars pass as scalars do on cupy (they become kernel arguments), and so do
int32 arrays: TensorFlow keeps int32 tensors of GPU kernels in host memory (their kernels are registered
with `HostMemory` for int32: shapes, sizes, indices, loop counters).
"""
import numpy as np


class DeviceMixingError(TypeError):
    """A kernel mixed arrays of different devices, or returned a host array from a device kernel."""


def _arrays(obj, out):
    if isinstance(obj, np.ndarray):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _arrays(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _arrays(o, out)
    return out


def _unwrap(obj):
    if isinstance(obj, DeviceArray):
        return obj.view(np.ndarray)
    if isinstance(obj, list):
        return [_unwrap(o) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_unwrap(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _unwrap(v) for k, v in obj.items()}
    return obj


def _tag(obj, device):
    if isinstance(obj, np.ndarray):
        return on_device(obj, device)
    if isinstance(obj, tuple):
        return type(obj)(*(_tag(o, device) for o in obj)) if hasattr(obj, "_fields") else \
            tuple(_tag(o, device) for o in obj)
    if isinstance(obj, list):
        return [_tag(o, device) for o in obj]
    return obj


def common_device(values, what):
    """The one device all arrays in `values` are on, or None for host arrays only; arrays from two devices, or a device
    array with a host array, raise DeviceMixingError naming `what`: cupy would copy silently or fail."""
    device = None
    for a in _arrays(values, []):
        if isinstance(a, DeviceArray):
            if device is not None and a.device != device:
                raise DeviceMixingError(f"{what}: arrays on {device} and {a.device} mixed without a copy")
            device = a.device
    for a in _arrays(values, []):
        if not isinstance(a, DeviceArray) and not is_host_memory(a):
            raise DeviceMixingError(f"{what}: a host numpy array of shape {a.shape} mixed with an array on "
                                    f"{device}: copy it explicitly (Send/Recv) or build it with the device's module")
    return device


def is_host_memory(array):
    """Arrays a device kernel may take or give in host memory: rank 0, int32 (TensorFlow's HostMemory), objects."""
    return array.ndim == 0 or array.dtype == np.int32 or array.dtype == object


class _Module:
    """numpy for one device: what `xp.zeros(...)` and friends build is tagged with the device."""

    def __init__(self, device):
        self.device = device

    def __getattr__(self, name):
        f = getattr(np, name)
        if not callable(f) or isinstance(f, type):
            return f
        device = self.device

        def call(*args, **kwargs):
            common_device([args, kwargs], f"numpy.{name}")
            return _tag(f(*_unwrap(args), **_unwrap(kwargs)), device)
        return call


def module(device):
    """The array module of the simulated `device`: numpy's functions, refusing to mix devices, their results on `device`
    (what cupy is to a real GPU)."""
    return _Module(device)


class DeviceArray(np.ndarray):
    def __array_finalize__(self, obj):
        self._device = getattr(obj, "_device", None)

    @property
    def device(self):  # numpy 2's ndarray.device says "cpu"; this one names the cfnb device
        """The cfnb device the array is on (numpy 2's `ndarray.device` says "cpu")."""
        return self._device

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        device = common_device([inputs, kwargs.get("out", ())], f"numpy.{ufunc.__name__}")
        result = getattr(ufunc, method)(*_unwrap(inputs), **_unwrap(kwargs))
        return _tag(result, device)

    def __array_function__(self, func, types, args, kwargs):
        device = common_device([args, kwargs], f"numpy.{func.__name__}")
        return _tag(func(*_unwrap(args), **_unwrap(kwargs)), device)

    def __cfnb_array_module__(self):
        return module(self._device)

    def __reduce__(self):  # a copy to the host drops the tag (pickling, deepcopy)
        return np.ndarray.__reduce__(self.view(np.ndarray))


def on_device(array, device):
    """`array` as a DeviceArray on `device`, without a copy: the simulated host-to-device transfer."""
    out = np.asarray(array).view(DeviceArray)
    out._device = device
    return out
