//! Interactions in: slash commands become [`BotCommand`]s, component
//! presses go to [`Front::press`](crate::front::Front::press) (the card
//! menu to `Front::select_cards`), and every interaction is answered
//! exactly once within Discord's 3 seconds — at once with what the press
//! changed (`UPDATE_MESSAGE`), or deferred when the front-end is slow.

use std::sync::Arc;
use std::time::{Duration, Instant};

use twilight_model::application::interaction::{Interaction, InteractionData, InteractionType};
use twilight_model::channel::message::{Component, MessageFlags};
use twilight_model::guild::Permissions;
use twilight_model::http::interaction::{
    InteractionResponse, InteractionResponseData, InteractionResponseType,
};
use twilight_model::id::Id;
use twilight_model::id::marker::ChannelMarker;
use twilight_model::user::User;

use super::hands::{hand_message, hash_of, no_mentions};
use super::ids;
use super::markup::{self, Message};
use super::shared::Shared;
use crate::front::Reply;
use crate::front::action::{MenuPick, Press};
use crate::front::core::{BotCommand, Origin};
use crate::i18n::{Args, Lang, key, tr};
use crate::outlet::answer::{self, retried};
use crate::outlet::engine::Local;
use crate::table::runtime::DedupKey;
use crate::table::{ChatKey, Output, Platform, Player, TableId, UserId};

fn data(m: &Message, ephemeral: bool) -> InteractionResponseData {
    InteractionResponseData {
        allowed_mentions: Some(no_mentions()),
        components: Some(m.components.clone()),
        content: Some(m.content.clone()),
        flags: ephemeral.then_some(MessageFlags::EPHEMERAL),
        ..Default::default()
    }
}

/// How long an answer waits for an outbox edit of the same hand to land
/// (the interaction must be answered within 3 s; past this, what the hand
/// shows is taken as unknown and drawn again).
const HAND_TURN_WAIT: Duration = Duration::from_millis(500);

fn text(t: &str) -> Message {
    Message {
        content: markup::clip(t.to_owned()),
        components: Vec::new(),
    }
}

/// Who sent `i`: the member in a server, the user elsewhere.
fn author(i: &Interaction) -> Option<&User> {
    i.member
        .as_ref()
        .and_then(|m| m.user.as_ref())
        .or(i.user.as_ref())
}

/// Where `i` was sent.
fn channel(i: &Interaction) -> Option<Id<ChannelMarker>> {
    #[allow(deprecated)]
    i.channel.as_ref().map(|c| c.id).or(i.channel_id)
}

/// Who sent an interaction, where.
struct Sender {
    player: Player,
    origin: Origin,
}

fn sender(shared: &Shared, i: &Interaction) -> Option<Sender> {
    let (user, channel) = (author(i)?, channel(i)?);
    let name = i
        .member
        .as_ref()
        .and_then(|m| m.nick.clone())
        .or_else(|| user.global_name.clone())
        .unwrap_or_else(|| user.name.clone());
    let lang = lang_of(shared, i);
    if let Some(perms) = i.member.as_ref().and_then(|m| m.permissions) {
        let admin = perms.intersects(
            Permissions::ADMINISTRATOR | Permissions::MANAGE_GUILD | Permissions::MANAGE_CHANNELS,
        );
        shared.set_admin(channel.get(), user.id.get(), admin);
    }
    let title = i
        .channel
        .as_ref()
        .and_then(|c| c.name.clone())
        .map(|n| format!("#{n}"));
    Some(Sender {
        player: Player::new(ids::user_id(user.id), &name, lang),
        origin: Origin {
            chat: ids::chat_key(channel),
            private: i.guild_id.is_none(),
            title,
        },
    })
}

/// Handles one interaction from the gateway.
pub async fn on_interaction(shared: Arc<Shared>, i: Interaction, defer_after: Duration) {
    let arrived = Instant::now();
    shared.arrived(i.id.get(), arrived);
    handle(&shared, &i, defer_after, arrived).await;
    shared.handled(i.id.get());
}

