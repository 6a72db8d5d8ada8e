"""Inter-op parallelism for the executors of a partitioned run: expensive kernels run on a small worker pool.

TensorFlow's executor does not run every kernel on the thread that found it ready. `ExecutorState::ScheduleReady`
(common_runtime/executor.cc) runs inexpensive nodes inline and hands expensive ones to the inter-op thread pool
(`ConfigProto.inter_op_parallelism_threads`), so that cheap control-flow, Send and Recv work goes on while a matrix
product computes. A node is expensive when its kernel says so (`OpKernel::IsExpensive`: control-flow kernels,
Identity and Const say no) and its running cost estimate (`KernelStats::IsExpensive`, an average of measured cycles)
is above a threshold.

cfnb does the same for each CPU device of a partitioned run (runtime/multi_device.py) when
`inter_op_parallelism_threads` > 0, and only there: a single-device run fires its nodes in one deterministic order,
which traces and notebooks show. It is off by default (see `pool_threads`): in Python a hand-off to a worker and
back costs two thread switches under the GIL, which on benchmarks/two_devices.py cost more than they saved.

The executor thread stays the only one that touches frames, iterations and pending counts; a worker only calls a
kernel on the inputs it was handed and reports the outputs (or the exception) back through the rendezvous, which
wakes the executor the way an arriving Send does. The token stays outstanding while its kernel is in flight, so
its iteration and frame are not done, and a device with kernels in flight is not idle (the rendezvous's stuck-run
check counts them). A failing kernel's exception is raised on the executor thread, located like an inline one.

Which kernels go to the pool (`Pool.wants`), in place of TensorFlow's measured cycles:
  * never a control-flow, transfer, feed or fetch node (they are not NORMAL kernels), nor an op that touches state
    (variables, stacks, TensorArrays, function calls: `OpDef.needs_state`), whose order on a device the
    single-threaded executor keeps;
  * always a kernel of `EXPENSIVE_TYPES` (matrix products, convolutions), whatever its inputs' size;
  * any other kernel when one of its inputs has at least `EXPENSIVE_ELEMENTS` elements (a large element-wise op,
    such as the tanh of a 256x256 matrix, which releases the GIL in numpy as a matmul does);
  * and only when the device's thread has other nodes ready: otherwise it runs the kernel itself, as
    `ScheduleReady` keeps its last expensive node (`curr_expensive_node`) when no inexpensive one is left.
`POOL_EVERY_KERNEL` (tests only) sends every stateless kernel to the pool, to exercise it on every program.
"""
import queue
import threading
import time

import numpy as np

from ..framework.registry import get_op_def
from .graph_compiler import NORMAL

# Workers per device when the pool is forced on for tests (POOL_EVERY_KERNEL) and no size is given.
TEST_THREADS = 2
EXPENSIVE_TYPES = frozenset({"MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum", "Conv1D", "Conv2D",
                             "Conv3D", "DepthwiseConv2dNative", "Conv2DBackpropInput", "Conv2DBackpropFilter",
                             "MatrixInverse", "MatrixDeterminant", "Cholesky", "Qr", "Svd", "MatrixSolve"})
EXPENSIVE_ELEMENTS = 1 << 14
POOL_EVERY_KERNEL = False

NEVER, BY_SIZE, ALWAYS = 0, 1, 2


def pool_threads(config):
    """Workers per CPU device from `ConfigProto.inter_op_parallelism_threads`; 0 means no pool: every kernel runs
    on its device's own thread, as a negative value does in TensorFlow ("run in the caller's thread").

    TensorFlow's 0 lets the runtime choose, and cfnb chooses no pool: measured (benchmarks/two_devices.py), handing
    a kernel to a Python thread and back costs two thread switches under the GIL, about as much as the overlap it
    buys, and the device's thread, no longer waiting inside numpy, holds the GIL longer."""
    n = int(getattr(config, "inter_op_parallelism_threads", 0) or 0)
    if n == 0 and POOL_EVERY_KERNEL:
        return TEST_THREADS
    return max(0, n)


