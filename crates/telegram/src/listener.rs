//! Long polling that confirms an update to Telegram only once kozyr has
//! handled it; and, in webhook mode, the reader of the inbox the webhook
//! intake writes to ([`inbox`]), which deletes a row only once its update
//! was handled. Both hand updates to the handlers the same way
//! ([`Handoff`]): one chat's in order, each after the one before it
//! finished, different chats' at once (`kozyr_outlet::dispatch`).
//!
//! Telegram forgets the updates below the `offset` of a `getUpdates` call.
//! teloxide's own polling asks for the next batch (and so confirms the last
//! one) while the handlers of the last batch still run: a bot killed then
//! loses the presses it had received but not yet committed. Here the offset
//! never passes an update whose handling has not finished: each update gets
//! an [`UpdateGuard`] as it is handed to the handlers, and the
//! update counts as handled when the last clone of the guard is dropped
//! (the handler returned, its command committed or refused). A kill in
//! between makes Telegram deliver the update again after the restart, and
//! the table service's de-duplication (by update and callback query id)
//! applies it once.
//!
//! While updates are in flight, `getUpdates` would hand them out again at
//! once; they are skipped, and the next poll waits for a handler to
//! finish, as [`Cursor`] (`kozyr_delivery::polling`) decides: this file makes
//! the calls and the waits.
//!
//! One person, or one chat, cannot hold up the others. Before the
//! handlers see a press, [`polling::admit`] counts it against its
//! person's and its chat's token bucket; a press over either, or in a chat
//! with too many updates already waiting, is answered "too fast" at once
//! beside the handlers and changes nothing. Other updates of such a chat
//! are dropped. The handlers of the presses let through finish
//! quickly, so the offset soon passes a flood.
//!
//! The batch is read as JSON values and each update parsed on its own: an
//! update the parser rejects is logged once (its id and the parser's
//! complaint, never its contents: it holds people's names) and confirmed
//! with the next offset; the rest of the batch goes on. A batch that is
//! not even valid JSON because of a lone UTF-16 surrogate (a name cut in
//! the middle of an emoji) is read again with U+FFFD in its place.
//!
//! The long poll holds `timeout` seconds on Telegram's side; the HTTP
//! client that asks must wait longer than that, or every quiet poll ends
//! in a client time-out, an error and a back-off. Polling therefore has a
//! client of its own whose time-out is the hold plus [`POLL_MARGIN`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use teloxide::payloads::AnswerCallbackQuerySetters;
use teloxide::prelude::*;
use teloxide::requests::{JsonRequest, Payload};
use teloxide::types::{AllowedUpdate, ChatId, Update, UpdateKind};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::shared::{Handled, UpdateGuard};
use kozyr_delivery::polling::{self, Admission, Cursor};
use kozyr_i18n::{Args, Lang, key, tr};
use kozyr_outlet::dispatch::PerChat;
use kozyr_outlet::inbox::{Gone, Row};
use kozyr_table::storage::InboxEntry;

/// How much longer than the long poll's hold the polling client waits for
/// Telegram's answer.
const POLL_MARGIN: Duration = Duration::from_secs(10);

/// The longest hold when polling has to share the bot's own client
/// (teloxide's, which gives up after 17 s).
const SHARED_CLIENT_HOLD: Duration = Duration::from_secs(10);

/// How long a stopping listener waits for the handlers in flight before it
/// confirms what was handled.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// What handles an update (`handlers::handle`, given by `bot`).
pub type Handler = Arc<dyn Fn(Update, UpdateGuard) -> BoxFuture + Send + Sync>;
type BoxFuture = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// `getUpdates` answered as bare JSON values, so that one update the
/// parser rejects does not fail its whole batch.
#[derive(Clone, Debug, serde::Serialize)]
struct RawGetUpdates {
    offset: i32,
    timeout: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_updates: Option<Vec<AllowedUpdate>>,
}

impl Payload for RawGetUpdates {
    type Output = Vec<Value>;
    const NAME: &'static str = "GetUpdates";

