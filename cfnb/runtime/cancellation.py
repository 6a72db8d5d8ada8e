"""A run's deadline and its cancellation: TensorFlow's CancellationManager (core/framework/cancellation.h) with the
step's timeout (`DirectSession::RunInternal`, `RunOptions.timeout_in_ms`, `ConfigProto.operation_timeout_in_ms`).

`Session.run` makes one `StepCancellation` as it starts, so the deadline covers the whole run: pruning, lowering,
compiling and running. Each phase asks `check()` every so often; the executors ask it every 1024 firings, a strict
While before every iteration, the static schedule before every iteration of a loop. `Session.close()` from another
thread cancels every run under way (`DirectSession::Close` calls `StartCancel`): `start_cancel` records the error
and calls what each running part registered (a partitioned run aborts its rendezvous, which wakes every waiting
device; the static schedule raises a flag its loops test), and the run raises TensorFlow's CancelledError.
"""
import threading
import time

from ..framework import errors


class StepCancellation:
    """One run's cancellation and deadline (TensorFlow's `CancellationManager` with the step's timeout): made by
    `Session.run` as it starts, asked by every phase through `check()`, cancelled by `Session.close()`."""
    def __init__(self, deadline=None):
        self.deadline = deadline   # a time.monotonic() value, or None for no deadline
        self.error = None          # the OpError a cancelled run raises
        self.thread = threading.get_ident()
        self._lock = threading.Lock()
        self._callbacks = {}
        self._next_token = 0

    @classmethod
    def for_timeout(cls, timeout_in_ms):
        """The step of a run whose deadline is `timeout_in_ms` from now (no deadline for 0 or None)."""
        return cls(time.monotonic() + timeout_in_ms / 1000.0 if timeout_in_ms else None)

    def register_callback(self, callback):
        """Call `callback()` when the step is cancelled (now, if it already is); returns a token for
        `deregister_callback` (TensorFlow's RegisterCallback)."""
        with self._lock:
            if self.error is None:
                self._next_token += 1
                self._callbacks[self._next_token] = callback
                return self._next_token
        callback()
        return None

    def deregister_callback(self, token):
        """Forget a callback registered with `register_callback` (TensorFlow's `DeregisterCallback`), once the part
        that registered it is done."""
        with self._lock:
            self._callbacks.pop(token, None)

    def start_cancel(self, message):
        """Cancel the step: later checks raise CancelledError(message), and every registered callback runs once."""
        with self._lock:
            if self.error is not None:
                return
            self.error = errors.CancelledError(None, None, message)
            callbacks, self._callbacks = list(self._callbacks.values()), {}
        for callback in callbacks:
            callback()

    def check(self, op=None, where=""):
        """Raise CancelledError once the step is cancelled, DeadlineExceededError once its deadline has passed."""
        if self.error is not None:
            raise errors.CancelledError(None, op, self.error.message)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise errors.DeadlineExceededError(None, op, f"Timed out waiting for notification{where}")
