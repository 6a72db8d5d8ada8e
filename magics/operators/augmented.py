"""`x += v` and friends (`__cf.inplace`, converters/assignments.py): in place where Python changes the object in
place, a new value where it rebinds the name.

An array (`ndarray.__iadd__`) and a list (`list.__iadd__`, which extends) change in place: every name of the
object sees the change (objects.py), and an array keeps its dtype and shape, as numpy's in-place ufuncs do
(`same_kind` casting: `a += 0.5` of an int array is numpy's UFuncTypeError). A number, a numpy scalar and a
string are rebound: `x = x + v`.
"""
import operator

import numpy as np

import cfnb

from ..errors import CellError
from .accumulators import Accumulator
from .objects import changed, latest
from .tensors import constant

OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
             "%": operator.mod, "**": operator.pow, "@": operator.matmul, "&": operator.and_, "|": operator.or_,
             "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift}
_UFUNCS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor_divide", "%": "remainder",
           "**": "power", "@": "matmul", "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor",
           "<<": "left_shift", ">>": "right_shift"}


_IOPS = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
         "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "@": operator.imatmul, "&": operator.iand,
         "|": operator.ior, "^": operator.ixor, "<<": operator.ilshift, ">>": operator.irshift}


def inplace(cell, target, symbol, value, line):
    """`target <symbol>= value`."""
    current = latest(cell, target)
    if isinstance(current, Accumulator) or isinstance(current, list) and cell.depth:
        raise CellError(line, f"`{symbol}=` on a list in a loop: in a graph loop a list grows only by .append "
                              f"(one `xs.append(v)` per item)")
    symbolic = isinstance(value, cfnb.Tensor) or isinstance(current, cfnb.Tensor)
    if isinstance(current, list) or isinstance(current, np.ndarray) and current.ndim > 0 and not symbolic:
        result = _IOPS[symbol](current, value)  # plain Python: in place (numpy's own errors and casting)
        return target if result is current else result
    if symbolic and _rank(current) not in (0, None):
        return changed(cell, target, _graph_inplace(cell, current, symbol, value, line), None)
    return OPERATORS[symbol](current, value)


def _rank(v):
    return v.shape.ndims if isinstance(v, cfnb.Tensor) else np.ndim(v)


def _graph_inplace(cell, array, symbol, value, line):
    """`array op= value` as a new version of the array: numpy's result cast back to its dtype (`same_kind`), and
    broadcast into its shape."""
    if isinstance(array, np.ndarray):
        array = constant(cell, array)
    result = OPERATORS[symbol](array, value)
    if not isinstance(result, cfnb.Tensor):
        return result
    if not np.can_cast(result.dtype.as_numpy_dtype, array.dtype.as_numpy_dtype, casting="same_kind"):
        raise CellError(line, f"Cannot cast ufunc '{_UFUNCS[symbol]}' output from dtype('{result.dtype.name}') to "
                              f"dtype('{array.dtype.name}') with casting rule 'same_kind'", kind="UFuncTypeError")
    if result.shape.is_fully_defined() and array.shape.is_fully_defined() and \
            result.shape.as_list() != array.shape.as_list():
        raise CellError(line, f"non-broadcastable output operand with shape {tuple(array.shape.as_list())} doesn't "
                              f"match the broadcast shape {tuple(result.shape.as_list())}", kind="ValueError")
    if result.dtype != array.dtype:
        result = cfnb.cast(result, array.dtype)
    cell.numpy_ops.add(result.op)  # an array: plain Python holds it as numpy
    return result
