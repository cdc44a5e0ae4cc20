use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::*;
use kozyr_cards::Seat;
use kozyr_game::{GameAction, GameKind};
use kozyr_kozel as kozel;

fn seat(i: u8) -> Seat {
    Seat::new(i).unwrap()
}

fn player(i: u32) -> Player {
    Player::new(
        UserId::new(i.to_string()).unwrap(),
        &format!("P{i}"),
        Lang::En,
    )
}

fn person(i: u32) -> Actor {
    Actor::person(player(i))
}

fn admin(i: u32) -> Actor {
    Actor::Person {
        player: player(i),
        admin: true,
    }
}

fn chat() -> ChatKey {
    ChatKey::new(Platform::Telegram, "-100").unwrap()
}

/// A chat driven through [`decide`] the way the runtime drives it: accepted
/// transitions replace the open table and extend the log; a refusal must
/// leave everything as it was.
struct Chat {
    chat: ChatKey,
    open: Option<Table>,
    log: Vec<TableEvent>,
    now: Timestamp,
    next_id: i64,
    seed: u64,
}

impl Chat {
    fn new() -> Chat {
        Chat {
            chat: chat(),
            open: None,
            log: Vec::new(),
            now: Timestamp::from_millis(1_000_000),
            next_id: 1,
            seed: 42,
        }
    }

    /// A Kozel table with persons 1-4 seated, in the lobby.
    fn seated(settings: Settings) -> Chat {
        let mut c = Chat::new();
        c.ok(&person(1), create(settings));
        for i in 2..=4 {
            c.ok(&person(i), Command::Join { seat: None });
        }
        c
    }

    fn table(&self) -> &Table {
        self.open.as_ref().unwrap()
    }

    fn run(&mut self, actor: &Actor, command: Command) -> Result<Transition, TableError> {
        let ctx = Context {
            now: self.now,
            seed: self.seed,
            new_table_id: TableId(self.next_id),
        };
        let before = self.open.clone();
        let result = decide(self.open.as_ref(), &self.chat, actor, &command, &ctx);
        match &result {
            Ok(t) => {
                for c in &t.changes {
                    if c.before.is_none() {
                        self.next_id += 1;
                        self.log.clear();
                    }
                    assert_eq!(
                        c.first_version() + c.events.len() as u64 - 1,
                        c.table.version()
                    );
                    if Some(c.table.id()) == self.open.as_ref().map(Table::id) || c.before.is_none()
                    {
                        self.log.extend(c.events.iter().cloned());
                    }
                }
                if let Some((_, to)) = &t.moved_chat {
                    self.chat = to.clone();
                }
                self.open = t.open_table().cloned();
                if let Some(table) = &self.open {
                    assert_eq!(&Table::replay(&self.log).unwrap(), table, "log replays");
                }
            }
            Err(_) => assert_eq!(self.open, before, "a refused command changed nothing"),
        }
        result
    }

    fn ok(&mut self, actor: &Actor, command: Command) -> Transition {
        let shown = format!("{command:?}");
        self.run(actor, command)
            .unwrap_or_else(|e| panic!("{shown} refused: {e}"))
    }

    fn err(&mut self, actor: &Actor, command: Command) -> TableError {
        let shown = format!("{command:?}");
        match self.run(actor, command) {
            Ok(_) => panic!("{shown} was accepted"),
            Err(e) => e,
        }
    }

    /// Plays `action` for whoever sits at `seat`, as the person or the AI.
    fn play(&mut self, seat: Seat, action: GameAction) -> Transition {
        let version = self.table().version();
        let actor = match &self.table().seats()[seat] {
            SeatState::Person {
                player,
                away: false,
            } => Actor::person(player.clone()),
            _ => Actor::Ai,
        };
        self.ok(
            &actor,
            Command::Act {
                seat,
                action,
                version,
            },
        )
    }

    fn awaited(&self) -> Seat {
        self.table().awaiting()[0]
    }
}

fn create(settings: Settings) -> Command {
    Command::Create {
        kind: GameKind::Kozel,
        settings,
        title: "  Friday  ".into(),
        sit: true,
    }
}

