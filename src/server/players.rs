//! The trees of the games the server plays (`/api/play`): a player's tree is kept after its
//! move, so that the next request of the same game (its position in the tree, within the reply
//! and the move after it) goes on from what the tree knows. A few trees are kept, the most
//! recent first, each bounded in memory; a request takes its tree out while it searches, so
//! that two requests never share one.

use crate::game::Position;
use crate::services::TreePlayer;
use std::sync::Mutex;

/// The most trees kept between requests (games played at once on one server).
pub const KEPT_TREES: usize = 4;

/// The memory of each tree (64 bytes a node): a game's tree for several seconds of search.
pub const PLAY_TREE_BYTES: u64 = 64 << 20;

/// The trees kept between requests.
#[derive(Default)]
pub struct Players {
    kept: Mutex<Vec<TreePlayer>>,
}

impl Players {
    /// No trees yet.
    pub fn new() -> Players {
        Players::default()
    }

    /// The player whose tree reaches `pos`, taken out of those kept, or a new one.
    pub fn take(&self, pos: &Position) -> TreePlayer {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match kept.iter().position(|player| player.reaches(pos)) {
            Some(index) => kept.remove(index),
            None => TreePlayer::new(),
        }
    }

    /// Keeps `player`'s tree for the next request of its game, dropping the oldest tree
    /// beyond [`KEPT_TREES`].
    pub fn keep(&self, player: TreePlayer) {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.insert(0, player);
        kept.truncate(KEPT_TREES);
    }
}
