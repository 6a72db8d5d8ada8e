"""Each converter of magics/converters/, alone, on the construct it converts: its converted source
(`ast.unparse`), as AutoGraph tests each converter (`converters/*_test.py`). The cells' end-to-end
behaviour is tested against plain Python in test_magics_python.py and test_magics_defined.py."""
import ast
import textwrap

import pytest
from magic_cells import CELLS

from magics.converters import (
    assignments,
    break_continue,
    calls,
    cell_function,
    compile_cell,
    conditions,
    convert,
    for_loops,
    fstrings,
    if_statements,
    item_assignment,
    lines,
    list_append,
    subscripts,
    tree,
    variables,
    while_loops,
)
from magics.converters.context import Context
from magics.converters.templates import located, replace
from magics.errors import CellError


def converted(converter, source, **context):
    tree = converter.convert(ast.parse(textwrap.dedent(source)), Context(**context))
    return ast.unparse(ast.fix_missing_locations(tree))


def same(text):
    return textwrap.dedent(text).strip()


def test_templates_replace_names_expressions_blocks_and_parameters():
    where = ast.parse("\n\na[1] = 2").body[0]
    (stmt,) = located(replace("target = __cf.setitem(target, key, value, line)", target="a",
                              key=where.targets[0].slice, value=where.value, line=3), where)
    assert ast.unparse(stmt) == "a = __cf.setitem(a, 1, 2, 3)"
    assert stmt.lineno == 3 and stmt.targets[0].lineno == 3  # the template's nodes take the student's line
    function = located(replace("def name(params):\n    body", name="f", params=["a", "b"],
                               body=ast.parse("x = a + b").body), where)
    assert ast.unparse(function[0]) == "def f(a, b):\n    x = a + b"


def test_item_assignment():
    assert converted(item_assignment, "a[i] = v\nM[i, 1:n] += 2") == same("""
        a = __cf.setitem(a, i, v, 1)
        M = __cf.setitem(M, (i, __cf.slice_(1, n, None)), M[i, 1:n] + 2, 2)""")


def test_item_assignment_unpacks_a_swap_right_side_first():
    assert converted(item_assignment, "a[j], a[j + 1] = a[j + 1], a[j]") == same("""
        __items_1 = (a[j + 1], a[j])
        a = __cf.setitem(a, j, __items_1[0], 1)
        a = __cf.setitem(a, j + 1, __items_1[1], 1)""")


def test_item_assignment_refuses_a_second_target():
    with pytest.raises(CellError, match="one target"):
        converted(item_assignment, "a[i] = b[i] = 0")


def test_list_append():
    assert converted(list_append, "xs.append(x * 2)") == "xs = __cf.append(xs, x * 2, 1)"


def test_for_loops():
    assert converted(for_loops, "for i in range(n):\n    s += i\nelse:\n    t = 1") == same("""
        __iter_1 = __cf.for_iter(range(n), 'i', 1)
        __k_1 = 0
        while __k_1 < __iter_1.length:
            i = __cf.for_item(__iter_1, __k_1, 1)
            __k_1 = __k_1 + 1
            s += i
        else:
            t = 1""")


def test_break_continue_early_continue_break_and_else():
    source = "while i < n:\n    i += 1\n    if i % 2 == 0:\n        continue\n    if i > 7:\n        break\n" \
             "    s += i\nelse:\n    s = -1"
    assert converted(break_continue, source) == same("""
        __brk_1 = False
        while not __brk_1 and i < n:
            i += 1
            if not i % 2 == 0:
                if i > 7:
                    __brk_1 = True
                if not __brk_1:
                    s += i
        if not __brk_1:
            s = -1""")


def test_break_continue_nested_continue_takes_a_flag():
    source = "while i < n:\n    if a:\n        if b:\n            continue\n        s += 1\n    t += 1"
    assert converted(break_continue, source) == same("""
        __cont_1 = False
        while i < n:
            __cont_1 = False
            if a:
                if b:
                    __cont_1 = True
                if not __cont_1:
                    s += 1
            if not __cont_1:
                t += 1""")


def test_conditions():
    assert converted(conditions, "ok = a < b < c and not d or x == y\nz = p if q else r") == same("""
        ok = __cf.or_([__cf.and_([__cf.and_([a < b, b < c], 1), __cf.not_(d, 1)], 1), __cf.eq(x, y, 1)], 1)
        z = __cf.if_exp(q, lambda: p, lambda: r, 2)""")


def test_fstrings():
    assert converted(fstrings, "s = f'{x} and {y:.2f}!'") == \
        "s = __cf.fstring([(x, -1, ''), ' and ', (y, -1, '.2f'), '!'], 1)"


def test_subscripts():
    assert converted(subscripts, "y = a[i] + b[1:n, k]") == \
        "y = __cf.getitem(a, i, 1) + __cf.getitem(b, (__cf.slice_(1, n, None), k), 1)"


def test_calls():
    assert converted(calls, "y = np.sqrt(x)\nprint(y, end='')") == same("""
        y = __cf.call(1, np.sqrt, x)
        __cf.print_(2, y, end='')""")


def test_assignments():
    assert converted(assignments, "a, b = b, a\nx += 1") == same("""
        a, b = __cf.assign('a,b', (b, a), 1)
        x = __cf.assign('x', __cf.inplace(x, '+', 1, 2), 2)""")


def test_variables_read_the_cells_own_names_through_ld():
    assert converted(variables, "y = x + z", assigned=["x", "y"]) == "y = __cf.ld(x, 'x', 1) + z"


