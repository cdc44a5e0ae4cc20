//! What an admin runs into (issue 13), checked without Docker: the Docker
//! dependency layer's stub step, the log formats, database errors that name
//! the path and the cause, start-up retries against a Bot API that comes up
//! late, a refused or placeholder token, admin commands that never create
//! a database, the Prometheus endpoint after a game played through the fake
//! Bot API, and a backup taken mid-deal that is restored and played on.
//!
//! The binary tests run `kozyr` itself (`CARGO_BIN_EXE_kozyr`) in a
//! temporary folder with a clean environment; everything is on loopback.

use kozyr::store::Queries;
use std::net::{SocketAddr, TcpListener as StdListener};
use std::path::Path;
use std::process::{Command as Process, Output};
use std::time::{Duration, Instant};

use kozyr::cards::Seat;
use kozyr::config::{Config, PLACEHOLDER_TOKEN};
use kozyr::game::GameKind;
use kozyr::store::{Opened, Store, StoreOptions};
use kozyr::table::runtime::{Request, TableService, Target};
use kozyr::table::{
    Actor, ChatKey, Command, Lang, Phase, Platform, Player, SeatState, Settings, Table, TableId,
    UserId,
};
use kozyr::telegram::bot::start;
use kozyr_loadtest::Driver;
use kozyr_test_kit::fakebot::Fault;

use crate::support::store::{TestStore, on_postgres, sqlite_url};
use crate::support::telegram::fake_with_token;
use crate::support::{Running, fast_tuning, kozyr, run_to_end};

const TOKEN: &str = "123456:ADMIN-fake-token-kozyr-admin-tests-0123456789";

// ------------------------------------------------------------- helpers --

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A loopback port nothing listens on (connections are refused).
fn refused_port() -> u16 {
    let l = StdListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// The database of the test whose folder is `dir`, on the tests' backend.
fn db_url(dir: &Path) -> String {
    crate::support::store::url_for(dir)
}

// ----------------------------------------------------- 1: Docker layer --

/// The dependency layer of the Dockerfile builds from Cargo.toml, Cargo.lock
/// and the members' manifests alone, with every target stubbed by `docker/stub-targets.sh`.
/// Cargo checks the manifest's targets and the lock file before it looks
/// for the (deliberately unknown) binary to build, so the "no bin target"
/// answer proves that everything before compiling succeeded, in a second.
#[test]
fn the_docker_dependency_layer_accepts_every_target_in_cargo_toml() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let check = |dir: &Path| -> String {
        let o = Process::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args([
                "check",
                "--offline",
                "--locked",
                "--bin",
                "kozyr-no-such-target",
            ])
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", dir.join("target"))
            .output()
            .expect("run cargo");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // The workspace's members besides the root package.
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let list = manifest
        .split_once("\nmembers = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .expect("Cargo.toml names its workspace members")
        .0;
    let members: Vec<String> = list
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|m| *m != ".")
        .map(str::to_owned)
        .collect();
    assert!(!members.is_empty());
    let copy = || {
        let dir = tempfile::tempdir().unwrap();
        for f in ["Cargo.toml", "Cargo.lock"] {
            std::fs::copy(root.join(f), dir.path().join(f)).unwrap();
        }
        // The members' manifests, as the Dockerfile copies them.
        for m in &members {
            let to = dir.path().join(m);
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(root.join(m).join("Cargo.toml"), to.join("Cargo.toml")).unwrap();
        }
        dir
    };

    let stubbed = copy();
    let status = Process::new("sh")
        .arg(root.join("docker/stub-targets.sh"))
        .arg(stubbed.path())
        .status()
        .unwrap();
    assert!(status.success());
    let said = check(stubbed.path());
    assert!(
        said.contains("no bin target named `kozyr-no-such-target`"),
        "the stubbed manifest does not resolve:\n{said}"
    );

    // The control: crate roots alone (what the old loop amounted to for
    // the [[test]] targets) are refused, so the check above can fail.
    let bare = copy();
    std::fs::create_dir_all(bare.path().join("src")).unwrap();
    std::fs::write(bare.path().join("src/main.rs"), "fn main() {}").unwrap();
    std::fs::write(bare.path().join("src/lib.rs"), "").unwrap();
    for m in &members {
        std::fs::create_dir_all(bare.path().join(m).join("src")).unwrap();
        std::fs::write(bare.path().join(m).join("src/lib.rs"), "").unwrap();
    }
    let said = check(bare.path());
    assert!(said.contains("can't find"), "{said}");

    // And the Dockerfile uses the script, with nothing hiding a failure.
    let dockerfile = std::fs::read_to_string(root.join("Dockerfile")).unwrap();
    assert!(dockerfile.contains("COPY docker/stub-targets.sh docker/"));
    for m in &members {
        assert!(
            dockerfile.contains(&format!("COPY {m}/Cargo.toml {m}/")),
            "the Dockerfile does not copy {m}'s manifest"
        );
    }
    assert!(
        dockerfile.contains("RUN sh docker/stub-targets.sh . && cargo build --release --locked")
    );
    assert!(
        !dockerfile.contains("|| true"),
        "a failure must fail the build"
    );
    let ignored = std::fs::read_to_string(root.join(".dockerignore")).unwrap();
    assert!(!ignored.lines().any(|l| l.trim() == "docker"));
}

/// `.env.example` must not override the image's database path, and the
/// Compose file has what the README promises.
#[test]
fn the_example_settings_and_compose_file_suit_the_image() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = std::fs::read_to_string(root.join(".env.example")).unwrap();
    assert!(
        !example
            .lines()
            .any(|l| l.trim_start().starts_with("DATABASE_URL=")),
        "an active DATABASE_URL in .env overrides the image's /data/kozyr.db"
    );
    for var in ["KOZYR_LOG_FORMAT", "NO_COLOR", "KOZYR_METRICS_LISTEN"] {
        assert!(
            example.contains(&format!("#{var}=")),
            "{var} is not in .env.example"
        );
    }
    let compose = std::fs::read_to_string(root.join("compose.yaml")).unwrap();
    for needle in [
        "env_file: .env",
        "restart: unless-stopped",
        "kozyr-data:/data",
        "\"/usr/local/bin/kozyr\", \"healthcheck\"",
    ] {
        assert!(compose.contains(needle), "compose.yaml lacks {needle}");
    }
    let dockerfile = std::fs::read_to_string(root.join("Dockerfile")).unwrap();
    assert!(dockerfile.contains("EXPOSE 8443 9090"));
}

