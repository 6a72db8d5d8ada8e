"""Op definitions and their Python wrappers, control-flow builders included.

Importing this package registers every op type (gradient tables rely on that), and what the op
layer lends the framework: the Python-value and list conversions (array_ops, autopacking), the
input-context check (control_flow_util) and numpy's promotion policy (numpy_rules)."""
from . import (  # noqa: F401
    array_ops,
    array_ops_stack,
    autopacking,
    bitwise_ops,
    cond,
    cond_v2,
    control_flow_case,
    control_flow_ops,
    control_flow_util,
    data_flow_ops,
    functional_ops,
    list_ops,
    logging_ops,
    map_fn,
    math_ops,
    numpy_rules,
    script_ops,
    sendrecv_ops,
    slicing_ops,
    tensor_array_ops,
    variables,
    while_context,
    while_loop,
    while_v2,
)