async fn handle(shared: &Shared, i: &Interaction, defer_after: Duration, arrived: Instant) {
    if i.kind == InteractionType::MessageComponent && !admitted(shared, i, arrived) {
        too_fast(shared, i).await;
        return;
    }
    if let Some(user) = author(i) {
        shared.notify(Local::Acted(ids::user_id(user.id)));
    }
    let what = match i.kind {
        InteractionType::ApplicationCommand => {
            command(shared, i, defer_after).await;
            "command"
        }
        InteractionType::MessageComponent => {
            component(shared, i, defer_after).await;
            "component"
        }
        InteractionType::Ping => {
            respond(shared, i, InteractionResponseType::Pong, None).await;
            "ping"
        }
        _ => return,
    };
    tracing::debug!(what, "interaction handled");
}

/// Whether a press is within its person's and its channel's rates
/// ([`crate::front::press_limits`]): one person's flood is answered "too
/// fast" at once and never reaches the tables, so it holds up no one else.
fn admitted(shared: &Shared, i: &Interaction, now: Instant) -> bool {
    match (author(i), channel(i)) {
        (Some(user), Some(channel)) => shared.admit_press(user.id.get(), channel.get(), now),
        _ => true,
    }
}

/// The language of whoever sent `i`: theirs, else their server's.
fn lang_of(shared: &Shared, i: &Interaction) -> Lang {
    i.locale
        .as_deref()
        .and_then(ids::lang_of)
        .or_else(|| i.guild_locale.as_deref().and_then(ids::lang_of))
        .unwrap_or(shared.default_lang)
}

/// Answers `i` with a note only its sender sees (a refusal); whether it went.
async fn answer_privately(shared: &Shared, i: &Interaction, note: &str) -> bool {
    respond(
        shared,
        i,
        InteractionResponseType::ChannelMessageWithSource,
        Some(data(&text(note), true)),
    )
    .await
}

/// A press over its limits: a note only its presser sees, and nothing else.
async fn too_fast(shared: &Shared, i: &Interaction) {
    let lang = lang_of(shared, i);
    answer_privately(shared, i, &tr(lang, key::ERR_TOO_FAST, &Args::new())).await;
}

async fn respond(
    shared: &Shared,
    i: &Interaction,
    kind: InteractionResponseType,
    data: Option<InteractionResponseData>,
) -> bool {
    let answer = InteractionResponse { kind, data };
    if let Some(sent) = shared.answered_over_http(i.id.get(), answer.clone()) {
        return sent;
    }
    // A failed answer (a 5xx, a connection reset) is tried again while
    // Discord still takes it: people would see "This interaction failed"
    // for a move that counted.
    let r = retried(shared.answer_due(i.id.get()), || async {
        let client = shared.callbacks.interaction(shared.app);
        let r = client.create_response(i.id, &i.token, &answer).await;
        super::calls::record("create_response", &r);
        match r {
            Ok(_) => Ok(()),
            // The first try went through; only its answer was lost.
            Err(e) if super::calls::already_answered(&e) => Ok(()),
            Err(e) => Err((super::calls::classify(&e), e)),
        }
    })
    .await;
    if let Err((failure, e)) = &r {
        tracing::warn!(error = %e, ?failure, "answering an interaction failed");
    }
    r.is_ok()
}

async fn followup(shared: &Shared, token: &str, m: &Message, ephemeral: bool) {
    let client = shared.http.interaction(shared.app);
    let mentions = no_mentions();
    let mut req = client
        .create_followup(token)
        .content(&m.content)
        .components(&m.components)
        .allowed_mentions(Some(&mentions));
    if ephemeral {
        req = req.flags(MessageFlags::EPHEMERAL);
    }
    let r = req.await;
    super::calls::record("create_followup", &r);
    if let Err(e) = r {
        tracing::warn!(error = %e, "a follow-up message failed");
    }
}

/// Runs `work`, deferring the interaction first (`deferred` says how)
/// if it runs past `defer_after`, so Discord's 3 seconds are kept.
/// Returns the result and whether it was deferred.
async fn in_time<T>(
    shared: &Shared,
    i: &Interaction,
    defer_after: Duration,
    deferred: (InteractionResponseType, bool),
    work: impl std::future::Future<Output = T>,
) -> (T, bool) {
    let data = deferred.1.then(|| InteractionResponseData {
        flags: Some(MessageFlags::EPHEMERAL),
        ..Default::default()
    });
    let defer = || async {
        respond(shared, i, deferred.0, data).await;
    };
    answer::in_time(defer_after, work, defer).await
}

