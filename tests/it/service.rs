//! The table service end to end against real databases (the tests'
//! backend, `support::store`): whole series, duplicates, stale presses,
//! parallel tables, AI players, timers, restarts.

use std::sync::Arc;
use std::time::Duration;

use kozyr::cards::Seat;
use kozyr::game::{GameKind, Milestone};
use kozyr::table::runtime::{
    Ack, DedupKey, ManualClock, Request, ServiceError, ServiceOptions, TableService, Target,
};
use kozyr::table::storage::TableStore;
use kozyr::table::{
    Actor, Announcement, ChatKey, Command, Mover, Output, Phase, Platform, SeatState, Settings,
    Table, TableError, TableEvent, TableId, Timestamp, TurnTimer, UserId,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::support::store::{Log, TestStore, sqlite_of};
use crate::support::{chat, db_url, no_timer, person};

async fn start(
    url: &str,
    clock: Option<ManualClock>,
    options: ServiceOptions,
) -> (TableService, UnboundedReceiver<Output>) {
    let store = TestStore::open(url).await;
    let mut b = TableService::builder(store.shared()).options(options);
    if let Some(c) = clock {
        b = b.clock(Arc::new(c));
    }
    b.start().await.unwrap()
}

fn request(target: Target, actor: Actor, command: Command, key: Option<&str>) -> Request {
    Request {
        target,
        actor,
        command,
        dedup: key.map(DedupKey::opaque),
    }
}

async fn submit(s: &TableService, chat: &ChatKey, actor: Actor, command: Command) -> Ack {
    let shown = format!("{command:?}");
    s.submit(request(Target::Chat(chat.clone()), actor, command, None))
        .await
        .unwrap_or_else(|e| panic!("{shown}: {e}"))
}

fn rejection(r: Result<Ack, ServiceError>) -> TableError {
    match r {
        Ok(a) => panic!("accepted: {a:?}"),
        Err(e) => e
            .rejection()
            .cloned()
            .unwrap_or_else(|| panic!("store error: {e}")),
    }
}

/// Opens a table in `chat` with persons `first..first+4` seated, and starts it.
async fn open_full_table(
    s: &TableService,
    chat: &ChatKey,
    first: u32,
    settings: Settings,
) -> TableId {
    let created = submit(
        s,
        chat,
        person(first),
        Command::Create {
            kind: GameKind::Kozel,
            settings,
            title: format!("Chat {chat}"),
            sit: true,
        },
    )
    .await;
    for i in first + 1..first + 4 {
        submit(s, chat, person(i), Command::Join { seat: None }).await;
    }
    submit(s, chat, person(first), Command::Start).await;
    created.table.unwrap()
}

fn actor_for(t: &Table, seat: Seat) -> Actor {
    match &t.seats()[seat] {
        SeatState::Person {
            player,
            away: false,
        } => Actor::person(player.clone()),
        _ => Actor::Ai,
    }
}

/// Plays random legal moves (as the seats' owners, by button presses that
/// carry the table id and version) until the series ends. Returns the moves.
async fn play_to_end(s: &TableService, id: TableId, seed: u64) -> u32 {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut moves = 0;
    loop {
        let t = s.table(id).await.unwrap().unwrap();
        if t.phase() != Phase::Playing {
            return moves;
        }
        let seat = t.awaiting()[0];
        let legal = t.game().unwrap().legal_actions(seat);
        let action = legal[rng.random_range(0..legal.len())];
        let key = format!("cb-{id}-{}", t.version());
        let cmd = Command::Act {
            seat,
            action,
            version: t.version(),
        };
        let ack = s
            .submit(request(
                Target::Table(id),
                actor_for(&t, seat),
                cmd,
                Some(&key),
            ))
            .await
            .unwrap();
        assert!(!ack.duplicate);
        assert!(ack.version > t.version());
        moves += 1;
        assert!(moves < 5_000, "the series does not end");
    }
}

async fn assert_log_replays(store: &dyn TableStore, id: TableId) {
    let snapshot = store.table(id).await.unwrap().unwrap();
    let replayed = store.replay(id).await.unwrap().unwrap();
    assert_eq!(
        replayed, snapshot,
        "table {id}: the log replays to the snapshot"
    );
    assert_eq!(
        serde_json::to_string(&replayed).unwrap(),
        serde_json::to_string(&snapshot).unwrap()
    );
}

fn drain(rx: &mut UnboundedReceiver<Output>) -> Vec<Output> {
    let mut v = Vec::new();
    while let Ok(e) = rx.try_recv() {
        v.push(e);
    }
    v
}

#[tokio::test]
async fn a_table_lives_from_lobby_through_a_series_to_a_rematch() {
    let dir = tempfile::tempdir().unwrap();
    let (s, mut fx) = start(&db_url(&dir), None, ServiceOptions::default()).await;
    let c = chat("-100");
    let id = open_full_table(&s, &c, 1, no_timer()).await;
    let moves = play_to_end(&s, id, 1).await;
    assert!(moves > 20);
    let t = s.table(id).await.unwrap().unwrap();
    assert_eq!(t.phase(), Phase::Finished);
    assert!(t.game().unwrap().is_over());
    let effects = drain(&mut fx);
    let series_over = effects.iter().any(|e| {
        matches!(
            e,
            Output::Announce {
                announcement: Announcement::Game {
                    milestone: Milestone::Series,
                    ..
                },
                ..
            }
        )
    });
    assert!(series_over, "the end of the series is announced");
    let last_table = effects.iter().rev().find_map(|e| match e {
        Output::RenderTable(v) => Some(v),
        _ => None,
    });
    assert_eq!(last_table.unwrap().phase, Phase::Finished);
    assert_log_replays(s.storage(), id).await;

    // The series counts for the chat and for each person, in one transaction with it.
    let kozyr::game::Game::Kozel(series) = t.game().unwrap() else {
        panic!("a Kozel game")
    };
    let deals = series.results().len() as i64;
    let eggs = series.results().iter().filter(|r| r.eggs).count() as i64;
    let board = s
        .storage()
        .leaderboard(&c, GameKind::Kozel, 10)
        .await
        .unwrap();
    assert_eq!(board.len(), 4);
    for p in &board {
        let n = &p.counters;
        assert_eq!(
            (n.series_played, n.deals_played, n.eggs_deals),
            (1, deals, eggs)
        );
        assert_eq!(n.series_won + n.series_lost, 1);
        assert_eq!(n.goat, n.series_lost, "the losers are the goat");
        assert!(p.name.as_deref().unwrap().starts_with("Player "));
    }
    // Winners first: the two partners who won.
    let winners: Vec<bool> = board.iter().map(|p| p.counters.series_won == 1).collect();
    assert_eq!(winners, [true, true, false, false]);
    // The chat's and a person's totals are reads of SQLite's alone (no
    // PostgreSQL counterpart: the leaderboard above is both backends').
    if let Some(sqlite) = sqlite_of(s.storage()) {
        let totals = sqlite.chat_totals(&c).await.unwrap();
        assert_eq!(
            totals,
            vec![(
                GameKind::Kozel,
                kozyr::table::Counters {
                    series_played: 1,
                    deals_played: deals,
                    eggs_deals: eggs,
                    ..Default::default()
                }
            )]
        );
        let mine = sqlite
            .player_totals(Platform::Telegram, &UserId::new("1").unwrap())
            .await
            .unwrap();
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0].counters.series_played, 1);
    }

    // Rematch: the same seats, series 2.
    let ack = submit(&s, &c, person(3), Command::Rematch).await;
    assert!(matches!(
        ack.events[0],
        TableEvent::SeriesStarted { series_no: 2, .. }
    ));
    play_to_end(&s, id, 2).await;
    assert_eq!(s.table(id).await.unwrap().unwrap().series_no(), 2);
    assert_log_replays(s.storage(), id).await;

    // A new table closes the finished one; stop closes that one.
    let ack = submit(
        &s,
        &c,
        person(2),
        Command::Create {
            kind: GameKind::Kozel,
            settings: no_timer(),
            title: "again".into(),
            sit: false,
        },
    )
    .await;
    let second = ack.table.unwrap();
    assert_ne!(second, id);
    assert_eq!(s.table(id).await.unwrap().unwrap().phase(), Phase::Closed);
    let old_button = Command::Act {
        seat: Seat::ALL[0],
        action: kozyr::game::GameAction::Kozel(kozyr::kozel::Action::Molodka),
        version: 1,
    };
    let r = s
        .submit(request(Target::Table(id), person(1), old_button, None))
        .await;
    assert_eq!(rejection(r), TableError::TableClosed);
    submit(&s, &c, person(2), Command::Stop).await;
    assert!(s.open_table(&c).await.unwrap().is_none());
    assert_log_replays(s.storage(), id).await;
    assert_log_replays(s.storage(), second).await;
}

