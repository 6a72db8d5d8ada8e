"""The op registry: each op type is defined once, with everything the layers above need.

An `OpDef` holds
  * `infer(op)`   -> [(dtype, TensorShape), ...] for the outputs (graph-build time),
  * `kernel(op)`  -> a function of the input values returning the output value (or a tuple
                     when the op has several outputs); called once per node when a graph is
                     compiled, so attributes are read once, not on every firing,
  * `stateful`    -> the op touches state (variables, stacks, TensorArrays) and is never pruned
                     into or cloned; its kernel factory also receives the session's state,
  * `needs_state` -> the kernel factory receives the session's state although the op is not
                     stateful (a StatelessWhile still calls functions through the session),
  * a slot for its gradient, filled by `cfnb.gradients` with `RegisterGradient`.
This mirrors TensorFlow's split between REGISTER_OP (shape function) and REGISTER_KERNEL_BUILDER.
"""

_REGISTRY = {}


class OpDef:
    __slots__ = ("type", "infer", "kernel", "stateful", "multi_output", "grad", "needs_state")

    def __init__(self, type, infer, kernel, stateful=False, multi_output=False, needs_state=False):
        self.type = type
        self.infer = infer
        self.kernel = kernel
        self.stateful = stateful
        self.multi_output = multi_output
        self.needs_state = stateful or needs_state
        self.grad = None


def register_op(type, infer, kernel=None, stateful=False, multi_output=False, needs_state=False):
    """Register an op type: its shape function (`infer`), its kernel and flags (TensorFlow's `REGISTER_OP`
    and `REGISTER_KERNEL_BUILDER` in one). A type registered twice is a KeyError, so two modules never fight over
    one op."""
    if type in _REGISTRY:
        raise KeyError(f"Op type {type!r} is registered twice")
    _REGISTRY[type] = OpDef(type, infer, kernel, stateful, multi_output, needs_state)
    return _REGISTRY[type]


def get_op_def(type):
    """The registered definition of an op type (TensorFlow's `OpRegistry::LookUp`); an unknown type is a
    KeyError naming it."""
    try:
        return _REGISTRY[type]
    except KeyError:
        raise KeyError(f"No op named {type!r} is registered in cfnb") from None


def registered_types():
    """Every registered op type, sorted: what the GraphDef bridge and its tests check against
    TensorFlow's op list."""
    return sorted(_REGISTRY)


class RegisterGradient:
    """Decorator: `@RegisterGradient("Tanh") def _tanh_grad(op, grad): ...`, as in TensorFlow."""

    def __init__(self, op_type):
        self._op_type = op_type

    def __call__(self, fn):
        get_op_def(self._op_type).grad = fn
        return fn


def NotDifferentiable(op_type):  # noqa: N802 - TensorFlow's name
    """Declare that `op_type` has no gradient (TensorFlow's `ops.NotDifferentiable`): `gradients()`
    then gives None through it instead of failing."""
    get_op_def(op_type).grad = "none"


def get_gradient_function(op):
    """The gradient function registered for `op`'s type (TensorFlow's
    `ops.get_gradient_function`), "none" for a NotDifferentiable type, None when there is none."""
    return get_op_def(op.type).grad
