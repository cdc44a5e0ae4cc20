//! The service's outputs as Discord REST calls.
//!
//! One public message per table, edited in place: at most one call per
//! table in flight and only the newest state is sent (latest wins);
//! twilight's rate limiter reads Discord's headers and holds a request
//! until its route's bucket allows it, so a 429 delays only that route.
//! Hands are edited through the player's newest interaction token while
//! Discord keeps it; a refused (expired) token is forgotten and the table
//! message then asks the person to press "My hand" again. Message ids are
//! kept through the service, so a restart edits the same messages.
//!
//! The live table stays where people look: when a deal starts (the
//! series' first and every next one) and when other people's chat has
//! buried it ([`kozyr_delivery::burial`]: messages below it, counted from
//! the gateway's MESSAGE_CREATE), the next render posts
//! it anew at the bottom, after the announcements that came with it, and
//! the old message is edited once to keep its text without its buttons.
//! Over the HTTP interactions endpoint alone (no gateway events) only the
//! first of the two would apply; kozyr keeps its gateway connection in
//! both modes.
//!
//! The neutral decisions are [`kozyr_delivery`]'s, made by its
//! [`Engine`](kozyr_delivery::engine::Engine) under
//! [`EngineOutbox`](kozyr_outlet::engine::EngineOutbox): for table
//! messages, their turn pings and hands — latest wins per message, what a
//! failed call means and what follows it, announcements before the next
//! render, what each message shows, and who is told that it is their turn
//! (a person quiet for the quiet time, or whose hand cannot be edited —
//! its token is gone — when their turn comes), by one mention that
//! notifies: the table message's own when it is posted anew, else a ping
//! message naming only them. The outbox also restores at a start what the
//! last run kept. This file says what the messages look like and makes
//! the calls ([`EnginePlatform`]), among them the look for table messages
//! a kill kept from the store.

use std::sync::Mutex;
use std::time::Instant;

use twilight_http::error::Error as HttpError;
use twilight_model::channel::message::{AllowedMentions, MessageFlags};
use twilight_model::id::Id;
use twilight_model::id::marker::{ChannelMarker, MessageMarker, UserMarker};

use super::calls::classify;
use super::hands::{hand_message, hash_of, no_mentions};
use super::ids;
use super::markup::{self, Message};
use super::shared::Shared;
use kozyr_delivery::Set;
use kozyr_delivery::burial::Burials;
use kozyr_delivery::engine::{self, Outcome, Strip};
use kozyr_delivery::restore::orphans;
use kozyr_delivery::transport::{self, Failure};
use kozyr_front::action::Press;
use kozyr_front::outputs;
use kozyr_front::{Front, Screen};
use kozyr_i18n::{Args, key, tr};
use kozyr_outlet::engine::{Drawn, EnginePlatform};
use kozyr_outlet::hand_tokens::HandTokens;
use kozyr_outlet::jobs::TableCalls;
use kozyr_table::{ChatKey, HandView, Phase, Platform, TableId, TableView, UserId};

/// The table messages as the engine sees them: the message and whom it
/// mentions.
type TableOut = (Message, Vec<Id<UserMarker>>);

