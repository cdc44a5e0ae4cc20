//! Messages around the game: the lobby, the game menu, settings, the
//! language picker and the stop prompt.

use crate::screen::{Button, Keyboard};

use super::{Occupant, Screen, TableInfo, button, line, short};
use crate::action::{ChatAction, Press, TableAction};
use kozyr_cards::Seat;
use kozyr_game::GameKind;
use kozyr_i18n::{Args, Lang, key, tr};
use kozyr_kozel::Team;

/// Turn timer choices offered in the settings, in seconds.
pub const TIMER_CHOICES: [u32; 3] = [30, 60, 120];
/// Hearts end scores offered in the settings.
pub const END_SCORE_CHOICES: [u32; 2] = [50, 100];

/// The game's name in `lang`.
pub fn game_name(lang: Lang, game: GameKind) -> String {
    crate::games::front_of(game).name(lang)
}

fn seat_line(lang: Lang, info: &TableInfo, seat: Seat) -> String {
    let n = seat.index() as i64 + 1;
    match &info.seats[seat] {
        Some(o) => line(
            lang,
            key::LOBBY_SEAT,
            Args::new().num("seat", n).text("name", o.display(lang)),
        ),
        None => line(lang, key::LOBBY_SEAT_FREE, Args::new().num("seat", n)),
    }
}

/// The lobby: seats (Kozel by team, partners opposite), who is missing,
/// and buttons to sit, leave, add an AI player and start. People the bot
/// cannot message yet get a deep-link button that seats them once they
/// press Start.
pub fn lobby(lang: Lang, info: &TableInfo, creator: &str) -> Screen {
    let mut out = vec![
        line(
            lang,
            key::LOBBY_TITLE,
            Args::new().text("game", game_name(lang, info.game)),
        ),
        line(
            lang,
            key::LOBBY_CREATED_BY,
            Args::new().text("name", super::clean_name(creator)),
        ),
        String::new(),
    ];
    match info.game {
        GameKind::Kozel => {
            for team in Team::ALL {
                out.push(line(
                    lang,
                    key::LOBBY_TEAM,
                    Args::new().text("team", (team.index() + 1).to_string()),
                ));
                out.extend(team.seats().iter().map(|&s| seat_line(lang, info, s)));
            }
            out.push(line(lang, key::LOBBY_PARTNERS, Args::new()));
        }
        // Everyone for themselves: the seats in playing order.
        GameKind::Hearts => out.extend(Seat::ALL.iter().map(|&s| seat_line(lang, info, s))),
    }
    let free: Vec<Seat> = Seat::ALL
        .into_iter()
        .filter(|&s| info.seats[s].is_none())
        .collect();
    out.push(String::new());
    if free.is_empty() {
        out.push(line(lang, key::LOBBY_READY, Args::new()));
    } else {
        out.push(line(
            lang,
            key::LOBBY_WAITING,
            Args::new().num("count", free.len() as i64),
        ));
    }
    let mut rows: Vec<Vec<Button>> = Vec::new();
    let data = |action| info.callback(action);
    if !free.is_empty() {
        // Any free seat, in one press: two people pressing at once both
        // sit. The seat buttons stay for people who care where they sit.
        rows.push(vec![button(
            tr(lang, key::BTN_JOIN, &Args::new()),
            data(TableAction::Join),
        )]);
        rows.push(
            free.iter()
                .map(|&s| {
                    let label = tr(
                        lang,
                        key::BTN_TAKE_SEAT,
                        &Args::new().num("seat", s.index() as i64 + 1),
                    );
                    button(label, data(TableAction::TakeSeat(s)))
                })
                .collect(),
        );
    }
    let mut row = vec![button(
        tr(lang, key::BTN_LEAVE, &Args::new()),
        data(TableAction::Leave),
    )];
    if !free.is_empty() {
        row.push(button(
            tr(lang, key::BTN_ADD_AI, &Args::new()),
            data(TableAction::AddAi),
        ));
    } else {
        row.push(button(
            tr(lang, key::BTN_START, &Args::new()),
            data(TableAction::Start),
        ));
    }
    rows.push(row);
    for seat in Seat::ALL {
        let Some(Occupant::Human {
            name,
            reachable: false,
        }) = &info.seats[seat]
        else {
            continue;
        };
        let name = super::clean_name(name);
        out.push(line(
            lang,
            key::LOBBY_UNREACHABLE,
            Args::new().text("name", name.clone()),
        ));
        let label = tr(
            lang,
            key::BTN_OPEN_DM,
            &Args::new().text("name", short(&name, 20)),
        );
        rows.push(vec![Button::onboard(label, info.table, seat)]);
    }
    Screen {
        text: out.join("\n"),
        keyboard: Keyboard::new(rows),
    }
}

/// `/new` without a game: which one?
pub fn game_menu(lang: Lang, chat_version: u64) -> Screen {
    let buttons = GameKind::ALL
        .iter()
        .map(|&g| {
            let data = Press::Chat {
                version: chat_version,
                action: ChatAction::NewTable(g),
            };
            button(game_name(lang, g), data)
        })
        .collect::<Vec<_>>();
    Screen {
        text: line(lang, key::CHOOSE_GAME, Args::new()),
        keyboard: Keyboard::new([buttons]),
    }
}

