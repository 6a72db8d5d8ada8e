"""`enable_control_flow_v2()` / `disable_control_flow_v2()`: which form cond/while_loop build.

v1 (the default, as in TF1): Switch/Merge/Enter/Exit/NextIteration. v2: one functional
`If`/`While` op whose branches/body are functions in the graph's library.
"""
_ENABLED = [False]


def enable_control_flow_v2():
    _ENABLED[0] = True


def disable_control_flow_v2():
    _ENABLED[0] = False


def control_flow_v2_enabled():
    return _ENABLED[0]
