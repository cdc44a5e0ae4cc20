//! The Discord shell end to end, without network: the strict fake Discord
//! (`kozyr_test_kit::fakediscord`), the real twilight gateway and HTTP clients, the
//! real front-end, table service and SQLite store. Four people open a
//! table with a slash command, sit down and play a whole Kozel deal and a
//! whole Hearts deal by clicking only what they see: the public table
//! message and their own ephemeral hand.

use std::time::Duration;

use kozyr::config::Config;
use kozyr::discord::bot::start;
use kozyr::front::action::TableAction;
use kozyr::game::GameAction;
use kozyr::kozel;
use kozyr::table::Phase;
use kozyr_test_kit::fakediscord::TOKEN;

use crate::support::discord::{CHANNEL, WAIT, World, deal_no, open_and_start, press, tuning};
use crate::support::play::Play;
use crate::support::{db_url, eventually, press_data};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kozel_deal_by_clicks_with_stale_foreign_clicks_a_dropped_gateway_and_expired_tokens() {
    let mut w = World::new().await;
    // Registered beside the start, not before it.
    let fake = &w.fake;
    let commands = eventually(WAIT, Duration::from_millis(10), "commands", || async {
        let c = fake.commands();
        (!c.is_empty()).then_some(c)
    })
    .await;
    let names: Vec<String> = commands
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect();
    for c in [
        "new", "kozel", "hearts", "score", "stats", "stop", "settings", "help",
    ] {
        assert!(names.contains(&c.to_owned()), "/{c} registered: {names:?}");
    }
    assert!(commands[0]["description_localizations"]["pt-BR"].is_string());

    let id = open_and_start(&w, "kozel").await;
    // The table message pings whose turn it is, and no one else.
    let t = w.table(id).await;
    let first = t.awaiting()[0].index();
    w.sees(first, "the turn mention", |seen| {
        seen.iter()
            .any(|m| m.content.contains(&format!("<@{}>", w.users[first].id)))
            .then_some(())
    })
    .await;

    // Nobody has opened a hand yet. The table was posted anew as the deal
    // began, and that new message's mention notified the first to move:
    // once, with no ping message besides (a mention added by an edit
    // notifies no one; later turns get a ping message).
    let ping = |w: &World, seat: usize| {
        w.fake
            .seen_by(&w.users[seat], CHANNEL)
            .iter()
            .filter(|m| !m.ephemeral && m.buttons.is_empty())
            .filter(|m| m.content.starts_with(&format!("<@{}>", w.users[seat].id)))
            .count()
    };
    assert_eq!(ping(&w, first), 0);
    assert_eq!(w.fake.notifications_of(&w.users[first]), 1);

    // First move.
    let old = w.table(id).await;
    w.play_safe(&old).await;
    let t = w.wait_version_after(id, old.version()).await;
    // The next mover, who has not opened their hand, is pinged by a new
    // message.
    let next = t.awaiting()[0].index();
    w.sees(next, "a ping", |_| (ping(&w, next) == 1).then_some(()))
        .await;

    // A stale action (the state before) from the mover's hand, as an
    // old client would send it: refused with an ephemeral note, nothing
    // changes.
    let seat = old.awaiting()[0].index();
    let stale_lead = match old.game().unwrap().safe_action(old.awaiting()[0]).unwrap() {
        GameAction::Kozel(kozel::Action::Lead(s)) => s,
        other => panic!("{other:?}"),
    };
    let stale = press_data(&old, TableAction::Lead(stale_lead));
    let hand = w.hand(seat, id).await;
    let q = w.fake.click_raw(&w.users[seat], hand, &stale).unwrap();
    assert_eq!(w.answered(q).await, 4, "an ephemeral refusal");
    assert_eq!(w.table(id).await.version(), t.version());
    // Someone else can neither see this hand nor click on it.
    let other = (seat + 1) % 4;
    assert!(w.fake.click_raw(&w.users[other], hand, &stale).is_err());
    assert!(
        w.fake
            .seen_by(&w.users[other], CHANNEL)
            .iter()
            .all(|m| m.id != hand)
    );
    // A hand action sent on the public table message: refused.
    let (table_msg, _) = w.my_hand_button(other).await;
    let q = w
        .fake
        .click_raw(&w.users[other], table_msg, &stale)
        .unwrap();
    assert_eq!(w.answered(q).await, 4, "an ephemeral refusal");
    assert_eq!(w.table(id).await.version(), t.version());
    // Nothing of a hand in a public message: no card menu anywhere public.
    assert!(
        w.fake
            .seen_by(&w.users[other], CHANNEL)
            .iter()
            .filter(|m| !m.ephemeral)
            .all(|m| m.select.is_none())
    );

    // The gateway connection drops: twilight resumes, nothing is lost.
    w.fake.drop_gateway();
    let t = w.table(id).await;
    w.play_safe(&t).await;
    let t = w.wait_version_after(id, t.version()).await;
    let (identifies, resumes, _) = w.fake.gateway_counts();
    assert_eq!(
        (identifies, resumes),
        (1, 1),
        "resumed, not identified again"
    );
    // op 7: reconnect and resume.
    w.fake.send_reconnect();
    w.play_safe(&t).await;
    let mut t = w.wait_version_after(id, t.version()).await;

    // Fifteen minutes on Discord's clock: every hand token has expired.
    // The next edit is refused; the table tells whose turn it is to press
    // "My hand" again, and that brings a fresh hand.
    w.fake.advance(Duration::from_secs(15 * 60 + 1));
    let mover = t.awaiting()[0].index();
    let before = w
        .fake
        .seen_by(&w.users[mover], CHANNEL)
        .iter()
        .filter(|m| m.ephemeral)
        .count();
    // Another person's move makes the bot try to edit every hand.
    w.play_safe(&t).await;
    t = w.wait_version_after(id, t.version()).await;
    let next = t.awaiting()[0].index();
    w.sees(next, "the press-My-hand line", |seen| {
        seen.iter()
            .filter(|m| !m.ephemeral)
            .any(|m| {
                m.content.contains(&format!("<@{}>", w.users[next].id))
                    && m.content.contains("My hand")
            })
            .then_some(())
    })
    .await;
    let _ = before;
    // Their old hand is not edited any more; "My hand" posts a new one.
    let seen = w.fake.seen_by(&w.users[next], CHANNEL);
    let (msg, my_hand) = seen
        .iter()
        .rev()
        .filter(|m| !m.ephemeral)
        .find_map(|m| {
            m.buttons
                .iter()
                .find(|(_, c)| c.starts_with("hand:"))
                .map(|(_, c)| (m.id, c.clone()))
        })
        .unwrap();
    let q = w.fake.click(&w.users[next], msg, &my_hand).unwrap();
    assert_eq!(w.answered(q).await, 4);

    // Everyone finds a fresh hand as they go; the deal finishes.
    w.finish_deal(id).await;
    w.assert_clean();
    let p99 = {
        let mut l = w.fake.latencies();
        l.sort();
        l[(l.len() * 99 / 100).min(l.len() - 1)]
    };
    let calls = w.fake.calls();
    println!(
        "discord: {} interactions, p99 answer {:?}, {} REST calls",
        w.fake.latencies().len(),
        p99,
        calls.len()
    );
    assert!(p99 < Duration::from_secs(3));
    w.stop().await;
}