#[tokio::test]
async fn repeated_deliveries_apply_once_and_old_presses_are_stale() {
    let dir = tempfile::tempdir().unwrap();
    let (s, _fx) = start(&db_url(&dir), None, ServiceOptions::default()).await;
    let c = chat("-200");
    let create = request(
        Target::Chat(c.clone()),
        person(1),
        Command::Create {
            kind: GameKind::Kozel,
            settings: no_timer(),
            title: "dups".into(),
            sit: true,
        },
        Some("update-1"),
    );
    let first = s.submit(create.clone()).await.unwrap();
    let again = s.submit(create).await.unwrap();
    assert!(again.duplicate);
    assert_eq!(
        (again.table, again.version, &again.events),
        (first.table, first.version, &first.events)
    );
    let id = first.table.unwrap();
    for i in 2..=4 {
        submit(&s, &c, person(i), Command::Join { seat: None }).await;
    }
    submit(&s, &c, person(1), Command::Start).await;

    let t = s.table(id).await.unwrap().unwrap();
    let seat = t.awaiting()[0];
    let action = t.game().unwrap().legal_actions(seat)[0];
    let press = |key: &str, version| {
        request(
            Target::Table(id),
            actor_for(&t, seat),
            Command::Act {
                seat,
                action,
                version,
            },
            Some(key),
        )
    };
    let ack = s.submit(press("cb-1", t.version())).await.unwrap();
    let double_tap = s.submit(press("cb-1", t.version())).await.unwrap();
    assert!(double_tap.duplicate);
    assert_eq!(double_tap.version, ack.version);
    assert_eq!(double_tap.events, ack.events);
    // The same button pressed again is a new callback: stale.
    let stale = s.submit(press("cb-2", t.version())).await;
    assert_eq!(
        rejection(stale),
        TableError::StaleVersion {
            expected: t.version(),
            current: ack.version
        }
    );
    let now = s.table(id).await.unwrap().unwrap();
    assert_eq!(now.version(), ack.version);
    let acted = s
        .storage()
        .events(id)
        .await
        .unwrap()
        .into_iter()
        .filter(|(_, e)| matches!(e, TableEvent::Acted { .. }))
        .count();
    assert_eq!(acted, 1, "applied once");
    // A press from someone not at the table.
    let foreign = request(
        Target::Table(id),
        person(99),
        Command::Act {
            seat,
            action,
            version: now.version(),
        },
        Some("cb-3"),
    );
    assert_eq!(rejection(s.submit(foreign).await), TableError::NotYourSeat);
    assert_eq!(s.storage().recorded("cb-3").await.unwrap(), None);
    assert_log_replays(s.storage(), id).await;
}