    fn timeout_hint(&self) -> Option<Duration> {
        Some(Duration::from_secs(self.timeout.into()))
    }
}

/// One entry of a batch (or one webhook POST).
#[derive(Debug)]
pub(super) enum Incoming {
    Update(Box<Update>),
    /// The parser rejected it; `id` if it could be read.
    Malformed {
        id: Option<u32>,
        error: String,
    },
}

impl Incoming {
    fn id(&self) -> Option<u32> {
        match self {
            Incoming::Update(u) => Some(u.id.0),
            Incoming::Malformed { id, .. } => *id,
        }
    }
}

pub(super) fn parse_update(value: Value) -> Incoming {
    let id = value
        .get("update_id")
        .and_then(Value::as_u64)
        .and_then(|id| u32::try_from(id).ok());
    // From text, as teloxide reads it: some of its types borrow strings,
    // which an owned `Value` cannot lend.
    match serde_json::from_str::<Update>(&value.to_string()) {
        // teloxide parses a kind it cannot read as an empty `Error`.
        Ok(u) if matches!(u.kind, UpdateKind::Error(_)) => Incoming::Malformed {
            id: Some(u.id.0),
            error: "an update of a kind or shape this bot cannot read".into(),
        },
        Ok(u) => Incoming::Update(Box::new(u)),
        Err(e) => Incoming::Malformed {
            id,
            error: e.to_string(),
        },
    }
}

/// The updates of an answer teloxide could not read as JSON, if a lone
/// UTF-16 surrogate was the reason.
fn reread(raw: &str) -> Option<Vec<Value>> {
    let repaired = polling::replace_lone_surrogates(raw);
    let answer: Value = serde_json::from_str(&repaired).ok()?;
    match answer.get("result")? {
        Value::Array(updates) => Some(updates.clone()),
        _ => None,
    }
}

/// The bot polling asks with, and how long its polls hold: a client of its
/// own that waits longer than the hold; with a proxy set for teloxide's
/// client, that client and a hold it outlasts.
fn poll_client(bot: &Bot, hold: Duration) -> (Bot, Duration) {
    if std::env::var_os("TELOXIDE_PROXY").is_none()
        && let Ok(client) = teloxide::net::default_reqwest_settings()
            .timeout(hold + POLL_MARGIN)
            .build()
    {
        let own = Bot::with_client(bot.token(), client).set_api_url(bot.api_url());
        return (own, hold);
    }
    (bot.clone(), hold.min(SHARED_CLIENT_HOLD))
}

// ------------------------------------------------------------ fairness

use kozyr_front::press_limits::{PressLimits, PressRates};

/// Where the intake (long polling, or the inbox's reader) hands updates:
/// through [`polling::admit`] to the handlers, one chat's in order, each
/// in flight in `handled` until handled.
pub struct Handoff {
    pub bot: Bot,
    pub handler: Handler,
    pub handled: Arc<Handled>,
    pub default_lang: Lang,
    pub rates: PressRates,
}

/// A [`Handoff`] at work.
struct Gatekeeper {
    handoff: Handoff,
    limits: PressLimits,
    chats: PerChat<ChatId>,
}

impl Gatekeeper {
    fn new(handoff: Handoff) -> Gatekeeper {
        Gatekeeper {
            limits: PressLimits::new(handoff.rates.person, handoff.rates.chat),
            handoff,
            chats: PerChat::default(),
        }
    }