async fn command(shared: &Shared, i: &Interaction, defer_after: Duration) {
    let Some(InteractionData::ApplicationCommand(cmd)) = &i.data else {
        return;
    };
    let Some(s) = sender(shared, i) else {
        return;
    };
    let lang = s.player.lang;
    let Some(command) = BotCommand::parse(&cmd.name, "") else {
        answer_privately(shared, i, &tr(lang, key::ERR_BAD_BUTTON, &Args::new())).await;
        return;
    };
    let dedup = DedupKey::update(Platform::Discord, i.id.get());
    // Deferred the way it will be answered: a public "thinking…" note for
    // an answer only the sender sees would show the channel a note that
    // then vanishes.
    let defer_privately = answers_only_the_sender(&command);
    // A channel speaks its server's language until it chooses one.
    if !s.origin.private
        && let Some(l) = i.guild_locale.as_deref().and_then(ids::lang_of)
    {
        shared.front.adopt_chat_language(&s.origin.chat, l).await;
    }
    let (replies, late) = in_time(
        shared,
        i,
        defer_after,
        (
            InteractionResponseType::DeferredChannelMessageWithSource,
            defer_privately,
        ),
        shared
            .front
            .command(shared, &s.player, &s.origin, command, dedup),
    )
    .await;
    // (message, ephemeral): what concerns the sender alone only they see.
    let mut says: Vec<(Message, bool)> = Vec::new();
    // A table brought back is posted after what is said about it, so it
    // stays the channel's newest message.
    let mut brought = Vec::new();
    for r in replies {
        match r {
            Reply::Say(screen) => says.push((markup::public(&screen, None, None), false)),
            Reply::Tell(screen) => says.push((markup::public(&screen, None, None), true)),
            Reply::Popup(t) => says.push((text(&t), true)),
            Reply::Render(o) => shared.notify(Local::Output(o)),
            Reply::BringTable(v) => brought.push(v),
            Reply::CloseMenu | Reply::ReplaceMenu(_) | Reply::Seated { .. } => {}
        }
    }
    // A command that opened a table shows it as the table message; the
    // interaction itself only needs a quiet, private acknowledgement.
    let acknowledgement = says.is_empty();
    let (first, ephemeral) = says.first().cloned().unwrap_or_else(|| (text("✅"), true));
    if late && ephemeral != defer_privately {
        // The deferred "thinking…" note was not seen by whom the answer is
        // for (public for the sender alone, or the reverse): it goes, and
        // the answer follows as a message of its own.
        let client = shared.http.interaction(shared.app);
        let r = client.delete_response(&i.token).await;
        super::calls::record("delete_response", &r);
        if let Err(e) = r {
            tracing::warn!(error = %e, "removing a deferred answer failed");
        }
        if !acknowledgement {
            followup(shared, &i.token, &first, ephemeral).await;
        }
    } else {
        answer_with(shared, i, late, &first, ephemeral).await;
    }
    for (m, ephemeral) in says.iter().skip(1) {
        followup(shared, &i.token, m, *ephemeral).await;
    }
    for v in brought {
        shared.notify(Local::BringTable(v));
    }
}

/// Whether a command typed in a channel can only be answered to its
/// sender: opening a table (the table message is the answer; the command
/// gets a private acknowledgement or refusal), `/stop` (its prompt is the
/// asker's alone, as is a refusal) and `/kick` (its how-to, or a refusal)
/// — as [`crate::front::Front::command`] answers them.
fn answers_only_the_sender(command: &BotCommand) -> bool {
    matches!(
        command,
        BotCommand::New(Some(_)) | BotCommand::Stop | BotCommand::Kick(_)
    )
}

