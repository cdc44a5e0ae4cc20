//! The whole bot on PostgreSQL (`DATABASE_URL=postgres://…`, a throwaway
//! server from `support::postgres`): a Kozel deal and a Hearts deal
//! through the fake Telegram; SIGKILLs of the bot mid-deal, the game going
//! on after each restart; and an admin's move from SQLite, `kozyr
//! copy-store` with the bot stopped mid-deal, after which the bot carries
//! on with the copy. The admin tools on PostgreSQL: `export` writes what it
//! writes on SQLite, `backup` points to `pg_dump`, `copy-store` refuses a
//! target that is not empty.

use kozyr::store::Queries;
use std::time::Duration;

use kozyr::game::{GameKind, GameView};
use kozyr::store::{Opened, PgStore, StoreOptions};
use kozyr::table::{Mover, Phase, Table, TableEvent};
use kozyr_loadtest::{Driver, deal_no};
use kozyr_test_kit::fakebot::FakeBotConfig;

use crate::support::play::Play;
use crate::support::postgres::fresh_url;
use crate::support::store::sqlite_url;
use crate::support::telegram::{KillWorld, Setup, World, is_child, parent_runtime, run_child_bot};
use crate::support::{fast_tuning, kozyr, run_to_end};

async fn world_on(url: &str) -> World {
    World::with(Setup {
        database: Some(url.to_owned()),
        ..Setup::default()
    })
    .await
}

