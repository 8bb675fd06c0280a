"""`rapport demo` against nothing: one clear line and a non-zero exit, at the URL RAPPORT_URL names."""
from __future__ import annotations

import socket

from click.testing import CliRunner

from ops.cli import main


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    return port


def test_demo_without_a_server_says_so_in_one_line_and_exits_non_zero(monkeypatch, tmp_path):
    url = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("RAPPORT_URL", url)
    monkeypatch.setenv("RAPPORT_API_KEY", "rk_test_unused")
    r = CliRunner().invoke(main, ["demo", "--data-dir", str(tmp_path)])
    assert r.exit_code != 0
    assert r.output.strip().splitlines() == [f"rapport demo: nothing answers at {url} (ConnectError); start it "
                                             "with `rapport up` (or `make run`), or pass --url / set RAPPORT_URL"]
    assert "Traceback" not in r.output


def test_the_example_bot_without_a_server_says_so_in_one_line(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    url = f"http://127.0.0.1:{closed_port()}"
    r = subprocess.run([sys.executable, str(root / "examples" / "chat_bot.py"), "--contact", "c1", "--url", url],
                       input="hello\n", capture_output=True, text=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "RAPPORT_API_KEY": "rk_test_unused", "HOME": str(tmp_path)})
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith(f"chat_bot: rapport does not answer (POST {url}/")