def test_lines():
    assert converted(lines, "x = 1\nwhile x < 3:\n    x += 1") == same("""
        __cf.at(1)
        x = 1
        __cf.at(2)
        while x < 3:
            __cf.at(3)
            x += 1""")


def test_while_loops_loop_variables_temporaries_and_invariants():
    source = "s = 0\ni = 0\nwhile i < n:\n    t = i * 2\n    s = s + t\n    i = i + 1"
    assert converted(while_loops, source, assigned=["s", "i", "t"], notebook=frozenset(["n"]), read=["n"]) == same("""
        s = 0
        i = 0
        try:
            n = __cf.invariant(n, 'n')
        except NameError:
            pass

        def __cond_1(i, s, t):
            return i < n

        def __body_1(i, s, t):
            t = i * 2
            s = s + t
            i = i + 1
            return (i, s, t)
        i, s, t = __cf.while_stmt(__cond_1, __body_1, __cf.values(locals(), ('i', 's', 't')), ('i', 's', 't'), None, ('t',), 3)""")  # noqa: E501


def test_while_loops_refuse_a_condition_the_body_cannot_change():
    with pytest.raises(CellError, match="would never become false") as info:
        converted(while_loops, "i = 0\nwhile i < 3:\n    j = 5", assigned=["i", "j"])
    assert info.value.line == 2


def test_if_statements():
    assert converted(if_statements, "if x > 0:\n    y = 1\nelse:\n    y = 2\n    z = 3") == same("""
        def __then_1(y, z):
            y = 1
            return (y, z)

        def __else_1(y, z):
            y = 2
            z = 3
            return (y, z)
        y, z = __cf.if_stmt(x > 0, __then_1, __else_1, __cf.values(locals(), ('y', 'z')), ('y', 'z'), 1)""")


def test_hidden_names_live_only_where_they_are_read():
    """A nested loop's counter is local to the outer loop's body; a break flag the loop's `else` reads is not."""
    ctx = Context()
    tree = convert(ast.parse("for i in range(3):\n    for j in range(i):\n        if j > 1:\n            break\n"
                             "    else:\n        s = i"), ctx)
    text = ast.unparse(tree)
    outer = next(line for line in text.splitlines() if line.startswith("__k_2, "))  # the outer `for` is number 2
    assert outer.startswith("__k_2, i, j, s = __cf.while_stmt(")  # the inner loop's names stay in the outer body
    inner = next(line for line in text.splitlines() if line.strip().startswith("__brk_3, __k_1, j = "))
    assert "'__brk_3', '__k_1', 'j'" in inner  # its break flag is its own loop variable (its test reads it)


def test_the_whole_cell_function():
    ctx = Context(notebook=frozenset(["n", "i"]))
    tree = convert(ast.parse("s = 0\nfor i in range(n):\n    s += i"), ctx)
    text = ast.unparse(cell_function.wrap(tree.body, ctx))
    assert text.startswith(same("""
        def __cfnb_cell__(__ns, __cf, __names):
            if 's' in __ns:
                s = __cf.from_namespace(__ns, 's', True)
            if 'i' in __ns:
                i = __cf.from_namespace(__ns, 'i', True)
            n = __cf.from_namespace(__ns, 'n', False)"""))
    assert text.endswith("return __cf.values(locals(), __names)")
    assert "s = __cf.assign('s', __cf.inplace(__cf.ld(s, 's', 3), '+', __cf.ld(i, 'i', 3), 3), 3)" in text
    code, assigned = compile_cell("s = 0\nfor i in range(n):\n    s += i", "<cell>", notebook={"n"})
    assert assigned == ["s", "i"] and code.co_filename == "<cell>"


@pytest.mark.parametrize("cell", [cell for cell in list(CELLS.values())[::7] if isinstance(cell, str)])
def test_tree_walks_as_the_standard_library_does_and_statement_converters_miss_nothing(cell, monkeypatch):
    """tree.py's `walk` is `ast.walk`, faster (same nodes, same order); a StatementTransformer, which skips
    expressions, converts a cell exactly as a Transformer visiting every node does; and every converter gives each
    node it makes a whole position (`compile` needs one; a traceback's carets read the end)."""
    ctx = Context(notebook=frozenset({"np", "xs", "n"}))
    converted = convert(ast.parse(cell), ctx, until=if_statements)
    assert [type(n) for n in tree.walk(converted)] == [type(n) for n in ast.walk(converted)]
    for n in tree.walk(converted):
        if "lineno" in n._attributes:
            assert None not in (n.lineno, n.col_offset, n.end_lineno, n.end_col_offset), ast.dump(n)
    monkeypatch.setattr(tree.StatementTransformer, "generic_visit", tree.Transformer.generic_visit)
    every_node = convert(ast.parse(cell), Context(notebook=frozenset({"np", "xs", "n"})), until=if_statements)
    assert ast.dump(every_node, include_attributes=True) == ast.dump(converted, include_attributes=True)


def test_a_piece_of_the_students_code_keeps_its_own_position():
    """A template's own nodes take the statement's position; the student's expression put into it keeps its own
    (columns included), so a traceback underlines what the student wrote."""
    (stmt,) = convert(ast.parse("total = 10 * rate"), Context(), until=assignments).body
    value = stmt.value.args[1]  # __cf.assign('total', <the student's 10 * rate>, 1)
    assert ast.unparse(value) == "10 * rate" and (value.col_offset, value.end_col_offset) == (8, 17)
    assert (stmt.value.col_offset, stmt.value.end_col_offset) == (0, 17)  # the template's call: the statement's
