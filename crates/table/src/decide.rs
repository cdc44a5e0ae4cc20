//! Commands in, events and effects out. Pure: `now` and the seed come in
//! through [`Context`]; the tables given are not touched.

use super::command::{Actor, Command, Context};
use super::effect::{Announcement, Effect};
use super::error::TableError;
use super::event::{Mover, TableEvent};
use super::model::{ChatKey, Phase, SeatState, Settings};
use super::state::{TIMEOUTS_BEFORE_AI, Table};
use kozyr_cards::Seat;
use kozyr_game::{GameAction, Milestone};

/// Longest table title kept (chat names come from users).
const MAX_TITLE_CHARS: usize = 128;

/// What an accepted command does to one table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The table's version before, or `None` when the command created it.
    pub before: Option<u64>,
    /// The table after the events.
    pub table: Table,
    /// The events, in order; their versions are `before + 1 ..= table.version()`.
    pub events: Vec<TableEvent>,
}

impl Change {
    /// The version the first event gets.
    pub fn first_version(&self) -> u64 {
        self.before.map_or(1, |v| v + 1)
    }
}

/// What an accepted command does: the tables it changes (all in one
/// chat, committed together) and the effects to carry out afterwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    pub changes: Vec<Change>,
    pub effects: Vec<Effect>,
    /// The chat got a new id: its history follows (from, to).
    pub moved_chat: Option<(ChatKey, ChatKey)>,
    /// The chat chose a language (kept for the chat, table or not).
    pub chat_language: Option<(ChatKey, kozyr_i18n::Lang)>,
}

impl Transition {
    /// The table the command was about: the last one changed.
    pub fn table(&self) -> Option<&Table> {
        self.changes.last().map(|c| &c.table)
    }

    /// The chat's open table after the command, if any.
    pub fn open_table(&self) -> Option<&Table> {
        self.table().filter(|t| t.is_open())
    }
}

/// A table being changed: every event is applied as it is pushed, so later
/// checks in the same command see the state the earlier events made.
struct Draft {
    before: Option<Table>,
    table: Table,
    events: Vec<TableEvent>,
}

impl Draft {
    fn of(table: &Table) -> Draft {
        Draft {
            before: Some(table.clone()),
            table: table.clone(),
            events: Vec::new(),
        }
    }

    fn push(&mut self, event: TableEvent) -> Result<(), TableError> {
        // Commands check before they push, so a refusal here is a bug in
        // this module, reported rather than panicking.
        self.table
            .apply(&event)
            .map_err(|e| TableError::Internal(e.to_string()))?;
        self.events.push(event);
        Ok(())
    }

    fn finish(self) -> (Change, Vec<Effect>) {
        let effects = effects_of(self.before.as_ref(), &self.table, &self.events);
        let change = Change {
            before: self.before.map(|t| t.version()),
            table: self.table,
            events: self.events,
        };
        (change, effects)
    }
}

