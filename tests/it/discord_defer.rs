//! A slow command on Discord is deferred the way it will be answered: one
//! whose answer only its sender sees (a refusal, the `/stop` prompt, the
//! acknowledgement of opening a table) is deferred ephemerally, so the
//! channel never sees a public "thinking…" note that then vanishes.

use std::time::Duration;

use crate::support::discord::{CHANNEL, World};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_answer_for_the_sender_alone_shows_the_channel_nothing() {
    let mut w = World::without_bot().await;
    // The front-end counts as slow: every interaction is deferred.
    w.defer_after = Duration::ZERO;
    w.answers = (5, 6);
    w.start().await;
    let before = w.fake.message_creates();

    // Boris asks to stop a table that is not there: refused to him alone.
    let q = w.fake.slash(&w.users[1], CHANNEL, "stop");
    assert_eq!(w.answered(q).await, 5, "deferred");
    w.sees(1, "the refusal", |seen| {
        seen.iter()
            .find(|m| m.ephemeral && !m.content.is_empty())
            .map(|_| ())
    })
    .await;
    // Ann opens a table: the table message is all the channel gets.
    let q = w.fake.slash(&w.users[0], CHANNEL, "kozel");
    assert_eq!(w.answered(q).await, 5, "deferred");
    w.sees(2, "the table message", |seen| {
        seen.iter()
            .find(|m| !m.ephemeral && !m.buttons.is_empty())
            .map(|_| ())
    })
    .await;
    w.stop().await;
    assert_eq!(
        w.fake.message_creates(),
        before + 1,
        "public messages: the table's only"
    );
    let deleted_answers = w
        .fake
        .calls()
        .iter()
        .filter(|c| c.route.starts_with("DELETE /webhooks"))
        .count();
    assert_eq!(deleted_answers, 0, "no answer posted and taken back");
    w.assert_clean();
}
