//! The review's marks and walk, against hand-made values.

use super::*;

#[test]
fn marks_follow_the_movers_value() {
    use Verdict::{Draw, Unknown, Wins};
    let (x, o) = (Player::X, Player::O);
    assert_eq!(mark_of(x, Wins(x), Wins(x)), Some(Mark::Best));
    assert_eq!(mark_of(x, Wins(x), Draw), Some(Mark::Mistake));
    assert_eq!(mark_of(x, Wins(x), Wins(o)), Some(Mark::Blunder));
    assert_eq!(mark_of(x, Draw, Wins(o)), Some(Mark::Mistake));
    assert_eq!(mark_of(x, Draw, Draw), Some(Mark::Best));
    assert_eq!(mark_of(x, Wins(o), Wins(o)), Some(Mark::Best));
    assert_eq!(mark_of(o, Wins(o), Draw), Some(Mark::Mistake));
    assert_eq!(mark_of(o, Draw, Wins(x)), Some(Mark::Mistake));
    assert_eq!(mark_of(o, Wins(o), Wins(x)), Some(Mark::Blunder));
    assert_eq!(mark_of(x, Unknown, Draw), Some(Mark::Unknown));
    assert_eq!(mark_of(x, Wins(x), Unknown), Some(Mark::Unknown));
}

#[test]
fn a_move_that_raises_its_movers_value_is_a_disagreement_naming_both_values() {
    assert_eq!(
        mark_of(Player::X, Verdict::Draw, Verdict::Wins(Player::X)),
        None
    );
    // The game `ee ea`: X's `ee` from a position O wins (a wrong answer) to a draw.
    let moves: Vec<Move> = ["ee", "ea"].iter().map(|m| m.parse().unwrap()).collect();
    let mut positions = vec![Position::start()];
    for &mv in &moves {
        positions.push(positions[positions.len() - 1].play(mv));
    }
    let values = [Verdict::Wins(Player::O), Verdict::Draw, Verdict::Draw];
    let mut plies: Vec<PlyReview> = positions
        .iter()
        .zip(values)
        .enumerate()
        .map(|(ply, (&position, value))| PlyReview {
            reviewed: true,
            value,
            ..PlyReview::unreviewed(ply, position, moves.get(ply).copied())
        })
        .collect();
    let error = mark_moves(&mut plies).unwrap_err();
    assert_eq!(
        error,
        SolvesDisagree {
            ply: 0,
            played: moves[0],
            mover: Player::X,
            before: Verdict::Wins(Player::O),
            after: Verdict::Draw,
        }
    );
    let text = error.to_string();
    assert!(
        text.contains("at ply 0 (move 1): X played ee from a win for O to a draw"),
        "{text}"
    );
    // Values that agree are marked.
    plies[0].value = Verdict::Draw;
    mark_moves(&mut plies).unwrap();
    assert_eq!(plies[0].mark, Some(Mark::Best));
}
