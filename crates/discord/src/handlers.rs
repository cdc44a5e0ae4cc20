//! Interactions in: who sent each and where, its rates, and what it asks
//! for; slash commands become [`BotCommand`]s, component presses an
//! [`Ask`]. How each is answered, exactly once within Discord's 3 seconds
//! (at once with what the press changed, or deferred when the front-end
//! is slow), is [`kozyr_outlet::interaction`]'s; `Call` is its Discord
//! side: the markup and the callbacks of one interaction.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use twilight_model::application::interaction::{Interaction, InteractionData, InteractionType};
use twilight_model::channel::message::MessageFlags;
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
use kozyr_delivery::interaction::{ANSWER_RETRY_UNTIL, Seen};
use kozyr_front::core::{BotCommand, Origin};
use kozyr_front::press_limits::PressLimits;
use kozyr_front::{Front, Screen};
use kozyr_i18n::{Args, Lang, key, tr};
use kozyr_outlet::answer::retried;
use kozyr_outlet::engine::Local;
use kozyr_outlet::hand_tokens::HandTokens;
use kozyr_outlet::interaction::{self, Ask, Respond};
use kozyr_table::runtime::DedupKey;
use kozyr_table::{HandView, Platform, Player};

fn data(m: &Message, ephemeral: bool) -> InteractionResponseData {
    InteractionResponseData {
        allowed_mentions: Some(no_mentions()),
        components: Some(m.components.clone()),
        content: Some(m.content.clone()),
        flags: ephemeral.then_some(MessageFlags::EPHEMERAL),
        ..Default::default()
    }
}

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

/// The language of whoever sent `i`: theirs, else their server's.
fn lang_of(shared: &Shared, i: &Interaction) -> Lang {
    i.locale
        .as_deref()
        .and_then(ids::lang_of)
        .or_else(|| i.guild_locale.as_deref().and_then(ids::lang_of))
        .unwrap_or(shared.default_lang)
}

/// Answers `i` with a note only its sender sees (a refusal).
async fn answer_privately(shared: &Shared, i: &Asked, note: &str) {
    use interaction::Interaction as _;
    let call = Call { shared, i };
    call.respond(Respond::Say(text(note), Seen::Sender)).await;
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
    let r = retried(Some(i.arrived + ANSWER_RETRY_UNTIL), || async {
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

async fn command(shared: &Shared, i: &Asked, defer_after: Duration) {
    let Some(InteractionData::ApplicationCommand(cmd)) = &i.data else {
        return;
    };
    let Some(s) = sender(shared, i) else {
        return;
    };
    let Some(command) = BotCommand::parse(&cmd.name, "") else {
        let refused = tr(s.player.lang, key::ERR_BAD_BUTTON, &Args::new());
        answer_privately(shared, i, &refused).await;
        return;
    };
    let dedup = DedupKey::update(Platform::Discord, i.id.get());
    // A channel speaks its server's language until it chooses one.
    if !s.origin.private
        && let Some(l) = i.guild_locale.as_deref().and_then(ids::lang_of)
    {
        shared.front.adopt_chat_language(&s.origin.chat, l).await;
    }
    let call = Call { shared, i };
    let from = (&s.player, &s.origin);
    interaction::command(&call, from, command, dedup, defer_after).await;
}

async fn component(shared: &Shared, i: &Asked, defer_after: Duration) {
    let Some(InteractionData::MessageComponent(c)) = &i.data else {
        return;
    };
    let Some(s) = sender(shared, i) else {
        return;
    };
    let ask = if let Some(table) = markup::parse_my_hand(&c.custom_id) {
        Ask::MyHand(table)
    } else if c.custom_id == markup::CARD_MENU_ID {
        Ask::Cards(&c.values)
    } else {
        Ask::Press(&c.custom_id)
    };
    let dedup = DedupKey::callback(Platform::Discord, &i.id.get().to_string());
    let call = Call { shared, i };
    let from = (&s.player, &s.origin);
    interaction::component(&call, from, ask, dedup, defer_after).await;
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
            tracing::warn!(error = %e, "editing an interaction's answer failed");
            false
        }
    }
}

/// One interaction answered through Discord's callbacks: the calls and
/// the markup [`interaction`]'s flows use.
struct Call<'a> {
    shared: &'a Shared,
    i: &'a Asked,
}

impl interaction::Interaction for Call<'_> {
    type Message = Message;
    type Admins = Shared;

    fn front(&self) -> &Front {
        &self.shared.front
    }

    fn admins(&self) -> &Shared {
        self.shared
    }

    fn tokens(&self) -> &HandTokens {
        &self.shared.tokens
    }

    fn presses(&self) -> &Mutex<PressLimits> {
        &self.shared.presses
    }

    fn notify(&self, local: Local) {
        self.shared.notify(local);
    }

    fn arrived(&self) -> Instant {
        self.i.arrived
    }

    fn token(&self) -> &str {
        &self.i.token
    }

    fn pressed(&self) -> Option<u64> {
        self.i.message.as_ref().map(|m| m.id.get())
    }

    fn pressed_privately(&self) -> bool {
        (self.i.message.as_ref())
            .and_then(|m| m.flags)
            .is_some_and(|f| f.contains(MessageFlags::EPHEMERAL))
    }

    fn text(&self, t: &str) -> Message {
        text(t)
    }

    fn screen(&self, screen: &Screen, buttons: bool) -> Message {
        let m = markup::public(screen, None, None);
        if buttons { m } else { text(&m.content) }
    }

    fn closed_menu(&self, closing: Option<&Screen>) -> Message {
        let content = match closing {
            Some(screen) => markup::public(screen, None, None).content,
            None => (self.i.message.as_ref())
                .map(|m| m.content.clone())
                .unwrap_or_default(),
        };
        Message {
            content,
            components: Vec::new(),
        }
    }

    fn hash(&self, m: &Message) -> i64 {
        hash_of(m)
    }

    async fn hand(&self, hand: &HandView) -> Option<Message> {
        hand_message(self.shared, hand).await
    }

    async fn respond(&self, first: Respond<Message>) -> bool {
        use InteractionResponseType as Kind;
        let private = |seen| seen == Seen::Sender;
        let (kind, data) = match first {
            Respond::Say(m, seen) => (
                Kind::ChannelMessageWithSource,
                Some(data(&m, private(seen))),
            ),
            Respond::Update(m) => (Kind::UpdateMessage, Some(data(&m, false))),
            Respond::DeferUpdate => (Kind::DeferredUpdateMessage, None),
            Respond::DeferSay(seen) => {
                let data = private(seen).then(|| InteractionResponseData {
                    flags: Some(MessageFlags::EPHEMERAL),
                    ..Default::default()
                });
                (Kind::DeferredChannelMessageWithSource, data)
            }
        };
        respond(self.shared, self.i, kind, data).await
    }

    async fn edit_original(&self, m: &Message) -> bool {
        edit_original(self.shared, &self.i.token, m).await
    }

    async fn delete_original(&self) {
        let client = self.shared.http.interaction(self.shared.app);
        let r = client.delete_response(&self.i.token).await;
        super::calls::record("delete_response", &r);
        if let Err(e) = r {
            tracing::warn!(error = %e, "removing a deferred answer failed");
        }
    }

    async fn follow_up(&self, m: &Message, seen: Seen) {
        followup(self.shared, &self.i.token, m, seen == Seen::Sender).await;
    }
}