/// A whole Hearts deal by clicks; on the way Discord answers the table
/// message's edits with 429s (twilight waits out its bucket, the other
/// routes go on) and then refuses to edit it at all (30046, an old
/// message): the table is posted anew and play goes on. Prints the REST
/// calls per move and the p99 time from interaction to answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hearts_deal_by_clicks_through_429s_and_a_message_too_old_to_edit() {
    let mut w = World::new().await;
    let id = open_and_start(&w, "hearts").await;
    let (first_msg, _) = w.my_hand_button(0).await;
    let calls_before = w.fake.calls().len();
    let moves = w
        .finish_deal_with(id, |_, moves| {
            if moves == 6 {
                w.fake.rate_limit("PATCH /channels", 3);
            }
            if moves == 20 {
                w.fake.refuse_edits_of(first_msg);
            }
        })
        .await;
    // The table was posted anew once its message could not be edited.
    // One-press Hearts cards play a deal faster than the route's 429s
    // (0.2 s each) are waited out, so the table catches up after the deal.
    let mut now_msg = first_msg;
    for _ in 0..500 {
        now_msg = w.my_hand_button(0).await.0;
        if now_msg != first_msg {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_ne!(now_msg, first_msg);
    let calls = w.fake.calls();
    assert_eq!(calls.iter().filter(|c| c.status == 429).count(), 3);
    assert!(calls.iter().any(|c| c.status == 400), "the 30046 refusal");
    w.assert_clean();
    let deal_calls = &calls[calls_before..];
    let mut routes: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for c in deal_calls {
        *routes.entry(c.route.as_str()).or_default() += 1;
    }
    let mut l = w.fake.latencies();
    l.sort();
    let p99 = l[(l.len() * 99 / 100).min(l.len() - 1)];
    println!(
        "discord hearts deal: {moves} moves, {} REST calls ({:.1} per move) {routes:?}; \
         {} interactions, p50 {:?}, p99 {:?}, max {:?}",
        deal_calls.len(),
        deal_calls.len() as f64 / f64::from(moves),
        l.len(),
        l[l.len() / 2],
        p99,
        l[l.len() - 1]
    );
    assert!(p99 < Duration::from_secs(3));
    w.stop().await;
}

/// A Hearts hand that waits under the table is not edited for others'
/// plays (its cards carry no version); a card picked from it out of turn
/// is refused as out of turn, not as out of date, and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hearts_card_picked_out_of_turn_says_so() {
    let mut w = World::new().await;
    let id = open_and_start(&w, "hearts").await;
    // Through the passing to the first play.
    loop {
        let t = w.table(id).await;
        let seat = t.awaiting()[0];
        let plays = t
            .game()
            .unwrap()
            .legal_actions(seat)
            .iter()
            .any(|a| matches!(a, GameAction::Hearts(kozyr::hearts::Action::Play(_))));
        w.play_safe(&t).await;
        w.wait_version_after(id, t.version()).await;
        if plays {
            break;
        }
    }
    let t = w.table(id).await;
    let waiter = t.awaiting()[0].next().next().index();
    let hand = w.hand(waiter, id).await;
    let card = w
        .sees(waiter, "the waiting hand's cards", |seen| {
            let m = seen.iter().find(|m| m.id == hand)?;
            let (_, value, _) = m.select.as_ref()?.options.first()?.clone();
            matches!(press(&value), Some((0, TableAction::HeartsPlay(_)))).then_some(value)
        })
        .await;
    let q = w.fake.choose(&w.users[waiter], hand, &[card]).unwrap();
    assert_eq!(w.answered(q).await, 4, "an ephemeral refusal");
    let note = w
        .fake
        .seen_by(&w.users[waiter], CHANNEL)
        .into_iter()
        .rev()
        .find(|m| m.ephemeral && m.id != hand)
        .unwrap();
    // In the person's own language (the four people's clients differ).
    use kozyr::i18n::{Args, Lang, key, tr};
    let said = |k| {
        Lang::ALL
            .iter()
            .any(|&l| note.content.contains(&tr(l, k, &Args::new())))
    };
    assert!(said(key::ERR_NOT_YOUR_TURN), "{}", note.content);
    assert!(!said(key::ERR_STALE), "{}", note.content);
    assert_eq!(w.table(id).await.version(), t.version());
    w.assert_clean();
    w.stop().await;
}

