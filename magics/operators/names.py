"""The student's names on the ops the magic builds, for drawings (the contract with cfnb/viz/, which carries
them onto the lowered Enter/Merge/Switch/Exit nodes):

  * every `While` op gets `_cfnb_var_names`: one name per input, in order (`x`, `d['pos']`, `xs` for a list's
    TensorArray); the loop's own inputs and the magic's flags start with `.` (`.loop_counter`,
    `.maximum_iterations`, `.count` of a `for`, `.broke`, `.continued`, `.defined_a`), and a value the body reads
    from outside is named after its op (a notebook value's op is named after its Python name);
  * every `If` op gets `_cfnb_out_names`: one name per output, likewise.
"""
_HIDDEN = {"__k_": ".count", "__brk_": ".broke", "__cont_": ".continued", "__iter_": ".items"}


def display_name(name):
    """`x`, or `.count` for the converters' `__k_3`."""
    for prefix, shown in _HIDDEN.items():
        if name.startswith(prefix):
            return shown
    return name


def flat_names(name, value):
    """One name per tensor a loop or a cond carries for `value` (a dict's items, a tuple's parts)."""
    if isinstance(value, dict):
        return [n for key, v in value.items() for n in flat_names(f"{name}[{key!r}]", v)]
    if isinstance(value, (tuple, list)) and not hasattr(value, "_flow_for_control_flow"):
        return [n for k, v in enumerate(value) for n in flat_names(f"{name}[{k}]", v)]
    return [display_name(name)]


def new_op(graph, seen, types):
    """The op of one of `types` that a while_loop or cond just added to `graph` (after its first `seen` ops)."""
    return next((op for op in graph._ops[seen:] if op.type in types), None)


def name_inputs(op, names):
    """`_cfnb_var_names` of a While op: `names` for its loop variables, then its captured inputs."""
    if op is None:
        return
    names = [".loop_counter", ".maximum_iterations"] + list(names)
    names += [_outside_name(t) for t in op.inputs[len(names):]]
    op._set_attr("_cfnb_var_names", names[:len(op.inputs)])


def name_outputs(op, names):
    """`_cfnb_out_names` of an If op: one name per output."""
    if op is not None and len(names) == len(op.outputs):
        op._set_attr("_cfnb_out_names", list(names))


def _outside_name(tensor):
    return tensor.op.name if tensor.value_index == 0 else f"{tensor.op.name}:{tensor.value_index}"