/// The replicas' Compose file (`deploy/compose.postgres.yaml`) parses and
/// has what docs/OPERATIONS.md promises: PostgreSQL 15 with a volume, three
/// kozyr replicas on it with the health check that passes for both roles,
/// and nginx in front, its config (`deploy/nginx.conf`) routing the webhook
/// and the interactions endpoint to every replica on the ports kozyr
/// listens on, passing a standby's 503 on to the next one.
#[test]
fn the_replicas_compose_file_runs_three_replicas_on_postgres_behind_nginx() {
    use yaml_rust2::{Yaml, YamlLoader};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("deploy/compose.postgres.yaml")).unwrap();
    let docs = YamlLoader::load_from_str(&text).expect("deploy/compose.postgres.yaml is YAML");
    let services = &docs[0]["services"];
    let postgres = &services["postgres"];
    assert!(
        postgres["image"]
            .as_str()
            .is_some_and(|i| i.starts_with("postgres:15")),
        "{postgres:?}"
    );
    let data = postgres["volumes"][0].as_str().unwrap_or_default();
    assert!(data.ends_with(":/var/lib/postgresql/data"), "{data}");
    let volume = data.split(':').next().unwrap_or_default();
    assert!(
        !docs[0]["volumes"][volume].is_badvalue(),
        "the named volume {volume} is declared"
    );
    let Yaml::Hash(all) = services else {
        panic!("no services")
    };
    let replicas: Vec<(&str, &Yaml)> = all
        .iter()
        .filter_map(|(k, v)| Some((k.as_str()?, v)))
        .filter(|(_, v)| v["image"].as_str() == Some("kozyr"))
        .collect();
    assert_eq!(replicas.len(), 3, "three kozyr replicas");
    let conf = std::fs::read_to_string(root.join("deploy/nginx.conf")).unwrap();
    // The ports kozyr listens on by default, with a webhook and Discord's endpoint on.
    let config = Config::from_lookup(|k| match k {
        "TELOXIDE_TOKEN" => Some(TOKEN.into()),
        "WEBHOOK_URL" => Some("https://bot.example.org/telegram/hook".into()),
        "DATABASE_URL" => Some("postgres://kozyr@postgres/kozyr".into()),
        _ => None,
    })
    .unwrap();
    let kozyr::config::UpdateMode::Webhook { listen, .. } = config.update_mode else {
        panic!("webhook mode")
    };
    for (name, replica) in &replicas {
        let env = &replica["environment"];
        let url = env["DATABASE_URL"].as_str().unwrap_or_default();
        assert!(
            url.starts_with("postgres://") && url.ends_with("@postgres:5432/kozyr"),
            "{name}: {url}"
        );
        assert!(
            !env["KOZYR_HEALTH_FILE"].is_badvalue(),
            "{name}: a writable heartbeat"
        );
        let check: Vec<&str> = replica["healthcheck"]["test"]
            .as_vec()
            .map(|v| v.iter().filter_map(Yaml::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            check,
            ["CMD", "/usr/local/bin/kozyr", "healthcheck"],
            "{name}"
        );
        assert_eq!(
            replica["restart"].as_str(),
            Some("unless-stopped"),
            "{name}"
        );
        assert_eq!(
            replica["depends_on"]["postgres"]["condition"].as_str(),
            Some("service_healthy"),
            "{name}"
        );
        for port in [listen.port(), 8444, 8445] {
            assert!(
                conf.contains(&format!("server {name}:{port}")),
                "nginx.conf routes to {name}:{port}"
            );
        }
    }
    // Every replica takes webhook updates; only the serving one takes
    // interactions and the Mini App, and a standby's 503 is passed on.
    let location = |path: &str| {
        let at = conf
            .find(&format!("location {path} {{"))
            .unwrap_or_else(|| panic!("nginx.conf has no location {path}"));
        conf[at..].split('}').next().unwrap_or_default().to_owned()
    };
    assert!(
        location("/telegram/").contains("proxy_next_upstream error timeout non_idempotent;"),
        "a replica that is down is skipped"
    );
    for path in ["/discord/", "/app/"] {
        assert!(
            location(path).contains("proxy_next_upstream error timeout http_503 non_idempotent;"),
            "{path} passes a standby's 503 on"
        );
    }
    assert!(
        location("/app/").contains("proxy_buffering off;"),
        "the Mini App's event stream is not buffered"
    );
    assert!(conf.contains("location /telegram/"));
    assert!(kozyr::discord::endpoint::PATH.starts_with("/discord/"));
    assert!(conf.contains("location /discord/"));
    let proxy = &services["proxy"];
    assert!(
        proxy["volumes"][0]
            .as_str()
            .is_some_and(|v| v.starts_with("./nginx.conf:")),
        "{proxy:?}"
    );
}

