//! Unit tests of `campaign`.

use super::super::tests::{fact, position, schema_version, version_1_file, TempPath};
use super::*;

/// A root with two children, the second solved.
fn small_tree() -> Vec<KeptNode> {
    let node = |id, first_child, next_sibling, phi, delta, square| KeptNode {
        id,
        first_child,
        next_sibling,
        phi,
        delta,
        work: 10 * id,
        square,
    };
    vec![
        node(0, 1, NO_NODE, 3, 4, 0),
        node(1, NO_NODE, 2, 4, 3, 17),
        node(2, NO_NODE, NO_NODE, 0, u32::MAX, 40),
    ]
}

#[test]
fn a_kept_tree_and_its_totals_come_back_from_any_image_of_the_position() {
    let file = TempPath::new("campaign-tree");
    let db = Database::open(&file.0).unwrap();
    let pos = position();
    let campaign = db.campaign(&pos, None).unwrap();
    assert_eq!(db.campaign(&pos.transform(6), None).unwrap(), campaign);
    // Each bound is a campaign of its own, found from any image too.
    let within_9 = db.campaign(&pos, Some(9)).unwrap();
    assert_ne!(within_9, campaign);
    assert_ne!(db.campaign(&pos, Some(11)).unwrap(), within_9);
    assert_eq!(
        db.find_campaign(&pos.transform(5), Some(9)).unwrap(),
        Some(within_9)
    );
    assert_eq!(db.find_campaign(&pos, Some(13)).unwrap(), None);
    let question = Question {
        campaign,
        attacker: Player::O,
    };
    db.take_lease(campaign).unwrap();
    assert!(db.kept_tree(question).unwrap().is_empty());
    assert_eq!(db.totals(question).unwrap(), Totals::default());
    let tree = small_tree();
    let child = pos.play(pos.legal_moves().into_iter().next().unwrap());
    let solved = [fact(child, Player::O, true, None)];
    let sample = TrendSample {
        seconds: 1.5,
        nodes: 700,
        phi: 3,
        delta: 4,
    };
    let stored = db
        .record(
            question,
            &Progress {
                nodes: &tree,
                facts: &solved,
                jobs: 2,
                work: 700,
                seconds: 1.5,
                sample: Some(sample),
                begins_run: true,
            },
        )
        .unwrap();
    assert_eq!(stored.new, 1);
    // A later record replaces the nodes it names and adds to the totals.
    let mut root = tree[0];
    root.phi = 9;
    db.record(
        question,
        &Progress {
            nodes: &[root],
            jobs: 1,
            work: 300,
            seconds: 0.5,
            ..Progress::default()
        },
    )
    .unwrap();
    let reopened = Database::open_existing(&file.0).unwrap();
    let same = reopened.find_campaign(&pos.transform(3), None).unwrap();
    assert_eq!(same, Some(campaign));
    let mut expected = tree.clone();
    expected[0].phi = 9;
    assert_eq!(reopened.kept_tree(question).unwrap(), expected);
    let totals = reopened.totals(question).unwrap();
    assert_eq!((totals.runs, totals.jobs, totals.nodes), (1, 3, 1000));
    assert!((totals.seconds - 2.0).abs() < 1e-9);
    assert_eq!(reopened.trend(question).unwrap(), vec![sample]);
    assert!(
        reopened
            .lookup(&solved[0].position)
            .unwrap()
            .o
            .unwrap()
            .wins
    );
    // The other question has nothing.
    let other = Question {
        campaign,
        attacker: Player::X,
    };
    assert!(reopened.kept_tree(other).unwrap().is_empty());
}

#[test]
fn a_record_that_fails_keeps_nothing_of_itself() {
    let file = TempPath::new("campaign-atomic");
    let db = Database::open(&file.0).unwrap();
    let pos = position();
    let question = Question {
        campaign: db.campaign(&pos, None).unwrap(),
        attacker: Player::X,
    };
    db.take_lease(question.campaign).unwrap();
    db.store(&[fact(pos, Player::X, false, None)]).unwrap();
    // The fact contradicts the stored one: the nodes and totals must not be kept either.
    let error = db
        .record(
            question,
            &Progress {
                nodes: &small_tree(),
                facts: &[fact(pos, Player::X, true, None)],
                jobs: 1,
                work: 5,
                ..Progress::default()
            },
        )
        .unwrap_err();
    assert!(matches!(error, DbError::Contradiction { .. }), "{error}");
    assert!(db.kept_tree(question).unwrap().is_empty());
    assert_eq!(db.totals(question).unwrap(), Totals::default());
}