#[tokio::test]
async fn two_tables_play_in_parallel() {
    let dir = tempfile::tempdir().unwrap();
    let (s, _fx) = start(&db_url(&dir), None, ServiceOptions::default()).await;
    let (a, b) = (chat("-301"), chat("-302"));
    let (ta, tb) = tokio::join!(
        open_full_table(&s, &a, 10, no_timer()),
        open_full_table(&s, &b, 20, no_timer())
    );
    let (sa, sb) = (s.clone(), s.clone());
    let ha = tokio::spawn(async move { play_to_end(&sa, ta, 5).await });
    let hb = tokio::spawn(async move { play_to_end(&sb, tb, 6).await });
    let (ma, mb) = (ha.await.unwrap(), hb.await.unwrap());
    assert!(ma > 0 && mb > 0);
    for id in [ta, tb] {
        assert_eq!(s.table(id).await.unwrap().unwrap().phase(), Phase::Finished);
        assert_log_replays(s.storage(), id).await;
    }
}

async fn wait_for(s: &TableService, id: TableId, what: impl Fn(&Table) -> bool) -> Table {
    for _ in 0..2_000 {
        let t = s.table(id).await.unwrap().unwrap();
        if what(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    panic!("table {id} never got there");
}

#[tokio::test]
async fn ai_players_move_and_timeouts_hand_a_seat_over() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(Timestamp::from_millis(1_000_000));
    let (s, mut fx) = start(
        &db_url(&dir),
        Some(clock.clone()),
        ServiceOptions::default(),
    )
    .await;
    let c = chat("-400");
    let id = submit(
        &s,
        &c,
        person(1),
        Command::Create {
            kind: GameKind::Kozel,
            settings: Settings::default(),
            title: "ai".into(),
            sit: true,
        },
    )
    .await
    .table
    .unwrap();
    for _ in 0..3 {
        submit(&s, &c, person(1), Command::AddAi { seat: None }).await;
    }
    submit(&s, &c, person(1), Command::Start).await;
    let me = Seat::ALL[0];
    let mut timeouts = 0;
    let mut rounds = 0;
    while timeouts < 3 {
        rounds += 1;
        assert!(rounds < 100, "the person's turn kept moving on");
        let t = wait_for(&s, id, |t| {
            t.phase() != Phase::Playing || t.awaiting() == [me]
        })
        .await;
        if t.phase() != Phase::Playing {
            submit(&s, &c, person(1), Command::Rematch).await;
            continue;
        }
        let armed = s.armed_timers();
        // An AI player may declare a molodka out of turn at any moment
        // (asked after every change): the turn, and its deadline, then
        // move on under the test, which reads again.
        if s.table(id).await.unwrap().unwrap().version() != t.version() {
            continue;
        }
        assert_eq!(armed, vec![(id, t.deadline().unwrap())]);
        clock.set(t.deadline().unwrap());
        let acks = s.fire_due_timers().await;
        assert_eq!(acks.len(), 1);
        let ack = match acks.into_iter().next().unwrap() {
            Ok(ack) => ack,
            // The same race after the check: the timer fired for a turn
            // that had moved on, and is refused as stale, as it must be.
            Err(e) if e.rejection() == Some(&TableError::TimerNotDue) => continue,
            Err(e) => panic!("the timeout failed: {e}"),
        };
        assert!(
            matches!(ack.events[0], TableEvent::Acted { seat, by: Mover::Timeout, .. } if seat == me)
        );
        timeouts += 1;
        let handed = ack
            .events
            .iter()
            .any(|e| matches!(e, TableEvent::HandedToAi { .. }));
        assert_eq!(handed, timeouts == 3);
    }
    // The AI now plays seat 0 too: the game runs on without the person.
    let before = s.table(id).await.unwrap().unwrap().version();
    let t = wait_for(&s, id, |t| {
        t.version() > before + 8 || t.phase() != Phase::Playing
    })
    .await;
    assert!(t.seats()[me].ai_controlled());
    let effects = drain(&mut fx);
    assert!(effects.iter().any(|e| matches!(
        e,
        Output::Announce {
            announcement: Announcement::HandedToAi { .. },
            ..
        }
    )));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Output::RenderHand(h) if h.away))
    );
    if t.phase() == Phase::Playing {
        submit(&s, &c, person(1), Command::TakeBack).await;
        let t = s.table(id).await.unwrap().unwrap();
        assert!(!t.seats()[me].ai_controlled());
    }
    s.shutdown().await;
    assert!(s.armed_timers().is_empty());
}