    /// Lets `update` through to the handlers (`Some`: resolves once it
    /// is handled), or answers it "too fast" beside them, or drops it
    /// (`None`).
    fn admit(&mut self, update: Update) -> Option<oneshot::Receiver<()>> {
        let Handoff {
            bot,
            handler,
            handled,
            default_lang,
            ..
        } = &self.handoff;
        let id = update.id.0;
        let chat = update.chat().map(|c| c.id);
        let waiting = chat.map_or(0, |c| handled.in_chat(&c));
        let presser = match &update.kind {
            UpdateKind::CallbackQuery(q) => Some((q.from.id.0, chat.map_or(0, |c| c.0))),
            _ => None,
        };
        match polling::admit(&mut self.limits, waiting, presser, Instant::now()) {
            Admission::Dispatch => {
                let done = handled.begin(id, chat);
                let guard = handled.guard(id);
                self.chats.run(chat, handler(update, guard));
                return Some(done);
            }
            Admission::TooFast => {
                let UpdateKind::CallbackQuery(q) = update.kind else {
                    return None;
                };
                let lang = super::ids::lang_of(&q.from).unwrap_or(*default_lang);
                let text = tr(lang, key::ERR_TOO_FAST, &Args::new());
                // Answered beside the handlers, and not held in flight:
                // the press changes nothing, so a kill before the answer
                // loses nothing, while holding it would pin the poll's
                // offset (and the inbox's reads) behind a flood's
                // thousands of answers, and every other chat's updates
                // with it.
                let bot = bot.clone();
                tokio::spawn(async move {
                    if let Err(e) = bot.answer_callback_query(q.id).text(text).await {
                        tracing::debug!(error = %e, "could not answer a press over its limit");
                    }
                });
            }
            Admission::Drop => {
                tracing::debug!(
                    update = id,
                    "dropping an update: its chat has too many waiting"
                );
            }
        }
        None
    }
}

/// Reads one batch: `Ok` with every update parsed or rejected one by one.
async fn get_updates(
    bot: &Bot,
    payload: RawGetUpdates,
) -> Result<Vec<Incoming>, teloxide::RequestError> {
    let values = match JsonRequest::new(bot.clone(), payload).send().await {
        Ok(values) => values,
        Err(teloxide::RequestError::InvalidJson { source, raw }) => match reread(&raw) {
            Some(values) => values,
            None => {
                // The error's own text quotes the whole answer (names).
                tracing::warn!(
                    error = %source,
                    bytes = raw.len(),
                    "getUpdates answered with JSON that cannot be read"
                );
                return Err(teloxide::RequestError::InvalidJson { source, raw });
            }
        },
        Err(e) => return Err(e),
    };
    Ok(values.into_iter().map(parse_update).collect())
}

/// Long polling that confirms only handled updates, until `stop` is sent
/// (or dropped): the polling task, which ends once the handled updates
/// are confirmed. `conflicts` counts Telegram's 409s.
pub fn polling(
    timeout: Duration,
    handoff: Handoff,
    conflicts: Arc<AtomicU64>,
) -> (oneshot::Sender<()>, JoinHandle<()>) {
    let (stop, stopped) = oneshot::channel();
    let task = tokio::spawn(poll_loop(
        timeout,
        Gatekeeper::new(handoff),
        conflicts,
        stopped,
    ));
    (stop, task)
}

/// A failed `getUpdates`. A 409 "terminated by other getUpdates request"
/// means a second instance polls with the same token: each would get a
/// share of the updates and play its own copy of the games. That cannot be
/// fixed from here, so it is reported loudly (and counted); the pause
/// after a failure keeps the two from cutting each other's long polls in
/// a tight loop.
fn polling_failed(conflicts: &AtomicU64, e: &teloxide::RequestError) {
    use teloxide::{ApiError, RequestError};
    if let RequestError::Api(ApiError::TerminatedByOtherGetUpdates) = e {
        let n = conflicts.fetch_add(1, Ordering::Relaxed) + 1;
        // The first time, then now and then: a log that repeats every second is noise.
        if n == 1 || n.is_multiple_of(60) {
            tracing::error!(
                conflicts = n,
                "another instance is polling with this bot's token (Telegram answered 409 Conflict): \
                 updates are split between the two; stop the other instance"
            );
        }
    } else {
        tracing::warn!(error = %e, "getUpdates failed");
    }
}

