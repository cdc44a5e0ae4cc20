use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// The fluent sources, to check them as text beside what the loader does.
const SOURCES: [(Lang, &str); 4] = [
    (Lang::En, include_str!("../locales/en/main.ftl")),
    (Lang::Ru, include_str!("../locales/ru/main.ftl")),
    (Lang::Pt, include_str!("../locales/pt/main.ftl")),
    (Lang::Ro, include_str!("../locales/ro/main.ftl")),
];

/// Message id → the variables its body references, from the source text.
fn messages(src: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current = None;
    for line in src.lines() {
        let starts_message = line.starts_with(|c: char| c.is_ascii_lowercase());
        if starts_message {
            let id = line.split('=').next().unwrap_or_default().trim().to_owned();
            out.entry(id.clone()).or_default();
            current = Some(id);
        } else if line.starts_with('#') || line.trim().is_empty() {
            // Comments and blank lines end nothing we care about.
        } else if !line.starts_with(' ') {
            current = None;
        }
        let Some(id) = &current else { continue };
        let vars = out.entry(id.clone()).or_default();
        let mut rest = line;
        while let Some(i) = rest.find('$') {
            rest = &rest[i + 1..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            vars.insert(name);
        }
    }
    out
}

/// Sample values for a key's variables; text values carry characters
/// that must be escaped in HTML.
fn sample(key: Key, n: i64) -> Args {
    let mut args = Args::new();
    for &(name, kind) in key.args() {
        args = match kind {
            ArgKind::Num => args.num(name, n),
            ArgKind::Text => args.text(name, "Tom & <Jerry>"),
        };
    }
    args
}

#[test]
fn key_ids_are_unique() {
    let ids: BTreeSet<_> = key::ALL.iter().map(|k| k.id()).collect();
    assert_eq!(ids.len(), key::ALL.len());
}

#[test]
fn every_language_has_exactly_the_keys_of_the_code() {
    let code: BTreeSet<String> = key::ALL.iter().map(|k| k.id().to_owned()).collect();
    for (lang, src) in SOURCES {
        let file: BTreeSet<String> = messages(src).into_keys().collect();
        let missing: Vec<_> = code.difference(&file).collect();
        let unused: Vec<_> = file.difference(&code).collect();
        assert!(missing.is_empty(), "{lang} lacks {missing:?}");
        assert!(
            unused.is_empty(),
            "{lang} has keys no code uses: {unused:?}"
        );
    }
}

#[test]
fn messages_use_only_declared_variables() {
    for (lang, src) in SOURCES {
        for (id, vars) in messages(src) {
            let Some(key) = key::ALL.iter().find(|k| k.id() == id) else {
                continue;
            };
            let declared: BTreeSet<String> =
                key.args().iter().map(|(n, _)| (*n).to_owned()).collect();
            assert!(
                vars.is_subset(&declared),
                "{lang} `{id}` uses {vars:?}, declared {declared:?}"
            );
            if lang == Lang::En {
                assert_eq!(
                    vars, declared,
                    "English `{id}` should use every declared variable"
                );
            }
        }
    }
}

#[test]
fn every_message_formats_in_every_language() {
    for lang in Lang::ALL {
        for &key in key::ALL {
            // Numbers that hit every plural category of the four languages.
            for n in [0, 1, 2, 3, 5, 11, 21, 22, 25, 101, 120] {
                let args = sample(key, n);
                for html in [false, true] {
                    let out = try_format(lang, key, &args, html).unwrap_or_else(|e| panic!("{e}"));
                    assert!(!out.trim().is_empty(), "{lang} `{}` is empty", key.id());
                    assert!(
                        !out.contains('{') && !out.contains('}'),
                        "{lang} `{}`: {out}",
                        key.id()
                    );
                }
            }
        }
    }
}

#[test]
fn html_messages_are_valid_telegram_html_and_plain_ones_hold_no_markup() {
    for lang in Lang::ALL {
        for &key in key::ALL {
            let args = sample(key, 2);
            if key.is_plain() {
                let out = tr(lang, key, &args).replace("Tom & <Jerry>", "");
                assert!(
                    !out.contains(['<', '>', '&']),
                    "{lang} `{}` is plain but holds markup: {out}",
                    key.id()
                );
            } else {
                let out = tr_html(lang, key, &args);
                let parsed = kozyr_test_kit::fakebot::parse_html(&out)
                    .unwrap_or_else(|e| panic!("{lang} `{}`: {e}\n{out}", key.id()));
                if !key.args().is_empty() && key.args().iter().any(|(_, k)| *k == ArgKind::Text) {
                    assert!(
                        parsed.text.contains("Tom & <Jerry>"),
                        "{lang} `{}`: {}",
                        key.id(),
                        parsed.text
                    );
                }
            }
        }
    }
}

#[test]
fn plain_texts_fit_where_telegram_shows_them() {
    for lang in Lang::ALL {
        for &key in key::ALL {
            let out = tr(lang, key, &sample(key, 22));
            let len = out.chars().count();
            if key.id().starts_with("err-") || key.id() == "settings-saved" {
                // answerCallbackQuery allows 200 characters.
                assert!(len <= 200, "{lang} `{}` is {len} long", key.id());
            }
            if key.id().starts_with("cmd-") {
                assert!(
                    (3..=256).contains(&len),
                    "{lang} `{}` is {len} long",
                    key.id()
                );
            }
            if key.id().starts_with("btn-") {
                assert!(len <= 40, "{lang} `{}` is {len} long: {out}", key.id());
            }
        }
    }
}

#[test]
fn plural_forms_follow_each_language() {
    let stock = |lang, n: i64| tr(lang, key::TABLE_STOCK, &Args::new().num("count", n));
    assert_eq!(stock(Lang::En, 1), "Stock: 1 card");
    assert_eq!(stock(Lang::En, 2), "Stock: 2 cards");
    assert_eq!(stock(Lang::Ru, 1), "В колоде: 1 карта");
    assert_eq!(stock(Lang::Ru, 3), "В колоде: 3 карты");
    assert_eq!(stock(Lang::Ru, 11), "В колоде: 11 карт");
    assert_eq!(stock(Lang::Ru, 21), "В колоде: 21 карта");
    assert_eq!(stock(Lang::Ru, 24), "В колоде: 24 карты");
    assert_eq!(stock(Lang::Pt, 1), "Monte: 1 carta");
    assert_eq!(stock(Lang::Pt, 12), "Monte: 12 cartas");
    assert_eq!(stock(Lang::Ro, 1), "Pachet: 1 carte");
    assert_eq!(stock(Lang::Ro, 12), "Pachet: 12 cărți");
    assert_eq!(stock(Lang::Ro, 20), "Pachet: 20 de cărți");
    assert_eq!(stock(Lang::Ro, 0), "Pachet: 0 cărți");
    assert_eq!(stock(Lang::Ro, 19), "Pachet: 19 cărți");
    assert_eq!(stock(Lang::Ro, 100), "Pachet: 100 de cărți");
    assert_eq!(stock(Lang::Ro, 101), "Pachet: 101 cărți");
    assert_eq!(stock(Lang::Ro, 106), "Pachet: 106 cărți");
    assert_eq!(stock(Lang::Ro, 120), "Pachet: 120 de cărți");
    assert_eq!(stock(Lang::Ru, 111), "В колоде: 111 карт");
    assert_eq!(stock(Lang::Ru, 102), "В колоде: 102 карты");
    assert_eq!(stock(Lang::Pt, 0), "Monte: 0 cartas");
}

#[test]
fn languages_parse_from_telegram_codes() {
    assert_eq!(Lang::from_telegram(Some("ru")), Lang::Ru);
    assert_eq!(Lang::from_telegram(Some("pt-BR")), Lang::Pt);
    assert_eq!(Lang::from_telegram(Some("ro_MD")), Lang::Ro);
    assert_eq!(Lang::from_telegram(Some("uk")), Lang::En);
    assert_eq!(Lang::from_telegram(Some("")), Lang::En);
    assert_eq!(Lang::from_telegram(None), Lang::En);
    for lang in Lang::ALL {
        assert_eq!(lang.code().parse::<Lang>(), Ok(lang));
        assert_eq!(
            serde_json::to_string(&lang).unwrap(),
            format!("\"{}\"", lang.code())
        );
    }
    let names: Vec<String> = Lang::ALL.iter().map(|l| l.native_name()).collect();
    assert_eq!(names, ["English", "Русский", "Português", "Română"]);
    assert!("xx".parse::<Lang>().is_err());
}

#[test]
fn text_variables_are_escaped_only_in_html() {
    let args = Args::new().text("name", "<b>Eve</b>");
    assert_eq!(
        tr(Lang::En, key::TABLE_TO_LEAD, &args),
        "<b><b>Eve</b></b> leads."
    );
    assert_eq!(
        tr_html(Lang::En, key::TABLE_TO_LEAD, &args),
        "<b>&lt;b&gt;Eve&lt;/b&gt;</b> leads."
    );
    let args = Args::new().text("name", "Eve").html("cards", "<b>10♠</b>");
    assert_eq!(
        tr_html(Lang::En, key::TABLE_PLAYED, &args),
        "Eve: <b>10♠</b>"
    );
}

/// Names as people choose them, for the texts to read with: one a
/// language would decline as feminine, one as masculine, and one that
/// declines in no language. A message reads right with each only if it
/// asks no case or gender of a name.
fn names(lang: Lang) -> [&'static str; 3] {
    match lang {
        Lang::En => ["Mary", "John", "Zoë_42"],
        Lang::Ru => ["Маша", "Вася", "Zoë_42"],
        Lang::Pt => ["Maria", "João", "Zoë_42"],
        Lang::Ro => ["Ioana", "Andrei", "Zoë_42"],
    }
}

/// Variables that name a person (or a team of them).
const PEOPLE: [&str; 6] = ["name", "dealer", "leader", "first", "second", "team"];

/// A key's arguments with `name` for its people and `n` for its numbers,
/// and a short description of them.
fn sample_with(lang: Lang, key: Key, name: &str, n: i64) -> (Args, String) {
    let mut args = Args::new();
    let mut said = Vec::new();
    for &(arg, kind) in key.args() {
        let value = match kind {
            ArgKind::Num => {
                args = args.num(arg, n);
                said.push(format!("{arg}={n}"));
                continue;
            }
            ArgKind::Text if arg == "team" => tr(
                lang,
                key::TEAM_NAME,
                &Args::new().text("first", name).text("second", "Zoë_42"),
            ),
            ArgKind::Text if PEOPLE.contains(&arg) => name.to_owned(),
            ArgKind::Text => match arg {
                "game" => tr(lang, key::GAME_KOZEL, &Args::new()),
                "suit" => tr(lang, key::SUIT_HEARTS, &Args::new()),
                "direction" => tr(lang, key::HEARTS_PASS_LEFT, &Args::new()),
                "lang" => tr(lang, key::LANGUAGE_NAME, &Args::new()),
                "group" => "Friday Club".to_owned(),
                "mark" => "✖".to_owned(),
                _ => "10♥ K♥".to_owned(),
            },
        };
        if PEOPLE.contains(&arg) {
            said.push(format!("{arg}={name}"));
        }
        args = args.text(arg, value);
    }
    (args, said.join(" "))
}

/// Every message of every language in one file to read in review
/// (`crates/i18n/src/snapshots/messages.txt`): each with a feminine, a masculine
/// and an undeclinable name, and its counts at 1, 2, 5 and 21. A change to
/// any text shows there in context; `UPDATE_EXPECT=1` writes it anew.
#[test]
fn every_message_in_every_language_reads_as_written() {
    use std::fmt::Write as _;
    let mut out = String::new();
    for &key in key::ALL {
        let _ = writeln!(out, "## {}", key.id());
        let has_people = key.args().iter().any(|(a, _)| PEOPLE.contains(a));
        let has_counts = key.args().iter().any(|(_, k)| *k == ArgKind::Num);
        for lang in Lang::ALL {
            let [feminine, ..] = names(lang);
            let mut lines: Vec<(Args, String)> = Vec::new();
            if has_people {
                for name in names(lang) {
                    lines.push(sample_with(lang, key, name, 2));
                }
            }
            if has_counts {
                for n in [1, 2, 5, 21] {
                    lines.push(sample_with(lang, key, feminine, n));
                }
            }
            if lines.is_empty() {
                lines.push(sample_with(lang, key, feminine, 2));
            }
            let mut seen = BTreeSet::new();
            for (args, said) in lines {
                let text = tr(lang, key, &args);
                if !seen.insert(text.clone()) {
                    continue;
                }
                let head = if said.is_empty() {
                    lang.code().to_owned()
                } else {
                    format!("{} [{said}]", lang.code())
                };
                let _ = writeln!(out, "{head}: {}", text.replace('\n', "\n    "));
            }
        }
        out.push('\n');
    }
    expect_test::expect_file!["snapshots/messages.txt"].assert_eq(&out);
}

/// A key's constant in `key`, from its id (`table-stock` → `TABLE_STOCK`).
fn const_name(id: &str) -> String {
    id.to_ascii_uppercase().replace('-', "_")
}

/// The product's source: every `.rs` of the workspace's root package
/// (`src/`) and of its crates (`crates/*/src/`) but this crate, the test
/// kit and the tests (test files, and each file's `#[cfg(test)]` module).
/// Read from the workspace: the texts are this crate's, their users every
/// other's.
fn product_source() -> String {
    fn walk(dir: &std::path::Path, out: &mut String) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "tests" {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") && !matches!(name.as_str(), "tests.rs" | "snapshots.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                let product = text.split("#[cfg(test)]").next().unwrap_or_default();
                out.push_str(product);
            }
        }
    }
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = String::new();
    walk(&workspace.join("src"), &mut out);
    let mut crates: Vec<_> = std::fs::read_dir(workspace.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("i18n") && !p.ends_with("test-kit"))
        .collect();
    crates.sort();
    assert!(!crates.is_empty(), "no crates beside this one");
    for krate in crates {
        walk(&krate.join("src"), &mut out);
    }
    assert!(
        out.contains("key::"),
        "the product's source was not found under {}",
        workspace.display()
    );
    out
}

