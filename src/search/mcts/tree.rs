//! The tree: nodes in one arena, each node's children side by side, grown one expansion at a
//! time; selection by UCT over the moves still able to change a value, and the backing up of
//! results and bounds. It knows nothing of threads: the search locks it for each step.

use super::bounds::{Bounds, Score};
use crate::game::tables::cells_of_boards;
use crate::game::{Move, MoveSet, Player, Position, Rng};

/// Where a node stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Made by its parent's expansion; nothing looked at yet.
    Fresh,
    /// Looked at (rules and table), not expanded.
    Looked,
    /// Its children are in the tree.
    Expanded,
}

/// One node. 64 bytes, so `--tree-mem` counts nodes simply.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The moves worth playing, once looked at.
    moves: MoveSet,
    /// The parent's index (the root's is its own).
    parent: u32,
    /// The first child's index; its children follow it.
    first_child: u32,
    child_count: u8,
    /// The square of the move that leads here from the parent.
    square: u8,
    state: State,
    /// Whether the deeper look (DFPN) was made.
    searched: bool,
    /// What the node's own looks proved.
    own: Bounds,
    /// `own` met with what its children prove.
    bounds: Bounds,
    /// Finished playouts through the node.
    visits: u32,
    /// Playouts through the node still under way, each counted as a loss for the player who
    /// chose the node until it finishes, so that threads spread out.
    virtual_loss: u32,
    /// Finished playouts by their score ([`Score::index`]).
    results: [u32; 3],
}

const _: () = assert!(std::mem::size_of::<Node>() == 64);

/// The bytes one node takes (for `--tree-mem`).
pub const NODE_BYTES: u64 = std::mem::size_of::<Node>() as u64;

impl Node {
    fn fresh(parent: u32, mv: Move) -> Node {
        Node {
            moves: MoveSet::EMPTY,
            parent,
            first_child: 0,
            child_count: 0,
            square: mv.square() as u8,
            state: State::Fresh,
            searched: false,
            own: Bounds::UNKNOWN,
            bounds: Bounds::UNKNOWN,
            visits: 0,
            virtual_loss: 0,
            results: [0; 3],
        }
    }

    fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + usize::from(self.child_count)
    }

    /// The mean reward of the node's finished playouts for `player`, its playouts under way
    /// counted as losses for `player`, held within what its bounds allow.
    fn mean_for(&self, player: Player) -> f64 {
        let won = self.results[Score::win_for(player).index()];
        let reward = f64::from(won) + 0.5 * f64::from(self.results[Score::DRAW.index()]);
        let mean = reward / f64::from(self.visits + self.virtual_loss);
        self.bounds.clamp_reward(mean, player)
    }
}

/// What the search must do at the end of a descent, outside the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// The first look at a fresh node, then a playout unless it settles the node.
    Look,
    /// The deeper look (DFPN), then a playout unless it settles the node.
    Search,
    /// A playout (the node was looked at; it is not expanded, or the tree is full).
    Playout,
}

/// A descent from the root: the nodes it passed (the root first, the leaf last), the leaf's
/// position, and what to do there.
#[derive(Clone, Debug)]
pub struct Descent {
    /// The node indices from the root to the leaf.
    pub path: Vec<u32>,
    /// The leaf's position.
    pub pos: Position,
    /// What is proved of the leaf so far.
    pub bounds: Bounds,
    /// What to do at the leaf.
    pub task: Task,
}

/// What a descent's work found, to be put into the tree.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    /// A look's result (the first look's moves, and bounds of either look), if one was made.
    pub look: Option<(Bounds, MoveSet)>,
    /// Whether it was the deeper look.
    pub searched: bool,
    /// The playout's score, or the proved value.
    pub score: Score,
}