fn no_timer() -> Settings {
    Settings {
        turn_timer: None,
        ..Settings::default()
    }
}

fn names(t: &Transition) -> Vec<&'static str> {
    t.changes
        .iter()
        .flat_map(|c| c.events.iter().map(TableEvent::name))
        .collect()
}

/// Lobby rules as data: a setup of seats, then one command and what it does.
#[test]
fn lobby_commands() {
    // Seats: person 1 (creator) at 0, person 2 at 1, an AI at 2, seat 3 empty.
    fn setup() -> Chat {
        let mut c = Chat::new();
        c.ok(&person(1), create(Settings::default()));
        c.ok(&person(2), Command::Join { seat: None });
        c.ok(
            &person(2),
            Command::AddAi {
                seat: Some(seat(2)),
            },
        );
        c
    }
    type Expect = Result<&'static [&'static str], TableError>;
    let cases: Vec<(Actor, Command, Expect)> = vec![
        (person(3), Command::Join { seat: None }, Ok(&["seated"])),
        (
            person(3),
            Command::Join {
                seat: Some(seat(3)),
            },
            Ok(&["seated"]),
        ),
        (
            person(3),
            Command::Join {
                seat: Some(seat(1)),
            },
            Err(TableError::SeatTaken { seat: seat(1) }),
        ),
        (
            person(2),
            Command::Join { seat: None },
            Err(TableError::AlreadySeated),
        ),
        (
            Actor::Ai,
            Command::Join { seat: None },
            Err(TableError::NotAllowed),
        ),
        (person(2), Command::Leave, Ok(&["left"])),
        (person(3), Command::Leave, Err(TableError::NotSeated)),
        // A seated person may move to an empty or AI seat, not onto a person.
        (
            person(2),
            Command::Swap {
                a: seat(1),
                b: seat(3),
            },
            Ok(&["swapped"]),
        ),
        (
            person(2),
            Command::Swap {
                a: seat(2),
                b: seat(1),
            },
            Ok(&["swapped"]),
        ),
        (
            person(2),
            Command::Swap {
                a: seat(1),
                b: seat(0),
            },
            Err(TableError::NotAllowed),
        ),
        (
            person(1),
            Command::Swap {
                a: seat(1),
                b: seat(0),
            },
            Ok(&["swapped"]),
        ),
        (
            admin(9),
            Command::Swap {
                a: seat(1),
                b: seat(0),
            },
            Ok(&["swapped"]),
        ),
        (
            person(1),
            Command::Swap {
                a: seat(1),
                b: seat(1),
            },
            Err(TableError::SameSeat),
        ),
        (
            person(3),
            Command::AddAi { seat: None },
            Err(TableError::NotAllowed),
        ),
        (person(2), Command::AddAi { seat: None }, Ok(&["ai_seated"])),
        (
            person(1),
            Command::AddAi {
                seat: Some(seat(0)),
            },
            Err(TableError::SeatTaken { seat: seat(0) }),
        ),
        (
            person(1),
            Command::RemoveAi { seat: seat(2) },
            Ok(&["ai_removed"]),
        ),
        (
            person(1),
            Command::RemoveAi { seat: seat(1) },
            Err(TableError::NotAnAi { seat: seat(1) }),
        ),
        (person(1), Command::Start, Err(TableError::SeatsNotFilled)),
        (person(1), Command::Rematch, Err(TableError::NotFinished)),
        (
            person(2),
            Command::Kick {
                user: UserId::new("1").unwrap(),
            },
            Err(TableError::NotAllowed),
        ),
        (
            person(1),
            Command::Kick {
                user: UserId::new("2").unwrap(),
            },
            Ok(&["left"]),
        ),
        (
            person(1),
            Command::Kick {
                user: UserId::new("7").unwrap(),
            },
            Err(TableError::UnknownPlayer),
        ),
        (person(2), Command::Stop, Err(TableError::NotAllowed)),
        (admin(9), Command::Stop, Ok(&["stopped"])),
        (Actor::System, Command::Stop, Ok(&["stopped"])),
        (Actor::Ai, Command::Stop, Err(TableError::NotAllowed)),
        (
            person(1),
            Command::HandToAi {
                user: UserId::new("1").unwrap(),
            },
            Err(TableError::NotAllowed),
        ),
        (
            Actor::System,
            Command::HandToAi {
                user: UserId::new("1").unwrap(),
            },
            Err(TableError::NotPlaying),
        ),
        (person(1), Command::TakeBack, Err(TableError::NotAway)),
        (person(2), Command::Timeout, Err(TableError::NotAllowed)),
        (Actor::System, Command::Timeout, Err(TableError::NotPlaying)),
        (
            person(1),
            Command::Act {
                seat: seat(0),
                action: GameAction::Kozel(kozel::Action::Molodka),
                version: 4,
            },
            Err(TableError::NotPlaying),
        ),
        (
            person(1),
            create(Settings::default()),
            Err(TableError::TableAlreadyOpen),
        ),
    ];
    for (actor, command, expect) in cases {
        let mut c = setup();
        let shown = format!("{actor:?} {command:?}");
        let got = c.run(&actor, command).map(|t| names(&t));
        match (&got, &expect) {
            (Ok(g), Ok(e)) => assert_eq!(g.as_slice(), *e, "{shown}"),
            _ => assert_eq!(got.map(|_| ()), expect.map(|_| ()), "{shown}"),
        }
    }
}

