//! The database's key: an exact encoding of a position in a canonical orientation, so that the
//! eight symmetric images of a position (rotations and reflections applied to boards and cells
//! at once) share one entry, and no two different positions ever do.
//!
//! Why it is exact: the encoding holds every cell of both players, the side to move and the
//! board to play, so two positions with the same encoding are equal. The canonical orientation
//! is the image whose encoding is smallest (bytewise); the images of one position are the same
//! set whichever image one starts from, so all eight reach the same smallest encoding, and a
//! position reaches it only from its own images. Symmetries preserve the rules (they map lines
//! to lines, so a won board, a full board and a won game stay so), so an answer about the
//! canonical image is an answer about every image, with its moves mapped by the same symmetry.

use crate::game::tables::SYMMETRY_COUNT;
use crate::game::{Move, Player, Position};

/// Bytes of a key: 11 for each player's 81 cells, one for the side to move and the board to
/// play.
pub const KEY_BYTES: usize = 23;

/// A position's encoding in its own orientation.
pub fn encode(pos: &Position) -> [u8; KEY_BYTES] {
    let mut key = [0u8; KEY_BYTES];
    key[..11].copy_from_slice(&pos.cells(Player::X).to_le_bytes()[..11]);
    key[11..22].copy_from_slice(&pos.cells(Player::O).to_le_bytes()[..11]);
    let board = pos.target_board().map_or(9, |b| b as u8);
    key[22] = (pos.side_to_move().index() as u8) << 4 | board;
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
    use crate::game::Rng;

    /// Positions from seeded random playouts of every length.
    fn positions() -> Vec<Position> {
        let mut rng = Rng::new(41);
        (0..2_000)
            .map(|i| {
                let moves = rng.playout(&Position::start(), i % 70);
                moves.iter().fold(Position::start(), |p, &m| p.play(m))
            })
            .collect()
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
