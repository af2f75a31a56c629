//! `uttt`: a solver for Ultimate Tic Tac Toe.
//!
//! Layers with arrows pointing one way: [`game`] (rules, bitboards, notation) ←
//! [`certificate`] (the proof format and its independent verifier, game rules only) and
//! [`db`] (the database of solved positions, game rules only) ← [`search`] (tables, DFPN,
//! PN-DFPN, certificate writing) ← [`services`] (what a user asks of them: game review) ←
//! [`cli`] (clap, formatting, progress, signals). With the `mpi` feature, `distributed`
//! (between `search` and `cli`) runs PN-DFPN's jobs on other MPI ranks.

pub mod certificate;
pub mod cli;
pub mod db;
#[cfg(feature = "mpi")]
pub mod distributed;
pub mod game;
pub mod search;
pub mod services;
