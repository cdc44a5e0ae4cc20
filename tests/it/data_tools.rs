//! The database as operators meet it (issues 21 and 22), through the
//! `kozyr` binary itself (`CARGO_BIN_EXE_kozyr`) in a temporary folder with
//! a clean environment: the health check of a stopped bot, a database the
//! bot cannot write, data tools that only read, exports that say what they
//! wrote, databases from a newer kozyr or damaged.

use std::path::Path;
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use crate::support::store::{TestStore, on_postgres, sqlite_url};
use crate::support::telegram::fake_with_token;
use crate::support::{kozyr, kozyr_at, run_to_end};

const TOKEN: &str = "123456:DATA-fake-token-kozyr-data-tools-tests-0123456";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The database of the test whose folder is `dir`, on the tests' backend.
fn db_url(dir: &Path) -> String {
    crate::support::store::url_for(dir)
}

/// The health check used to stay green for up to 60 s after the bot had
/// stopped (until its heartbeat went stale).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_check_fails_as_soon_as_the_bot_stopped() {
    let fake = fake_with_token(TOKEN).await;
    let dir = tempfile::tempdir().unwrap();
    let url = db_url(dir.path());
    let api = fake.api_url().to_string();
    let env = [
        ("TELOXIDE_TOKEN", TOKEN),
        ("TELOXIDE_API_URL", api.as_str()),
        ("DATABASE_URL", url.as_str()),
        ("RUST_LOG", "info"),
    ];
    let mut bot = kozyr(dir.path(), &["run"], &env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let root = dir.path().to_path_buf();
    let healthy = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let o = run_to_end(kozyr(
                &root,
                &["healthcheck"],
                &[("DATABASE_URL", &db_url(&root))],
            ));
            if o.status.success() {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    })
    .await
    .unwrap();
    assert!(healthy, "the running bot never became healthy");
    let term = Process::new("kill")
        .args(["-TERM", &bot.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let stopped = tokio::task::spawn_blocking(move || bot.wait().unwrap())
        .await
        .unwrap();
    assert!(stopped.success(), "{stopped:?}");
    let o = run_to_end(kozyr(
        dir.path(),
        &["healthcheck"],
        &[("DATABASE_URL", &url)],
    ));
    assert!(!o.status.success(), "healthy after the bot stopped");
    assert!(
        text(&o.stderr).contains("the bot stopped"),
        "{}",
        text(&o.stderr)
    );
}

/// A loopback port nothing listens on (connections are refused).
fn refused_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Someone the bot's files do not belong to: as root (CI) the bot runs as
/// `nobody`, since root may write any file whatever its mode.
const NOBODY: u32 = 65534;

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Makes `file` read-only for the user `as_bot` runs as: as root, a file
/// of root's; anyone else's loses the write bit.
fn read_only(file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mode = if is_root() {
        std::os::unix::fs::chown(file, Some(0), Some(0)).unwrap();
        0o644
    } else {
        0o444
    };
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Gives `file` back to the user `as_bot` runs as, writable.
fn writable_again(file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if is_root() {
        std::os::unix::fs::chown(file, Some(NOBODY), Some(NOBODY)).unwrap();
    }
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
}

/// `kozyr` as the bot's user: as root, `nobody`, from a copy of the binary
/// it can reach (the build may live below a folder only root may enter).
fn as_bot(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Process {
    if !is_root() {
        return kozyr(dir, args, env);
    }
    use std::os::unix::process::CommandExt;
    let mut cmd = kozyr_at(&binary_for_nobody(), dir, args, env);
    cmd.uid(NOBODY).gid(NOBODY);
    cmd
}

/// The test binary's `kozyr`, or a link or copy of it in a folder anyone
/// may enter, made once per test process.
fn binary_for_nobody() -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    static BINARY: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    BINARY
        .get_or_init(|| {
            let original = Path::new(env!("CARGO_BIN_EXE_kozyr"));
            let reachable = original
                .ancestors()
                .skip(1)
                .all(|d| std::fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0));
            if reachable {
                return original.to_path_buf();
            }
            let folder = std::env::temp_dir().join(format!("kozyr-nobody-{}", std::process::id()));
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
            let copy = folder.join("kozyr");
            if !copy.exists() && std::fs::hard_link(original, &copy).is_err() {
                std::fs::copy(original, &copy).unwrap();
            }
            std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
            copy
        })
        .clone()
}

/// A database the bot cannot write used to start a bot that polled and
/// answered every move "try again", healthy; after the file was made
/// writable, its `-wal` and `-shm` still were not.
// SQLite-specific: the database file's and its companions' modes.
#[tokio::test]
async fn the_bot_refuses_to_start_on_a_database_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(dir.path());
    kozyr::store::Store::open(&kozyr::store::StoreOptions::new(&url))
        .await
        .unwrap()
        .close()
        .await;
    if is_root() {
        // The folder is the bot's; the files are another user's.
        std::os::unix::fs::chown(dir.path(), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let db = dir.path().join("kozyr.db");
    let wal = dir.path().join("kozyr.db-wal");
    let shm = dir.path().join("kozyr.db-shm");
    let named = |line: &str, f: &Path| line.contains(&format!("{} (uid", f.display()));
    read_only(&db);
    let api = format!("http://127.0.0.1:{}/", refused_port());
    let start = || {
        run_to_end(as_bot(
            dir.path(),
            &["run"],
            &[
                ("TELOXIDE_TOKEN", TOKEN),
                ("TELOXIDE_API_URL", &api),
                ("DATABASE_URL", &url),
            ],
        ))
    };
    // SQLite opens the file read-only without a word, and with nothing to
    // migrate it is only read at start: the bot used to start.
    let o = start();
    assert!(!o.status.success(), "the bot started: {}", text(&o.stderr));
    let line = text(&o.stderr);
    assert!(
        line.starts_with(&format!(
            "kozyr: cannot open the database {}: ",
            db.display()
        )),
        "{line}"
    );
    assert!(
        named(&line, &db) && line.contains("is not writable by uid"),
        "{line}"
    );

    // As a bot killed mid-run as another user leaves them.
    for f in [&wal, &shm] {
        if !f.exists() {
            std::fs::write(f, b"").unwrap();
        }
        read_only(f);
    }
    let o = start();
    assert!(!o.status.success(), "the bot started: {}", text(&o.stderr));
    let said = text(&o.stderr);
    assert_eq!(said.lines().count(), 1, "{said}");
    let line = said.trim();
    assert!(
        line.starts_with(&format!(
            "kozyr: cannot open the database {}: ",
            db.display()
        )),
        "{line}"
    );
    for f in [&db, &wal, &shm] {
        assert!(named(line, f), "{line}");
    }
    assert!(line.contains("are not writable by uid"), "{line}");

    // The file is fixed, its companions are not.
    writable_again(&db);
    let o = start();
    assert!(!o.status.success(), "the bot started: {}", text(&o.stderr));
    let line = text(&o.stderr);
    assert!(
        named(&line, &wal) && named(&line, &shm) && !named(&line, &db),
        "{line}"
    );
}

/// A SQLite file in `dir` with one table (a lobby, no deal finished) in
/// chat -100.
async fn database_with_a_table(dir: &Path) -> String {
    let url = sqlite_url(dir);
    let store = kozyr::store::Store::open(&kozyr::store::StoreOptions::new(&url))
        .await
        .unwrap();
    let (s, _outputs) = kozyr::table::runtime::TableService::builder(store)
        .start()
        .await
        .unwrap();
    s.submit(kozyr::table::runtime::Request {
        target: kozyr::table::runtime::Target::Chat(crate::support::chat("-100")),
        actor: crate::support::person(1),
        command: kozyr::table::Command::Create {
            kind: kozyr::game::GameKind::Kozel,
            settings: crate::support::no_timer(),
            title: "Chat".into(),
            sit: true,
        },
        dedup: None,
    })
    .await
    .unwrap();
    s.close().await;
    url
}

/// `backup` and `export` used to refuse a database file their user could
/// not write ("not writable by uid …") although they only read it; an
/// export silently overwrote `--out`, wrote an empty file for a chat the
/// database does not have, and did not say what it wrote.
// SQLite-specific: a database file its reader may not write, and the
// file `backup` copies (on PostgreSQL: `admin::kozyr_backup_copies_…`;
// exports: `export_with_current_…`).
#[tokio::test]
async fn data_tools_only_read_never_overwrite_and_say_what_they_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let url = database_with_a_table(dir.path()).await;
    if is_root() {
        std::os::unix::fs::chown(dir.path(), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let db = dir.path().join("kozyr.db");
    read_only(&db);
    let before = std::fs::read(&db).unwrap();
    let tool = |args: &[&str]| run_to_end(as_bot(dir.path(), args, &[("DATABASE_URL", &url)]));
    let out = dir.path().join("chat.jsonl");

    let o = tool(&["export", "--chat", "telegram:-100", "--out", "chat.jsonl"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout).trim(),
        "chat.jsonl: 0 finished deals from 1 table of telegram:-100"
    );
    assert!(out.exists());
    let o = tool(&["backup", "--out", "copy.db"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(dir.path().join("copy.db").exists());
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "a data tool wrote the database"
    );

    // An existing --out is refused and kept.
    std::fs::write(&out, b"precious\n").unwrap();
    let o = tool(&["export", "--chat", "telegram:-100", "--out", "chat.jsonl"]);
    assert!(!o.status.success());
    assert_eq!(
        text(&o.stderr).trim(),
        format!("kozyr: chat.jsonl already exists (an export never overwrites a file)")
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"precious\n");

    // A chat the database has never seen.
    let o = tool(&["export", "--chat", "telegram:-999", "--out", "none.jsonl"]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).starts_with(&format!(
            "kozyr: the database {} has no chat telegram:-999: nothing to export",
            db.display()
        )),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.path().join("none.jsonl").exists());
}

/// A database written by a newer kozyr used to give sqlx's "migration
/// 20991231000000 was previously applied but is missing in the resolved
/// migrations"; a damaged one "database disk image is malformed" without
/// the file or what to do; `DATABASE_URL=sqlite://` "no such table: tables".
/// SQLite's files under both settings; on PostgreSQL also a database a
/// newer kozyr migrated, refused by `run` and `export` (and `backup`
/// points to pg_dump).
#[tokio::test]
async fn newer_damaged_and_nameless_databases_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let url = database_with_a_table(dir.path()).await;
    let db = dir.path().join("kozyr.db");
    {
        let mut conn = sqlx::ConnectOptions::connect(
            &url.parse::<sqlx::sqlite::SqliteConnectOptions>().unwrap(),
        )
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
             VALUES (20991231000000, 'from the future', 1, x'00', 0)",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::Connection::close(conn).await.unwrap();
    }
    let api = format!("http://127.0.0.1:{}/", refused_port());
    let commands: [&[&str]; 3] = [
        &["run"],
        &["export", "--chat", "telegram:-100", "--out", "chat.jsonl"],
        &["backup", "--out", "copy.db"],
    ];
    let env = |url: &str| {
        vec![
            ("TELOXIDE_TOKEN".to_owned(), TOKEN.to_owned()),
            ("TELOXIDE_API_URL".to_owned(), api.clone()),
            ("DATABASE_URL".to_owned(), url.to_owned()),
        ]
    };
    let run = |args: &[&str], url: &str| {
        let env = env(url);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        run_to_end(kozyr(dir.path(), args, &env))
    };
    let newest = kozyr::store::MIGRATOR
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap();
    for args in commands {
        let o = run(args, &url);
        assert!(!o.status.success(), "{args:?}");
        assert_eq!(
            text(&o.stderr).trim(),
            format!(
                "kozyr: the database {} is from a newer kozyr (it has migration 20991231000000; \
                 this kozyr knows up to {newest}): run that version of kozyr, or restore a \
                 backup taken before it",
                db.display()
            ),
            "{args:?}"
        );
    }
    assert!(!dir.path().join("chat.jsonl").exists() && !dir.path().join("copy.db").exists());

    // Not a database at all (as a half-copied or overwritten file is).
    std::fs::write(&db, vec![0x5a; 8192]).unwrap();
    for args in commands {
        let o = run(args, &url);
        assert!(!o.status.success(), "{args:?}");
        let said = text(&o.stderr);
        assert!(
            said.starts_with(&format!(
                "kozyr: the database {} is damaged (",
                db.display()
            )) && said.contains("restore the latest backup"),
            "{args:?}: {said}"
        );
    }

    for args in commands {
        let o = run(args, "sqlite://");
        assert!(!o.status.success(), "{args:?}");
        assert_eq!(
            text(&o.stderr).trim(),
            "kozyr: the database URL `sqlite://` names no file: give a path, e.g. sqlite:///data/kozyr.db",
            "{args:?}"
        );
    }

    if on_postgres() {
        let pg = tempfile::tempdir().unwrap();
        let url = db_url(pg.path());
        TestStore::open(&url).await.close().await;
        {
            let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
                .await
                .unwrap();
            sqlx::query(
                "INSERT INTO _sqlx_migrations (version, description, success, checksum, \
                 execution_time) VALUES (20991231000000, 'from the future', true, '\\x00', 0)",
            )
            .execute(&mut conn)
            .await
            .unwrap();
            sqlx::Connection::close(conn).await.unwrap();
        }
        let newest = kozyr::store::postgres::PG_MIGRATOR
            .iter()
            .map(|m| m.version)
            .max()
            .unwrap();
        let shown = kozyr::store::postgres::redacted(&url);
        for args in &commands[..2] {
            let o = run(args, &url);
            assert!(!o.status.success(), "{args:?}");
            assert_eq!(
                text(&o.stderr).trim(),
                format!(
                    "kozyr: the PostgreSQL database {shown} is from a newer kozyr (it has \
                     migration 20991231000000; this kozyr knows up to {newest}): run that \
                     version of kozyr"
                ),
                "{args:?}"
            );
        }
        let o = run(commands[2], &url);
        assert!(!o.status.success());
        assert!(
            text(&o.stderr).contains("use pg_dump"),
            "{}",
            text(&o.stderr)
        );
        assert!(!dir.path().join("chat.jsonl").exists() && !dir.path().join("copy.db").exists());
    }
}

/// `kozyr export` wrote only finished deals; `--with-current` adds the deal
/// still being played, marked unfinished. Never over a file, never of a
/// chat the database lacks.
#[tokio::test]
async fn export_with_current_writes_the_deal_in_progress_marked_unfinished() {
    use kozyr::table::runtime::{Request, TableService, Target};
    let dir = tempfile::tempdir().unwrap();
    let url = db_url(dir.path());
    let store = TestStore::open(&url).await;
    let (s, _outputs) = TableService::builder(store.shared()).start().await.unwrap();
    let chat = crate::support::chat("-200");
    let submit = |who: u32, command: kozyr::table::Command| {
        s.submit(Request {
            target: Target::Chat(chat.clone()),
            actor: crate::support::person(who),
            command,
            dedup: None,
        })
    };
    submit(
        1,
        kozyr::table::Command::Create {
            kind: kozyr::game::GameKind::Kozel,
            settings: crate::support::no_timer(),
            title: "Chat".into(),
            sit: true,
        },
    )
    .await
    .unwrap();
    for who in 2..5 {
        submit(who, kozyr::table::Command::Join { seat: None })
            .await
            .unwrap();
    }
    submit(1, kozyr::table::Command::Start).await.unwrap();
    s.close().await;

    let export = |args: &[&str]| run_to_end(kozyr(dir.path(), args, &[("DATABASE_URL", &url)]));
    let o = export(&[
        "export",
        "--chat",
        "telegram:-200",
        "--out",
        "finished.jsonl",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout).trim(),
        "finished.jsonl: 0 finished deals from 1 table of telegram:-200"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("finished.jsonl")).unwrap(),
        ""
    );

    let o = export(&[
        "export",
        "--chat",
        "telegram:-200",
        "--out",
        "current.jsonl",
        "--with-current",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout).trim(),
        "current.jsonl: 0 finished deals and 1 unfinished from 1 table of telegram:-200"
    );
    let written = std::fs::read_to_string(dir.path().join("current.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{written}");
    assert_eq!(lines[0]["game"], "kozel");
    assert_eq!(lines[0]["unfinished"], true);
    assert_eq!(lines[0]["deal"], 1);
    assert_eq!(lines[0]["hands"].as_array().map(Vec::len), Some(4));

    // On either backend: an existing --out is refused and kept, and a chat
    // the database has never seen is named (the database as the admin
    // gave it, a PostgreSQL URL without its password).
    let o = export(&[
        "export",
        "--chat",
        "telegram:-200",
        "--out",
        "current.jsonl",
    ]);
    assert!(!o.status.success());
    assert_eq!(
        text(&o.stderr).trim(),
        "kozyr: current.jsonl already exists (an export never overwrites a file)"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("current.jsonl")).unwrap(),
        written
    );
    let o = export(&["export", "--chat", "telegram:-999", "--out", "none.jsonl"]);
    assert!(!o.status.success());
    let shown = if on_postgres() {
        kozyr::store::postgres::redacted(&url)
    } else {
        dir.path().join("kozyr.db").display().to_string()
    };
    assert!(
        text(&o.stderr).starts_with(&format!(
            "kozyr: the database {shown} has no chat telegram:-999: nothing to export"
        )),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.path().join("none.jsonl").exists());
}

/// A database in a folder the tool may not write (a read-only mount, the
/// bot's folder read by another user) while no bot has it open: SQLite
/// cannot create the `-shm` a read-only connection needs, so the tools read
/// it as immutable.
// SQLite-specific: a file in a read-only folder.
#[tokio::test]
async fn data_tools_read_a_database_in_a_folder_they_cannot_write() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let url = database_with_a_table(dir.path()).await;
    assert!(!dir.path().join("kozyr.db-shm").exists());
    read_only(&dir.path().join("kozyr.db"));
    // Root's folder, 0755, is read-only to `nobody`; anyone else's is 0555.
    let mode = if is_root() { 0o755 } else { 0o555 };
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode)).unwrap();
    let outs = tempfile::tempdir().unwrap();
    if is_root() {
        std::os::unix::fs::chown(outs.path(), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let tool = |args: &[&str]| run_to_end(as_bot(outs.path(), args, &[("DATABASE_URL", &url)]));
    let o = tool(&["backup", "--out", "copy.db"]);
    let backed_up = o.status.success();
    let o2 = tool(&["export", "--chat", "telegram:-100", "--out", "chat.jsonl"]);
    if !is_root() {
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert!(backed_up, "{}", text(&o.stderr));
    assert!(o2.status.success(), "{}", text(&o2.stderr));
    assert!(outs.path().join("copy.db").exists());
    assert_eq!(
        text(&o2.stdout).trim(),
        "chat.jsonl: 0 finished deals from 1 table of telegram:-100"
    );
}
