"""A Python list grown with `.append` inside a loop: a TensorArray, a Python list again afterwards.

A loop cannot carry a Python list (its length changes every iteration), so, as AutoGraph advises,
the items go into a `TensorArray` (in a functional loop: a TensorList) that the loop carries, the items the list
held before the loop first: `fib[-1]`, `xs[i]` and `len(xs)` read it while the loop runs (TensorArray reads at
run-time indices, and its size). After the cell runs, the name holds the items the list held before (as they
were) and each appended item: a Python list again (values.py gives the items the types plain Python would have).
"""
import cfnb
from cfnb.framework import dtype_rules


class Accumulator:
    """A list as a TensorArray `ta` of all its items: `prefix` (the items the list held before the loop, written
    first, and kept as Python values for the notebook) and the items appended in the loop. `weak`: the items are
    Python numbers (they promote as Python's do)."""

    def __init__(self, prefix, ta, weak=False):
        self.prefix = prefix
        self.ta = ta
        self.weak = weak

    # what while_loop and cond need to carry it (as they carry a TensorArray)
    def _flow_for_control_flow(self):
        return self.ta._flow_for_control_flow()

    def _with_new_flow(self, flow):
        return Accumulator(self.prefix, self.ta._with_new_flow(flow), self.weak)

    def append(self, item):
        return Accumulator(self.prefix, self.ta.write(self.ta.size(), item), self.weak)

    def length(self):
        """`len(xs)`: the TensorArray's size (a Python int in plain Python)."""
        return dtype_rules.mark_weak(cfnb.cast(self.ta.size(), cfnb.int64))

    def read(self, index):
        """`xs[index]` (index a Python int or a graph value, negative from the end): the TensorArray's item,
        after a check that raises Python's IndexError text where it is out of range."""
        size = self.ta.size()
        k = cfnb.cast(index, cfnb.int32) if isinstance(index, cfnb.Tensor) else cfnb.constant(int(index))
        k = cfnb.where(k < 0, k + size, k)
        check = cfnb.Assert(cfnb.logical_and(k >= 0, k < size), ["IndexError: list index out of range"],
                            name="list_index")
        with cfnb.control_dependencies([check]):
            item = self.ta.read(k)
        return dtype_rules.mark_weak(item) if self.weak else item

    def probe_list(self):
        """A list standing in for it while a loop body is traced once (probing): its length and items are only
        known when the graph runs (ProbeList)."""
        return ProbeList(self.prefix)

    def as_tensor(self):
        """All the items as one array: what np.sum(xs), np.mean(xs), sum(xs) and max(xs) of the list compute on."""
        return self.stacked()

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

    __add__ = __radd__ = __mul__ = __iter__ = __contains__ = _refuse


class ProbeList(list):
    """What a probe sees of a list a loop appends to: its items so far, but `len` and reads at a graph index stand
    for values known only when the graph runs (operators/py_builtins.py, slices.py), so a condition on them is
    probed on both sides."""

    def __add__(self, other):
        return ProbeList(list(self) + list(other))


def flows_in(values):
    """Tensors for a cond's outputs: a list or TensorArray travels as its flow tensor."""
    return [v._flow_for_control_flow() if hasattr(v, "_flow_for_control_flow") else v for v in values]


def rebuild_flows(originals, tensors):
    return [o._with_new_flow(t) if hasattr(o, "_flow_for_control_flow") else t for o, t in zip(originals, tensors)]
