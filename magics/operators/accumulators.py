"""A Python list grown with `.append` inside a loop: a TensorArray, a Python list again afterwards.

A loop cannot carry a Python list (its length changes every iteration), so, as AutoGraph advises,
the items go into a `TensorArray` (in a functional loop: a TensorList) that the loop carries; the
items the list held before the loop stay a Python prefix. After the cell runs, the name holds
`prefix + [each stacked item]`: a Python list again (values.py gives the items the types plain
Python would have).
"""
import cfnb


class Accumulator:
    """`prefix` (the list before the loop) followed by the items of the TensorArray `ta`."""

    def __init__(self, prefix, ta):
        self.prefix = prefix
        self.ta = ta

    # what while_loop and cond need to carry it (as they carry a TensorArray)
    def _flow_for_control_flow(self):
        return self.ta._flow_for_control_flow()

    def _with_new_flow(self, flow):
        return Accumulator(self.prefix, self.ta._with_new_flow(flow))

    def append(self, item):
        return Accumulator(self.prefix, self.ta.write(self.ta.size(), item))

    def length(self):
        return len(self.prefix) + self.ta.size()

    def probe_list(self):
        """A plain list standing in for it while a loop body is traced once (probing)."""
        return list(self.prefix)

    def as_tensor(self):
        """All the items as one array (the prefix, then the appended items): what np.sum(xs),
        np.mean(xs), sum(xs) and max(xs) of the list compute on."""
        stacked = self.stacked()
        if not self.prefix:
            return stacked
        return cfnb.concat([cfnb.stack([cfnb.cast(p, stacked.dtype) if isinstance(p, cfnb.Tensor) else
                                        cfnb.constant(p, dtype=stacked.dtype) for p in self.prefix]), stacked], 0)

    def stacked(self):
        """The items as one tensor (made once)."""
        if getattr(self, "_stacked", None) is None:
            self._stacked = self.ta.stack()
        return self._stacked

    def __repr__(self):
        return f"<list: {len(self.prefix)} items and a TensorArray>"

    def _refuse(self, *args):
        raise TypeError("a list grown with .append in a loop can only grow with .append there (its items exist "
                        "only while the graph runs): read it after the cell, or keep the values in an array")

    __add__ = __radd__ = __mul__ = __getitem__ = __iter__ = __contains__ = _refuse


def flows_in(values):
    """Tensors for a cond's outputs: a list or TensorArray travels as its flow tensor."""
    return [v._flow_for_control_flow() if hasattr(v, "_flow_for_control_flow") else v for v in values]


def rebuild_flows(originals, tensors):
    return [o._with_new_flow(t) if hasattr(o, "_flow_for_control_flow") else t for o, t in zip(originals, tensors)]
