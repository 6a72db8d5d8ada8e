"""Op definitions and their Python wrappers, control-flow builders included.

Importing this package registers every op type (gradient tables rely on that)."""
from . import (  # noqa: F401
    array_ops,
    cond_v2,
    control_flow_case,
    control_flow_ops,
    data_flow_ops,
    functional_ops,
    list_ops,
    logging_ops,
    map_fn,
    math_ops,
    sendrecv_ops,
    tensor_array_ops,
    variables,
    while_v2,
)