/// A channel speaks its server's language (`guild_locale`), a hand its
/// owner's (`locale`); every slash command is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channel_speaks_its_servers_language_and_a_hand_its_owners() {
    let mut w = World::new().await;
    w.fake.set_guild_locale("ru");
    // Chloe's client is in Portuguese; the server is Russian.
    let q = w.fake.slash(&w.users[2], CHANNEL, "kozel");
    assert_eq!(w.answered(q).await, 4);
    w.sees(2, "a Russian table", |seen| {
        seen.iter()
            .any(|m| !m.ephemeral && m.content.contains("Козёл"))
            .then_some(())
    })
    .await;
    for c in ["score", "stats", "help", "settings", "new", "stop"] {
        let q = w.fake.slash(&w.users[1], CHANNEL, c);
        assert_eq!(w.answered(q).await, 4, "/{c}");
    }
    // Boris is no admin: his /settings got a refusal without buttons. Ann
    // (Manage Server) gets the settings menu.
    let menus = |w: &World| {
        w.fake
            .seen_by(&w.users[3], CHANNEL)
            .iter()
            .filter(|m| !m.ephemeral && m.buttons.iter().any(|(_, c)| c.starts_with('c')))
            .count()
    };
    let before = menus(&w);
    let q = w.fake.slash(&w.users[0], CHANNEL, "settings");
    assert_eq!(w.answered(q).await, 4);
    assert_eq!(menus(&w), before + 1, "Ann's settings menu");
    w.assert_clean();
    w.stop().await;
}

