"""What the converters of one cell share (AutoGraph's `ctx`, and the annotations it keeps beside the tree).

The converters talk to each other through the converted source itself (hidden names such as `__k_1` and
calls of `__cf`) and through this one object, never through attributes added to AST nodes.
"""
from dataclasses import dataclass, field


@dataclass
class Context:
    """One cell's conversion.

    filename   the name the cell's code is compiled under (errors point at its lines)
    notebook   the names the notebook holds when the cell runs
    assigned   the names the cell assigns (known once loops are desugared; each is handed back)
    read       the names the cell reads (before conversion)
    iterations `while` node -> the hidden name of what the `for` it was desugared from walks (`__iter_1`: its
               target names the loop in messages, "the loop at line 2 (for i)")
    """

    filename: str = "<whileloop>"
    notebook: frozenset = frozenset()
    assigned: list = field(default_factory=list)
    read: list = field(default_factory=list)
    iterations: dict = field(default_factory=dict)
    counter: int = 0

    def new_number(self):
        """A fresh number for the hidden names of one construct (`__k_3`, `__brk_3`, `__body_3`)."""
        self.counter += 1
        return self.counter

    @property
    def cell_names(self):
        """The names the cell's own code binds or reads from the notebook (not hidden ones)."""
        return {n for n in self.assigned if not n.startswith("__")} | {n for n in self.read if n in self.notebook}
