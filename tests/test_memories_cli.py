"""`rapport memories` when nothing answers: one line naming the URL and what to do, a non-zero exit."""
from __future__ import annotations

import subprocess
import sys

from ops.embedded import free_port


def test_nothing_answering_is_one_clear_line_and_a_failure(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    for args in (["list", "c"], ["show", "c", "m1"], ["search", "c", "tea"], ["forget", "c", "m1"],
                 ["correct", "c", "m1", "--content", "x"]):
        run = subprocess.run([sys.executable, "-m", "ops.cli", "memories", *args, "--url", url,
                              "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 1, args
        assert run.stderr.strip().splitlines() == [
            f"rapport memories: nothing answers at {url}; start it with `rapport up` (or `make run`), "
            f"or pass --url / set RAPPORT_URL"], run.stderr
