#!/usr/bin/env python3
"""An independent second checker of uttt proof certificates (docs/certificates.md).

Plain Python 3, standard library only, sharing no code with the Rust verifier: the game rules
(common, open, codingame) are written here again from docs/cli.md and ../shared/RULES.md.

    python3 scripts/check_certificate.py FILE [FILE...]

Prints each block as `verified` (positions visited, bytes used) or `FAILED` with the reason and
the position; exits 0 when every block of every file verifies, 1 otherwise (unreadable files too).
"""
import sys
import time

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
EMPTY, X, O = 0, 1, 2
NAME = {X: "X", O: "O"}
NEVER = 1000  # a board's "need" when the opponent can never win it (more than any count)
# The 8 symmetries of a 3x3 grid, each a permutation of 0..8 (index -> image).
ROT = [6, 3, 0, 7, 4, 1, 8, 5, 2]
MIRROR = [2, 1, 0, 5, 4, 3, 8, 7, 6]
SYMS = []
for _mirror in (False, True):
    _p = MIRROR[:] if _mirror else list(range(9))
    for _ in range(4):
        SYMS.append(_p)
        _p = [ROT[i] for i in _p]


class Fail(Exception):
    pass


class BadFile(Exception):
    pass


# A position is a tuple (cells, side, target, winners), hashable, so it is its own
# "visited before" key: cells is 81 bytes (square = board*9 + cell; 0 empty, 1 X, 2 O), side 1
# or 2, target the board the side to move must play in (-1: any), winners 9 bytes (each
# board's first winner, 0 for none; under `open` the cells alone do not tell it).


def line_of(cells, b, p):
    return any(all(cells[b * 9 + i] == p for i in ln) for ln in LINES)


def full(cells, b):
    return all(cells[b * 9 + i] != EMPTY for i in range(9))


def closed(rules, cells, winners, b):
    # Under `open` only a full board is closed; otherwise won or full.
    return full(cells, b) or (rules != "open" and winners[b] != EMPTY)


def result(rules, pos):
    """None while the game is in play; else the winner (1 or 2), or 0 for a draw."""
    cells, _, _, winners = pos
    for a, b, c in LINES:
        if winners[a] != EMPTY and winners[a] == winners[b] == winners[c]:
            return winners[a]
    if not all(closed(rules, cells, winners, b) for b in range(9)):
        return None
    if rules == "codingame":
        nx, no = winners.count(X), winners.count(O)
        return X if nx > no else O if no > nx else 0
    return 0


def legal_moves(rules, pos):
    cells, _, target, winners = pos
    if result(rules, pos) is not None:
        return []
    boards = [target] if target >= 0 else [b for b in range(9) if not closed(rules, cells, winners, b)]
    return [b * 9 + c for b in boards for c in range(9) if cells[b * 9 + c] == EMPTY]


def play(rules, pos, sq):
    cells, side, _, winners = pos
    b, c = divmod(sq, 9)
    cells = bytearray(cells)
    cells[sq] = side
    winners = bytearray(winners)
    if winners[b] == EMPTY and line_of(cells, b, side):
        winners[b] = side  # a board keeps its first winner
    target = -1 if closed(rules, cells, winners, c) else c
    after = (bytes(cells), 3 - side, target, bytes(winners))
    if target >= 0 and result(rules, after) is not None:
        after = (after[0], after[1], -1, after[3])  # a finished game has no board to play
    return after


def has_winning_move(rules, pos):
    """Leaf rule 2: the side to move has a move in a board that would complete a line of its
    won boards, after which it has won the game. Under common and open rules that is "a move
    that completes a line of won boards"; under codingame such a move may also win on the
    board count by ending the game (a count win by a move in another board is no leaf)."""
    side, winners = pos[1], pos[3]
    for sq in legal_moves(rules, pos):
        b = sq // 9
        if any(b in ln and all(winners[o] == side for o in ln if o != b) for ln in LINES):
            if result(rules, play(rules, pos, sq)) == side:
                return True
    return False


def opponent_dead(rules, pos, prover):
    """Leaf rule 3 (unbounded holds): every line of boards has a board the opponent cannot win."""
    cells, _, _, winners = pos

    def dead(b):
        if winners[b] == prover:
            return True
        if winners[b] != EMPTY:
            return False
        return full(cells, b) or all(any(cells[b * 9 + i] == prover for i in ln) for ln in LINES)

    return all(any(dead(b) for b in ln) for ln in LINES)