#[tokio::test]
async fn a_restart_renders_open_tables_and_rearms_their_timers() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(Timestamp::from_millis(1_000_000));
    // AI players think for an hour: one is still thinking at the restart.
    let slow_ai = ServiceOptions {
        ai_delay: Duration::from_secs(3600),
        ..ServiceOptions::default()
    };
    let (s, _fx) = start(&db_url(&dir), Some(clock.clone()), slow_ai).await;
    let (c1, c2, c3) = (chat("-501"), chat("-502"), chat("-503"));
    let timed = open_full_table(&s, &c1, 1, Settings::default()).await;
    let with_ai = open_full_table(&s, &c2, 5, no_timer()).await;
    let lobby = submit(
        &s,
        &c3,
        person(9),
        Command::Create {
            kind: GameKind::Kozel,
            settings: no_timer(),
            title: "lobby".into(),
            sit: true,
        },
    )
    .await
    .table
    .unwrap();
    // The person whose turn it is leaves: an AI player takes the seat and owes a move.
    let t = s.table(with_ai).await.unwrap().unwrap();
    let seat = t.awaiting()[0];
    let leaver = actor_for(&t, seat);
    submit(&s, &c2, leaver, Command::Leave).await;
    let deadline = s.table(timed).await.unwrap().unwrap().deadline().unwrap();
    s.shutdown().await;
    s.storage().close().await;
    drop(s);

    clock.set(deadline.plus_secs(3600));
    let (s, mut fx) = start(
        &db_url(&dir),
        Some(clock.clone()),
        ServiceOptions::default(),
    )
    .await;
    let first = drain(&mut fx);
    let rendered: Vec<TableId> = first
        .iter()
        .filter_map(|e| match e {
            Output::RenderTable(v) => Some(v.id),
            _ => None,
        })
        .collect();
    // Each open table is rendered at the start, in order. The owed AI move
    // runs at once (no delay now) and, on a backend whose queries yield to
    // other tasks (PostgreSQL), may already have rendered its table again,
    // even before the next table's first render (CI saw [1, 2, 2, 3]).
    let mut firsts = Vec::new();
    for &t in &rendered {
        if !firsts.contains(&t) {
            firsts.push(t);
        }
    }
    assert_eq!(firsts, vec![timed, with_ai, lobby], "{rendered:?}");
    assert_eq!(
        rendered.iter().filter(|&&t| t != with_ai).count(),
        2,
        "only the AI's table renders again: {rendered:?}"
    );
    let hands = first
        .iter()
        .filter(|e| matches!(e, Output::RenderHand(h) if h.table == timed))
        .count();
    assert_eq!(hands, 4);
    // The timer comes back with its stored deadline (long past: it runs out
    // after the grace period, and the first timeout is accepted).
    assert_eq!(s.armed_timers(), vec![(timed, deadline)]);
    let acks = s.fire_due_timers().await;
    assert!(matches!(&acks[0], Ok(a) if a.table == Some(timed)));
    // The owed AI move is made.
    let t = wait_for(&s, with_ai, |t| t.awaiting() != [seat]).await;
    assert!(t.version() > 0);
    assert_log_replays(s.storage(), timed).await;
    assert_log_replays(s.storage(), with_ai).await;
}

