"""Undo a failed graph build: a `gradients()` call that raises leaves the graph as it found it.

TensorFlow gets most of this for free. A functional op's cond and body are FunctionDefs, frozen when the op is made,
so when `tf.gradients` fails half way (a LookupError for an op without a gradient, say) the forward While still
calls the functions it was built with, and the half-built gradient ops are dangling nodes that no fetch reaches.
cfnb's functions are live FuncGraphs that the gradient rewrites in place (accumulators pushed in the forward body,
the forward While given new inputs and outputs), and its v1 contexts record the gradient loop as it grows: a failure
part way would leave a forward body that outputs more than its While has outputs, or a graph whose current
control-flow context is still the gradient loop's. So the outermost `gradients()` call keeps a journal
(`rollback_on_error`), and on failure:

  * every graph of the family (the graph, and the functions of its library and of theirs) forgets the ops made
    since the journal opened, which are unhooked from the consumers and control outputs of the ops they read, and
    gets back its function library, its current control-flow context, its collections' lengths and, for a
    FuncGraph, its inputs, outputs and captures;
  * an object that existed before and was changed in place gets its state back: such an object calls `note(obj)`
    before it changes (an Operation whose inputs, outputs, attributes or control edges change, a Tensor whose
    consumers or shape change, a control-flow context whose bookkeeping grows), and its fields are copied then,
    once per journal.
Names handed out by the failed call stay taken, as they do in TensorFlow, so a later call gets TensorFlow's names.
"""
import contextlib
import threading

_LOCAL = threading.local()  # each thread builds its own graphs: its own stack of journals


def _journals():
    journals = getattr(_LOCAL, "journals", None)
    if journals is None:
        journals = _LOCAL.journals = []
    return journals


def note(obj):
    """Call before changing `obj` in place, if `obj` may predate the build under way (cheap when none is)."""
    journals = getattr(_LOCAL, "journals", None)
    if journals:
        journals[-1].note(obj)


@contextlib.contextmanager
def rollback_on_error(graph):
    """Run the block; if it raises, put `graph` and its functions back as they were. Nested uses share the
    outermost journal (a functional op's gradient calls gradients() again, inside its functions)."""
    journals = _journals()
    if journals:
        yield
        return
    journal = _Journal(graph)
    journals.append(journal)
    try:
        yield
    except BaseException:
        journal.restore()
        raise
    finally:
        journals.pop()


def _fields(obj):
    """The fields of `obj` a build may change in place: those its class names in `_JOURNAL_FIELDS` (Operation,
    Tensor, FuncGraph), else all of them (a control-flow context)."""
    fields = getattr(type(obj), "_JOURNAL_FIELDS", None)
    return fields if fields is not None else tuple(vars(obj))


def _copy(value):
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, set):
        return set(value)
    return None


class _Saved:
    """An object's fields as they were: each value, and a copy of its contents when it is a container (restored in
    place, so anything sharing the container sees the old contents again)."""

    def __init__(self, obj, fields):
        self.obj = obj
        self.values = {f: (getattr(obj, f), _copy(getattr(obj, f))) for f in fields if hasattr(obj, f)}

    def restore(self):
        for field, (value, contents) in self.values.items():
            if contents is not None:
                if isinstance(value, list):
                    value[:] = contents
                else:
                    value.clear()
                    value.update(contents)
            setattr(self.obj, field, value)


def _family(graph):
    """The graph's outermost graph and every function reachable through function libraries."""
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    found, stack = [], [graph]
    while stack:
        g = stack.pop()
        if any(g is f for f in found):
            continue
        found.append(g)
        stack.extend(g._functions.values())
    return found


class _Journal:
    def __init__(self, graph):
        self.graphs = {}
        self.saved = {}
        for g in _family(graph):
            self.graphs[g] = (len(g._ops), g._counter, dict(g._functions), g._control_flow_context,
                              {name: len(items) for name, items in g._collections.items()})
            if hasattr(g, "outer_graph"):
                self.saved[id(g)] = _Saved(g, _fields(g))

    def _is_new(self, obj):
        op = getattr(obj, "_op", obj)
        graph = getattr(op, "_graph", None)
        if graph is None or not hasattr(op, "_id"):
            return False
        known = self.graphs.get(graph)
        return known is None or op._id > known[1]

    def note(self, obj):
        if id(obj) not in self.saved and not self._is_new(obj):
            self.saved[id(obj)] = _Saved(obj, _fields(obj))

    def restore(self):
        for saved in self.saved.values():
            saved.restore()
        for g, (n_ops, _, functions, context, collections) in self.graphs.items():
            for op in g._ops[n_ops:]:
                _unhook(op)
                g._ops_by_name.pop(op.name, None)
            del g._ops[n_ops:]
            g._functions.clear()
            g._functions.update(functions)
            g._control_flow_context = context
            for name in [n for n in g._collections if n not in collections]:
                del g._collections[name]
            for name, length in collections.items():
                del g._collections[name][length:]
            g._version += 1


def _unhook(op):
    """Remove a new op from the consumers and control outputs of what it reads."""
    for t in op._inputs:
        while op in t._consumers:
            t._consumers.remove(op)
    for c in op._control_inputs:
        while op in c._control_outputs:
            c._control_outputs.remove(op)
