//! Kill in two: a defender move after which every attacker move hands the defender a win at
//! once or lets it kill ([`kill_in_two`]). The depth-two form of the kills (module `kills`,
//! whose fact, that a move changes only its own board, the masks here build on).

use super::kills::{attacker_done_for, key_boards, spoiling_cells_of, unkillable_among};
use crate::game::tables::{completing_indices, has_line, FULL_MASK};
use crate::game::{Move, MoveSet, Player, Position};

/// A move of the defender (the side to move, `attacker`'s opponent) after which every move of
/// the attacker either hands the defender a win at once or lets it kill (a **kill in two**),
/// among `moves` (the defender's safe moves, see [`super::safe_moves`]); meant for a position
/// where the defender has no immediate win and no kill in one (where it has, such a move may
/// be returned too). [`super::evaluate`] looks for it where the attacker has a key board or the
/// defender a winning board.
///
/// Proof that the defender then meets its goal, under every rule set and any ply bound: after
/// the move the game goes on and the attacker cannot win at once (the move is safe, and it is
/// checked). Whatever the attacker replies, the defender next completes its own line of boards
/// (a win, which keeps the attacker from winning), or leaves the attacker unable ever to win
/// ([`super::kill_in_one`]), or the reply itself left it so (the game over without its win, or the
/// attacker dead). A win of the defender or a dead attacker meets the defender's goal whenever
/// a deadline would come. This includes the defender's win in two (every reply hands it a win).
///
/// Each candidate is checked exactly by playing it out: after it, the attacker's safe moves
/// ([`super::safe_moves`]) that [`super::unkillable_moves`] keeps must be none. Most candidates are
/// turned away first by masks (module `kills`' fact), without playing them. Let the defender's
/// move be in board `B`, cell `c`, and not complete its line of boards. After it, only `B` has
/// changed: it may be won by the defender (which adds `B` to the defender's won boards) or
/// full (either closes it, or only full when won boards stay open), and it leaves the
/// attacker's winnable boards exactly when the cell takes it (see `spoiling_cells`). So the
/// defender's winning boards other than `B` are read from its won boards after the move, the
/// closed boards are known, and the attacker's key boards are as before or as those of its
/// winnable boards without `B`. With none left the move kills at once: it is played out.
/// Otherwise the move is no kill in two when the attacker, sent to board `c` (or free to play
/// in any open board, if `c` is closed after the move), has a reply in a board `R`, in an empty
/// cell `c'` other than `R`, that does not fill `R` (nor, with `R` the last open board, win
/// it), and sends the defender to a board `c'` that is open and gives the defender neither a
/// win at once nor a kill: for `c'` other than `B`, not one of the defender's winning boards
/// after the move and not a key board after it that the defender could take from the attacker;
/// for `c'` = `B` (`R` another board), the same read from `B` with the defender's new stone.
/// Proof: such a reply does not end the game unless it completes the attacker's line (then the
/// attacker has won, and the move is no kill in two either). It changes only `R`, and takes
/// nothing from the attacker's winnable boards: a stone of the attacker's that wins `R` keeps
/// `R` among them, and one that neither wins nor fills `R` leaves `R` open with a line free of
/// defender stones. So its key boards are as after the defender's move, it is not dead, and
/// board `c'` and the defender's won boards are as after the defender's move. The defender,
/// sent to `c'`, cannot win at once there (`c'` is none of its winning boards then) and cannot
/// kill there (`c'` is not a key board it could take: [`super::kill_in_one`]'s proof). So the reply
/// is safe and [`super::unkillable_moves`] keeps it: the defender's move is no kill in two. Under
/// CodinGame's rules any open key board not the attacker's counts as one the defender could
/// take.
pub fn kill_in_two(pos: &Position, attacker: Player, moves: MoveSet) -> Option<Move> {
    let threats = super::winning_boards(pos, attacker.opponent());
    kill_in_two_among(pos, attacker, pos.winnable_boards(attacker), threats, moves)
}

