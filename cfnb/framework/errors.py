"""Run-time errors, named as TensorFlow names them (`tf.errors.*`).

Each carries the node it came from; the executor adds the frame and iteration, so a student sees
*where in the loop* something went wrong: `... [[node while/truediv, frame while/while_context,
iteration 3]]`.
"""


class OpError(Exception):
    def __init__(self, node_def, op, message):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self):
        return self.message


class CancelledError(OpError):
    pass


class InvalidArgumentError(OpError):
    pass


class DeadlineExceededError(OpError):
    pass


class NotFoundError(OpError):
    pass


class FailedPreconditionError(OpError):
    pass


class OutOfRangeError(OpError):
    pass


class UnimplementedError(OpError):
    pass


class InternalError(OpError):
    pass


class ResourceExhaustedError(OpError):
    pass


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation a symbolic tensor cannot support while the graph is being built, such as
    iterating over it (TensorFlow's `tf.errors.OperatorNotAllowedInGraphError`)."""


class UnsupportedNumpyError(TypeError):
    """A numpy function or method applied to a symbolic tensor that has no graph form in cfnb.

    `function` names it (`"numpy.linalg.inv"`, `"Tensor.item"`); the message says what to write
    instead. Raised by the numpy dispatch protocols on Tensor (cfnb/ops/numpy_dispatch.py) before
    numpy itself runs, so no traceback comes from inside numpy."""

    def __init__(self, function, message):
        super().__init__(message)
        self.function = function