/// How the tree grows: the exploration constant and when a node gets its deeper look.
#[derive(Clone, Copy, Debug)]
pub struct Growth {
    /// UCT's exploration constant.
    pub exploration: f64,
    /// A node with at most this many stones left to play (empty cells of open boards) gets a
    /// DFPN look before its expansion; 0 turns it off.
    pub search_within: u32,
}

/// The tree of one search: an arena of nodes, the root at index 0.
pub struct Tree {
    root: Position,
    nodes: Vec<Node>,
    capacity: usize,
}

impl Tree {
    /// A tree of `root` alone that will hold at most `bytes` of nodes (at least the root and
    /// one expansion).
    pub fn new(root: Position, bytes: u64) -> Tree {
        let capacity = (bytes / NODE_BYTES).clamp(82, u64::from(u32::MAX)) as usize;
        let mut root_node = Node::fresh(0, Move::from_square(0));
        root_node.parent = 0;
        Tree {
            root,
            nodes: vec![root_node],
            capacity,
        }
    }

    /// The root position.
    pub fn root(&self) -> Position {
        self.root
    }

    /// The nodes in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree holds only its root.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// What is proved of the root.
    pub fn root_bounds(&self) -> Bounds {
        self.nodes[0].bounds
    }

    /// Descends from the root by UCT to the node where the next playout starts, counting a
    /// playout under way on every node it passes. Expands the node it stops at when it was
    /// looked at and played out before (and searched, where a deeper look is due), and the
    /// tree has room. `None` when the root is proved: nothing is left to learn.
    pub fn descend(&mut self, growth: Growth, rng: &mut Rng) -> Option<Descent> {
        if self.nodes[0].bounds.is_exact() {
            return None;
        }
        let mut path = vec![0u32];
        let mut pos = self.root;
        let mut index = 0usize;
        let task = loop {
            let node = self.nodes[index];
            match node.state {
                State::Fresh => break Task::Look,
                State::Looked => {
                    if node.visits == 0 {
                        break Task::Playout;
                    }
                    if !node.searched && empty_cells(&pos) <= growth.search_within {
                        break Task::Search;
                    }
                    if !self.expand(index) {
                        break Task::Playout;
                    }
                }
                State::Expanded => {}
            }
            let Some(child) = self.pick_child(index, pos.side_to_move(), growth, rng) else {
                // Only when a proof reached this node while a playout was under way below it
                // (another thread's): play out from here; its score is clamped to the bounds.
                break Task::Playout;
            };
            pos = pos.play(Move::from_square(usize::from(self.nodes[child].square)));
            index = child;
            path.push(child as u32);
        };
        for &i in &path {
            self.nodes[i as usize].virtual_loss += 1;
        }
        let bounds = self.nodes[index].bounds;
        Some(Descent {
            path,
            pos,
            bounds,
            task,
        })
    }

    /// Puts the children of the looked-at node `index` into the tree, if there is room.
    fn expand(&mut self, index: usize) -> bool {
        let moves = self.nodes[index].moves;
        if moves.is_empty() || self.nodes.len() + moves.len() > self.capacity {
            return false;
        }
        let first = self.nodes.len();
        if first + moves.len() > self.nodes.capacity() {
            // Grow by doubling, but never past the bound: the arena is all the tree's memory.
            let wanted = (2 * self.nodes.capacity()).clamp(first + moves.len(), self.capacity);
            self.nodes.reserve_exact(wanted - first);
        }
        self.nodes
            .extend(moves.map(|mv| Node::fresh(index as u32, mv)));
        let node = &mut self.nodes[index];
        node.first_child = first as u32;
        node.child_count = moves.len() as u8;
        node.state = State::Expanded;
        true
    }

