"""A dict with fixed keys as loop state: one loop variable per key, as AutoGraph carries a structure's items.

`d = {"pos": 0, "neg": 0}`, then `d["pos"] += 1` in a loop: the loop carries `d['pos']` and `d['neg']` (each with
its own dtype, a Python number staying weak), and the body sees `d` as a dict again. The keys must stay the same
(a graph loop carries a fixed structure); the notebook's dict is changed in place afterwards (objects.py).
"""
from ..errors import CellError
from .objects import changed


class DictItems:
    """The loop's names with each dict spread into its items (`d['pos']`), and the way back."""

    def __init__(self, values, names, written_first, line):
        self.keys = {}  # position of a dict among the names -> its keys
        self.line, self.names = line, list(names)
        self.values, self.flat_names, first = [], [], set(written_first)
        for k, (v, name) in enumerate(zip(values, names)):
            if not isinstance(v, dict):
                self.values.append(v)
                self.flat_names.append(name)
                continue
            if name in first:
                raise CellError(line, f"'{name}' is given a new dict in the loop body: a graph loop carries a dict's "
                                      f"items, so give '{name}' its keys before the loop and set them in the body "
                                      f"({name}[key] = ...)")
            self.keys[k] = list(v)
            self.values += list(v.values())
            self.flat_names += [f"{name}[{key!r}]" for key in v]
        self.written_first = tuple(n for n in written_first if n in self.flat_names)
        self.entered = list(values)

    def pack(self, flat):
        """The names' values from the loop variables: each dict's items a dict again."""
        flat, out = list(flat), []
        for k in range(len(self.names)):
            if k in self.keys:
                items = [flat.pop(0) for _ in self.keys[k]]
                out.append(dict(zip(self.keys[k], items)))
            else:
                out.append(flat.pop(0))
        return out

    def unpack(self, values):
        flat = []
        for k, v in enumerate(values):
            if k not in self.keys:
                flat.append(v)
                continue
            if not isinstance(v, dict) or list(v) != self.keys[k]:
                raise CellError(self.line, f"'{self.names[k]}' must keep its keys {self.keys[k]} in the loop: a graph "
                                           f"loop carries a fixed set of items (give it every key before the loop)")
            flat += list(v.values())
        return flat

    def cond(self, cond_fn):
        return cond_fn if not self.keys else lambda *flat: cond_fn(*self.pack(flat))

    def body(self, body_fn):
        return body_fn if not self.keys else lambda *flat: self.unpack(body_fn(*self.pack(flat)))

    def after(self, cell, outs):
        """The names' values after the loop; each dict is a new version of the dict it was (objects.py)."""
        if not self.keys:
            return outs
        outs = self.pack(outs)
        for k in self.keys:
            outs[k] = changed(cell, self.entered[k], outs[k], self.names[k])
        return tuple(outs)
