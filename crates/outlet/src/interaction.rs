//! Answering an interaction on a platform that wants each one answered
//! once and in time, and says anything more as follow-ups (Discord): a
//! command, a press, a request for one's hand. The order of the calls,
//! when to defer, which reply is the answer
//! ([`kozyr_delivery::interaction`]) and the turn to change a hand
//! message ([`HandTokens`]) are decided here; the shell implements
//! [`Interaction`] with its markup and its calls for one interaction, and
//! nothing else.

use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use kozyr_delivery::interaction::{
    CommandStep, PressFirst, Said, Seen, Sorted, command_answer, press_answer,
};
use kozyr_front::action::{MenuPick, Press};
use kozyr_front::core::{Admins, BotCommand, Origin};
use kozyr_front::press_limits::PressLimits;
use kozyr_front::{Front, Reply, Screen};
use kozyr_i18n::{Args, key, tr};
use kozyr_table::runtime::DedupKey;
use kozyr_table::{ChatKey, HandView, Output, Player, TableId, UserId};

use crate::answer;
use crate::engine::Local;
use crate::hand_tokens::HandTokens;
use crate::lock;

/// How long an answer waits for an outbox edit of the same hand to land
/// (the interaction must be answered within 3 s; past this, what the hand
/// shows is taken as unknown and drawn again).
pub const HAND_TURN_WAIT: Duration = Duration::from_millis(500);

/// The first answer to an interaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Respond<M> {
    /// A new message; [`Seen::Sender`]: only the sender sees it.
    Say(M, Seen),
    /// The pressed message becomes `M`.
    Update(M),
    /// Acknowledged: the pressed message is edited later, or not at all.
    DeferUpdate,
    /// "Thinking…", seen as said; the answer edits it later.
    DeferSay(Seen),
}

/// One interaction, as its platform's shell answers it: the shell's
/// markup for what is said, and its calls on this interaction's token.
/// Every call says whether it went; failures are the shell's to log.
pub trait Interaction: Sync {
    /// A message as the platform takes it.
    type Message: Clone + Send + Sync;
    /// Who may do what where (the shell's notion of an admin).
    type Admins: Admins;

    fn front(&self) -> &Front;
    fn admins(&self) -> &Self::Admins;
    fn tokens(&self) -> &HandTokens;
    /// How many presses each person and each channel may have accepted.
    fn presses(&self) -> &Mutex<PressLimits>;
    /// Work for the outbox.
    fn notify(&self, local: Local);
    /// When the interaction arrived: its token's life, and the platform's
    /// time to answer, count from then.
    fn arrived(&self) -> Instant;
    /// The token that answers it, and edits its answer later.
    fn token(&self) -> &str;
    /// The message pressed on, if any.
    fn pressed(&self) -> Option<u64>;
    /// Whether the pressed message is one only the sender sees (their
    /// hand, or a prompt that was theirs alone).
    fn pressed_privately(&self) -> bool;

    /// A short note.
    fn text(&self, text: &str) -> Self::Message;
    /// A screen, with its buttons or as text alone.
    fn screen(&self, screen: &Screen, buttons: bool) -> Self::Message;
    /// The pressed menu closed: `closing`, or its own text, without buttons.
    fn closed_menu(&self, closing: Option<&Screen>) -> Self::Message;
    /// What tells two messages apart.
    fn hash(&self, m: &Self::Message) -> i64;
    /// A person's hand as a message (`None`: its table is gone).
    fn hand(&self, hand: &HandView) -> impl Future<Output = Option<Self::Message>> + Send;

    fn respond(&self, first: Respond<Self::Message>) -> impl Future<Output = bool> + Send;
    /// Edits the first answer (the deferred one, or the pressed message).
    fn edit_original(&self, m: &Self::Message) -> impl Future<Output = bool> + Send;
    /// Removes the first answer.
    fn delete_original(&self) -> impl Future<Output = ()> + Send;
    fn follow_up(&self, m: &Self::Message, seen: Seen) -> impl Future<Output = ()> + Send;
}