/// `kozyr run` (Discord only) is killed with SIGKILL twice in the middle
/// of a Kozel deal and started again: the table message is edited in
/// place, and the hands and buttons people already have keep working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_deal_and_the_old_buttons_still_work() {
    let mut w = World::without_bot().await;
    w.spawn().await;
    let id = open_and_start(&w, "kozel").await;
    let (table_msg, _) = w.my_hand_button(0).await;
    let n = deal_no(&w.table(id).await);
    let mut moves = 0;
    let mut kills = 0;
    loop {
        let t = w.table(id).await;
        if deal_no(&t) != n || t.phase() != Phase::Playing {
            break;
        }
        if moves % 5 == 2 && kills < 2 {
            // Everyone has a hand message with buttons by now, or soon.
            w.kill();
            kills += 1;
            let fake = &w.fake;
            eventually(
                WAIT,
                Duration::from_millis(10),
                "the fake sees it gone",
                || async { (!fake.connected()).then_some(()) },
            )
            .await;
            w.spawn().await;
        }
        // One table message all the deal, edited in place.
        assert_eq!(w.my_hand_button(0).await.0, table_msg);
        w.play_safe(&t).await;
        w.wait_version_after(id, t.version()).await;
        // At people's pace: `kozyr run` keeps a channel to 20 presses a
        // second (40 at once), and a move is two.
        tokio::time::sleep(Duration::from_millis(150)).await;
        moves += 1;
        assert!(moves < 200, "the deal does not end");
    }
    assert_eq!(kills, 2);
    // The next deal posted the table anew below; the old message has no
    // buttons left.
    let fake = &w.fake;
    let user = &w.users[0];
    w.sees(0, "the next deal's table", |seen| {
        seen.iter()
            .rev()
            .filter(|m| !m.ephemeral)
            .find(|m| m.buttons.iter().any(|(_, c)| c.starts_with("hand:")))
            .filter(|m| m.id != table_msg)
            .map(|m| m.id)
    })
    .await;
    eventually(
        WAIT,
        Duration::from_millis(5),
        "one table with buttons",
        || async {
            let public_tables = fake
                .seen_by(user, CHANNEL)
                .iter()
                .filter(|m| !m.ephemeral && m.buttons.iter().any(|(_, c)| c.starts_with("hand:")))
                .count();
            (public_tables == 1).then_some(())
        },
    )
    .await;
    let (identifies, _, _) = w.fake.gateway_counts();
    assert_eq!(identifies, 3, "a new session after each start");
    w.assert_clean();
    w.stop().await;
}

/// The shard heartbeats at the interval HELLO gives, and the gateway
/// connection stays up on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_come_on_time() {
    let mut w = World::without_bot().await;
    w.fake.set_heartbeat_interval(Duration::from_millis(100));
    w.start().await;
    tokio::time::sleep(Duration::from_millis(1050)).await;
    let (identifies, _, beats) = w.fake.gateway_counts();
    assert_eq!(identifies, 1);
    assert!(
        (8..=13).contains(&beats),
        "{beats} heartbeats in ~1 s at 100 ms"
    );
    assert!(w.fake.connected());
    w.stop().await;
}

/// `kozyr run` with a malformed `DISCORD_TOKEN`, or no token at all: one
/// line naming the variable, the token never printed, exit 1.
#[test]
fn kozyr_run_names_a_missing_or_malformed_discord_token() {
    let dir = tempfile::tempdir().unwrap();
    for (token, names) in [
        (None, "DISCORD_TOKEN"),
        (Some("not-a-discord-token-at-all-but-long"), "DISCORD_TOKEN"),
    ] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kozyr"));
        cmd.arg("run")
            .current_dir(dir.path())
            .env_remove("TELOXIDE_TOKEN")
            .env_remove("DISCORD_TOKEN");
        if let Some(t) = token {
            cmd.env("DISCORD_TOKEN", t);
        }
        let out = cmd.output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(names), "{err}");
        if let Some(t) = token {
            assert!(!err.contains(t), "the token is not printed: {err}");
        }
    }
}

