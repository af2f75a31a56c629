"""While a search runs: other threads go on, Ctrl-C stops it with the partial answer, progress
callbacks hear it, and a Solver's table serves the next call."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import uttt
from conftest import without_timing
from test_position import random_game

#: Solved by single-threaded DFPN in a few hundred thousand nodes (a fraction of a second).
MEDIUM = random_game(23, 36)
OTHER_MEDIUM = random_game(22, 36)
#: Far beyond any test's budget: the opening.
HARD = random_game(3, 6)


def interrupt_after(seconds: float) -> list[float]:
    """Sends this process SIGINT (Ctrl-C) after ``seconds``; the list gets the time it did."""
    sent: list[float] = []

    def fire():
        time.sleep(seconds)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=fire, daemon=True).start()
    return sent


@pytest.mark.parametrize("search", ["solve", "analyze", "review"])
def test_ctrl_c_stops_a_search_within_a_second_with_its_partial_answer(search):
    solver = uttt.Solver(threads=2, table_mem="64M")
    sent = interrupt_after(0.5)
    if search == "review":
        answer = solver.review(HARD, time_limit=None, stop_after=None)
    else:
        answer = getattr(solver, search)(HARD)
    returned = time.monotonic()
    assert sent, "the search ended before Ctrl-C"
    assert returned - sent[0] < 1.0
    if search == "solve":
        assert answer["result"] == "unknown" and answer["nodes"] > 0
    elif search == "analyze":
        assert answer["value"] == "unknown" and answer["unknown_moves"]
    else:
        assert answer[-1]["type"] == "summary"
    # The interrupt was the search's: nothing is left pending for the code after it.
    time.sleep(0.05)


def test_other_python_threads_run_while_a_search_does():
    counted = 0
    done = threading.Event()

    def count():
        nonlocal counted
        while not done.is_set():
            counted += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = counted
        uttt.solve(HARD, threads=1, table_mem="64M", node_limit=300_000)
        during = counted - before
    finally:
        done.set()
        counter.join()
    assert during > 10_000, f"the counting thread ran {during} times during the search"


def test_two_threads_solving_at_once_answer_as_each_alone():
    options = dict(engine="dfpn", table_mem="64M")
    alone = [uttt.solve(p, **options) for p in (MEDIUM, OTHER_MEDIUM)]
    together: dict[int, dict] = {}

    def solve(index, position):
        together[index] = uttt.solve(position, **options)

    threads = [threading.Thread(target=solve, args=(i, p)) for i, p in
               enumerate((MEDIUM, OTHER_MEDIUM))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, answer in enumerate(alone):
        assert answer["result"] != "unknown"
        assert without_timing(together[index]) == without_timing(answer)


def test_one_solver_serves_two_threads_at_once():
    solver = uttt.Solver(threads=1, table_mem="64M")
    answers: list[dict] = []
    threads = [threading.Thread(target=lambda p=p: answers.append(solver.solve(p)))
               for p in (MEDIUM, OTHER_MEDIUM)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expected = {uttt.solve(p, engine="dfpn", table_mem="64M")["result"]
                for p in (MEDIUM, OTHER_MEDIUM)}
    assert {a["result"] for a in answers} == expected


def test_a_solver_answers_again_from_its_table():
    solver = uttt.Solver(engine="dfpn", table_mem="64M")
    first = solver.solve(MEDIUM)
    second = solver.solve(MEDIUM)
    assert first["result"] == second["result"] != "unknown"
    assert second["nodes"] < 0.1 * first["nodes"]
    assert second["table"]["hits"] > 0
    # A fresh table searches as much as the first time.
    assert uttt.solve(MEDIUM, engine="dfpn", table_mem="64M")["nodes"] == first["nodes"]


def test_progress_is_reported_while_a_search_runs():
    heard: list[dict] = []
    answer = uttt.Solver(threads=1, table_mem="64M").solve(
        HARD, node_limit=1_500_000, progress=heard.append, progress_every=0.05
    )
    assert heard, "no progress was reported"
    assert set(heard[-1]) == {"nodes", "time_ms", "root_phi", "root_delta"}
    assert [h["nodes"] for h in heard] == sorted(h["nodes"] for h in heard)
    assert heard[-1]["nodes"] <= answer["nodes"]


def test_an_exception_in_the_progress_callback_stops_the_search_and_is_raised():
    def fail(_):
        raise RuntimeError("enough")

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="enough"):
        uttt.Solver(threads=1, table_mem="64M").solve(HARD, progress=fail, progress_every=0.05)
    assert time.monotonic() - started < 5


def test_threads_the_system_will_not_start_raise_and_return():
    """Under a 1.5 GB address space 1,024 threads' stacks do not fit: the Solver is refused
    with the system's words (it once panicked, and the call never returned)."""
    import subprocess
    import sys

    script = (
        "import resource, uttt\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))\n"
        "try:\n"
        "    uttt.Solver(threads=1024, table_mem='16M', time_limit=0.2).solve('ee ea')\n"
        "except ValueError as error:\n"
        "    print('refused:', error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "refused: cannot start search thread" in done.stdout, done.stdout + done.stderr
    assert "panicked" not in done.stderr