#[test]
fn creation_trims_title_and_seats_creator() {
    let mut c = Chat::new();
    let t = c.ok(&person(1), create(Settings::default()));
    assert_eq!(names(&t), ["created", "seated"]);
    let table = c.table();
    assert_eq!(table.title(), "Friday");
    assert_eq!(table.version(), 2);
    assert_eq!(table.phase(), Phase::Lobby);
    assert!(matches!(t.effects[0], Effect::RenderTable(_)));
}

#[test]
fn starting_deals_and_arms_the_timer() {
    let mut c = Chat::seated(Settings::default());
    assert_eq!(c.err(&person(2), Command::Start), TableError::NotAllowed);
    let t = c.ok(&person(1), Command::Start);
    assert_eq!(names(&t), ["series_started", "clock_set"]);
    let table = c.table();
    assert_eq!(table.phase(), Phase::Playing);
    assert_eq!(table.deadline(), Some(c.now.plus_secs(60)));
    let hands = t
        .effects
        .iter()
        .filter(|e| matches!(e, Effect::RenderHand(_)))
        .count();
    assert_eq!(hands, 4);
    let Some(Effect::ArmTimer(spec)) = t.effects.iter().find(|e| matches!(e, Effect::ArmTimer(_)))
    else {
        panic!("no timer armed: {:?}", t.effects);
    };
    assert_eq!(spec.remind_at, Some(c.now.plus_secs(45)));
    assert_eq!(spec.awaiting.len(), 1);
    assert!(spec.awaiting[0].player.is_some());
    assert_eq!(
        c.err(&person(1), Command::Join { seat: None }),
        TableError::GameInProgress
    );
    assert_eq!(
        c.err(&person(1), Command::Start),
        TableError::GameInProgress
    );
}

