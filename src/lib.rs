//! `uttt`: a solver for Ultimate Tic Tac Toe.
//!
//! Three layers with arrows pointing one way: [`game`] (rules, bitboards, notation) ←
//! `search` (tables, DFPN, PN-DFPN) ← [`cli`] (clap, formatting, progress, signals).

pub mod cli;
pub mod game;
pub mod search;
