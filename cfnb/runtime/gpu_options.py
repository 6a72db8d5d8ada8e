"""`tf.compat.v1.GPUOptions`: how many GPU devices a Session has and how much memory each may use.

TensorFlow reads `GPUOptions.experimental.virtual_devices` in `BaseGPUDeviceFactory::CreateDevices`: one
`VirtualDevices` entry per physical GPU, whose `memory_limit_mb` list splits that GPU into as many virtual
GPUs, each with its own allocator limited to that many MiB. cfnb reads the same fields: GPU `k` (counted
over all entries, in order) gets the `k`-th limit. Without a limit a device is unlimited.
"""


class GPUOptions:
    class Experimental:
        class VirtualDevices:
            def __init__(self, memory_limit_mb=None, priority=None, device_ordinal=None):
                self.memory_limit_mb = list(memory_limit_mb or [])
                self.priority = list(priority or [])
                self.device_ordinal = list(device_ordinal or [])

            def __repr__(self):
                return f"VirtualDevices(memory_limit_mb={self.memory_limit_mb})"

        def __init__(self, virtual_devices=None, use_unified_memory=False, **unused):
            self.virtual_devices = list(virtual_devices or [])
            self.use_unified_memory = use_unified_memory
            for key, value in unused.items():
                setattr(self, key, value)

    def __init__(self, per_process_gpu_memory_fraction=0.0, allow_growth=False, allocator_type="",
                 visible_device_list="", experimental=None, **unused):
        self.per_process_gpu_memory_fraction = per_process_gpu_memory_fraction
        self.allow_growth = allow_growth
        self.allocator_type = allocator_type
        self.visible_device_list = visible_device_list
        self.experimental = experimental if experimental is not None else GPUOptions.Experimental()
        for key, value in unused.items():
            setattr(self, key, value)

    def __repr__(self):
        return f"GPUOptions(experimental.virtual_devices={self.experimental.virtual_devices})"


MIB = 1 << 20


def gpu_memory_limits(gpu_options):
    """[limit in bytes per virtual GPU, in device order] from `virtual_devices` ([] when none are declared)."""
    if gpu_options is None:
        return []
    limits = []
    for entry in gpu_options.experimental.virtual_devices:
        limits.extend(int(mb * MIB) for mb in entry.memory_limit_mb)
    return limits


def device_count_with_gpus(device_count, gpu_options):
    """The Session's device counts: virtual devices declare as many GPUs as they have limits, unless
    `device_count` says how many GPUs there are."""
    counts = {k.upper(): int(v) for k, v in (device_count or {}).items()}
    limits = gpu_memory_limits(gpu_options)
    if limits and "GPU" not in counts:
        counts["GPU"] = len(limits)
    return counts
