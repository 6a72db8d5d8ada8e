"""The one object the converted cell's operators share: what the cell has built so far, and where."""
from .objects import Boxes


class CellState:
    """Everything `__cf`'s operators read and write while the cell's Python runs once.

    Where the cell is:
      options     the magic's options (form, dtypes, grads, parallel_iterations, maximum_iterations, ...)
      graph       the cell's graph (loop bodies and branches are traced into its function graphs)
      depth       how many loop bodies and branches are being traced (0: the cell's top level)
      probing     > 0 while a body or a branch is traced in a scratch graph only to learn what its names become
      marks       graph -> (ops seen, current line): which line built each op (operators/lines.py)
      boxes       the mutable objects the cell changes, and their latest versions (operators/objects.py)
      views       id -> (row, label, line): the rows a `for` over an array gives (their items cannot be set)

    What the result needs (magics/cell.py):
      op_line     op -> the cell line that built it (errors at run time name it)
      loops       While op -> (line, label): "the loop at line 2 (for i)"
      numpy_ops   ops whose result plain Python holds as numpy; python_ops: ops whose result it holds as a Python
                  number whatever went in (float(), math.*): the types handed back (magics/values.py)
      effects     per traced scope, its print ops (and loops and conds that print), in program order;
                  top_effects: the cell's top-level ones, run as targets
      cut         (bool tensor, line, label) per top-level loop: did --maximum-iterations stop it early?

    What goes back to the notebook:
      first       name -> the tensor of the cell's first top-level assignment of it (what --grad differentiates)
      notebook    name -> the tensor made from the notebook's value; notebook_names: every name the notebook holds;
                  from_notebook: name -> the Python value the cell read from the notebook
      grad_names  the names --grad differentiates with respect to (kept as tensors)
      flags, fallback   name -> whether its value is defined at the end (a bool tensor), and its value where not
      deleted     names the cell deletes (`del x`) that the notebook holds
      origins     name -> the box of the Python object it holds at the end (that object goes back, changed)
    """

    def __init__(self, options, graph, notebook_names=()):
        self.options = options
        self.graph = graph
        self.depth = 0
        self.probing = 0
        self.marks = {}
        self.boxes = Boxes()
        self.views = {}
        self.op_line = {}
        self.loops = {}
        self.numpy_ops = set()
        self.python_ops = set()
        self.effects = [[]]
        self.top_effects = []
        self.cut = []
        self.first = {}
        self.notebook = {}
        self.notebook_names = set(notebook_names)
        self.from_notebook = {}
        self.grad_names = {s for _target, sources in options.grads for s in sources}
        self.flags = {}
        self.fallback = {}
        self.deleted = []
        self.origins = {}
