//! Discord's failures through the delivery engine's one policy
//! (`delivery::transport`), end to end on the strict fake: an edit of the
//! table message that Discord's edge answers 502 is tried again after a
//! pause, so the table shows its newest state without waiting for another
//! change.

use kozyr::front::action::TableAction;

use crate::support::discord::{CHANNEL, World};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_edit_lost_to_an_outage_is_tried_again() {
    let w = World::new().await;
    let q = w.fake.slash(&w.users[0], CHANNEL, "kozel");
    w.answered(q).await;
    w.table_button(1, |a| a == TableAction::Join).await;
    // Discord's edge fails the next edit of a channel message.
    w.fake.outage("PATCH /channels", 1);
    let q = w.click_table(1, TableAction::Join).await;
    w.answered(q).await;
    // Nothing else changes at the table; Boris still comes to be shown.
    w.sees(2, "Boris seated on the table message", |seen| {
        seen.iter()
            .find(|m| !m.ephemeral && !m.buttons.is_empty() && m.content.contains("Boris"))
            .map(|_| ())
    })
    .await;
    let failed = w
        .fake
        .calls()
        .iter()
        .filter(|c| c.route.starts_with("PATCH /channels") && c.status == 502)
        .count();
    assert_eq!(failed, 1, "the outage was met");
    w.assert_clean();
}