#[test]
fn a_damaged_tree_is_refused() {
    let file = TempPath::new("campaign-damaged");
    let db = Database::open(&file.0).unwrap();
    let question = Question {
        campaign: db.campaign(&position(), None).unwrap(),
        attacker: Player::X,
    };
    db.take_lease(question.campaign).unwrap();
    let mut tree = small_tree();
    tree[1].next_sibling = 7; // a link past the last node
    db.record(
        question,
        &Progress {
            nodes: &tree,
            ..Progress::default()
        },
    )
    .unwrap();
    let error = db.kept_tree(question).unwrap_err();
    assert!(matches!(error, DbError::DamagedTree { .. }), "{error}");
    // A gap in the ids.
    let gap = [
        small_tree()[0],
        KeptNode {
            id: 2,
            ..small_tree()[2]
        },
    ];
    let other = Question {
        attacker: Player::O,
        ..question
    };
    db.record(
        other,
        &Progress {
            nodes: &gap,
            ..Progress::default()
        },
    )
    .unwrap();
    assert!(db.kept_tree(other).is_err());
}

#[test]
fn a_kept_tree_the_search_cannot_take_whole_is_named_as_damaged() {
    // From the start: the root, its children at squares 40 and 8 (sending O to boards 4 and
    // 8), and below 40 a child at square 36 (board 4), so node 3's parent is node 1.
    let node = |id, first_child, next_sibling, square| KeptNode {
        id,
        first_child,
        next_sibling,
        phi: 1,
        delta: 1,
        work: 1,
        square,
    };
    let sound = vec![
        node(0, 1, NO_NODE, 0),
        node(1, 3, 2, 40),
        node(2, NO_NODE, NO_NODE, 8),
        node(3, NO_NODE, NO_NODE, 36),
    ];
    let start = Position::start();
    assert_eq!(kept_tree_defect(&sound, &start), None);
    assert_eq!(kept_tree_defect(&[], &start), None);
    let defect = |change: &dyn Fn(&mut Vec<KeptNode>)| {
        let mut tree = sound.clone();
        change(&mut tree);
        kept_tree_defect(&tree, &start).expect("a defect")
    };
    // A sibling chain that loops back, which would never end.
    assert!(defect(&|t| t[2].next_sibling = 1).contains("node 1 is linked twice"));
    // Node 2 also a child of node 3: two parents (the walk of the last check reached every
    // node once all the same).
    assert!(defect(&|t| t[3].first_child = 2).contains("node 2 is linked twice"));
    // The root linked as a child.
    assert!(defect(&|t| t[3].first_child = 0).contains("node 0 is linked twice"));
    // Two children of the root with the same move.
    assert!(defect(&|t| t[2].square = 40).contains("two children of node 0 play square 40"));
    // A move O cannot make after X's 40 (board 4 is where O must play).
    assert!(defect(&|t| t[3].square = 8).contains("node 3's square 8 is no legal move"));
    // A node no link reaches.
    assert!(defect(&|t| t[1].first_child = NO_NODE).contains("1 of its 4 nodes are not linked"));
}

#[test]
fn a_version_1_database_gains_campaigns_and_keeps_its_facts() {
    let file = TempPath::new("campaign-v1");
    version_1_file(&file);
    let db = Database::open(&file.0).unwrap();
    let pos = position();
    db.store(&[fact(pos, Player::O, true, None)]).unwrap();
    assert!(db.campaign(&pos, None).is_ok());
    drop(db);
    assert_eq!(
        schema_version(&file),
        5,
        "brought up to campaigns, then to bounded facts, campaigns' guides and leases"
    );
    let db = Database::open_existing(&file.0).unwrap();
    assert!(db.lookup(&pos).unwrap().o.unwrap().wins);
}

#[test]
fn a_campaigns_guide_is_kept_replaced_and_found_for_that_campaign_alone() {
    use super::guide::KeptGuide;
    let file = TempPath::new("campaign-guide");
    let db = Database::open(&file.0).unwrap();
    let pos = position();
    let campaign = db.campaign(&pos, None).unwrap();
    let other = db.campaign(&pos, Some(9)).unwrap();
    assert_eq!(db.kept_guide(campaign).unwrap(), None);
    let mut guide = KeptGuide {
        calibration: vec![1, 2, 3],
        // A checksum above i64::MAX comes back whole.
        base: u64::MAX - 5,
        fitted: 40,
        held_back: 12,
        error_before: Some(2.5),
        error_after: None,
        predicts_better: false,
        created: 1_700_000_000,
    };
    db.keep_guide(campaign, &guide).unwrap();
    assert_eq!(db.kept_guide(campaign).unwrap().as_ref(), Some(&guide));
    assert_eq!(db.kept_guide(other).unwrap(), None);
    guide.calibration = vec![9; 10];
    guide.error_after = Some(1.5);
    guide.predicts_better = true;
    db.keep_guide(campaign, &guide).unwrap();
    assert_eq!(db.kept_guide(campaign).unwrap(), Some(guide));
}
