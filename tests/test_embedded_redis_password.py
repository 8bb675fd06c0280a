"""The embedded Redis password is never one redis-server reads as an option: `--requirepass --x...` left
requirepass without a value and Redis refused to start on every start of that data dir (a url-safe token starts
with "--" once in 4,096; CI met one)."""
from __future__ import annotations

import stat

from ops import embedded


def test_a_kept_password_that_starts_with_a_dash_is_replaced_and_kept_0600(tmp_path):
    data = tmp_path / "redis"
    data.mkdir()
    f = embedded.redis_password_file(data)
    f.write_text("--Jq0pDtoo-short-but-first\n")
    password = embedded._redis_password(data)
    assert not password.startswith("-") and len(password) >= 32
    assert f.read_text().strip() == password and stat.S_IMODE(f.stat().st_mode) == 0o600
    assert embedded._redis_password(data) == password  # kept from then on


def test_a_good_password_is_kept(tmp_path):
    data = tmp_path / "redis"
    data.mkdir()
    embedded.redis_password_file(data).write_text("abc_DEF-123\n")
    assert embedded._redis_password(data) == "abc_DEF-123"


def test_the_password_follows_requirepass_as_its_value():
    args = embedded.redis_args(embedded.Path("/bin/redis-server"), embedded.Path("/d"), embedded.Path("/s"), "pw-1")
    assert args[args.index("--requirepass") + 1] == "pw-1"
