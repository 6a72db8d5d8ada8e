"""The hostile-input suite (issue 18): GraphDefs from a stranger (graph_def_cases.py, test_graph_defs.py), hostile
runs (run_cases.py, test_runs.py) and hostile `%%whileloop` cells (test_magic_cells.py), with TensorFlow 2.21's
answers recorded by record_hostile.py (hostile_tf.json). Every case has a timeout: hostile input may fail, never hang.
"""
import _thread
import contextlib
import threading


@contextlib.contextmanager
def ctrl_c_after(seconds):
    """A KeyboardInterrupt in the main thread after `seconds`, as Ctrl-C (the notebook's interrupt button) gives."""
    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
