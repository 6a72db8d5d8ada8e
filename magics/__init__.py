"""The notebook layer: the `%%whileloop` cell magic (registered by `%load_ext cfnb`).

A cell of ordinary Python becomes a cfnb graph: converters/ rewrite its source, one module per construct, as
AutoGraph's converters do; operators/ are what the converted cell calls while its Python runs once, building the
graph; cell.py runs it and hands back the values plain Python would leave, of the same types (values.py);
errors.py and messages.py say what went wrong in the cell's own words; progress.py is the live line; result.py
the object a cell leaves (`_loop`), and explorer.py its widget. Nothing in `cfnb/` imports this package.
"""
import gc
import warnings
from types import SimpleNamespace

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, kwds, magic_arguments, parse_argstring

from .cell import TRACE_LIMIT, CellInterrupted, build, builtins_for_cells, parse_grads, run_cell  # noqa: F401
from .errors import CellError


@magics_class
class WhileLoopMagics(Magics):
    @magic_arguments()
    @kwds(usage="%%whileloop [options]")
    @argument("--grad", action="append", default=[], metavar="OUT:IN[,IN...]",
              help="also compute d OUT / d IN (repeatable), with respect to the cell's own assignment of IN; "
                   "results in grads['dOUT/dIN'] of the result object")
    @argument("--form", choices=["functional", "lowered"], default="lowered",
              help="which control flow runs: lowered (v1 primitives and v1 gradients, the default) or "
                   "functional (If/While ops, lowered when run); both views are always available")
    @argument("--dtypes", choices=["numpy", "tensorflow"], default="numpy",
              help="numpy (default): Python ints are int64, floats float64, numpy's promotion; "
                   "tensorflow: TensorFlow's rules (int32, float32)")
    @argument("--parallel-iterations", type=int, default=10, help="while_loop's parallel_iterations (default 10)")
    @argument("--maximum-iterations", type=int, default=None,
              help="while_loop's maximum_iterations (a loop it stops early gets a warning)")
    @argument("--swap-memory", action="store_true", help="while_loop's swap_memory")
    @argument("--as", dest="as_name", default="_loop", metavar="NAME",
              help="bind the result object (graphs, values, grads, trace, explorer()) to NAME (default _loop)")
    @argument("--no-display", action="store_true", help="do not display the explorer")
    @cell_magic
    def whileloop(self, line, cell):
        """Run this cell's Python as a graph, as TensorFlow's AutoGraph does, and show it.

        Examples:

            %%whileloop
            total = 0
            for i in range(100_000):
                if i % 3 == 0:
                    continue
                total += i

            %%whileloop --grad v:x
            x = 2.0
            v = x
            while v < 8.0:
                v = v * v

        Each `while` and `for` (over range(...), a numpy array or a tensor) becomes a while_loop,
        each `if` on a tensor a cond; `break`, `continue` and loop `else` work as in Python.
        Afterwards every name the cell assigned holds what plain Python would have left, of the
        same type (Python int/float where Python has them, numpy scalars and arrays where numpy
        made them; a list grown with .append is a Python list).

        Numbers follow Python and numpy: ints are int64, floats float64, numpy's promotion (a Cast
        op shows it); `--dtypes tensorflow` uses TensorFlow's int32/float32 instead.
        What converts: arithmetic, comparisons, bitwise ops, `and`/`or`/`not`, `x if c else y`, indexing
        and slicing by loop variables, numpy functions and array methods on loop values (np.tanh, np.sum,
        np.allclose, A @ b, .copy(), ...), abs/min/max/len/float/int/round/str, math.sqrt/exp/log/...,
        print(...) and f-strings (format specs too), `for` over enumerate/zip of ranges and arrays, a
        `for` over a Python list of arrays or lists (unrolled), list.append and reading the list (xs[-1],
        len(xs)), a[i] = v, x += v in place, the swap a[j], a[j+1] = a[j+1], a[j], dicts and strings as
        loop state, names that share an array (both see a change), a notebook function that prints or
        appends (run on every iteration). Python ints that leave int64 stop the cell (OverflowError).
        What is refused, with the line and what to write instead: return, try, with, global,
        def/lambda/comprehensions (define functions in another cell), bool/sum/sorted of loop values,
        a numpy function with no graph form, np.random/random calls in a loop (draw before the loop),
        a list changed in a loop other than by .append, fancy indices, a view whose items are set, a
        loop variable whose dtype or shape changes (README.md lists them all).
        A cell may instead define `cond`, `body` and `loop_vars`, which are passed to while_loop.
        """
        args = parse_argstring(self.whileloop, line)
        if args.parallel_iterations < 1:
            raise UsageError("--parallel-iterations must be a positive integer")
        if args.maximum_iterations is not None and args.maximum_iterations < 1:
            raise UsageError("--maximum-iterations must be a positive integer")
        options = SimpleNamespace(form=args.form, parallel_iterations=args.parallel_iterations,
                                  maximum_iterations=args.maximum_iterations, swap_memory=args.swap_memory,
                                  grads=parse_grads(args.grad), dtypes=args.dtypes)
        source = self.shell.transform_cell(cell)
        filename = self.shell.compile.cache(source)
        notebook = type(self.shell).__name__ == "ZMQInteractiveShell"
        try:
            result, updates = run_cell(source, self.shell.user_ns, options, filename, notebook)
        except CellError as e:
            e.source = source
            raise e.with_traceback(None) from None
        self.shell.user_ns.update(updates)
        for name in result.deleted:
            self.shell.user_ns.pop(name, None)
        if args.as_name in updates:  # the cell's own name wins, as in plain Python; the result is not kept
            warnings.warn(f"%%whileloop: the cell assigns `{args.as_name}` itself, so the result object is not "
                          f"stored there: use --as NAME to keep it under another name", stacklevel=2)
        else:
            self.shell.user_ns[args.as_name] = result
        return None if args.no_display else result


def load_ipython_extension(ipython):
    """Register `%%whileloop`, and move what the kernel holds at this point out of the garbage collector's way.

    Building a cell's graph allocates tens of thousands of objects, and Python's collector, counting them,
    every few cells runs a full collection that visits every object of the process: in a kernel, some 80,000 of
    IPython's, numpy's and cfnb's own, none of them garbage, for about 8 ms each time on this project's 2-core
    machine (~4 ms a cell on average, a tenth of a fresh 10,000-step cell, benchmarks/magic_item_assignment.py).
    `gc.freeze()` is Python's way to say "these live for good": it moves them to a generation the collector
    no longer visits. Objects made later, every cell's graph included, are collected as before
    (tests/test_magics.py); `gc.unfreeze()` undoes it."""
    ipython.register_magics(WhileLoopMagics)
    gc.collect()  # what is garbage now is collected first, not frozen
    gc.freeze()
