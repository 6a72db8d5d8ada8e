"""Open a cfnb graph in TensorBoard's graph dashboard: the browser check of the GraphDef bridge.

    .venv/bin/python tools/check_tensorboard.py [OUT.png]

Writes an event file for a loop with a cond and its gradient (`tf.summary.FileWriter`), starts `tensorboard` on it,
asks the graph plugin's HTTP endpoint for the graph (what the dashboard fetches) and, where Chromium is installed,
takes a headless screenshot of the dashboard (`while` and `gradients` appear as name scopes). Not part of the
test run: it needs a free port, a browser and some seconds.
"""
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import cfnb as tf
from cfnb.graph_def.protos import pb


def write_events(logdir):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        _, s = tf.while_loop(lambda i, s: i < 5,
                             lambda i, s: (i + 1, tf.cond(s < 10.0, lambda: s * x, lambda: s + 1.0)), [0, x])
        tf.gradients(s, x)
    with tf.summary.FileWriter(logdir, graph=g):
        pass
    return g


def main(png):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory() as logdir:
        g = write_events(logdir)
        tensorboard = pathlib.Path(sys.executable).with_name("tensorboard")
        server = subprocess.Popen([str(tensorboard), "--logdir", logdir, "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(60):
                try:
                    text = urllib.request.urlopen(f"{url}/data/plugin/graphs/graph?run=.&conversion=1").read()
                    break
                except OSError:
                    time.sleep(0.5)
            else:
                raise SystemExit("tensorboard did not answer")
            served = tf.GraphDef()
            pb().text_format.Parse(text.decode(), served)
            same = served == g.as_graph_def()
            print(f"graph plugin serves {len(served.node)} nodes; equal to cfnb's GraphDef: {same}")
            browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
            if browser:
                subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,900",
                                "--virtual-time-budget=20000", f"--screenshot={png}", f"{url}/#graphs&run=."],
                               capture_output=True, timeout=120)
                print(f"dashboard screenshot: {png}")
            else:
                print("no Chromium: skipped the screenshot")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tensorboard_graph.png")
