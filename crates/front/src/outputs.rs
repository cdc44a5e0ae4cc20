//! The table service's [`Output`](kozyr_table::Output)s as screens: the
//! table message, a hand, an announcement, a reminder. Pure functions of
//! the views and a few facts the front-end keeps (who cannot be reached,
//! names it learned, the time).

use std::time::Duration;

use super::action::Press;
use super::games::{self, front_of};
use super::present::{self, HandInfo, HandLayout, Occupant, TableInfo};
use super::screen::{ButtonTarget, Screen};
use kozyr_cards::{CardSet, PerSeat};
use kozyr_i18n::{Args, Lang, key, tr_html};
use kozyr_table::{Announcement, HandView, Phase, Player, SeatState, TableView, Timestamp, UserId};

/// How long until `deadline`, never negative.
pub fn time_left(deadline: Timestamp, now: Timestamp) -> Duration {
    Duration::from_millis(u64::try_from(deadline.millis() - now.millis()).unwrap_or(0))
}

/// A person in their seat as screens name them: the AI player standing in
/// while they are away.
fn person(player: &Player, away: bool, reachable: bool) -> Occupant {
    let name = player.name.clone();
    if away {
        Occupant::StandIn { name }
    } else {
        Occupant::Human { name, reachable }
    }
}

/// Who sits where, and the rest of what every screen of the table shows.
/// Seats become [`Occupant`]s here and through `person` alone, so the
/// table message, hands, results and `/score` name everyone alike (AI
/// players included).
pub fn table_info(view: &TableView, unreachable: &dyn Fn(&UserId) -> bool) -> TableInfo {
    let mut ai = 0u8;
    let seats = PerSeat::from_fn(|s| match &view.seats[s] {
        SeatState::Empty => None,
        SeatState::Person { player, away } => Some(person(player, *away, !unreachable(&player.id))),
        SeatState::Ai => {
            ai += 1;
            Some(Occupant::Ai { number: ai })
        }
    });
    TableInfo {
        table: view.id,
        version: view.version,
        game: view.kind,
        seats,
        // The allowance while a turn is timed, never the time left: a
        // screen is drawn once and stays up for many seconds (the group
        // pacer spaces its edits), so a count would be wrong as soon as
        // it is shown and disagree between the table and the hand.
        turn_allowance: view
            .deadline
            .and(view.settings.turn_timer)
            .map(|t| Duration::from_secs(u64::from(t.secs()))),
        last_trick: view.last_trick.clone(),
        last_deal: view.last_deal.clone(),
    }
}

/// The chat's table message: the lobby, the game, or the result with a
/// Rematch button; a closed table keeps its text and loses its buttons.
/// `creator` names the creator when they are not seated.
pub fn table_screen(view: &TableView, info: &TableInfo, creator: Option<String>) -> Screen {
    let lang = view.settings.lang;
    let mut out = match (&view.game, view.phase) {
        (Some(game), Phase::Playing | Phase::Finished | Phase::Closed) => {
            games::table(lang, info, game)
        }
        _ => {
            let creator = view
                .seats
                .iter()
                .find_map(|(_, s)| s.person().filter(|p| p.id == view.creator))
                .map(|p| p.name.clone())
                .or(creator)
                .unwrap_or_else(|| "?".to_owned());
            present::lobby(lang, info, &creator)
        }
    };
    match view.phase {
        Phase::Closed => out.keyboard = Default::default(),
        Phase::Finished => out = present::with_rematch(lang, info, out),
        Phase::Lobby | Phase::Playing => {}
    }
    out
}

/// A person's hand message, with their current card selection.
pub fn hand_screen(
    hand: &HandView,
    info: &TableInfo,
    selection: CardSet,
    layout: HandLayout,
) -> Screen {
    // The hand is drawn as of its own state, even if the table view given
    // is of another moment (a delivery may draw a newer hand with the view
    // it has): its buttons carry the hand's version, so a press acts on
    // the state it shows, and whether an AI player stands in for this seat
    // is the hand's to say, as are the tricks and the deal's end.
    let mut seats = info.seats.clone();
    let reachable = !matches!(
        info.seats[hand.seat],
        Some(Occupant::Human {
            reachable: false,
            ..
        })
    );
    seats[hand.seat] = Some(person(&hand.player, hand.away, reachable));
    let info = &TableInfo {
        version: hand.version,
        seats,
        last_trick: hand.last_trick.clone(),
        last_deal: hand.last_deal.clone(),
        ..info.clone()
    };
    let hinfo = HandInfo {
        table: info,
        group_title: &hand.title,
        seat: hand.seat,
        selection,
        layout,
    };
    let mut screen = games::hand(hand.player.lang, &hinfo, &hand.game, &hand.legal);
    mark_playable(&mut screen, hand);
    screen
}

