"""Errors a student can read: the cell's own lines, the failing one marked, and one sentence.

Every problem in a `%%whileloop` cell surfaces as a `CellError`: a construct the graph cannot hold
(found while building), a Python error raised by the cell's code while it was being built (a
NameError, a TypeError from a call), or an error of the graph while it ran (an index out of range
in iteration 7 of the loop on line 2). IPython shows an exception through its
`_render_traceback_` when it has one, so the student sees the cell and the message, and no frame
of magics/ or cfnb/.
"""
import re
import traceback

from IPython.core.error import UsageError

from .messages import for_student

CONTEXT = 2  # lines shown either side of the failing one


class CellError(UsageError):
    """A problem in the student's cell, reported against its line (0: the cell as a whole)."""

    def __init__(self, line, message, kind=None):
        message = for_student(message)  # the cell's words only: no op or tensor names (messages.py)
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message
        self.kind = kind          # the Python error's name, when the cell's code raised one
        self.source = None

    def _render_traceback_(self):
        head = f"{self.kind or 'Error'} in %%whileloop cell"
        lines = [head]
        if self.source is not None and self.line:
            cell = self.source.splitlines()
            lo, hi = max(1, self.line - CONTEXT), min(len(cell), self.line + CONTEXT)
            for n in range(lo, hi + 1):
                mark = "---->" if n == self.line else "     "
                lines.append(f"{mark} {n:3d} {cell[n - 1]}")
        lines.append(f"line {self.line}: {self.message}" if self.line else self.message)
        return lines


def from_python_error(error, filename):
    """A CellError for an exception the cell's own code raised: the deepest frame in the cell
    gives the line; frames of magics/ and cfnb/ are dropped."""
    line = 0
    for frame, lineno in traceback.walk_tb(error.__traceback__):
        if frame.f_code.co_filename == filename:
            line = lineno
    message = str(error) if not isinstance(error, KeyError) else f"key {error}"
    kind = type(error).__name__
    unbound = re.match(r"cannot access (?:local|free) variable '(\w+)' where it is not associated", message)
    if unbound:  # the cell runs as a function: a cell is module code, whose unbound name is a NameError
        kind, message = "NameError", f"name '{unbound.group(1)}' is not defined"
    return CellError(line, message, kind=kind)
