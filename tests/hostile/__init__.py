"""The hostile-input suite (issue 18): GraphDefs from a stranger (graph_def_cases.py, test_graph_defs.py), hostile
runs (run_cases.py, test_runs.py) and hostile `%%whileloop` cells (test_magic_cells.py), with TensorFlow 2.21's
answers recorded by record_hostile.py (hostile_tf.json). Every case has a timeout: hostile input may fail, never hang.
"""
import _thread
import contextlib
import sys
import threading
import time


def _running(thread_id, code):
    """True while the thread `thread_id` is inside a call of `code` (a function's code object)."""
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def ctrl_c_after(seconds, inside=None):
    """A KeyboardInterrupt in the main thread after `seconds`, as Ctrl-C (the notebook's interrupt button) gives.

    With `inside` (a function, e.g. `Session.run`), the seconds count from when the main thread is first seen in it:
    on a loaded machine the main thread may wait longer than `seconds` to come back from starting this thread, and
    an interrupt landing there, before the block's `pytest.raises`, would stop pytest itself."""
    main = threading.get_ident()
    done = threading.Event()

    def interrupt():
        give_up = time.monotonic() + 30.0
        while inside is not None and not _running(main, inside.__code__) and time.monotonic() < give_up:
            if done.wait(0.001):
                return
        if not done.wait(seconds):
            _thread.interrupt_main()

    thread = threading.Thread(target=interrupt, name="ctrl-c", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
