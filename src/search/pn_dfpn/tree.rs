//! The root tree's storage: an arena of 32-byte nodes linked first-child/next-sibling, with
//! real and virtual numbers, and a free list of the slots of freed subtrees.

use crate::db::campaign::{KeptNode, NO_NODE};
use crate::search::numbers::{add, Numbers, INFINITY};

/// "No node" in the first-child and next-sibling links (as in a kept tree).
pub(super) const NONE: u32 = NO_NODE;

/// A tree node: 32 bytes (checked at compile time).
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    /// The first child, or [`NONE`] for a leaf.
    pub(super) first_child: u32,
    /// The next child of the same parent, or [`NONE`].
    pub(super) next_sibling: u32,
    /// The numbers the searches found (for the side to move at the node).
    pub(super) real: Numbers,
    /// [`Node::real`] with each leaf in flight counted at [`in_flight`] of its numbers.
    pub(super) virt: Numbers,
    /// Cumulative job work at or below this node, saturating.
    pub(super) work: u32,
    /// Jobs in flight at or below this node.
    pub(super) in_flight: u16,
    /// The square of the move from the parent.
    pub(super) square: u8,
    /// For an internal node: no leaf below it can take a job (each is in flight or solved),
    /// kept by [`Tree::recompute`]; see [`Tree::takes_job`].
    closed: bool,
}

const _: () = assert!(std::mem::size_of::<Node>() == 32);

/// The arena of nodes, with a free list of slots from freed subtrees.
pub(super) struct Tree {
    /// The nodes; the root is node 0.
    pub(super) nodes: Vec<Node>,
    free: Vec<u32>,
    /// Nodes in use.
    pub(super) live: u64,
    /// The most nodes in use at any time.
    pub(super) peak: u64,
    /// The most nodes the tree may hold.
    pub(super) capacity: u64,
}

impl Tree {
    pub(super) fn new(root: Numbers, bytes: u64) -> Tree {
        let root = Node {
            first_child: NONE,
            next_sibling: NONE,
            real: root,
            virt: root,
            work: 0,
            in_flight: 0,
            square: 0,
            closed: false,
        };
        Tree {
            nodes: vec![root],
            free: Vec::new(),
            live: 1,
            peak: 1,
            capacity: (bytes / 32).max(1),
        }
    }

    /// The tree `kept` describes (dense ids, root first, as
    /// [`crate::db::Database::kept_tree`] gives it), with nothing in flight, holding at most
    /// `bytes` (a larger kept tree is taken whole, and grows no further).
    pub(super) fn from_kept(kept: &[KeptNode], bytes: u64) -> Tree {
        let nodes: Vec<Node> = kept
            .iter()
            .map(|k| {
                let numbers = Numbers {
                    phi: k.phi,
                    delta: k.delta,
                };
                Node {
                    first_child: k.first_child,
                    next_sibling: k.next_sibling,
                    real: numbers,
                    virt: numbers,
                    work: k.work,
                    in_flight: 0,
                    square: k.square,
                    closed: false,
                }
            })
            .collect();
        let live = nodes.len() as u64;
        Tree {
            nodes,
            free: Vec::new(),
            live,
            peak: live,
            capacity: (bytes / 32).max(1),
        }
    }

    /// Node `id` as kept between runs.
    pub(super) fn kept(&self, id: u32) -> KeptNode {
        let node = self.nodes[id as usize];
        KeptNode {
            id,
            first_child: node.first_child,
            next_sibling: node.next_sibling,
            phi: node.real.phi,
            delta: node.real.delta,
            work: node.work,
            square: node.square,
        }
    }

    fn alloc(&mut self, node: Node) -> u32 {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    /// The children of `id`, in order.
    pub(super) fn children(&self, id: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut child = self.nodes[id as usize].first_child;
        while child != NONE {
            out.push(child);
            child = self.nodes[child as usize].next_sibling;
        }
        out
    }

    /// The nodes along `path` (squares of moves from the root), the root first; it stops early
    /// where a move has no node (a subtree freed meanwhile).
    pub(super) fn walk(&self, path: &[u8]) -> Vec<u32> {
        let mut ids = vec![0u32];
        for &square in path {
            let here = *ids.last().unwrap();
            let next = self
                .children(here)
                .into_iter()
                .find(|&c| self.nodes[c as usize].square == square);
            match next {
                Some(c) => ids.push(c),
                None => break,
            }
        }
        ids
    }

    /// Gives the leaf `id` children: (square of the move, numbers) each; returns their ids.
    pub(super) fn expand(&mut self, id: u32, children: &[(u8, Numbers)]) -> Vec<u32> {
        let mut ids = Vec::with_capacity(children.len());
        let mut previous = NONE;
        for &(square, numbers) in children.iter().rev() {
            previous = self.alloc(Node {
                first_child: NONE,
                next_sibling: previous,
                real: numbers,
                virt: numbers,
                work: 0,
                in_flight: 0,
                square,
                closed: false,
            });
            ids.push(previous);
        }
        self.nodes[id as usize].first_child = previous;
        ids
    }

    /// Frees every node below `id`.
    pub(super) fn free_below(&mut self, id: u32) {
        let mut stack = self.children(id);
        self.nodes[id as usize].first_child = NONE;
        while let Some(n) = stack.pop() {
            stack.extend(self.children(n));
            self.free.push(n);
            self.live -= 1;
        }
    }

    /// Whether a job could be selected at or below node `id`: it is unsolved, and it is a
    /// leaf with no job in flight or has a child that takes one.
    pub(super) fn takes_job(&self, id: u32) -> bool {
        let node = &self.nodes[id as usize];
        !node.real.is_solved()
            && if node.first_child == NONE {
                node.in_flight == 0
            } else {
                !node.closed
            }
    }

    /// Recomputes an internal node's real and virtual numbers, and whether it is closed, from
    /// its children.
    pub(super) fn recompute(&mut self, id: u32) {
        let mut real = Numbers {
            phi: INFINITY,
            delta: 0,
        };
        let mut virt = real;
        let mut closed = true;
        for child in self.children(id) {
            let c = self.nodes[child as usize];
            real.phi = real.phi.min(c.real.delta);
            real.delta = add(real.delta, c.real.phi);
            virt.phi = virt.phi.min(c.virt.delta);
            virt.delta = add(virt.delta, c.virt.phi);
            closed &= !self.takes_job(child);
        }
        let node = &mut self.nodes[id as usize];
        node.real = real;
        node.virt = virt;
        node.closed = closed;
    }
}

/// The numbers a leaf counts as while a job runs on it: both of its real (unsolved) numbers
/// doubled.
///
/// A job leaves its leaf with larger numbers unless it solves it, so the next leaf is
/// selected as if this one had already grown: where the one-threaded search would go next
/// should this leaf prove harder than it looks. Weights from 1.25 to 2 searched alike, and
/// fewer nodes than larger ones, than 1 (the leaf at its real numbers, which spread the jobs
/// thinly) and than counting the leaf solved the way it leans (the rule before, as in SPDFPN,
/// which sent the next jobs after that guess); 2 is the simplest of them (BENCHMARKS.md,
/// "Scaling"). Only the order of the search depends on it: no virtual number is ever stored
/// or reported.
pub(super) fn in_flight(real: Numbers) -> Numbers {
    Numbers {
        phi: add(real.phi, real.phi),
        delta: add(real.delta, real.delta),
    }
}
