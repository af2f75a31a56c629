"""Solves, analyses, reviews and certificate checks: every key of the command line's JSON, the
same values (but for clocks), under each rule set."""

from __future__ import annotations

import pytest

import uttt
from conftest import CliError, cli_json, late_positions, run_cli, without_timing
from test_position import random_game

RULES = ["common", "open", "codingame"]
TABLE = "16M"
#: Single-threaded DFPN is deterministic: node counts and table figures match exactly.
EXACT = ["--engine", "dfpn", "--table-mem", TABLE]

#: Positions searched for real (tens of thousands of nodes), from seeded random games.
MIDGAME = [random_game(seed, 48).notation("uttt") for seed in (11, 12, 13)]


@pytest.mark.parametrize("rules", RULES)
def test_solves_answer_the_command_lines_json_on_late_positions(rules):
    for text in late_positions(12):
        position = uttt.Position.parse(text, rules)
        ours = uttt.solve(position, engine="dfpn", table_mem=TABLE)
        theirs = cli_json("solve", text, "--rules", rules, *EXACT)
        assert ours.keys() == theirs.keys()
        assert without_timing(ours) == without_timing(theirs), text


@pytest.mark.parametrize("text", MIDGAME)
def test_searches_within_a_node_limit_answer_as_the_command_line(text):
    ours = uttt.solve(text, engine="dfpn", table_mem=TABLE, node_limit=30_000)
    theirs = cli_json("solve", text, *EXACT, "--node-limit", "30000")
    assert without_timing(ours) == without_timing(theirs)
    assert ours["nodes"] > 0


def test_the_default_engine_answers_with_the_same_keys_and_value():
    for text in late_positions(6) + MIDGAME[:1]:
        ours = uttt.solve(text, threads=1, table_mem=TABLE, node_limit=50_000)
        theirs = cli_json("solve", text, "--threads", "1", "--table-mem", TABLE,
                          "--node-limit", "50000")
        assert ours.keys() == theirs.keys()
        assert ours["result"] == theirs["result"] and ours["engine"] == "pn-dfpn"


@pytest.mark.parametrize("win_in", ["exact", "range"])
def test_win_distances_answer_as_the_command_line(win_in):
    for text in late_positions(6):
        ours = uttt.solve(text, engine="dfpn", table_mem=TABLE, win_in=win_in)
        theirs = cli_json("solve", text, *EXACT, "--win-in", win_in)
        assert "win_in" in theirs
        assert without_timing(ours) == without_timing(theirs)


@pytest.mark.parametrize("rules", RULES)
def test_analyses_answer_the_command_lines_json(rules):
    for text in late_positions(6) + MIDGAME[:1]:
        position = uttt.Position.parse(text, rules)
        if position.is_over:
            continue
        ours = uttt.analyze(position, engine="dfpn", table_mem=TABLE, node_limit=20_000,
                            threads=1, estimate_playouts=500)
        theirs = cli_json("analyze", text, "--rules", rules, *EXACT, "--node-limit", "20000",
                          "--threads", "1", "--estimate-playouts", "500")
        assert without_timing(ours) == without_timing(theirs), text


def test_an_analysis_of_a_finished_game_is_refused_in_the_command_lines_words():
    over = random_game(4, 81)
    assert over.is_over
    with pytest.raises(CliError) as cli:
        run_cli("analyze", over.notation("uttt"))
    with pytest.raises(ValueError) as raised:
        uttt.analyze(over)
    assert str(raised.value) == str(cli.value)


@pytest.mark.parametrize("seed", [5, 6])
def test_reviews_answer_the_command_lines_json_lines(seed):
    game = random_game(seed, 81)
    moves = game.notation("moves")
    # One thread and a budget in playouts: the estimates are the same too.
    same = {"threads": 1, "estimate_playouts": 500}
    ours = uttt.review(game, engine="dfpn", table_mem=TABLE, node_limit=20_000, **same)
    theirs = cli_json("review", moves, *EXACT, "--node-limit", "20000", "--threads", "1",
                      "--estimate-playouts", "500")
    assert [line["type"] for line in ours] == [line["type"] for line in theirs]
    assert without_timing(ours) == without_timing(theirs)
    # The same game as text, and under another rule set.
    assert without_timing(uttt.review(moves, engine="dfpn", table_mem=TABLE,
                                      node_limit=20_000, **same)) == without_timing(theirs)
    open_moves = random_game(seed, 81, "open").notation("moves")
    open_game = uttt.review(open_moves, rules="open", engine="dfpn", table_mem=TABLE,
                            node_limit=20_000, **same)
    assert without_timing(open_game) == without_timing(
        cli_json("review", open_moves, "--rules", "open", *EXACT, "--node-limit", "20000",
                 "--threads", "1", "--estimate-playouts", "500"))


