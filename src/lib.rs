//! `uttt`: a solver for Ultimate Tic Tac Toe.
//!
//! Layers with arrows pointing one way: [`game`] (rules, bitboards, notation) ← [`table`] (the
//! transposition table of proof numbers) ← [`search`] (the engines: DFPN, PN-DFPN, their
//! workers and jobs, the static rules) ← [`services`] (what a user asks: solve, analyze,
//! review, campaigns, certificates) ← [`cli`] (clap, formatting, progress, signals) and
//! [`server`] (`uttt serve`: the board in the browser and its JSON API). Beside
//! them, on the game core alone: [`certificate`] (the proof format and its independent
//! verifier) and [`db`] (the database of solved positions). Under them all, [`files`] keeps a
//! command's files from hurting one another (outputs never inputs, writes whole or not at all,
//! reading in bounded pieces). With the `mpi` feature,
//! `distributed` (between `search` and `cli`) runs PN-DFPN's jobs on other MPI ranks.

pub mod certificate;
pub mod cli;
pub mod db;
#[cfg(feature = "mpi")]
pub mod distributed;
pub mod files;
pub mod game;
pub mod search;
pub mod server;
pub mod services;
pub mod table;