#[test]
fn moves_are_checked_for_seat_version_turn_and_rules() {
    let mut c = Chat::seated(no_timer());
    c.ok(&person(1), Command::Start);
    let turn = c.awaited();
    let other = turn.next();
    let version = c.table().version();
    let owner = |s: Seat| Actor::person(c.table().seats()[s].person().unwrap().clone());
    let (turn_actor, other_actor) = (owner(turn), owner(other));
    let legal = c.table().game().unwrap().legal_actions(turn);
    let lead = *legal
        .iter()
        .find(|a| matches!(a, GameAction::Kozel(kozel::Action::Lead(_))))
        .unwrap();
    let act = |seat, version| Command::Act {
        seat,
        action: lead,
        version,
    };
    assert_eq!(
        c.err(&other_actor, act(turn, version)),
        TableError::NotYourSeat
    );
    assert_eq!(
        c.err(&Actor::Ai, act(turn, version)),
        TableError::NotAllowed
    );
    assert_eq!(
        c.err(&turn_actor, act(turn, version - 1)),
        TableError::StaleVersion {
            expected: version - 1,
            current: version
        }
    );
    let hand = c.table().game().unwrap().view(other);
    let kozyr_game::GameView::Kozel(v) = hand else {
        panic!("a Kozel view")
    };
    let out_of_turn = Command::Act {
        seat: other,
        action: GameAction::Kozel(kozel::Action::Lead(kozyr_cards::CardSet::single(
            v.deal.hand.first().unwrap(),
        ))),
        version,
    };
    let e = c.err(&other_actor, out_of_turn);
    assert!(
        matches!(
            e,
            TableError::NotYourTurn
                | TableError::Illegal(kozyr_game::GameError::Kozel(kozel::RuleError::NotYourTurn))
        ),
        "{e:?}"
    );
    let not_in_hand = c.table().game().unwrap().view(other);
    let kozyr_game::GameView::Kozel(theirs) = not_in_hand else {
        panic!("a Kozel view")
    };
    let foreign = theirs.deal.hand.first().unwrap();
    let bad = Command::Act {
        seat: turn,
        action: GameAction::Kozel(kozel::Action::Lead(kozyr_cards::CardSet::single(foreign))),
        version,
    };
    assert_eq!(
        c.err(&turn_actor, bad),
        TableError::Illegal(kozyr_game::GameError::Kozel(kozel::RuleError::NotInHand {
            card: foreign
        }))
    );
    let t = c.ok(&turn_actor, act(turn, version));
    assert_eq!(names(&t), ["acted"]);
    assert_eq!(c.table().version(), version + 1);
    // The same press again is stale.
    assert!(matches!(
        c.err(&turn_actor, act(turn, version)),
        TableError::StaleVersion { .. }
    ));
}

/// Plays a whole series with random legal moves; returns the number of moves.
fn play_series(c: &mut Chat, rng: &mut Xoshiro256PlusPlus) -> usize {
    let mut moves = 0;
    while c.table().phase() == Phase::Playing {
        let s = c.awaited();
        let legal = c.table().game().unwrap().legal_actions(s);
        let action = legal[rng.random_range(0..legal.len())];
        c.play(s, action);
        moves += 1;
        assert!(moves < 10_000, "the series does not end");
    }
    moves
}