/// Only a deadline that passed while nothing was serving waits for the
/// grace after a restart; one still ahead fires on time (issue 29: a grace
/// for every timer made a timer due 6 s after a restart fire 4 s late).
#[tokio::test]
async fn after_a_restart_only_overdue_timers_get_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(Timestamp::from_millis(1_000_000));
    let (s, _fx) = start(
        &db_url(&dir),
        Some(clock.clone()),
        ServiceOptions::default(),
    )
    .await;
    let timer = |secs| Settings {
        turn_timer: TurnTimer::from_secs(secs),
        ..Settings::default()
    };
    let overdue = open_full_table(&s, &chat("-521"), 1, timer(15)).await;
    let ahead = open_full_table(&s, &chat("-522"), 11, timer(120)).await;
    let deadline_of = |t: Option<Table>| t.unwrap().deadline().unwrap();
    let overdue_deadline = deadline_of(s.table(overdue).await.unwrap());
    let ahead_deadline = deadline_of(s.table(ahead).await.unwrap());
    s.shutdown().await;
    s.storage().close().await;
    drop(s);

    // The service comes back 6 s before the second table's deadline.
    let restart = ahead_deadline.plus_millis(-6_000);
    assert!(overdue_deadline < restart);
    clock.set(restart);
    let (s, _fx) = start(
        &db_url(&dir),
        Some(clock.clone()),
        ServiceOptions {
            overdue_grace: Duration::from_secs(10),
            ..ServiceOptions::default()
        },
    )
    .await;
    assert_eq!(
        s.timer_fire_times(),
        vec![(overdue, restart.plus_secs(10)), (ahead, ahead_deadline)]
    );
}

