"""Functional `If` (control flow v2). Not built yet: see the project's issue on functional control flow."""


def cond_v2(pred, true_fn, false_fn, strict=False, name=None):
    raise NotImplementedError("Functional control flow (an `If` op, control flow v2) is not implemented in cfnb "
                              "yet; call cfnb.disable_control_flow_v2() to build the lowered form.")
