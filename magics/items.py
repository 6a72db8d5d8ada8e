"""`a[k] = v` and `a[k] += v` in a cell: a functional update, as AutoGraph's `set_item`.

A graph value cannot be changed in place, so (as AutoGraph's slices converter does) the statement
becomes an assignment of the whole name before desugaring and loop analysis:

    a[k] = v      ->   a = __cf.setitem(a, k, v, line)
    a[k] += v     ->   a = __cf.setitem(a, k, a[k] + v, line)

so `a` is a loop variable of a loop that sets its items. `setitem` changes a numpy array in place
when nothing in it is a graph value (plain Python, aliases and all); otherwise it builds the new
array (numpy_functions.setitem: the value cast to a's dtype, as numpy's assignment casts). What a
value cannot do is refused with the line: a second name for an array the cell sets items of (it
would not see the change), fancy indices (a list, an array or a mask), `a[i][j] = v`, and a list
in a loop (it can only grow with .append there).
"""
import ast

import numpy as np

import cfnb
from cfnb.ops import numpy_functions

from .errors import CellError


def _target_name(target, line):
    if isinstance(target.value, ast.Name):
        return target.value.id
    if isinstance(target.value, ast.Subscript):
        raise CellError(line, f"`{ast.unparse(target)} = ...`: index once with all the indices, as "
                              f"`{ast.unparse(target.value.value)}[i, j] = ...`")
    raise CellError(line, f"`{ast.unparse(target)} = ...`: item assignment works on a name (`a[i] = v`); assign "
                          f"the container to a name first")


def index_expr(node):
    """The index of a subscript as an expression: `a[1:n, k]` -> `(slice(1, n, None), k)`."""
    if isinstance(node, ast.Slice):
        parts = [p if p is not None else ast.Constant(None) for p in (node.lower, node.upper, node.step)]
        return ast.Call(ast.Attribute(ast.Name("__cf", ast.Load()), "slice_", ast.Load()), parts, [])
    if isinstance(node, ast.Tuple):
        return ast.Tuple([index_expr(e) for e in node.elts], ast.Load())
    return node


class _Rewrite(ast.NodeTransformer):
    def __init__(self):
        self.names = {}  # name -> first line that sets one of its items

    def _setitem(self, name, index, value, node):
        self.names.setdefault(name, node.lineno)
        call = ast.Call(ast.Attribute(ast.Name("__cf", ast.Load()), "setitem", ast.Load()),
                        [ast.Name(name, ast.Load()), index, value, ast.Constant(node.lineno)], [])
        return ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], call), node)

    def visit_Assign(self, node):  # noqa: N802 - ast's names
        subscripts = [t for t in node.targets if isinstance(t, ast.Subscript)]
        if not subscripts:
            return node
        nested = [n for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Subscript) and
                  isinstance(n.ctx, ast.Store)]
        if len(node.targets) != 1 or len(nested) != 1:
            raise CellError(node.lineno, "item assignment in a %%whileloop cell takes one target: write one "
                                         "`a[i] = v` per line")
        (target,) = node.targets
        name = _target_name(target, node.lineno)
        return self._setitem(name, index_expr(target.slice), node.value, node)

    def visit_AugAssign(self, node):  # noqa: N802
        if not isinstance(node.target, ast.Subscript):
            return node
        name = _target_name(node.target, node.lineno)
        read = ast.Subscript(ast.Name(name, ast.Load()), node.target.slice, ast.Load())
        value = ast.BinOp(read, node.op, node.value)
        return self._setitem(name, index_expr(node.target.slice), value, node)


