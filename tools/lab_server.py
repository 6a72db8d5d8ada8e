"""JupyterLab's server, as `jupyter lab` starts it (its own entry point, `jupyterlab.labapp.main`, with the same
arguments), without importing `rfc3987_syntax` until a schema needs it (lazy_rfc3987.py): the server starts in about
1.2 CPU-seconds instead of 4.5. tools/lab.py (`make lab`) and the browser tests start JupyterLab with it."""
import sys

from lazy_rfc3987 import defer_rfc3987_syntax

if __name__ == "__main__":
    defer_rfc3987_syntax()
    from jupyterlab.labapp import main
    sys.exit(main())