#[tokio::test]
async fn idle_chats_leave_memory_and_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let (s, _fx) = start(&db_url(&dir), None, ServiceOptions::default()).await;
    let c = chat("-600");
    let id = open_full_table(&s, &c, 1, no_timer()).await;
    assert_eq!(s.evict_idle(Duration::from_secs(3600)), 1);
    assert_eq!(s.evict_idle(Duration::ZERO), 0);
    let moves = play_to_end(&s, id, 3).await;
    assert!(moves > 0);
    assert_log_replays(s.storage(), id).await;
}

#[tokio::test]
async fn a_migrated_chat_keeps_its_table_and_history() {
    let dir = tempfile::tempdir().unwrap();
    let (s, _fx) = start(&db_url(&dir), None, ServiceOptions::default()).await;
    let (old, new) = (chat("-700"), chat("-1000700"));
    let first = open_full_table(&s, &old, 1, no_timer()).await;
    play_to_end(&s, first, 9).await;
    // A new table supersedes the finished one.
    let second = open_full_table(&s, &old, 1, no_timer()).await;
    let r = s
        .submit(request(
            Target::Chat(old.clone()),
            person(1),
            Command::MigrateChat { to: new.clone() },
            None,
        ))
        .await;
    assert_eq!(rejection(r), TableError::NotAllowed);
    let ack = submit(
        &s,
        &old,
        Actor::System,
        Command::MigrateChat { to: new.clone() },
    )
    .await;
    assert_eq!(ack.table, Some(second));
    assert!(s.open_table(&old).await.unwrap().is_none());
    assert_eq!(s.open_table(&new).await.unwrap().unwrap().id(), second);
    let (history_chat, _) = s.storage().chat_of(first).await.unwrap().unwrap();
    assert_eq!(history_chat, new);
    // So do the statistics.
    let board = |c: &ChatKey| {
        let (s, c) = (s.clone(), c.clone());
        async move {
            s.storage()
                .leaderboard(&c, GameKind::Kozel, 10)
                .await
                .unwrap()
        }
    };
    assert!(board(&old).await.is_empty());
    assert_eq!(board(&new).await.len(), 4);
    if let Some(sqlite) = sqlite_of(s.storage()) {
        assert!(sqlite.chat_totals(&old).await.unwrap().is_empty());
    }
    play_to_end(&s, second, 4).await;
    assert!(
        board(&new)
            .await
            .iter()
            .all(|p| p.counters.series_played == 2)
    );
    assert_log_replays(s.storage(), second).await;
}