/// Decides what `command` does to the chat whose open table is `open`.
///
/// On `Ok` the caller commits every change, then replaces its open table
/// with [`Transition::open_table`] and carries out the effects; on `Err`
/// nothing happened.
pub fn decide(
    open: Option<&Table>,
    chat: &ChatKey,
    actor: &Actor,
    command: &Command,
    ctx: &Context,
) -> Result<Transition, TableError> {
    if let Command::Create {
        kind,
        settings,
        title,
        sit,
    } = command
    {
        let player = actor.player().ok_or(TableError::NotAllowed)?;
        let mut changes = Vec::new();
        let mut effects = Vec::new();
        if let Some(old) = open {
            if old.phase() != Phase::Finished {
                return Err(TableError::TableAlreadyOpen);
            }
            let mut d = Draft::of(old);
            d.push(TableEvent::Superseded {
                by: ctx.new_table_id,
            })?;
            let (c, fx) = d.finish();
            changes.push(c);
            effects.extend(fx);
        }
        let created = TableEvent::Created {
            id: ctx.new_table_id,
            chat: chat.clone(),
            title: title.trim().chars().take(MAX_TITLE_CHARS).collect(),
            kind: *kind,
            creator: player.id.clone(),
            settings: *settings,
            at: ctx.now,
        };
        let table =
            Table::from_creation(&created).map_err(|e| TableError::Internal(e.to_string()))?;
        let mut d = Draft {
            before: None,
            table,
            events: vec![created],
        };
        if *sit {
            d.push(TableEvent::Seated {
                seat: Seat::ALL[0],
                player: player.clone(),
            })?;
        }
        let (c, fx) = d.finish();
        changes.push(c);
        effects.extend(fx);
        return Ok(Transition {
            changes,
            effects,
            moved_chat: None,
            // A chat speaks the language of its newest table until it
            // chooses one: every later message there, whoever sends the
            // command, is in that language.
            chat_language: Some((chat.clone(), settings.lang)),
        });
    }

    if let Command::SetLanguage { lang } = command {
        // The chat's admins choose its language; with a table open, its
        // manager (the creator) may too, as for every other setting.
        let allowed = match actor {
            Actor::System => true,
            Actor::Person { admin, .. } => *admin || open.is_some_and(|t| is_manager(t, actor)),
            Actor::Ai => false,
        };
        if !allowed {
            return Err(TableError::NotAllowed);
        }
        let mut transition = Transition {
            changes: Vec::new(),
            effects: Vec::new(),
            moved_chat: None,
            chat_language: Some((chat.clone(), *lang)),
        };
        if let Some(t) = open
            && t.settings().lang != *lang
        {
            let mut d = Draft::of(t);
            d.push(TableEvent::SettingsChanged {
                settings: Settings {
                    lang: *lang,
                    ..*t.settings()
                },
            })?;
            let (c, fx) = d.finish();
            transition.changes.push(c);
            transition.effects = fx;
        }
        return Ok(transition);
    }

    if let Command::MigrateChat { to } = command {
        if to == chat {
            return Err(TableError::SameChat);
        }
        let allowed = match actor {
            Actor::System => true,
            Actor::Person { admin, .. } => *admin,
            Actor::Ai => false,
        };
        if !allowed {
            return Err(TableError::NotAllowed);
        }
        let mut transition = Transition {
            changes: Vec::new(),
            effects: Vec::new(),
            moved_chat: Some((chat.clone(), to.clone())),
            chat_language: None,
        };
        if let Some(t) = open {
            let mut d = Draft::of(t);
            d.push(TableEvent::ChatMoved { to: to.clone() })?;
            let (c, fx) = d.finish();
            transition.changes.push(c);
            transition.effects = fx;
        }
        return Ok(transition);
    }

    let table = open.ok_or(TableError::NoOpenTable)?;
    let mut d = Draft::of(table);
    on_table(&mut d, actor, command, ctx)?;
    let (change, effects) = d.finish();
    Ok(Transition {
        changes: vec![change],
        effects,
        moved_chat: None,
        chat_language: None,
    })
}

/// The creator and the chat's admins manage a table.
fn is_manager(t: &Table, actor: &Actor) -> bool {
    match actor {
        Actor::Person { player, admin } => *admin || &player.id == t.creator(),
        Actor::Ai | Actor::System => false,
    }
}

fn seated(t: &Table, actor: &Actor) -> Option<Seat> {
    actor.user().and_then(|u| t.seat_of(u))
}

fn require_seating_phase(t: &Table) -> Result<(), TableError> {
    match t.phase() {
        Phase::Lobby | Phase::Finished => Ok(()),
        Phase::Playing => Err(TableError::GameInProgress),
        Phase::Closed => Err(TableError::TableClosed),
    }
}

fn first_empty(t: &Table) -> Option<Seat> {
    Seat::ALL.into_iter().find(|&s| t.seats()[s].is_empty())
}

