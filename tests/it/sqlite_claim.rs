//! One SQLite file serves one `kozyr run`: a second process on the same
//! file stops at once with a message that names the file and says that
//! replicas need PostgreSQL, and the file is free again as soon as the
//! first is gone, a kill -9 included.

// SQLite-specific: a SQLite file's claim (replicas on PostgreSQL stand by
// instead: `replicas`).

use std::time::Duration;

use crate::support::telegram::fake_with_token;
use crate::support::{Running, kozyr, run_to_end};

const TOKEN: &str = "123456:CLAIM-fake-token-kozyr-claim-tests-0123456789";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_process_on_one_sqlite_file_stops_and_says_replicas_need_postgresql() {
    let fake = fake_with_token(TOKEN).await;
    let dir = tempfile::tempdir().unwrap();
    let api = fake.api_url().to_string();
    let url = format!("sqlite://{}/kozyr.db", dir.path().display());
    let running = concat!("kozyr ", env!("CARGO_PKG_VERSION"), " running");
    let path = dir.path().to_path_buf();
    let (first, second, third) = tokio::task::spawn_blocking(move || {
        let env = [
            ("TELOXIDE_TOKEN", TOKEN),
            ("TELOXIDE_API_URL", api.as_str()),
            ("DATABASE_URL", url.as_str()),
            ("RUST_LOG", "info"),
        ];
        let mut first = Running::spawn(kozyr(&path, &["run"], &env));
        first.wait_for(running, Duration::from_secs(30));
        let second = run_to_end(kozyr(&path, &["run"], &env));
        // SIGKILL: the kernel frees the claim with the process.
        first.child.kill().unwrap();
        first.child.wait().unwrap();
        let mut third = Running::spawn(kozyr(&path, &["run"], &env));
        third.wait_for(running, Duration::from_secs(30));
        (first, second, third)
    })
    .await
    .unwrap();
    drop((first, third));
    let stderr = String::from_utf8_lossy(&second.stderr);
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert_eq!(second.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("another kozyr process serves")
            && stderr.contains("kozyr.db")
            && stderr.contains("PostgreSQL"),
        "{stderr}"
    );
    assert!(!stdout.contains(running), "{stdout}");
}