def too_slow(rules, pos, prover, plies_left):
    """Bounded leaf rule 4 (holds): the opponent cannot win in the plies left."""
    cells, side, _, winners = pos
    opp = 3 - prover
    need = []
    for b in range(9):
        if winners[b] == opp:
            need.append(0)
        elif winners[b] == prover or closed(rules, cells, winners, b):
            need.append(NEVER)
        else:
            best = -1
            for ln in LINES:
                stones = [cells[b * 9 + i] for i in ln]
                if prover not in stones:
                    best = max(best, stones.count(opp))
            need.append(NEVER if best < 0 else 3 - best)
    opp_moves = (plies_left + 1) // 2 if side == opp else plies_left // 2
    if any(sum(need[b] for b in ln) <= opp_moves for ln in LINES):
        return False
    if rules == "codingame":
        return sum(1 for n in need if n < NEVER) <= winners.count(prover)
    return True


def symmetric_images(pos):
    cells, side, target, winners = pos
    images = set()
    for p in SYMS:
        c2, w2 = bytearray(81), bytearray(9)
        for b in range(9):
            w2[p[b]] = winners[b]
            for c in range(9):
                c2[p[b] * 9 + p[c]] = cells[b * 9 + c]
        images.add((bytes(c2), side, p[target] if target >= 0 else -1, bytes(w2)))
    return images


def parse_position(text, rules):
    """The notation SIDE;BOARDS;CELLS, optionally after `RULES:`; returns a position."""
    if ":" in text:
        prefix, text = text.split(":", 1)
        if prefix != rules:
            raise BadFile("the position's rule set %r is not the block's %r" % (prefix, rules))
    parts = text.split(";")
    if len(parts) != 3 or parts[0] not in ("X", "O") or len(parts[1]) != 9:
        raise BadFile("bad position %r" % text)
    groups = parts[2].split("/")
    if len(groups) != 9 or any(len(g) != 9 or set(g) - set(".XO") for g in groups):
        raise BadFile("bad cells in position %r" % text)
    cells = bytes(".XO".index(ch) for g in groups for ch in g)
    side = X if parts[0] == "X" else O
    winners, target = bytearray(9), -1
    for b, mark in enumerate(parts[1]):
        if mark not in ".@#XOxo" or (mark in "xo" and rules != "open"):
            raise BadFile("bad board mark %r in position %r" % (mark, text))
        if mark in "@xo":
            if target >= 0:
                raise BadFile("two boards to play in position %r" % text)
            target = b
        if mark in "XOxo":
            winners[b] = X if mark in "Xx" else O
            if not line_of(cells, b, winners[b]):
                raise BadFile("board %d is marked won without a line in %r" % (b, text))
        elif line_of(cells, b, X) or line_of(cells, b, O) or full(cells, b) != (mark == "#"):
            raise BadFile("board %d's mark %r does not agree with its cells in %r" % (b, mark, text))
    if target >= 0 and closed(rules, cells, winners, target):
        raise BadFile("the board to play is closed in %r" % text)
    nx, no = cells.count(X), cells.count(O)
    if nx - no != (0 if side == X else 1):
        raise BadFile("stone counts do not fit the side to move in %r" % text)
    pos = (cells, side, target, bytes(winners))
    if target >= 0 and result(rules, pos) is not None:
        raise BadFile("a board to play in a finished game in %r" % text)
    return pos


def show(rules, pos):
    cells, side, target, winners = pos
    marks = ""
    for b in range(9):
        if b == target:
            marks += "@xo"[winners[b]]
        elif winners[b] != EMPTY:
            marks += NAME[winners[b]]
        else:
            marks += "#" if full(cells, b) else "."
    groups = "/".join("".join(".XO"[v] for v in cells[b * 9:b * 9 + 9]) for b in range(9))
    text = "%s;%s;%s" % (NAME[side], marks, groups)
    return text if rules == "common" else rules + ":" + text


def parse_blocks(data):
    blocks, at = [], 0

    def line():
        nonlocal at
        end = data.find(b"\n", at)
        if end < 0:
            raise BadFile("block %d: a text line has no end" % (len(blocks) + 1))
        text = data[at:end].decode("utf-8")
        at = end + 1
        return text

    while at < len(data):
        blk = {"index": len(blocks) + 1}
        head = line()
        if head not in ("uttt-certificate 1", "uttt-certificate 2", "uttt-certificate 3"):
            raise BadFile("block %d: bad first line %r" % (blk["index"], head))
        blk["version"] = int(head[-1])
        blk["rules"] = "common"
        if blk["version"] == 3:
            words = line().split(" ")
            if len(words) != 2 or words[0] != "rules" or words[1] not in ("open", "codingame"):
                raise BadFile("block %d: bad rules line %r" % (blk["index"], " ".join(words)))
            blk["rules"] = words[1]
        claim = line()
        words = claim.split(" ")
        if len(words) not in (3, 6) or words[0] != "claim" or words[1] not in ("X", "O") or words[2] not in ("wins", "holds"):
            raise BadFile("block %d: bad claim line %r" % (blk["index"], claim))
        blk["prover"], blk["kind"], blk["bound"] = (X if words[1] == "X" else O), words[2], None
        if len(words) == 6:
            n = words[4]
            if (words[3] != ("within" if words[2] == "wins" else "for") or words[5] not in ("ply", "plies")
                    or not n.isdigit() or not n.isascii() or (n != "0" and n[0] == "0") or int(n) > 81):
                raise BadFile("block %d: bad bound in %r" % (blk["index"], claim))
            blk["bound"] = int(n)
        blk["claim"] = claim[len("claim "):]
        text = line()
        if not text.startswith("position "):
            raise BadFile("block %d: bad position line %r" % (blk["index"], text))
        blk["position"] = parse_position(text[len("position "):], blk["rules"])
        text = line()
        n = text[len("moves "):]
        if not text.startswith("moves ") or not n.isdigit() or not n.isascii():
            raise BadFile("block %d: bad moves line %r" % (blk["index"], text))
        n = int(n)
        if len(data) - at < n:
            raise BadFile("block %d: %d move bytes announced, %d present" % (blk["index"], n, len(data) - at))
        blk["moves"], at = data[at:at + n], at + n
        blocks.append(blk)
    if not blocks:
        raise BadFile("no block")
    return blocks


