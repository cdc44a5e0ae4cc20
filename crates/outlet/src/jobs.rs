//! Carries out a [`kozyr_delivery::engine::Engine`]'s table and ping
//! jobs through a platform's calls ([`TableCalls`]): the order of a job's
//! calls, what each result means for the next, and the store writes
//! around them are the same on every platform, so a shell only says how
//! to post, edit, strip and delete.

use std::future::Future;

use crate::service::{self, forget_owed, mark_shown};
use crate::waited;
use kozyr_delivery::engine::{
    self, Outcome, PingJob, StoreWrite, Strip, TableCall, TableDone, TableJob,
};
use kozyr_delivery::transport::{self, Failure};
use kozyr_table::runtime::TableService;
use kozyr_table::{ChatKey, Platform};

/// A platform's calls on a chat's messages, as the engine's jobs use
/// them. `M`: a table message; `N`: a worded announcement. Each call
/// records its own metrics and logs what only the platform knows.
pub trait TableCalls: Send + Sync {
    type Table: Send + Sync;
    type News: Send + Sync;

    /// Posts a table message; its id, when the answer could be read.
    fn post(
        &self,
        chat: &ChatKey,
        m: &Self::Table,
    ) -> impl Future<Output = Result<Option<u64>, Failure>> + Send;
    /// Edits a table message.
    fn edit(
        &self,
        chat: &ChatKey,
        message: u64,
        m: &Self::Table,
    ) -> impl Future<Output = Result<(), Failure>> + Send;
    /// The old table message after the table was posted anew: it keeps its
    /// text (or says the game started, `strip.started`) and loses its
    /// buttons; a refusal leaves it as it was.
    fn strip(&self, chat: &ChatKey, strip: Strip) -> impl Future<Output = ()> + Send;
    /// Posts an announcement.
    fn announce(
        &self,
        chat: &ChatKey,
        n: &Self::News,
    ) -> impl Future<Output = Result<(), Failure>> + Send;
    /// Posts a turn ping naming `who` (platform user ids) with `lines`.
    fn ping(
        &self,
        chat: &ChatKey,
        who: &[u64],
        lines: &[String],
    ) -> impl Future<Output = Result<Option<u64>, Failure>> + Send;
    /// Deletes a message (a ping); a refusal is logged and left.
    fn delete(&self, chat: &ChatKey, message: u64) -> impl Future<Output = ()> + Send;
}

/// One table's job: the unknown write, the news, the ping (its result
/// goes to `pinged` as soon as it is known), the table call (an edit of a
/// message that is gone posts it anew), the write of what it shows.
pub async fn run_table<C: TableCalls>(
    calls: &C,
    (service, platform): (&TableService, Platform),
    job: TableJob<C::Table, C::News>,
    pinged: impl FnOnce(PingJob, Option<u64>),
) -> TableDone {
    let TableJob {
        table,
        chat,
        unknown_first,
        news,
        ping,
        call,
        then,
        ..
    } = job;
    let row = chat.to_string();
    let unknown = match unknown_first {
        true => {
            let place = (table, row.clone());
            Some(waited(mark_shown(service.clone(), platform, place, None)).await)
        }
        false => None,
    };
    // What happened before the table's new state is said first.
    let mut unforgotten = Vec::new();
    for (n, owed) in news {
        let r = calls.announce(&chat, &n).await;
        // Owed still, for the next start, unless it went or never can.
        if let (true, Some(a)) = (engine::owed_settled(&r), owed)
            && !forget_owed(service, platform, table, &a).await
        {
            unforgotten.push(a);
        }
    }
    if let Some(ping) = ping {
        let posted = run_ping(calls, &ping).await;
        pinged(ping, posted);
    }
    let outcome = match call {
        TableCall::Nothing => Outcome::Edited,
        TableCall::Edit { message, content } => match calls.edit(&chat, message, &content).await {
            Ok(()) => Outcome::Edited,
            Err(f) if engine::post_anew(f) => {
                tracing::info!(
                    ?f,
                    table = table.0,
                    "the table message cannot be edited; posting it anew"
                );
                post_table(calls, &chat, &content, None).await
            }
            Err(f) => Outcome::Failed(f, transport::Call::Edit),
        },
        TableCall::Post { content, strip } => post_table(calls, &chat, &content, strip).await,
    };
    let then = match then {
        Some(h) if engine::shows(&outcome) => {
            Some(waited(mark_shown(service.clone(), platform, (table, row), Some(h))).await)
        }
        _ => None,
    };
    TableDone {
        table,
        unknown,
        call: outcome,
        then,
        unforgotten,
    }
}

/// Posts the table message; `old`: the message it replaces, which loses
/// its buttons once the new one is there.
async fn post_table<C: TableCalls>(
    calls: &C,
    chat: &ChatKey,
    m: &C::Table,
    old: Option<Strip>,
) -> Outcome {
    match calls.post(chat, m).await {
        Ok(posted) => {
            if let (Some(_), Some(old)) = (posted, old) {
                calls.strip(chat, old).await;
            }
            Outcome::Posted(posted)
        }
        Err(f) => Outcome::Failed(f, transport::Call::Post),
    }
}

/// A turn ping: the old one goes, a new one names whom it is for; the new
/// message's id.
pub async fn run_ping<C: TableCalls>(calls: &C, job: &PingJob) -> Option<u64> {
    if let Some(old) = job.delete {
        calls.delete(&job.chat, old).await;
    }
    let (who, lines) = job.post.as_ref()?;
    calls.ping(&job.chat, who, lines).await.ok().flatten()
}

/// Makes a store write the engine asked for; whether it landed.
/// `chat_gone`: what stops a chat's tables (the front's).
pub async fn store<F: Future<Output = ()>>(
    (service, platform): (&TableService, Platform),
    write: &StoreWrite,
    chat_gone: impl FnOnce(ChatKey) -> F,
) -> bool {
    match write {
        StoreWrite::MessageRef {
            table,
            chat,
            message,
            hash,
        } => {
            let (message, hash) = (i64::try_from(*message).ok(), Some(*hash));
            service::save_message_ref(service, platform, (*table, chat), message, hash).await
        }
        StoreWrite::ChatGone { chat } => {
            // The chat is gone or closed to the bot: its table stops.
            chat_gone(chat.clone()).await;
            true
        }
        StoreWrite::ForgetOwed {
            table,
            announcement,
        } => forget_owed(service, platform, *table, announcement).await,
    }
}
