//! The oracle agrees with the independently computed reference values.
use crate::common;

#[test]
#[ignore = "heavy oracle sweep: .ci/run runs it with --ignored, and again with debug assertions"]
fn oracle_matches_reference_late_positions() {
    let rows = common::data_rows("late-positions.tsv");
    assert!(rows.len() >= 100);
    common::parallel_rows(&rows, |row| {
        assert_eq!(common::oracle::oracle_value(&row[0]), row[1], "{}", row[0]);
    });
}