def check_block(blk, references):
    """Traverse one block; returns (positions visited, bytes used) or raises Fail."""
    rules, prover, holds, bound = blk["rules"], blk["prover"], blk["kind"] == "holds", blk["bound"]
    moves = blk["moves"]
    root = blk["position"]
    root_stones = 81 - root[0].count(EMPTY)
    visited = set()
    used = 0

    def visit(pos):
        nonlocal used
        if pos in visited:
            return
        visited.add(pos)
        res = result(rules, pos)
        if res is not None:  # rule 1
            if res == prover or (holds and res == 0):
                return
            raise Fail("the game ends against the claim in " + show(rules, pos))
        if bound is not None:
            plies_left = bound - (81 - pos[0].count(EMPTY) - root_stones)
            if plies_left <= 0:  # no ply left
                if holds:
                    return
                raise Fail("the claim's plies run out with the game in play in " + show(rules, pos))
        if pos[1] == prover and has_winning_move(rules, pos):  # rule 2 (bounded rule 3)
            return
        if holds and bound is not None and too_slow(rules, pos, prover, plies_left):
            return
        if holds and bound is None and rules != "codingame" and opponent_dead(rules, pos, prover):
            return  # rule 3
        if pos in references:  # rule 4
            return
        if pos[1] == prover:
            if used >= len(moves):
                raise Fail("the moves run out where the prover is to move in " + show(rules, pos))
            m = moves[used]
            used += 1
            if m not in legal_moves(rules, pos):
                raise Fail("move byte %d (%d) is not a legal move of the prover in %s" % (used - 1, m, show(rules, pos)))
            visit(play(rules, pos, m))
        else:
            for m in legal_moves(rules, pos):
                visit(play(rules, pos, m))

    visit(root)
    if used != len(moves):
        raise Fail("%d move bytes are left over after the proof" % (len(moves) - used))
    return len(visited), used


def check_file(path):
    print(path)
    try:
        with open(path, "rb") as f:
            blocks = parse_blocks(f.read())
    except (OSError, UnicodeDecodeError, BadFile) as e:
        print("  cannot read: %s" % e)
        return False
    ok = {}
    # The images of the verified unbounded blocks checked so far (all later than the block being
    # checked), by rules, prover and the claim they can stand in for: a `wins` block for both
    # claims, a `holds` block for `holds` only. Kept as the blocks are checked, so that a file of
    # many blocks costs its length, not its square.
    stand_ins = {}
    for blk in reversed(blocks):  # references point later: check last to first
        references = set()
        if blk["version"] >= 2 and blk["bound"] is None:
            references = stand_ins.get((blk["rules"], blk["prover"], blk["kind"]), set())
        t = time.time()
        try:
            positions, used = check_block(blk, references)
            ok[blk["index"]] = True
            blk["report"] = "verified (%d positions, %d bytes, %.2f s)" % (positions, used, time.time() - t)
        except Fail as e:
            ok[blk["index"]] = False
            blk["report"] = "FAILED: %s" % e
        if ok[blk["index"]] and blk["bound"] is None:
            met = ("wins", "holds") if blk["kind"] == "wins" else ("holds",)
            for kind in met:
                stand_ins.setdefault((blk["rules"], blk["prover"], kind), set()).update(
                    symmetric_images(blk["position"]))
    for blk in blocks:
        print("  block %d (v%d, rules %s): %s at %s: %s" % (blk["index"], blk["version"], blk["rules"], blk["claim"],
                                                          show(blk["rules"], blk["position"]), blk["report"]))
    return all(ok.values())


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip())
        return 1
    sys.setrecursionlimit(10000)
    results = [check_file(path) for path in argv[1:]]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
