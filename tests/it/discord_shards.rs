//! Discord sharding (issue 19): the bot runs every shard Discord
//! recommends, or the shards `DISCORD_SHARDS` names, against the strict
//! fake, which shards as Discord does (IDENTIFY closed with 4011 when one
//! shard would hold too many servers, each server's events only to its
//! shard's session) — people in servers on different shards play, and a
//! server whose shard this process does not run gets nothing from it.

use std::time::Duration;

use kozyr_test_kit::fakediscord::{GUILD_ID, TOKEN, User, shard_of};

use crate::support::discord::{CHANNEL, WAIT, World, open_and_start};
use crate::support::{Running, db_url, eventually, kozyr, run_to_end};

/// A server on shard 0 of 2 ([`GUILD_ID`], where [`CHANNEL`] is, is on 1).
const OTHER_GUILD: u64 = GUILD_ID + (1 << 22);
const OTHER_CHANNEL: u64 = 700000000000000008;

/// Four other people, for the table in the other server.
fn other_people() -> [User; 4] {
    [
        User {
            admin: true,
            ..User::new(601, "Olga")
        },
        User::new(602, "Pavel"),
        User::new(603, "Quinn"),
        User::new(604, "Rui"),
    ]
}

/// A fake with two servers on two shards that refuses one shard for both.
async fn two_servers() -> World {
    let w = World::without_bot().await;
    assert_eq!((shard_of(GUILD_ID, 2), shard_of(OTHER_GUILD, 2)), (1, 0));
    w.fake.place_channel(OTHER_CHANNEL, OTHER_GUILD);
    w.fake.set_shards(2, Some(1));
    // Both shards may identify at once (twilight would space them 5 s).
    w.fake.set_max_concurrency(2);
    w
}

/// The seat to move at table `id` plays its safe move, as a person does,
/// and the table moves.
async fn one_move(w: &World, id: kozyr::table::TableId) {
    let t = w.table(id).await;
    w.play_safe(&t).await;
    w.wait_version_after(id, t.version()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_two_shards_both_play() {
    let mut w = two_servers().await;
    w.start().await;
    let fake = &w.fake;
    eventually(WAIT, Duration::from_millis(10), "both shards", || async {
        (fake.live_shards() == [(0, 2), (1, 2)]).then_some(())
    })
    .await;
    let mut identified = w.fake.identified_shards();
    identified.sort_unstable();
    assert_eq!(identified, [(0, 2), (1, 2)]);

    let first = open_and_start(&w, "kozel").await;
    let people = std::mem::replace(&mut w.users, other_people());
    w.channel = OTHER_CHANNEL;
    let second = open_and_start(&w, "kozel").await;
    assert_ne!(first, second);
    one_move(&w, second).await;
    let others = std::mem::replace(&mut w.users, people);
    w.channel = CHANNEL;
    one_move(&w, first).await;
    w.users = others;
    w.channel = OTHER_CHANNEL;
    one_move(&w, second).await;

    w.assert_clean();
    w.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_shards_runs_only_the_shards_it_names() {
    let mut w = two_servers().await;
    w.discord_shards = Some("1/2".into());
    w.start().await;
    assert_eq!(w.fake.live_shards(), [(1, 2)]);

    // The server on shard 1 plays.
    let id = open_and_start(&w, "kozel").await;
    one_move(&w, id).await;
    w.assert_clean();

    // The server on shard 0: Discord has no session to send it to.
    let olga = &other_people()[0];
    let q = w.fake.slash(olga, OTHER_CHANNEL, "kozel");
    assert_eq!(
        w.fake.violations(),
        [format!(
            "an interaction with no session to take it (server {OTHER_GUILD}: \
             no session of its shard [0, 2])"
        )]
    );
    assert_eq!(w.fake.answer_of(q), None);
    // The bot never identified shard 0.
    assert_eq!(w.fake.identified_shards(), [(1, 2)]);
    assert_eq!(w.fake.live_shards(), [(1, 2)]);
    w.stop().await;
}

#[test]
fn a_malformed_discord_shards_stops_the_start_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    // A fake API that is never reached: the value is refused first.
    for value in ["2/2", "1-0/2", "0-1", "a/2", "0/0"] {
        let out = run_to_end(kozyr(
            dir.path(),
            &["run"],
            &[
                ("DISCORD_TOKEN", TOKEN),
                ("DISCORD_API_URL", "http://127.0.0.1:9"),
                ("DISCORD_SHARDS", value),
            ],
        ));
        assert!(!out.status.success(), "{value}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr
                .trim()
                .starts_with("kozyr: DISCORD_SHARDS is malformed: "),
            "{value}: {stderr}"
        );
        assert!(!dir.path().join("kozyr.db").exists());
    }
}

/// `kozyr run` without `DISCORD_SHARDS` runs every recommended shard, says
/// which in its start-up line, and its metrics show each connected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kozyr_run_runs_every_recommended_shard_and_says_so() {
    let w = two_servers().await;
    let api = w.fake.api_url();
    let db = db_url(&w.dir);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let metrics = format!("127.0.0.1:{port}");
    let mut bot = Running::spawn(kozyr(
        w.dir.path(),
        &["run"],
        &[
            ("DISCORD_TOKEN", TOKEN),
            ("DISCORD_API_URL", &api),
            ("DATABASE_URL", &db),
            ("RUST_LOG", "info"),
            ("KOZYR_LOG_FORMAT", "json"),
            ("KOZYR_METRICS_LISTEN", &metrics),
        ],
    ));
    let line = bot.wait_for("running", WAIT);
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["fields"]["discord_shards"], "0-1/2", "{line}");
    let fake = &w.fake;
    eventually(WAIT, Duration::from_millis(10), "both shards", || async {
        (fake.live_shards() == [(0, 2), (1, 2)]).then_some(())
    })
    .await;
    let url = format!("http://{metrics}/metrics");
    eventually(
        WAIT,
        Duration::from_millis(20),
        "both shards connected in the metrics",
        || async {
            let body = reqwest::get(&url).await.ok()?.text().await.ok()?;
            ["0/2", "1/2"]
                .iter()
                .all(|s| {
                    body.contains(&format!(
                        "kozyr_gateway_shards_connected{{shard=\"{s}\"}} 1\n"
                    ))
                })
                .then_some(())
        },
    )
    .await;
}

