"""Event files, TensorBoard's input: TensorFlow's `tf.compat.v1.summary.FileWriter` and
`tf.compat.v1.train.summary_iterator`.

An event file is a sequence of `Event` protobufs in TFRecord framing (length, masked CRC-32C, data, CRC); the
first event carries `file_version: "brain.Event:2"`, a graph is an event whose `graph_def` field holds the
serialized GraphDef. TensorBoard's own writer (`tensorboard.summary.writer.event_file_writer`) does the framing,
so the files are the ones TensorBoard's graph dashboard reads; frames appear there as name scopes because
cfnb names a loop's ops `while/...`, as TensorFlow does.
"""
import time

from .io import as_graph_def
from .protos import pb


class FileWriter:
    """Write events to a new file in `logdir` (`events.out.tfevents.<time>.<host>`); with `graph`, the graph's
    GraphDef goes in first, as TensorFlow's FileWriter does."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, filename_suffix=None, session=None,
                 graph_def=None):
        pb()  # the clear ImportError, before TensorBoard's own
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
        self._writer = EventFileWriter(logdir, max_queue_size=max_queue, flush_secs=flush_secs,
                                       filename_suffix=filename_suffix or "")
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def get_logdir(self):
        """The directory the event file is written in (TensorFlow's `FileWriter.get_logdir`)."""
        return self._writer.get_logdir()

    def add_event(self, event):
        """Write one Event protobuf, stamped with the wall time if it has none (TensorFlow's `FileWriter.add_event`)."""
        if not event.wall_time:
            event.wall_time = time.time()
        self._writer.add_event(event)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Write the graph (a cfnb Graph or a GraphDef) as an event TensorBoard's graph dashboard reads."""
        graph_def = as_graph_def(graph if graph is not None else graph_def)
        event = pb().Event(graph_def=graph_def.SerializeToString())
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_summary(self, summary, global_step=None):
        """A `Summary` protobuf (or its serialized bytes) at `global_step`."""
        p = pb()
        if isinstance(summary, bytes):
            summary = p.Summary.FromString(summary)
        event = p.Event(summary=summary)
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def flush(self):
        """Write buffered events to disk, so TensorBoard sees them now (TensorFlow's `FileWriter.flush`)."""
        self._writer.flush()

    def close(self):
        """Flush and close the event file (TensorFlow's `FileWriter.close`)."""
        self._writer.close()

    def reopen(self):
        """Open a new event file after `close` (TensorFlow's `FileWriter.reopen`)."""
        self._writer.reopen()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def summary_iterator(path):
    """Every Event in the event file at `path`, in order (`tf.compat.v1.train.summary_iterator`)."""
    p = pb()
    from tensorboard.backend.event_processing import event_file_loader
    for event in event_file_loader.RawEventFileLoader(path).Load():
        yield p.Event.FromString(event)