#[test]
fn a_whole_series_then_a_rematch() {
    let mut c = Chat::seated(Settings::default());
    c.ok(&person(4), Command::Leave);
    c.ok(&person(1), Command::AddAi { seat: None });
    c.ok(&person(1), Command::Start);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut totals = Counters::default();
    let mut chat_totals = Counters::default();
    let mut moves = 0;
    while c.table().phase() == Phase::Playing {
        let s = c.awaited();
        let legal = c.table().game().unwrap().legal_actions(s);
        let t = c.play(s, legal[rng.random_range(0..legal.len())]);
        moves += 1;
        let change = &t.changes[0];
        let trick = change.events.iter().find_map(|e| match e {
            TableEvent::Acted { events, .. } => events.iter().find_map(|g| g.trick_taken()),
            _ => None,
        });
        if let Some((winner, points)) = trick {
            // The trick just taken, with its cards; a deal's last trick
            // moves into the deal's end, and the next deal starts with none.
            let view = c.table().view();
            let deal_over = view.last_deal.is_some() && view.last_trick.is_none();
            let shown = if deal_over {
                view.last_deal.and_then(|d| d.last_trick)
            } else {
                view.last_trick
            };
            let shown = shown.expect("the trick just taken is shown");
            assert_eq!((shown.winner, shown.points), (winner, points));
            assert_eq!(shown.plays.len(), 4, "a lead and three answers");
            let won = shown.plays.iter().find(|p| p.seat == winner).unwrap();
            assert!(matches!(won.cards, TrickCards::FaceUp(_)));
            assert!(c.table().trick().is_empty());
        }
        let delta = stats_delta(&change.table, &change.events);
        chat_totals.add(&delta.chat);
        for (u, d) in delta.players {
            if u.to_string() == "1" {
                totals.add(&d);
            }
        }
        let ai_due = t.effects.iter().any(|e| matches!(e, Effect::AiMove(_)));
        let next_is_ai =
            c.table().phase() == Phase::Playing && c.table().seats()[c.awaited()].ai_controlled();
        assert_eq!(ai_due, next_is_ai);
    }
    assert!(moves > 20);
    let table = c.table();
    assert_eq!(table.phase(), Phase::Finished);
    assert_eq!(table.deadline(), None);
    let kozyr_game::Game::Kozel(series) = table.game().unwrap() else {
        panic!("a Kozel game")
    };
    assert_eq!(chat_totals.series_played, 1);
    assert_eq!(chat_totals.deals_played, series.results().len() as i64);
    assert_eq!(totals.series_played, 1);
    assert_eq!(totals.series_won + totals.series_lost, 1);
    assert_eq!(totals.deals_played, series.results().len() as i64);
    let goat = series.goat().unwrap();
    assert_eq!(totals.goat, i64::from(kozel::Team::of(seat(0)) == goat));

    assert_eq!(c.err(&person(9), Command::Rematch), TableError::NotAllowed);
    let t = c.ok(&person(2), Command::Rematch);
    assert_eq!(names(&t), ["series_started", "clock_set"]);
    assert_eq!(c.table().series_no(), 2);
    play_series(&mut c, &mut rng);
    assert_eq!(c.table().phase(), Phase::Finished);
    // A new table in the chat closes the finished one.
    let t = c.ok(&person(3), create(no_timer()));
    assert_eq!(names(&t), ["superseded", "created", "seated"]);
    assert_eq!(t.changes[0].table.phase(), Phase::Closed);
    assert_eq!(c.table().id(), TableId(2));
}

#[test]
fn timeouts_play_safe_moves_then_hand_the_seat_to_ai() {
    let mut c = Chat::seated(Settings::default());
    c.ok(&person(1), Command::Start);
    assert_eq!(
        c.err(&Actor::System, Command::Timeout),
        TableError::TimerNotDue
    );
    let sleeper = c.awaited();
    let sleeper_actor = Actor::person(c.table().seats()[sleeper].person().unwrap().clone());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut timeouts = 0;
    while timeouts < TIMEOUTS_BEFORE_AI {
        let s = c.awaited();
        if s == sleeper {
            c.now = c.table().deadline().unwrap();
            let safe = c.table().game().unwrap().safe_action(s).unwrap();
            let t = c.ok(&Actor::System, Command::Timeout);
            timeouts += 1;
            assert!(t.effects.iter().any(|e| matches!(
                e,
                Effect::Announce { announcement: Announcement::AutoPlayed { seat, action }, .. }
                    if *seat == s && *action == safe
            )));
            assert_eq!(c.table().timeouts_in_row(s), timeouts % TIMEOUTS_BEFORE_AI);
            let handed = names(&t).contains(&"handed_to_ai");
            assert_eq!(handed, timeouts == TIMEOUTS_BEFORE_AI);
            // A fresh deadline for whoever is next.
            assert_eq!(c.table().deadline(), Some(c.now.plus_secs(60)));
        } else {
            let legal = c.table().game().unwrap().legal_actions(s);
            c.play(s, legal[rng.random_range(0..legal.len())]);
        }
        if c.table().phase() != Phase::Playing {
            // A series can end before three timeouts: start another.
            c.ok(&person(1), Command::Rematch);
        }
    }
    assert!(c.table().seats()[sleeper].ai_controlled());
    // While away, the AI plays the seat and the person may not.
    while c.awaited() != sleeper {
        let s = c.awaited();
        let legal = c.table().game().unwrap().legal_actions(s);
        c.play(s, legal[0]);
    }
    let version = c.table().version();
    let legal = c.table().game().unwrap().legal_actions(sleeper);
    let act = Command::Act {
        seat: sleeper,
        action: legal[0],
        version,
    };
    assert_eq!(c.err(&sleeper_actor, act.clone()), TableError::SeatAway);
    let t = c.ok(
        &person(1),
        Command::ChangeSettings {
            settings: Settings {
                lang: Lang::Ru,
                ..Settings::default()
            },
        },
    );
    assert!(
        t.effects
            .iter()
            .any(|e| matches!(e, Effect::AiMove(m) if m.seat == sleeper))
    );
    c.now = c.now.plus_secs(1);
    let t = c.ok(&sleeper_actor, Command::TakeBack);
    assert_eq!(names(&t), ["taken_back", "clock_set"]);
    assert!(!t.effects.iter().any(|e| matches!(e, Effect::AiMove(_))));
    let version = c.table().version();
    let legal = c.table().game().unwrap().legal_actions(sleeper);
    let act = Command::Act {
        seat: sleeper,
        action: legal[0],
        version,
    };
    c.ok(&sleeper_actor, act);
}

