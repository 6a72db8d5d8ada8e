"""Ctrl-C and deadlines in multi-device runs: every device thread stops, the run raises, and the Session runs again.

An endless loop is partitioned across two CPU devices; the run is stopped by a KeyboardInterrupt raised in the
main thread (`_thread.interrupt_main()`, what Ctrl-C does in a notebook), by `RunOptions(timeout_in_ms=...)` or
by `ConfigProto(operation_timeout_in_ms=...)`. Afterwards no device thread may be left running (each would keep
spinning the loop in the background), and a following run of the same Session must give the right answer.
Two placements: the body on CPU:1 (both devices talk through the rendezvous every iteration), and the whole loop
on CPU:0 while CPU:1 has finished its own small part (the looping device never touches the rendezvous again, so
it must notice on its own that the run was stopped). Each test runs twice: with kernels on the devices' own threads,
and with every kernel sent to the devices' inter-op worker pools (runtime/inter_op.py), so that the stop lands
while kernels are in flight; no worker may outlive the run either.
"""
import _thread
import threading
import time

import numpy as np
import pytest

import cfnb as tf
from cfnb.framework import errors
from cfnb.runtime import inter_op

TWO_CPUS = {"CPU": 2}
# The deadline of the endless runs: the devices start looping 5 to 50 ms after run starts (compiling, which the
# deadline counts, comes first), so 100 ms lands in the loop; every millisecond after that spins both devices.
DEADLINE_MS = 100


def _device_threads():
    return [t for t in threading.enumerate() if t.name.startswith(("cfnb /job:", "cfnb inter-op"))]


def endless_loop(placement):
    """(x, endless, finite, finite's value): an endless loop and a finite one, placed as `placement` says."""
    x = tf.placeholder(tf.float32, [], name="x")

    def body(i, v):
        with tf.device("/cpu:1" if placement == "body_on_b" else "/cpu:0"):
            v1 = v * 0.5 + 1.0
        return i + 1, v1

    with tf.device("/cpu:0"):
        _, endless = tf.while_loop(lambda i, v: i >= 0, body, [tf.constant(0), x])
    with tf.device("/cpu:1"):
        side = tf.sin(x)  # CPU:1's own part when the loop is all on CPU:0
    _, finite = tf.while_loop(lambda i, v: i < 3, body, [tf.constant(0), x])
    want = 2.0
    for _ in range(3):
        want = want * 0.5 + 1.0
    return x, endless + side, finite + side, want + np.sin(np.float32(2.0))


@pytest.fixture(params=["v1", "v2"])
def version(request, kernels):
    (tf.enable_control_flow_v2 if request.param == "v2" else tf.disable_control_flow_v2)()
    yield request.param
    tf.disable_control_flow_v2()


@pytest.fixture(params=["inline", "pooled"])
def kernels(request, monkeypatch):
    monkeypatch.setattr(inter_op, "POOL_EVERY_KERNEL", request.param == "pooled")
    return request.param


def _check_stopped_and_reusable(sess, x, finite, want):
    """No device thread left, and the session runs on. A deadline counts from the start of run, compiling included
    (issue 18), so the run that checks reuse has a minute, not the session's DEADLINE_MS: a loaded machine may take
    longer than that to compile `finite`."""
    assert _device_threads() == []
    assert sess.run(finite, {x: 2.0}, options=tf.RunOptions(timeout_in_ms=60_000)) == pytest.approx(want)
    assert _device_threads() == []


def _ctrl_c_once_the_devices_loop(stop):
    """Ctrl-C (`_thread.interrupt_main()`) 20 ms after the run's first device thread has started, so that it lands
    while the devices loop (and CPU:1 has finished its own small part), not while the run compiles; a fixed timer
    had to wait 300 ms to be sure of that on a loaded machine. Gives up waiting after 10 s (then interrupts)."""
    give_up = time.monotonic() + 10.0
    while not _device_threads() and time.monotonic() < give_up and not stop.is_set():
        time.sleep(0.001)
    if not stop.wait(0.02):
        _thread.interrupt_main()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("placement", ["body_on_b", "loop_on_a"])
def test_keyboard_interrupt_stops_every_device(version, placement, python_sigint):
    x, endless, finite, want = endless_loop(placement)
    sess = tf.Session(config=tf.ConfigProto(device_count=TWO_CPUS))
    stop = threading.Event()
    watcher = threading.Thread(target=_ctrl_c_once_the_devices_loop, args=(stop,), name="ctrl-c watcher")
    watcher.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sess.run(endless, {x: 2.0})
    finally:
        stop.set()
        watcher.join()
    _check_stopped_and_reusable(sess, x, finite, want)


@pytest.mark.parametrize("placement", ["body_on_b", "loop_on_a"])
@pytest.mark.parametrize("how", ["run_options", "config"])
def test_deadline_stops_every_device(version, placement, how):
    x, endless, finite, want = endless_loop(placement)
    config = tf.ConfigProto(device_count=TWO_CPUS, operation_timeout_in_ms=DEADLINE_MS if how == "config" else 0)
    options = tf.RunOptions(timeout_in_ms=DEADLINE_MS, output_partition_graphs=True) if how == "run_options" else \
        tf.RunOptions(output_partition_graphs=True)
    meta = tf.RunMetadata()
    sess = tf.Session(config=config)
    with pytest.raises(errors.DeadlineExceededError):
        sess.run(endless, {x: 2.0}, options=options, run_metadata=meta)
    _check_stopped_and_reusable(sess, x, finite, want)
    # The run really was partitioned: this is the multi-device path, not the single-device one.
    sess.run(finite, {x: 2.0}, options=tf.RunOptions(output_partition_graphs=True), run_metadata=meta)
    assert len(meta.partition_graphs) == 2


@pytest.mark.parametrize("placement", ["body_on_b", "loop_on_a"])
def test_ctrl_c_while_the_devices_start_stops_the_device_already_running(version, placement, monkeypatch):
    """A Ctrl-C can land inside `Thread.start()` of the second device, after the first device's thread began looping:
    that first device must stop too (it used to loop on in the background). Here the interrupt is raised there on
    purpose, right after the second thread has started, so the case is tested on every run, not by chance."""
    x, endless, finite, want = endless_loop(placement)
    sess = tf.Session(config=tf.ConfigProto(device_count=TWO_CPUS))
    real_start, devices = threading.Thread.start, []

    def start(thread):
        real_start(thread)
        if thread.name.startswith("cfnb /job:"):
            devices.append(thread)
            if len(devices) == 2:
                raise KeyboardInterrupt  # what a Ctrl-C landing in start()'s wait for the new thread raises

    monkeypatch.setattr(threading.Thread, "start", start)
    with pytest.raises(KeyboardInterrupt):
        sess.run(endless, {x: 2.0})
    monkeypatch.undo()
    assert len(devices) == 2
    _check_stopped_and_reusable(sess, x, finite, want)
