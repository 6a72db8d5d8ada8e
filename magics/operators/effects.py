"""Side effects in program order: a cell's prints (and the loops and conds that print) run in the order the
cell wrote them, as TensorFlow's automatic control dependencies order a tf.function's stateful ops."""
import cfnb


def effect(cell, op):
    """Order `op` after the scope's previous effect, and record it."""
    scope = cell.effects[-1]
    if scope:
        op._add_control_input(scope[-1])
    elif cell.depth == 0 and cell.top_effects:
        op._add_control_input(cell.top_effects[-1])
    scope.append(op)
    if len(cell.effects) == 1:
        cell.top_effects.append(op)


def effect_done(cell, op):
    """A loop or cond whose functions print: it is an effect of the enclosing scope."""
    if op is not None:
        effect(cell, op)


def tie(outs, last):
    """Outputs that wait for `last`: a function's prints run before it returns."""
    tied = []
    with cfnb.control_dependencies([last]):
        for o in outs:
            tied.append(cfnb.identity(o) if isinstance(o, cfnb.Tensor) else o)
    return tied


def done(last):
    with cfnb.control_dependencies([last]):
        return cfnb.constant(True)
