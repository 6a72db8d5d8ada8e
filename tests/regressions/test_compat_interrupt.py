"""SIGINT stops an endless loop on every execution path (the deadline cases are in compat_cases.py)."""
import os
import signal
import threading

import pytest

import cfnb as tf

PATHS = {"static": {}, "executor": {"static_schedule": False}, "strict": {"lower_functional_ops": False}}


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="needs POSIX signals")
@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("path", list(PATHS))
def test_sigint_stops_an_endless_loop(version, path):
    if version == "v2":
        tf.enable_control_flow_v2()
    r = tf.while_loop(lambda i: i >= 0, lambda i: (i + 1) % 5, [tf.constant(0)])
    sess = tf.Session(config=tf.ConfigProto(**PATHS[path]))
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sess.run(r)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
