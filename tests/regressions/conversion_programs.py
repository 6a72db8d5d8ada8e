"""Programs for how values become tensors, and for the default session, written once for `tensorflow.compat.v1`
and cfnb.

A program is `def name(tf): ... return fetches`, `fetches` a dict of Tensors and plain Python values (a key
`INIT` names an op run first, a variables' initializer). `record_conversion.py` runs each under TensorFlow 2.21
and stores in conversion_tf.json the values and dtypes it fetched, or the error it raised (its type, whether it
came while building or while running, and its message); `test_conversion.py` runs them under cfnb and compares.
An error must have TensorFlow's type and phase, and its message must contain the part the program names with
`@program(match=...)` (the rest names objects by address), or else equal TensorFlow's whole message.

Grouped as the review listed them: a number is no string (and text no number); a list holding tensors converts
by packing, cast to a requested dtype (TensorFlow's `_autopacking_conversion_function`); a Variable converts
only to its own dtype; the conversion registry's rules (`tensor_conversion_registry.convert`); the default
session stack, `Tensor.eval` and `Operation.run`.
"""
from . import (  # noqa: F401 - they register their programs
    conversion_programs_packing,
    conversion_programs_registry,
    conversion_programs_sessions,
    conversion_programs_text,
)
from .conversion_registry import INIT, MATCH, PROGRAMS, run_program

__all__ = ["INIT", "MATCH", "PROGRAMS", "run_program"]