/// What a component interaction asks for.
enum Ask<'a> {
    MyHand(TableId),
    Cards(&'a [String]),
    Press(&'a str),
}

async fn component(shared: &Shared, i: &Interaction, defer_after: Duration) {
    let Some(InteractionData::MessageComponent(c)) = &i.data else {
        return;
    };
    let Some(s) = sender(shared, i) else {
        return;
    };
    let lang = s.player.lang;
    // An ephemeral message only its owner sees or presses: their hand, or
    // a prompt that was theirs alone.
    let ephemeral = i
        .message
        .as_ref()
        .and_then(|m| m.flags)
        .is_some_and(|f| f.contains(MessageFlags::EPHEMERAL));
    let origin = Origin {
        private: ephemeral,
        ..s.origin.clone()
    };
    let ask = if let Some(table) = markup::parse_my_hand(&c.custom_id) {
        Ask::MyHand(table)
    } else if c.custom_id == markup::CARD_MENU_ID {
        Ask::Cards(&c.values)
    } else {
        Ask::Press(&c.custom_id)
    };
    // A hand's press is answered with the hand after it; a private
    // prompt's (the stop prompt) with what it says once answered.
    let from_hand = ephemeral
        && match ask {
            Ask::MyHand(_) => false,
            Ask::Cards(_) => true,
            Ask::Press(data) => matches!(
                Press::parse(data),
                Ok(Press::Table { action, .. }) if action.is_hand()
            ),
        };
    if let Ask::MyHand(table) = ask {
        let place = (table, &s.origin.chat);
        my_hand(shared, i, &s.player.id, place, lang, defer_after).await;
        return;
    }
    let dedup = DedupKey::callback(Platform::Discord, &i.id.get().to_string());
    // A press on a hand holds the turn to change that message until its
    // answer went, so the outbox's edit that follows knows what it shows.
    let hand_turn = match (from_hand, pressed_table(c.custom_id.as_str(), &c.values)) {
        (true, Some(table)) => {
            shared
                .tokens
                .turn(&s.player.id, table, HAND_TURN_WAIT)
                .await
        }
        _ => None,
    };
    let work = async {
        let replies = match ask {
            Ask::MyHand(_) => Vec::new(),
            Ask::Press(data) => {
                shared
                    .front
                    .press(shared, &s.player, &origin, data, dedup)
                    .await
            }
            Ask::Cards(values) if !from_hand => {
                let _ = values;
                vec![Reply::Popup(tr(lang, key::ERR_BAD_BUTTON, &Args::new()))]
            }
            Ask::Cards(values) => cards(shared, &s.player, &origin, values, dedup).await,
        };
        // What the hand shows after the press: the message pressed on is
        // updated in the answer itself.
        let mut hand_now = None;
        let mut popups = Vec::new();
        let mut says = Vec::new();
        let mut close = false;
        // What a closed menu shows instead of its buttons, if not its text.
        let mut closing = None;
        let mut seated = None;
        let mut table_of_hand = None;
        for r in replies {
            match r {
                Reply::Render(Output::RenderHand(h)) if from_hand && h.player.id == s.player.id => {
                    table_of_hand = Some(h.table);
                    hand_now = hand_message(shared, &h).await;
                }
                Reply::Render(o) => shared.notify(Local::Output(o)),
                Reply::BringTable(v) => shared.notify(Local::BringTable(v)),
                Reply::Popup(t) => popups.push(t),
                Reply::Tell(screen) => popups.push(markup::public(&screen, None, None).content),
                Reply::Say(screen) => says.push(markup::public(&screen, None, None)),
                Reply::CloseMenu => close = true,
                Reply::ReplaceMenu(screen) => {
                    close = true;
                    closing = Some(markup::public(&screen, None, None).content);
                }
                Reply::Seated { text: t, .. } => seated = Some(markup::public(&t, None, None)),
            }
        }
        // A move from the hand changed it: show the state after the move.
        if from_hand
            && hand_now.is_none()
            && popups.is_empty()
            && let Some(table) = pressed_table(c.custom_id.as_str(), &c.values)
            && let Ok(Some(h)) = shared.front.service().hand_of(table, &s.player.id).await
        {
            table_of_hand = Some(table);
            hand_now = hand_message(shared, &h).await;
        }
        (
            hand_now,
            table_of_hand,
            popups,
            says,
            (close, closing),
            seated,
        )
    };
    let ((mut hand_now, table_of_hand, popups, says, (close, closing), seated), late) = in_time(
        shared,
        i,
        defer_after,
        (InteractionResponseType::DeferredUpdateMessage, false),
        work,
    )
    .await;
    let mut popups = popups.into_iter();
    // A menu that did its job shows its closing text (or keeps its own)
    // without components.
    let closed_menu = close.then(|| Message {
        content: closing.unwrap_or_else(|| {
            i.message
                .as_ref()
                .map(|m| m.content.clone())
                .unwrap_or_default()
        }),
        components: Vec::<Component>::new(),
    });
    // The answer changes the hand: the store's record of what it shows is
    // made unknown first (one short write, and only when it held another
    // hash), so a kill before the new token is kept leaves no hash behind
    // that the hand does not show.
    if let (Some(m), Some(table), Some(now)) =
        (&hand_now, table_of_hand, shared.arrival(i.id.get()))
    {
        shared
            .tokens
            .changing(&s.player.id, table, hash_of(m), now)
            .await;
    }
    let mut updated_hand = None;
    // A press whose answer draws what its hand shows already (a double
    // tap, a pick racing a redraw) edits nothing: known while it holds the
    // hand's turn.
    let pressed = i.message.as_ref().map(|m| m.id.get());
    let known = (table_of_hand.zip(pressed)).filter(|_| hand_turn.is_some());
    if let (Some(m), Some((table, message)), Some(now)) =
        (&hand_now, known, shared.arrival(i.id.get()))
        && (shared.tokens).shows((&s.player.id, table), message, hash_of(m), now)
    {
        (updated_hand, hand_now) = (Some(hash_of(m)), None);
    }
    use InteractionResponseType::{ChannelMessageWithSource, DeferredUpdateMessage, UpdateMessage};
    if let Some(m) = &hand_now {
        updated_hand = Some(hash_of(m));
    }
    let update = hand_now.as_ref().or(closed_menu.as_ref());
    // Whether the answer reached Discord (an interaction it never took an
    // answer for has no original response to edit), and whether the
    // original response is then the pressed message (an update, or a
    // deferred one) rather than a new ephemeral note. An update keeps the
    // message's own flags (ephemeral stays so).
    let (answered, original_is_pressed) = if late {
        // Deferred as an update of the pressed message: edit it now.
        let edited = match update {
            Some(m) => edit_original(shared, &i.token, m).await,
            None => true,
        };
        (edited, true)
    } else {
        let (kind, body, pressed) = if let Some(m) = update {
            (UpdateMessage, Some(data(m, false)), true)
        } else if let Some(p) = popups.next() {
            (ChannelMessageWithSource, Some(data(&text(&p), true)), false)
        } else if let Some(m) = &seated {
            (ChannelMessageWithSource, Some(data(m, true)), false)
        } else {
            (DeferredUpdateMessage, None, true)
        };
        (respond(shared, i, kind, body).await, pressed)
    };
    // The pressed hand message is now this interaction's original response:
    // its token edits the hand from now on. Not when the answer never
    // reached Discord: the hand's older token still edits it, where this
    // one would be refused (10015) and the hand would stop following the
    // game until its person pressed My hand.
    if from_hand
        && original_is_pressed
        && !answered
        && let Some(table) = table_of_hand
    {
        drop(hand_turn);
        // The hand shows what it showed before the press: the outbox
        // draws the state after it through the older token.
        if let Ok(Some(h)) = shared.front.service().hand_of(table, &s.player.id).await {
            shared.notify(Local::Output(Output::RenderHand(Box::new(h))));
        }
    } else if from_hand
        && original_is_pressed
        && let Some(table) = table_of_hand
    {
        // What the message shows is known only when no outbox edit of it
        // can still land after this answer: it held the hand's turn.
        let shown = updated_hand.filter(|_| hand_turn.is_some());
        if let Some(at) = shared.arrival(i.id.get()) {
            let token = (i.token.clone(), at);
            let place = (&s.player.id, table);
            shared.tokens.given(place, token, shown, pressed).await;
        }
        drop(hand_turn);
        // An edit of this hand still in flight may land after the answer
        // with an older state: the outbox draws it again if so (nothing is
        // sent when the message already shows the newest state).
        if let Ok(Some(h)) = shared.front.service().hand_of(table, &s.player.id).await {
            shared.notify(Local::Output(Output::RenderHand(Box::new(h))));
        }
    }
    for p in popups {
        followup(shared, &i.token, &text(&p), true).await;
    }
    // The seat note went out as the answer unless something else did.
    if (late || hand_now.is_some() || close)
        && let Some(m) = &seated
    {
        followup(shared, &i.token, m, true).await;
    }
    for m in says {
        followup(shared, &i.token, &m, false).await;
    }
}

/// Answers `i` with the message `m` (`ephemeral`: only its sender sees
/// it): the deferred answer becomes `m` when the interaction was deferred
/// (`late`), else `m` is the response. Whether it went (an edit of the
/// deferred answer counts as gone).
async fn answer_with(
    shared: &Shared,
    i: &Interaction,
    late: bool,
    m: &Message,
    ephemeral: bool,
) -> bool {
    if late {
        return edit_original(shared, &i.token, m).await;
    }
    respond(
        shared,
        i,
        InteractionResponseType::ChannelMessageWithSource,
        Some(data(m, ephemeral)),
    )
    .await
}

/// Edits the interaction's original response; whether it went.
async fn edit_original(shared: &Shared, token: &str, m: &Message) -> bool {
    let client = shared.http.interaction(shared.app);
    let mentions = no_mentions();
    let r = client
        .update_response(token)
        .content(Some(&m.content))
        .components(Some(&m.components))
        .allowed_mentions(Some(&mentions))
        .await;
    super::calls::record("update_response", &r);
    match r {
        Ok(_) => true,
        Err(e) => {
            tracing::warn!(error = %e, "editing a hand failed");
            false
        }
    }
}

/// The table a hand press (or card menu) is about.
fn pressed_table(custom_id: &str, values: &[String]) -> Option<TableId> {
    let data = if custom_id == markup::CARD_MENU_ID {
        values.first()?
    } else {
        custom_id
    };
    Press::parse(data).ok()?.table()
}

/// The card menu: a set of cards to select, or one card that plays at once.
async fn cards(
    shared: &Shared,
    from: &Player,
    origin: &Origin,
    values: &[String],
    dedup: DedupKey,
) -> Vec<Reply> {
    match MenuPick::parse(values) {
        Ok(MenuPick::Select(table, set)) => shared.front.select_cards(from, table, set).await,
        Ok(MenuPick::One(one)) => shared.front.press(shared, from, origin, one, dedup).await,
        Err(_) => vec![Reply::Popup(tr(
            from.lang,
            key::ERR_BAD_BUTTON,
            &Args::new(),
        ))],
    }
}

/// "My hand": the person's hand as an ephemeral reply, whose token then
/// keeps it up to date. Only in the table's own channel: a hand shown
/// elsewhere would play that table from a chat it does not live in.
async fn my_hand(
    shared: &Shared,
    i: &Interaction,
    user: &UserId,
    (table, channel): (TableId, &ChatKey),
    lang: Lang,
    defer_after: Duration,
) {
    // "My hand" on a table message posted anew since (its buttons were
    // removed; an old client may still send them): out of date, as any
    // old button.
    if let Some(pressed) = i.message.as_ref().map(|m| m.id.get())
        && shared.is_replaced(table, pressed)
    {
        answer_privately(shared, i, &tr(lang, key::ERR_STALE, &Args::new())).await;
        return;
    }
    let work = async {
        let view = shared
            .front
            .service()
            .table_view(table)
            .await
            .ok()
            .flatten();
        if view.is_some_and(|v| &v.chat != channel) {
            return Err(key::ERR_OTHER_CHAT);
        }
        let hand = shared
            .front
            .service()
            .hand_of(table, user)
            .await
            .ok()
            .flatten();
        match &hand {
            Some(h) => hand_message(shared, h).await.ok_or(key::DISCORD_NO_HAND),
            None => Err(key::DISCORD_NO_HAND),
        }
    };
    let (m, late) = in_time(
        shared,
        i,
        defer_after,
        (
            InteractionResponseType::DeferredChannelMessageWithSource,
            true,
        ),
        work,
    )
    .await;
    let m = match m {
        Ok(m) => m,
        Err(why) => {
            let t = text(&tr(lang, why, &Args::new()));
            answer_with(shared, i, late, &t, true).await;
            return;
        }
    };
    // The new message is this token's from now on; an outbox edit through
    // the old token goes to the old message.
    let turn = shared.tokens.turn(user, table, HAND_TURN_WAIT).await;
    let shown = answer_with(shared, i, late, &m, true).await;
    if shown {
        if let Some(at) = shared.arrival(i.id.get()) {
            let token = (i.token.clone(), at);
            let shown = Some(hash_of(&m));
            shared.tokens.given((user, table), token, shown, None).await;
        }
        drop(turn);
        // The table message may have asked them to press "My hand".
        if let Ok(Some(view)) = shared.front.service().table_view(table).await {
            shared.notify(Local::Output(Output::RenderTable(Box::new(view))));
        }
    }
}