/// One shard's connection dropped: the other shard's server plays on, and
/// the dropped shard resumes its session, missed presses included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_shard_resumes_while_the_other_plays_on() {
    let mut w = two_servers().await;
    w.start().await;
    let fake = &w.fake;
    eventually(WAIT, Duration::from_millis(10), "both shards", || async {
        (fake.live_shards() == [(0, 2), (1, 2)]).then_some(())
    })
    .await;
    let first = open_and_start(&w, "kozel").await;
    let people = std::mem::replace(&mut w.users, other_people());
    w.channel = OTHER_CHANNEL;
    let second = open_and_start(&w, "kozel").await;
    let (_, resumes_before, _) = w.fake.gateway_counts();

    // Shard 0 (the other server) loses its connection (twilight is back
    // within milliseconds on loopback); a press there waits in its session
    // for the resume.
    w.fake.drop_shard(0);
    let (msg, my_hand) = w.my_hand_button(1).await;
    let missed = w.fake.click(&w.users[1], msg, &my_hand).unwrap();

    // Shard 1's server plays on.
    let others = std::mem::replace(&mut w.users, people);
    w.channel = CHANNEL;
    one_move(&w, first).await;

    // Shard 0 resumes (no new IDENTIFY), shard 1 never reconnected, and
    // the missed press is answered.
    let fake = &w.fake;
    eventually(WAIT, Duration::from_millis(10), "shard 0 back", || async {
        (fake.gateway_counts().1 > resumes_before && fake.live_shards() == [(0, 2), (1, 2)])
            .then_some(())
    })
    .await;
    assert_eq!(w.fake.gateway_counts().1, resumes_before + 1);
    assert_eq!(w.fake.identified_shards().len(), 2);
    w.users = others;
    w.channel = OTHER_CHANNEL;
    w.answered(missed).await;
    one_move(&w, second).await;

    w.assert_clean();
    w.stop().await;
}
