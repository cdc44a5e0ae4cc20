//! Long polling that confirms an update to Telegram only once kozyr has
//! handled it; and, in webhook mode, the reader of the inbox the webhook
//! intake writes to ([`inbox`]), which deletes a row only once its update
//! was handled, on the same [`UpdateGuard`]s and [`PressLimits`].
//!
//! Telegram forgets the updates below the `offset` of a `getUpdates` call.
//! teloxide's own polling asks for the next batch (and so confirms the last
//! one) while the handlers of the last batch still run: a bot killed then
//! loses the presses it had received but not yet committed. Here the offset
//! never passes an update whose handling has not finished: each update gets
//! an [`UpdateGuard`] when the dispatcher runs its handler tree, and the
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
//! dispatcher (whose queue per chat holds 64 updates and, full, stops
//! every chat) sees a press, [`polling::admit`] counts it against its
//! person's and its chat's token bucket; a press over either, or in a chat
//! with too many updates already waiting, is answered "too fast" at once
//! beside the dispatcher and changes nothing. Other updates of such a chat
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
use std::time::{Duration, Instant};

use serde_json::Value;
use teloxide::payloads::AnswerCallbackQuerySetters;
use teloxide::prelude::*;
use teloxide::requests::{JsonRequest, Payload};
use teloxide::stop::{StopFlag, StopToken, mk_stop_token};
use teloxide::types::{AllowedUpdate, ChatId, Update, UpdateKind};
use teloxide::update_listeners::{StatefulListener, UpdateListener};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_stream::wrappers::UnboundedReceiverStream;

use kozyr_delivery::polling::{self, Admission, Cursor};
use kozyr_i18n::{Args, Lang, key, tr};
use kozyr_outlet::in_flight::{Guard, InFlight};
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

/// The updates handed to the dispatcher and not yet handled, by update id
/// and chat.
pub type Handled = InFlight<u32, ChatId>;

/// Held by the handler tree while an update is handled (a dptree
/// dependency): [`Handled::guard`].
pub type UpdateGuard = Guard<u32, ChatId>;

type Item = Result<Update, teloxide::RequestError>;

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
    let repaired = replace_lone_surrogates(raw);
    let answer: Value = serde_json::from_str(&repaired).ok()?;
    match answer.get("result")? {
        Value::Array(updates) => Some(updates.clone()),
        _ => None,
    }
}

fn hex4(s: &str) -> Option<u16> {
    let digits = s.get(..4)?;
    if digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        u16::from_str_radix(digits, 16).ok()
    } else {
        None
    }
}