fn on_table(
    d: &mut Draft,
    actor: &Actor,
    command: &Command,
    ctx: &Context,
) -> Result<(), TableError> {
    let t = d.table.clone();
    if t.phase() == Phase::Closed {
        return Err(TableError::TableClosed);
    }
    match command {
        Command::Create { .. } | Command::MigrateChat { .. } | Command::SetLanguage { .. } => {
            Err(TableError::Internal("handled before".into()))
        }
        Command::Join { seat } => {
            let player = actor.player().ok_or(TableError::NotAllowed)?;
            require_seating_phase(&t)?;
            if t.seat_of(&player.id).is_some() {
                return Err(TableError::AlreadySeated);
            }
            let seat = match seat {
                Some(s) if !t.seats()[*s].is_empty() => {
                    return Err(TableError::SeatTaken { seat: *s });
                }
                Some(s) => *s,
                None => first_empty(&t).ok_or(TableError::TableFull)?,
            };
            d.push(TableEvent::Seated {
                seat,
                player: player.clone(),
            })
        }
        Command::Leave => {
            let seat = seated(&t, actor).ok_or(TableError::NotSeated)?;
            d.push(TableEvent::Left {
                seat,
                kicked: false,
            })
        }
        Command::Kick { user } => {
            if !is_manager(&t, actor) {
                return Err(TableError::NotAllowed);
            }
            let seat = t.seat_of(user).ok_or(TableError::UnknownPlayer)?;
            d.push(TableEvent::Left { seat, kicked: true })
        }
        Command::Swap { a, b } => {
            if a == b {
                return Err(TableError::SameSeat);
            }
            require_seating_phase(&t)?;
            let movable = |s: Seat| matches!(t.seats()[s], SeatState::Empty | SeatState::Ai);
            let own_move = match seated(&t, actor) {
                Some(mine) if mine == *a => movable(*b),
                Some(mine) if mine == *b => movable(*a),
                _ => false,
            };
            if !own_move && !is_manager(&t, actor) {
                return Err(TableError::NotAllowed);
            }
            d.push(TableEvent::Swapped { a: *a, b: *b })
        }
        Command::AddAi { seat } => {
            require_seating_phase(&t)?;
            if !is_manager(&t, actor) && seated(&t, actor).is_none() {
                return Err(TableError::NotAllowed);
            }
            let seat = match seat {
                Some(s) if !t.seats()[*s].is_empty() => {
                    return Err(TableError::SeatTaken { seat: *s });
                }
                Some(s) => *s,
                None => first_empty(&t).ok_or(TableError::TableFull)?,
            };
            d.push(TableEvent::AiSeated { seat })
        }
        Command::RemoveAi { seat } => {
            require_seating_phase(&t)?;
            if !is_manager(&t, actor) && seated(&t, actor).is_none() {
                return Err(TableError::NotAllowed);
            }
            if t.seats()[*seat] != SeatState::Ai {
                return Err(TableError::NotAnAi { seat: *seat });
            }
            d.push(TableEvent::AiRemoved { seat: *seat })
        }
        Command::Start | Command::Rematch => {
            let allowed = match command {
                Command::Start => is_manager(&t, actor),
                _ => is_manager(&t, actor) || seated(&t, actor).is_some(),
            };
            match (command, t.phase()) {
                (_, Phase::Playing) => return Err(TableError::GameInProgress),
                (Command::Rematch, Phase::Lobby) => return Err(TableError::NotFinished),
                _ => {}
            }
            if !allowed {
                return Err(TableError::NotAllowed);
            }
            if !t.is_full() {
                return Err(TableError::SeatsNotFilled);
            }
            d.push(TableEvent::SeriesStarted {
                series_no: t.series_no() + 1,
                seed: ctx.seed,
            })?;
            reclock(d, &[], None, true, ctx)
        }
        Command::Act {
            seat,
            action,
            version,
        } => act(d, &t, actor, *seat, *action, *version, ctx),
        Command::Timeout => timeout(d, &t, actor, ctx),
        Command::Stop => {
            // The system stops tables of chats the bot was removed from.
            if !is_manager(&t, actor) && !matches!(actor, Actor::System) {
                return Err(TableError::NotAllowed);
            }
            d.push(TableEvent::Stopped {
                by: actor.user().cloned(),
            })
        }
        Command::ChangeSettings { settings } => change_settings(d, &t, actor, settings, ctx),
        Command::HandToAi { user } => {
            if !matches!(actor, Actor::System) {
                return Err(TableError::NotAllowed);
            }
            if t.phase() != Phase::Playing {
                return Err(TableError::NotPlaying);
            }
            let seat = t.seat_of(user).ok_or(TableError::UnknownPlayer)?;
            if !matches!(t.seats()[seat], SeatState::Person { away: false, .. }) {
                return Err(TableError::SeatAway);
            }
            d.push(TableEvent::HandedToAi {
                seat,
                unreachable: true,
            })?;
            reclock(d, &t.awaiting(), None, false, ctx)
        }
        Command::TakeBack => {
            let seat = seated(&t, actor).ok_or(TableError::NotSeated)?;
            if !matches!(t.seats()[seat], SeatState::Person { away: true, .. }) {
                return Err(TableError::NotAway);
            }
            d.push(TableEvent::TakenBack { seat })?;
            // Whoever comes back mid-turn gets a whole turn to think.
            let force = t.awaiting().contains(&seat);
            reclock(d, &t.awaiting(), None, force, ctx)
        }
    }
}