// ------------------------------------------------- 2 and 4: logs, retry --

/// Forwards every connection on `port` to `to`, starting only after
/// `after`: until then the port refuses connections, as an unreachable
/// Bot API does.
fn late_proxy(port: u16, to: SocketAddr, after: Duration) {
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("the reserved port is still free");
        loop {
            let Ok((mut inbound, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                if let Ok(mut outbound) = tokio::net::TcpStream::connect(to).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_waits_for_a_bot_api_that_comes_up_late_logging_plain_text() {
    let fake = fake_with_token(TOKEN).await;
    let dir = tempfile::tempdir().unwrap();
    let port = refused_port();
    late_proxy(
        port,
        fake.api_url().socket_addrs(|| None).unwrap()[0],
        Duration::from_millis(2500),
    );
    let api = format!("http://127.0.0.1:{port}/");
    let url = db_url(dir.path());
    let mut bot = Running::spawn(kozyr(
        dir.path(),
        &["run"],
        &[
            ("TELOXIDE_TOKEN", TOKEN),
            ("TELOXIDE_API_URL", &api),
            ("DATABASE_URL", &url),
            ("RUST_LOG", "info"),
        ],
    ));
    let running = tokio::task::spawn_blocking(move || {
        let line = bot.wait_for(
            concat!("kozyr ", env!("CARGO_PKG_VERSION"), " running"),
            Duration::from_secs(30),
        );
        (bot, line)
    })
    .await
    .unwrap();
    let (bot, line) = running;
    let retries: Vec<&String> = bot
        .seen
        .iter()
        .filter(|l| l.contains("reaching the Telegram Bot API (getMe) failed; retrying"))
        .collect();
    // Attempts at 0 s and 1 s fail; the one at 3 s reaches the fake.
    assert!(retries.len() >= 2, "{:#?}", bot.seen);
    assert!(
        retries[0].contains("WARN") && retries[0].contains("attempt=1"),
        "{}",
        retries[0]
    );
    assert!(retries[1].contains("attempt=2"), "{}", retries[1]);
    assert!(line.contains("INFO"), "{line}");
    // stdout is a pipe here, as under `docker logs`: no colour codes.
    assert!(
        bot.seen.iter().all(|l| !l.contains('\u{1b}')),
        "{:#?}",
        bot.seen
    );
    assert!(fake.calls_of("getMe") >= 1);
    // The token never shows, even in the retry messages.
    assert!(bot.seen.iter().all(|l| !l.contains("ADMIN-fake-token")));
    drop(bot);
}

#[test]
fn json_logs_are_one_object_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let api = format!("http://127.0.0.1:{}/", refused_port());
    let url = db_url(dir.path());
    let mut bot = Running::spawn(kozyr(
        dir.path(),
        &["run"],
        &[
            ("TELOXIDE_TOKEN", TOKEN),
            ("TELOXIDE_API_URL", &api),
            ("DATABASE_URL", &url),
            ("RUST_LOG", "info"),
            ("KOZYR_LOG_FORMAT", "json"),
        ],
    ));
    bot.wait_for("retrying", Duration::from_secs(20));
    assert!(!bot.seen.is_empty());
    for line in &bot.seen {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(
            v["level"].is_string() && v["timestamp"].is_string(),
            "{line}"
        );
        assert!(v["fields"]["message"].is_string(), "{line}");
    }
    let last: serde_json::Value = serde_json::from_str(bot.seen.last().unwrap()).unwrap();
    assert_eq!(last["level"], "WARN");
    assert_eq!(last["fields"]["attempt"], 1);
}

#[test]
fn a_refused_token_stops_the_bot_with_what_to_do() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let fake = rt.block_on(fake_with_token(TOKEN));
    let dir = tempfile::tempdir().unwrap();
    let api = fake.api_url().to_string();
    let url = db_url(dir.path());
    let started = Instant::now();
    let o = run_to_end(kozyr(
        dir.path(),
        &["run"],
        &[
            (
                "TELOXIDE_TOKEN",
                "654321:NOT-the-token-the-fake-knows-0123456789",
            ),
            ("TELOXIDE_API_URL", &api),
            ("DATABASE_URL", &url),
        ],
    ));
    assert!(!o.status.success());
    assert!(started.elapsed() < Duration::from_secs(10), "it retried");
    let err = stderr(&o);
    assert!(
        err.contains(
            "kozyr: Telegram refused the token in TELOXIDE_TOKEN (bot id 654321): copy the token again from BotFather"
        ),
        "{err}"
    );
    assert!(!err.contains("NOT-the-token"), "{err}");
}

#[test]
fn the_example_token_is_refused_before_any_network_call() {
    let dir = tempfile::tempdir().unwrap();
    // A listener that would see any connection attempt.
    let listener = StdListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let api = format!("http://{}/", listener.local_addr().unwrap());
    let o = run_to_end(kozyr(
        dir.path(),
        &["run"],
        &[
            ("TELOXIDE_TOKEN", PLACEHOLDER_TOKEN),
            ("TELOXIDE_API_URL", &api),
        ],
    ));
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains(
            "put your token from BotFather (https://t.me/BotFather, /newbot) in TELOXIDE_TOKEN"
        ),
        "{err}"
    );
    assert_eq!(
        listener.accept().map_err(|e| e.kind()).err(),
        Some(std::io::ErrorKind::WouldBlock),
        "nobody connected"
    );
    assert!(!dir.path().join("kozyr.db").exists());
}

// ------------------------------------------------- 3 and 8: the database --

// SQLite-specific: a database file's folder.
#[test]
fn a_database_in_a_missing_folder_is_named_with_the_cause_before_any_network_wait() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data").join("kozyr.db");
    let url = format!("sqlite://{}", db.display());
    let api = format!("http://127.0.0.1:{}/", refused_port());
    let o = run_to_end(kozyr(
        dir.path(),
        &["run"],
        &[
            ("TELOXIDE_TOKEN", TOKEN),
            ("TELOXIDE_API_URL", &api),
            ("DATABASE_URL", &url),
        ],
    ));
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o).trim(),
        format!(
            "kozyr: cannot open the database {}: directory {} does not exist (create it, or mount a volume there)",
            db.display(),
            dir.path().join("data").display()
        )
    );
}

