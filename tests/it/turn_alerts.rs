//! Turn alerts end to end on the fake Bot API, with no turn timer
//! (`KOZYR_TURN_SECONDS=0`): a person who is not looking when their turn
//! comes gets their hand posted anew at the bottom of their private chat —
//! a new message, which notifies, where an edit makes no sound — once per
//! turn, and the old hand message goes. A person who just pressed
//! something is looking: their hand is edited in place.

use std::time::Duration;

use kozyr::telegram::bot::Tuning;
use kozyr_test_kit::fakebot::Author;
use teloxide::types::MessageId;

use crate::support::fast_tuning;
use crate::support::telegram::{Setup, WAIT, World};

/// Quiet this long, a person is not looking (short for the test).
const QUIET: Duration = Duration::from_secs(3);

/// The bot's messages in the seat's private chat newer than `after`,
/// deleted ones included.
fn posted_after(w: &World, seat: usize, after: MessageId) -> usize {
    let dm = w.dm(seat);
    let newest = w
        .fake
        .messages(dm)
        .last()
        .map_or(after.0, |m| m.id.0.max(after.0));
    (after.0 + 1..=newest)
        .filter_map(|i| w.fake.message(dm, MessageId(i)))
        .filter(|m| m.author == Author::Bot)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_not_looking_gets_their_hand_anew_once_per_turn() {
    let tuning = Tuning {
        turn_alerts: Some(QUIET),
        ..fast_tuning()
    };
    let mut w = World::with(Setup::tuned(tuning)).await;
    let id = w.open("/kozel", false).await;
    let t = w.table(id).await;
    let a0 = t.awaiting()[0].index();
    // Everyone's hand is out; then nobody presses for a while.
    let before: Vec<MessageId> = {
        let mut v = Vec::new();
        for s in 0..4 {
            v.push(w.hand_message(s).await);
        }
        v
    };
    tokio::time::sleep(QUIET + Duration::from_millis(500)).await;

    // The first player moves; the next one has been quiet: their hand
    // comes as a new message, and the old one goes.
    w.play_safe(&t).await;
    let t1 = w.wait_version_after(id, t.version()).await;
    let a1 = t1.awaiting()[0].index();
    assert_ne!(a0, a1);
    let old = before[a1];
    let new = w
        .fake
        .wait_for(WAIT, |f| {
            f.messages(w.dm(a1))
                .into_iter()
                .rev()
                .find(|m| m.keyboard.is_some() && m.id.0 > old.0)
                .map(|m| m.id)
        })
        .await
        .expect("the hand of the person not looking is posted anew");
    w.fake
        .wait_for(WAIT, |f| {
            f.message(w.dm(a1), old)
                .is_some_and(|m| m.deleted)
                .then_some(())
        })
        .await
        .expect("the old hand message goes");
    // They play from the new message at once; the turn's renders bring
    // no second alert.
    w.play_safe(&t1).await;
    let t2 = w.wait_version_after(id, t1.version()).await;
    assert_eq!(posted_after(&w, a1, old), 1, "one new message for the turn");
    assert_eq!(
        w.hand_message(a1).await,
        new,
        "edited in place after the turn"
    );

    // The mover (a0) pressed a moment ago: when their turn comes back in
    // this quick round, their hand is edited in place.
    let mut t = t2;
    let mut moves = 0;
    while t.awaiting()[0].index() != a0 {
        w.play_safe(&t).await;
        t = w.wait_version_after(id, t.version()).await;
        moves += 1;
        assert!(moves < 8, "a0's turn does not come back");
    }
    let h0 = w.hand_message(a0).await;
    assert_eq!(
        h0, before[a0],
        "a0 is looking: their hand is edited in place"
    );
    assert_eq!(posted_after(&w, a0, before[a0]), 0);
    w.stop().await;
}

/// Issue 28.4, through Telegram's real private pacing and a strict fake:
/// twelve turns in a row begin for a person who has not pressed for
/// longer than the quiet time (each waits before playing), and each brings
/// that person exactly one notifying message — the hand posted anew —
/// however the posting races the hand's redraws for the moves around it;
/// nobody else gets one for a turn that is not theirs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_idle_turn_brings_exactly_one_notifying_message() {
    use kozyr::delivery::pacing::PacerConfig;

    const QUIET: Duration = Duration::from_secs(1);
    let tuning = Tuning {
        turn_alerts: Some(QUIET),
        private_pacing: PacerConfig::private(),
        ..fast_tuning()
    };
    let setup = Setup {
        fake: crate::support::telegram::strict_fake(),
        ..Setup::tuned(tuning)
    };
    let mut w = World::with(setup).await;
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;
    for s in 0..4 {
        w.hand_message(s).await;
    }
    // Nobody pressed since the deal began: everyone is away.
    tokio::time::sleep(QUIET + Duration::from_millis(300)).await;
    let newest = |w: &World, seat: usize| w.fake.messages(w.dm(seat)).last().map_or(0, |m| m.id.0);
    // A person's messages up to the end of their previous turn.
    let mut seen: Vec<i32> = (0..4).map(|s| newest(&w, s)).collect();
    for turn in 0..12 {
        let Some(seat) = t.awaiting().first().map(|s| s.index()) else {
            break;
        };
        // The first turn of the deal was shown by the deal's own posts.
        if turn > 0 {
            w.fake
                .wait_for(WAIT, |f| {
                    f.messages(w.dm(seat))
                        .into_iter()
                        .any(|m| m.id.0 > seen[seat] && m.author == Author::Bot)
                        .then_some(())
                })
                .await
                .unwrap_or_else(|_| panic!("turn {turn}: no notifying message"));
        }
        // Long enough for the redraws around it, and to be away again.
        tokio::time::sleep(QUIET + Duration::from_millis(1200)).await;
        // The deal's first turn: its hand's first post was the one (the
        // people had just pressed to sit and start); later: the alert.
        let notified = posted_after(&w, seat, MessageId(seen[seat]));
        let want = usize::from(turn > 0);
        assert_eq!(
            notified, want,
            "turn {turn} of seat {seat}: notifying messages"
        );
        for other in (0..4).filter(|s| *s != seat) {
            assert_eq!(
                posted_after(&w, other, MessageId(seen[other])),
                0,
                "turn {turn}: seat {other} was notified of someone else's turn"
            );
        }
        w.play_safe(&t).await;
        t = w.wait_version_after(id, t.version()).await;
        // Their hand after the move is an edit: nothing new to count.
        tokio::time::sleep(Duration::from_millis(300)).await;
        seen[seat] = newest(&w, seat);
    }
    assert_eq!(
        w.fake.limit_hits(),
        kozyr_test_kit::fakebot::LimitHits::default()
    );
    w.stop().await;
}