/// JSON text with every `\uXXXX` escape of a lone UTF-16 surrogate (which
/// JSON parsers reject) replaced by `\ufffd`; pairs are kept.
fn replace_lone_surrogates(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = &rest[at..];
        let Some(unit) = escape.strip_prefix("\\u").and_then(hex4) else {
            // Another escape (or an escaped backslash): kept whole.
            let len = escape.chars().take(2).map(char::len_utf8).sum();
            out.push_str(&escape[..len]);
            rest = &escape[len..];
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        let low = (0xDC00..0xE000).contains(&unit);
        let paired = high
            && escape[6..]
                .strip_prefix("\\u")
                .and_then(hex4)
                .is_some_and(|next| (0xDC00..0xE000).contains(&next));
        if paired {
            out.push_str(&escape[..12]);
            rest = &escape[12..];
        } else {
            out.push_str(if high || low { "\\ufffd" } else { &escape[..6] });
            rest = &escape[6..];
        }
    }
    out.push_str(rest);
    out
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

pub use kozyr_front::press_limits::{PressLimits, PressRates, Rate};

/// The dispatcher stopped taking updates: the listener ends.
#[derive(Debug)]
struct DispatcherGone;

/// Lets `update` through [`polling::admit`] to the dispatcher (`Some`: resolves once
/// it is handled; in flight in `handled` until then), or answers it "too
/// fast" beside the dispatcher, or drops it (`None`).
fn admit_or_answer(
    update: Update,
    bot: &Bot,
    limits: &mut PressLimits,
    handled: &Arc<Handled>,
    default_lang: Lang,
    tx: &mpsc::UnboundedSender<Item>,
) -> Result<Option<oneshot::Receiver<()>>, DispatcherGone> {
    let id = update.id.0;
    let chat = update.chat().map(|c| c.id);
    let waiting = chat.map_or(0, |c| handled.in_chat(&c));
    let presser = match &update.kind {
        UpdateKind::CallbackQuery(q) => Some((q.from.id.0, chat.map_or(0, |c| c.0))),
        _ => None,
    };
    match polling::admit(limits, waiting, presser, Instant::now()) {
        Admission::Dispatch => {
            let done = handled.begin(id, chat);
            tx.send(Ok(update)).map_err(|_| DispatcherGone)?;
            return Ok(Some(done));
        }
        Admission::TooFast => {
            let UpdateKind::CallbackQuery(q) = update.kind else {
                return Ok(None);
            };
            let lang = super::ids::lang_of(&q.from).unwrap_or(default_lang);
            let text = tr(lang, key::ERR_TOO_FAST, &Args::new());
            // Answered beside the dispatcher, and not held in flight: the
            // press changes nothing, so a kill before the answer loses
            // nothing, while holding it would pin the poll's offset (and
            // the inbox's reads) behind a flood's thousands of answers,
            // and every other chat's updates with it.
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
    Ok(None)
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

/// The listener's state (long polling's and the inbox's), as teloxide's
/// [`StatefulListener`] holds it.
pub struct PollState {
    updates: UnboundedReceiverStream<Item>,
    stop: StopToken,
    hints: Option<Vec<AllowedUpdate>>,
    start: Option<oneshot::Sender<Option<Vec<AllowedUpdate>>>>,
}

/// The stream of updates; the first call (from the dispatcher, after its
/// hints) starts the polling.
fn stream_of(state: &mut PollState) -> &mut UnboundedReceiverStream<Item> {
    if let Some(start) = state.start.take() {
        let _ = start.send(state.hints.take());
    }
    &mut state.updates
}

fn stop_token_of(state: &mut PollState) -> StopToken {
    state.stop.clone()
}

fn hint(state: &mut PollState, hint: &mut dyn Iterator<Item = AllowedUpdate>) {
    state.hints = Some(hint.collect());
}

/// A long-polling listener over `bot` that confirms only handled updates
/// (`handled` is filled by [`Handled::guard`]), and the polling task, which
/// ends after the listener is stopped and the handled updates confirmed.
pub fn polling(
    bot: Bot,
    timeout: Duration,
    handled: Arc<Handled>,
    default_lang: Lang,
    rates: PressRates,
) -> (
    impl UpdateListener<Err = teloxide::RequestError> + use<>,
    JoinHandle<()>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let (stop_token, stopped) = mk_stop_token();
    let (start_tx, start_rx) = oneshot::channel();
    let options = PollOptions {
        timeout,
        default_lang,
        rates,
    };
    let task = tokio::spawn(poll_loop(bot, options, handled, tx, stopped, start_rx));
    (listener(rx, stop_token, start_tx), task)
}

/// The listener the dispatcher reads `rx` through; its first read sends
/// the dispatcher's hints to `start`.
fn listener(
    rx: mpsc::UnboundedReceiver<Item>,
    stop: StopToken,
    start: oneshot::Sender<Option<Vec<AllowedUpdate>>>,
) -> impl UpdateListener<Err = teloxide::RequestError> + use<> {
    let state = PollState {
        updates: UnboundedReceiverStream::new(rx),
        stop,
        hints: None,
        start: Some(start),
    };
    StatefulListener::new_with_hints(state, stream_of, stop_token_of, Some(hint))
}

/// What [`polling`] was asked for.
struct PollOptions {
    timeout: Duration,
    default_lang: Lang,
    rates: PressRates,
}

async fn poll_loop(
    bot: Bot,
    PollOptions {
        timeout,
        default_lang,
        rates,
    }: PollOptions,
    handled: Arc<Handled>,
    tx: mpsc::UnboundedSender<Item>,
    stopped: StopFlag,
    start: oneshot::Receiver<Option<Vec<AllowedUpdate>>>,
) {
    tokio::pin!(stopped);
    let mut allowed = tokio::select! {
        a = start => match a { Ok(a) => a, Err(_) => return },
        () = &mut stopped => return,
    };
    let (bot, hold) = poll_client(&bot, timeout);
    let mut limits = PressLimits::new(rates.person, rates.chat);
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
            () = &mut stopped => break 'poll,
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
                            let sent =
                                admit_or_answer(*u, &bot, &mut limits, &handled, default_lang, &tx);
                            if sent.is_err() {
                                break 'poll;
                            }
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
                        () = &mut stopped => break 'poll,
                    }
                }
                continue 'poll;
            }
            // Already logged, without the answer's text (people's names).
            Err(teloxide::RequestError::InvalidJson { .. }) => cursor.failed(None),
            Err(e) => {
                let retry_after = match &e {
                    teloxide::RequestError::RetryAfter(s) => Some(s.duration()),
                    _ => None,
                };
                if tx.send(Err(e)).is_err() {
                    break 'poll;
                }
                cursor.failed(retry_after)
            }
        };
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = &mut stopped => break 'poll,
        }
    }
    // The stream ends; the dispatcher finishes the updates in hand. Then
    // what was handled is confirmed, so that a restart does not see it again.
    drop(tx);
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