/// SQLite database files (the default `DATABASE_URL` names one) under
/// both settings; on PostgreSQL also a database without kozyr's tables,
/// which `export` names as such and leaves without them.
#[test]
fn admin_commands_never_create_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kozyr.db");
    let out = dir.path().join("out.jsonl");
    let backup = dir.path().join("backup.db");
    let out_s = out.display().to_string();
    let backup_s = backup.display().to_string();
    let commands: [&[&str]; 3] = [
        &["export", "--chat", "telegram:-100123", "--out", &out_s],
        &["backup", "--out", &backup_s],
        &["healthcheck"],
    ];
    // Once with the default DATABASE_URL (kozyr.db in the working folder,
    // the "run from another folder" case), once with an explicit one.
    for env in [
        vec![],
        vec![("DATABASE_URL", format!("sqlite://{}", db.display()))],
    ] {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        for args in commands {
            let o = run_to_end(kozyr(dir.path(), args, &env));
            assert!(!o.status.success(), "{args:?}");
            assert_eq!(
                stderr(&o).trim(),
                format!(
                    "kozyr: there is no database at {} (check DATABASE_URL, and the folder the command runs in)",
                    db.display()
                ),
                "{args:?}"
            );
            assert!(!db.exists(), "{args:?} created the database");
            assert!(!out.exists() && !backup.exists(), "{args:?} wrote a file");
        }
    }
    std::fs::write(&db, b"").unwrap();
    let url = format!("sqlite://{}", db.display());
    for args in commands {
        let o = run_to_end(kozyr(dir.path(), args, &[("DATABASE_URL", &url)]));
        assert!(!o.status.success(), "{args:?}");
        assert!(
            stderr(&o).contains(&format!("the database {} is empty", db.display())),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(!out.exists() && !backup.exists(), "{args:?} wrote a file");
    }
    if on_postgres() {
        let url = crate::support::postgres::fresh_url();
        let shown = kozyr::store::postgres::redacted(&url);
        // Twice: the first made no tables.
        for _ in 0..2 {
            let o = run_to_end(kozyr(dir.path(), commands[0], &[("DATABASE_URL", &url)]));
            assert!(!o.status.success());
            assert_eq!(
                stderr(&o).trim(),
                format!(
                    "kozyr: the PostgreSQL database {shown} has no kozyr tables (check \
                     DATABASE_URL)"
                )
            );
        }
        let o = run_to_end(kozyr(dir.path(), commands[1], &[("DATABASE_URL", &url)]));
        assert!(!o.status.success());
        assert!(stderr(&o).contains("use pg_dump"), "{}", stderr(&o));
        assert!(!out.exists() && !backup.exists(), "a file was written");
    }
}

