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