fn act(
    d: &mut Draft,
    t: &Table,
    actor: &Actor,
    seat: Seat,
    action: GameAction,
    version: u64,
    ctx: &Context,
) -> Result<(), TableError> {
    let game = match (t.game(), t.phase()) {
        (Some(g), Phase::Playing) => g,
        _ => return Err(TableError::NotPlaying),
    };
    let by = match (actor, &t.seats()[seat]) {
        (
            Actor::Person { player, .. },
            SeatState::Person {
                player: owner,
                away,
            },
        ) if player.id == owner.id => {
            if *away {
                return Err(TableError::SeatAway);
            }
            Mover::Person
        }
        (Actor::Person { .. }, _) => return Err(TableError::NotYourSeat),
        (Actor::Ai, s) if s.ai_controlled() => Mover::Ai,
        (Actor::Ai | Actor::System, _) => return Err(TableError::NotAllowed),
    };
    if version != t.version() {
        return Err(TableError::StaleVersion {
            expected: version,
            current: t.version(),
        });
    }
    let awaiting = game.awaiting();
    if !awaiting.contains(&seat) && game.legal_actions(seat).is_empty() {
        return Err(TableError::NotYourTurn);
    }
    let events = game.clone().apply(seat, action)?;
    d.push(TableEvent::Acted {
        seat,
        action,
        by,
        events,
    })?;
    reclock(d, &awaiting, Some(seat), false, ctx)
}

fn timeout(d: &mut Draft, t: &Table, actor: &Actor, ctx: &Context) -> Result<(), TableError> {
    if !matches!(actor, Actor::System) {
        return Err(TableError::NotAllowed);
    }
    if t.phase() != Phase::Playing {
        return Err(TableError::NotPlaying);
    }
    let deadline = t.deadline().ok_or(TableError::NoTimer)?;
    if ctx.now < deadline {
        return Err(TableError::TimerNotDue);
    }
    for seat in t.awaiting() {
        // An earlier seat's move may have changed who is awaited.
        let Some(action) = d.table.game().and_then(|g| g.safe_action(seat)) else {
            continue;
        };
        let events = match d.table.game() {
            Some(g) => g.clone().apply(seat, action)?,
            None => continue,
        };
        d.push(TableEvent::Acted {
            seat,
            action,
            by: Mover::Timeout,
            events,
        })?;
        let present = matches!(d.table.seats()[seat], SeatState::Person { away: false, .. });
        if present && d.table.timeouts_in_row(seat) >= TIMEOUTS_BEFORE_AI {
            d.push(TableEvent::HandedToAi {
                seat,
                unreachable: false,
            })?;
        }
    }
    reclock(d, &[], None, true, ctx)
}

fn change_settings(
    d: &mut Draft,
    t: &Table,
    actor: &Actor,
    settings: &Settings,
    ctx: &Context,
) -> Result<(), TableError> {
    if !is_manager(t, actor) {
        return Err(TableError::NotAllowed);
    }
    if t.phase() == Phase::Playing && settings.options != t.settings().options {
        return Err(TableError::GameInProgress);
    }
    d.push(TableEvent::SettingsChanged {
        settings: *settings,
    })?;
    let timer_changed = settings.turn_timer != t.settings().turn_timer;
    reclock(d, &t.awaiting(), None, timer_changed, ctx)
}

