"""The default session stack: `with sess.as_default():` pushes, `Tensor.eval()` reads.

TensorFlow keeps this stack in the framework (`framework/stack.py`: `_default_session_stack`,
`default_session`, `get_default_session`, which `ops.py` re-exports) and `session.py` pushes onto it, so that a
Tensor can find the session that runs it without the framework importing the runtime. cfnb does
the same: the runtime's Session is the only thing pushed here.
"""
import contextlib

_default_session_stack = []


def get_default_session():
    """The innermost session entered with `with sess:` or `sess.as_default()`, or None."""
    return _default_session_stack[-1] if _default_session_stack else None


def push_session(session):
    """Make `session` the default for `Tensor.eval`/`Operation.run` until it is popped (what TensorFlow's
    `Session.as_default` does on entering `with sess:`)."""
    _default_session_stack.append(session)


def pop_session(session):
    """Leave `session`'s block: it must be the innermost one (TensorFlow's `DefaultStack.get_controller`
    with nesting enforced pops the top and checks it; removing the first copy instead would leave the
    wrong session on top after `with s1: with s2: with s1:`)."""
    if not _default_session_stack:  # emptied meanwhile (TensorFlow: the stack may have been reset)
        return
    if _default_session_stack[-1] is not session:
        raise AssertionError(f"Nesting violated for default stack of {type(session)} objects")
    _default_session_stack.pop()


@contextlib.contextmanager
def default_session(session):
    """TensorFlow's `ops.default_session(session)`: `session` is the default inside the block."""
    push_session(session)
    try:
        yield session
    finally:
        pop_session(session)


def eval_using_default_session(tensors, feed_dict, graph, session=None):
    """`Tensor.eval()`: run `tensors` of `graph` in `session`, or in the default session (TensorFlow's
    `ops._eval_using_default_session`); a session on another graph is refused by name."""
    session = _session_for(
        graph, session,
        "Cannot evaluate tensor using `eval()`: No default session is registered. Use `with sess.as_default()` or "
        "pass an explicit session to `eval(session=sess)`",
        "Cannot use the default session to evaluate tensor: the tensor's graph is different from the session's "
        "graph. Pass an explicit session to `eval(session=sess)`.",
        "Cannot use the given session to evaluate tensor: the tensor's graph is different from the session's graph.")
    return session.run(tensors, feed_dict)


def run_using_default_session(operation, feed_dict, graph, session=None):
    """`Operation.run()`: as `eval_using_default_session`, for an op (TensorFlow's
    `ops._run_using_default_session`)."""
    session = _session_for(
        graph, session,
        "Cannot execute operation using `run()`: No default session is registered. Use `with sess.as_default():` "
        "or pass an explicit session to `run(session=sess)`",
        "Cannot use the default session to execute operation: the operation's graph is different from the "
        "session's graph. Pass an explicit session to run(session=sess).",
        "Cannot use the given session to execute operation: the operation's graph is different from the session's "
        "graph.")
    session.run(operation, feed_dict)


def _session_for(graph, session, no_default, default_elsewhere, given_elsewhere):
    """`session`, or the default one, when it runs `graph`; otherwise TensorFlow's ValueError with these texts."""
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(no_default)
        if session.graph is not graph:
            raise ValueError(default_elsewhere)
    elif session.graph is not graph:
        raise ValueError(given_elsewhere)
    return session
