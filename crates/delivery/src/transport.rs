//! The transports beneath the engine: what a failed platform call means,
//! in no platform's terms, and the one decision of what happens next.
//!
//! A shell knows its platform's errors (Telegram's 400/403/429 texts,
//! Discord's JSON error codes) and maps each into a [`Failure`]; what
//! follows — retry and when, post the message anew, forget it, mark the
//! person unreachable, stop the chat's table, drop the output — is decided
//! here once, by [`Policy::next`], for every platform. Sans-IO: the shell
//! says which call failed and how often, and carries the [`Next`] out.

use std::time::Duration;

/// What a failed platform call means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Too many calls: wait this long before calling again.
    RateLimited(Duration),
    /// The platform or the network is down for now (a 5xx, a timeout, a
    /// garbled answer): worth retrying after a pause that grows.
    Unavailable,
    /// The message is gone or can no longer be changed (deleted, too old
    /// to edit): what it showed goes out as a new message.
    MessageGone,
    /// The edit would change nothing: the message already shows it.
    NotModified,
    /// The recipient refuses the bot: a person who blocked it or never
    /// opened a conversation with it, a group that removed it.
    Refused,
    /// The platform says the chat does not exist. Some platforms have said
    /// it of groups that were fine a moment later, so a group is not given
    /// up on the first one.
    ChatMissing,
    /// The chat is gone for good (deleted, or closed to the bot).
    ChatGone,
    /// The chat lives under a new id now (a group that was upgraded).
    Moved(i64),
    /// The token that reached the message expired (an interaction's).
    Expired,
    /// The platform refused the request itself: a bug on our side.
    Invalid,
}

impl Failure {
    /// Its `outcome` label in `kozyr_api_calls_total` (the names the
    /// dashboards have used since the first platform).
    pub fn label(&self) -> &'static str {
        match self {
            Failure::RateLimited(_) => "retry_after",
            Failure::Unavailable => "transient",
            Failure::MessageGone => "message_gone",
            Failure::NotModified => "not_modified",
            Failure::Refused => "unreachable",
            Failure::ChatMissing => "chat_not_found",
            Failure::ChatGone => "chat_gone",
            Failure::Moved(_) => "migrated",
            Failure::Expired => "expired",
            Failure::Invalid => "rejected",
        }
    }
}

/// Which kind of call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// A new message.
    Post,
    /// An edit of a message kept current (a table's, a hand's): when it
    /// is gone, its content is posted anew.
    Edit,
    /// An old message tidied up (its buttons removed, or deleted): when it
    /// is gone, nothing is left to do.
    Tidy,
    /// An edit through an interaction's token: when the token or its
    /// message is gone, only a new interaction brings another.
    Token,
}

/// Whom the call was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recipient {
    /// One person (a private chat, a person's hand).
    Person,
    /// A group or channel, where a table lives.
    Chat,
}

/// What happens after a failed call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The message already shows it: count it as shown.
    Shown,
    /// The same output again after this pause (a newer state, if one came,
    /// goes instead).
    RetryAfter(Duration),
    /// The message is gone: forget its id, and its content goes out as a
    /// new message.
    PostAnew,
    /// The message (or the token reaching it) cannot be used any more:
    /// forget it; nothing is retried.
    Forget,
    /// The person cannot be reached: mark them so (their seat is played for
    /// them, their tables show how to reach the bot).
    Unreachable,
    /// The chat is gone: its tables stop.
    ChatGone,
    /// The chat moved to this id: its queue follows.
    Follow(i64),
    /// A bug on our side or a lost cause: logged and dropped.
    Drop,
}

/// How often a group's "chat does not exist" is retried before the group
/// is given up.
pub const MISSING_STRIKES: u32 = 4;

/// The knobs of the decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The pause after a group's first "chat does not exist"; it doubles.
    pub missing_retry: Duration,
    /// The pause after the first failure of an unavailable platform; it
    /// doubles, up to `unavailable_max`.
    pub unavailable_first: Duration,
    pub unavailable_max: Duration,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            missing_retry: Duration::from_secs(5),
            unavailable_first: Duration::from_secs(1),
            unavailable_max: Duration::from_secs(30),
        }
    }
}