async fn poll_loop(
    timeout: Duration,
    mut gate: Gatekeeper,
    conflicts: Arc<AtomicU64>,
    mut stopped: oneshot::Receiver<()>,
) {
    let (bot, hold) = poll_client(&gate.handoff.bot, timeout);
    let handled = gate.handoff.handled.clone();
    let mut allowed = Some(super::handlers::ALLOWED.to_vec());
    let mut cursor = Cursor::default();
    'poll: loop {
        let oldest = handled.oldest();
        let ask = cursor.ask(oldest, hold);
        let payload = RawGetUpdates {
            offset: i32::try_from(ask.offset).unwrap_or(i32::MAX),
            timeout: u32::try_from(ask.hold.as_secs()).unwrap_or(u32::MAX),
            limit: None,
            allowed_updates: allowed.take(),
        };
        let finished = handled.finished();
        let result = tokio::select! {
            r = get_updates(&bot, payload) => r,
            _ = &mut stopped => break 'poll,
        };
        super::failure::record_call("getUpdates", &result);
        let pause = match result {
            Ok(batch) => {
                let mut fresh = 0;
                for incoming in batch {
                    if !cursor.take(incoming.id()) {
                        continue;
                    }
                    match incoming {
                        Incoming::Update(u) => {
                            fresh += 1;
                            gate.admit(*u);
                        }
                        // Skipped: the next offset confirms it.
                        Incoming::Malformed { id, error } => {
                            tracing::warn!(update = ?id, %error, "skipping an update that cannot be read");
                        }
                    }
                }
                if let Some(recheck) = cursor.batch_read(fresh, oldest.is_some()) {
                    tokio::select! {
                        () = finished => cursor.waited(true),
                        () = tokio::time::sleep(recheck) => cursor.waited(false),
                        _ = &mut stopped => break 'poll,
                    }
                }
                continue 'poll;
            }
            // Already logged, without the answer's text (people's names).
            Err(teloxide::RequestError::InvalidJson { .. }) => cursor.failed(None),
            Err(e) => {
                polling_failed(&conflicts, &e);
                cursor.failed(match &e {
                    teloxide::RequestError::RetryAfter(s) => Some(s.duration()),
                    _ => None,
                })
            }
        };
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            _ = &mut stopped => break 'poll,
        }
    }
    // The handlers finish the updates in hand. Then what was handled is
    // confirmed, so that a restart does not see it again.
    handled.drain(STOP_GRACE).await;
    if let Some(id) = handled.oldest() {
        tracing::warn!(
            update = id,
            "stopping with updates not handled; Telegram will deliver them again"
        );
    }
    let Some(offset) = cursor.confirming(handled.oldest()) else {
        return;
    };
    let confirm = RawGetUpdates {
        offset: i32::try_from(offset).unwrap_or(i32::MAX),
        timeout: 0,
        limit: Some(1),
        allowed_updates: None,
    };
    match JsonRequest::new(bot, confirm).send().await {
        // Unreadable or not, what is below the offset is confirmed.
        Ok(_) | Err(teloxide::RequestError::InvalidJson { .. }) => {}
        Err(e) => tracing::warn!(error = %e, "could not confirm the last updates to Telegram"),
    }
}

// ------------------------------------------------------------ the inbox