#[tokio::test]
async fn a_whole_hearts_game_through_commands() {
    let dir = tempfile::tempdir().unwrap();
    let (s, mut fx) = start(&db_url(&dir), None, ServiceOptions::default()).await;
    let c = chat("-800");
    let mut settings = no_timer();
    // A short game keeps the test quick; the option travels with the table.
    settings.options.hearts.end_score = 30;
    let id = submit(
        &s,
        &c,
        person(1),
        Command::Create {
            kind: GameKind::Hearts,
            settings,
            title: "copas".into(),
            sit: true,
        },
    )
    .await
    .table
    .unwrap();
    for i in 2..=4 {
        submit(&s, &c, person(i), Command::Join { seat: None }).await;
    }
    submit(&s, &c, person(1), Command::Start).await;
    // While passing, all four seats are awaited at once; play_to_end picks the first.
    assert_eq!(s.table(id).await.unwrap().unwrap().awaiting().len(), 4);
    let moves = play_to_end(&s, id, 8).await;
    let t = s.table(id).await.unwrap().unwrap();
    assert_eq!(t.phase(), Phase::Finished);
    let kozyr::game::Game::Hearts(game) = t.game().unwrap() else {
        panic!("a Hearts game")
    };
    assert!(game.totals().0.iter().any(|&p| p >= 30));
    assert_eq!(
        moves as usize,
        game.results().len() * (52 + 4) - passless(game.results().len())
    );
    assert!(drain(&mut fx).iter().any(|e| matches!(
        e,
        Output::Announce {
            announcement: Announcement::Game {
                milestone: Milestone::Series,
                ..
            },
            ..
        }
    )));
    assert_log_replays(s.storage(), id).await;

    // Statistics: a game each, the final scores as points, the winner(s) first.
    let board = s
        .storage()
        .leaderboard(&c, GameKind::Hearts, 10)
        .await
        .unwrap();
    assert_eq!(board.len(), 4);
    let ranking = game.ranking().unwrap();
    for p in &board {
        let seat = t.seat_of(&p.user).unwrap();
        let standing = ranking.iter().find(|r| r.seat == seat).unwrap();
        assert_eq!(p.counters.series_played, 1);
        assert_eq!(p.counters.series_won, i64::from(standing.place == 1));
        assert_eq!(p.counters.average_points(), Some(f64::from(standing.total)));
        assert_eq!(p.counters.deals_played, game.results().len() as i64);
    }
    // Records: one per deal, in the simulator's Hearts format.
    let records = s.storage().deal_records(id).await.unwrap();
    assert_eq!(records.len(), game.results().len());
    let json: Vec<serde_json::Value> = records
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    for (i, r) in json.iter().enumerate() {
        assert_eq!(r["game"], "hearts");
        assert_eq!(r["deal"].as_u64(), Some(i as u64 + 1));
        assert_eq!(r["events"].as_array().unwrap().len(), 52 + 13);
        assert_eq!(r["game_over"], i + 1 == json.len());
    }
    assert_eq!(
        json.last().unwrap()["total_points"],
        serde_json::json!(game.totals())
    );
}

/// Deals 4, 8, … of a Hearts game have no passing: four moves fewer each.
fn passless(deals: usize) -> usize {
    deals / 4 * 4
}

/// An AI player that fails in both ways an agent can: it panics on some
/// calls and answers an illegal move on others.
struct BrokenAgent(std::sync::atomic::AtomicU32);

impl kozyr::table::runtime::SeatAgent for BrokenAgent {
    fn choose(
        &self,
        _seen: &kozyr::ai::Observation,
        _legal: &[kozyr::game::GameAction],
    ) -> kozyr::game::GameAction {
        if self
            .0
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            .is_multiple_of(2)
        {
            panic!("the agent broke");
        }
        kozyr::game::GameAction::Hearts(kozyr::hearts::Action::Play("2C".parse().unwrap()))
    }
}

