"""Chapter 10, distributed execution: the _Send/_Recv pairs of a partition, and which devices get a control loop."""
import cfnb as tf

from . import as_int, exercise, right, wrong

A, B, C = "/cpu:0", "/cpu:1", "/cpu:2"


def partitions(graph, fetches, cpus):
    """Run `fetches` on a Session with `cpus` CPU devices; the partition graphs (TensorFlow's RunMetadata field)."""
    meta = tf.RunMetadata()
    options = tf.RunOptions(output_partition_graphs=True)
    with tf.Session(graph=graph, config=tf.ConfigProto(device_count={"CPU": cpus})) as sess:
        sess.run(fetches, options=options, run_metadata=meta)
    return meta.partition_graphs


def shared_input():
    """x on CPU:0; y = x * 2 and z = x + 1 on CPU:1; r = y + z on CPU:0. Returns (graph, r)."""
    g = tf.Graph()
    with g.as_default():
        with tf.device(A):
            x = tf.constant(3.0, name="x")
        with tf.device(B):
            y = tf.multiply(x, 2.0, name="y")
            z = tf.add(x, 1.0, name="z")
        with tf.device(A):
            r = tf.add(y, z, name="r")
    return g, r


def loop_three_devices():
    """A loop on CPU:0 whose body's multiplication runs on CPU:1; CPU:2 doubles the loop's result."""
    g = tf.Graph()
    with g.as_default():
        with tf.device(A):
            n = tf.constant(3, name="n")
            x = tf.constant(1.5, name="x")

        def body(i, v):
            with tf.device(A):
                i1 = i + 1
            with tf.device(B):
                v1 = v * 0.5
            return i1, v1

        with tf.device(A):
            _, v = tf.while_loop(lambda i, v: i < n, body, [0, x])
        with tf.device(C):
            out = v * 2.0
    return g, out


@exercise("10.send_recv_pairs", "x is on CPU:0; y = x * 2 and z = x + 1 on CPU:1; r = y + z on CPU:0. How many "
                                "_Send/_Recv pairs does the partition of r have?")
def send_recv_pairs(answer):
    g, r = shared_input()
    pgs = partitions(g, r, 2)
    sends = sorted(n.name.split("/_")[0] for pg in pgs for n in pg.node if n.op == "_Send")
    recvs = sum(n.op in ("_Recv", "_HostRecv") for pg in pgs for n in pg.node)
    assert len(sends) == recvs, "every _Send has its _Recv"
    got = as_int(answer)
    if got == len(sends):
        return right(f"{len(sends)}, for {', '.join(sends)}: x crosses to CPU:1 once, although two ops there read "
                     "it (the partitioner keys a transfer by tensor and destination device), and y and z each "
                     "cross back to CPU:0.")
    if got > len(sends):
        return wrong("x is read by two ops on CPU:1, but the partitioner sends a tensor once per destination "
                     "device, however many ops there read it.")
    return wrong("every tensor that an op on another device reads crosses once: x goes to CPU:1; count the "
                 "results coming back to CPU:0 too.")


def _devices(answer):
    if isinstance(answer, str):
        answer = [answer]
    return {str(a).upper().replace("/", "")[-5:] for a in answer}


@exercise("10.control_loop", "A loop on CPU:0 (counter, predicate, Merge, Exit) whose body's multiplication runs "
                             "on CPU:1; CPU:2 doubles the loop's result. Which devices get a control loop "
                             "(`_cloop` nodes)? Answer a set such as {\"CPU:0\"}.")
def control_loop(answer):
    g, out = loop_three_devices()
    want = {pg.device[-5:] for pg in partitions(g, out, 3) for n in pg.node if n.name.startswith("_cloop")}
    got = _devices(answer)
    if got == want:
        return right(f"{sorted(want)}: a device gets a control loop for every frame it has ops in. CPU:1 runs "
                     "the body and must learn each iteration's predicate from CPU:0's LoopCond; CPU:0 receives "
                     "the body's result from CPU:1 inside the loop, and that Recv is gated by iteration too. "
                     "CPU:2 works only after the Exit, outside the frame.")
    if "CPU:2" in got:
        return wrong("CPU:2 only reads the loop's result after the Exit: outside the loop's frame. A control "
                     "loop tells a device when an iteration starts; which devices have ops inside the loop?")
    return wrong("a device needs a control loop for a frame if it has ops in that frame, including the Recvs "
                 "of values sent inside the loop. Where does the body's result come back to, for its "
                 "NextIteration?")
