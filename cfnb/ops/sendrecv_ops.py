"""`_Send`, `_Recv` and `_HostRecv`, the transfer ops graph partitioning inserts, and `_Arg`/`_Retval`,
the call-frame ops through which a partitioned run takes its feeds and returns its fetches.

As in TensorFlow (tensorflow/core/ops/sendrecv_ops.cc), nobody builds these by hand: passes/partition.py
adds them where an edge crosses devices. Their attributes are TensorFlow's: `tensor_name` (`edge_<id>_<src>`),
`send_device`, `send_device_incarnation`, `recv_device`, `client_terminated`, and `tensor_type` on a Recv.
Their kernels are not ordinary functions of their inputs: the executor hands a Send's value, with its
deadness, to the rendezvous under a key that adds the frame and iteration, and parks a Recv until that key
arrives (runtime/rendezvous.py). `_HostRecv` is the Recv of a value the consumer's kernel wants in host
memory (a Switch's predicate); on CPU devices it behaves exactly as `_Recv`.
"""
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape

register_op("_Send", lambda op: [], None, stateful=True)
register_op("_Recv", lambda op: [(op.get_attr("tensor_type"), TensorShape(None))], None, stateful=True)
register_op("_HostRecv", lambda op: [(op.get_attr("tensor_type"), TensorShape(None))], None, stateful=True)
register_op("_Arg", lambda op: [(op.get_attr("T"), TensorShape(None))], None, stateful=True)
register_op("_Retval", lambda op: [], None, stateful=True)

TRANSFER_TYPES = ("_Send", "_Recv", "_HostRecv")
