"""The layers hold: `lint-imports` (import-linter, [tool.importlinter] in pyproject.toml) finds no import
running up a layer (ops -> projections -> agents -> streams -> domain -> schemas), no circle of modules
or subpackages, no database or broker in the domain layer or the functional core. And it would say so:
a copy of the code with one upward import fails it."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ops", "projections", "agents", "streams", "domain", "schemas")
LINT = Path(sys.executable).with_name("lint-imports")


def lint(where: Path) -> subprocess.CompletedProcess:
    # the directory linted comes first on the path, before the editable install's
    env = {**os.environ, "PYTHONPATH": str(where)}
    return subprocess.run([str(LINT), "--no-cache"], cwd=where, env=env, capture_output=True, text=True, timeout=600)


def test_the_import_contracts_hold():
    r = lint(ROOT)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout


@pytest.mark.parametrize("module, line, broken", [
    ("domain/clock.py", "from projections import deps", "domain is not allowed to import projections"),
    ("streams/config.py", "from agents.core import contact", "streams is not allowed to import agents"),
    ("schemas/codec.py", "from schemas import upcasters as _u, envelope as _e  # noqa", None),  # the copy lints clean
    ("schemas/envelope.py", "from schemas.codec import decode  # noqa", "No cycles are allowed in schemas."),
])
def test_an_upward_import_or_a_circle_fails_the_lint(tmp_path, module, line, broken):
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.npz", "*.jsonl",
                                                                                    "console", "*.sql"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / module
    target.write_text(target.read_text() + f"\n{line}\n")
    r = lint(tmp_path)
    if broken is None:
        assert r.returncode == 0, r.stdout[-4000:]
    else:
        assert r.returncode != 0 and broken in r.stdout, r.stdout[-4000:]