def classify(item):
    """NEVER, BY_SIZE or ALWAYS for one node of an executable graph (see the module docstring)."""
    if item.kind != NORMAL or item.op is None or item.kernel is None:
        return NEVER
    op_def = get_op_def(item.op.type)
    if op_def.needs_state:
        return NEVER
    if item.op.type in EXPENSIVE_TYPES:
        return ALWAYS
    return BY_SIZE


class InterOp:
    """One device's inter-op settings, kept by its Executor between runs: the pool size and each node's class."""

    def __init__(self, exe, threads):
        self.threads = threads
        self.classes = [classify(item) for item in exe.items]
        self.every_kernel = POOL_EVERY_KERNEL

    def pool(self, endpoint):
        """The worker pool of one run (its threads start with the first expensive kernel)."""
        return Pool(self, endpoint)


class Pool:
    """The workers of one device for one run; the executor thread submits, the rendezvous brings results back."""

    def __init__(self, inter_op, endpoint):
        self.classes = inter_op.classes
        self.every_kernel = inter_op.every_kernel
        self.threads = inter_op.threads
        self.endpoint = endpoint
        # (item id, id(iteration)) -> (outputs, exception, start, end): a pooled kernel's result, which its token
        # finds when `Endpoint.wait` puts it back in the ready queue (as a Recv finds its value)
        self.results = {}
        self._jobs = queue.SimpleQueue()
        self._workers = []

    SUBMITTED = object()

    def run(self, token, args, ready):
        """(kernel output, (start, end) on the worker or None inline) for a NORMAL node's token, or (SUBMITTED, None)
        when its kernel went to a worker. A token back from a worker takes its result; a failure is raised here, on
        the executor thread, where the executor locates it as any kernel's (`executor_errors.located`)."""
        item, _frame, it, _dead = token
        if self.results:
            done = self.results.pop((item.id, id(it)), None)
            if done is not None:
                out, exc, start, end = done
                if exc is not None:
                    raise exc
                return out, (start, end)
        if self.classes[item.id] and self.wants(item, args, ready):
            self.submit(token, args)
            return self.SUBMITTED, None
        return item.kernel(*args), None

    def wants(self, item, args, ready):
        """Whether to run this kernel on a worker. As in `ScheduleReady`, an expensive kernel stays on the device's
        thread when that thread has nothing else ready to do (TensorFlow's `curr_expensive_node`): a hand-off
        then only costs time."""
        cls = self.classes[item.id]
        if cls == NEVER:
            return False
        if self.every_kernel:
            return True
        if not ready:
            return False
        if cls == ALWAYS:
            return True
        for a in args:
            if getattr(a, "size", 0) >= EXPENSIVE_ELEMENTS:
                return True
        return False

    def submit(self, token, args):
        """Run the token's kernel on a worker; the token stays outstanding until `Endpoint.wait` brings it back."""
        if len(self._workers) < self.threads:
            t = threading.Thread(target=self._work, name=f"cfnb inter-op {self.endpoint.device} "
                                                         f"#{len(self._workers)}", daemon=True)
            self._workers.append(t)
            t.start()
        self.endpoint.in_flight += 1
        self._jobs.put((token, args))

    def close(self):
        """End the workers (after the kernels they are running): no thread of a run outlives it."""
        for _ in self._workers:
            self._jobs.put(None)
        for t in self._workers:
            t.join()
        self._workers = []

    def _work(self):
        complete = self.endpoint.rendezvous.complete
        with np.errstate(all="ignore"):  # as on the executor thread: numpy's warnings are not errors here
            while True:
                job = self._jobs.get()
                if job is None:
                    return
                token, args = job
                item = token[0]
                start = time.perf_counter()
                try:
                    result = item.kernel(*args), None
                except BaseException as e:  # noqa: BLE001 - the executor thread reports it as it would inline
                    result = None, e
                complete(self.endpoint, token, (*result, start, time.perf_counter()))
