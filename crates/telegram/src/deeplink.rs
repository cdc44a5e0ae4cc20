//! Deep links `https://t.me/<bot>?start=<payload>`: pressing one opens the
//! private chat with the bot, and Start sends `/start <payload>`. kozyr uses
//! them to seat a player who has never started the bot at the table they
//! tried to join; the payload is the front's [`JoinLink`], which also
//! reads it back.
//!
//! ```
//! use kozyr_cards::Seat;
//! use kozyr_front::action::JoinLink;
//! use kozyr_table::TableId;
//! let link = JoinLink { table: TableId(42), seat: Seat::new(2) };
//! let url = kozyr_telegram::deeplink::url(&link, "kozyr_bot").unwrap();
//! assert_eq!(url.as_str(), "https://t.me/kozyr_bot?start=j16-2");
//! ```

use kozyr_front::action::JoinLink;

/// A bot name no link can be made with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a Telegram bot username")]
pub struct BadUsername(String);

/// The link to put on a URL button: `bot_username` (with or without its
/// `@`) must be a Telegram username, 5 to 32 of `A-Z a-z 0-9 _`.
pub fn url(link: &JoinLink, bot_username: &str) -> Result<url::Url, BadUsername> {
    let name = bot_username.trim_start_matches('@');
    let ok = (5..=32).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let bad = || BadUsername(bot_username.chars().take(40).collect());
    if !ok {
        return Err(bad());
    }
    url::Url::parse(&format!("https://t.me/{name}?start={}", link.encode())).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kozyr_table::TableId;

    #[test]
    fn only_a_username_makes_a_link() {
        let link = JoinLink {
            table: TableId(1),
            seat: None,
        };
        assert!(url(&link, "no").is_err());
        assert!(url(&link, "bad name!").is_err());
        assert_eq!(
            url(&link, "@kozyr_bot").map(String::from),
            Ok("https://t.me/kozyr_bot?start=j1".to_owned())
        );
    }
}