/// The public message of `view`: the table, whose turn it is (they are
/// mentioned, and only they), and the "My hand" button in play.
/// Also: the turn lines of the people awaited whom the turn alerts
/// tell, who get a new message that pings them — a mention added by an
/// edit notifies no one.
fn table_message(
    shared: &Shared,
    alerted: &Set<UserId>,
    view: &TableView,
    now: Instant,
) -> (Message, Vec<Id<UserMarker>>, Vec<(u64, String)>) {
    let screen = shared.front.table_screen(view);
    let lang = view.settings.lang;
    let mut lines = Vec::new();
    let mut pinged = Vec::new();
    let mut away = Vec::new();
    for player in view.awaited_people() {
        let Some(u) = ids::user_of(&player.id) else {
            continue;
        };
        let mut line = format!(
            "<@{}> — {}",
            u.get(),
            tr(lang, key::DISCORD_YOUR_TURN, &Args::new())
        );
        if shared.tokens.fresh(&player.id, view.id, now).is_none() {
            line.push_str(": ");
            line.push_str(&tr(lang, key::DISCORD_PRESS_MY_HAND, &Args::new()));
        }
        if alerted.contains(&player.id) {
            away.push((u.get(), line.clone()));
        }
        lines.push(line);
        pinged.push(u);
    }
    let extra = (!lines.is_empty()).then(|| lines.join("\n"));
    let hand_button = matches!(view.phase, Phase::Playing | Phase::Finished).then(|| {
        (
            tr(lang, key::DISCORD_MY_HAND, &Args::new()),
            markup::my_hand_id(view.id),
        )
    });
    let m = markup::public(
        &screen,
        extra.as_deref(),
        hand_button.as_ref().map(|(l, id)| (l.as_str(), id.clone())),
    );
    (m, pinged, away)
}

/// A table's state as its message shows it, for the engine.
fn render(
    shared: &Shared,
    alerted: &Set<UserId>,
    view: &TableView,
    now: Instant,
) -> Drawn<TableOut> {
    let (m, pinged, alerted) = table_message(shared, alerted, view, now);
    Drawn {
        hash: hash_of(&m),
        message: (m, pinged),
        alerted,
    }
}

/// Looks in `channel` for `table`'s messages that a kill kept from the
/// store, and settles them as [`orphans`] decides: the newest is the
/// table's message (returned), the others go.
///
/// With `recorded`, a post anew after that message: the messages from it
/// on that carry the table's "My hand" button count, and the recorded one
/// loses its buttons. Without, a first post, never recorded: the channel's
/// newest messages that carry any button of the table count.
async fn adopt_lost_post(
    shared: &Shared,
    table: TableId,
    channel: Id<ChannelMarker>,
    recorded: Option<Id<MessageMarker>>,
) -> Option<Id<MessageMarker>> {
    let r = match recorded {
        // `after` leaves out the id it names: from the recorded one on.
        Some(rec) => {
            let after = Id::new_checked(rec.get() - 1)?;
            let list = shared.http.channel_messages(channel);
            list.after(after).limit(100).await
        }
        None => shared.http.channel_messages(channel).limit(50).await,
    };
    super::calls::record("channel_messages", &r);
    let messages = match r {
        Ok(r) => r.models().await.ok()?,
        Err(e) => {
            tracing::debug!(error = %e, "cannot look for a table's lost posts");
            return None;
        }
    };
    let my_hand = format!("\"{}\"", markup::my_hand_id(table));
    let carries = |m: &twilight_model::channel::Message| match recorded {
        Some(_) => serde_json::to_string(&m.components).is_ok_and(|j| j.contains(&my_hand)),
        None => serde_json::to_value(&m.components).is_ok_and(|v| names_table(&v, table)),
    };
    let found: Vec<u64> = messages
        .iter()
        .filter(|m| shared.is_bot(m.author.id.get()) && carries(m))
        .map(|m| m.id.get())
        .collect();
    let settle = orphans(recorded.map_or(0, Id::get), &found);
    let adopt = Id::new_checked(settle.adopt?)?;
    tracing::info!(
        table = table.0,
        recorded = recorded.map(Id::get),
        adopted = adopt.get(),
        removed = settle.delete.len(),
        "a table message posted before the last stop, its id never kept, was found: it shows the table"
    );
    for id in settle.delete.into_iter().filter_map(Id::new_checked) {
        let r = shared.http.delete_message(channel, id).await;
        super::calls::record("delete_message", &r);
    }
    if let Some(old) = settle.strip.and_then(Id::new_checked) {
        strip(shared, channel, old, None).await;
    }
    Some(adopt)
}