/// The group was told the deal is over.
async fn deal_result_shown(w: &World) {
    w.fake
        .wait_for(w.wait, |f| {
            f.messages(w.group)
                .iter()
                .any(|m| m.text.contains("Deal") && m.text.contains("over"))
                .then_some(())
        })
        .await
        .expect("the deal's result in the group");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kozel_deal_through_telegram_on_postgres() {
    let url = fresh_url();
    let mut w = world_on(&url).await;
    let id = w.open("/kozel", false).await;
    w.finish_deal(id).await;
    deal_result_shown(&w).await;
    let live = w.table(id).await;
    // The metrics' gauge of open tables counts on PostgreSQL too.
    let counter = Opened::open_existing(&StoreOptions::new(&url))
        .await
        .unwrap()
        .table_counter();
    let counted = counter().await.unwrap();
    assert!(
        counted.contains(&("telegram", live.phase().as_str(), 1)),
        "{counted:?}"
    );
    w.stop().await;
    // What the bot played is in PostgreSQL: the table, its log, the stats.
    let pg = PgStore::open_existing(&StoreOptions::new(&url))
        .await
        .unwrap();
    let stored = pg.table(id).await.unwrap().unwrap();
    assert_eq!(stored, live);
    assert_eq!(pg.replay(id).await.unwrap().as_ref(), Some(&stored));
    let board = pg
        .leaderboard(stored.chat(), GameKind::Kozel, 10)
        .await
        .unwrap();
    assert_eq!(board.len(), 4, "{board:?}");
    assert!(board.iter().all(|p| p.counters.deals_played == 1));
    pg.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hearts_deal_through_telegram_on_postgres() {
    let url = fresh_url();
    let mut w = world_on(&url).await;
    let id = w.open("/hearts", false).await;
    w.finish_deal(id).await;
    deal_result_shown(&w).await;
    let t = w.table(id).await;
    let GameView::Hearts(v) = t.game().unwrap().public_view() else {
        panic!("a Hearts table")
    };
    assert_eq!(v.totals.iter().map(|(_, p)| *p).sum::<u32>(), 26);
    w.stop().await;
    let pg = PgStore::open_existing(&StoreOptions::new(&url))
        .await
        .unwrap();
    assert_eq!(pg.table(id).await.unwrap().as_ref(), Some(&t));
    pg.close().await;
}

// ------------------------------------------------------------ SIGKILL --

const KILL_TEST: &str = "postgres_e2e::sigkill_of_the_bot_on_postgres_loses_and_repeats_no_move";
const KILLS: u32 = 3;

/// The bot in a child process on PostgreSQL, killed with SIGKILL while
/// moves are pressed and started again: the deal goes on to its end with
/// every acknowledged move in the log exactly once.
#[test]
fn sigkill_of_the_bot_on_postgres_loses_and_repeats_no_move() {
    if is_child() {
        run_child_bot(fast_tuning());
        return;
    }
    parent_runtime().block_on(async {
        let mut world = KillWorld::new(FakeBotConfig::default(), 0).await;
        let url = fresh_url();
        for (k, v) in &mut world.env {
            if *k == "DATABASE_URL" {
                *v = url.clone();
            }
        }
        world.url = url.clone();
        let mut bot = Some(world.start(KILL_TEST).await);
        let pg = PgStore::open_existing(&StoreOptions::new(&url))
            .await
            .expect("the bot made the schema");
        let mut driver = Driver::new(world.fake.clone(), "Pg");
        driver.patience = Duration::from_secs(5);
        driver.open_kozel_table().await.expect("the table starts");
        let table = async |pg: &PgStore| {
            pg.open_table(&driver.chat_key())
                .await
                .expect("read")
                .expect("an open table")
        };
        let first = table(&pg).await;
        let (id, deal) = (first.id(), deal_no(&first));
        let mut acked = Vec::new();
        let (mut kills, mut moves) = (0, 0u32);
        loop {
            let t = table(&pg).await;
            if t.phase() != Phase::Playing || deal_no(&t) != deal {
                break;
            }
            moves += 1;
            let seat = t.awaiting()[0];
            let d = driver.clone();
            let tt = t.clone();
            let play = tokio::spawn(async move { d.play_safe(&tt, Duration::ZERO).await });
            if kills < KILLS && moves % 5 == 3 {
                tokio::time::sleep(Duration::from_millis(u64::from(moves % 4) * 10)).await;
                bot.take().expect("running").kill();
                kills += 1;
                bot = Some(world.start(KILL_TEST).await);
            }
            match play.await.expect("join") {
                Ok(v) => acked.push((v, seat)),
                Err(e) => eprintln!("move at v{} interrupted: {e}", t.version()),
            }
            assert!(moves < 300, "the deal does not end");
        }
        assert_eq!(kills, KILLS);
        let acts: Vec<(u64, kozyr::cards::Seat, Mover)> = pg
            .events(id)
            .await
            .expect("events")
            .into_iter()
            .filter_map(|(v, e)| match e {
                TableEvent::Acted { seat, by, .. } => Some((v, seat, by)),
                _ => None,
            })
            .collect();
        for (v, seat) in &acked {
            let next = acts.iter().find(|a| a.0 > *v).expect("an acted event");
            assert_eq!(
                (next.1, next.2),
                (*seat, Mover::Person),
                "the move acknowledged at v{v} is the next in the log, once"
            );
        }
        let end: Table = pg.table(id).await.expect("read").expect("table");
        assert_eq!(pg.replay(id).await.expect("replay").as_ref(), Some(&end));
        world
            .fake
            .wait_for(Duration::from_secs(10), |f| {
                f.unanswered_callbacks().is_empty().then_some(())
            })
            .await
            .expect("every press answered");
        bot.take().expect("running").kill();
        pg.close().await;
    });
}

// --------------------------------------------------------- copy-store --

/// An admin moves a bot stopped mid-deal from SQLite to PostgreSQL; the
/// bot, started on the copy, carries the deal on from where it stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_store_moves_a_bot_mid_deal_and_the_game_goes_on() {
    // From SQLite whatever the tests' backend: the move is from SQLite.
    let source = tempfile::tempdir().unwrap();
    let sqlite = sqlite_url(source.path());
    let mut w = world_on(&sqlite).await;
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;
    for _ in 0..6 {
        t = w.play(&t).await;
    }
    let before = t.clone();
    w.stop().await;

    let pg = fresh_url();
    let chat = format!("telegram:{}", w.group.0);
    let tools = tempfile::tempdir().unwrap();
    let run =
        |args: &[&str], url: &str| run_to_end(kozyr(tools.path(), args, &[("DATABASE_URL", url)]));
    let out = run(&["copy-store", "--from", &sqlite, "--to", &pg], &sqlite);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("copied tables 1, table_events "), "{said}");
    assert!(
        said.contains("the exports of 1 chats (1 deals) are the same in both"),
        "{said}"
    );

    // The same export from either database.
    let export = |url: &str, name: &str| {
        let out = run(
            &["export", "--chat", &chat, "--with-current", "--out", name],
            url,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read(tools.path().join(name)).unwrap()
    };
    let from_sqlite = export(&sqlite, "sqlite.jsonl");
    assert!(!from_sqlite.is_empty());
    assert_eq!(export(&pg, "pg.jsonl"), from_sqlite);

    // A second copy into the now filled database is refused, and changes nothing.
    let out = run(&["copy-store", "--from", &sqlite, "--to", &pg], &sqlite);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the target database is not empty (tables 1,"),
        "{err}"
    );
    // `backup` on PostgreSQL says to use pg_dump, and writes nothing.
    let out = run(&["backup", "--out", "b.db"], &pg);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("use pg_dump"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!tools.path().join("b.db").exists());

    // The bot on the copy: the same table, and the deal goes on.
    w.database = Some(pg.clone());
    w.start().await;
    assert_eq!(w.table(id).await, before);
    w.finish_deal(id).await;
    deal_result_shown(&w).await;
    let after = w.table(id).await;
    assert!(after.version() > before.version());
    assert!(deal_no(&after) > deal_no(&before) || after.phase() != Phase::Playing);
    w.stop().await;
    let store = PgStore::open_existing(&StoreOptions::new(&pg))
        .await
        .unwrap();
    let log = store.events(id).await.unwrap();
    assert_eq!(log.len() as u64, after.version(), "one gapless log");
    assert_eq!(store.replay(id).await.unwrap().as_ref(), Some(&after));
    // A table opened on the copy gets an id past every copied one.
    assert!(store.next_table_id().await.unwrap().0 > id.0);
    store.close().await;
}