/// Sets the turn timer after a change. A new turn gets a fresh deadline;
/// the deadline stands while the awaited seats only shrink (the others of
/// a simultaneous phase, such as Hearts' passing, keep their time).
fn reclock(
    d: &mut Draft,
    awaiting_before: &[Seat],
    mover: Option<Seat>,
    force: bool,
    ctx: &Context,
) -> Result<(), TableError> {
    let t = &d.table;
    let awaiting = t.awaiting();
    let want = match t.settings().turn_timer {
        Some(timer) if t.phase() == Phase::Playing && !awaiting.is_empty() => {
            let same_turn = t.deadline().is_some()
                && awaiting.iter().all(|s| awaiting_before.contains(s))
                && mover.is_none_or(|m| !awaiting.contains(&m));
            if same_turn && !force {
                return Ok(());
            }
            Some(ctx.now.plus_secs(timer.secs()))
        }
        _ => None,
    };
    if want != t.deadline() {
        d.push(TableEvent::ClockSet { deadline: want })?;
    }
    Ok(())
}

/// The effects of one table's events, `before` being the table as it was.
fn effects_of(before: Option<&Table>, after: &Table, events: &[TableEvent]) -> Vec<Effect> {
    let mut fx = Vec::new();
    let announce = |a: Announcement| Effect::Announce {
        chat: after.chat().clone(),
        table: after.id(),
        announcement: a,
    };
    for e in events {
        match e {
            TableEvent::SeriesStarted { series_no, .. } => {
                fx.push(announce(Announcement::SeriesStarted {
                    series_no: *series_no,
                }));
            }
            TableEvent::Acted {
                seat,
                action,
                by,
                events,
            } => {
                if *by == Mover::Timeout {
                    fx.push(announce(Announcement::AutoPlayed {
                        seat: *seat,
                        action: *action,
                    }));
                }
                for ge in events {
                    if let Some(milestone) = ge.milestone() {
                        let last_trick = match milestone {
                            Milestone::Deal => after
                                .last_deal()
                                .filter(|d| &d.result == ge)
                                .and_then(|d| d.last_trick.clone()),
                            Milestone::Trick | Milestone::Series => None,
                        };
                        fx.push(announce(Announcement::Game {
                            milestone,
                            event: ge.clone(),
                            last_trick,
                        }));
                    }
                }
            }
            TableEvent::HandedToAi { seat, .. } | TableEvent::TakenBack { seat } => {
                if let Some(player) = after.seats()[*seat].person() {
                    let player = player.clone();
                    fx.push(announce(match e {
                        TableEvent::HandedToAi { unreachable, .. } => Announcement::HandedToAi {
                            seat: *seat,
                            player,
                            unreachable: *unreachable,
                        },
                        _ => Announcement::TakenBack {
                            seat: *seat,
                            player,
                        },
                    }));
                }
            }
            TableEvent::Left { seat, kicked } => {
                if let Some(player) = before.and_then(|b| b.seats()[*seat].person()) {
                    fx.push(announce(Announcement::Left {
                        seat: *seat,
                        player: player.clone(),
                        kicked: *kicked,
                        replaced_by_ai: after.seats()[*seat] == SeatState::Ai,
                    }));
                    if after.game().is_some() {
                        fx.push(Effect::DropHand {
                            chat: after.chat().clone(),
                            table: after.id(),
                            user: player.id.clone(),
                        });
                    }
                }
            }
            TableEvent::Stopped { by } => {
                fx.push(announce(Announcement::Stopped { by: by.clone() }));
            }
            TableEvent::ChatMoved { .. } => {
                if let Some(b) = before {
                    fx.push(announce(Announcement::ChatMoved {
                        from: b.chat().clone(),
                    }));
                }
            }
            _ => {}
        }
    }
    fx.push(Effect::RenderTable(Box::new(after.view())));
    fx.extend(after.hand_effects());
    let timer = after.timer_spec();
    let old_timer = before.and_then(Table::timer_spec);
    match timer {
        Some(spec) if Some(&spec) != old_timer.as_ref() => {
            fx.push(Effect::ArmTimer(Box::new(spec)));
        }
        Some(_) => {}
        None if old_timer.is_some() => fx.push(Effect::DisarmTimer { table: after.id() }),
        None => {}
    }
    fx.extend(after.ai_moves());
    fx
}
