"""The embedded PostgreSQL's memory settings (ops/embedded.postgres_settings): from the machine's memory,
bounded, overridable, and bad overrides refused with a clear error."""
import pytest
from hypothesis import given, strategies as st

from ops.embedded import postgres_settings

GIB = 1 << 30


def mb(value: str) -> int:
    assert value.endswith("MB"), value
    return int(value[:-2])


def test_a_24_gib_machine():
    s = postgres_settings(24 * GIB, {})
    assert s["shared_buffers"] == "3072MB" and s["effective_cache_size"] == "12288MB" and s["work_mem"] == "8MB"
    assert s["max_connections"] == "200" and s["fsync"] == "on"


def test_unknown_memory_is_a_small_machine():
    assert postgres_settings(None, {})["shared_buffers"] == "256MB"


@given(st.integers(min_value=256 << 20, max_value=4096 * GIB))
def test_bounds(memory):
    s = postgres_settings(memory, {})
    shared = mb(s["shared_buffers"])
    assert 128 <= shared <= 4096
    assert shared <= memory // (1 << 20) // 8 or shared == 128
    assert mb(s["effective_cache_size"]) >= shared


def test_overrides():
    s = postgres_settings(24 * GIB, {"RAPPORT_PG_SHARED_BUFFERS": "256MB", "RAPPORT_PG_WORK_MEM": "4MB",
                                     "RAPPORT_PG_EFFECTIVE_CACHE_SIZE": " 4GB "})
    assert (s["shared_buffers"], s["work_mem"], s["effective_cache_size"]) == ("256MB", "4MB", "4GB")
    assert postgres_settings(24 * GIB, {"RAPPORT_PG_SHARED_BUFFERS": ""})["shared_buffers"] == "3072MB"


@pytest.mark.parametrize("bad", ["lots", "4 GB", "4GBMB", "-1MB", "0MB", "4gb", "4096"])
def test_bad_override_is_refused(bad):
    with pytest.raises(ValueError, match="RAPPORT_PG_SHARED_BUFFERS"):
        postgres_settings(24 * GIB, {"RAPPORT_PG_SHARED_BUFFERS": bad})
