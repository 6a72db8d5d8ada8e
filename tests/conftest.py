"""Shared fixtures: every test starts on a fresh default graph with control flow v1."""
import numpy as np
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


@pytest.fixture(scope="module")
def ip():
    """A real IPython shell with the extension loaded (`%load_ext cfnb`), for the magic's tests."""
    from IPython.testing import globalipapp
    shell = globalipapp.start_ipython() or globalipapp.get_ipython()
    shell.run_line_magic("load_ext", "cfnb")
    return shell


@pytest.fixture
def clean(ip):
    """The shell with `np` bound, as a notebook's `import numpy as np` would; names a test adds are removed."""
    ip.user_ns["np"] = np
    before = set(ip.user_ns)
    yield ip
    for name in set(ip.user_ns) - before:
        del ip.user_ns[name]
