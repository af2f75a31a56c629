//! The solver's services: what a user asks of it, built from the engines in [`crate::search`].
//! Each service takes a [`crate::search::Solver`] (which carries the options, table, database
//! and stop flag) and answers with typed data; the command line renders it.
//!
//! - [`review`]: where a game was won and lost, its positions solved from the end backwards.

pub mod review;

pub use review::{review, Decision, Mark, PlyReview, Review, ReviewEvent, ReviewLimits, WalkEnd};
