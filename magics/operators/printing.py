"""`print(...)`, f-strings and `str(x)` in a cell (converters/calls.py, converters/fstrings.py).

`print(...)` becomes a print op (`cfnb.print`, Python's formatting) that runs when the graph runs: on every
iteration inside a loop, in program order (operators/effects.py orders them). An f-string or `str(x)` with a graph
value in it is a string tensor (a StringFormat op, TensorFlow's `tf.strings.format`, formatting each value as
Python does); without one it is Python's own string. String tensors add (`s + "*"`: TensorFlow's `Add` of
strings), so a string can grow in a loop.
"""
import sys

import cfnb
from cfnb.framework import dtype_rules
from cfnb.ops.string_format import Formatted, string_format

from ..errors import CellError
from .accumulators import Accumulator
from .effects import effect


def fstring(cell, parts, line):
    """An f-string (converters/fstrings.py: its text and (value, conversion, spec) parts): Python's own string when
    no part is a graph value, else a string tensor formatted when the graph runs (a StringFormat op formatting
    each value as Python does, format specs included: `f"{x:.3f}"`)."""
    pieces = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(part)
            continue
        value, conversion, spec = part
        conversion = "" if conversion == -1 else chr(conversion)
        if isinstance(value, cfnb.Tensor):
            pieces.append(Formatted(value, conversion, spec, python=dtype_rules.is_weak(value)))
        else:
            value = {"r": repr, "s": str, "a": ascii}[conversion](value) if conversion else value
            pieces.append(format(value, spec))
    if not any(isinstance(p, Formatted) for p in pieces):
        return "".join(pieces)
    return to_string(cell, pieces)


def to_string(cell, pieces):
    """A string tensor of `pieces` (strings, tensors, Formatted tensors) as Python formats them: `str(x)` of a
    graph value, an f-string."""
    text = string_format(pieces, sep="", formatter="python", summarize=-1)
    cell.python_ops.add(text.op)  # a Python str
    return text


def print_(cell, line, *args, sep=" ", end="\n", file=None, flush=False):
    pieces = []
    for k, a in enumerate(args):
        if k:
            pieces.append(sep)
        if isinstance(a, Accumulator):
            raise CellError(line, "print of a list grown in a loop: print it after the cell, or print its "
                                  "items as they are appended")
        else:
            pieces.append(a)
    if not any(isinstance(p, cfnb.Tensor) for p in pieces) and cell.depth == 0 and not cell.probing:
        pieces = [str(p) for p in pieces]
    if cell.probing:
        return None
    stream = file if file is not None else sys.stdout
    op = cfnb.print(*pieces, output_stream=stream, sep="", end=end, formatter="python", summarize=-1)
    effect(cell, op)
    return None
