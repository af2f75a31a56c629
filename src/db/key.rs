//! The database's key: an exact encoding of a position in a canonical orientation, so that the
//! eight symmetric images of a position (rotations and reflections applied to boards and cells
//! at once) share one entry, and no two different positions ever do.
//!
//! Why it is exact: the encoding holds every cell of both players, the side to move, the board
//! to play and the rule set, and, when won boards stay open, which player won first each
//! board where both have a line (the only part of a position its cells do not tell), so two
//! positions with the same encoding are equal. Positions of different rule sets never share a
//! key, and the common rules' keys are what they were before rule sets (their rule set and
//! first winners encode as zero bits). The canonical orientation
//! is the image whose encoding is smallest (bytewise); the images of one position are the same
//! set whichever image one starts from, so all eight reach the same smallest encoding, and a
//! position reaches it only from its own images. Symmetries preserve the rules (they map lines
//! to lines, so a won board, a full board and a won game stay so), so an answer about the
//! canonical image is an answer about every image, with its moves mapped by the same symmetry.

use crate::game::tables::has_line;
use crate::game::tables::SYMMETRY_COUNT;
use crate::game::{Move, Player, Position};

/// Bytes of a key: 11 for each player's 81 cells (with 7 bits to spare in each), one for the
/// side to move, the board to play and the rule set.
pub const KEY_BYTES: usize = 23;

/// A position's encoding in its own orientation: X's cells in bytes 0–10 (bits 0–80), the
/// boards O won first among those where both players have a line in bits 81–87 and (boards 7
/// and 8) in bits 81–82 of O's cells, which fill bytes 11–21; then the board to play (9: any)
/// in bits 0–3 of byte 22, the side to move in bit 4 and the rule set's index in bits 5–6.
pub fn encode(pos: &Position) -> [u8; KEY_BYTES] {
    let contested = (0..9)
        .filter(|&board| {
            has_line(pos.local_cells(Player::X, board))
                && has_line(pos.local_cells(Player::O, board))
        })
        .fold(0u16, |mask, board| mask | 1 << board);
    let o_first = u128::from(pos.won_boards(Player::O) & contested);
    let x_part = pos.cells(Player::X) | (o_first & 0x7F) << 81;
    let o_part = pos.cells(Player::O) | (o_first >> 7) << 81;
    let mut key = [0u8; KEY_BYTES];
    key[..11].copy_from_slice(&x_part.to_le_bytes()[..11]);
    key[11..22].copy_from_slice(&o_part.to_le_bytes()[..11]);
    let board = pos.target_board().map_or(9, |b| b as u8);
    key[22] = (pos.rules().index() as u8) << 5 | (pos.side_to_move().index() as u8) << 4 | board;
    key
}

/// A position's canonical image: its key, the image, and the symmetry that maps `pos` to it.
pub fn canonical(pos: &Position) -> ([u8; KEY_BYTES], Position, usize) {
    (0..SYMMETRY_COUNT)
        .map(|sym| {
            let image = pos.transform(sym);
            (encode(&image), image, sym)
        })
        .min_by(|a, b| a.0.cmp(&b.0))
        .expect("there are eight symmetries")
}

/// The move of `pos` that symmetry `sym` maps to `image_move` (a move of `pos.transform(sym)`),
/// if it is legal in `pos`.
pub fn move_back(pos: &Position, sym: usize, image_move: Move) -> Option<Move> {
    pos.legal_moves()
        .into_iter()
        .find(|&mv| mv.transform(sym) == image_move)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Rng, Rules};

    /// Positions from seeded random playouts of every length, under every rule set.
    fn positions() -> Vec<Position> {
        let mut rng = Rng::new(41);
        (0..3_000)
            .map(|i| {
                let start = Position::start_under(Rules::ALL[i % 3]);
                let moves = rng.playout(&start, (i / 3) % 80);
                moves.iter().fold(start, |p, &m| p.play(m))
            })
            .collect()
    }

    #[test]
    fn common_rules_keys_are_the_cells_side_and_board_alone() {
        for pos in positions()
            .into_iter()
            .filter(|p| p.rules() == Rules::Common)
        {
            let key = encode(&pos);
            assert_eq!(key[..11], pos.cells(Player::X).to_le_bytes()[..11]);
            assert_eq!(key[11..22], pos.cells(Player::O).to_le_bytes()[..11]);
            assert_eq!(key[22] >> 5, 0);
        }
    }

    #[test]
    fn the_first_winner_of_a_board_both_players_won_is_in_the_key() {
        let text = "O;x........;XXX.O..../.O......./........./........./........./........./........./........./.........";
        let pos = crate::game::parse_position_under(text, Rules::WonBoardsOpen).unwrap();
        let pos = crate::game::play_move_list(&pos, "ad da af").unwrap();
        let (x, o) = (pos.local_cells(Player::X, 0), pos.local_cells(Player::O, 0));
        assert!(has_line(x) && has_line(o));
        let mut notation = crate::game::format_position(&pos);
        notation.replace_range(2..3, "O");
        let o_first = crate::game::parse_position_under(&notation, Rules::WonBoardsOpen).unwrap();
        assert_ne!(o_first, pos);
        assert_ne!(encode(&o_first), encode(&pos));
    }

    #[test]
    fn every_image_of_a_position_has_its_key_and_no_other_position_does() {
        let mut owner = std::collections::HashMap::new();
        for pos in positions() {
            let (key, image, _) = canonical(&pos);
            for sym in 0..SYMMETRY_COUNT {
                assert_eq!(canonical(&pos.transform(sym)).0, key, "{pos}");
            }
            // A key names one symmetry class: every position that has it is an image of the
            // first position seen with it.
            let first = *owner.entry(key).or_insert(pos);
            assert!(
                (0..SYMMETRY_COUNT).any(|sym| first.transform(sym) == pos),
                "{pos} and {first} share a key"
            );
            assert_eq!(encode(&image), key);
        }
    }

    #[test]
    fn the_encoding_tells_every_position_apart() {
        let mut seen = std::collections::HashMap::new();
        for pos in positions() {
            if let Some(other) = seen.insert(encode(&pos), pos) {
                assert_eq!(other, pos, "two positions, one encoding");
            }
        }
    }

    #[test]
    fn moves_map_to_the_image_and_back() {
        for pos in positions().into_iter().filter(|p| !p.is_over()).take(300) {
            for sym in 0..SYMMETRY_COUNT {
                let image = pos.transform(sym);
                for mv in pos.legal_moves() {
                    let mapped = mv.transform(sym);
                    assert!(image.is_legal(mapped), "{pos} {mv} sym {sym}");
                    assert_eq!(image.play(mapped), pos.play(mv).transform(sym));
                    assert_eq!(move_back(&pos, sym, mapped), Some(mv));
                }
            }
        }
    }
}
