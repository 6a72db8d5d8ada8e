"""Run every benchmark (`make bench`); exits 1 if a result check fails.

TensorFlow rows are measured in a child process (see _timing.py): set CFNB_TF_PYTHON to an
interpreter that has `tensorflow-cpu` to include them.
"""
import os
import platform
import sys

import graph_size
import magic_item_assignment
import magic_loop
import memory_swap
import numpy as np
import rnn_backward
import rnn_forward
import scalar_loop
import two_devices
from _timing import SKIPPED, tf_python


def blas_kernel():
    """Which BLAS kernel numpy runs (threadpoolctl): OPENBLAS_CORETYPE pins a slower one on some machines,
    so `make bench` unsets it and OPENBLAS_L2_SIZE, and the header says what ran."""
    pinned = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ}
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return f"BLAS kernel: unknown (threadpoolctl not installed); pinned by environment: {pinned or 'nothing'}"
    pools = [f"{p.get('internal_api')} {p.get('version')} {p.get('architecture', '?')} kernel, "
             f"{p.get('num_threads')} threads" for p in threadpool_info() if p.get("user_api") == "blas"]
    return f"BLAS kernel: {'; '.join(pools) or 'none found'}; pinned by environment: {pinned or 'nothing'}"


def main():
    threads = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS") if k in os.environ}
    threads = threads or "default"
    print(f"python {platform.python_version()} ({sys.executable}), numpy {np.__version__}")
    print(f"{os.cpu_count()} CPUs, {platform.machine()} {platform.system()}, BLAS threads: {threads}")
    print(blas_kernel())
    python = tf_python()
    print(f"tensorflow rows: measured by {python} in a separate process" if python else SKIPPED)
    ok = scalar_loop.main()
    ok &= rnn_forward.main()
    ok &= rnn_backward.main()
    ok &= magic_loop.main()
    ok &= magic_item_assignment.main()
    ok &= two_devices.main()
    ok &= memory_swap.main()
    ok &= graph_size.main()
    return ok


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