/// When the front-end is slow, every interaction is deferred first (within
/// Discord's 3 s) and finished afterwards through its token: here the bot
/// defers everything at once, and a Kozel deal still plays through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deferred_answers_carry_a_whole_deal() {
    let mut w = World::without_bot().await;
    w.defer_after = Duration::ZERO;
    w.answers = (5, 6);
    w.start().await;
    let id = open_and_start(&w, "kozel").await;
    w.finish_deal(id).await;
    w.assert_clean();
    w.stop().await;
}

/// The HTTP interactions endpoint (`DISCORD_PUBLIC_KEY`): a request without
/// Discord's signature is refused (401), a PING is answered PONG, and a
/// slash command is answered in the HTTP response itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_interactions_endpoint_checks_signatures() {
    use ed25519_dalek::{Signer, SigningKey};
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let key = SigningKey::from_bytes(&[9; 32]);
    let w = World::without_bot().await;
    let db = db_url(&w.dir);
    let api = w.fake.api_url();
    let public = hex(key.verifying_key().as_bytes());
    let config = Config::from_lookup(|k| match k {
        "DISCORD_TOKEN" => Some(TOKEN.into()),
        "DISCORD_API_URL" => Some(api.clone()),
        "DATABASE_URL" => Some(db.clone()),
        "KOZYR_TURN_SECONDS" => Some("0".into()),
        "DISCORD_PUBLIC_KEY" => Some(public.clone()),
        "DISCORD_INTERACTIONS_LISTEN" => Some("127.0.0.1:0".into()),
        _ => None,
    })
    .unwrap();
    let bot = start(&config, tuning()).await.unwrap();
    let url = format!(
        "http://{}{}",
        bot.interactions_addr().unwrap(),
        kozyr::discord::endpoint::PATH
    );
    let client = reqwest::Client::new();
    let send = |body: String, sign: bool| {
        let ts = "1764547200".to_owned();
        let mut msg = ts.clone().into_bytes();
        msg.extend_from_slice(body.as_bytes());
        let sig = if sign {
            hex(&key.sign(&msg).to_bytes())
        } else {
            hex(&[0u8; 64])
        };
        client
            .post(&url)
            .header("x-signature-ed25519", sig)
            .header("x-signature-timestamp", ts)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let ping =
        serde_json::json!({"id": "1", "application_id": kozyr_test_kit::fakediscord::APP_ID.to_string(),
        "type": 1, "token": "t", "version": 1, "entitlements": [],
        "authorizing_integration_owners": {}, "attachment_size_limit": 0})
        .to_string();
    let r = send(ping.clone(), false).await.unwrap();
    assert_eq!(r.status(), 401);
    let r = send(ping, true).await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["type"], 1);

    let cmd = w
        .fake
        .slash_for_http(&w.users[0], CHANNEL, "kozel")
        .to_string();
    let r = send(cmd, true).await.unwrap();
    assert_eq!(r.status(), 200);
    let answer: serde_json::Value = r.json().await.unwrap();
    assert_eq!(answer["type"], 4, "{answer}");
    assert_eq!(answer["data"]["flags"], 64, "{answer}");
    // The table itself is posted in the channel.
    w.sees(0, "the lobby", |seen| {
        seen.iter()
            .any(|m| {
                !m.ephemeral
                    && m.buttons
                        .iter()
                        .any(|(_, c)| press(c).is_some_and(|(_, a)| a == TableAction::Join))
            })
            .then_some(())
    })
    .await;
    assert_eq!(w.fake.violations(), Vec::<String>::new());
    bot.stop().await;
}

