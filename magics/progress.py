"""A live line while a cell runs for more than a second: each running loop and its iteration.

A daemon thread wakes four times a second and reads `Session.progress()` (the static schedule's
own frame and iteration counters, so the loop itself pays nothing for it). In a notebook the line
is a display that is updated in place; on a terminal it is a text line on stderr, rewritten with
`\\r`. The interrupt button raises KeyboardInterrupt in the main thread as usual; the thread only
reads.
"""
import _thread
import sys
import threading
import time

DELAY = 1.0     # seconds before the line appears
PERIOD = 0.25   # seconds between updates


class Progress:
    """The live line of one cell's run. Its watcher thread is started without waiting for it to run, and never
    joined: on a busy machine waiting for a new thread to be scheduled, at the start and again at the end, cost a
    cell 2-4 ms (benchmarks/README.md). A lock keeps the two apart instead: once `__exit__` holds it with the run
    marked done, the watcher shows nothing more, and it ends when it next wakes."""

    def __init__(self, session, describe, notebook):
        self.session = session
        self.describe = describe      # [(frame, iteration)] -> text
        self.notebook = notebook
        self.shown = False
        self.last = ""
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._handle = None

    def __enter__(self):
        self._start = time.monotonic()
        _thread.start_new_thread(self._watch, ())
        return self

    def __exit__(self, exc_type, *exc):
        self._stop.set()
        with self._lock:  # a line being shown now is finished first; none comes after
            shown = self.shown
        if shown:
            seconds = time.monotonic() - self._start
            how = "stopped" if exc_type is not None else "finished"
            final = f"%%whileloop {how} after {seconds:.1f} s ({self.last.split(': ', 1)[-1]})"
            if self.notebook:  # the line stays in the saved notebook: say how the run ended
                self._handle.update({"text/plain": final}, raw=True)
            else:
                sys.stderr.write("\n")
        return False

    def _watch(self):
        if self._stop.wait(DELAY):
            return
        while True:
            running = self.session.progress()
            with self._lock:
                if self._stop.is_set():
                    return
                if running:
                    self._show(self.describe(running))
            if self._stop.wait(PERIOD):
                return

    def _show(self, text):
        self.last = text
        if self.notebook:
            from IPython.display import display
            bundle = {"text/plain": text}
            if self._handle is None:
                self._handle = display(bundle, raw=True, display_id=True)
            else:
                self._handle.update(bundle, raw=True)
        else:
            sys.stderr.write("\r" + text)
            sys.stderr.flush()
        self.shown = True
