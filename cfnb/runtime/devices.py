"""The devices a Session has, and TensorFlow's device names.

A Session made with `ConfigProto(device_count={"CPU": 2})` has two CPU devices,
`/job:localhost/replica:0/task:0/device:CPU:0` and `.../device:CPU:1` (TensorFlow's full names, from
`DeviceNameUtils::FullName`). cfnb simulates them in one process: each device is a thread running its
own executor over its own partition of the graph (see multi_device.py), which is how TensorFlow's
`DirectSession` runs a graph placed on several local devices. GPU devices are declared the same way
(`device_count={"GPU": 1}`, or by `GPUOptions` virtual devices); they compute with cupy when a GPU is present
and are simulated on the host otherwise, with their own memory accounting (device_memory.py).

A requested device (`tf.device("/cpu:1")`, `"/device:CPU:1"`, `"/job:localhost/task:0/cpu:1"`, or a partial
`"/device:CPU:*"`) is matched field by field against the Session's devices, as
`DeviceNameUtils::IsCompleteSpecification`/`IsSpecification` do.
"""
from ..framework import errors
from ..framework.device_spec import parse_device

JOB, REPLICA, TASK = "localhost", "0", "0"


def full_name(device_type, index):
    """TensorFlow's full device name: `/job:localhost/replica:0/task:0/device:CPU:0`."""
    return f"/job:{JOB}/replica:{REPLICA}/task:{TASK}/device:{device_type}:{index}"


def parse(spec):
    """A device string as a dict of its fields (job, replica, task, device_type, device_index); `{}` for ''."""
    return parse_device(spec) if spec else {}


class DeviceSet:
    """The devices of one Session, in TensorFlow's order (CPU first, then GPU, each by index).

    `incarnation` numbers each device instance, as TensorFlow gives every device a random 64-bit
    incarnation that Send/Recv carry so a restarted device's stale tensors are refused; cfnb numbers
    them deterministically (1, 2, ...) so partition graphs are reproducible."""

    def __init__(self, device_count=None):
        counts = {"CPU": 1}
        for kind, n in (device_count or {}).items():
            counts[kind.upper()] = int(n)
        if counts["CPU"] < 1:
            counts["CPU"] = 1  # TensorFlow always creates at least one CPU device
        self.names = []
        for kind in ("CPU", "GPU", *sorted(k for k in counts if k not in ("CPU", "GPU"))):
            self.names.extend(full_name(kind, i) for i in range(counts.get(kind, 0)))
        self.default = self.names[0]
        self.incarnation = {name: k + 1 for k, name in enumerate(self.names)}

    def __len__(self):
        return len(self.names)

    def __iter__(self):
        return iter(self.names)

    def matching(self, spec):
        """The Session's devices that a requested device string names (every one for '')."""
        fields = parse(spec)
        out = []
        for name in self.names:
            have = parse(name)
            if all(have.get(k) == v for k, v in fields.items() if v != "*"):
                out.append(name)
        return out

    def resolve(self, op_name, spec, allow_soft_placement):
        """The full device for an op that asked for `spec`: the first matching device; with soft
        placement, the default device when none matches; otherwise TensorFlow's InvalidArgumentError."""
        found = self.matching(spec)
        if found:
            return found[0]
        if allow_soft_placement:
            # TensorFlow keeps the job/task and relaxes the device type; one host here, so the default.
            return self.default
        raise errors.InvalidArgumentError(
            None, None, f"Cannot assign a device for operation {op_name}: {{{{node {op_name}}}}} was explicitly "
                        f"assigned to {canonical(spec)} but available devices are [ {', '.join(self.names)} ]. "
                        f"Make sure the device specification refers to a valid device.")


def canonical(spec):
    """`/cpu:1` -> `/device:CPU:1`, the way TensorFlow prints a requested device."""
    fields = parse(spec)
    out = "".join(f"/{k}:{fields[k]}" for k in ("job", "replica", "task") if k in fields)
    if "device_type" in fields:
        out += f"/device:{fields['device_type']}:{fields.get('device_index', '*')}"
    return out


def short_name(device):
    """`/job:localhost/replica:0/task:0/device:CPU:1` -> `CPU:1`, for drawings and traces."""
    fields = parse(device)
    if "device_type" not in fields:
        return device or "?"
    return f"{fields['device_type']}:{fields.get('device_index', '*')}"
