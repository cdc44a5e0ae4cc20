//! The layers of `docs/ARCHITECTURE.md` as the source has them: a layer
//! names nothing above it (cards → engines → game → table → store → front →
//! delivery → outlet, config → shells; `metrics` a leaf every layer records
//! into). Each layer beneath the shells is a crate, so what it may name is
//! its manifest, checked here and kept by the compiler; the rest is checked
//! on the source text (the game-specific behaviour the front-end's card
//! menus need goes through the game's own interface), so a later import
//! that runs back up a layer fails here, not in review.
//! And the behaviour that moved behind that interface still gives what it
//! gave: Hearts deal records built from a table's events are the records
//! the simulator writes for the same moves.

use std::path::PathBuf;

use kozyr::cards::Seat;
use kozyr::game::records::{DealRecord, DealRecorder};
use kozyr::game::{Game, GameAction, GameKind, GameOptions};
use kozyr::hearts::{Action, HeartsOptions};
use kozyr::sim::hearts::play_game;

use crate::support::source_files;

/// The product's `.rs` files under `src/<dir>` (or the file `src/<dir>.rs`),
/// tests left out.
fn product_files(dir: &str) -> Vec<PathBuf> {
    let mut files = source_files(dir);
    files.retain(|p| {
        !matches!(
            p.file_stem().and_then(|s| s.to_str()),
            Some("tests" | "test" | "snapshots")
        )
    });
    files
}

/// `text` without comments and without `#[cfg(test)] mod … { … }` blocks.
fn product_text(text: &str) -> String {
    let mut kept = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        kept.push_str(&rest[..at]);
        let after = &rest[at..];
        let Some(open) = after.find('{') else {
            rest = "";
            break;
        };
        let is_mod = after[..open].contains("mod ");
        if !is_mod {
            kept.push_str("#[cfg(test)]");
            rest = &after["#[cfg(test)]".len()..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, ch) in after[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    kept.push_str(rest);
    kept.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a `use crate::{a, b::c}` names (`a`, `b`).
fn grouped_crate_imports(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in text.match_indices("crate::{") {
        let group = &text[at + "crate::{".len()..];
        let mut depth = 1usize;
        let mut item = String::new();
        let mut at_item_start = true;
        for ch in group.chars() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 1 => {
                    if !item.is_empty() {
                        names.push(std::mem::take(&mut item));
                    }
                    at_item_start = true;
                    continue;
                }
                _ => {}
            }
            if depth == 0 {
                break;
            }
            if depth == 1 && at_item_start {
                if ch.is_alphanumeric() || ch == '_' {
                    item.push(ch);
                } else if !item.is_empty() {
                    names.push(std::mem::take(&mut item));
                    at_item_start = false;
                }
            }
        }
        if !item.is_empty() {
            names.push(item);
        }
    }
    names
}

/// Every `(file, path)` where a product file of `dir` names one of `banned`.
fn offences(dir: &str, banned: &[&str]) -> Vec<String> {
    let files = product_files(dir);
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let text = product_text(&text);
        let grouped = grouped_crate_imports(&text);
        for b in banned {
            let in_group = b
                .strip_prefix("crate::")
                .is_some_and(|m| !m.is_empty() && grouped.iter().any(|g| g == m));
            if text.contains(b) || in_group {
                found.push(format!("{} names {b}", f.display()));
            }
        }
    }
    found
}

#[test]
fn no_module_names_a_layer_above_it() {
    let rules: &[(&str, &[&str])] = &[
        // The rules engines, `cards`, `game`, `ai`, `sim`, `i18n`, the
        // table service, the store, the front, delivery, the outlet, the
        // Mini App, the configuration and both drivers are crates of their
        // own:
        // what they may name is their manifests'
        // (`the_crates_depend_only_on_what_their_layer_may_use`).
        // Metrics are recorded by whoever measures: a leaf.
        ("metrics", &["crate::"]),
        // Delivery decides for every platform and knows none, and awaits
        // nothing: time and call results come in as inputs; the loop
        // that awaits is `outlet`, above it. Its manifest names no tokio
        // and no platform; no `async` either, as only the text can say.
        ("crates/delivery/src", &["async"]),
        // The card menus ask each game's front-end what a move takes.
        (
            "crates/front/src/select",
            &["kozyr_kozel", "kozyr_hearts", "kozel::", "hearts::"],
        ),
        ("crates/front/src/present/mod", &["games::"]),
    ];
    let found: Vec<String> = rules
        .iter()
        .flat_map(|(dir, banned)| offences(dir, banned))
        .collect();
    assert!(
        found.is_empty(),
        "imports up a layer:\n{}",
        found.join("\n")
    );
}

