//! A person's hand as a Discord message, and what tells two messages
//! apart: shared by the handlers (a press answered with the hand after
//! it) and the outbox (hands edited through the newest token).

use twilight_model::channel::message::AllowedMentions;

use super::markup::{self, Message};
use super::shared::Shared;
use kozyr_i18n::{Args, key, tr};
use kozyr_table::HandView;

/// Nobody is pinged by what kozyr posts unless it says so.
pub fn no_mentions() -> AllowedMentions {
    AllowedMentions::default()
}

/// A hash of a message, to skip edits that change nothing.
pub fn hash_of(m: &Message) -> i64 {
    let components = serde_json::to_string(&m.components).unwrap_or_default();
    kozyr_delivery::content::content_hash([m.content.as_bytes(), components.as_bytes()])
}

/// A person's hand as a Discord message, with their selection ticked.
pub async fn hand_message(shared: &Shared, hand: &HandView) -> Option<Message> {
    let view = shared.front.service().table_view(hand.table).await.ok()??;
    let screen = shared.front.hand_screen(hand, &view);
    let lang = hand.player.lang;
    Some(markup::hand(
        &screen,
        kozyr_front::select::bounds_of(hand),
        &tr(lang, key::DISCORD_PICK_CARDS, &Args::new()),
    ))
}
