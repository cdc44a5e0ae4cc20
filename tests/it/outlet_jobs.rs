//! `outlet::jobs`: a table job's calls go in the engine's order through
//! a platform's `TableCalls`, and each result decides the next call —
//! an edit of a gone message posts it anew, a new post strips the old
//! one, a failure stops the job — as on every platform.

use std::sync::Mutex;

use kozyr::delivery::engine::{Outcome, PingJob, Strip, TableCall, TableJob};
use kozyr::delivery::transport::{Call, Failure};
use kozyr::outlet::jobs::{self, TableCalls};
use kozyr::table::runtime::TableService;
use kozyr::table::{ChatKey, Platform, TableId};

use crate::support::db_url;
use crate::support::store::TestStore;

/// A platform that logs each call and answers edits with `edit`.
struct Logged {
    calls: Mutex<Vec<String>>,
    edit: Result<(), Failure>,
}

impl Logged {
    fn new(edit: Result<(), Failure>) -> Logged {
        Logged {
            calls: Mutex::new(Vec::new()),
            edit,
        }
    }

    fn log(&self, call: String) {
        self.calls.lock().unwrap().push(call);
    }

    fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

impl TableCalls for Logged {
    type Table = &'static str;
    type News = &'static str;

    async fn post(&self, _: &ChatKey, m: &&'static str) -> Result<Option<u64>, Failure> {
        self.log(format!("post {m}"));
        Ok(Some(77))
    }
    async fn edit(&self, _: &ChatKey, message: u64, m: &&'static str) -> Result<(), Failure> {
        self.log(format!("edit {message} {m}"));
        self.edit
    }
    async fn strip(&self, _: &ChatKey, strip: Strip) {
        self.log(format!("strip {}", strip.message));
    }
    async fn announce(&self, _: &ChatKey, n: &&'static str) -> Result<(), Failure> {
        self.log(format!("announce {n}"));
        Ok(())
    }
    async fn ping(&self, _: &ChatKey, who: &[u64], _: &[String]) -> Result<Option<u64>, Failure> {
        self.log(format!("ping {who:?}"));
        Ok(Some(90))
    }
    async fn delete(&self, _: &ChatKey, message: u64) {
        self.log(format!("delete {message}"));
    }
}

fn job(
    call: TableCall<&'static str>,
    ping: Option<PingJob>,
) -> TableJob<&'static str, &'static str> {
    TableJob {
        table: TableId(5),
        chat: ChatKey::Discord(40),
        unknown_first: true,
        news: vec![("deal over", None)],
        ping,
        call,
        then: Some(1234),
        closed: false,
        last_in_chat: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jobs_calls_follow_the_engines_order_and_each_result() {
    let dir = tempfile::tempdir().unwrap();
    let store = TestStore::open(&db_url(&dir)).await;
    let (service, _outputs) = TableService::builder(store.shared()).start().await.unwrap();
    let on = (&service, Platform::Discord);
    let edit = |message| TableCall::Edit {
        message,
        content: "table",
    };

    // An edit that lands shows the state: its hash is written after.
    let calls = Logged::new(Ok(()));
    let ping = PingJob {
        table: TableId(5),
        chat: ChatKey::Discord(40),
        generation: 3,
        delete: Some(60),
        post: Some((vec![8], vec!["your turn".into()])),
    };
    let mut pinged = None;
    let done = jobs::run_table(&calls, on, job(edit(70), Some(ping)), |p, id| {
        pinged = Some((p.generation, id))
    })
    .await;
    assert_eq!(
        calls.calls(),
        [
            "announce deal over",
            "delete 60",
            "ping [8]",
            "edit 70 table"
        ]
    );
    assert_eq!(pinged, Some((3, Some(90))));
    assert_eq!(done.call, Outcome::Edited);
    assert!(done.unknown.is_some() && done.then.is_some());

    // A gone message is posted anew in the same job; a post's hash goes
    // with its id (the engine's store write), not after the call.
    let calls = Logged::new(Err(Failure::MessageGone));
    let done = jobs::run_table(&calls, on, job(edit(70), None), |_, _| {}).await;
    assert_eq!(
        calls.calls(),
        ["announce deal over", "edit 70 table", "post table"]
    );
    assert_eq!(done.call, Outcome::Posted(Some(77)));
    assert!(done.then.is_none());

    // An outage ends the job: no post, nothing recorded as shown.
    let calls = Logged::new(Err(Failure::Unavailable));
    let done = jobs::run_table(&calls, on, job(edit(70), None), |_, _| {}).await;
    assert_eq!(calls.calls(), ["announce deal over", "edit 70 table"]);
    assert_eq!(done.call, Outcome::Failed(Failure::Unavailable, Call::Edit));
    assert!(done.then.is_none());

    // "Not modified": it shows the state already.
    let calls = Logged::new(Err(Failure::NotModified));
    let done = jobs::run_table(&calls, on, job(edit(70), None), |_, _| {}).await;
    assert!(done.then.is_some(), "{:?}", done.call);

    // Posted anew at the bottom: the old message loses its buttons after.
    let calls = Logged::new(Ok(()));
    let strip = Some(Strip {
        message: 70,
        started: None,
    });
    let post = TableCall::Post {
        content: "table",
        strip,
    };
    jobs::run_table(&calls, on, job(post, None), |_, _| {}).await;
    assert_eq!(
        calls.calls(),
        ["announce deal over", "post table", "strip 70"]
    );
}

/// A hand edit that landed is known to show what it drew even when the
/// store refuses to keep that (it closed here; a full disk does the
/// same): the next draw of what it showed before — a selection undone —
/// is sent, and a draw of what it shows now is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_edit_that_landed_is_known_when_the_store_cannot_keep_it() {
    use kozyr::outlet::hand_tokens::HandTokens;
    use kozyr::table::UserId;
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().unwrap();
    let store = TestStore::open(&db_url(&dir)).await;
    let (service, _outputs) = TableService::builder(store.shared()).start().await.unwrap();
    let tokens = HandTokens::new(service.clone(), Duration::from_secs(600));
    let (ann, table, now) = (
        UserId::new("discord:1").unwrap(),
        TableId(7),
        Instant::now(),
    );
    let place = (&ann, table);
    tokens
        .given(place, ("t1".into(), now), Some(10), Some(70))
        .await;
    service.close().await;
    let t = tokens.fresh(&ann, table, now).unwrap();
    let failed = tokens.edit(place, &t, 11, |_| async { Ok(()) }).await;
    assert!(failed.is_none());
    assert!(tokens.shows(place, 70, 11, now), "the edit drew 11");
    let t = tokens.fresh(&ann, table, now).unwrap();
    assert!(t.changes(10), "drawing 10 again changes the message");
    assert!(!t.changes(11));
}
