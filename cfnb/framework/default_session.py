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
    _default_session_stack.append(session)


def pop_session(session):
    _default_session_stack.remove(session)


@contextlib.contextmanager
def default_session(session):
    """TensorFlow's `ops.default_session(session)`: `session` is the default inside the block."""
    push_session(session)
    try:
        yield session
    finally:
        pop_session(session)
