//! Deep links `https://t.me/<bot>?start=<payload>`: pressing one opens the
//! private chat with the bot, and Start sends `/start <payload>`. kozyr uses
//! them to seat a player who has never started the bot at the table they
//! tried to join. Telegram allows a payload of at most 64 characters from
//! `A-Z a-z 0-9 _ -`; like callback data it comes back untrusted.
//!
//! ```
//! use kozyr_cards::Seat;
//! use kozyr_telegram::deeplink::DeepLink;
//! use kozyr_table::TableId;
//! let link = DeepLink::Join { table: TableId(42), seat: Seat::new(2) };
//! assert_eq!(link.payload(), "j16-2");
//! assert_eq!(link.url("kozyr_bot").unwrap().as_str(), "https://t.me/kozyr_bot?start=j16-2");
//! assert_eq!(DeepLink::parse("j16-2"), Ok(link));
//! ```

use kozyr_cards::Seat;
use kozyr_table::TableId;

/// Telegram's limit on a start payload, in characters.
pub const MAX_PAYLOAD: usize = 64;

/// What a deep link asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeepLink {
    /// Sit at `table`, at `seat` if given (else any free one).
    Join { table: TableId, seat: Option<Seat> },
}

/// Why a payload or a bot name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeepLinkError {
    #[error("the start payload is not one kozyr made")]
    Malformed,
    #[error("`{0}` is not a Telegram bot username")]
    BadUsername(String),
}

/// Whether `s` may be a start payload at all.
pub fn is_valid_payload(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_PAYLOAD
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Table ids are assigned from 1 up; a negative one names no table and
/// its payload never parses.
fn table_number(t: TableId) -> u64 {
    u64::try_from(t.0).unwrap_or(u64::MAX)
}

fn base36(mut n: u64) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().map(|&b| b as char).collect()
}

impl DeepLink {
    /// The start payload; always [valid](is_valid_payload).
    pub fn payload(&self) -> String {
        match *self {
            DeepLink::Join { table, seat: None } => format!("j{}", base36(table_number(table))),
            DeepLink::Join {
                table,
                seat: Some(s),
            } => format!("j{}-{s}", base36(table_number(table))),
        }
    }

    /// The link to put on a URL button.
    pub fn url(&self, bot_username: &str) -> Result<url::Url, DeepLinkError> {
        let name = bot_username.trim_start_matches('@');
        let ok = (5..=32).contains(&name.len())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !ok {
            return Err(DeepLinkError::BadUsername(
                bot_username.chars().take(40).collect(),
            ));
        }
        url::Url::parse(&format!("https://t.me/{name}?start={}", self.payload()))
            .map_err(|_| DeepLinkError::BadUsername(name.to_owned()))
    }

    /// Decodes a payload; only what [`DeepLink::payload`] writes is accepted.
    pub fn parse(payload: &str) -> Result<DeepLink, DeepLinkError> {
        if !is_valid_payload(payload) {
            return Err(DeepLinkError::Malformed);
        }
        let parsed = Self::parse_loose(payload).ok_or(DeepLinkError::Malformed)?;
        if parsed.payload() != payload {
            return Err(DeepLinkError::Malformed);
        }
        Ok(parsed)
    }

    fn parse_loose(payload: &str) -> Option<DeepLink> {
        let rest = payload.strip_prefix('j')?;
        let (table, seat) = match rest.split_once('-') {
            Some((t, s)) => (t, Some(s)),
            None => (rest, None),
        };
        if table.is_empty() || table.len() > 13 {
            return None;
        }
        let table = TableId(i64::try_from(u64::from_str_radix(table, 36).ok()?).ok()?);
        let seat = match seat {
            None => None,
            Some(s) => Some(Seat::new(s.parse().ok()?)?),
        };
        Some(DeepLink::Join { table, seat })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn rejects_what_it_did_not_write() {
        for bad in [
            "",
            "j",
            "j-1",
            "j1-",
            "j1-4",
            "j01",
            "jA",
            "J1",
            "j1-01",
            "j1_2",
            "x1",
            "j1 2",
            "jzzzzzzzzzzzzzz",
            // Past i64::MAX: no table has that id.
            "j1y2p0ij32e8e8",
            "j1-2-3",
            "j+1",
        ] {
            assert!(DeepLink::parse(bad).is_err(), "{bad:?} parsed");
        }
        assert!(
            DeepLink::Join {
                table: TableId(1),
                seat: None
            }
            .url("no")
            .is_err()
        );
        assert!(
            DeepLink::Join {
                table: TableId(1),
                seat: None
            }
            .url("bad name!")
            .is_err()
        );
        assert!(
            DeepLink::Join {
                table: TableId(1),
                seat: None
            }
            .url("@kozyr_bot")
            .is_ok()
        );
    }

    proptest! {
        #[test]
        fn payloads_round_trip_and_fit(table in 0..=i64::MAX, seat in proptest::option::of(0u8..4)) {
            let link = DeepLink::Join { table: TableId(table), seat: seat.and_then(Seat::new) };
            let p = link.payload();
            prop_assert!(is_valid_payload(&p), "{p}");
            prop_assert_eq!(DeepLink::parse(&p), Ok(link));
        }

        #[test]
        fn arbitrary_payloads_never_panic(s in "\\PC{0,70}") {
            if let Ok(link) = DeepLink::parse(&s) {
                prop_assert_eq!(link.payload(), s);
            }
        }
    }
}