/// What a component interaction asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask<'a> {
    /// The table message's "My hand".
    MyHand(TableId),
    /// A hand's card menu: its chosen values.
    Cards(&'a [String]),
    /// A button's data.
    Press(&'a str),
}

impl Ask<'_> {
    /// The table a press on a hand is about.
    fn table(&self) -> Option<TableId> {
        let data: &str = match self {
            Ask::MyHand(table) => return Some(*table),
            Ask::Cards(values) => values.first()?,
            Ask::Press(data) => data,
        };
        Press::parse(data).ok()?.table()
    }
}

/// Runs `work`, deferring first (as `deferred`) if it runs past
/// `defer_after`, so the platform's time to answer is kept. The result,
/// and whether it was deferred.
async fn in_time<I: Interaction, T>(
    i: &I,
    defer_after: Duration,
    deferred: Respond<I::Message>,
    work: impl Future<Output = T>,
) -> (T, bool) {
    let defer = || async {
        i.respond(deferred).await;
    };
    answer::in_time(defer_after, work, defer).await
}

/// Answers with `m` (as `seen`): the deferred answer becomes `m` when the
/// interaction was deferred (`late`), else `m` is the answer. Whether it
/// went.
async fn answer_with<I: Interaction>(i: &I, late: bool, m: I::Message, seen: Seen) -> bool {
    if late {
        return i.edit_original(&m).await;
    }
    i.respond(Respond::Say(m, seen)).await
}

/// A command from `from` at `origin`.
pub async fn command<I: Interaction>(
    i: &I,
    (from, origin): (&Player, &Origin),
    command: BotCommand,
    dedup: DedupKey,
    defer_after: Duration,
) {
    i.notify(Local::Acted(from.id.clone()));
    // Deferred the way it will be answered: a public "thinking…" note for
    // an answer only the sender sees would show the channel a note that
    // then vanishes.
    let deferred_seen = if Front::answers_only_the_sender(&command) {
        Seen::Sender
    } else {
        Seen::Chat
    };
    let work = i.front().command(i.admins(), from, origin, command, dedup);
    let deferred = Respond::DeferSay(deferred_seen);
    let (replies, late) = in_time(i, defer_after, deferred, work).await;
    let sorted = Sorted::of(replies, None);
    for o in sorted.outputs {
        i.notify(Local::Output(o));
    }
    // What concerns the sender alone only they see.
    let said = (sorted.said.into_iter())
        .map(|w| {
            let seen = w.seen();
            let m = match w {
                Said::Chat(screen) | Said::Sender(screen) => i.screen(&screen, true),
                Said::Note(t) => i.text(&t),
            };
            (m, seen)
        })
        .collect();
    // A command that opened a table shows it as the table message; the
    // interaction itself only needs a quiet, private acknowledgement.
    for step in command_answer(said, i.text("✅"), late.then_some(deferred_seen)) {
        match step {
            CommandStep::Answer(m, seen) => {
                answer_with(i, late, m, seen).await;
            }
            CommandStep::DeleteDeferred => i.delete_original().await,
            CommandStep::FollowUp(m, seen) => i.follow_up(&m, seen).await,
        }
    }
    // A table brought back is posted after what is said about it, so it
    // stays the channel's newest message.
    for v in sorted.bring {
        i.notify(Local::BringTable(Box::new(v)));
    }
}

/// Whether a press by `from` at `origin` is within their own and the
/// chat's rates ([`kozyr_front::press_limits`]), counted from its arrival.
fn admitted<I: Interaction>(i: &I, from: &Player, origin: &Origin) -> bool {
    let (UserId::Telegram(person) | UserId::Discord(person)) = from.id;
    let chat = match origin.chat {
        ChatKey::Telegram(c) => c,
        // A snowflake is below 2^63: as i64 it keys the chat's bucket.
        ChatKey::Discord(c) => c as i64,
    };
    lock(i.presses()).admit(person, chat, i.arrived())
}

