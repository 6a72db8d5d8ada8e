"""cfnb: TensorFlow's graph-mode control flow, re-implemented on numpy so that it can be watched.

`import cfnb as tf` runs the tf.compat.v1 graph-mode programs it covers unchanged: build a graph
with placeholders, constants, math ops, `cond` and `while_loop`, then `Session.run` it. With control
flow v1 (the default) `cond`/`while_loop` emit Switch/Merge/Enter/Exit/NextIteration; the
tagged-token executor runs them by TensorFlow's own rules.

In IPython/Jupyter, `%load_ext cfnb` registers the `%%whileloop` cell magic.
"""
import sys as _sys

from . import nn
from .framework import dtypes, errors, nest
from .framework.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool_,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from .framework.graph_collections import (
    GraphKeys,
    add_to_collection,
    add_to_collections,
    get_collection,
    get_collection_ref,
)
from .framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from .framework.ops import (
    Graph,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    device,
    get_default_graph,
    name_scope,
    register_tensor_conversion_function,
    reset_default_graph,
)
from .framework.registry import RegisterGradient
from .framework.tensor_shape import Dimension, TensorShape, dimension_value
from .framework.tensor_spec import TensorSpec
from .gradients import gradients, hessians
from .graph_def import GraphDef, import_graph_def, io, summary, train  # the GraphDef bridge (tensorboard extra)
from .ops import autopacking as _autopacking  # noqa: F401 - registers the list-to-Pack conversion
from .ops import bitwise_ops as bitwise  # tf.bitwise: bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, ...
from .ops import (
    int_overflow,  # noqa: F401 - Python-int arithmetic raises OverflowError rather than wrap
    numpy_dispatch,  # noqa: F401 - installs numpy's protocols and ndarray's methods on Tensor
    python_division,  # noqa: F401 - Python-float division by zero raises ZeroDivisionError rather than give inf
)
from .ops.arg_reductions import argmax, argmin
from .ops.array_ops import (
    cast,
    constant,
    expand_dims,
    fill,
    identity,
    newaxis,
    no_op,
    ones,
    ones_like,
    placeholder,
    placeholder_with_default,
    range,
    rank,
    reshape,
    shape,
    size,
    squeeze,
    stop_gradient,
    tile,
    transpose,
    where,
    where_v2,
    zeros,
    zeros_like,
)
from .ops.array_ops_stack import concat, stack, unstack
from .ops.complex_ops import abs, conj, imag, real
from .ops.cond import cond
from .ops.cond_v2 import switch_case
from .ops.control_flow_case import case
from .ops.control_flow_ops import group, tuple_, with_dependencies
from .ops.control_flow_v2_toggles import (
    control_flow_v2_enabled,
    disable_control_flow_v2,
    enable_control_flow_v2,
)
from .ops.functional_ops import foldl, foldr, scan
from .ops.linalg_ops import norm
from .ops.logging_ops import Assert, Print
from .ops.logging_ops import print_v2 as print  # noqa: A001 - `tf.print`
from .ops.map_fn import map_fn
from .ops.math_ops import (
    add,
    add_n,
    cos,
    div,
    div_no_nan,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    round,  # noqa: A004 - tf.round
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    subtract,
    tanh,
    truediv,
)
from .ops.script_ops import py_func
from .ops.slicing_ops import gather, slice, strided_slice  # noqa: A004 - TensorFlow's names
from .ops.state_ops import assign_add, assign_sub, scatter_add, scatter_update
from .ops.tensor_array_ops import TensorArray
from .ops.tf_graph_ops import cumprod, cumsum
from .ops.variable_scope import AUTO_REUSE, VariableScope, get_variable, get_variable_scope, variable_scope
from .ops.variables import (
    Variable,
    assign,
    constant_initializer,
    global_variables,
    global_variables_initializer,
    ones_initializer,
    random_normal_initializer,
    trainable_variables,
    variables_initializer,
    zeros_initializer,
)
from .ops.while_loop import while_loop
from .passes.rewriter_config import RewriterConfig
from .runtime.config_options import GraphOptions, OptimizerOptions
from .runtime.gpu_options import GPUOptions
from .runtime.session import ConfigProto, RunMetadata, RunOptions, Session, get_default_session

bool = bool_  # noqa: A001 - `tf.bool`
tuple = tuple_  # noqa: A001 - `tf.tuple`

__version__ = "0.1.0"


class _Compat:
    """`cfnb.compat.v1` is cfnb itself, so `tf.compat.v1.while_loop` works after `import cfnb as tf`."""

    @property
    def v1(self):
        return _sys.modules[__name__]


compat = _Compat()


def load_ipython_extension(ipython):
    """`%load_ext cfnb`: register the notebook layer's magics (it is imported only here)."""
    from magics import load_ipython_extension as _load
    _load(ipython)