#[test]
fn leaving_in_play_hands_the_seat_to_an_ai_player() {
    let mut c = Chat::seated(no_timer());
    c.ok(&person(1), Command::Start);
    let s = c.awaited();
    let leaver = Actor::person(c.table().seats()[s].person().unwrap().clone());
    let t = c.ok(&leaver, Command::Leave);
    assert_eq!(c.table().seats()[s], SeatState::Ai);
    assert!(
        t.effects
            .iter()
            .any(|e| matches!(e, Effect::DropHand { .. }))
    );
    assert!(
        t.effects
            .iter()
            .any(|e| matches!(e, Effect::AiMove(m) if m.seat == s))
    );
    assert!(t.effects.iter().any(|e| matches!(
        e,
        Effect::Announce {
            announcement: Announcement::Left {
                replaced_by_ai: true,
                ..
            },
            ..
        }
    )));
    // No timer was set, so there is none to disarm or fire.
    assert!(
        !t.effects
            .iter()
            .any(|e| matches!(e, Effect::DisarmTimer { .. }))
    );
    assert_eq!(c.err(&Actor::System, Command::Timeout), TableError::NoTimer);
}

#[test]
fn settings_and_stop() {
    let mut c = Chat::seated(no_timer());
    c.ok(&person(1), Command::Start);
    assert_eq!(c.table().deadline(), None);
    let timed = Settings::default();
    assert_eq!(
        c.err(&person(2), Command::ChangeSettings { settings: timed }),
        TableError::NotAllowed
    );
    let t = c.ok(&admin(8), Command::ChangeSettings { settings: timed });
    assert_eq!(names(&t), ["settings_changed", "clock_set"]);
    assert!(t.effects.iter().any(|e| matches!(e, Effect::ArmTimer(_))));
    let t = c.ok(&person(1), Command::Stop);
    assert!(
        t.effects
            .iter()
            .any(|e| matches!(e, Effect::DisarmTimer { .. }))
    );
    assert!(c.open.is_none());
    assert_eq!(c.err(&person(1), Command::Leave), TableError::NoOpenTable);
    // The chat may open a new table at once.
    c.ok(&person(2), create(no_timer()));
}

#[test]
fn chat_migration_moves_the_table() {
    let mut c = Chat::seated(Settings::default());
    let to = ChatKey::new(Platform::Telegram, "-1009").unwrap();
    assert_eq!(
        c.err(&person(1), Command::MigrateChat { to: to.clone() }),
        TableError::NotAllowed
    );
    let old = c.chat.clone();
    assert_eq!(
        c.err(&Actor::System, Command::MigrateChat { to: old.clone() }),
        TableError::SameChat
    );
    let t = c.ok(&Actor::System, Command::MigrateChat { to: to.clone() });
    assert_eq!(t.moved_chat, Some((old, to.clone())));
    assert_eq!(c.table().chat(), &to);
    let decided = decide(
        None,
        &to,
        &Actor::System,
        &Command::MigrateChat {
            to: ChatKey::new(Platform::Telegram, "-1").unwrap(),
        },
        &Context {
            now: c.now,
            seed: 0,
            new_table_id: TableId(0),
        },
    )
    .unwrap();
    assert!(decided.changes.is_empty(), "history only");
}