/// A message no code shows is a text nobody reads, yet translated four
/// times: every key is used by the product itself, not only by tests.
#[test]
fn every_message_is_used_by_the_product() {
    let i18n = include_str!("lib.rs");
    // The module's own code, before the list of keys.
    let own = i18n.split("macro_rules! keys").next().unwrap_or_default();
    let product = product_source() + own;
    let unused: Vec<&str> = key::ALL
        .iter()
        .map(|k| k.id())
        .filter(|id| {
            let name = const_name(id);
            assert!(
                i18n.contains(&format!(" {name} = \"{id}\"")),
                "`{id}` is not named {name}"
            );
            !product.contains(&format!("key::{name}"))
                && !product
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .any(|w| w == name)
        })
        .collect();
    assert!(unused.is_empty(), "messages no code shows: {unused:?}");
}

/// Each file's glossary ends with the words it rejects (its `rejected`
/// line, in the file's language): none of them is left in a message.
#[test]
fn no_message_uses_a_word_its_glossary_rejects() {
    const MARKS: [&str; 4] = ["rejected:", "отвергнуто:", "rejeitado:", "respins:"];
    for (lang, src) in SOURCES {
        let rejected: Vec<String> = src
            .lines()
            .filter_map(|l| l.strip_prefix("# "))
            .find_map(|l| MARKS.iter().find_map(|m| l.strip_prefix(m)))
            .unwrap_or_else(|| panic!("{lang}: no rejected words in the glossary"))
            .split(',')
            .map(|w| w.trim().to_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        assert!(!rejected.is_empty(), "{lang}");
        for line in src.lines().filter(|l| !l.starts_with('#')) {
            let lower = line.to_lowercase();
            for word in &rejected {
                assert!(
                    !lower.contains(word.as_str()),
                    "{lang}: `{word}` is rejected by the glossary, yet: {line}"
                );
            }
        }
    }
}
