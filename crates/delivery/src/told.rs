//! Where what concerns one person ([`kozyr_front::Reply::Tell`]) is said
//! on a platform whose private chats the bot may be unable to write to
//! (Telegram: a person who never started the bot, or blocked it).
//!
//! The rule: it goes to the person's private chat, saying which group it
//! is about, with the group as the fallback should that chat turn out
//! closed; where the bot knows it cannot write to them, it goes to the
//! chat they wrote in, saying so and why; and anything for no one in
//! particular stays in that chat. Pure: the shell posts what it is given.

use kozyr_front::present;
use kozyr_front::screen::Screen;
use kozyr_i18n::{Args, key, tr_html};
use kozyr_table::Player;

/// Where one person's message goes (`K`: a chat on the platform).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Told<K> {
    /// Said in this chat.
    Here(K, Screen),
    /// Sent to `chat`, the person's private chat; if the bot turns out
    /// unable to write there, `in_group` goes to `group` instead, so what
    /// they asked for is never lost.
    Private {
        chat: K,
        screen: Screen,
        group: K,
        in_group: Screen,
    },
}

/// The chat a person wrote in, as [`told`] needs to know it.
#[derive(Clone, Copy, Debug)]
pub struct Here<'a, K> {
    pub chat: K,
    /// The group's title (`None` in a private chat).
    pub title: Option<&'a str>,
}

/// Where `screen`, for `person` (`None`: for no one in particular), goes
/// when they wrote in `here`: `private` is their private chat with the bot,
/// if the platform has one, and `reachable` whether the bot can still
/// write there.
pub fn told<K: Copy + PartialEq>(
    here: Here<'_, K>,
    person: Option<&Player>,
    private: Option<K>,
    reachable: bool,
    screen: Screen,
) -> Told<K> {
    let Some(person) = person else {
        return Told::Here(here.chat, screen);
    };
    match private {
        Some(private) if private == here.chat => Told::Here(here.chat, screen),
        // In their private chat it says which group it is about.
        Some(private) if reachable => {
            let text = match here.title {
                Some(title) => {
                    let args = Args::new().text("group", present::clean_name(title));
                    let from = tr_html(person.lang, key::TOLD_FROM, &args);
                    format!("{from}\n{}", screen.text)
                }
                None => screen.text.clone(),
            };
            Told::Private {
                chat: private,
                screen: Screen {
                    text,
                    ..screen.clone()
                },
                group: here.chat,
                in_group: in_group(person, screen),
            }
        }
        _ => Told::Here(here.chat, in_group(person, screen)),
    }
}

/// What concerns `person` alone, said in the group because the bot cannot
/// write to them in private: it says so, and why.
fn in_group(person: &Player, screen: Screen) -> Screen {
    let args = Args::new().text("name", present::clean_name(&person.name));
    let why = tr_html(person.lang, key::TOLD_IN_GROUP, &args);
    Screen {
        text: format!("{why}\n{}", screen.text),
        ..screen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kozyr_i18n::Lang;
    use kozyr_table::UserId;

    const GROUP: i64 = -100;
    const ANNS: i64 = 7;

    fn ann() -> Player {
        Player::new(UserId::new("7").unwrap(), "Ann", Lang::En)
    }

    /// Each case: who it is for, the chat they wrote in, whether the bot
    /// can reach them, and where it goes with what text.
    #[test]
    fn what_concerns_one_person_goes_where_they_read_it() {
        let ann = ann();
        let group = Here {
            chat: GROUP,
            title: Some("Friday"),
        };
        let private = Here {
            chat: ANNS,
            title: None,
        };
        let said = |here, person, private, reachable| {
            let s = match told(
                here,
                person,
                private,
                reachable,
                Screen::text("Not yet.".into()),
            ) {
                Told::Here(chat, s) => format!("{chat}: {}", s.text),
                Told::Private {
                    chat,
                    screen,
                    group,
                    in_group,
                } => format!("{chat}: {} | else {group}: {}", screen.text, in_group.text),
            };
            // The isolates around names, made visible.
            s.replace('\u{2068}', "⁅").replace('\u{2069}', "⁆")
        };
        let cases = [
            (said(group, None, None, true), "-100: Not yet."),
            (
                said(group, Some(&ann), Some(ANNS), true),
                "7: In <b>⁅Friday⁆</b>:\nNot yet. | else -100: ⁅Ann⁆, I can't write to you in private (open my chat and press Start), so I answer here:\nNot yet.",
            ),
            (
                said(group, Some(&ann), Some(ANNS), false),
                "-100: ⁅Ann⁆, I can't write to you in private (open my chat and press Start), so I answer here:\nNot yet.",
            ),
            (said(private, Some(&ann), Some(ANNS), true), "7: Not yet."),
            (
                said(group, Some(&ann), None, true),
                "-100: ⁅Ann⁆, I can't write to you in private (open my chat and press Start), so I answer here:\nNot yet.",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}
