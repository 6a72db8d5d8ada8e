"""Which tensors a Session may feed and which ops it may fetch (Graph.is_feedable / is_fetchable).

TensorFlow marks them as control flow is built: a WhileContext makes every tensor of its loop
unfeedable (a value per iteration cannot be replaced by one fed value) and, like a CondContext, its ops
unfetchable, except the loop's Enters and its outermost Exits (`ControlFlowContext._AddOpInternal`);
cond_v2 and while_v2 mark their functional op, whose outputs are fetched through Identities. cfnb
reads the same answer off each op's control-flow context, plus what `prevent_feeding` and
`prevent_fetching` marked. Graph takes these methods from `FeedFetchRules`.
"""


class FeedFetchRules:
    def prevent_feeding(self, tensor):
        """Mark `tensor` as not feedable (TensorFlow's `Graph.prevent_feeding`)."""
        self.__dict__.setdefault("_unfeedable", set()).add(tensor)

    def is_feedable(self, tensor):
        """Whether `tensor` may be fed (TensorFlow's `Graph.is_feedable`): not one marked by
        `prevent_feeding`, and not a tensor inside a loop, which has one value per iteration (only a top-level loop's
        Exit may be fed)."""
        if tensor in self.__dict__.get("_unfeedable", ()):
            return False
        op = getattr(tensor, "op", None)
        if op is None:
            return True  # as in TensorFlow, anything but a tensor is simply not marked unfeedable
        ctxt = op._control_flow_context
        while_ctxt = ctxt.GetWhileContext() if ctxt is not None else None
        return while_ctxt is None or (op.type == "Exit" and while_ctxt.outer_context is None)

    def prevent_fetching(self, op):
        """Mark `op` as not fetchable (TensorFlow's `Graph.prevent_fetching`), as cond_v2 does
        with its If: its outputs are fetched through their Identities."""
        self.__dict__.setdefault("_unfetchable", set()).add(op)

    def is_fetchable(self, tensor_or_op):
        """Whether `tensor_or_op` may be fetched (TensorFlow's `Graph.is_fetchable`): not one
        marked by `prevent_fetching`, and nothing inside a cond or loop but an Enter or a top-level loop's Exit."""
        op = getattr(tensor_or_op, "op", tensor_or_op)
        if op in self.__dict__.get("_unfetchable", ()):
            return False
        ctxt = op._control_flow_context
        return ctxt is None or op.type == "Enter" or (op.type == "Exit" and ctxt.outer_context is None)