/// A press on a component (`origin`: where it was pressed, private when
/// on a message only its sender sees).
pub async fn component<I: Interaction>(
    i: &I,
    (from, origin): (&Player, &Origin),
    ask: Ask<'_>,
    dedup: DedupKey,
    defer_after: Duration,
) {
    let lang = from.lang;
    // One person's flood is answered "too fast" at once, only to them, and
    // never reaches the tables: it holds up no one else.
    if !admitted(i, from, origin) {
        let note = i.text(&tr(lang, key::ERR_TOO_FAST, &Args::new()));
        i.respond(Respond::Say(note, Seen::Sender)).await;
        return;
    }
    i.notify(Local::Acted(from.id.clone()));
    if let Ask::MyHand(table) = ask {
        my_hand(i, from, (table, origin), defer_after).await;
        return;
    }
    let privately = i.pressed_privately();
    // A hand's press is answered with the hand after it; a private
    // prompt's (the stop prompt) with what it says once answered.
    let from_hand = privately
        && match ask {
            Ask::MyHand(_) => false,
            Ask::Cards(_) => true,
            Ask::Press(data) => matches!(
                Press::parse(data),
                Ok(Press::Table { action, .. }) if action.is_hand()
            ),
        };
    let origin = Origin {
        private: privately,
        ..origin.clone()
    };
    // A press on a hand is an answer on that message: it holds the turn
    // to change it until the answer went, so the outbox's edit that
    // follows knows what it shows.
    let answering = match (from_hand, ask.table()) {
        (true, Some(table)) => Some(
            (i.tokens())
                .answering(&from.id, table, i.arrived(), HAND_TURN_WAIT)
                .await,
        ),
        _ => None,
    };
    let work = async {
        let replies = match ask {
            Ask::MyHand(_) => Vec::new(),
            Ask::Press(data) => {
                i.front()
                    .press(i.admins(), from, &origin, data, dedup)
                    .await
            }
            Ask::Cards(_) if !from_hand => {
                vec![Reply::Popup(tr(lang, key::ERR_BAD_BUTTON, &Args::new()))]
            }
            Ask::Cards(values) => cards(i, from, &origin, values, dedup).await,
        };
        let mut sorted = Sorted::of(replies, from_hand.then_some(&from.id));
        for o in sorted.outputs.drain(..) {
            i.notify(Local::Output(o));
        }
        for v in sorted.bring.drain(..) {
            i.notify(Local::BringTable(Box::new(v)));
        }
        // What the hand shows after the press: the message pressed on is
        // updated in the answer itself. A move from the hand changed it
        // even when no reply drew it: the state after the move.
        let quiet = !sorted.said.iter().any(|w| w.seen() == Seen::Sender);
        let own = match (sorted.own_hand.take(), &answering) {
            (Some(h), Some(a)) if h.table == a.table() => Some(*h),
            // Another table's hand is the outbox's to draw.
            (Some(h), _) => {
                i.notify(Local::Output(Output::RenderHand(h)));
                None
            }
            (None, Some(a)) if quiet => {
                let hand = i.front().service().hand_of(a.table(), &from.id);
                hand.await.ok().flatten()
            }
            (None, _) => None,
        };
        let hand_now = match &own {
            Some(h) => i.hand(h).await,
            None => None,
        };
        (hand_now, own.is_some(), sorted)
    };
    let ((mut hand_now, own_hand, sorted), late) =
        in_time(i, defer_after, Respond::DeferUpdate, work).await;
    // What the hand shows after the answer; an answer that would draw
    // what the pressed message shows already, or that came past its wait
    // for the hand's turn, draws nothing.
    let pressed = i.pressed();
    let updated_hand = hand_now.as_ref().map(|m| i.hash(m));
    if let (Some(hash), Some(a)) = (updated_hand, &answering)
        && !a.must_draw(hash, pressed).await
    {
        hand_now = None;
    }
    // A menu that did its job shows its closing text (or keeps its own)
    // without buttons.
    let closed_menu = (sorted.closed_menu).map(|closing| i.closed_menu(closing.as_ref()));
    let (mut notes, mut says) = (Vec::new(), Vec::new());
    for said in sorted.said {
        match said {
            Said::Note(t) => notes.push(i.text(&t)),
            Said::Sender(screen) => notes.push(i.screen(&screen, false)),
            Said::Chat(screen) => says.push(i.screen(&screen, true)),
        }
    }
    let seated = sorted.seated.map(|t| i.screen(&t, true));
    let plan = press_answer(hand_now.or(closed_menu), notes, seated, says, late);
    // Whether the answer reached the platform (an interaction it never
    // took an answer for has no original response to edit). An update
    // keeps the message's own flags (private stays so).
    let answered = match (&plan.first, late) {
        (PressFirst::Update(m), true) => i.edit_original(m).await,
        (PressFirst::Quiet, true) => true,
        (PressFirst::Update(m), false) => i.respond(Respond::Update(m.clone())).await,
        (PressFirst::Note(m), _) => i.respond(Respond::Say(m.clone(), Seen::Sender)).await,
        (PressFirst::Quiet, false) => i.respond(Respond::DeferUpdate).await,
    };
    // The pressed hand message is now this interaction's original response:
    // its token edits the hand from now on. Not when the answer never
    // reached the platform: the hand's older token still edits it, where
    // this one would be refused and the hand would stop following the
    // game until its person pressed My hand.
    if let Some(a) = answering
        && own_hand
        && plan.original_is_pressed()
    {
        let table = a.table();
        if answered {
            a.went(i.token().to_owned(), updated_hand, pressed).await;
        }
        // Unanswered, the hand shows what it showed before the press, and
        // the outbox draws the state after it through the older token.
        // Answered without drawing (past the wait, `went` waited for the
        // edit on its way), the outbox draws it now; nothing is sent when
        // the message already shows the newest.
        if let Ok(Some(h)) = i.front().service().hand_of(table, &from.id).await {
            i.notify(Local::Output(Output::RenderHand(Box::new(h))));
        }
    }
    for (m, seen) in plan.follow_ups {
        i.follow_up(&m, seen).await;
    }
}