def test_a_review_needs_the_games_moves():
    with pytest.raises(ValueError, match="needs a game"):
        uttt.review(uttt.Position.parse(late_positions(1)[0]))
    with pytest.raises(CliError) as cli:
        run_cli("review", "ee zz")
    with pytest.raises(ValueError) as raised:
        uttt.review("ee zz")
    assert str(raised.value) == str(cli.value)


def test_certificates_verify_as_the_command_line_checks_them(tmp_path):
    certificate = tmp_path / "late.cert"
    run_cli("solve", late_positions(2)[1], "--certificate", str(certificate), *EXACT)
    ours = uttt.verify(str(certificate))
    theirs = cli_json("verify", str(certificate))
    assert ours["verified"] is True
    assert without_timing(ours) == without_timing(theirs)
    broken = tmp_path / "broken.cert"
    broken.write_bytes(certificate.read_bytes()[:-7])
    with pytest.raises(CliError) as cli:
        run_cli("verify", str(broken))
    with pytest.raises(ValueError) as raised:
        uttt.verify(broken)
    assert str(raised.value) == str(cli.value)


@pytest.mark.parametrize(
    "options",
    [
        {"time_limit": "soon"},
        {"time_limit": -1},
        {"table_mem": "lots"},
        {"win_in": "never"},
        {"engine": "alpha-beta"},
        {"threads": 0},
        {"threads": 5000},
        {"threads": -1},
        {"estimate_playouts": -5},
    ],
)
def test_bad_options_raise_value_errors_that_name_them(options):
    with pytest.raises(ValueError, match=next(iter(options))):
        uttt.solve("start", node_limit=1, **options)


def test_choose_answers_the_command_lines_play_json_with_one_thread_and_a_seed():
    text = MIDGAME[0]
    ours = uttt.choose(text, threads=1, playouts=3000, seed=4, table_mem=TABLE)
    theirs = cli_json(
        "play", text, "--threads", "1", "--playouts", "3000", "--seed", "4",
        "--table-mem", TABLE,
    )
    assert ours.keys() == theirs.keys()
    assert without_timing(ours) == without_timing(theirs)
    assert ours["move"] in uttt.Position.parse(text).legal_moves()


def test_a_solver_keeps_its_tree_from_move_to_move():
    solver = uttt.Solver(threads=1, table_mem=TABLE)
    position = uttt.Position.parse("ee ea")
    first = solver.choose(position, playouts=4000)
    assert first["reused_playouts"] == 0
    after = position.play(first["move"]).play(first["pv"][1])
    second = solver.choose(after, playouts=4000)
    assert second["reused_playouts"] > 0
    assert not second["proved"] and second["estimate"]["playouts"] > 0


def test_choose_on_a_finished_game_names_no_move_and_bad_options_raise():
    finished = uttt.Position.parse("ee ea")
    while finished.legal_moves():
        finished = finished.play(finished.legal_moves()[0])
    answer = uttt.choose(finished, playouts=10)
    assert answer["move"] is None and answer["proved"]
    with pytest.raises(ValueError, match="playouts"):
        uttt.choose("ee", playouts=0)
    with pytest.raises(ValueError, match="temperature"):
        uttt.choose("ee", temperature=-1)
    # Out-of-range whole numbers are ValueErrors that name the argument, not OverflowErrors.
    for keyword, value in [("playouts", -1), ("seed", 2**64), ("seed", -1), ("node_limit", -2)]:
        with pytest.raises(ValueError, match=keyword):
            uttt.choose("ee", **{keyword: value})
    with pytest.raises(ValueError, match="node_limit"):
        uttt.Solver(node_limit=2**64)
    with pytest.raises(TypeError, match="seed"):
        uttt.choose("ee", seed="one")
    with pytest.raises(ValueError, match="depth"):
        uttt.perft("start", -1)


def test_a_misspelt_keyword_names_the_function_called_and_dir_lists_the_packages_names():
    for function in (uttt.solve, uttt.analyze, uttt.choose):
        with pytest.raises(TypeError, match=rf"{function.__name__}\(\).*'time_limt'"):
            function("ee", time_limt=1)
    assert dir(uttt) == sorted(uttt.__all__)
    assert not {"Any", "Optional", "Union", "annotations"} & set(dir(uttt))
