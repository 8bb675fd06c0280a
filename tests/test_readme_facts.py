"""The README's defaults held to the code (issue 26: it once contradicted itself on the number of API
processes, on topic retention, and on what CI checks of the compose file): every sentence that states
one of these is read here and compared with what the code does."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
PROSE = re.sub(r"\s+", " ", README).replace("**", "")  # sentences wrap across lines; no bold


def sentences(pattern: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.;])\s", PROSE) if re.search(pattern, s, re.I)]


def test_topic_retention_is_stated_as_the_code_sets_it():
    from streams.config import Settings
    from streams.topics import DEAD_LETTER_RETENTION_MS, topic_specs

    s = Settings()
    hours, mib = s.topic_retention_ms / 3_600_000, s.topic_retention_bytes / 2**20
    specs = topic_specs(s)
    assert specs[s.interactions_topic][1]["retention.ms"] == str(s.topic_retention_ms)
    stated = [(float(h), float(m)) for h, m in re.findall(r"(\d+) h (?:and|or) (\d+) MiB per partition", PROSE)]
    assert len(stated) >= 3  # Replay, erasure and the scale-out section each say it
    assert set(stated) == {(hours, mib)}, stated
    # no other retention in hours or days is claimed for the topics
    for sentence in sentences(r"\bretention\b"):
        for value, unit in re.findall(r"(\d+) ?(h|hours|days?)\b", sentence):
            assert (unit == "h" and float(value) == hours), sentence
    assert DEAD_LETTER_RETENTION_MS == 7 * 24 * 3_600_000 and "dead letters kept a week" in PROSE.lower()
    env = yaml.safe_load((ROOT / "docker-compose.kafka.yml").read_text())
    text = yaml.safe_dump(env)
    assert f"RAPPORT_TOPIC_RETENTION_MS:-{s.topic_retention_ms}" in text
    assert f"RAPPORT_TOPIC_RETENTION_BYTES:-{s.topic_retention_bytes}" in text


@pytest.mark.parametrize("cores, expected", [(1, 1), (2, 1), (3, 1), (4, 2), (8, 4)])
def test_the_default_number_of_api_processes_is_the_one_the_readme_states(monkeypatch, cores, expected):
    import ops.embedded

    monkeypatch.setattr(ops.embedded.os, "cpu_count", lambda: cores)
    assert ops.embedded.default_api_processes() == expected  # "one per two cores", at least one
    assert "`--api-processes N` (default: one per two cores, so 1 on a 2-core machine)" in PROSE
    # every sentence naming a default count of API processes says one per two cores (1 on two cores)
    for sentence in sentences(r"API process\w*[^.;]*\bdefault|\bdefault\b[^.;]*API process"):
        assert re.search(r"one (API process )?per two cores|one API process,? the default on 2 cores|\(the default on 2 cores\)",
                         sentence, re.I), sentence


def test_the_readme_says_exactly_what_ci_checks_of_the_compose_file():
    claim = next(s for s in sentences(r"tests/test_compose\.py") if "parses it" in s)
    assert "not run in CI" in PROSE  # no Docker engine: nothing starts the compose stack
    assert not sentences(r"compose[^.;]*\b(is|are) (run|started|checked) in CI")
    body = (ROOT / "tests" / "test_compose.py").read_text()
    assert "docker compose" not in re.sub(r'""".*?"""', "", body, flags=re.S)  # the test only parses
    tests = set(re.findall(r"^def (test_\w+)", body, re.M))
    # each thing the README says is checked has its test
    for said, test in [("every image", "test_images_and_the_kafka_version_ci_tests"),
                       ("command against the CLI", "test_every_app_command_is_a_real_cli_command"),
                       ("every environment variable against what the code reads",
                        "test_every_environment_variable_is_one_the_code_reads"),
                       ("the URLs against the services", "test_environment_values_point_at_the_services"),
                       ("the healthchecks against the routes", "test_healthchecks_ask_what_the_code_answers")]:
        assert said in PROSE and test in tests, (said, test, claim)
