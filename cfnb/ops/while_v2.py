"""Functional `While` (control flow v2). Not built yet: see the project's issue on functional control flow."""


def while_loop(cond, body, loop_vars, **kwargs):
    raise NotImplementedError("Functional control flow (a `While` op, control flow v2) is not implemented in "
                              "cfnb yet; call cfnb.disable_control_flow_v2() to build the lowered form.")