#[tokio::test]
async fn a_broken_ai_player_still_moves() {
    let dir = tempfile::tempdir().unwrap();
    let store = TestStore::open(&db_url(&dir)).await;
    let (s, _fx) = TableService::builder(store.shared())
        .agent(Arc::new(BrokenAgent(Default::default())))
        .start()
        .await
        .unwrap();
    let c = chat("-900");
    let id = submit(
        &s,
        &c,
        person(1),
        Command::Create {
            kind: GameKind::Kozel,
            settings: no_timer(),
            title: "broken".into(),
            sit: true,
        },
    )
    .await
    .table
    .unwrap();
    for _ in 0..3 {
        submit(&s, &c, person(1), Command::AddAi { seat: None }).await;
    }
    submit(&s, &c, person(1), Command::Start).await;
    // The person plays their turns; the AI seats must keep moving.
    let ai_moves = async || {
        s.storage()
            .events(id)
            .await
            .unwrap()
            .iter()
            .filter(|(_, e)| matches!(e, TableEvent::Acted { by: Mover::Ai, .. }))
            .count()
    };
    while ai_moves().await < 6 {
        let t = wait_for(&s, id, |t| t.awaiting() == [Seat::ALL[0]]).await;
        let action = t.game().unwrap().safe_action(Seat::ALL[0]).unwrap();
        let act = Command::Act {
            seat: Seat::ALL[0],
            action,
            version: t.version(),
        };
        s.submit(request(Target::Table(id), person(1), act, None))
            .await
            .unwrap();
    }
}

/// A known deal (series seed 395: seat 0 leads, seat 3 holds four cards of
/// a suit): the AI player at seat 3 declares its molodka out of turn
/// before anybody moves, and then the person at seat 0 is awaited no more.
#[tokio::test]
async fn an_ai_player_declares_a_molodka_out_of_turn() {
    let dir = tempfile::tempdir().unwrap();
    let store = TestStore::open(&db_url(&dir)).await;
    let options = ServiceOptions {
        seed: Some(395),
        ..ServiceOptions::default()
    };
    let agent = kozyr::ai::TableAgent::of(
        kozyr::ai::AgentKind::Heuristic,
        kozyr::ai::AgentConfig::default(),
    );
    let (s, _fx) = TableService::builder(store.shared())
        .options(options)
        .agent(Arc::new(agent))
        .start()
        .await
        .unwrap();
    let c = chat("-9395");
    let created = submit(
        &s,
        &c,
        person(1),
        Command::Create {
            kind: GameKind::Kozel,
            settings: no_timer(),
            title: "molodka".into(),
            sit: true,
        },
    )
    .await;
    let id = created.table.unwrap();
    for i in 2..=3 {
        submit(&s, &c, person(i), Command::Join { seat: None }).await;
    }
    submit(&s, &c, person(1), Command::AddAi { seat: None }).await;
    let started = submit(&s, &c, person(1), Command::Start).await;
    let t = s.table(id).await.unwrap().unwrap();
    let ai = Seat::new(3).unwrap();
    assert_eq!(t.seats()[ai], SeatState::Ai);
    assert_eq!(t.awaiting(), vec![Seat::new(0).unwrap()], "a person leads");
    let t = crate::support::eventually(
        Duration::from_secs(10),
        Duration::from_millis(5),
        "the AI player never declared its molodka",
        || async {
            let t = s.table(id).await.unwrap().unwrap();
            (t.version() > started.version).then_some(t)
        },
    )
    .await;
    assert_eq!(t.version(), started.version + 1, "one move: the molodka");
    let lead = t.trick();
    assert_eq!(lead.len(), 1);
    assert_eq!(lead[0].seat, ai);
    assert!(matches!(lead[0].cards, kozyr::table::TrickCards::FaceUp(c) if c.len() == 4));
    assert!(!t.awaiting().contains(&ai), "the others answer the molodka");
    s.shutdown().await;
}
