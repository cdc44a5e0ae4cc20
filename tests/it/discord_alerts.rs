//! Turn alerts on Discord, end to end through the strict fake: a person
//! whose turn comes while they are not looking — quiet for the quiet time
//! though their hand is open, or with no hand open at all — gets one
//! notifying mention (a ping message whose `allowed_mentions` name only
//! them), exactly once per turn, deleted when the turn passes, also when
//! it lands after the turn passed; a person who just pressed something
//! gets none; and a restart pings nobody for the turn it finds running.
//! People press only what they see.

use std::time::Duration;

use kozyr_test_kit::fakediscord::Seen;

use crate::support::discord::{CHANNEL, World, open_and_start};
use crate::support::eventually;

/// Quiet this long, a person is not looking (short for the test).
const QUIET: Duration = Duration::from_secs(2);
const WAIT: Duration = Duration::from_secs(10);

/// The bot's route for new channel messages (the table, announcements,
/// pings).
const POST_MESSAGE: &str = "POST /channels/:id/messages";

async fn world() -> World {
    let mut w = World::without_bot().await;
    w.turn_alerts = Some(QUIET);
    w.start().await;
    w
}

/// The turn pings of `seat` that people see: public messages without
/// buttons that start by mentioning them.
fn pings_of(w: &World, seat: usize) -> Vec<Seen> {
    let mention = format!("<@{}>", w.users[seat].id);
    w.fake
        .seen_by(&w.users[seat], CHANNEL)
        .into_iter()
        .filter(|m| !m.ephemeral && m.buttons.is_empty() && m.content.starts_with(&mention))
        .collect()
}

async fn ping_of(w: &World, seat: usize) -> Seen {
    eventually(WAIT, Duration::from_millis(5), "a turn ping", || async {
        pings_of(w, seat).into_iter().next()
    })
    .await
}

async fn ping_gone(w: &World, seat: usize, ping: u64) {
    eventually(
        WAIT,
        Duration::from_millis(5),
        "the ping deleted",
        || async { pings_of(w, seat).iter().all(|m| m.id != ping).then_some(()) },
    )
    .await;
}

fn notifications(w: &World) -> [usize; 4] {
    std::array::from_fn(|i| w.fake.notifications_of(&w.users[i]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_person_with_an_open_hand_is_pinged_once_when_their_turn_comes() {
    let mut w = world().await;
    let id = open_and_start(&w, "kozel").await;
    // Everyone opens their hand, then nobody presses for a while.
    for seat in 0..4 {
        w.hand(seat, id).await;
    }
    tokio::time::sleep(QUIET + Duration::from_millis(500)).await;

    let t0 = w.table(id).await;
    let before = notifications(&w);
    w.play_safe(&t0).await;
    let t1 = w.wait_version_after(id, t0.version()).await;
    let a1 = t1.awaiting()[0].index();
    // Their hand is open, but they have been quiet: one mention notifies
    // them, and no one else.
    let ping = ping_of(&w, a1).await;
    let after = notifications(&w);
    for seat in 0..4 {
        let want = before[seat] + usize::from(seat == a1);
        assert_eq!(after[seat], want, "notifications of seat {seat}");
    }

    // The one after them presses something: they are looking.
    let a2 = (a1 + 1) % 4;
    let (table_msg, my_hand) = w.my_hand_button(a2).await;
    let q = w.fake.click(&w.users[a2], table_msg, &my_hand).unwrap();
    w.answered(q).await;
    // The turn passes: the ping goes, and the one who is looking is not
    // pinged.
    w.play_safe(&t1).await;
    let t2 = w.wait_version_after(id, t1.version()).await;
    assert_eq!(t2.awaiting()[0].index(), a2);
    ping_gone(&w, a1, ping.id).await;
    // The next turn's ping (the last of four has been quiet) shows the
    // pings of the turns before went out.
    w.play_safe(&t2).await;
    let t3 = w.wait_version_after(id, t2.version()).await;
    let a3 = t3.awaiting()[0].index();
    ping_of(&w, a3).await;
    let end = notifications(&w);
    assert_eq!(end[a1], before[a1] + 1, "one ping per turn");
    assert_eq!(end[a2], before[a2], "who is looking is not pinged");
    assert!(pings_of(&w, a2).is_empty());
    w.stop().await;
    w.assert_clean();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_that_lands_after_the_turn_passed_is_deleted() {
    let mut w = world().await;
    let id = open_and_start(&w, "kozel").await;
    for seat in 0..4 {
        w.hand(seat, id).await;
    }
    tokio::time::sleep(QUIET + Duration::from_millis(500)).await;

    // The next ping is posted, but Discord's answer is slow to come back.
    w.fake.hold_answers(POST_MESSAGE, 1);
    let t0 = w.table(id).await;
    w.play_safe(&t0).await;
    let t1 = w.wait_version_after(id, t0.version()).await;
    let a1 = t1.awaiting()[0].index();
    let ping = ping_of(&w, a1).await;
    // They see it and play before the bot learnt the ping's id.
    w.play_safe(&t1).await;
    w.wait_version_after(id, t1.version()).await;
    w.fake.release_answers();
    ping_gone(&w, a1, ping.id).await;
    w.stop().await;
    w.assert_clean();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_pings_nobody_for_the_turn_it_finds() {
    let mut w = world().await;
    let id = open_and_start(&w, "kozel").await;
    let t0 = w.table(id).await;
    let a0 = t0.awaiting()[0].index();
    // The table posted anew for the deal mentioned the first to move.
    w.my_hand_button(a0).await;
    eventually(WAIT, Duration::from_millis(5), "the first told", || async {
        (w.fake.notifications_of(&w.users[a0]) == 1).then_some(())
    })
    .await;
    tokio::time::sleep(QUIET + Duration::from_millis(500)).await;
    w.stop().await;
    w.start().await;

    // A restart loses every hand's token, yet the turn it finds is not
    // new: no ping. The next turn, of a person with no hand open, is.
    w.play_safe(&t0).await;
    let t1 = w.wait_version_after(id, t0.version()).await;
    let a1 = t1.awaiting()[0].index();
    ping_of(&w, a1).await;
    assert_eq!(
        w.fake.notifications_of(&w.users[a0]),
        1,
        "pinged after the restart"
    );
    assert!(pings_of(&w, a0).is_empty());
    w.stop().await;
    w.assert_clean();
}
