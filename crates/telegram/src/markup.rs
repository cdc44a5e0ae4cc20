//! Screens as Telegram messages: rich text as Telegram HTML
//! (`parse_mode = HTML`), buttons as an inline keyboard whose callback
//! data is the encoded [`Press`](kozyr_front::action::Press),
//! onboarding buttons as deep links to the bot's private chat, and the
//! Mini App's buttons: a `web_app` button in a private hand, the app's
//! direct link (`t.me/<bot>/<short name>?startapp=<table>`) under a group's
//! table; both left out when the Mini App is not served.

use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo};

use kozyr_front::action::JoinLink;
use kozyr_front::live::LiveApp;
use kozyr_front::{ButtonTarget, Screen};

/// A screen as Telegram sends it: HTML text and the inline keyboard
/// (`None` when the screen has no buttons).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Message {
    pub html: String,
    pub keyboard: Option<InlineKeyboardMarkup>,
}

impl Message {
    /// `bot_username` makes the deep links of onboarding buttons; an
    /// onboarding button that cannot become a link is left out (the text
    /// still tells the person to open the bot's chat).
    pub fn of(screen: &Screen, bot_username: &str) -> Message {
        Message::with_app(screen, bot_username, None)
    }

    /// As [`Message::of`], with the Mini App's buttons when `app` is served.
    pub fn with_app(screen: &Screen, bot_username: &str, app: Option<&LiveApp>) -> Message {
        let rows: Vec<Vec<InlineKeyboardButton>> = screen
            .keyboard
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .filter_map(|b| match b.target {
                        ButtonTarget::Press(p) => {
                            Some(InlineKeyboardButton::callback(&b.label, p.encode()))
                        }
                        ButtonTarget::Onboard { table, seat } => {
                            let link = JoinLink {
                                table,
                                seat: Some(seat),
                            };
                            let url = super::deeplink::url(&link, bot_username).ok()?;
                            Some(InlineKeyboardButton::url(&b.label, url))
                        }
                        ButtonTarget::LiveView { table } => {
                            let url = url::Url::parse(&app?.table_url(table)).ok()?;
                            Some(InlineKeyboardButton::web_app(&b.label, WebAppInfo { url }))
                        }
                        ButtonTarget::LiveLink { table } => {
                            let short = app?.short_name.as_deref()?;
                            let url = url::Url::parse(&format!(
                                "https://t.me/{bot_username}/{short}?startapp={}",
                                table.0
                            ))
                            .ok()?;
                            Some(InlineKeyboardButton::url(&b.label, url))
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .filter(|row| !row.is_empty())
            .collect();
        Message {
            html: screen.rich().html(),
            keyboard: (!rows.is_empty()).then(|| InlineKeyboardMarkup::new(rows)),
        }
    }
}