/// A chat's settings as the settings message shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettingsInfo {
    pub version: u64,
    pub lang: Lang,
    /// Seconds per turn; `None` for no limit.
    pub turn_timer: Option<u32>,
    pub hearts_end_score: u32,
    pub shoot_the_moon: bool,
    /// Hearts: any heart played breaks hearts (else only a discarded one).
    pub any_heart_breaks: bool,
}

fn mark(selected: bool, label: String) -> String {
    if selected {
        format!("✓ {label}")
    } else {
        label
    }
}

fn language_row(version: u64, current: Lang) -> Vec<Button> {
    Lang::ALL
        .iter()
        .map(|&l| {
            let data = Press::Chat {
                version,
                action: ChatAction::SetLanguage(l),
            };
            button(mark(l == current, l.native_name()), data)
        })
        .collect()
}

/// `/settings` (admins): language, turn timer and Hearts options, with
/// the current choice marked.
pub fn settings(lang: Lang, s: &SettingsInfo) -> Screen {
    let timer = match s.turn_timer {
        Some(secs) => line(lang, key::SETTINGS_TIMER, Args::new().num("seconds", secs)),
        None => line(lang, key::SETTINGS_TIMER_NONE, Args::new()),
    };
    let moon = if s.shoot_the_moon {
        key::SETTINGS_MOON_ON
    } else {
        key::SETTINGS_MOON_OFF
    };
    let text = [
        line(lang, key::SETTINGS_TITLE, Args::new()),
        line(
            lang,
            key::SETTINGS_LANGUAGE,
            Args::new().text("lang", s.lang.native_name()),
        ),
        timer,
        line(
            lang,
            key::SETTINGS_HEARTS_TARGET,
            Args::new().num("points", s.hearts_end_score),
        ),
        line(lang, moon, Args::new()),
        line(
            lang,
            if s.any_heart_breaks {
                key::SETTINGS_BREAK_ANY
            } else {
                key::SETTINGS_BREAK_DISCARD
            },
            Args::new(),
        ),
    ]
    .join("\n");
    let chat = |action| Press::Chat {
        version: s.version,
        action,
    };
    let mut timers: Vec<Button> = TIMER_CHOICES
        .iter()
        .map(|&secs| {
            let label = tr(lang, key::BTN_SECONDS, &Args::new().num("seconds", secs));
            button(
                mark(s.turn_timer == Some(secs), label),
                chat(ChatAction::SetTurnTimer(Some(secs))),
            )
        })
        .collect();
    timers.push(button(
        mark(
            s.turn_timer.is_none(),
            tr(lang, key::BTN_NO_LIMIT, &Args::new()),
        ),
        chat(ChatAction::SetTurnTimer(None)),
    ));
    let scores = END_SCORE_CHOICES
        .iter()
        .map(|&p| {
            let label = tr(lang, key::BTN_POINTS, &Args::new().num("points", p));
            button(
                mark(s.hearts_end_score == p, label),
                chat(ChatAction::SetHeartsEndScore(p)),
            )
        })
        .collect();
    let moon_label = if s.shoot_the_moon {
        key::BTN_MOON_ON
    } else {
        key::BTN_MOON_OFF
    };
    let moon_button = button(
        tr(lang, moon_label, &Args::new()),
        chat(ChatAction::SetShootTheMoon(!s.shoot_the_moon)),
    );
    let break_label = if s.any_heart_breaks {
        key::BTN_BREAK_ANY
    } else {
        key::BTN_BREAK_DISCARD
    };
    let break_button = button(
        tr(lang, break_label, &Args::new()),
        chat(ChatAction::SetAnyHeartBreaks(!s.any_heart_breaks)),
    );
    Screen {
        text,
        keyboard: Keyboard::new([
            language_row(s.version, s.lang),
            timers,
            scores,
            vec![moon_button],
            vec![break_button],
        ]),
    }
}

/// `/lang`: the four languages, each in itself.
pub fn language_menu(lang: Lang, version: u64) -> Screen {
    Screen {
        text: line(lang, key::LANG_CHOOSE, Args::new()),
        keyboard: Keyboard::new([language_row(version, lang)]),
    }
}

/// `/stop`: are you sure? Its buttons answer for `asker` only
/// ([`crate::action::asker_number`]).
pub fn stop_prompt(lang: Lang, info: &TableInfo, asker: u64) -> Screen {
    let data = |confirm| info.callback(TableAction::Stop { confirm, asker });
    Screen {
        text: line(lang, key::STOP_CONFIRM, Args::new()),
        keyboard: Keyboard::new([[
            button(tr(lang, key::BTN_STOP_YES, &Args::new()), data(true)),
            button(tr(lang, key::BTN_STOP_NO, &Args::new()), data(false)),
        ]]),
    }
}

/// What the settings menu shows once a choice is saved: the settings now
/// in force, without buttons (`/settings` opens a new menu).
pub fn settings_saved(lang: Lang, s: &SettingsInfo) -> Screen {
    Screen::text(settings(lang, s).text)
}

/// What a language menu shows once a language is chosen: the chat's
/// language now, in that language.
pub fn language_set(chosen: Lang) -> Screen {
    Screen::text(line(
        chosen,
        key::LANG_SET,
        Args::new().text("lang", chosen.native_name()),
    ))
}

/// What the stop prompt shows once the table is kept.
pub fn stop_kept(lang: Lang) -> Screen {
    Screen::text(line(lang, key::STOP_KEPT, Args::new()))
}