/// Marks each card of the hand that some move open now puts down: a card
/// of a set a move takes (Kozel's leads, beats and passes, Hearts' pass),
/// or one whose own button is a legal move (a Hearts play).
fn mark_playable(screen: &mut Screen, hand: &HandView) {
    let game = games::front_for(&hand.game);
    let movable = (hand.legal.iter())
        .filter_map(|a| game.card_set(*a))
        .fold(CardSet::EMPTY, |acc, s| acc | s);
    for b in screen.keyboard.rows.iter_mut().flatten() {
        let (Some(face), ButtonTarget::Press(Press::Table { action, .. })) =
            (&mut b.card, b.target)
        else {
            continue;
        };
        face.playable = movable.contains(face.card)
            || game.action(action).is_some_and(|a| hand.legal.contains(&a));
    }
}

/// `/score`: the table message's text without its buttons, or `None`
/// before the first deal.
pub fn score_screen(view: &TableView, info: &TableInfo) -> Option<Screen> {
    let game = view.game.as_ref()?;
    Some(Screen::text(
        games::table(view.settings.lang, info, game).text,
    ))
}

/// The chat's message for an announcement, worded with the state after it;
/// `None` for what the table message shows by itself.
pub fn announcement_screen(
    view: &TableView,
    info: &TableInfo,
    announcement: &Announcement,
    name_of: &dyn Fn(&UserId) -> Option<String>,
) -> Option<Screen> {
    let lang = view.settings.lang;
    let text = |k, args: Args| Some(Screen::text(tr_html(lang, k, &args)));
    match announcement {
        // It tells everyone where their cards are: that differs by platform.
        Announcement::SeriesStarted { .. } => text(
            super::HandPlace::of(&view.chat).game_begins(),
            Args::new().text("game", front_of(view.kind).name(lang)),
        ),
        Announcement::Game {
            event, last_trick, ..
        } => {
            let screen = front_of(view.kind).announcement(
                lang,
                info,
                event,
                view.game.as_ref(),
                &view.settings,
            )?;
            Some(match last_trick {
                Some(trick) => present::with_trick(lang, info, screen, trick),
                None => screen,
            })
        }
        Announcement::AutoPlayed { seat, .. } => text(
            key::TIMER_AUTO_PLAYED,
            Args::new().text("name", info.name(lang, *seat)),
        ),
        Announcement::HandedToAi {
            player,
            unreachable: true,
            ..
        } => text(
            key::UNREACHABLE_TO_AI,
            Args::new().text("name", present::clean_name(&player.name)),
        ),
        Announcement::HandedToAi { player, .. } => text(
            key::TIMER_HANDED_TO_AI,
            Args::new()
                .text("name", present::clean_name(&player.name))
                .num("count", i64::from(kozyr_table::TIMEOUTS_BEFORE_AI)),
        ),
        Announcement::TakenBack { player, .. } => text(
            key::TIMER_TOOK_BACK,
            Args::new().text("name", present::clean_name(&player.name)),
        ),
        Announcement::Left {
            player,
            kicked: true,
            ..
        } => text(
            key::KICKED,
            Args::new().text("name", present::clean_name(&player.name)),
        ),
        Announcement::Stopped { by } => {
            let seated = |u: &UserId| {
                view.seats
                    .iter()
                    .find_map(|(_, s)| s.person().filter(|p| &p.id == u))
                    .map(|p| present::clean_name(&p.name))
            };
            let name = by
                .as_ref()
                .and_then(|u| seated(u).or_else(|| name_of(u).map(|n| present::clean_name(&n))))
                .unwrap_or_else(|| "—".to_owned());
            text(key::STOPPED, Args::new().text("name", name))
        }
        Announcement::Left { .. } | Announcement::ChatMoved { .. } => None,
    }
}

/// The reminder a person gets in their own chat when their time runs short.
pub fn reminder_screen(lang: Lang, left: Duration) -> Screen {
    Screen::text(tr_html(
        lang,
        key::TIMER_REMINDER_DM,
        &Args::new().num("seconds", present::shown_seconds(left)),
    ))
}

/// What a lobby message says once the game started and the live table was
/// posted anew below it: no "can start" above a running game, no buttons.
pub fn lobby_started(lang: Lang) -> Screen {
    Screen::text(tr_html(lang, key::LOBBY_STARTED, &Args::new()))
}
