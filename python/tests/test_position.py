"""Positions: reading every notation, moves, drawings, symmetries and tensors, checked against
``uttt show`` and ``uttt perft``."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

import uttt
from conftest import CliError, cli_json, late_positions, run_cli

RULES = ["common", "open", "codingame"]


def random_game(seed: int, plies: int, rules: str = "common") -> uttt.Position:
    """A game of up to ``plies`` random moves from the start."""
    rng = random.Random(seed)
    position = uttt.Position.parse("start", rules)
    for _ in range(plies):
        moves = position.legal_moves()
        if not moves:
            break
        position = position.play(rng.choice(moves))
    return position


GAMES = [random_game(seed, plies) for seed, plies in [(1, 0), (2, 9), (3, 30), (4, 81)]]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: str(len(g.moves)))
def test_a_game_reads_as_the_command_line_shows_it(game):
    text = game.notation("moves") if game.moves else "start"
    shown = cli_json("show", text)
    assert game.notation("uttt") == shown["position"]
    assert game.to_move == shown["to_move"]
    assert game.is_over == shown["game_over"]
    assert game.legal_moves() == shown["legal_moves"]
    assert game.moves == shown["moves"]
    notations = shown["notations"]
    assert game.notation("uttt.ai") == notations["uttt_ai_state"]
    assert game.notation("uttt.ai-link") == notations["uttt_ai_link"]
    if game.moves:
        assert game.notation("uttt.ai-moves") == notations["uttt_ai_moves"]
        assert game.notation("uttt.ai-moves-link") == notations["uttt_ai_moves_link"]
        assert game.notation("codingame") == notations["codingame"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: str(len(g.moves)))
@pytest.mark.parametrize(
    "kind", ["uttt", "moves", "uttt.ai", "uttt.ai-link", "uttt.ai-moves-link", "codingame"]
)
def test_every_notation_reads_back_as_the_same_position(game, kind):
    if not game.moves and kind in ("uttt.ai-moves-link", "codingame"):
        pytest.skip("an empty game has no move list in these notations")
    text = game.notation(kind)
    again = uttt.Position.parse(text)
    assert again == game, f"{kind}: {text}"
    assert hash(again) == hash(game)
    if kind not in ("uttt", "uttt.ai", "uttt.ai-link"):
        assert again.moves == game.moves


@pytest.mark.parametrize("rules", RULES)
def test_positions_draw_as_uttt_show_draws_them(rules):
    for text in late_positions(4) + ["start", "ee ea ae"]:
        try:
            shown = run_cli("show", text, "--rules", rules)
        except CliError as error:
            with pytest.raises(ValueError) as raised:
                uttt.Position.parse(text, rules)
            assert str(raised.value) == str(error)
            continue
        position = uttt.Position.parse(text, rules)
        assert str(position) == shown
        assert position.rules == rules
        assert uttt.Position.parse(position.notation("uttt")) == position


@pytest.mark.parametrize(
    "text",
    ["", "X;.........", "zz", "ee ee", "ee ea zz", "X;@........;" + "/".join(["........."] * 8)],
)
def test_bad_positions_raise_the_command_lines_words(text):
    with pytest.raises(CliError) as cli:
        run_cli("show", text)
    with pytest.raises(ValueError) as raised:
        uttt.Position.parse(text)
    assert str(raised.value) == str(cli.value)


@pytest.mark.parametrize("move", ["zz", "aa", "a", "ee ea", "ea zz"])
def test_bad_moves_raise_the_command_lines_words(move):
    start = uttt.Position.parse("ee")
    with pytest.raises(CliError) as cli:
        run_cli("show", "ee", "--moves", move)
    with pytest.raises(ValueError) as raised:
        start.play(move)
    # The command line names its option, the package the move; the reason is the same.
    assert str(cli.value).startswith(f"invalid --moves `{move}`: ")
    assert str(raised.value) == f"invalid move `{move}`: " + str(cli.value).split(": ", 1)[1]


def test_moves_play_by_name_list_or_square_index_and_leave_the_position_unchanged():
    start = uttt.Position()
    after = start.play("ee")
    assert start == uttt.Position.parse("start") and start != after
    assert after == start.play(9 * 4 + 4)
    assert start.play("ee ea") == after.play("ea")
    assert after.moves == ["ee"] and start.moves == []
    for bad in (-1, 81, 1.5, None):
        with pytest.raises(ValueError):
            start.play(bad)


def test_the_result_and_side_to_move_follow_the_game():
    for game in GAMES:
        shown = cli_json("show", game.notation("uttt"))
        assert game.to_move == shown["to_move"]
        assert (game.result is not None) == shown["game_over"]
    over = GAMES[-1]
    assert over.is_over and over.result in ("X", "O", "draw") and over.legal_moves() == []


@pytest.mark.parametrize("game", GAMES[1:3], ids=lambda g: str(len(g.moves)))
def test_symmetries_map_positions_and_moves_onto_each_other(game):
    images = game.symmetries()
    assert len(images) == 8
    assert images[0][0] == game
    assert all(square == image for square, image in images[0][1].items())
    leaves = uttt.perft(game, 2)["leaves"]
    for image, moves in images:
        assert sorted(moves) == sorted(moves.values()), "a permutation of the 81 squares"
        assert sorted(moves[m] for m in game.legal_moves()) == image.legal_moves()
        assert uttt.perft(image, 2)["leaves"] == leaves
        assert image.play(moves[game.legal_moves()[0]]) in {
            i for i, _ in game.play(game.legal_moves()[0]).symmetries()
        }


@pytest.mark.parametrize("game", GAMES, ids=lambda g: str(len(g.moves)))
def test_planes_and_mask_hold_the_stones_and_legal_moves(game):
    planes, mask = game.planes(), game.legal_mask()
    assert planes.shape == (4, 9, 9) and planes.dtype == np.float32
    assert mask.shape == (81,) and mask.dtype == np.bool_
    legal = game.legal_moves()
    assert [uttt.Position().legal_moves()[i] for i in np.flatnonzero(mask)] == legal
    assert planes[2].sum() == len(legal) == mask.sum()
    cells = game.notation("uttt").split(";")[2].split("/")
    for board, group in enumerate(cells):
        for cell, mark in enumerate(group):
            row, column = 3 * (board // 3) + cell // 3, 3 * (board % 3) + cell % 3
            assert planes[0, row, column] == (mark == "X")
            assert planes[1, row, column] == (mark == "O")
            assert planes[2, row, column] == (chr(97 + board) + chr(97 + cell) in legal)
    # The board-to-play plane covers every board that has a legal move, and nothing else.
    boards = {m[0] for m in legal}
    assert planes[3].sum() == 9 * len(boards)


def test_positions_hash_compare_and_pickle_by_their_state():
    a = uttt.Position.parse("ee ea ae")
    b = uttt.Position.parse(a.notation("uttt"))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != "ee ea ae" and a != a.play(a.legal_moves()[0])
    again = pickle.loads(pickle.dumps(a))
    assert again == a and again.moves == a.moves
    assert eval(repr(a), {"Position": uttt.Position}) == a


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_perft_counts_as_the_command_line_does(depth):
    for text in ["start", GAMES[2].notation("uttt")]:
        ours = uttt.perft(text, depth, divide=True)
        theirs = cli_json("perft", str(depth), text, "--divide")
        assert ours.keys() == theirs.keys()
        assert ours["leaves"] == theirs["leaves"] and ours["divide"] == theirs["divide"]
        assert ours["depth"] == depth


def test_other_notations_need_won_boards_closed_and_games_their_moves():
    open_game = uttt.Position.parse("ee ea", "open")
    assert open_game.notation("uttt").startswith("open:")
    with pytest.raises(ValueError):
        open_game.notation("uttt.ai")
    without_moves = uttt.Position.parse(GAMES[2].notation("uttt"))
    assert without_moves.moves is None
    for kind in ("codingame", "moves", "uttt.ai-moves"):
        with pytest.raises(ValueError):
            without_moves.notation(kind)
    with pytest.raises(ValueError):
        GAMES[2].notation("chess")
    with pytest.raises(ValueError):
        uttt.Position.parse("start", "chess")
