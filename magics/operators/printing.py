"""`print(...)` and f-strings in a cell (converters/calls.py, converters/fstrings.py).

`print(...)` becomes a print op (`cfnb.print`, Python's formatting) that runs when the graph runs: on every
iteration inside a loop, in program order (operators/effects.py orders them). An f-string with a graph value in
it is formatted by that print op; without one it is the string itself.
"""
import sys

import cfnb

from ..errors import CellError
from .accumulators import Accumulator
from .effects import effect


class FString:
    """An f-string with graph values in it: formatted when the graph runs (by a print op)."""

    def __init__(self, parts):
        self.parts = parts   # strings, and (value, conversion, spec) for each {...}

    def pieces(self, line):
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value, _conversion, spec = part
            if isinstance(value, cfnb.Tensor):
                if spec:
                    raise CellError(line, f"the format '{{...:{spec}}}' of a graph value cannot be applied while the "
                                          f"graph runs: print the value as it is, or round(...) it first")
                out.append(value)
            else:
                out.append(format(value, spec))
        return out

    def python(self, line):
        """The string itself, when no graph value is in it; else refused outside print."""
        pieces = self.pieces(line)
        if any(isinstance(p, cfnb.Tensor) for p in pieces):
            raise CellError(line, "an f-string with a graph value can only be printed (its text exists only when "
                                  "the graph runs)")
        return "".join(pieces)


def fstring(cell, parts, line):
    return FString(list(parts))


def print_(cell, line, *args, sep=" ", end="\n", file=None, flush=False):
    pieces = []
    for k, a in enumerate(args):
        if k:
            pieces.append(sep)
        if isinstance(a, FString):
            pieces.extend(a.pieces(line))
        elif isinstance(a, Accumulator):
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