    /// The child of node `index` (whose side to move is `mover`) to descend into: among the
    /// children that can still change its value, one never tried (chosen at random) if any,
    /// else the one of highest UCB1 score for the mover.
    fn pick_child(
        &self,
        index: usize,
        mover: Player,
        growth: Growth,
        rng: &mut Rng,
    ) -> Option<usize> {
        let node = &self.nodes[index];
        let log_visits = f64::from((node.visits + node.virtual_loss).max(1)).ln();
        let mut untried = 0u32;
        let mut chosen_untried = None;
        let mut best: Option<(f64, usize)> = None;
        for child_index in node.children() {
            let child = &self.nodes[child_index];
            if child.bounds.settled_for(node.bounds, mover) {
                continue;
            }
            let tries = child.visits + child.virtual_loss;
            if tries == 0 {
                // Reservoir sampling: each untried child is kept with equal chance.
                untried += 1;
                if rng.below(untried as usize) == 0 {
                    chosen_untried = Some(child_index);
                }
                continue;
            }
            if untried > 0 {
                continue;
            }
            let score =
                child.mean_for(mover) + growth.exploration * (log_visits / f64::from(tries)).sqrt();
            if best.is_none_or(|(top, _)| score > top) {
                best = Some((score, child_index));
            }
        }
        chosen_untried.or(best.map(|(_, i)| i))
    }

    /// Puts what a descent found into the tree: the leaf's look, then the score on every node
    /// of the path, and the bounds backed up as far as they change.
    pub fn finish(&mut self, path: &[u32], found: Found) {
        let leaf = *path.last().expect("a path holds the root") as usize;
        if let Some((bounds, moves)) = found.look {
            let node = &mut self.nodes[leaf];
            if node.state == State::Fresh {
                node.moves = moves;
                node.state = State::Looked;
            }
            node.searched |= found.searched;
            node.own = node.own.meet(bounds);
        }
        for &i in path {
            let node = &mut self.nodes[i as usize];
            node.visits += 1;
            node.virtual_loss -= 1;
            node.results[found.score.index()] += 1;
        }
        // Back up bounds from the leaf while they change: only a look can change them (a
        // playout's score is not a proof). The side to move alternates down the path.
        if found.look.is_none() {
            return;
        }
        let mut mover = self.root.side_to_move();
        if path.len().is_multiple_of(2) {
            mover = mover.opponent();
        }
        for &i in path.iter().rev() {
            let before = self.nodes[i as usize].bounds;
            let after = self.backed_up(i as usize, mover);
            if after == before {
                break;
            }
            self.nodes[i as usize].bounds = after;
            mover = mover.opponent();
        }
    }

    /// The bounds of node `index` (whose side to move is `mover`): its own, met with its
    /// children's backed up (see [`Bounds::of_children`]) once it is expanded.
    fn backed_up(&self, index: usize, mover: Player) -> Bounds {
        let node = &self.nodes[index];
        if node.state != State::Expanded {
            return node.own;
        }
        let children = node.children().map(|i| self.nodes[i].bounds);
        node.own.meet(Bounds::of_children(mover, children))
    }

    /// The root's children: move, bounds, finished playouts and their results.
    pub fn root_children(&self) -> Vec<ChildStats> {
        self.children_of(0)
    }

    fn children_of(&self, index: usize) -> Vec<ChildStats> {
        self.nodes[index]
            .children()
            .map(|i| {
                let node = &self.nodes[i];
                ChildStats {
                    mv: Move::from_square(usize::from(node.square)),
                    bounds: node.bounds,
                    visits: node.visits,
                    results: node.results,
                }
            })
            .collect()
    }

    /// The root's finished playouts by score.
    pub fn root_results(&self) -> [u32; 3] {
        self.nodes[0].results
    }

    /// The line the tree expects: from the root, the most visited child at each node (a child
    /// proved won for the mover first), while the node is expanded.
    pub fn principal_variation(&self) -> Vec<Move> {
        let mut line = Vec::new();
        let mut index = 0;
        let mut pos = self.root;
        while self.nodes[index].state == State::Expanded && line.len() < 81 {
            let mover = pos.side_to_move();
            let key = |i: &usize| {
                let node = &self.nodes[*i];
                (
                    node.bounds.value() == Some(Score::win_for(mover)),
                    node.visits,
                )
            };
            let Some(best) = self.nodes[index].children().max_by_key(key) else {
                break;
            };
            if self.nodes[best].visits == 0 && self.nodes[best].bounds.value().is_none() {
                break;
            }
            let mv = Move::from_square(usize::from(self.nodes[best].square));
            line.push(mv);
            pos = pos.play(mv);
            index = best;
        }
        line
    }

