//! Perft counts from the start (published figures) and from the shared mid-game positions.
use crate::common;
use uttt::game::{parse_position, perft, perft_divide, Position};

#[test]
fn perft_from_the_start_depths_1_to_7() {
    let expected = [81, 720, 6_336, 55_080, 473_256, 4_020_960, 33_782_544];
    for (depth, &leaves) in (1..).zip(expected.iter()) {
        assert_eq!(perft(&Position::start(), depth), leaves, "depth {depth}");
    }
}

#[test]
fn perft_from_midgame_positions() {
    let rows = common::data_rows("perft-midgame.tsv");
    assert_eq!(rows.len(), 8);
    for row in rows {
        let p = parse_position(&row[0]).unwrap();
        for (depth, count) in (1..).zip(row[1].split(',')) {
            assert_eq!(
                perft(&p, depth),
                count.parse::<u64>().unwrap(),
                "{} depth {depth}",
                row[0]
            );
        }
    }
}

#[test]
fn divide_sums_to_perft() {
    let p = Position::start();
    let divide = perft_divide(&p, 4);
    assert_eq!(divide.len(), 81);
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), perft(&p, 4));
}