#[test]
fn replay_refuses_a_tampered_log() {
    let mut c = Chat::seated(no_timer());
    c.ok(&person(1), Command::Start);
    let s = c.awaited();
    let legal = c.table().game().unwrap().legal_actions(s);
    c.play(s, legal[0]);
    let mut log = c.log.clone();
    assert!(Table::replay(&log).is_ok());
    if let Some(TableEvent::Acted { events, .. }) = log.last_mut() {
        events.pop();
    }
    assert!(matches!(
        Table::replay(&log),
        Err(ReplayError::Diverged { .. })
    ));
    assert_eq!(Table::replay(&log[1..]), Err(ReplayError::NoCreation));
}

#[test]
fn snapshots_round_trip_through_json() {
    let mut c = Chat::seated(Settings::default());
    c.ok(&person(1), Command::Start);
    let json = serde_json::to_string(c.table()).unwrap();
    let back: Table = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, c.table());
    let events = serde_json::to_string(&c.log).unwrap();
    let back: Vec<TableEvent> = serde_json::from_str(&events).unwrap();
    assert_eq!(back, c.log);
}

#[test]
fn hearts_passing_is_simultaneous_and_times_out_together() {
    let mut c = Chat::new();
    c.ok(
        &person(1),
        Command::Create {
            kind: GameKind::Hearts,
            settings: Settings::default(),
            title: "copas".into(),
            sit: true,
        },
    );
    for i in 2..=4 {
        c.ok(&person(i), Command::Join { seat: None });
    }
    c.ok(&person(1), Command::Start);
    assert_eq!(c.table().awaiting(), Seat::ALL.to_vec());
    let deadline = c.table().deadline().unwrap();
    // One pass: the others keep their deadline.
    c.now = c.now.plus_secs(10);
    let pass = c.table().game().unwrap().legal_actions(seat(2))[0];
    let t = c.play(seat(2), pass);
    assert_eq!(names(&t), ["acted"]);
    assert_eq!(c.table().deadline(), Some(deadline));
    assert_eq!(c.table().awaiting().len(), 3);
    // A stale hand from before that pass cannot be played.
    let old = c.table().version() - 1;
    let pass0 = c.table().game().unwrap().legal_actions(seat(0))[0];
    assert!(matches!(
        c.err(
            &person(1),
            Command::Act {
                seat: seat(0),
                action: pass0,
                version: old
            }
        ),
        TableError::StaleVersion { .. }
    ));
    // The timer runs out for the three who did not pass: all pass at once.
    c.now = deadline;
    let t = c.ok(&Actor::System, Command::Timeout);
    let timed_out: Vec<Seat> = t.changes[0]
        .events
        .iter()
        .filter_map(|e| match e {
            TableEvent::Acted {
                seat,
                by: Mover::Timeout,
                ..
            } => Some(*seat),
            _ => None,
        })
        .collect();
    assert_eq!(timed_out, [seat(0), seat(1), seat(3)]);
    for s in [0, 1, 3] {
        assert_eq!(c.table().timeouts_in_row(seat(s)), 1);
    }
    assert_eq!(c.table().timeouts_in_row(seat(2)), 0);
    // Playing starts: one seat (the holder of 2♣) with a fresh deadline.
    assert_eq!(c.table().awaiting().len(), 1);
    assert_eq!(c.table().deadline(), Some(c.now.plus_secs(60)));
    let public = c.table().view();
    let Some(kozyr_game::GameView::Hearts(v)) = public.game else {
        panic!("a Hearts view");
    };
    assert!(v.deal.hand.is_empty() && v.deal.passed.is_none() && v.deal.received.is_none());
}