/// A listener over the webhook's inbox (see [`super::webhook`]), read by
/// [`kozyr_outlet::inbox::read`] once the dispatcher listens: each
/// waiting update goes to the dispatcher in the order received, through
/// the same [`PressLimits`] as long polling, and its row is deleted once
/// it was handled ([`Handled::guard`]: committed, refused, answered "too
/// fast" or dropped).
pub fn inbox(
    inbox: kozyr_table::storage::Inbox,
    bot: Bot,
    handled: Arc<Handled>,
    default_lang: Lang,
    rates: PressRates,
) -> (
    impl UpdateListener<Err = teloxide::RequestError> + use<>,
    JoinHandle<()>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let (stop_token, stopped) = mk_stop_token();
    let (start_tx, start_rx) = oneshot::channel();
    let mut limits = PressLimits::new(rates.person, rates.chat);
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
        let dispatched = admit_or_answer(update, &bot, &mut limits, &handled, default_lang, &tx);
        match dispatched.map_err(|DispatcherGone| Gone)? {
            Some(done) => Ok(Row::Handling(done)),
            None => Ok(Row::Done),
        }
    };
    let task = tokio::spawn(async move {
        tokio::pin!(stopped);
        tokio::select! {
            a = start_rx => if a.is_err() { return },
            () = &mut stopped => return,
        }
        kozyr_outlet::inbox::read(inbox, stopped, STOP_GRACE, take).await;
    });
    (listener(rx, stop_token, start_tx), task)
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
        let one_press = Rate {
            per_second: 0.001,
            burst: 1.0,
        };
        let mut limits = PressLimits::new(one_press, PressRates::PEOPLE.chat);
        let (tx, mut rx) = mpsc::unbounded_channel();
        for id in 1..=50 {
            admit_or_answer(
                press(id, 7, -100),
                &bot,
                &mut limits,
                &handled,
                Lang::En,
                &tx,
            )
            .unwrap();
        }
        // The first is the dispatcher's; the other 49 were answered.
        let dispatched = rx.try_recv().unwrap().unwrap();
        assert_eq!(dispatched.id.0, 1);
        assert!(rx.try_recv().is_err());
        assert_eq!(handled.oldest(), Some(1));
        assert!((2..=50).all(|id| !handled.contains(id)));
        // Handled: nothing holds the offset back any more.
        handled.finish(1);
        assert_eq!(handled.oldest(), None);
    }

    #[test]
    fn lone_surrogates_become_replacement_characters_and_pairs_stay() {
        let check = |raw: &str, expect: &str| assert_eq!(replace_lone_surrogates(raw), expect);
        check(r#"{"a":"x\ud83dy"}"#, r#"{"a":"x\ufffdy"}"#);
        check(r#"{"a":"\ude00"}"#, r#"{"a":"\ufffd"}"#);
        check(r#"{"a":"\ud83d\ude00"}"#, r#"{"a":"\ud83d\ude00"}"#);
        check(
            r#"{"a":"\\ud83d \u0041 \n ё"}"#,
            r#"{"a":"\\ud83d \u0041 \n ё"}"#,
        );
        check(r#"{"a":"\ud83d"#, r#"{"a":"\ufffd"#);
        check(r#"{"a":"\ud8"}"#, r#"{"a":"\ud8"}"#);
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
