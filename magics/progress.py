"""A live line while a cell runs for more than a second: each running loop and its iteration.

A daemon thread wakes four times a second and reads `Session.progress()` (the static schedule's
own frame and iteration counters, so the loop itself pays nothing for it). In a notebook the line
is a display that is updated in place; on a terminal it is a text line on stderr, rewritten with
`\\r`. The interrupt button raises KeyboardInterrupt in the main thread as usual; the thread only
reads.
"""
import sys
import threading
import time

DELAY = 1.0     # seconds before the line appears
PERIOD = 0.25   # seconds between updates


class Progress:
    def __init__(self, session, describe, notebook):
        self.session = session
        self.describe = describe      # [(frame, iteration)] -> text
        self.notebook = notebook
        self.shown = False
        self.last = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._handle = None

    def __enter__(self):
        self._start = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, exc_type, *exc):
        self._stop.set()
        self._thread.join()
        if self.shown:
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
        while not self._stop.is_set():
            running = self.session.progress()
            if running:
                self._show(self.describe(running))
            self._stop.wait(PERIOD)

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
