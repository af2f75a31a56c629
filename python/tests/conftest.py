"""What the tests share: the command line they check the package against, and its answers.

Every expected value comes from the ``uttt`` binary of this repository (``--json``), never
from a copy in the tests: the package must say what the command line says. The binary is
``$UTTT_BIN`` when set, else ``target/release/uttt`` (under ``$CARGO_TARGET_DIR`` when set),
built with cargo when missing.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: Keys whose values are clocks (or figures made from them): they differ from run to run.
TIMING_KEYS = {
    "time_ms",
    "nps",
    "leaves_per_sec",
    "write_ms",
    "verify_ms",
    "mean_job_work",
    "worker_busy_pct",
    "root_wait_pct",
}


def _find_binary() -> Path:
    if os.environ.get("UTTT_BIN"):
        return Path(os.environ["UTTT_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    binary = target / "release" / "uttt"
    if not binary.exists():
        subprocess.run(
            ["cargo", "build", "--release", "--bin", "uttt"], cwd=REPO, check=True
        )
    return binary


UTTT = _find_binary()


class CliError(Exception):
    """The command line refused its arguments; the message is what it printed after
    ``error:``."""


def run_cli(*args: str) -> str:
    """The command line's stdout for ``args``; CliError with its message on exit 2."""
    done = subprocess.run(
        [str(UTTT), *args], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}
    )
    if done.returncode == 2:
        raise CliError(done.stderr.strip().removeprefix("error: "))
    return done.stdout


def cli_json(*args: str):
    """The command line's ``--json`` answer: one object, or a list for JSON Lines."""
    lines = [json.loads(line) for line in run_cli(*args, "--json").splitlines() if line]
    return lines[0] if len(lines) == 1 else lines


def without_timing(value):
    """``value`` with every clock-made key left out, at any depth."""
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def late_positions(count: int) -> list[str]:
    """The first ``count`` positions of the oracle's late positions (tests/data)."""
    rows = (REPO / "tests" / "data" / "late-positions.tsv").read_text().splitlines()
    positions = [row.split("\t")[0] for row in rows if row and not row.startswith("#")]
    return positions[:count]


@pytest.fixture(scope="session")
def uttt_bin() -> Path:
    return UTTT
