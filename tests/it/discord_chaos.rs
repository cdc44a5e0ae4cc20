//! Discord under faults (issue 29.7), on the strict fake: an answer that
//! hangs, an answer lost to Discord's edge, and what a hand keeps after
//! its press's answer never reached Discord. The fake refuses an answer
//! past Discord's 3 s and an edit through an interaction it never took an
//! answer for (404 10015), as Discord does.

use std::time::Duration;

use kozyr::front::action::TableAction;

use crate::support::discord::{CHANNEL, WAIT, World, open_and_start};
use crate::support::eventually;

/// One answer hung (Discord took it; its reply never came back) used to
/// hold every other interaction's answer behind it: twilight's rate
/// limiter queues interaction callbacks in one bucket, one at a time, so
/// the others went past Discord's 3 s and people saw "This interaction
/// failed". Each answer goes on its own now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_answer_holds_up_no_one_elses() {
    let w = World::new().await;
    let q = w.fake.slash(&w.users[0], CHANNEL, "kozel");
    w.answered(q).await;
    w.table_button(1, |a| a == TableAction::Join).await;
    w.fake.hold_answers("POST /interactions", 1);
    let boris = w.click_table(1, TableAction::Join).await;
    // Chloe and Dmitri, while Boris's answer hangs: each answered within
    // Discord's 3 s (the fake refuses a later answer and counts it).
    let chloe = w.click_table(2, TableAction::Join).await;
    let dmitri = w.click_table(3, TableAction::Join).await;
    w.answered(chloe).await;
    w.answered(dmitri).await;
    w.fake.release_answers();
    w.answered(boris).await;
    w.assert_clean();
}

/// An answer Discord's edge failed (502) used to be given up at once,
/// although Discord takes it for 3 s: the press counted, and the person
/// saw "This interaction failed". It is tried again now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_lost_to_an_outage_is_tried_again() {
    let w = World::new().await;
    let q = w.fake.slash(&w.users[0], CHANNEL, "kozel");
    w.answered(q).await;
    w.table_button(1, |a| a == TableAction::Join).await;
    w.fake.outage("POST /interactions", 1);
    let q = w.click_table(1, TableAction::Join).await;
    w.answered(q).await;
    let failed = w
        .fake
        .calls()
        .iter()
        .filter(|c| c.route.starts_with("POST /interactions") && c.status == 502)
        .count();
    assert_eq!(failed, 1, "the outage was met");
    w.assert_clean();
}

/// A press on a hand whose answer never reached Discord (its edge down for
/// all of the 3 s) used to hand the hand over to that press's token:
/// Discord never took an answer for it, so every later edit of the hand
/// through it was refused (404 10015) and the hand stopped following the
/// game until its person pressed My hand. The hand's older token keeps it
/// now, and the hand shows the press's outcome through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_whose_answer_was_lost_keeps_following_the_game() {
    let w = World::new().await;
    let table = open_and_start(&w, "kozel").await;
    let t = w.table(table).await;
    let seat = t.awaiting()[0].index();
    let hand = w.hand(seat, table).await;
    let card = w
        .sees(seat, "a card to select in the hand", |seen| {
            let m = seen.iter().find(|m| m.id == hand)?;
            m.select
                .as_ref()?
                .options
                .first()
                .map(|(_, v, _)| v.clone())
        })
        .await;
    let before = w.fake.calls().len();
    // Every answer fails while the press is handled (and retried).
    w.fake.outage("POST /interactions", 1_000);
    let q = w.fake.choose(&w.users[seat], hand, &[card]).unwrap();
    let hand_edits = || {
        w.fake.calls()[before..]
            .iter()
            .filter(|c| c.route.starts_with("PATCH /webhooks") && c.route.ends_with("@original"))
            .map(|c| c.status)
            .collect::<Vec<_>>()
    };
    let edited = eventually(
        WAIT,
        Duration::from_millis(20),
        "the hand edited",
        || async {
            let edits = hand_edits();
            (!edits.is_empty()).then_some(edits)
        },
    )
    .await;
    assert!(
        edited.iter().all(|s| (200..300).contains(s)),
        "the hand's edits after the lost answer: {edited:?}"
    );
    assert_eq!(w.fake.answer_of(q), None, "Discord never took the answer");
    assert_eq!(w.fake.violations(), Vec::<String>::new());
}

/// Registering the slash commands (one bulk PUT) used to come before the
/// gateway: with Discord answering it 429 for a while, nobody's
/// interaction was answered until it went through (8 s once). It runs
/// beside everything else now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interactions_are_answered_while_the_commands_wait_for_their_turn() {
    let mut w = World::without_bot().await;
    // Some 5 s of 429s (0.2 s each) on the registration.
    w.fake.rate_limit("PUT /applications", 25);
    w.start().await;
    let q = w.fake.slash(&w.users[0], CHANNEL, "kozel");
    w.answered(q).await;
    assert!(
        w.fake.commands().is_empty(),
        "answered only once the commands were registered"
    );
    eventually(
        Duration::from_secs(20),
        Duration::from_millis(50),
        "the commands registered",
        || async { (!w.fake.commands().is_empty()).then_some(()) },
    )
    .await;
    w.assert_clean();
}

/// The bot token reset while the bot runs (Discord closes the gateway with
/// 4004 and answers REST 401): it used to run on with no gateway and no
/// clear line, answering nothing. It stops now, its last line saying the
/// token was refused and what to check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_token_stops_the_bot_with_one_clear_line() {
    let w = World::without_bot().await;
    let mut child = w
        .run_command()
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    w.connected().await;
    w.fake.revoke_token();
    let since = std::time::Instant::now();
    let stopped = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if since.elapsed() > WAIT {
            child.kill().unwrap();
            panic!("the bot ran on for {WAIT:?} with its token refused");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!stopped.success(), "it stopped as for a failure: {stopped}");
    let mut said = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut said).unwrap();
    let last = said.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("kozyr: Discord refused the bot token") && last.contains("DISCORD_TOKEN"),
        "its last line: {last:?}\n{said}"
    );
}