/// A fixed pick among `legal` for move number `n`: the same moves whichever
/// way the game is driven.
fn pick(n: &mut u64, legal: usize) -> usize {
    *n = n
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    ((*n >> 33) % legal as u64) as usize
}

#[test]
fn hearts_records_through_the_game_interface_are_the_simulators() {
    for seed in [3_u64, 41, 977] {
        let options = HeartsOptions::default();
        let mut n = seed;
        let simulated = play_game("t7", 2, options, seed, |_: Seat, _, legal: &[Action]| {
            legal[pick(&mut n, legal.len())]
        })
        .unwrap();

        // The same moves through `Game`, recorded as a table's log replay does.
        let game_options = GameOptions { hearts: options };
        let mut game = Game::new(GameKind::Hearts, game_options, seed);
        let mut recorder = DealRecorder::start(&game, "t7", 2);
        let mut recorded = Vec::new();
        let mut n = seed;
        while let Some(&seat) = game.awaiting().first() {
            let legal: Vec<GameAction> = game.legal_actions(seat);
            let action = legal[pick(&mut n, legal.len())];
            let events = game.apply(seat, action).unwrap();
            if let Some(record) = recorder.feed(&events, &game, "t7", 2) {
                recorded.push(record);
                recorder = DealRecorder::start(&game, "t7", 2);
            }
        }
        assert!(simulated.len() >= 2, "seed {seed}: a whole game has deals");
        let recorded: Vec<_> = recorded
            .into_iter()
            .map(|r| match r {
                DealRecord::Hearts(r) => *r,
                DealRecord::Kozel(r) => panic!("a Kozel record from Hearts: {r:?}"),
            })
            .collect();
        assert_eq!(recorded, simulated, "seed {seed}");
        assert!(recorded.last().is_some_and(|r| r.game_over));
    }
}

