//! The database's counts and sizes, for `uttt db stats`.

use super::{Database, DbError};
use serde::Serialize;

/// Counts and sizes, for `uttt db stats`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Facts stored, unbounded ones.
    pub facts: u64,
    /// Bounded facts stored (see [`super::Bounds`]).
    pub bounded_facts: u64,
    /// Positions with at least one fact.
    pub positions: u64,
    /// Positions whose value is known: a win for one side, or a draw.
    pub values: u64,
    /// Facts by source.
    pub by_source: Vec<(String, u64)>,
    /// Campaigns kept (see [`super::campaign`]).
    pub campaigns: u64,
    /// Nodes of their kept trees, over every campaign and question.
    pub campaign_tree_nodes: u64,
    /// MID calls their runs searched, over every campaign and question.
    pub campaign_nodes_searched: u64,
    /// Seconds their runs searched, over every campaign and question.
    pub campaign_seconds: f64,
    /// The file's size in bytes (without its write-ahead log).
    pub bytes: u64,
}

impl Database {
    /// Counts and sizes.
    pub fn stats(&self) -> Result<Stats, DbError> {
        let conn = self.connection();
        let count = |sql: &str| -> Result<u64, DbError> {
            conn.query_row(sql, [], |row| row.get::<_, i64>(0))
                .map(|n| n.max(0) as u64)
                .map_err(|e| self.query_error(e))
        };
        let facts = count("SELECT count(*) FROM facts")?;
        let bounded_facts = count("SELECT count(*) FROM bounded_facts")?;
        let positions = count("SELECT count(DISTINCT position) FROM facts")?;
        // A value is known where one side wins, or where neither does.
        let values = count(
            "SELECT count(*) FROM (SELECT position FROM facts GROUP BY position
                 HAVING max(wins) = 1 OR count(*) = 2)",
        )?;
        let mut statement = conn
            .prepare("SELECT source, count(*) FROM facts GROUP BY source ORDER BY source")
            .map_err(|e| self.query_error(e))?;
        let by_source = statement
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?.max(0) as u64,
                ))
            })
            .map_err(|e| self.query_error(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.query_error(e))?;
        let (campaign_nodes_searched, campaign_seconds) = conn
            .query_row(
                "SELECT coalesce(sum(nodes), 0), coalesce(sum(seconds), 0.0) FROM campaign_totals",
                [],
                |row| Ok((row.get::<_, i64>(0)?.max(0) as u64, row.get::<_, f64>(1)?)),
            )
            .map_err(|e| self.query_error(e))?;
        let bytes = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        Ok(Stats {
            facts,
            bounded_facts,
            positions,
            values,
            by_source,
            campaigns: count("SELECT count(*) FROM campaigns")?,
            campaign_tree_nodes: count("SELECT count(*) FROM campaign_nodes")?,
            campaign_nodes_searched,
            campaign_seconds,
            bytes,
        })
    }
}