/// Whether components (as JSON) hold a button of `table`: "My hand", or
/// a press of the table (a lobby's Join, a game's buttons).
fn names_table(v: &serde_json::Value, table: TableId) -> bool {
    match v {
        serde_json::Value::Array(items) => items.iter().any(|i| names_table(i, table)),
        serde_json::Value::Object(map) => map.iter().any(|(k, v)| match (k.as_str(), v) {
            ("custom_id", serde_json::Value::String(id)) => {
                markup::parse_my_hand(id) == Some(table)
                    || matches!(Press::parse(id), Ok(Press::Table { table: t, .. }) if t == table)
            }
            _ => names_table(v, table),
        }),
        _ => false,
    }
}

/// The old table message after the table was posted anew: it keeps its
/// text (or says `said` instead) and loses its buttons (one edit; a
/// refusal leaves it as it was, its buttons then answer as out of date).
async fn strip(
    shared: &Shared,
    channel: Id<ChannelMarker>,
    old: Id<MessageMarker>,
    said: Option<String>,
) {
    let mut edit = shared
        .http
        .update_message(channel, old)
        .components(Some(&[]));
    if let Some(text) = &said {
        edit = edit.content(Some(text));
    }
    let r = edit.await;
    super::calls::record("update_message", &r);
    if let Err(e) = r {
        tracing::debug!(error = %e, failure = ?classify(&e), "the old table message keeps its buttons");
    }
}

/// Posts `m` in `channel`; the new message's id, when Discord's answer
/// could be read.
async fn post(
    shared: &Shared,
    channel: Id<ChannelMarker>,
    m: &Message,
    mentions: &AllowedMentions,
) -> Result<Option<Id<MessageMarker>>, HttpError> {
    let r = shared
        .http
        .create_message(channel)
        .content(&m.content)
        .components(&m.components)
        .allowed_mentions(Some(mentions))
        .await;
    super::calls::record("create_message", &r);
    match r?.model().await {
        Ok(msg) => Ok(Some(msg.id)),
        Err(e) => {
            tracing::warn!(error = %e, "cannot read a posted message");
            Ok(None)
        }
    }
}

/// What Discord's messages look like, and its calls, under the outbox.
impl EnginePlatform for Shared {
    type Hand = Message;
    const PLATFORM: Platform = Platform::Discord;

    fn front(&self) -> &Front {
        &self.front
    }

    fn tokens(&self) -> &HandTokens {
        &self.tokens
    }

    fn burials(&self) -> &Mutex<Burials<u64>> {
        &self.burials
    }

    fn serves(&self, chat: &ChatKey) -> bool {
        ids::channel_of(chat).is_some()
    }

    fn serves_person(&self, user: &UserId) -> bool {
        ids::user_of(user).is_some()
    }

    fn word(&self, screen: &Screen) -> Message {
        markup::public(screen, None, None)
    }

    fn render(&self, view: &TableView, alerted: &Set<UserId>, now: Instant) -> Drawn<TableOut> {
        render(self, alerted, view, now)
    }

    async fn hand(&self, hand: &HandView) -> Option<(Message, i64)> {
        let m = hand_message(self, hand).await?;
        let hash = hash_of(&m);
        Some((m, hash))
    }

    async fn edit_hand(&self, token: String, m: Message) -> Result<(), Failure> {
        let client = self.http.interaction(self.app);
        let r = client
            .update_response(&token)
            .content(Some(&m.content))
            .components(Some(&m.components))
            .allowed_mentions(Some(&no_mentions()))
            .await;
        super::calls::record("update_response", &r);
        r.map(drop).map_err(|e| {
            tracing::debug!(error = %e, "editing a hand failed");
            classify(&e)
        })
    }

    async fn remind(&self, token: String, m: Message) {
        let client = self.http.interaction(self.app);
        let r = client
            .create_followup(&token)
            .content(&m.content)
            .flags(MessageFlags::EPHEMERAL)
            .allowed_mentions(Some(&no_mentions()))
            .await;
        super::calls::record("create_followup", &r);
        if let Err(e) = r {
            tracing::debug!(error = %e, "a reminder failed");
        }
    }