/// The card menu: a set of cards to select, or one card that plays at once.
async fn cards<I: Interaction>(
    i: &I,
    from: &Player,
    origin: &Origin,
    values: &[String],
    dedup: DedupKey,
) -> Vec<Reply> {
    match MenuPick::parse(values) {
        Ok(MenuPick::Select(table, set)) => i.front().select_cards(from, table, set).await,
        Ok(MenuPick::One(one)) => i.front().press(i.admins(), from, origin, one, dedup).await,
        Err(_) => vec![Reply::Popup(tr(
            from.lang,
            key::ERR_BAD_BUTTON,
            &Args::new(),
        ))],
    }
}

/// "My hand": the person's hand as a reply only they see, whose token then
/// keeps it up to date. Only in the table's own channel: a hand shown
/// elsewhere would play that table from a chat it does not live in.
async fn my_hand<I: Interaction>(
    i: &I,
    from: &Player,
    (table, origin): (TableId, &Origin),
    defer_after: Duration,
) {
    let lang = from.lang;
    // "My hand" on a table message posted anew since (its buttons were
    // removed; an old client may still send them): out of date, as any
    // old button.
    if let Some(pressed) = i.pressed()
        && i.tokens().is_replaced(table, pressed)
    {
        let stale = i.text(&tr(lang, key::ERR_STALE, &Args::new()));
        i.respond(Respond::Say(stale, Seen::Sender)).await;
        return;
    }
    let service = i.front().service();
    let work = async {
        let view = service.table_view(table).await.ok().flatten();
        if view.is_some_and(|v| v.chat != origin.chat) {
            return Err(key::ERR_OTHER_CHAT);
        }
        match service.hand_of(table, &from.id).await.ok().flatten() {
            Some(h) => i.hand(&h).await.ok_or(key::DISCORD_NO_HAND),
            None => Err(key::DISCORD_NO_HAND),
        }
    };
    let deferred = Respond::DeferSay(Seen::Sender);
    let (m, late) = in_time(i, defer_after, deferred, work).await;
    let m = match m {
        Ok(m) => m,
        Err(why) => {
            let t = i.text(&tr(lang, why, &Args::new()));
            answer_with(i, late, t, Seen::Sender).await;
            return;
        }
    };
    // The new message is this token's from now on; an outbox edit through
    // the old token goes to the old message.
    let turn = i.tokens().turn(&from.id, table, HAND_TURN_WAIT).await;
    let shown = Some(i.hash(&m));
    if answer_with(i, late, m, Seen::Sender).await {
        let token = (i.token().to_owned(), i.arrived());
        (i.tokens())
            .given((&from.id, table), token, shown, None)
            .await;
        drop(turn);
        // The table message may have asked them to press "My hand".
        if let Ok(Some(view)) = service.table_view(table).await {
            i.notify(Local::Output(Output::RenderTable(Box::new(view))));
        }
    }
}