// -------------------------------------------------------- 7: metrics --

/// The value of the sample line starting with `series` (name and labels).
fn sample(body: &str, series: &str) -> Option<f64> {
    body.lines().find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_move_when_a_game_is_played_through_the_fake_bot_api() {
    let fake = fake_with_token(TOKEN).await;
    let dir = tempfile::tempdir().unwrap();
    let db = db_url(dir.path());
    let api = fake.api_url().to_string();
    let config = Config::from_lookup(|k| match k {
        "TELOXIDE_TOKEN" => Some(TOKEN.into()),
        "DATABASE_URL" => Some(db.clone()),
        "TELOXIDE_API_URL" => Some(api.clone()),
        "KOZYR_TURN_SECONDS" => Some("0".into()),
        "KOZYR_METRICS_LISTEN" => Some("127.0.0.1:0".into()),
        _ => None,
    })
    .unwrap();
    let bot = start(&config, fast_tuning()).await.unwrap();
    // As `kozyr run` does: the endpoint with its own reader of the database.
    let reader = Opened::open_existing(&StoreOptions::new(db.clone()))
        .await
        .unwrap();
    let (addr, server) =
        kozyr::metrics::serve(config.metrics_listen.unwrap(), Some(reader.table_counter()))
            .await
            .unwrap();

    let d = Driver::new(fake.clone(), "M");
    d.open_kozel_table().await.unwrap();
    let service = bot.service().clone();
    let id = service
        .open_table(&d.chat_key())
        .await
        .unwrap()
        .unwrap()
        .id();
    // One 429 on the group's next edit.
    fake.inject(
        Fault::too_many_requests(1)
            .method("editMessageText")
            .chat(d.group)
            .times(1),
    );
    for _ in 0..6 {
        let t = service.table(id).await.unwrap().unwrap();
        d.play_safe(&t, Duration::ZERO).await.unwrap();
    }
    // A second /kozel while the table is open is refused by the rules.
    fake.user_says(d.group, d.users[1], "/kozel").unwrap();

    let checks: [(&str, f64); 9] = [
        ("kozyr_moves_total{by=\"person\"}", 6.0),
        ("kozyr_move_seconds_count", 6.0),
        (
            "kozyr_tables_open{platform=\"telegram\",phase=\"playing\"}",
            1.0,
        ),
        (
            "kozyr_api_calls_total{platform=\"telegram\",method=\"sendMessage\",outcome=\"ok\"}",
            5.0,
        ),
        (
            "kozyr_api_calls_total{platform=\"telegram\",method=\"editMessageText\",outcome=\"ok\"}",
            1.0,
        ),
        (
            "kozyr_api_rate_limited_total{platform=\"telegram\",method=\"editMessageText\"}",
            1.0,
        ),
        ("kozyr_pacer_pause_seconds_count{lane=\"group\"}", 1.0),
        ("kozyr_db_commit_seconds_count", 10.0),
        (
            "kozyr_commands_refused_total{command=\"create\",reason=\"table_already_open\"}",
            1.0,
        ),
    ];
    // The outbox and the refusal run on their own time: scrape until all
    // moved, or give up after a while and show what was there.
    let deadline = Instant::now() + Duration::from_secs(20);
    let body = loop {
        let body = reqwest::get(format!("http://{addr}/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let done = checks
            .iter()
            .all(|(series, at_least)| sample(&body, series).is_some_and(|v| v >= *at_least));
        if done || Instant::now() > deadline {
            break body;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for (series, at_least) in checks {
        let v = sample(&body, series).unwrap_or_else(|| panic!("no {series} in\n{body}"));
        assert!(v >= at_least, "{series} = {v} < {at_least}\n{body}");
    }
    assert_eq!(
        sample(
            &body,
            "kozyr_tables_open{platform=\"discord\",phase=\"playing\"}"
        ),
        Some(0.0)
    );
    assert!(
        body.contains("kozyr_pacer_chats_waiting{lane=\"private\"}"),
        "{body}"
    );
    assert!(
        body.contains("# TYPE kozyr_move_seconds histogram"),
        "{body}"
    );
    server.abort();
    bot.stop().await;
}

// ------------------------------------------------------- 9: backups --

fn person(i: u32) -> Actor {
    Actor::person(Player::new(
        UserId::new(i.to_string()).unwrap(),
        &format!("Player {i}"),
        Lang::En,
    ))
}

async fn submit(s: &TableService, chat: &ChatKey, actor: Actor, command: Command) {
    s.submit(Request {
        target: Target::Chat(chat.clone()),
        actor,
        command,
        dedup: None,
    })
    .await
    .unwrap();
}

/// The awaited seat's safe move, as its player.
async fn play_one(s: &TableService, id: TableId) -> Table {
    let t = s.table(id).await.unwrap().unwrap();
    let seat: Seat = t.awaiting()[0];
    let action = t.game().unwrap().safe_action(seat).unwrap();
    let actor = match &t.seats()[seat] {
        SeatState::Person { player, .. } => Actor::person(player.clone()),
        _ => Actor::Ai,
    };
    let version = t.version();
    s.submit(Request {
        target: Target::Table(id),
        actor,
        command: Command::Act {
            seat,
            action,
            version,
        },
        dedup: None,
    })
    .await
    .unwrap();
    t
}

// SQLite-specific: SQLite's own backup (`VACUUM INTO`); on PostgreSQL
// `kozyr backup` points to pg_dump (`kozyr_backup_copies_a_database_in_use`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_mid_deal_restores_and_the_game_goes_on() {
    let live = tempfile::tempdir().unwrap();
    let store = Store::open(&StoreOptions::new(sqlite_url(live.path())))
        .await
        .unwrap();
    let (service, mut effects) = TableService::builder(store.clone()).start().await.unwrap();
    // Nobody reads the effects here; drain them so nothing piles up.
    tokio::spawn(async move { while effects.recv().await.is_some() {} });
    let chat = ChatKey::new(Platform::Telegram, "-100777").unwrap();
    submit(
        &service,
        &chat,
        person(1),
        Command::Create {
            kind: GameKind::Kozel,
            settings: Settings {
                turn_timer: None,
                ..Settings::default()
            },
            title: "Backups".into(),
            sit: true,
        },
    )
    .await;
    for i in 2..=4 {
        submit(&service, &chat, person(i), Command::Join { seat: None }).await;
    }
    submit(&service, &chat, person(1), Command::Start).await;
    let id = service.open_table(&chat).await.unwrap().unwrap().id();
    for _ in 0..3 {
        play_one(&service, id).await;
    }
    let before = service.table(id).await.unwrap().unwrap().version();

    // Moves keep coming while the backup is taken.
    let player = {
        let service = service.clone();
        tokio::spawn(async move {
            for _ in 0..8 {
                play_one(&service, id).await;
            }
        })
    };
    let backups = tempfile::tempdir().unwrap();
    let copy = backups.path().join("kozyr-backup.db");
    let bytes = store.backup_to(&copy).await.unwrap();
    assert!(bytes > 0 && copy.exists());
    assert!(!backups.path().join("kozyr-backup.db.partial").exists());
    player.await.unwrap();
    // A second backup to the same name is refused, not overwritten.
    let again = store.backup_to(&copy).await.unwrap_err().to_string();
    assert!(again.contains("already exists"), "{again}");
    let live_log = store.events(id).await.unwrap();
    service.shutdown().await;
    store.close().await;

    // Restore as the README says: the copy becomes the database, with no
    // -wal or -shm beside it.
    let restored = tempfile::tempdir().unwrap();
    std::fs::copy(&copy, restored.path().join("kozyr.db")).unwrap();
    let store = Store::open(&StoreOptions::new(sqlite_url(restored.path())))
        .await
        .unwrap();
    let log = store.events(id).await.unwrap();
    // A consistent snapshot: a prefix of the live log, from mid-deal.
    assert!(log.len() as u64 >= before, "{} < {before}", log.len());
    assert_eq!(log[..], live_log[..log.len()]);
    let table = store.table(id).await.unwrap().unwrap();
    assert_eq!(Some(&table), store.replay(id).await.unwrap().as_ref());
    assert_eq!(table.version(), log.len() as u64);
    assert_eq!(table.phase(), Phase::Playing);

    let (service, mut effects) = TableService::builder(store.clone()).start().await.unwrap();
    tokio::spawn(async move { while effects.recv().await.is_some() {} });
    for _ in 0..5 {
        play_one(&service, id).await;
    }
    let t = service.table(id).await.unwrap().unwrap();
    assert_eq!(t.version(), table.version() + 5);
    assert_eq!(Some(&t), store.replay(id).await.unwrap().as_ref());
    service.shutdown().await;
    store.close().await;
}

/// `kozyr backup` of a database the bot has open: on SQLite a copy that
/// opens as a database; on PostgreSQL the advice to use `pg_dump`, and no
/// file written.
#[test]
fn kozyr_backup_copies_a_database_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let url = db_url(dir.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    // The bot's store stays open (on SQLite: WAL, the writer connected)
    // during the backup.
    let store = rt.block_on(TestStore::open(&url));
    let out = dir.path().join("copy.db");
    let o = run_to_end(kozyr(
        dir.path(),
        &["backup", "--out", "copy.db"],
        &[("DATABASE_URL", &url)],
    ));
    if on_postgres() {
        assert!(!o.status.success());
        assert!(stderr(&o).contains("use pg_dump"), "{}", stderr(&o));
        assert!(!out.exists());
    } else {
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).starts_with("copy.db ("));
        let copy = rt
            .block_on(Store::open_existing(&StoreOptions::new(format!(
                "sqlite://{}",
                out.display()
            ))))
            .unwrap();
        assert_eq!(rt.block_on(copy.open_table_ids()).unwrap(), vec![]);
        rt.block_on(copy.close());
    }
    rt.block_on(store.close());
}
