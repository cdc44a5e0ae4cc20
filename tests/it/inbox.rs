//! The inbox (issue 19): updates pushed to the bot are written by
//! whichever process received them, durable before they are
//! acknowledged, read in order and deleted once handled by the serving
//! one. One suite on both backends, through `table::storage::Inbox` as
//! the shells use it.

use std::sync::Arc;
use std::time::Duration;

use kozyr::store::{Backend, StoreOptions};
use kozyr::table::Platform;
use kozyr::table::storage::{Inbox, TableStore};

use crate::support::db_url_on;

/// A `sqlite` and a `postgres` test of the case `$case(backend)`.
macro_rules! both {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$case(kozyr::store::Backend::Sqlite).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$case(kozyr::store::Backend::Postgres).await;
            }
        }
    )*};
}

both!(
    updates_wait_in_order_once_each_until_done,
    a_put_is_durable_and_seen_by_another_process,
    a_put_wakes_the_reader,
    the_reader_deletes_each_row_once_handled_and_no_sooner,
);

async fn open(url: &str) -> Arc<dyn TableStore> {
    kozyr::store::open(&StoreOptions::new(url)).await.unwrap()
}

fn keys(entries: &[kozyr::table::storage::InboxEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.key.as_str()).collect()
}

async fn updates_wait_in_order_once_each_until_done(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&db_url_on(backend, &dir)).await;
    let telegram = Inbox::new(store.clone(), Platform::Telegram);
    let discord = Inbox::new(store.clone(), Platform::Discord);
    assert!(telegram.put("7", r#"{"update_id":7}"#).await.unwrap());
    assert!(telegram.put("5", r#"{"update_id":5}"#).await.unwrap());
    // Telegram delivering update 7 again while it waits: one row.
    assert!(!telegram.put("7", r#"{"update_id":7}"#).await.unwrap());
    // Another platform's key 7 is another update.
    assert!(discord.put("7", "gateway event").await.unwrap());

    let waiting = telegram.after(0, 10).await.unwrap();
    assert_eq!(keys(&waiting), ["7", "5"], "in the order received");
    assert_eq!(waiting[0].body, r#"{"update_id":7}"#);
    assert!(waiting[0].seq < waiting[1].seq);
    let past_first = telegram.after(waiting[0].seq, 10).await.unwrap();
    assert_eq!(keys(&past_first), ["5"]);
    assert_eq!(keys(&telegram.after(0, 1).await.unwrap()), ["7"], "a limit");
    assert_eq!(keys(&discord.after(0, 10).await.unwrap()), ["7"]);

    telegram.done(waiting[0].seq).await.unwrap();
    assert_eq!(keys(&telegram.after(0, 10).await.unwrap()), ["5"]);
    // Handled and gone, the same update delivered once more is new again
    // (the table service's de-duplication applies it once).
    assert!(telegram.put("7", r#"{"update_id":7}"#).await.unwrap());
    let again = telegram.after(0, 10).await.unwrap();
    assert_eq!(keys(&again), ["5", "7"]);
    assert!(again[1].seq > waiting[1].seq, "at the end of the line");
    store.close().await;
}

async fn a_put_is_durable_and_seen_by_another_process(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let url = db_url_on(backend, &dir);
    let standby = open(&url).await;
    let serving = open(&url).await;
    let taken = Inbox::new(standby.clone(), Platform::Telegram);
    assert!(taken.put("41", "{}").await.unwrap());
    // The serving process reads it, and a redelivery to it is the same row.
    let reading = Inbox::new(serving.clone(), Platform::Telegram);
    assert_eq!(keys(&reading.after(0, 10).await.unwrap()), ["41"]);
    assert!(!reading.put("41", "{}").await.unwrap());
    standby.close().await;
    serving.close().await;
    // After both are gone the row is still there.
    let restarted = open(&url).await;
    let inbox = Inbox::new(restarted.clone(), Platform::Telegram);
    let waiting = inbox.after(0, 10).await.unwrap();
    assert_eq!(keys(&waiting), ["41"]);
    inbox.done(waiting[0].seq).await.unwrap();
    assert!(inbox.after(0, 10).await.unwrap().is_empty());
    restarted.close().await;
}

async fn a_put_wakes_the_reader(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let url = db_url_on(backend, &dir);
    let reader = open(&url).await;
    // On PostgreSQL the put comes from another replica; a SQLite file has
    // one process.
    let writer = match backend {
        Backend::Sqlite => reader.clone(),
        Backend::Postgres => open(&url).await,
    };
    let mut wakeups = Inbox::new(reader.clone(), Platform::Telegram)
        .wakeups()
        .await
        .unwrap();
    wakeups.borrow_and_update();
    let inbox = Inbox::new(writer.clone(), Platform::Telegram);
    assert!(inbox.put("1", "{}").await.unwrap());
    tokio::time::timeout(Duration::from_secs(5), wakeups.changed())
        .await
        .expect("woken within 5 s")
        .unwrap();
    // A redelivery adds nothing to read: no wake-up.
    wakeups.borrow_and_update();
    assert!(!inbox.put("1", "{}").await.unwrap());
    assert!(
        tokio::time::timeout(Duration::from_millis(300), wakeups.changed())
            .await
            .is_err(),
        "no wake-up for a redelivery"
    );
    reader.close().await;
    writer.close().await;
}

/// `/help` from `user` in their chat with the bot, as Telegram posts it.
fn help_update(update_id: u32, user: u64) -> serde_json::Value {
    serde_json::json!({
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 1_700_000_000,
            "chat": {"id": user, "type": "private", "first_name": "Ann"},
            "from": {"id": user, "is_bot": false, "first_name": "Ann", "language_code": "en"},
            "text": "/help",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}]
        }
    })
}

/// Issue 19: behind a load balancer any replica gets webhook POSTs. A
/// standby writes the update to the inbox and answers 200 (it used to say
/// 503), and the serving replica handles it; when the serving replica is
/// killed, what a standby took meanwhile is handled by the next one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_takes_webhook_updates_and_the_serving_replica_handles_them() {
    use crate::support::replicas::{Replica, free_port, serving_after};
    use kozyr_test_kit::fakebot::{FakeBot, FakeBotConfig, UserSpec};

    const TOKEN: &str = "123456:INBOX-fake-token-kozyr-inbox-tests-0123456";
    let url = crate::support::postgres::fresh_url();
    let fake = FakeBot::start_with(FakeBotConfig {
        token: TOKEN.into(),
        ..FakeBotConfig::default()
    })
    .await
    .expect("fake");
    let ann = fake.add_user(UserSpec::new("Ann").language("en"));
    fake.start_bot(ann, None).expect("Ann starts the bot");
    let dm = FakeBot::private_chat(ann);
    let dir = tempfile::tempdir().unwrap();
    let api = fake.api_url().to_string();
    let ports = [free_port(), free_port()];
    let envs: Vec<Vec<(&str, String)>> = ports
        .iter()
        .map(|port| {
            vec![
                ("TELOXIDE_TOKEN", TOKEN.into()),
                ("TELOXIDE_API_URL", api.clone()),
                ("DATABASE_URL", url.clone()),
                // Not this machine: the fake delivers nothing itself here.
                (
                    "WEBHOOK_URL",
                    "https://bot.example.org/telegram/hook".into(),
                ),
                ("WEBHOOK_LISTEN", format!("127.0.0.1:{port}")),
                ("WEBHOOK_SECRET", "s3cret".into()),
                ("RUST_LOG", "warn,kozyr::replica=info".into()),
            ]
        })
        .collect();
    let start = |n: usize| {
        let env: Vec<(&str, &str)> = envs[n].iter().map(|(k, v)| (*k, v.as_str())).collect();
        Replica::start(&dir, n, &env)
    };
    let started = std::time::Instant::now();
    let mut replicas = vec![start(0), start(1)];
    let (serving, _) = serving_after(&mut replicas, started).await;
    let standby = 1 - serving;
    let http = reqwest::Client::new();
    let post = |port: u16, update: serde_json::Value| {
        http.post(format!("http://127.0.0.1:{port}/telegram/hook"))
            .header("X-Telegram-Bot-Api-Secret-Token", "s3cret")
            .json(&update)
            .send()
    };
    let answered = |n: usize| {
        let fake = &fake;
        async move {
            fake.wait_for(Duration::from_secs(20), |f| {
                (f.messages(dm)
                    .iter()
                    .filter(|m| m.text.contains("/new"))
                    .count()
                    >= n)
                    .then_some(())
            })
            .await
        }
    };
    // The standby's intake listens once it stands by.
    let status = crate::support::eventually(
        Duration::from_secs(20),
        Duration::from_millis(20),
        "the standby's webhook takes the update",
        || async {
            match post(ports[standby], help_update(900, ann.0)).await {
                Ok(r) if r.status() != 503 => Some(r.status().as_u16()),
                _ => None,
            }
        },
    )
    .await;
    assert_eq!(status, 200, "the standby took the update");
    answered(1)
        .await
        .expect("the serving replica answered /help");

    // The serving replica dies; an update the standby takes meanwhile is
    // handled once it serves.
    replicas[serving].kill();
    let status = post(ports[standby], help_update(901, ann.0))
        .await
        .expect("the standby answers")
        .status();
    assert_eq!(status, 200);
    answered(2).await.expect("the new serving replica answered");
    let helps = fake
        .messages(dm)
        .iter()
        .filter(|m| m.text.contains("/new"))
        .count();
    assert_eq!(helps, 2, "each update answered once");
}

/// `outlet::inbox::read`, the one reader both shells hand their rows to:
/// a row done is deleted at once, a row being handled only once its
/// handler lets go (and it is not handed out twice meanwhile), a row not
/// taken is handed out again at the next read, and a stop leaves what is
/// still being handled for the next serving process.
async fn the_reader_deletes_each_row_once_handled_and_no_sooner(backend: Backend) {
    use kozyr::outlet::inbox::{Row, read};
    use std::sync::Mutex;
    use tokio::sync::oneshot;

    let dir = tempfile::tempdir().unwrap();
    let store = open(&db_url_on(backend, &dir)).await;
    let inbox = Inbox::new(store.clone(), Platform::Discord);
    for key in ["done", "handling", "later"] {
        assert!(inbox.put(key, key).await.unwrap());
    }
    let handed: Arc<Mutex<Vec<String>>> = Arc::default();
    // The senders of the rows being handled, in the order handed out.
    let holds: Arc<Mutex<Vec<oneshot::Sender<()>>>> = Arc::default();
    let take = {
        let (handed, holds) = (handed.clone(), holds.clone());
        move |row: kozyr::table::storage::InboxEntry, _age| {
            handed.lock().unwrap().push(row.key.clone());
            Ok(match row.body.as_str() {
                "done" => Row::Done,
                "later" => Row::Later,
                _ => {
                    let (held, done) = oneshot::channel();
                    holds.lock().unwrap().push(held);
                    Row::Handling(done)
                }
            })
        }
    };
    let (stop, stopped) = oneshot::channel::<()>();
    let reader = tokio::spawn(read(
        inbox.clone(),
        async move {
            let _ = stopped.await;
        },
        Duration::from_millis(200),
        take,
    ));
    let waiting = || async { keys(&inbox.after(0, 10).await.unwrap()).join(",") };
    let until = |want: &'static str| {
        let waiting = &waiting;
        async move {
            for _ in 0..100 {
                if waiting().await == want {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            panic!("the inbox holds {}, not {want}", waiting().await);
        }
    };
    until("handling,later").await;
    // A new row wakes the reader: the row not taken is handed out again,
    // the one being handled is not.
    assert!(inbox.put("next", "handling").await.unwrap());
    until("handling,later,next").await;
    let count = |key: &str| handed.lock().unwrap().iter().filter(|k| *k == key).count();
    for _ in 0..100 {
        if count("next") == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!((count("done"), count("handling"), count("next")), (1, 1, 1));
    assert!(count("later") >= 2, "a row not taken is read again");
    // Its handler lets go: deleted.
    drop(holds.lock().unwrap().remove(0));
    until("later,next").await;
    // A stop waits its grace for "next", which never finishes: it stays.
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(5), reader)
        .await
        .expect("the reader ends after its grace")
        .unwrap();
    assert_eq!(waiting().await, "later,next");
    store.close().await;
}
