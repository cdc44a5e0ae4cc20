use super::*;
use crate::Queries;
use kozyr_game::GameKind;
use kozyr_table::{
    Actor, Command, Context, Lang, Player, Settings, Timestamp, Transition, UserId, decide,
};

fn chat(id: &str) -> ChatKey {
    ChatKey::new(Platform::Telegram, id).unwrap()
}

fn person(i: u32) -> Actor {
    Actor::person(Player::new(
        UserId::new(i.to_string()).unwrap(),
        "P",
        Lang::En,
    ))
}

fn ctx(id: i64) -> Context {
    Context {
        now: Timestamp::from_millis(5_000),
        seed: 1,
        new_table_id: TableId(id),
    }
}

async fn open(dir: &tempfile::TempDir) -> Store {
    let url = format!("sqlite://{}", dir.path().join("kozyr.db").display());
    Store::open(&StoreOptions::new(url)).await.unwrap()
}

fn create(chat: &ChatKey, id: i64) -> Transition {
    let cmd = Command::Create {
        kind: GameKind::Kozel,
        settings: Settings::default(),
        title: "t".into(),
        sit: true,
    };
    decide(None, chat, &person(1), &cmd, &ctx(id)).unwrap()
}

fn join(table: &Table, who: u32) -> Transition {
    decide(
        Some(table),
        table.chat(),
        &person(who),
        &Command::Join { seat: None },
        &ctx(0),
    )
    .unwrap()
}

#[tokio::test]
async fn opening_creates_a_durable_wal_database() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    assert!(dir.path().join("kozyr.db").exists());
    let mut conn = store.reader.acquire().await.unwrap();
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    let sync: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    let busy: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    assert_eq!((mode.as_str(), sync, busy), ("wal", 2, 5000));
    drop(conn);
    // Opening again applies nothing new and keeps the data.
    let c = chat("-1");
    store
        .commit(&create(&c, 1), None, Timestamp::from_millis(1))
        .await
        .unwrap();
    store.close().await;
    let store = open(&dir).await;
    assert_eq!(
        store.open_table(&c).await.unwrap().unwrap().id(),
        TableId(1)
    );
}

#[tokio::test]
async fn commits_are_checked_against_the_stored_version() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let c = chat("-1");
    let now = Timestamp::from_millis(1);
    let created = create(&c, 7);
    store.commit(&created, Some("u1"), now).await.unwrap();
    let t0 = created.open_table().unwrap().clone();
    let first = join(&t0, 2);
    store.commit(&first, Some("u2"), now).await.unwrap();
    // Deciding again from the old table: a version conflict, nothing written.
    let stale = join(&t0, 3);
    assert!(matches!(
        store.commit(&stale, Some("u3"), now).await,
        Err(StoreError::Conflict(TableId(7)))
    ));
    assert_eq!(store.recorded("u3").await.unwrap(), None);
    // A known key: refused, nothing written.
    let t1 = first.open_table().unwrap().clone();
    let next = join(&t1, 3);
    assert!(matches!(
        store.commit(&next, Some("u2"), now).await,
        Err(StoreError::Duplicate(k)) if k == "u2"
    ));
    let stored = store.table(TableId(7)).await.unwrap().unwrap();
    assert_eq!(&stored, &t1);
    assert_eq!(
        store.recorded("u2").await.unwrap(),
        Some(RecordedCommand {
            table: Some(TableId(7)),
            first_version: 3,
            last_version: 3
        })
    );
    assert_eq!(store.replay(TableId(7)).await.unwrap().as_ref(), Some(&t1));
    let events = store.events_between(TableId(7), 3, 3).await.unwrap();
    assert_eq!(events, vec![(3, first.changes[0].events[0].clone())]);
    // A second open table in the chat is refused by the database too.
    let other = create(&c, 8);
    assert!(matches!(
        store.commit(&other, None, now).await,
        Err(StoreError::Conflict(TableId(8)))
    ));
}

