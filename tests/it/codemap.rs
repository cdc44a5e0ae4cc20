//! `docs/ARCHITECTURE.md` stays a true, short codemap: at most
//! [`MAX_LINES`] lines, every file or folder it names exists, and every
//! name it puts in code (`Front::press`, `delivery::lane`) is a word of
//! the source — so a rename that leaves the codemap behind fails here.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// rust-analyzer's `architecture.md` is about 500 lines for a far larger
/// project: a codemap says where things are and what holds, the code's
/// own docs say how.
const MAX_LINES: usize = 600;

/// The folders whose files' words count as names the codemap may use.
const SOURCES: [&str; 5] = ["src", "crates", "tests", "benches", "deploy"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every identifier-like word of the source, the tests, the migrations
/// and the settings, and every file's name.
fn source_words() -> HashSet<String> {
    let mut files = Vec::new();
    for dir in SOURCES {
        files_under(&root().join(dir), &mut files);
    }
    for f in ["Cargo.toml", ".env.example", "Dockerfile"] {
        files.push(root().join(f));
    }
    let mut words = HashSet::new();
    for f in files {
        if let Some(name) = f.file_name().and_then(|n| n.to_str()) {
            words.insert(name.to_owned());
            // A migration's name without its version: `create_inbox`.
            let stem = name.split('.').next().unwrap_or(name);
            words.insert(
                stem.trim_start_matches(|c: char| c.is_ascii_digit() || c == '_')
                    .to_owned(),
            );
        }
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let is_word = |c: char| c.is_alphanumeric() || c == '_';
        words.extend(text.split(|c: char| !is_word(c)).map(str::to_owned));
    }
    words
}

/// The code spans of a markdown text (`` `…` ``), fenced blocks left out.
fn code_spans(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut fenced = false;
    let mut prose = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let mut parts = prose.split('`');
    parts.next();
    while let Some(code) = parts.next() {
        spans.push(code.replace('\n', " "));
        parts.next();
    }
    spans
}

/// Whether some file of `src/`, `crates/` or `tests/` ends with `tail`
/// (`postgres/inbox.rs`).
fn files_named(tail: &str) -> bool {
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "benches"] {
        files_under(&root().join(dir), &mut files);
    }
    files
        .iter()
        .any(|f| f.to_string_lossy().ends_with(&format!("/{tail}")))
}

/// Why `span` does not name something that exists, if it does not.
fn stale(span: &str, words: &HashSet<String>) -> Option<String> {
    let span = span.trim();
    let path_like = [
        "src/", "crates/", "tests/", "docs/", "benches/", "deploy/", "scripts/", ".ci/",
    ];
    if path_like.iter().any(|p| span.starts_with(p)) {
        if span.contains(['<', '*', ' ']) {
            return None;
        }
        let path = span.trim_end_matches('/');
        return (!root().join(path).exists()).then(|| format!("no file {path}"));
    }
    if span.ends_with(".rs") && !span.contains(' ') {
        // A file named by its place under a folder the entry is about.
        let tail = span.trim_start_matches("./");
        let found = words.contains(tail.rsplit('/').next().unwrap_or(tail))
            && (!tail.contains('/') || files_named(tail));
        return (!found).then(|| format!("no file {tail}"));
    }
    let name = span.trim_end_matches("()");
    let ident = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    let segments: Vec<&str> = name.split("::").collect();
    if !segments.iter().all(|s| ident(s)) {
        // Not a name: an expression, a command line, a value.
        return None;
    }
    let missing: Vec<&str> = segments
        .into_iter()
        .filter(|s| !matches!(*s, "crate" | "self" | "super"))
        .filter(|s| !words.contains(*s))
        .collect();
    (!missing.is_empty()).then(|| format!("{} not in the source", missing.join(", ")))
}

#[test]
fn the_codemap_is_short_and_names_only_what_exists() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let lines = doc.lines().count();
    assert!(
        lines <= MAX_LINES,
        "docs/ARCHITECTURE.md has {lines} lines (at most {MAX_LINES})"
    );
    let words = source_words();
    // The codemap, and what a platform shell adds (its table names calls).
    for name in ["docs/ARCHITECTURE.md", "docs/PLATFORMS.md"] {
        let doc = std::fs::read_to_string(root().join(name)).unwrap();
        let stale: Vec<String> = code_spans(&doc)
            .iter()
            .filter_map(|s| stale(s, &words).map(|why| format!("`{s}`: {why}")))
            .collect();
        assert!(
            stale.is_empty(),
            "{name} names what is gone:\n{}",
            stale.join("\n")
        );
    }
}

#[test]
fn a_name_that_is_gone_is_found() {
    let words: HashSet<String> = ["Front", "press", "delivery", "lane"]
        .map(String::from)
        .into();
    assert_eq!(stale("Front::press", &words), None);
    assert_eq!(stale("delivery::lane", &words), None);
    assert!(stale("take_shown_hashes", &words).is_some());
    assert!(stale("src/nowhere.rs", &words).is_some());
    assert_eq!(stale("src/lib.rs", &words), None);
    assert!(stale("nowhere.rs", &words).is_some());
    assert_eq!(stale("kozyr run --help", &words), None);
    assert_eq!(code_spans("a `b` c\n```\n`d`\n```\n`e::f`"), ["b", "e::f"]);
}