/// A double tap on a hand (an old client sends the second press on the
/// message as it was): the second press's answer would draw exactly what
/// the message shows after the first, so it edits nothing — a deferred
/// update, not an UPDATE_MESSAGE with the same content.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_tap_on_a_hand_edits_nothing_the_second_time() {
    let mut w = World::new().await;
    let id = open_and_start(&w, "kozel").await;
    let t = w.table(id).await;
    let seat = t.awaiting()[0].index();
    let hand = w.hand(seat, id).await;
    let seen = |w: &World| {
        w.fake
            .seen_by(&w.users[seat], CHANNEL)
            .into_iter()
            .find(|m| m.id == hand)
            .unwrap()
    };
    // The leader selects a card: the hand ticks it and offers Clear.
    let card = seen(&w).select.unwrap().options[0].1.clone();
    assert!(matches!(press(&card), Some((_, TableAction::Toggle(_)))));
    let q = w.fake.choose(&w.users[seat], hand, &[card]).unwrap();
    assert_eq!(w.answered(q).await, 7, "the hand updated in the answer");
    let clear = seen(&w)
        .buttons
        .iter()
        .find(|(_, data)| matches!(press(data), Some((_, TableAction::Clear))))
        .map(|(_, data)| data.clone())
        .expect("a Clear button once a card is selected");
    let q = w.fake.click(&w.users[seat], hand, &clear).unwrap();
    assert_eq!(
        w.answered(q).await,
        7,
        "the selection cleared in the answer"
    );
    let cleared = seen(&w);
    assert!(cleared.buttons.iter().all(|(_, d)| *d != clear));
    // The second tap of the same Clear.
    let q = w.fake.click_raw(&w.users[seat], hand, &clear).unwrap();
    assert_eq!(w.answered(q).await, 6, "answered without an edit");
    assert_eq!(seen(&w), cleared);
    assert_eq!(w.fake.unchanged_edits(), 0, "an edit that changed nothing");
    assert_eq!(w.table(id).await.version(), t.version());
    w.assert_clean();
    w.stop().await;
}

/// A press on a hand while the outbox's edit of it is on its way (its
/// answer held past the press's wait for the hand's turn): the press is
/// acknowledged without drawing, the edit lands, and the state after the
/// press is drawn once after it — never an edit that changes nothing, and
/// never the older state last.
#[tokio::test]
async fn a_press_on_a_hand_being_edited_is_drawn_once_after_the_edit() {
    let mut w = World::new().await;
    let id = open_and_start(&w, "kozel").await;
    let t = w.table(id).await;
    let next = (t.awaiting()[0].index() + 1) % 4;
    let hand = w.hand(next, id).await;
    let seen = |w: &World| {
        (w.fake.seen_by(&w.users[next], CHANNEL).into_iter())
            .find(|m| m.id == hand)
            .unwrap()
    };
    // The leader's move has the outbox edit this hand (it is the next
    // person's turn); the edit is carried out at once, its answer held.
    w.fake.hold_answers("PATCH /webhooks", 1);
    let before = seen(&w);
    w.play_safe(&t).await;
    let t = w.wait_version_after(id, t.version()).await;
    assert_eq!(t.awaiting()[0].index(), next);
    let (_, data) = eventually(
        WAIT,
        Duration::from_millis(5),
        "their turn drawn",
        || async {
            let now = seen(&w);
            (now != before)
                .then(|| now.buttons.first().cloned())
                .flatten()
        },
    )
    .await;
    assert_eq!(press(&data).map(|(v, _)| v), Some(t.version()));
    // Their move on it: the answer cannot know what the message shows.
    let q = w.fake.click(&w.users[next], hand, &data).unwrap();
    assert_eq!(w.answered(q).await, 6, "acknowledged, not drawn");
    tokio::time::sleep(Duration::from_millis(300)).await;
    w.fake.release_answers();
    let after = w.wait_version_after(id, t.version()).await;
    let drawn = |w: &World| {
        let buttons = seen(w).buttons;
        let of_the_move = |(_, d): &(String, String)| press(d).map(|(v, _)| v) == Some(t.version());
        !seen(w).content.is_empty() && !buttons.iter().any(of_the_move)
    };
    eventually(WAIT, Duration::from_millis(5), "the move drawn", || async {
        drawn(&w).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(drawn(&w), "the older state drawn last");
    assert_eq!(w.table(id).await.version(), after.version());
    assert_eq!(w.fake.unchanged_edits(), 0, "an edit that changed nothing");
    w.assert_clean();
    w.stop().await;
}
