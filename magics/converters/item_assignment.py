"""`a[k] = v` and `a[k] += v`: a functional update, as AutoGraph's slices converter (`set_item`).

A graph value cannot be changed in place, so the statement becomes an assignment of the whole name
before loops are desugared and analysed:

    a[k] = v      ->   a = __cf.setitem(a, k, v, line)
    a[k] += v     ->   a = __cf.setitem(a, k, a[k] + v, line)

so `a` is a loop variable of a loop that sets its items (operators/slices.py builds the new value; every other
name of the same array sees it too, operators/objects.py). Refused here, with the line: a view of another array
(`r = M[0]`, then `r[i] = v`: numpy would change M too), `a[i][j] = v`, several targets.
"""
import ast

from ..errors import CellError
from .templates import located, replace, replace_as_expression
from .tree import StatementTransformer, walk


def _target_name(target, line):
    if isinstance(target.value, ast.Name):
        return target.value.id
    if isinstance(target.value, ast.Subscript):
        raise CellError(line, f"`{ast.unparse(target)} = ...`: index once with all the indices, as "
                              f"`{ast.unparse(target.value.value)}[i, j] = ...`")
    raise CellError(line, f"`{ast.unparse(target)} = ...`: item assignment works on a name (`a[i] = v`); assign "
                          f"the container to a name first")


def index_expr(node):
    """The index of a subscript as an expression: `a[1:n, k]` -> `(__cf.slice_(1, n, None), k)`."""
    if isinstance(node, ast.Slice):
        parts = [p if p is not None else ast.Constant(None) for p in (node.lower, node.upper, node.step)]
        return replace_as_expression("__cf.slice_(lower, upper, step)", lower=parts[0], upper=parts[1],
                                     step=parts[2])
    if isinstance(node, ast.Tuple):
        return ast.Tuple([index_expr(e) for e in node.elts], ast.Load())
    return node


class ItemAssignments(StatementTransformer):
    def __init__(self, ctx):
        self.ctx = ctx
        self.names = {}  # name -> first line that sets one of its items

    def _setitem(self, name, index, value, node):
        self.names.setdefault(name, node.lineno)
        return located(replace("target = __cf.setitem(target, key, value, line)", target=name, key=index,
                               value=value, line=node.lineno), node)

    def visit_Assign(self, node):  # noqa: N802 - ast's names
        if len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)) and \
                any(isinstance(e, ast.Subscript) for e in node.targets[0].elts):
            return self._unpack(node)
        if not any(isinstance(t, ast.Subscript) for t in node.targets):
            return self.generic_visit(node)
        nested = [n for t in node.targets for n in walk(t) if isinstance(n, ast.Subscript) and
                  isinstance(n.ctx, ast.Store)]
        if len(node.targets) != 1 or len(nested) != 1:
            raise CellError(node.lineno, "item assignment in a %%whileloop cell takes one target: write one "
                                         "`a[i] = v` per line")
        (target,) = node.targets
        name = _target_name(target, node.lineno)
        return self._setitem(name, index_expr(target.slice), node.value, node)

    def _unpack(self, node):
        """`a[j], a[j + 1] = a[j + 1], a[j]` (a swap): the right side first, then each target from left to right,
        as Python assigns them:

            __items_N = (a[j + 1], a[j])
            a = __cf.setitem(a, j, __items_N[0], line)
            a = __cf.setitem(a, j + 1, __items_N[1], line)
        """
        items = f"__items_{self.ctx.new_number()}"
        out = located(replace("items = value", items=items, value=node.value), node)
        for k, element in enumerate(node.targets[0].elts):
            part = replace_as_expression("items[k]", items=items, k=k)
            if isinstance(element, ast.Subscript):
                name = _target_name(element, node.lineno)
                out += self._setitem(name, index_expr(element.slice), part, node)
            elif isinstance(element, ast.Name):
                out += located(replace("target = value", target=element.id, value=part), node)
            else:
                raise CellError(node.lineno, f"`{ast.unparse(node.targets[0])} = ...`: unpack into names and items "
                                             f"(`a[i], b = ...`), one level deep")
        return out

    def visit_AugAssign(self, node):  # noqa: N802
        if not isinstance(node.target, ast.Subscript):
            return node
        name = _target_name(node.target, node.lineno)
        read = ast.Subscript(ast.Name(name, ast.Load()), node.target.slice, ast.Load())
        value = ast.BinOp(read, node.op, node.value)
        return self._setitem(name, index_expr(node.target.slice), value, node)


def convert(tree, ctx):
    """Rewrite `tree` in place; refuse a view of an array whose items the cell sets."""
    rewrite = ItemAssignments(ctx)
    tree = rewrite.visit(tree)
    if rewrite.names:
        _refuse_views(tree, rewrite.names)
    return tree


def _refuse_views(tree, names):
    for node in walk(tree):
        view = _view_assigned(node, names)
        if view is not None:
            name, source, instead = view
            raise CellError(node.lineno, f"'{name}' is a view of another array ({source}), and the cell sets its "
                                         f"items (line {names[name]}): plain numpy would change that array too, "
                                         f"which a graph value cannot. {instead}")


_VIEW_METHODS = {"reshape", "ravel", "transpose", "view", "squeeze", "swapaxes"}


def _view_assigned(node, names):
    """(name, source, advice) when `node` makes a name whose items the cell sets a view of another array:
    basic slicing, `.T`, a reshaping method. (The row a `for` over an array gives is refused when it runs,
    operators/slices.py: over a Python list the item is the list's own array, which may change.)"""
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