    async fn find_lost_post(
        &self,
        table: TableId,
        chat: ChatKey,
        recorded: Option<u64>,
    ) -> Option<u64> {
        let channel = ids::channel_of(&chat)?;
        let recorded = recorded.and_then(Id::new_checked);
        adopt_lost_post(self, table, channel, recorded)
            .await
            .map(Id::get)
    }
}

/// Discord's calls for the engine's jobs ([`kozyr_outlet::jobs`]).
impl TableCalls for Shared {
    type Table = TableOut;
    type News = Message;

    async fn post(&self, chat: &ChatKey, (m, pinged): &TableOut) -> Result<Option<u64>, Failure> {
        let channel = ids::channel_of(chat).ok_or(Failure::Invalid)?;
        let mentions = AllowedMentions {
            users: pinged.clone(),
            ..AllowedMentions::default()
        };
        let r = post(self, channel, m, &mentions).await;
        r.map(|id| id.map(Id::get)).map_err(|e| {
            tracing::warn!(error = %e, "posting a table message failed");
            classify(&e)
        })
    }

    async fn edit(
        &self,
        chat: &ChatKey,
        message: u64,
        (m, pinged): &TableOut,
    ) -> Result<(), Failure> {
        let channel = ids::channel_of(chat).ok_or(Failure::Invalid)?;
        // No message to edit: the engine posts it anew.
        let id = Id::new_checked(message).ok_or(Failure::MessageGone)?;
        let mentions = AllowedMentions {
            users: pinged.clone(),
            ..AllowedMentions::default()
        };
        let r = self
            .http
            .update_message(channel, id)
            .content(Some(&m.content))
            .components(Some(&m.components))
            .allowed_mentions(Some(&mentions))
            .await;
        super::calls::record("update_message", &r);
        r.map(drop).map_err(|e| {
            let f = classify(&e);
            let shown = engine::shows(&Outcome::Failed(f, transport::Call::Edit));
            if !shown && !engine::post_anew(f) {
                tracing::warn!(error = %e, "editing a table message failed");
            }
            f
        })
    }

    async fn strip(&self, chat: &ChatKey, old: Strip) {
        let (Some(channel), Some(old_id)) = (ids::channel_of(chat), Id::new_checked(old.message))
        else {
            return;
        };
        let said = old
            .started
            .map(|lang| markup::public(&outputs::lobby_started(lang), None, None).content);
        strip(self, channel, old_id, said).await;
    }

    async fn announce(&self, chat: &ChatKey, n: &Message) -> Result<(), Failure> {
        let channel = ids::channel_of(chat).ok_or(Failure::Invalid)?;
        let r = post(self, channel, n, &no_mentions()).await;
        r.map(drop).map_err(|e| {
            tracing::warn!(error = %e, "an announcement failed");
            classify(&e)
        })
    }

    async fn ping(
        &self,
        chat: &ChatKey,
        who: &[u64],
        lines: &[String],
    ) -> Result<Option<u64>, Failure> {
        let channel = ids::channel_of(chat).ok_or(Failure::Invalid)?;
        let mentions = AllowedMentions {
            users: who.iter().filter_map(|u| Id::new_checked(*u)).collect(),
            ..AllowedMentions::default()
        };
        let m = Message {
            content: markup::clip(lines.join("\n")),
            components: Vec::new(),
        };
        let r = post(self, channel, &m, &mentions).await;
        r.map(|id| id.map(Id::get)).map_err(|e| {
            tracing::warn!(error = %e, "a turn ping failed");
            classify(&e)
        })
    }

    async fn delete(&self, chat: &ChatKey, message: u64) {
        let (Some(channel), Some(id)) = (ids::channel_of(chat), Id::new_checked(message)) else {
            return;
        };
        let r = self.http.delete_message(channel, id).await;
        super::calls::record("delete_message", &r);
        if let Err(e) = r {
            tracing::debug!(error = %e, "removing a turn ping failed");
        }
    }
}
