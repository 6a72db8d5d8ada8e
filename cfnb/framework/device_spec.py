"""Device strings as TensorFlow's `DeviceSpec` reads and writes them (`framework/device_spec.py`).

`/job:w/task:1/cpu:0`, `cpu:0`, `/CPU:0` and `/device:CPU:0` name the same kind of device; a
`tf.device` scope merges its fields into the enclosing one's, and the canonical form,
`/job:w/replica:0/task:1/device:CPU:0`, is what `op.device` shows.
"""


def parse_device(spec):
    """A device string as fields: `/job:w/task:1/cpu:0` -> {job: w, task: 1, device_type: CPU,
    device_index: 0}; an index of `*` is left out, so it does not override an enclosing one."""
    fields = {}
    for part in spec.split("/"):
        y = part.split(":")
        if y[0] in ("job", "replica", "task") and len(y) == 2:
            fields[y[0]] = y[1]
        elif y[0].upper() in ("CPU", "GPU", "TPU") and len(y) <= 2:
            fields["device_type"] = y[0].upper()
            fields["device_index"] = y[1] if len(y) == 2 else "*"
        elif y[0] == "device" and len(y) == 3:
            fields["device_type"] = y[1].upper() if y[1].upper() in ("CPU", "GPU", "TPU") else y[1]
            fields["device_index"] = y[2]
        elif part:
            raise ValueError(f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: '{spec}'.")
    if fields.get("device_index") == "*":
        del fields["device_index"]
    return fields


def device_string(fields):
    """TensorFlow's canonical form: `/job:w/replica:0/task:1/device:CPU:0`."""
    out = "".join(f"/{k}:{fields[k]}" for k in ("job", "replica", "task") if k in fields)
    if "device_type" in fields:
        out += f"/device:{fields['device_type']}:{fields.get('device_index', '*')}"
    return out