#[tokio::test]
async fn a_refused_commit_in_a_group_leaves_the_others_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let now = Timestamp::from_millis(1);
    let mut tables = Vec::new();
    for i in 0..20 {
        let t = create(&chat(&format!("-10{i}")), i + 1);
        store.commit(&t, None, now).await.unwrap();
        tables.push(t.open_table().unwrap().clone());
    }
    // Twenty joins at once, one of them a duplicate key: they go to the
    // writer together and all but that one land.
    let commits = tables.iter().enumerate().map(|(i, t)| {
        let store = store.clone();
        let transition = join(t, 2);
        let key = if i == 13 {
            "k0".to_owned()
        } else {
            format!("k{i}")
        };
        async move { store.commit(&transition, Some(&key), now).await }
    });
    let results = futures_join_all(commits).await;
    let refused: Vec<usize> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_err())
        .map(|(i, _)| i)
        .collect();
    // Whichever of 0 and 13 came second was refused.
    assert_eq!(refused.len(), 1);
    assert!(refused[0] == 0 || refused[0] == 13);
    for (i, t) in tables.iter().enumerate() {
        let stored = store.table(t.id()).await.unwrap().unwrap();
        let expect = if refused[0] == i { 2 } else { 3 };
        assert_eq!(stored.version(), expect, "table {i}");
        assert_eq!(store.replay(t.id()).await.unwrap().unwrap(), stored);
    }
}

/// Runs futures concurrently on the current task's runtime.
async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test]
async fn damaged_rows_are_reported_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let c = chat("-1");
    store
        .commit(&create(&c, 1), None, Timestamp::from_millis(1))
        .await
        .unwrap();
    sqlx::query("UPDATE tables SET version = 9")
        .execute(&store.reader)
        .await
        .unwrap();
    assert!(matches!(
        store.open_table(&c).await,
        Err(StoreError::Corrupt(_))
    ));
    sqlx::query("UPDATE tables SET snapshot = '{' , version = 2")
        .execute(&store.reader)
        .await
        .unwrap();
    assert!(matches!(
        store.table(TableId(1)).await,
        Err(StoreError::Corrupt(_))
    ));
    sqlx::query("DELETE FROM table_events WHERE version = 1")
        .execute(&store.reader)
        .await
        .unwrap();
    assert!(matches!(
        store.replay(TableId(1)).await,
        Err(StoreError::Corrupt(_))
    ));
}

#[tokio::test]
async fn old_dedup_keys_are_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let c = chat("-1");
    let t = create(&c, 1);
    store
        .commit(&t, Some("old"), Timestamp::from_millis(1))
        .await
        .unwrap();
    let j = join(t.open_table().unwrap(), 2);
    store
        .commit(&j, Some("new"), Timestamp::from_millis(100))
        .await
        .unwrap();
    assert_eq!(
        store
            .prune_commands(Timestamp::from_millis(50))
            .await
            .unwrap(),
        1
    );
    assert!(store.recorded("old").await.unwrap().is_none());
    assert!(store.recorded("new").await.unwrap().is_some());
}

#[test]
fn a_relative_sqlite_url_is_a_file_in_the_working_directory() {
    // The form of `kozyr::config::DEFAULT_DATABASE_URL` (the
    // configuration's test checks it names `kozyr.db` here).
    let o = StoreOptions::new("sqlite://kozyr.db");
    assert_eq!(
        o.connect_options().unwrap().get_filename(),
        std::path::Path::new("kozyr.db")
    );
    assert_eq!(o.synchronous, Synchronous::Full);
}

#[tokio::test]
async fn chats_and_players_remember_their_choices() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let c = chat("-1");
    assert_eq!(store.chat_language(&c).await.unwrap(), None);
    store
        .save_chat_language(&c, Lang::Pt, Timestamp::from_millis(1))
        .await
        .unwrap();
    store
        .save_chat_language(&c, Lang::Ro, Timestamp::from_millis(2))
        .await
        .unwrap();
    assert_eq!(store.chat_language(&c).await.unwrap(), Some(Lang::Ro));
    let ann = Player::new(UserId::new("7").unwrap(), "Ann", Lang::Ru);
    store
        .save_player(Platform::Telegram, &ann, Timestamp::from_millis(3))
        .await
        .unwrap();
    assert_eq!(
        store.player(Platform::Telegram, &ann.id).await.unwrap(),
        Some(ann.clone())
    );
    assert_eq!(
        store.player(Platform::Discord, &ann.id).await.unwrap(),
        None
    );
    // A chat's choices follow it to its new id.
    let to = chat("-1001");
    let moved = decide(
        None,
        &c,
        &Actor::System,
        &Command::MigrateChat { to: to.clone() },
        &ctx(0),
    )
    .unwrap();
    store
        .commit(&moved, None, Timestamp::from_millis(4))
        .await
        .unwrap();
    assert_eq!(store.chat_language(&c).await.unwrap(), None);
    assert_eq!(store.chat_language(&to).await.unwrap(), Some(Lang::Ro));
}
