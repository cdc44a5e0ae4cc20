use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// The fluent sources, to check them as text beside what the loader does.
const SOURCES: [(Lang, &str); 4] = [
    (Lang::En, include_str!("../../locales/en/main.ftl")),
    (Lang::Ru, include_str!("../../locales/ru/main.ftl")),
    (Lang::Pt, include_str!("../../locales/pt/main.ftl")),
    (Lang::Ro, include_str!("../../locales/ro/main.ftl")),
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
                let parsed = crate::fakebot::parse_html(&out)
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
