//! Interactions in: slash commands become [`BotCommand`]s, component
//! presses go to [`Front::press`](kozyr_front::Front::press) (the card
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
use kozyr_delivery::interaction::{
    CommandStep, PressFirst, Said, Seen, Sorted, command_answer, press_answer,
};
use kozyr_front::action::{MenuPick, Press};
use kozyr_front::core::{BotCommand, Origin};
use kozyr_front::{Front, Reply};
use kozyr_i18n::{Args, Lang, key, tr};
use kozyr_outlet::answer::{self, retried};
use kozyr_outlet::engine::Local;
use kozyr_table::runtime::DedupKey;
use kozyr_table::{ChatKey, Output, Platform, Player, TableId, UserId};

fn data(m: &Message, ephemeral: bool) -> InteractionResponseData {
    InteractionResponseData {
        allowed_mentions: Some(no_mentions()),
        components: Some(m.components.clone()),
        content: Some(m.content.clone()),
        flags: ephemeral.then_some(MessageFlags::EPHEMERAL),
        ..Default::default()
    }
}

/// How long after an interaction arrived a failed first answer (a 5xx, a
/// connection reset) is still tried again: Discord takes it within 3 s.
const ANSWER_RETRY_UNTIL: Duration = Duration::from_millis(2_400);

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

/// An interaction being handled, with when it arrived: its first answer
/// is due within Discord's 3 s from then.
struct Asked {
    interaction: Interaction,
    arrived: Instant,
}

impl std::ops::Deref for Asked {
    type Target = Interaction;

    fn deref(&self) -> &Interaction {
        &self.interaction
    }
}

impl Asked {
    /// By when the first answer must have gone, with room for the
    /// answer's own trip.
    fn answer_due(&self) -> Instant {
        self.arrived + ANSWER_RETRY_UNTIL
    }
}

/// Handles one interaction (from the gateway, the HTTP endpoint, or the
/// inbox, where it `waited` since a standby's shard received it: that
/// time counts against Discord's 3 s too).
pub async fn on_interaction(
    shared: Arc<Shared>,
    i: Interaction,
    defer_after: Duration,
    waited: Duration,
) {
    let now = Instant::now();
    let i = Asked {
        interaction: i,
        arrived: now.checked_sub(waited).unwrap_or(now),
    };
    handle(&shared, &i, defer_after.saturating_sub(waited)).await;
}

