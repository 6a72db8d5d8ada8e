"""`case`: the first branch whose predicate holds, as nested `cond`s (TensorFlow's control_flow_case.py).

Without a default the last pair becomes the default, guarded by Asserts, so that a run where no predicate holds
fails with "None of conditions evaluated as True" instead of quietly taking the last branch.
"""
from ..framework import dtypes
from ..framework.ops import Tensor, get_default_graph
from .array_ops import cast
from .array_ops_stack import stack
from .cond import cond
from .control_flow_ops import with_dependencies
from .logging_ops import Assert
from .math_ops import reduce_sum


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The first branch whose predicate is true, as nested conds built in reverse order."""
    if isinstance(pred_fn_pairs, dict):
        pairs = sorted(pred_fn_pairs.items(), key=lambda kv: kv[0].name)
    else:
        pairs = list(pred_fn_pairs)
    for p, f in pairs:
        if not isinstance(p, Tensor) or p.dtype != dtypes.bool_:
            raise TypeError(f"pred must be Tensor of type bool: {getattr(p, 'name', p)}")
        if not callable(f):
            raise TypeError(f"fn for pred {p.name} must be callable.")
    g = get_default_graph()
    with g.name_scope(name) as scope:
        preds = [p for p, _ in pairs]
        fns = [f for _, f in pairs]
        if default is None:
            default, preds, fns = _case_default_action(preds, fns)
            if not preds:
                return default()
        if exclusive:
            count = reduce_sum(cast(stack(list(preds)), dtypes.int32))
            message = (f"Input error: exclusive=True: more than 1 conditions "
                       f"({', '.join(p.name for p in preds)}) evaluated as True:")
            check = Assert(count <= 1, [message], name="Assert")
            preds = [with_dependencies([check], p) for p in preds]
        fn = default
        for p, f in reversed(list(zip(preds, fns))):
            fn = (lambda p=p, f=f, rest=fn: cond(p, f, rest, strict=strict))
        del scope
        return fn()


def _case_default_action(preds, fns):
    """`case` without a default: the last pair becomes the default, guarded by Asserts that its predicate holds
    and no other does, so that no true predicate at all fails the run with "None of conditions evaluated as
    True" (TensorFlow's _case_create_default_action). The Asserts are control inputs of the ops the branch
    creates, so a branch returning an outside tensor checks nothing, as in TensorFlow."""
    k = len(preds) - 1

    def default_action():
        checks = []
        if k:
            others = stack(list(preds[:k]), name="preds_c")
            count = reduce_sum(cast(others, dtypes.int32), name="num_true_conds")
            names = ", ".join(p.name for p in preds[:k])
            checks.append(Assert(count <= 0, [f"Implementation error: selected default action #{k} was called, but "
                                              f"some of other predicates are True: : more than 0 conditions ({names}) "
                                              f"evaluated as True:", others], summarize=k))
        checks.append(Assert(preds[k], ["Input error: None of conditions evaluated as True:",
                                        stack(list(preds), name="preds_c")]))
        with get_default_graph().control_dependencies(checks):
            return fns[k]()
    return default_action, preds[:k], fns[:k]