#[test]
fn safe_moves_are_legal_and_cheap() {
    for seed in 0..30 {
        for kind in [GameKind::Kozel, GameKind::Hearts] {
            let mut game = kozyr_game::Game::new(kind, Default::default(), seed);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            for _ in 0..60 {
                let Some(&s) = game.awaiting().first() else {
                    break;
                };
                let safe = game.safe_action(s).unwrap();
                let legal = game.legal_actions(s);
                assert!(legal.contains(&safe));
                match safe {
                    // Kozel: one card on a lead, never a beat.
                    GameAction::Kozel(kozel::Action::Lead(c)) => assert_eq!(c.len(), 1),
                    GameAction::Kozel(kozel::Action::Pass(_)) => {}
                    GameAction::Hearts(kozyr_hearts::Action::Play(card)) => {
                        let lowest = legal
                            .iter()
                            .filter_map(|a| match a {
                                GameAction::Hearts(kozyr_hearts::Action::Play(c)) => Some(c.rank()),
                                _ => None,
                            })
                            .min();
                        assert_eq!(Some(card.rank()), lowest);
                    }
                    GameAction::Hearts(kozyr_hearts::Action::PassCards(c)) => {
                        assert_eq!(c.len(), 3)
                    }
                    other => panic!("not a safe move: {other:?}"),
                }
                let a = legal[rng.random_range(0..legal.len())];
                game.apply(s, a).unwrap();
            }
        }
    }
}

#[test]
fn an_unreachable_person_is_handed_to_ai_at_once_by_the_system() {
    let mut c = Chat::seated(Settings::default());
    c.ok(&person(1), Command::Start);
    let s = c.awaited();
    let who = c.table().seats()[s].person().unwrap().clone();
    let hand_over = Command::HandToAi {
        user: who.id.clone(),
    };
    let t = c.ok(&Actor::System, hand_over.clone());
    assert_eq!(names(&t), ["handed_to_ai"]);
    assert!(t.effects.iter().any(|e| matches!(
        e,
        Effect::Announce { announcement: Announcement::HandedToAi { unreachable: true, seat, .. }, .. }
            if *seat == s
    )));
    // The AI moves for the awaited seat at once.
    assert!(
        t.effects
            .iter()
            .any(|e| matches!(e, Effect::AiMove(m) if m.seat == s))
    );
    assert_eq!(c.err(&Actor::System, hand_over), TableError::SeatAway);
    c.ok(&Actor::person(who), Command::TakeBack);
}

/// An AI seat that could play a molodka out of turn is asked (cheaply, by
/// the runtime) after every change; the seats whose turn it is owe their
/// moves as before, and nobody else is asked.
#[test]
fn ai_seats_are_asked_about_a_molodka_out_of_turn() {
    let molodka = GameAction::Kozel(kozel::Action::Molodka);
    let mut asked = 0;
    for seed in 0..3000 {
        let mut c = Chat::seated(Settings::default());
        c.seed = seed;
        c.ok(&person(4), Command::Leave);
        c.ok(&person(1), Command::AddAi { seat: None });
        let t = c.ok(&person(1), Command::Start);
        let table = c.table();
        let game = table.game().unwrap();
        let ai = Seat::ALL
            .into_iter()
            .find(|&s| table.seats()[s] == SeatState::Ai)
            .unwrap();
        let could = !table.awaiting().contains(&ai) && game.legal_actions(ai).contains(&molodka);
        let questions: Vec<&AiMove> = t
            .effects
            .iter()
            .filter_map(|e| match e {
                Effect::AiMove(m) if m.out_of_turn => Some(&**m),
                _ => None,
            })
            .collect();
        if !could {
            assert!(questions.is_empty(), "seed {seed}");
            continue;
        }
        asked += 1;
        assert_eq!(questions.len(), 1);
        assert_eq!(questions[0].seat, ai);
        assert_eq!(questions[0].legal, vec![molodka]);
        assert_eq!(questions[0].version, table.version());
        assert_eq!(questions[0].observation.seat(), ai);
        // Said yes: the molodka leads, out of turn.
        let t = c.play(ai, molodka);
        let played = t.changes[0].events.iter().any(|e| {
            matches!(e, TableEvent::Acted { events, .. }
                if events.iter().any(|g| matches!(g, kozyr_game::GameEvent::Kozel(kozel::Event::Molodka { .. }))))
        });
        assert!(played);
        assert_eq!(c.table().trick().len(), 1, "the molodka is the lead");
        if asked == 3 {
            break;
        }
    }
    assert_eq!(asked, 3);
}