impl Policy {
    /// What happens after `call` for `to` failed with `failure`; `strikes`:
    /// how many times in a row it failed so before (for an unavailable
    /// platform, this output's; for a missing chat, the chat's).
    pub fn next(&self, failure: Failure, call: Call, to: Recipient, strikes: u32) -> Next {
        match failure {
            Failure::NotModified => Next::Shown,
            Failure::RateLimited(pause) => Next::RetryAfter(pause),
            Failure::Unavailable => {
                Next::RetryAfter(doubled(self.unavailable_first, strikes).min(self.unavailable_max))
            }
            Failure::MessageGone | Failure::Expired => match call {
                Call::Edit => Next::PostAnew,
                Call::Tidy | Call::Token => Next::Forget,
                Call::Post => Next::Drop,
            },
            Failure::Refused => match to {
                Recipient::Person => Next::Unreachable,
                Recipient::Chat => Next::ChatGone,
            },
            Failure::ChatMissing => match to {
                Recipient::Person => Next::Unreachable,
                Recipient::Chat if strikes.saturating_add(1) >= MISSING_STRIKES => Next::ChatGone,
                Recipient::Chat => Next::RetryAfter(doubled(self.missing_retry, strikes)),
            },
            Failure::ChatGone => Next::ChatGone,
            Failure::Moved(to) => Next::Follow(to),
            Failure::Invalid => Next::Drop,
        }
    }
}

/// `first` doubled `times` times (saturating).
fn doubled(first: Duration, times: u32) -> Duration {
    first.saturating_mul(1u32 << times.min(16))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Call::*;
    use Recipient::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn every_failure_has_one_next_step() {
        let policy = Policy::default();
        // (failure, call, recipient, strikes before, what happens next)
        let table: &[(Failure, Call, Recipient, u32, Next)] = &[
            (Failure::NotModified, Edit, Chat, 0, Next::Shown),
            (Failure::NotModified, Tidy, Person, 0, Next::Shown),
            (
                Failure::RateLimited(7 * S),
                Post,
                Chat,
                0,
                Next::RetryAfter(7 * S),
            ),
            (Failure::Unavailable, Edit, Chat, 0, Next::RetryAfter(S)),
            (Failure::Unavailable, Edit, Chat, 2, Next::RetryAfter(4 * S)),
            (
                Failure::Unavailable,
                Post,
                Person,
                9,
                Next::RetryAfter(30 * S),
            ),
            (Failure::MessageGone, Edit, Chat, 0, Next::PostAnew),
            (Failure::MessageGone, Edit, Person, 0, Next::PostAnew),
            (Failure::MessageGone, Tidy, Chat, 0, Next::Forget),
            (Failure::MessageGone, Token, Person, 0, Next::Forget),
            (Failure::MessageGone, Post, Chat, 0, Next::Drop),
            (Failure::Expired, Token, Person, 0, Next::Forget),
            (Failure::Expired, Edit, Chat, 0, Next::PostAnew),
            (Failure::Refused, Post, Person, 0, Next::Unreachable),
            (Failure::Refused, Edit, Chat, 0, Next::ChatGone),
            (Failure::ChatMissing, Post, Person, 0, Next::Unreachable),
            (Failure::ChatMissing, Edit, Chat, 0, Next::RetryAfter(5 * S)),
            (
                Failure::ChatMissing,
                Edit,
                Chat,
                2,
                Next::RetryAfter(20 * S),
            ),
            (Failure::ChatMissing, Edit, Chat, 3, Next::ChatGone),
            (Failure::ChatGone, Post, Chat, 0, Next::ChatGone),
            (Failure::Moved(-100), Post, Chat, 0, Next::Follow(-100)),
            (Failure::Invalid, Edit, Chat, 0, Next::Drop),
        ];
        for (i, (failure, call, to, strikes, want)) in table.iter().enumerate() {
            assert_eq!(
                policy.next(*failure, *call, *to, *strikes),
                *want,
                "row {i}: {failure:?} on {call:?} for {to:?}"
            );
        }
    }

    #[test]
    fn pauses_never_overflow() {
        let policy = Policy::default();
        assert_eq!(
            policy.next(Failure::Unavailable, Edit, Chat, u32::MAX),
            Next::RetryAfter(30 * S)
        );
        assert_eq!(
            policy.next(Failure::ChatMissing, Edit, Chat, u32::MAX),
            Next::ChatGone
        );
    }
}