def rewrite_item_assignments(tree):
    """Rewrite `tree` in place; refuse a second name for an array whose items the cell sets."""
    rewrite = _Rewrite()
    tree.body = [rewrite.visit(stmt) for stmt in tree.body]
    if rewrite.names:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                pairs = [(t.id, node.value.id) for t in node.targets if isinstance(t, ast.Name)]
                for new, old in pairs:
                    if new != old and (old in rewrite.names or new in rewrite.names):
                        changed = old if old in rewrite.names else new
                        other = new if changed == old else old
                        raise CellError(node.lineno, f"'{other}' and '{changed}' name one array, whose items the "
                                                     f"cell sets ({changed}[...] = ..., line "
                                                     f"{rewrite.names[changed]}): in a graph an array is a value, so "
                                                     f"only '{changed}' would change. Write `{new} = {old}.copy()`, "
                                                     f"or use one name")
        for node in ast.walk(tree):
            view = _view_assigned(node, rewrite.names)
            if view is not None:
                name, source, instead = view
                raise CellError(node.lineno, f"'{name}' is a view of another array ({source}), and the cell sets its "
                                             f"items (line {rewrite.names[name]}): plain numpy would change that "
                                             f"array too, which a graph value cannot. {instead}")
    ast.fix_missing_locations(tree)
    return tree


_VIEW_METHODS = {"reshape", "ravel", "transpose", "view", "squeeze", "swapaxes"}


def _view_assigned(node, names):
    """(name, source) when `node` makes a name whose items the cell sets a view of another array: basic
    slicing, `.T`, a reshaping method, or the variable of a `for` over an array."""
    if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id in names:
        array = ast.unparse(node.iter)
        return node.target.id, f"a row of {array}", f"Loop over an index and set the array's items: `for k in " \
                                                    f"range(len({array})):` and `{array}[k, j] = v`"
    if not isinstance(node, ast.Assign):
        return None
    targets = [t.id for t in node.targets if isinstance(t, ast.Name) and t.id in names]
    value = node.value
    is_view = isinstance(value, ast.Subscript) or isinstance(value, ast.Attribute) and value.attr == "T" or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _VIEW_METHODS)
    if targets and is_view:
        source = ast.unparse(value)
        return targets[0], source, f"Write `{targets[0]} = {source}.copy()` if only '{targets[0]}' should change, " \
                                   f"or set the items of the array itself"
    return None


def _basic(key):
    parts = key if isinstance(key, tuple) else (key,)
    for k in parts:
        if isinstance(k, slice):
            bounds = (k.start, k.stop, k.step)
        else:
            bounds = (k,)
        for b in bounds:
            if b is None or b is Ellipsis or isinstance(b, (int, np.integer)) and not isinstance(b, bool):
                continue
            if isinstance(b, cfnb.Tensor) and b.dtype.is_integer and b.shape.ndims == 0:
                continue
            return False
    return True


class ItemAssignment:
    """`__cf.setitem` (mixed into runtime.Runtime)."""

    def setitem(self, target, key, value, line):
        from .calls import _index_parts, tensors_in
        from .lists import Accumulator
        symbolic = bool(tensors_in(_index_parts(key) + [value])) or isinstance(target, cfnb.Tensor)
        if isinstance(target, Accumulator) or isinstance(target, list) and (self.depth or symbolic):
            raise CellError(line, "a list changed by item assignment in a loop: in a graph loop a list can only "
                                  "grow with .append; use an array (`a = np.zeros(n)`, then `a[i] = v`)")
        if not symbolic:
            target[key] = value  # plain Python: in place (a Python error here is the cell's own)
            return target
        if not isinstance(target, (cfnb.Tensor, np.ndarray)):
            raise CellError(line, f"item assignment to a {type(target).__name__} with a loop value: only an array "
                                  f"can change its items in a loop")
        if not _basic(key):
            raise CellError(line, "fancy indices (a list, an array or a mask) in `a[...] = v` have no graph form: "
                                  "write `a = np.where(mask, v, a)` (a mask of the items to set)")
        if isinstance(target, np.ndarray):
            target = self.constant(target)
        try:
            out = numpy_functions.setitem(target, key, value)
        except ValueError as e:
            raise CellError(line, str(e), kind="ValueError") from None
        self.numpy_ops.add(out.op)  # an array's items: plain Python has a numpy array here
        return out
