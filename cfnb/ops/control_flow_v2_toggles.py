"""`enable_control_flow_v2()` / `disable_control_flow_v2()`: which form cond/while_loop build.

v1 (the default, as in TF1): Switch/Merge/Enter/Exit/NextIteration. v2: one functional
`If`/`While` op whose branches/body are functions in the graph's library.
"""
_ENABLED = [False]


def enable_control_flow_v2():
    """`tf.compat.v1.enable_control_flow_v2`: from now on `cond` and `while_loop` build functional If/While ops
    (cond_v2.py, while_v2.py) instead of Switch/Merge/Enter/Exit/NextIteration."""
    _ENABLED[0] = True


def disable_control_flow_v2():
    """`tf.compat.v1.disable_control_flow_v2`: back to v1's Switch/Merge/Enter/Exit/NextIteration."""
    _ENABLED[0] = False


def control_flow_v2_enabled():
    """`tf.compat.v1.control_flow_v2_enabled`: which form `cond` and `while_loop` build now."""
    return _ENABLED[0]
