"""Run every benchmark (`make bench`); exits 1 if a result check fails.

If TensorFlow is not importable here and CFNB_TF_PYTHON names an interpreter that may have it
(e.g. /work/tfenv/bin/python), the run restarts itself under that interpreter with the repository
on PYTHONPATH, so `CFNB_TF_PYTHON=/work/tfenv/bin/python make bench` includes the TensorFlow rows.
"""
import importlib.util
import os
import platform
import sys

import numpy as np
import rnn_forward
import scalar_loop
from _timing import SKIPPED, tf_v1

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def maybe_reexec_with_tf():
    tf_python = os.environ.get("CFNB_TF_PYTHON")
    if not tf_python or importlib.util.find_spec("tensorflow") or os.environ.get("_CFNB_BENCH_REEXEC"):
        return
    env = dict(os.environ, _CFNB_BENCH_REEXEC="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    os.execve(tf_python, [tf_python, *sys.argv], env)


def main():
    threads = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS") if k in os.environ}
    threads = threads or "default"
    print(f"python {platform.python_version()} ({sys.executable}), numpy {np.__version__}")
    print(f"{os.cpu_count()} CPUs, {platform.machine()} {platform.system()}, BLAS threads: {threads}")
    tf = tf_v1()
    print(f"tensorflow {tf.__version__} (graph mode, control flow v1)" if tf else SKIPPED)
    ok = scalar_loop.main()
    ok &= rnn_forward.main()
    return ok


if __name__ == "__main__":
    maybe_reexec_with_tf()
    raise SystemExit(0 if main() else 1)
