"""`run`: one Session run of the default graph, for the tests that build a graph and want its values.

A module of its own, not tests/conftest.py: with the repository root's conftest.py beside it, `conftest` names two
modules, and which one an import gets would depend on the order pytest loads them."""
import cfnb


def run(fetches, feed_dict=None, static=True, trace=False):
    """Run on the default graph; `static=False` forces the tagged-token executor; `trace=True` also returns the
    executor's trace (a FULL_TRACE run's RunMetadata.trace)."""
    sess = cfnb.Session(config=cfnb.ConfigProto(static_schedule=static))
    if trace:
        meta = cfnb.RunMetadata()
        out = sess.run(fetches, feed_dict, options=cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE),
                       run_metadata=meta)
        return out, meta.trace
    return sess.run(fetches, feed_dict)
