"""Shared fixtures: every test starts on a fresh default graph with control flow v1."""
import pytest

import cfnb


@pytest.fixture(autouse=True)
def _fresh_graph():
    cfnb.disable_control_flow_v2()
    cfnb.reset_default_graph()
    yield
    cfnb.disable_control_flow_v2()


def run(fetches, feed_dict=None, static=True, trace=False):
    """Run on the default graph; `static=False` forces the tagged-token executor."""
    sess = cfnb.Session(config=cfnb.ConfigProto(static_schedule=static))
    if trace:
        meta = cfnb.RunMetadata()
        out = sess.run(fetches, feed_dict, options=cfnb.RunOptions(trace_level=cfnb.RunOptions.FULL_TRACE),
                       run_metadata=meta)
        return out, meta.trace
    return sess.run(fetches, feed_dict)