/// The reader of the webhook's inbox (see [`super::webhook`]), until
/// `stop` is sent (or dropped), through [`kozyr_outlet::inbox::read`]:
/// each waiting update goes to the handlers in the order received,
/// through the same gate as long polling, and its row is deleted once it
/// was handled ([`Handled::guard`]: committed, refused, answered "too
/// fast" or dropped).
pub fn inbox(
    inbox: kozyr_table::storage::Inbox,
    handoff: Handoff,
) -> (oneshot::Sender<()>, JoinHandle<()>) {
    let (stop, stopped) = oneshot::channel::<()>();
    let handled = handoff.handled.clone();
    let mut gate = Gatekeeper::new(handoff);
    let take = move |row: InboxEntry, _age| -> Result<Row, Gone> {
        // Expires what was in flight too long, as long polling does.
        let _ = handled.oldest();
        let update = match serde_json::from_str::<Value>(&row.body).map(parse_update) {
            Ok(Incoming::Update(u)) => *u,
            Ok(Incoming::Malformed { id, error }) => {
                tracing::warn!(seq = row.seq, update = ?id, %error, "skipping an update in the inbox that cannot be read");
                return Ok(Row::Done);
            }
            Err(error) => {
                tracing::warn!(seq = row.seq, %error, "skipping an update in the inbox that cannot be read");
                return Ok(Row::Done);
            }
        };
        if handled.contains(update.id.0) {
            // The same update under another row (delivered again after
            // its first row was deleted, and that one still in flight).
            return Ok(Row::Later);
        }
        Ok(gate.admit(update).map_or(Row::Done, Row::Handling))
    };
    let stopped = async {
        let _ = stopped.await;
    };
    let task = tokio::spawn(kozyr_outlet::inbox::read(inbox, stopped, STOP_GRACE, take));
    (stop, task)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A press in group `chat` by `person`, as Telegram sends it.
    fn press(update: u32, person: u64, chat: i64) -> Update {
        let json = serde_json::json!({
            "update_id": update,
            "callback_query": {
                "id": format!("q{update}"),
                "from": { "id": person, "is_bot": false, "first_name": "Ann" },
                "chat_instance": "ci",
                "data": "x",
                "message": {
                    "message_id": 3,
                    "date": 1_700_000_000,
                    "chat": { "id": chat, "type": "group", "title": "G" },
                    "from": { "id": 1, "is_bot": true, "first_name": "kozyr" },
                    "text": "t"
                }
            }
        });
        // From text, as the listener reads it (`parse_update`).
        serde_json::from_str(&json.to_string()).unwrap()
    }

    /// A flood's refused presses used to stay in flight until their
    /// "too fast" answers came back: the poll's offset (and the inbox's
    /// reads) stood at the oldest of them, so the next batches held the
    /// flood's thousands again and another chat's presses waited behind
    /// them for seconds. A refused press changes nothing: it is never in
    /// flight.
    #[tokio::test]
    async fn a_press_answered_too_fast_never_holds_the_others_back() {
        // Nowhere to answer: the answers fail, as they may.
        let bot = Bot::new("1:x").set_api_url(url::Url::parse("http://127.0.0.1:9/").unwrap());
        let handled = Arc::new(Handled::default());
        // What the handlers were given, and each update's guard.
        let (given, mut handlers) = tokio::sync::mpsc::unbounded_channel();
        let handler: Handler = Arc::new(move |update: Update, guard| {
            let _ = given.send((update.id.0, guard));
            Box::pin(async {})
        });
        let one_press = kozyr_front::press_limits::Rate {
            per_second: 0.001,
            burst: 1.0,
        };
        let mut gate = Gatekeeper::new(Handoff {
            bot,
            handler,
            handled: handled.clone(),
            default_lang: Lang::En,
            rates: PressRates {
                person: one_press,
                chat: PressRates::PEOPLE.chat,
            },
        });
        for id in 1..=50 {
            gate.admit(press(id, 7, -100));
        }
        // The first is the handlers'; the other 49 were answered.
        let (first, guard) = handlers.recv().await.unwrap();
        assert_eq!(first, 1);
        assert!(handlers.try_recv().is_err());
        assert_eq!(handled.oldest(), Some(1));
        assert!((2..=50).all(|id| !handled.contains(id)));
        // Handled: nothing holds the offset back any more.
        drop(guard);
        assert_eq!(handled.oldest(), None);
    }

    #[test]
    fn an_answer_with_a_lone_surrogate_is_read_again() {
        let raw = r#"{"ok":true,"result":[{"update_id":7,"x":"\ud83d"}]}"#;
        assert!(serde_json::from_str::<Value>(raw).is_err());
        let updates = reread(raw).expect("readable once repaired");
        assert_eq!(updates[0]["x"], "\u{fffd}");
    }

    #[test]
    fn an_update_the_parser_rejects_is_malformed_with_its_id() {
        let bad = serde_json::json!({ "update_id": 9, "message": { "date": "yesterday" } });
        assert!(matches!(
            parse_update(bad),
            Incoming::Malformed { id: Some(9), .. }
        ));
        let no_id = serde_json::json!({ "update_id": "nine", "message": {} });
        assert!(matches!(
            parse_update(no_id),
            Incoming::Malformed { id: None, .. }
        ));
    }
}