/// [`kill_in_two`], given the attacker's winnable boards and the defender's winning boards
/// `threats` (which [`super::evaluate`] has).
pub(super) fn kill_in_two_among(
    pos: &Position,
    attacker: Player,
    winnable: u16,
    threats: u16,
    moves: MoveSet,
) -> Option<Move> {
    let defender = attacker.opponent();
    let by_masks = !pos.rules().board_count_decides();
    let closed = pos.closed_boards();
    let open = FULL_MASK & !closed;
    let attackers = pos.won_boards(attacker);
    let defenders = pos.won_boards(defender);
    let owned = pos.owned_boards();
    let occupied_by_board = pos.all_local_occupied();
    let defender_cells = pos.all_local_cells(defender);
    let spoiling_cells =
        |board: usize| spoiling_cells_of(defender_cells[board], occupied_by_board[board]);
    // Of the key boards `keys`, those open, not the attacker's, where a defender stone could
    // take the board from the attacker, judged by masks (under CodinGame's rules every such
    // board).
    let takeable = |keys: u16| {
        super::boards_where(keys & open & !attackers, |board| {
            !by_masks || spoiling_cells(board) != 0
        })
    };
    let keys = key_boards(winnable);
    // The cells of board `reply_board` where an attacker reply neither fills it nor sends the
    // defender back there (`taken`: a defender stone just placed there, or 0).
    let plain_replies = |reply_board: usize, taken: u16| {
        let empty = FULL_MASK & !(occupied_by_board[reply_board] | taken);
        let fills = super::filling_cell(empty);
        empty & !fills & !(1 << reply_board)
    };
    // A defender move that neither wins, fills nor takes its board leaves every other board,
    // the defender's winning boards (but its own board's) and the key boards as they were;
    // sent to another open board `T`, the attacker escapes by a reply to a board other than
    // `B` exactly when `escaping[T]`, without `B`, is not empty.
    let bad_as_before = threats | closed | takeable(keys);
    // Built at the first plain move (the caller may pass none).
    let mut plain_tables: Option<([u16; 9], [u16; 9])> = None;
    let mut boards = super::boards_of(moves);
    while boards != 0 {
        let board = boards.trailing_zeros() as usize;
        boards &= boards - 1;
        let board_bit = 1u16 << board;
        let cells = (moves.0 >> (9 * board)) as u16 & FULL_MASK;
        let mine = defender_cells[board];
        let occupied = occupied_by_board[board];
        let empty = FULL_MASK & !occupied;
        let fills = super::filling_cell(empty);
        let wins = if owned & board_bit == 0 {
            completing_indices(mine) & empty
        } else {
            0
        };
        let takes_board = if winnable & !attackers & board_bit != 0 {
            spoiling_cells(board)
        } else {
            0
        };
        let plain_moves = cells & !fills & !wins & !takes_board;
        let (plain, escaping) = if plain_moves != 0 {
            *plain_tables.get_or_insert_with(|| {
                let plain: [u16; 9] = std::array::from_fn(|board| plain_replies(board, 0));
                (plain, plain.map(|replies| replies & !bad_as_before))
            })
        } else {
            ([0; 9], [0; 9])
        };
        // Whether a free attacker (sent to a closed board) escapes after a plain move by a
        // reply to a board other than `B`, from a board other than `B`.
        let free_escapes = plain_moves & closed != 0
            && (0..9)
                .filter(|&other| open & !board_bit & 1 << other != 0)
                .any(|other| escaping[other] & !board_bit != 0);
        let keys_without_board = key_boards(winnable & !board_bit);
        // The defender's winning boards other than `B` once it has won `B`.
        let threats_with_board = if wins != 0 {
            super::winning_boards_with(pos, defender, defenders | board_bit) & !board_bit
        } else {
            0
        };
        let mut remaining = cells;
        while remaining != 0 {
            let cell = remaining.trailing_zeros() as usize;
            remaining &= remaining - 1;
            let bit = 1u16 << cell;
            let mv = Move::new(board, cell);
            let won = wins & bit != 0;
            let closes = fills & bit != 0 || (won && pos.rules().won_boards_close());
            let closed_after = closed | if closes { board_bit } else { 0 };
            let open_after = FULL_MASK & !closed_after;
            let keys_after = if takes_board & bit != 0 {
                keys_without_board
            } else {
                keys
            };
            let defenders_after = defenders | if won { board_bit } else { 0 };
            // A move that wins the game or leaves no line kills at once: it is played out.
            if (won && has_line(defenders_after)) || (keys_after == FULL_MASK && by_masks) {
                if kills_in_two(pos, attacker, mv) {
                    return Some(mv);
                }
                continue;
            }
            // Whether board `B`, as the move leaves it, is one the defender could win or kill
            // in (closed: it would be free to play anywhere, counted as such).
            let board_is_bad = || {
                closed_after & board_bit != 0 || {
                    let (mine_after, occupied_after) = (mine | bit, occupied | bit);
                    let threat = completing_indices(defenders_after) & !owned & board_bit != 0
                        && !won
                        && super::winning_cells(mine_after, occupied_after) != 0;
                    let takeable_key = keys_after & !attackers & board_bit != 0
                        && (!by_masks || spoiling_cells_of(mine_after, occupied_after) != 0);
                    threat || takeable_key
                }
            };
            let plain_move = plain_moves & bit != 0;
            let escapes = if plain_move && cell != board && open & bit != 0 {
                escaping[cell] & !board_bit != 0
                    || (plain[cell] & board_bit != 0 && !board_is_bad())
            } else if plain_move && cell != board && free_escapes {
                true
            } else {
                let threats_after = if won { threats_with_board } else { threats };
                // Boards other than `B` the defender, sent there, could win or kill in.
                let bad = threats_after | closed_after | takeable(keys_after);
                let reply_boards = if closed_after & bit == 0 {
                    bit
                } else {
                    open_after
                };
                let board_is_bad = board_is_bad();
                (0..9)
                    .filter(|&r| reply_boards & 1 << r != 0)
                    .any(|reply_board| {
                        let reply_bit = 1u16 << reply_board;
                        let taken = if reply_board == board { bit } else { 0 };
                        // A reply that wins the last open board would end the game.
                        let ends = if open_after == reply_bit {
                            completing_indices(pos.local_cells(attacker, reply_board))
                        } else {
                            0
                        };
                        let replies = plain_replies(reply_board, taken) & !ends;
                        replies & !board_bit & !bad != 0
                            || (reply_board != board && replies & board_bit != 0 && !board_is_bad)
                    })
            };
            if !escapes && kills_in_two(pos, attacker, mv) {
                return Some(mv);
            }
        }
    }
    None
}

/// Whether the defender's move `mv` is a kill in two, played out (see [`kill_in_two`]).
fn kills_in_two(pos: &Position, attacker: Player, mv: Move) -> bool {
    let after = pos.play(mv);
    if attacker_done_for(&after, attacker) {
        return true;
    }
    if after.is_over() {
        return false;
    }
    let replies = super::safe_moves(&after);
    unkillable_among(&after, attacker, after.winnable_boards(attacker), replies).is_empty()
}
