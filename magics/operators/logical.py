"""Conditions in a cell: `and`, `or`, `==`, `!=` and `not`, as Python or as graph ops (AutoGraph's
`operators/logical.py`; `x if c else y` is in conditionals.py).

On Python values they are Python's own operators, so the cell computes what plain Python computes; once a
tensor is involved they build TensorFlow's ops (`logical_and`, `equal`, ...). A number used as a test is true
when it is not 0, as in Python (`truth`).
"""
import numpy as np

import cfnb
from cfnb.framework import dtype_rules


def is_tensor(v):
    return isinstance(v, cfnb.Tensor)


def and_(cell, values, line):
    return _chain(values, cfnb.logical_and, lambda a, b: a and b)


def or_(cell, values, line):
    return _chain(values, cfnb.logical_or, lambda a, b: a or b)


def _chain(values, graph_op, python_op):
    """`a and b and c` (or `or`) left to right: Python's operator until a tensor joins, then the graph op."""
    result = values[0]
    for v in values[1:]:
        if is_tensor(result) or is_tensor(v):
            result = graph_op(truth(result), truth(v))
        else:
            result = python_op(result, v)
    return result


def eq(cell, a, b, line):
    return cfnb.equal(a, b) if is_tensor(a) or is_tensor(b) else a == b


def ne(cell, a, b, line):
    return cfnb.not_equal(a, b) if is_tensor(a) or is_tensor(b) else a != b


def not_(cell, v, line):
    return cfnb.logical_not(truth(v)) if is_tensor(v) else not v


def truth(v):
    """A loop or `if` test: Python's truth of a number is `!= 0`."""
    if isinstance(v, cfnb.Tensor) and v.dtype != cfnb.bool:
        return cfnb.not_equal(v, cfnb.zeros_like(v))
    return v


def is_python_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, (bool, np.generic))


def is_weak(v):
    """Does `v` hold what plain Python holds as a Python int or float?"""
    return is_python_number(v) or isinstance(v, cfnb.Tensor) and dtype_rules.is_weak(v)