/// The shells only shrink toward drivers (issue 28's aim: at most 5,000
/// lines together, at most 6 lines that read a clock — decisions and time
/// belong to `delivery` and `outlet`). Each figure may go down, never up:
/// lower the constant when it does.
#[test]
fn the_shells_figures_only_go_down() {
    const SHELL_LINES: usize = 4_993;
    const CLOCK_READ_LINES: usize = 4;
    let (mut lines, mut clock) = (0, Vec::new());
    for dir in ["crates/telegram/src", "crates/discord/src"] {
        for f in source_files(dir) {
            let text = std::fs::read_to_string(&f).unwrap();
            lines += text.lines().count();
            for (n, l) in text.lines().enumerate() {
                if ["Instant::now", "SystemTime::now", ".elapsed()"]
                    .iter()
                    .any(|c| l.contains(c))
                {
                    clock.push(format!("{}:{}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        lines <= SHELL_LINES,
        "the shells grew to {lines} lines (at most {SHELL_LINES})"
    );
    assert!(
        clock.len() <= CLOCK_READ_LINES,
        "the shells read a clock on {} lines (at most {CLOCK_READ_LINES}):\n{}",
        clock.len(),
        clock.join("\n")
    );
}

/// The names a manifest's `[dependencies]` section lists (its
/// dev-dependencies are its tests' own business).
fn dependency_names(manifest: &str) -> Vec<String> {
    let mut section = "";
    let mut named = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if section == "[dependencies]"
            && !line.starts_with('#')
            && let Some((name, _)) = line.split_once('=')
        {
            named.push(name.trim().to_owned());
        }
    }
    named
}

/// The crates under `crates/` — the card vocabulary, the rules engines, the
/// one interface over them, the AI players, the record simulator, and the
/// metrics' names and recorder — name in their manifests nothing but each
/// other and a few plain crates: no IO, async, storage or platform crate
/// can be reached from the rules, as the compiler keeps it. And none of
/// their folders is back under `src/`.
#[test]
fn the_crates_depend_only_on_what_their_layer_may_use() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let allowed: &[(&str, &[&str])] = &[
        ("cards", &["serde", "thiserror"]),
        ("kozel", &["kozyr-cards", "serde", "rand", "thiserror"]),
        ("hearts", &["kozyr-cards", "serde", "rand", "thiserror"]),
        (
            "game",
            &[
                "kozyr-cards",
                "kozyr-kozel",
                "kozyr-hearts",
                "serde",
                "thiserror",
                "tracing",
            ],
        ),
        (
            "ai",
            &[
                "kozyr-cards",
                "kozyr-kozel",
                "kozyr-hearts",
                "kozyr-game",
                "serde",
                "rand",
                "thiserror",
                "clap",
            ],
        ),
        (
            "sim",
            &[
                "kozyr-cards",
                "kozyr-kozel",
                "kozyr-hearts",
                "kozyr-game",
                "kozyr-ai",
                "serde_json",
                "thiserror",
            ],
        ),
        // The table service reaches storage through its own trait, reads
        // no configuration, knows each game only through `game` and no
        // platform: what it may name is below it (the engines only for
        // its tests, as dev-dependencies).
        (
            "table",
            &[
                "kozyr-cards",
                "kozyr-game",
                "kozyr-ai",
                "kozyr-i18n",
                "kozyr-metrics",
                "serde",
                "serde_json",
                "rand",
                "thiserror",
                "tracing",
                "tokio",
            ],
        ),
        // The store implements the table service's trait: it names the
        // service and what the service's types are made of, its databases,
        // and no configuration, front or platform.
        (
            "store",
            &[
                "kozyr-table",
                "kozyr-game",
                "kozyr-metrics",
                "serde",
                "serde_json",
                "thiserror",
                "tracing",
                "tokio",
                "sqlx",
                "url",
                "tokio-stream",
            ],
        ),
        // The front-end as data: the one layer above the engines that
        // knows each game, and no platform, store or delivery.
        (
            "front",
            &[
                "kozyr-cards",
                "kozyr-kozel",
                "kozyr-hearts",
                "kozyr-game",
                "kozyr-i18n",
                "kozyr-table",
                "thiserror",
                "tracing",
                "tokio",
            ],
        ),
        // Delivery: every decision about what goes out when, for every
        // platform, sans-IO — no tokio, no platform, no store.
        (
            "delivery",
            &[
                "kozyr-cards",
                "kozyr-game",
                "kozyr-i18n",
                "kozyr-metrics",
                "kozyr-table",
                "kozyr-front",
                "tracing",
            ],
        ),
        // The loop under the shells serves them all and names none: it
        // awaits what delivery decides.
        (
            "outlet",
            &[
                "kozyr-delivery",
                "kozyr-front",
                "kozyr-i18n",
                "kozyr-table",
                "tokio",
                "tracing",
            ],
        ),
        // The Mini App: one more front-end over the front, an HTTP server
        // and Telegram's signature check; no shell, store or delivery.
        (
            "webapp",
            &[
                "kozyr-cards",
                "kozyr-game",
                "kozyr-i18n",
                "kozyr-table",
                "kozyr-front",
                "axum",
                "tokio",
                "serde",
                "serde_json",
                "thiserror",
                "tracing",
                "url",
                "tokio-stream",
                "hmac",
                "sha2",
                "hex",
            ],
        ),
        // The configuration and the start every platform shares: beneath
        // the shells, so it names none.
        (
            "config",
            &[
                "kozyr-ai",
                "kozyr-i18n",
                "kozyr-table",
                "kozyr-store",
                "kozyr-front",
                "thiserror",
                "tracing",
                "tokio",
                "url",
                "base64",
            ],
        ),
        // The Telegram driver: the layers beneath it and its platform's
        // crates; never Discord's nor the Mini App.
        (
            "telegram",
            &[
                "kozyr-cards",
                "kozyr-config",
                "kozyr-delivery",
                "kozyr-front",
                "kozyr-i18n",
                "kozyr-metrics",
                "kozyr-outlet",
                "kozyr-table",
                "teloxide",
                "tokio",
                "tracing",
                "thiserror",
                "serde",
                "serde_json",
                "url",
                "axum",
                "subtle",
            ],
        ),
        // The Discord driver: the layers beneath it and its platform's
        // crates; never Telegram's nor the Mini App.
        (
            "discord",
            &[
                "kozyr-cards",
                "kozyr-config",
                "kozyr-delivery",
                "kozyr-front",
                "kozyr-i18n",
                "kozyr-metrics",
                "kozyr-outlet",
                "kozyr-table",
                "twilight-gateway",
                "twilight-http",
                "twilight-http-ratelimiting",
                "twilight-model",
                "twilight-util",
                "rustls",
                "ed25519-dalek",
                "hex",
                "reqwest",
                "axum",
                "tokio",
                "tracing",
                "thiserror",
                "serde",
                "serde_json",
            ],
        ),
        // Every text in four languages: a leaf every layer may use.
        (
            "i18n",
            &["serde", "thiserror", "tracing", "fluent-templates"],
        ),
        // A leaf every layer records into: no HTTP (the endpoint is the
        // root package's `metrics::serve`).
        (
            "metrics",
            &[
                "thiserror",
                "metrics",
                "metrics-exporter-prometheus",
                "metrics-process",
            ],
        ),
    ];
    for (krate, may) in allowed {
        let manifest = std::fs::read_to_string(root.join("crates").join(krate).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("crates/{krate}/Cargo.toml: {e}"));
        let named = dependency_names(&manifest);
        assert!(
            !named.is_empty(),
            "crates/{krate} names no dependency section"
        );
        for name in &named {
            assert!(
                may.contains(&name.as_str()),
                "crates/{krate} depends on {name}, which the rules may not use"
            );
        }
        assert!(
            !root.join("src").join(krate).exists(),
            "src/{krate} is back beside crates/{krate}"
        );
    }
}

/// The test kit (`crates/test-kit`: the strict fakes of Telegram and
/// Discord) and the load generator (`crates/loadtest`) are tools, never
/// part of the product: the kit knows no kozyr crate (a fake speaks its
/// platform's protocol, whatever bot talks to it); no crate of the
/// product names either but for its own tests (dev-dependencies); only
/// the load generator, a tool itself, uses the kit; and the load
/// generator is no default member, so building the product never unifies
/// its `dev-tools` in.
#[test]
fn the_test_kit_is_no_part_of_the_product() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let kit = std::fs::read_to_string(root.join("crates/test-kit/Cargo.toml")).unwrap();
    let kit_names = dependency_names(&kit);
    assert!(!kit_names.is_empty(), "crates/test-kit names no dependency");
    for name in &kit_names {
        assert!(
            !name.starts_with("kozyr"),
            "the test kit depends on a kozyr crate: {name}"
        );
    }
    let tools = ["test-kit", "loadtest"];
    let mut product = vec![root.join("Cargo.toml")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        if !tools.iter().any(|t| dir.ends_with(t)) {
            product.push(dir.join("Cargo.toml"));
        }
    }
    assert!(product.len() > 10, "the product's manifests: {product:?}");
    for path in &product {
        let manifest = std::fs::read_to_string(path).unwrap();
        for name in dependency_names(&manifest) {
            assert!(
                !name.starts_with("kozyr-test-kit") && !name.starts_with("kozyr-loadtest"),
                "{} depends on a tool: {name}",
                path.display()
            );
        }
    }
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let default_members = workspace
        .split("default-members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("the workspace names its default members");
    assert!(
        default_members.contains("crates/test-kit") && !default_members.contains("crates/loadtest"),
        "the load generator is a default member: {default_members}"
    );
}
