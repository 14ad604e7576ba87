"""Start the KOPA Space in a subprocess on a free local port (shared by the Space tests)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "tests" / "data" / "space_tasks.json"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_space(timeout: float = 120.0, **env_extra: str):
    """Yield the base URL of a Space started with the fixture task file; stop it afterwards."""
    port = free_port()
    env = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port), KOPA_SPACE_TASKS=str(TASKS),
               GRADIO_ANALYTICS_ENABLED="False", PYTHONPATH=str(ROOT))
    env.update(env_extra)  # may override the defaults above (KOPA_SPACE_TASKS="" = the real splits)
    log = open(os.environ.get("KOPA_SPACE_TEST_LOG", os.devnull), "w")
    proc = subprocess.Popen([sys.executable, str(ROOT / "space" / "app.py")], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the Space exited with code {proc.returncode}; set KOPA_SPACE_TEST_LOG=path to see its log")
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the Space did not answer on {url} within {timeout:.0f} s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
