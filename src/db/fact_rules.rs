//! What the rules of the game alone say of a fact: a finished game's answer is its outcome, a
//! best move is a legal move. A fact they contradict is refused on import (`uttt db import`);
//! the search never makes one.

use super::Fact;
use crate::game::Outcome;

impl Fact {
    /// What the rules contradict in this fact, if anything: a game already over answered
    /// against its outcome, a win within no plies of a game in play, or a best move that is not
    /// a legal move of the position (a taken cell, a board the move may not go to, any move of
    /// a finished game).
    pub fn rule_defect(&self) -> Option<String> {
        let pos = &self.position;
        let question = format!(
            "\"does {} win{}?\"",
            self.attacker.letter(),
            self.within
                .map_or(String::new(), |plies| format!(" within {plies} plies"))
        );
        let answer = if self.wins { "yes" } else { "no" };
        let settled = match pos.outcome() {
            Outcome::Won(winner) => Some(winner == self.attacker),
            Outcome::Draw => Some(false),
            // Within no plies, a game in play is won by nobody.
            Outcome::InPlay if self.within == Some(0) => Some(false),
            Outcome::InPlay => None,
        };
        if let Some(truth) = settled.filter(|&truth| truth != self.wins) {
            let why = if pos.is_over() {
                "the game is over"
            } else {
                "no plies are left"
            };
            return Some(format!(
                "{question} is answered {answer}, but {why}: the answer is {}",
                if truth { "yes" } else { "no" }
            ));
        }
        match self.best_move {
            Some(mv) if !pos.is_legal(mv) => Some(format!(
                "the best move {mv} is not a legal move of the position"
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{fact, position};
    use crate::game::{Move, Outcome, Player, Position, Rng};

    #[test]
    fn the_rules_check_finished_games_and_best_moves() {
        let pos = position();
        let legal = pos.legal_moves().into_iter().next().unwrap();
        let mut sound = fact(pos, Player::X, true, Some(legal));
        assert_eq!(sound.rule_defect(), None);
        // A taken cell, or a move to a board the rules close to it.
        let taken = (0..81)
            .map(Move::from_square)
            .find(|&mv| !pos.is_legal(mv))
            .unwrap();
        sound.best_move = Some(taken);
        assert!(sound.rule_defect().unwrap().contains("not a legal move"));
        // A game X has won (the first seeded random game that X wins): "X wins" holds, "X
        // does not win" is refused, at any bound, and so is "O wins" and any best move.
        let won = (0..)
            .map(|seed| {
                let mut rng = Rng::new(seed);
                let mut game = Position::start();
                while let Some(mv) = rng.legal_move(&game) {
                    game = game.play(mv);
                }
                game
            })
            .find(|game| game.outcome() == Outcome::Won(Player::X))
            .unwrap();
        assert_eq!(fact(won, Player::X, true, None).rule_defect(), None);
        assert_eq!(fact(won, Player::O, false, None).rule_defect(), None);
        let mut wrong = fact(won, Player::X, false, None);
        assert!(wrong.rule_defect().unwrap().contains("the game is over"));
        wrong.within = Some(4);
        assert!(wrong.rule_defect().is_some());
        assert!(fact(won, Player::O, true, None).rule_defect().is_some());
        let any = Move::from_square(0);
        assert!(fact(won, Player::X, true, Some(any))
            .rule_defect()
            .is_some());
        // Within no plies nobody wins a game in play.
        let mut now = fact(pos, Player::O, true, None);
        now.within = Some(0);
        assert!(now.rule_defect().unwrap().contains("no plies are left"));
        now.wins = false;
        assert_eq!(now.rule_defect(), None);
    }
}