async fn handle(shared: &Shared, i: &Asked, defer_after: Duration) {
    if i.kind == InteractionType::MessageComponent && !admitted(shared, i, i.arrived) {
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
/// ([`kozyr_front::press_limits`]): one person's flood is answered "too
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
async fn answer_privately(shared: &Shared, i: &Asked, note: &str) -> bool {
    respond(
        shared,
        i,
        InteractionResponseType::ChannelMessageWithSource,
        Some(data(&text(note), true)),
    )
    .await
}

/// A press over its limits: a note only its presser sees, and nothing else.
async fn too_fast(shared: &Shared, i: &Asked) {
    let lang = lang_of(shared, i);
    answer_privately(shared, i, &tr(lang, key::ERR_TOO_FAST, &Args::new())).await;
}

async fn respond(
    shared: &Shared,
    i: &Asked,
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
    let r = retried(Some(i.answer_due()), || async {
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
    i: &Asked,
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

async fn command(shared: &Shared, i: &Asked, defer_after: Duration) {
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
    let defer_privately = Front::answers_only_the_sender(&command);
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
    let sorted = Sorted::of(replies, None);
    for o in sorted.outputs {
        shared.notify(Local::Output(o));
    }
    // What concerns the sender alone only they see.
    let said = (sorted.said.into_iter())
        .map(|w| {
            let seen = w.seen();
            let m = match w {
                Said::Chat(screen) | Said::Sender(screen) => markup::public(&screen, None, None),
                Said::Note(t) => text(&t),
            };
            (m, seen)
        })
        .collect();
    // A command that opened a table shows it as the table message; the
    // interaction itself only needs a quiet, private acknowledgement.
    let deferred = late.then_some(if defer_privately {
        Seen::Sender
    } else {
        Seen::Chat
    });
    for step in command_answer(said, text("✅"), deferred) {
        match step {
            CommandStep::Answer(m, seen) => {
                answer_with(shared, i, late, &m, seen == Seen::Sender).await;
            }
            CommandStep::DeleteDeferred => {
                let client = shared.http.interaction(shared.app);
                let r = client.delete_response(&i.token).await;
                super::calls::record("delete_response", &r);
                if let Err(e) = r {
                    tracing::warn!(error = %e, "removing a deferred answer failed");
                }
            }
            CommandStep::FollowUp(m, seen) => {
                followup(shared, &i.token, &m, seen == Seen::Sender).await;
            }
        }
    }
    // A table brought back is posted after what is said about it, so it
    // stays the channel's newest message.
    for v in sorted.bring {
        shared.notify(Local::BringTable(Box::new(v)));
    }
}

/// What a component interaction asks for.
enum Ask<'a> {
    MyHand(TableId),
    Cards(&'a [String]),
    Press(&'a str),
}

async fn component(shared: &Shared, i: &Asked, defer_after: Duration) {
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
    // A press on a hand is an answer on that message: it holds the turn
    // to change it until the answer went, so the outbox's edit that
    // follows knows what it shows.
    let answering = match (from_hand, pressed_table(c.custom_id.as_str(), &c.values)) {
        (true, Some(table)) => Some(
            (shared.tokens)
                .answering(&s.player.id, table, i.arrived, HAND_TURN_WAIT)
                .await,
        ),
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
            Ask::Cards(_) if !from_hand => {
                vec![Reply::Popup(tr(lang, key::ERR_BAD_BUTTON, &Args::new()))]
            }
            Ask::Cards(values) => cards(shared, &s.player, &origin, values, dedup).await,
        };
        let mut sorted = Sorted::of(replies, from_hand.then_some(&s.player.id));
        for o in sorted.outputs.drain(..) {
            shared.notify(Local::Output(o));
        }
        for v in sorted.bring.drain(..) {
            shared.notify(Local::BringTable(Box::new(v)));
        }
        // What the hand shows after the press: the message pressed on is
        // updated in the answer itself. A move from the hand changed it
        // even when no reply drew it: the state after the move.
        let quiet = !sorted.said.iter().any(|w| w.seen() == Seen::Sender);
        let own = match (sorted.own_hand.take(), &answering) {
            (Some(h), Some(a)) if h.table == a.table() => Some(*h),
            // Another table's hand is the outbox's to draw.
            (Some(h), _) => {
                shared.notify(Local::Output(Output::RenderHand(h)));
                None
            }
            (None, Some(a)) if quiet => {
                let hand = shared.front.service().hand_of(a.table(), &s.player.id);
                hand.await.ok().flatten()
            }
            (None, _) => None,
        };
        let hand_now = match &own {
            Some(h) => hand_message(shared, h).await,
            None => None,
        };
        (hand_now, own.is_some(), sorted)
    };
    let ((mut hand_now, own_hand, sorted), late) = in_time(
        shared,
        i,
        defer_after,
        (InteractionResponseType::DeferredUpdateMessage, false),
        work,
    )
    .await;
    // What the hand shows after the answer; an answer that would draw
    // what the pressed message shows already, or that came past its wait
    // for the hand's turn, draws nothing.
    let pressed = i.message.as_ref().map(|m| m.id.get());
    let updated_hand = hand_now.as_ref().map(hash_of);
    if let (Some(hash), Some(a)) = (updated_hand, &answering)
        && !a.must_draw(hash, pressed).await
    {
        hand_now = None;
    }
    // A menu that did its job shows its closing text (or keeps its own)
    // without components.
    let closed_menu = sorted.closed_menu.map(|closing| Message {
        content: match closing {
            Some(screen) => markup::public(&screen, None, None).content,
            None => (i.message.as_ref())
                .map(|m| m.content.clone())
                .unwrap_or_default(),
        },
        components: Vec::<Component>::new(),
    });
    let (mut notes, mut says) = (Vec::new(), Vec::new());
    for said in sorted.said {
        match said {
            Said::Note(t) => notes.push(text(&t)),
            Said::Sender(screen) => notes.push(text(&markup::public(&screen, None, None).content)),
            Said::Chat(screen) => says.push(markup::public(&screen, None, None)),
        }
    }
    let seated = sorted.seated.map(|t| markup::public(&t, None, None));
    let plan = press_answer(hand_now.or(closed_menu), notes, seated, says, late);
    // Whether the answer reached Discord (an interaction it never took an
    // answer for has no original response to edit). An update keeps the
    // message's own flags (ephemeral stays so).
    use InteractionResponseType::{ChannelMessageWithSource, DeferredUpdateMessage, UpdateMessage};
    let answered = match (&plan.first, late) {
        (PressFirst::Update(m), true) => edit_original(shared, &i.token, m).await,
        (PressFirst::Quiet, true) => true,
        (PressFirst::Update(m), false) => {
            respond(shared, i, UpdateMessage, Some(data(m, false))).await
        }
        (PressFirst::Note(m), _) => {
            respond(shared, i, ChannelMessageWithSource, Some(data(m, true))).await
        }
        (PressFirst::Quiet, false) => respond(shared, i, DeferredUpdateMessage, None).await,
    };
    // The pressed hand message is now this interaction's original response:
    // its token edits the hand from now on. Not when the answer never
    // reached Discord: the hand's older token still edits it, where this
    // one would be refused (10015) and the hand would stop following the
    // game until its person pressed My hand.
    if let Some(a) = answering
        && own_hand
        && plan.original_is_pressed()
    {
        let table = a.table();
        if answered {
            a.went(i.token.clone(), updated_hand, pressed).await;
        }
        // Unanswered, the hand shows what it showed before the press, and
        // the outbox draws the state after it through the older token.
        // Answered without drawing (past the wait, `went` waited for the
        // edit on its way), the outbox draws it now; nothing is sent when
        // the message already shows the newest.
        if let Ok(Some(h)) = shared.front.service().hand_of(table, &s.player.id).await {
            shared.notify(Local::Output(Output::RenderHand(Box::new(h))));
        }
    }
    for (m, seen) in plan.follow_ups {
        followup(shared, &i.token, &m, seen == Seen::Sender).await;
    }
}

/// Answers `i` with the message `m` (`ephemeral`: only its sender sees
/// it): the deferred answer becomes `m` when the interaction was deferred
/// (`late`), else `m` is the response. Whether it went (an edit of the
/// deferred answer counts as gone).
async fn answer_with(shared: &Shared, i: &Asked, late: bool, m: &Message, ephemeral: bool) -> bool {
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
    i: &Asked,
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
        let token = (i.token.clone(), i.arrived);
        let shown = Some(hash_of(&m));
        shared.tokens.given((user, table), token, shown, None).await;
        drop(turn);
        // The table message may have asked them to press "My hand".
        if let Ok(Some(view)) = shared.front.service().table_view(table).await {
            shared.notify(Local::Output(Output::RenderTable(Box::new(view))));
        }
    }
}