    /// The tree below the move list `moves` from the root, as a tree of its own (the rest is
    /// dropped), or `None` when the tree does not reach that far.
    pub fn subtree(&self, moves: &[Move]) -> Option<Tree> {
        let mut index = 0usize;
        let mut pos = self.root;
        for &mv in moves {
            let node = &self.nodes[index];
            if node.state != State::Expanded || !pos.is_legal(mv) {
                return None;
            }
            index = node
                .children()
                .find(|&i| usize::from(self.nodes[i].square) == mv.square())?;
            pos = pos.play(mv);
        }
        let mut nodes = Vec::new();
        let mut root = self.nodes[index];
        root.parent = 0;
        nodes.push(root);
        // Breadth first: each node's children are copied side by side, as the arena wants.
        let mut queue = std::collections::VecDeque::from([(index, 0usize)]);
        while let Some((old, new)) = queue.pop_front() {
            let range = self.nodes[old].children();
            if range.is_empty() {
                continue;
            }
            let first = nodes.len();
            for (offset, child) in range.enumerate() {
                let mut copy = self.nodes[child];
                copy.parent = new as u32;
                nodes.push(copy);
                queue.push_back((child, first + offset));
            }
            nodes[new].first_child = first as u32;
        }
        Some(Tree {
            root: pos,
            nodes,
            capacity: self.capacity,
        })
    }

    /// The moves (at most `depth` of them) from the root to a node of the tree whose position
    /// is `pos`, if there is one.
    pub fn path_to(&self, pos: &Position, depth: usize) -> Option<Vec<Move>> {
        let mut level = vec![(0usize, self.root, Vec::new())];
        for _ in 0..=depth {
            let mut next = Vec::new();
            for (index, at, moves) in level {
                if at == *pos {
                    return Some(moves);
                }
                for child in self.nodes[index].children() {
                    let mv = Move::from_square(usize::from(self.nodes[child].square));
                    let mut line = moves.clone();
                    line.push(mv);
                    next.push((child, at.play(mv), line));
                }
            }
            level = next;
        }
        None
    }

    /// Every node of the tree with something proved of it: its position and bounds (for
    /// checks against an independent solver).
    pub fn proved_nodes(&self) -> Vec<(Position, Bounds)> {
        let mut out = Vec::new();
        let mut stack = vec![(0usize, self.root)];
        while let Some((index, pos)) = stack.pop() {
            let node = &self.nodes[index];
            if node.bounds != Bounds::UNKNOWN {
                out.push((pos, node.bounds));
            }
            for child in node.children() {
                let mv = Move::from_square(usize::from(self.nodes[child].square));
                stack.push((child, pos.play(mv)));
            }
        }
        out
    }

    /// Playouts of this tree still under way (none between searches).
    pub fn under_way(&self) -> u32 {
        self.nodes[0].virtual_loss
    }
}

/// One child of a node, as reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChildStats {
    /// The move to it.
    pub mv: Move,
    /// What is proved of it.
    pub bounds: Bounds,
    /// Finished playouts through it.
    pub visits: u32,
    /// Those playouts by score ([`Score::index`]).
    pub results: [u32; 3],
}

/// The empty cells of the open boards of `pos`: the most plies its game can still last.
pub fn empty_cells(pos: &Position) -> u32 {
    let taken = pos.cells(Player::X) | pos.cells(Player::O);
    (cells_of_boards(!pos.closed_boards()) & !taken).count_ones()
}
