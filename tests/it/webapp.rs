//! Issue 20: the Telegram Mini App (`crates/webapp`) against the fake Bot API.
//!
//! - Its API trusts only Telegram's signed init data (401 for missing,
//!   forged, tampered or old data; 403 for a seat not the person's), and
//!   nothing changes when it refuses; a move made there counts once, and
//!   the same move from the chat is then stale. The private hand carries a
//!   `web_app` button, the group's table the app's direct link, and the
//!   fake refuses a `web_app` button in a group as Telegram does. While a
//!   person's Mini App is open their chat hand is not edited; it is brought
//!   up to date once when they close it.
//! - In headless Chromium (chromedriver, WebDriver): four people play a
//!   whole Kozel deal and a whole Hearts deal, two of them tapping cards
//!   and moves in the page, two pressing the chat's buttons; screenshots
//!   at phone (390×844) and desktop size go to `target/webapp-screenshots/`;
//!   a page with forged init data shows the refusal and changes nothing.
//! - Issue 33: pages not reloaded go on after the server went away behind
//!   a proxy answering 502, and after a SIGKILL of `kozyr run`; a press
//!   sent again with its id counts once; a page left releases the chat
//!   hand; the page tells Telegram's bridge it is ready once it loaded; a
//!   trick in Telegram's light and dark themes in the screenshots.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fantoccini::{Client, ClientBuilder, Locator};
use kozyr::cards::Seat;
use kozyr::front::action::TableAction;
use kozyr::front::live::LiveApp;
use kozyr::front::press_limits::PressRates;
use kozyr::game::GameAction;
use kozyr::table::{Phase, Table, TableId};
use kozyr::webapp::{self, RunningWebApp, auth};
use serde_json::{Value, json};
use teloxide::types::ChatId;

use crate::support::telegram::{World, deal_no, policy};
use crate::support::{eventually, move_buttons, press_data};

const APP_URL: &str = "https://kozyr.example/app/";

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn token(w: &World) -> String {
    w.config().token.unwrap().expose().to_owned()
}

/// Signed init data for the world's person `i` (their Telegram id).
fn init_for(w: &World, i: usize) -> String {
    auth::sign_user(
        w.users[i].0,
        ["Ann", "Boris", "Chloe", "Dmitri"][i],
        "en",
        now(),
        &token(w),
    )
}

/// The Mini App over the world's bot; presses at any pace (the tests make
/// whole deals through the API at machine speed).
async fn serve(w: &World) -> RunningWebApp {
    serve_with(w, PressRates::UNLIMITED).await
}

async fn serve_with(w: &World, press_rates: PressRates) -> RunningWebApp {
    let front = w.running().shared().front.clone();
    let app = LiveApp {
        url: APP_URL.to_owned(),
        short_name: Some("table".to_owned()),
    };
    let serving = webapp::Serving {
        press_rates,
        ..webapp::Serving::default()
    };
    webapp::serve_with(
        "127.0.0.1:0".parse().unwrap(),
        front,
        &token(w),
        app,
        serving,
    )
    .await
    .unwrap()
}

async fn get_state(addr: SocketAddr, table: TableId, init: Option<&str>) -> (u16, Value) {
    let mut r = reqwest::Client::new().get(format!("http://{addr}/api/state?table={}", table.0));
    if let Some(init) = init {
        r = r.header("Authorization", format!("tma {init}"));
    }
    let r = r.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

/// The page's event stream of `table` for the person `init` signs in.
fn events_url(addr: SocketAddr, table: TableId, init: &str) -> String {
    format!(
        "http://{addr}/api/events?table={}&auth={}",
        table.0,
        url::form_urlencoded::byte_serialize(init.as_bytes()).collect::<String>()
    )
}

async fn post_press(
    addr: SocketAddr,
    init: &str,
    table: TableId,
    press: &str,
    id: &str,
) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(format!("http://{addr}/api/press"))
        .header("Authorization", format!("tma {init}"))
        .body(json!({ "table": table.0, "press": press, "id": id }).to_string())
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

/// The awaited seat's move through the Mini App's API, as the page makes
/// it: each card selected with its own press, then the move.
async fn api_move(w: &World, addr: SocketAddr, t: &Table, id_prefix: &str) {
    let seat = t.awaiting()[0];
    let init = init_for(w, seat.index());
    let action = policy(t.game().unwrap(), seat);
    let (cards, make) = move_buttons(action);
    let one_press = matches!(action, GameAction::Hearts(_));
    for (n, c) in cards.iter().filter(|_| !one_press).enumerate() {
        let (status, body) = post_press(
            addr,
            &init,
            t.id(),
            &press_data(t, TableAction::Toggle(c)),
            &format!("{id_prefix}-t{n}"),
        )
        .await;
        assert_eq!((status, &body["message"]), (200, &Value::Null), "{body}");
    }
    let (status, body) =
        post_press(addr, &init, t.id(), &press_data(t, make(cards)), id_prefix).await;
    assert_eq!((status, &body["message"]), (200, &Value::Null), "{body}");
}

#[tokio::test]
async fn the_api_trusts_only_signed_init_data_and_a_move_counts_once() {
    let w = World::new().await;
    let app = serve(&w).await;
    let addr = app.local_addr();
    let id = w.open("/kozel", false).await;
    let username = w.running().shared().username.clone();

    // The private hand opens the app at its table; the group's table links
    // to it directly (a group cannot hold a web_app button).
    let hand = w
        .shown(w.dm(0), "the hand with the Mini App", |m| {
            m.keyboard
                .as_ref()
                .is_some_and(|k| k.buttons().any(|b| b.web_app().is_some()))
        })
        .await;
    let web_app = hand
        .keyboard
        .unwrap()
        .buttons()
        .find_map(|b| b.web_app().map(str::to_owned));
    assert_eq!(web_app, Some(format!("{APP_URL}?table={}", id.0)));
    let link = format!("https://t.me/{username}/table?startapp={}", id.0);
    w.shown(w.group, "the table's direct link", |m| {
        m.keyboard
            .as_ref()
            .is_some_and(|k| k.buttons().any(|b| b.url() == Some(link.as_str())))
    })
    .await;

    // The fake refuses a web_app button in a group, as Telegram does.
    let send = |chat: ChatId| {
        let url = format!("{}bot{}/sendMessage", w.fake.api_url(), token(&w));
        async move {
            let r = reqwest::Client::new()
                .post(url)
                .json(&json!({
                    "chat_id": chat.0,
                    "text": "open",
                    "reply_markup": {"inline_keyboard": [[{"text": "app", "web_app": {"url": APP_URL}}]]},
                }))
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (status, body) = send(w.group).await;
    assert_eq!(status, 400);
    assert!(
        body["description"]
            .as_str()
            .unwrap()
            .contains("BUTTON_TYPE_INVALID"),
        "{body}"
    );
    assert_eq!(send(w.dm(0)).await.0, 200);

    // Without, with forged, tampered and old init data: 401, with a message.
    let t = w.table(id).await;
    let seat = t.awaiting()[0].index();
    let good = init_for(&w, seat);
    let forged = auth::sign_user(
        w.users[seat].0,
        "Ann",
        "en",
        now(),
        "1:forged-token-0000000000000000000000000",
    );
    let tampered = good.replace(&format!("%22id%22%3A{}", w.users[seat].0), "%22id%22%3A77");
    assert_ne!(tampered, good);
    let old = auth::sign_user(
        w.users[seat].0,
        "Ann",
        "en",
        now() - 2 * 24 * 3600,
        &token(&w),
    );
    let (status, body) = get_state(addr, id, None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("unauthorized"))
    );
    assert!(body["message"].as_str().unwrap().contains("Telegram"));
    let action = policy(t.game().unwrap(), t.awaiting()[0]);
    let (cards, make) = move_buttons(action);
    let the_move = press_data(&t, make(cards));
    for bad in [&forged, &tampered, &old] {
        assert_eq!(get_state(addr, id, Some(bad)).await.0, 401);
        let (status, body) = post_press(addr, bad, id, &the_move, "forged-1").await;
        assert_eq!(
            (status, body["error"].as_str()),
            (401, Some("unauthorized")),
            "{body}"
        );
    }
    // Someone without a seat sees the table without cards and cannot act.
    let outsider = auth::sign_user(4242, "Eve", "ru", now(), &token(&w));
    let (status, body) = get_state(addr, id, Some(&outsider)).await;
    assert_eq!(
        (status, &body["hand"], body["lang"].as_str()),
        (200, &Value::Null, Some("ru"))
    );
    let (status, body) = post_press(addr, &outsider, id, &the_move, "eve-1").await;
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("forbidden")),
        "{body}"
    );
    // A table button (not a hand's) is not the Mini App's to press.
    let join = press_data(&t, TableAction::Join);
    assert_eq!(post_press(addr, &good, id, &join, "join-1").await.0, 400);
    assert_eq!(
        w.table(id).await.version(),
        t.version(),
        "a refusal changed the table"
    );

    // The seated person's state: their cards, the moves, the texts.
    let (status, body) = get_state(addr, id, Some(&good)).await;
    assert_eq!(status, 200);
    assert_eq!(body["version"].as_u64(), Some(t.version()));
    assert_eq!(body["you"].as_u64(), Some(seat as u64 + 1));
    assert_eq!(body["your_turn"], json!(true));
    assert_eq!(body["hand"]["cards"].as_array().unwrap().len(), 4);

    // A move in the Mini App counts once, also sent again; the chat's
    // button for the same move is then stale.
    api_move(&w, addr, &t, "move-1").await;
    let after = w.table(id).await;
    assert_eq!(after.version(), t.version() + 1);
    let (status, body) = post_press(addr, &good, id, &the_move, "move-1").await;
    assert_eq!((status, &body["message"]), (200, &Value::Null), "{body}");
    assert_eq!(
        w.table(id).await.version(),
        after.version(),
        "a repeated id counted twice"
    );
    // The chat's hand still showing the move when it was pressed (a tap
    // just before its edit landed).
    let hand = w.hand_message(seat).await;
    let q = w
        .fake
        .press_raw(w.users[seat], w.dm(seat), hand, &the_move)
        .unwrap();
    let popup = w.answer(&q).await;
    assert!(
        popup.as_deref().is_some_and(|p| p.contains("out of date")),
        "{popup:?}: the chat's move counted too"
    );
    assert_eq!(w.table(id).await.version(), after.version());
    app.stop().await;
}

/// A page's retry of a press whose answer it lost carries the same id: it
/// is answered as the first was and changes nothing. A selection used to
/// flip twice (a card selected, then unselected by the retry).
#[tokio::test]
async fn a_press_sent_again_with_its_id_counts_once() {
    let mut w = World::new().await;
    let app = serve(&w).await;
    let addr = app.local_addr();
    let id = w.open("/kozel", false).await;
    let t = w.table(id).await;
    let seat = t.awaiting()[0];
    let init = init_for(&w, seat.index());
    let (_, before) = get_state(addr, id, Some(&init)).await;
    let card = before["hand"]["cards"][0].clone();
    let press = card["press"].as_str().unwrap().to_owned();
    let selected = |state: &Value| {
        state["hand"]["cards"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["code"] == card["code"])
            .map(|c| c["selected"].as_bool().unwrap())
    };
    assert_eq!(selected(&before), Some(false));
    for _ in 0..2 {
        let (status, body) = post_press(addr, &init, id, &press, "alice-sel-1").await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(selected(&body["state"]), Some(true), "{body}");
    }
    // A new id is a new press: the card is unselected again.
    let (_, body) = post_press(addr, &init, id, &press, "alice-sel-2").await;
    assert_eq!(selected(&body["state"]), Some(false), "{body}");
    app.stop().await;
    w.stop().await;
}

/// The Mini App's presses had no limit (Telegram's and Discord's had): one
/// person's flood through the API reached the table, press after press.
/// Past a person's rate it is refused at once (429, "too many presses"),
/// changing nothing, and the others at the table press as before.
#[tokio::test]
async fn one_persons_flood_through_the_api_is_refused_and_the_others_play_on() {
    let mut w = World::new().await;
    let app = serve_with(&w, PressRates::PEOPLE).await;
    let addr = app.local_addr();
    let id = w.open("/kozel", false).await;
    let t = w.table(id).await;
    let flooder = t.awaiting()[0].index();
    let init = init_for(&w, flooder);
    let (_, before) = get_state(addr, id, Some(&init)).await;
    let press = before["hand"]["cards"][0]["press"]
        .as_str()
        .unwrap()
        .to_owned();
    let flood = std::time::Instant::now();
    let mut presses = tokio::task::JoinSet::new();
    for n in 0..200 {
        let (init, press) = (init.clone(), press.clone());
        presses
            .spawn(async move { post_press(addr, &init, id, &press, &format!("flood-{n}")).await });
    }
    let answers = presses.join_all().await;
    // A person's bucket: 10 at once, then 5 a second.
    let allowed = 10 + (5.0 * flood.elapsed().as_secs_f64()).ceil() as usize;
    let refused: Vec<&Value> = answers
        .iter()
        .filter(|(status, _)| *status == 429)
        .map(|(_, body)| body)
        .collect();
    let taken = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(taken + refused.len(), 200, "every press answered");
    assert!(
        taken <= allowed,
        "{taken} of 200 presses taken, {allowed} allowed"
    );
    assert!(
        refused.iter().all(|b| b["error"] == "too_fast"
            && b["message"]
                .as_str()
                .unwrap()
                .starts_with("Too many presses")),
        "{refused:?}"
    );
    assert_eq!(
        w.table(id).await.version(),
        t.version(),
        "a selection moves nothing"
    );
    // Another person at the table: taken at once.
    let other = (flooder + 1) % 4;
    let (_, theirs) = get_state(addr, id, Some(&init_for(&w, other))).await;
    let their_card = theirs["hand"]["cards"][0]["press"].as_str().unwrap();
    let (status, body) = post_press(addr, &init_for(&w, other), id, their_card, "other-1").await;
    assert_eq!(status, 200, "{body}");
    app.stop().await;
    w.stop().await;
}

/// The page keeps the newest state it saw, by `seq`; a Mini App server
/// started anew (a restart) numbered its states from 1 again, and every
/// page left open ignored them: frozen. A new server numbers after the old.
#[tokio::test]
async fn a_server_started_anew_numbers_its_states_after_the_old_ones() {
    let mut w = World::new().await;
    let id = w.open("/kozel", false).await;
    let init = init_for(&w, 0);
    let app = serve(&w).await;
    let mut last = 0;
    for _ in 0..5 {
        let (status, body) = get_state(app.local_addr(), id, Some(&init)).await;
        assert_eq!(status, 200, "{body}");
        last = body["seq"].as_u64().unwrap();
    }
    app.stop().await;
    let again = serve(&w).await;
    let (_, body) = get_state(again.local_addr(), id, Some(&init)).await;
    let first = body["seq"].as_u64().unwrap();
    assert!(
        first > last,
        "the new server's first state {first}, the old one's last {last}"
    );
    again.stop().await;
    w.stop().await;
}

#[tokio::test]
async fn an_open_mini_app_holds_the_chat_hand_until_it_closes() {
    let w = World::new().await;
    let app = serve(&w).await;
    let addr = app.local_addr();
    let id = w.open("/kozel", false).await;
    let t = w.table(id).await;
    // Someone who waits watches the Mini App.
    let watcher = Seat::ALL
        .into_iter()
        .find(|s| !t.awaiting().contains(s))
        .unwrap()
        .index();
    let hand = w.hand_at(watcher, id, t.version()).await;
    let init = init_for(&w, watcher);
    let events_url = events_url(addr, id, &init);
    let mut events = reqwest::get(&events_url).await.unwrap();
    assert_eq!(events.status().as_u16(), 200);
    let first = String::from_utf8(events.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    assert!(first.contains("event: state"), "{first}");
    // Two moves by the others; the page hears of each at once.
    let mut t = t;
    for _ in 0..2 {
        if t.awaiting().iter().any(|s| s.index() == watcher) {
            break;
        }
        t = w.play(&t).await;
        let want = format!("\"version\":{}", t.version());
        let mut seen = String::new();
        while !seen.contains(&want) {
            let chunk = tokio::time::timeout(Duration::from_secs(5), events.chunk())
                .await
                .expect("no event for a move")
                .unwrap()
                .unwrap();
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
    // Every other hand went out; the watcher's chat hand was not edited.
    for other in (0..4).filter(|i| *i != watcher) {
        w.hand_at(other, id, t.version()).await;
    }
    let still = w.fake.message(w.dm(watcher), hand.id).unwrap();
    assert_eq!(
        (still.edits, &still.text),
        (hand.edits, &hand.text),
        "edited while the Mini App was open"
    );
    // Closed: brought up to date once.
    drop(events);
    let now = w.hand_at(watcher, id, t.version()).await;
    assert_eq!(now.id, hand.id);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let edits = w.fake.message(w.dm(watcher), hand.id).unwrap().edits;
    assert_eq!(
        edits,
        hand.edits + 1,
        "the held hand went out more than once"
    );
    // A page that connects again catches up with its first event.
    let mut again = reqwest::get(&events_url).await.unwrap();
    let first = String::from_utf8(again.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    assert!(
        first.contains(&format!("\"version\":{}", t.version())),
        "{first}"
    );
    app.stop().await;
}

/// A person who plays the deal out in the Mini App gets no chat hand
/// edit at the deal's end either: the new deal's hand used to go out to
/// the chat (edited or posted anew) while the page was open. Closed, the
/// chat hand catches up once.
#[tokio::test]
async fn an_open_mini_app_holds_the_chat_hand_through_a_new_deal() {
    let w = World::new().await;
    let app = serve(&w).await;
    let addr = app.local_addr();
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;
    let watcher = 0;
    let hand = w.hand_at(watcher, id, t.version()).await;
    let before = w.fake.messages(w.dm(watcher));
    let init = init_for(&w, watcher);
    let events_url = events_url(addr, id, &init);
    let mut events = reqwest::get(&events_url).await.unwrap();
    assert_eq!(events.status().as_u16(), 200);
    // The page reads its events all along.
    let reader = tokio::spawn(async move { while let Ok(Some(_)) = events.chunk().await {} });
    let first = deal_no(&t);
    let mut n = 0;
    while deal_no(&t) == first && t.phase() == Phase::Playing {
        if t.awaiting().iter().any(|s| s.index() == watcher) {
            api_move(&w, addr, &t, &format!("deal-{n}")).await;
            t = w.wait_version_after(id, t.version()).await;
        } else {
            t = w.play(&t).await;
        }
        n += 1;
        assert!(n < 200, "the deal does not end");
    }
    // The others' hands show the new deal; the watcher's chat is as it was.
    for other in 1..4 {
        w.hand_at(other, id, t.version()).await;
    }
    let after = w.fake.messages(w.dm(watcher));
    let shown = |ms: &[kozyr_test_kit::fakebot::FakeMessage]| {
        ms.iter()
            .map(|m| (m.id, m.edits, m.deleted))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        shown(&after),
        shown(&before),
        "the chat hand changed while the Mini App was open"
    );
    // Closed: brought up to date once, at the new deal.
    reader.abort();
    let _ = reader.await;
    let now = w.hand_at(watcher, id, t.version()).await;
    assert!(
        now.id != hand.id || now.edits > hand.edits,
        "the held hand did not go out"
    );
    app.stop().await;
}

// ------------------------------------------------------------ browser --

/// chromedriver on a free port, stopped on drop.
struct Driver(std::process::Child, u16);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn chromedriver() -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromedriver (Debian's chromium-driver; .ci/run installs it)");
    Driver(child, port)
}

/// A headless Chromium: a phone's screen (390×844, twice as many pixels)
/// or a desktop's (1280×900).
async fn browser(driver: &Driver, profile: &std::path::Path, phone: bool) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
    ]
    .map(str::to_owned)
    .into_iter()
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect::<Vec<_>>();
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        if phone {
            json!({
                "binary": "/usr/bin/chromium",
                "args": args,
                "mobileEmulation": {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2.0}},
            })
        } else {
            json!({ "binary": "/usr/bin/chromium", "args": args })
        },
    );
    let url = format!("http://127.0.0.1:{}", driver.1);
    eventually(
        Duration::from_secs(20),
        Duration::from_millis(100),
        "chromedriver never answered",
        || {
            let caps = caps.clone();
            let url = url.clone();
            async move {
                ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                    .capabilities(caps)
                    .connect(&url)
                    .await
                    .ok()
            }
        },
    )
    .await
}

fn page_url(addr: SocketAddr, table: TableId, init: &str) -> String {
    let fragment: String = url::form_urlencoded::byte_serialize(init.as_bytes()).collect();
    format!(
        "http://{addr}/?table={}#tgWebAppData={fragment}&tgWebAppPlatform=web",
        table.0
    )
}

fn screenshots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/webapp-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The pages of the people who play in the Mini App, one browser window each.
struct Pages {
    client: Client,
    addr: SocketAddr,
    windows: Vec<(usize, TableId, fantoccini::wd::WindowHandle)>,
}

impl Pages {
    /// Person `i`'s page of `table`, opened in a window of its own the first time.
    async fn show(&mut self, w: &World, i: usize, table: TableId) {
        self.show_as(&init_for(w, i), i, table).await;
    }

    /// [`Pages::show`] for person `i` signed in with `init`.
    async fn show_as(&mut self, init: &str, i: usize, table: TableId) {
        if let Some((_, _, h)) = self.windows.iter().find(|(p, t, _)| *p == i && *t == table) {
            self.client.switch_to_window(h.clone()).await.unwrap();
            return;
        }
        if !self.windows.is_empty() {
            let new = self.client.new_window(false).await.unwrap();
            self.client.switch_to_window(new.handle).await.unwrap();
        }
        // A new document: a URL that differs only in its fragment would not load anew.
        self.client.goto("about:blank").await.unwrap();
        self.client
            .goto(&page_url(self.addr, table, init))
            .await
            .unwrap();
        let h = self.client.window().await.unwrap();
        self.windows.push((i, table, h));
    }

    /// Waits until the page shows `version`.
    async fn current(&self, version: u64) {
        let shown = self
            .client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(&format!("body[data-version=\"{version}\"]")))
            .await;
        if let Err(e) = shown {
            self.screenshot("failed").await;
            let body = self.client.source().await.unwrap_or_default();
            panic!("the page never showed version {version}: {e}\n{body}");
        }
    }

    /// Clicks what `css` finds; an element the page just drew anew is
    /// looked up again.
    async fn click(&self, css: &str) {
        for _ in 0..5 {
            let el = self.find(css).await;
            // Scrolled to the middle first, as a finger would: not under the
            // move bar fixed at the bottom.
            let _ = self
                .client
                .execute(
                    "arguments[0].scrollIntoView({block: 'center'});",
                    vec![serde_json::to_value(&el).unwrap()],
                )
                .await;
            match el.click().await {
                Ok(()) => return,
                Err(fantoccini::error::CmdError::Standard(e))
                    if e.error == fantoccini::error::ErrorStatus::StaleElementReference => {}
                Err(e) => panic!("clicking {css}: {e}"),
            }
        }
        panic!("{css} was drawn anew under every click");
    }

    /// The element `css` finds, once the page shows one.
    async fn find(&self, css: &str) -> fantoccini::elements::Element {
        let el = self
            .client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(css))
            .await;
        match el {
            Ok(el) => el,
            Err(e) => {
                self.screenshot("failed").await;
                let body = self.client.source().await.unwrap_or_default();
                panic!("no {css} on the page: {e}\n{body}");
            }
        }
    }

    async fn screenshot(&self, name: &str) {
        // From the top, as the page opens: a click may have scrolled it.
        let _ = self.client.execute("window.scrollTo(0, 0);", vec![]).await;
        let png = self.client.screenshot().await.unwrap();
        std::fs::write(screenshots().join(format!("{name}.png")), png).unwrap();
    }

    /// The table is drawn: every card face up on the trick is a card
    /// element in front of the seat that played it, not a line of text.
    async fn board_drawn(&self, t: &Table) {
        let game = t.game().unwrap();
        let board = kozyr::front::games::board(&game.view(t.awaiting()[0]));
        for (seat, played) in board.plays {
            if let kozyr::front::games::Played::FaceUp(cards) = played {
                for c in cards {
                    self.find(&format!(
                        "#board .spot[data-seat=\"{}\"] .played .pc[data-card=\"{c}\"]",
                        seat.index() + 1
                    ))
                    .await;
                }
            }
        }
    }

    /// Every tap target of the page a finger can find: at least 40 px high
    /// (the table's words fold behind an 18 px line once).
    async fn tap_targets_fit_a_finger(&self) {
        let heights = self
            .client
            .execute(
                "return Array.from(document.querySelectorAll('summary, button'))\
                   .filter((e) => e.offsetParent !== null)\
                   .map((e) => [e.id || e.className || e.tagName, e.getBoundingClientRect().height]);",
                vec![],
            )
            .await
            .unwrap();
        let small: Vec<_> = heights
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h[1].as_f64().unwrap() < 40.0)
            .collect();
        assert!(small.is_empty(), "tap targets under 40 px: {small:?}");
    }

    /// The awaited seat's move, tapped in the page: its cards, then the move.
    async fn play(&mut self, w: &World, t: &Table, shot: Option<String>) {
        let seat = t.awaiting()[0].index();
        self.play_as(&init_for(w, seat), t, shot).await;
    }

    /// [`Pages::play`], the awaited person signed in with `init`.
    async fn play_as(&mut self, init: &str, t: &Table, shot: Option<String>) {
        let seat = t.awaiting()[0];
        self.show_as(init, seat.index(), t.id()).await;
        self.current(t.version()).await;
        self.board_drawn(t).await;
        if shot.is_some() {
            self.tap_targets_fit_a_finger().await;
        }
        let action = policy(t.game().unwrap(), seat);
        let (cards, make) = move_buttons(action);
        if matches!(action, GameAction::Hearts(kozyr::hearts::Action::Play(_))) {
            let c = cards.first().unwrap();
            if let Some(name) = &shot {
                self.screenshot(name).await;
            }
            self.click(&format!("button.card[data-card=\"{c}\"]")).await;
            return;
        }
        for c in cards.iter() {
            self.click(&format!("button.card[data-card=\"{c}\"]")).await;
            self.find(&format!("button.card.selected[data-card=\"{c}\"]"))
                .await;
        }
        let press = press_data(t, make(cards));
        // The cards chosen and the move's button under them.
        self.find(&format!("button.move[data-press=\"{press}\"]"))
            .await;
        if let Some(name) = &shot {
            self.screenshot(name).await;
        }
        self.click(&format!("button.move[data-press=\"{press}\"]"))
            .await;
    }
}

/// Telegram's own themes, as its script hands them to a page
/// (`themeParams` → `--tg-theme-*` on the document): (name, variables).
const THEMES: [(&str, &[(&str, &str)]); 2] = [
    (
        "light",
        &[
            ("bg-color", "#ffffff"),
            ("text-color", "#000000"),
            ("hint-color", "#999999"),
            ("link-color", "#2481cc"),
            ("button-color", "#2481cc"),
            ("button-text-color", "#ffffff"),
            ("secondary-bg-color", "#efeff3"),
        ],
    ),
    (
        "dark",
        &[
            ("bg-color", "#212121"),
            ("text-color", "#ffffff"),
            ("hint-color", "#aaaaaa"),
            ("link-color", "#8774e1"),
            ("button-color", "#8774e1"),
            ("button-text-color", "#ffffff"),
            ("secondary-bg-color", "#181818"),
        ],
    ),
];

impl Pages {
    /// Screenshots of the page in Telegram's light and dark themes, set as
    /// its script sets them; the page's own colours again afterwards.
    async fn themed_screenshots(&self, name: &str) {
        for (theme, vars) in THEMES {
            let set: Vec<Value> = vars
                .iter()
                .map(|(k, v)| json!([format!("--tg-theme-{k}"), v]))
                .collect();
            self.client
                .execute(
                    "const s = document.documentElement.style;\
                     for (const [k, v] of arguments[0]) s.setProperty(k, v);\
                     s.setProperty('--tg-color-scheme', arguments[1]);",
                    vec![Value::Array(set), json!(theme)],
                )
                .await
                .unwrap();
            self.screenshot(&format!("{name}-{theme}")).await;
        }
        self.client
            .execute("document.documentElement.removeAttribute('style');", vec![])
            .await
            .unwrap();
    }
}

/// Plays the deal of `id` to its end: seats in `in_app` tap in the page,
/// the others press the chat's buttons. Screenshots of some moves, and of
/// a trick under way (two cards down) in both themes on the phone and,
/// with `desktop`, at desktop size.
async fn play_deal(
    w: &World,
    pages: &mut Pages,
    mut desktop: Option<&mut Pages>,
    id: TableId,
    in_app: [usize; 2],
    name: &str,
) {
    let n = deal_no(&w.table(id).await);
    let mut moves = 0;
    loop {
        let t = w.table(id).await;
        if t.phase() != Phase::Playing || deal_no(&t) != n {
            break;
        }
        let trick_under_way = t.game().is_some_and(|g| {
            let board = kozyr::front::games::board(&g.view(t.awaiting()[0]));
            board
                .plays
                .iter()
                .filter(|(_, p)| matches!(p, kozyr::front::games::Played::FaceUp(_)))
                .count()
                >= 2
        });
        if trick_under_way && let Some(d) = desktop.take() {
            for (p, size) in [(&mut *pages, "phone"), (d, "desktop")] {
                p.show(w, in_app[0], id).await;
                p.current(t.version()).await;
                p.board_drawn(&t).await;
                p.themed_screenshots(&format!("{name}-{size}-trick")).await;
            }
        }
        let seat = t.awaiting()[0].index();
        if in_app.contains(&seat) {
            let shot = (moves < 3 || moves % 12 == 0).then(|| format!("{name}-phone-{moves:02}"));
            pages.play(w, &t, shot).await;
            w.wait_version_after(id, t.version()).await;
        } else {
            w.play(&t).await;
        }
        moves += 1;
        assert!(moves < 200, "the deal does not end");
    }
    println!("{name}: {moves} moves, deal {n} over");
}

#[tokio::test]
async fn four_people_play_kozel_and_hearts_in_the_browser_and_in_chat() {
    let w = World::new().await;
    let app = serve(&w).await;
    let addr = app.local_addr();
    let driver = chromedriver();
    let (profile, desktop_profile) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let client = browser(&driver, profile.path(), true).await;
    let mut pages = Pages {
        client: client.clone(),
        addr,
        windows: Vec::new(),
    };
    let mut desktop = Pages {
        client: browser(&driver, desktop_profile.path(), false).await,
        addr,
        windows: Vec::new(),
    };

    let kozel = w.open("/kozel", false).await;
    // Forged init data: the page says so and nothing changes.
    let before = w.table(kozel).await.version();
    let forged = auth::sign_user(
        w.users[0].0,
        "Ann",
        "en",
        now(),
        "1:forged-token-0000000000000000000000000",
    );
    client.goto(&page_url(addr, kozel, &forged)).await.unwrap();
    pages
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("body[data-error=\"unauthorized\"]"))
        .await
        .unwrap();
    let shown = client
        .find(Locator::Id("error"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(shown.contains("Open this page from Telegram"), "{shown}");
    assert_eq!(w.table(kozel).await.version(), before);

    // Kozel: Ann and Chloe in the app, Boris and Dmitri in chat.
    play_deal(&w, &mut pages, Some(&mut desktop), kozel, [0, 2], "kozel").await;
    // The deal's result in the app, at desktop size too.
    pages.show(&w, 0, kozel).await;
    pages.current(w.table(kozel).await.version()).await;
    pages.screenshot("kozel-phone-deal-over").await;
    desktop.show(&w, 0, kozel).await;
    desktop.current(w.table(kozel).await.version()).await;
    desktop.screenshot("kozel-desktop-deal-over").await;

    // Hearts in another group: Boris and Dmitri in the app this time.
    let group = w.fake.add_group("Hearts night", &w.users);
    w.fake.user_says(group, w.users[0], "/hearts").unwrap();
    for i in 1..4 {
        let seat = w.lobby_button_in(group, &format!("Seat {}", i + 1)).await;
        assert_eq!(w.press(w.users[i], group, &seat).await, None);
    }
    let start = w.lobby_button_in(group, "Start").await;
    assert_eq!(w.press(w.users[0], group, &start).await, None);
    let hearts = w.open_table_in(group).await.unwrap().id();
    desktop.show(&w, 1, hearts).await;
    desktop.current(w.table(hearts).await.version()).await;
    desktop.screenshot("hearts-desktop-passing").await;
    play_deal(&w, &mut pages, Some(&mut desktop), hearts, [1, 3], "hearts").await;
    pages.show(&w, 3, hearts).await;
    pages.current(w.table(hearts).await.version()).await;
    pages.screenshot("hearts-phone-deal-over").await;

    client.close().await.unwrap();
    desktop.client.close().await.unwrap();
    drop(driver);
    app.stop().await;
}

/// One phone-sized browser with its pages; chromedriver and the profile
/// live as long as it.
struct Phone {
    pages: Pages,
    _profile: tempfile::TempDir,
    _driver: Driver,
}

async fn phone(addr: SocketAddr) -> Phone {
    let driver = chromedriver();
    let profile = tempfile::tempdir().unwrap();
    let client = browser(&driver, profile.path(), true).await;
    Phone {
        pages: Pages {
            client,
            addr,
            windows: Vec::new(),
        },
        _profile: profile,
        _driver: driver,
    }
}

/// A seat the table does not wait for.
fn a_waiting_seat(t: &Table) -> usize {
    Seat::ALL
        .into_iter()
        .find(|s| !t.awaiting().contains(s))
        .unwrap()
        .index()
}

/// A page left for another (in a browser, or kept in its back/forward
/// cache) no longer holds its person's chat hand: the page closes its
/// stream when hidden, and the chat hand catches up with the moves made
/// meanwhile.
#[tokio::test]
async fn a_page_left_for_another_lets_go_of_the_chat_hand() {
    let w = World::new().await;
    let app = serve(&w).await;
    let addr = app.local_addr();
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;
    let watcher = a_waiting_seat(&t);
    let hand = w.hand_at(watcher, id, t.version()).await;
    let mut phone = phone(addr).await;
    let pages = &mut phone.pages;
    let client = pages.client.clone();
    pages.show(&w, watcher, id).await;
    pages.current(t.version()).await;
    // A move by someone else while the page is open: the chat hand holds.
    if !t.awaiting().iter().any(|s| s.index() == watcher) {
        t = w.play(&t).await;
    }
    pages.current(t.version()).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let held = w.fake.message(w.dm(watcher), hand.id).unwrap();
    assert_eq!(held.edits, hand.edits, "edited while the page was open");
    // Left for another page, not closed.
    client.goto("about:blank").await.unwrap();
    let now = w.hand_at(watcher, id, t.version()).await;
    assert!(
        now.id != hand.id || now.edits > hand.edits,
        "the chat hand stayed held"
    );
    client.close().await.unwrap();
    app.stop().await;
}

/// An admin's proxy while nothing serves behind it: every request on
/// `addr` answered 502, as nginx does, and counted.
struct BadGateway {
    asked: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl BadGateway {
    async fn on(addr: SocketAddr) -> BadGateway {
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = asked.clone();
        let app = axum::Router::new().fallback(move || {
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            async { (axum::http::StatusCode::BAD_GATEWAY, "502 Bad Gateway") }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        BadGateway { asked, task }
    }

    /// Waits until a page's stream has met the 502 (a browser tries again
    /// some 3 s after a drop).
    async fn met(&self) {
        eventually(
            Duration::from_secs(15),
            Duration::from_millis(50),
            "the page's stream met the proxy's 502",
            || async { (self.asked.load(std::sync::atomic::Ordering::Relaxed) > 0).then_some(()) },
        )
        .await;
    }

    /// Frees the address for the server that comes back.
    async fn stop(self) {
        self.task.abort();
        let _ = self.task.await;
    }
}

/// The Mini App server goes away under open pages, and for a while the
/// admin's proxy in front of it answers 502 (as nginx does), which makes
/// a browser give its event stream up for good. Once a new server is
/// there — its states numbered from scratch — the page, not reloaded,
/// opens its stream again by itself and shows the moves made meanwhile
/// and after, from the chat and from the page.
#[tokio::test]
async fn an_open_page_comes_back_by_itself_after_the_server_went_away_behind_a_proxy() {
    let w = World::new().await;
    let first = serve(&w).await;
    let addr = first.local_addr();
    let id = w.open("/kozel", false).await;
    let mut t = w.table(id).await;
    // Someone who waits watches: the move while the server is away is
    // another's, made in the chat.
    let watcher = a_waiting_seat(&t);
    let mut phone = phone(addr).await;
    let pages = &mut phone.pages;
    let client = pages.client.clone();
    pages.show(&w, watcher, id).await;
    pages.current(t.version()).await;
    // Many states made by the first server: a counter from 1 in the next
    // would stay below the highest the page saw.
    for _ in 0..20 {
        get_state(addr, id, Some(&init_for(&w, watcher))).await;
    }
    first.stop().await;
    // The proxy's 502 on the same address while nothing serves.
    let proxy = BadGateway::on(addr).await;
    // A move from the chat while the page cannot hear of it.
    t = w.play(&t).await;
    // Until the page's stream has met the 502 (the browser tries again
    // some 3 s after a drop), and a little longer.
    proxy.met().await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    proxy.stop().await;
    let front = w.running().shared().front.clone();
    let again = webapp::serve(
        addr,
        front,
        &token(&w),
        LiveApp {
            url: APP_URL.to_owned(),
            short_name: Some("table".to_owned()),
        },
    )
    .await
    .unwrap();
    // No reload: the page shows the move made while it was away...
    pages.current(t.version()).await;
    // ...and the next ones, from the chat and from the page.
    for _ in 0..2 {
        if t.awaiting().iter().any(|s| s.index() == watcher) {
            pages.play(&w, &t, None).await;
            t = w.wait_version_after(id, t.version()).await;
        } else {
            t = w.play(&t).await;
        }
        pages.current(t.version()).await;
    }
    client.close().await.unwrap();
    again.stop().await;
}

/// `kozyr run` killed (SIGKILL) under open pages, and while it is down the
/// admin's proxy answers 502 in its place: once a new process serves, the
/// pages — not reloaded — open their streams again by themselves and show
/// the moves made from then on, from the chat and from the page. The
/// figures (from a move's commit to the page showing it) are printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_pages_go_on_after_the_bot_is_killed_behind_a_proxy() {
    use crate::support::telegram::{KillWorld, TOKEN, table_of};
    use kozyr_loadtest::Driver;
    use kozyr_test_kit::fakebot::FakeBotConfig;

    let world = KillWorld::new(FakeBotConfig::default(), 0).await;
    let addr: SocketAddr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    struct Bot(std::process::Child);
    impl Drop for Bot {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let start = || async {
        let polls = world.fake.calls_of("getUpdates");
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_kozyr"))
            .arg("run")
            .envs(world.env.iter().map(|(k, v)| (*k, v.as_str())))
            .env("KOZYR_WEBAPP_URL", APP_URL)
            .env("KOZYR_WEBAPP_LISTEN", addr.to_string())
            .env("RUST_LOG", "off")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let bot = Bot(child);
        eventually(
            Duration::from_secs(20),
            Duration::from_millis(50),
            "kozyr run serves the Mini App and polls Telegram",
            || async {
                let page = reqwest::get(format!("http://{addr}/")).await;
                (page.is_ok_and(|r| r.status() == 200) && world.fake.calls_of("getUpdates") > polls)
                    .then_some(())
            },
        )
        .await;
        bot
    };
    let bot = start().await;
    let mut driver = Driver::new(world.fake.clone(), "Kill");
    driver.patience = Duration::from_secs(20);
    driver.open_kozel_table().await.expect("the table starts");
    let store = world.store().await;
    let mut t = table_of(&store, &driver).await;
    let id = t.id();
    let init = |i: usize| {
        let user = driver.users[i].0;
        auth::sign_user(user, &format!("Kill {}", i + 1), "en", now(), TOKEN)
    };
    // Someone who waits watches from the page.
    let watcher = a_waiting_seat(&t);
    let mut phone = phone(addr).await;
    let pages = &mut phone.pages;
    pages.show_as(&init(watcher), watcher, id).await;
    pages.current(t.version()).await;

    drop(bot);
    // The proxy's 502 while nothing serves, until the page's stream met it.
    let proxy = BadGateway::on(addr).await;
    proxy.met().await;
    proxy.stop().await;
    let _bot = start().await;

    // Moves from the chat and from the page, each shown in the page.
    let (mut from_chat, mut from_page) = (Vec::new(), Vec::new());
    for _ in 0..8 {
        if t.phase() != Phase::Playing || (!from_chat.is_empty() && !from_page.is_empty()) {
            break;
        }
        let seat = t.awaiting()[0].index();
        let in_page = seat == watcher;
        if in_page {
            pages.play_as(&init(seat), &t, None).await;
        } else {
            driver
                .play_safe(&t, Duration::ZERO)
                .await
                .expect("a chat move");
        }
        let before = t.version();
        t = eventually(
            Duration::from_secs(20),
            Duration::from_millis(5),
            "the move committed",
            || async {
                let now = table_of(&store, &driver).await;
                (now.version() > before).then_some(now)
            },
        )
        .await;
        let committed = std::time::Instant::now();
        pages.current(t.version()).await;
        let shown = committed.elapsed();
        if in_page {
            &mut from_page
        } else {
            &mut from_chat
        }
        .push(shown);
    }
    println!(
        "after a SIGKILL behind a 502 proxy: chat moves shown in the page after {from_chat:?}, page moves after {from_page:?}"
    );
    assert!(
        !from_chat.is_empty() && !from_page.is_empty(),
        "moves from both"
    );
    pages.client.clone().close().await.unwrap();
}

/// A stand-in for Telegram's `telegram-web-app.js` (the tests reach no
/// internet): a page's `ready()` and `expand()` go to the client as the
/// script sends them inside Telegram's apps,
/// `TelegramWebviewProxy.postEvent(type, data)`; here the proxy keeps them.
const BRIDGE: &str = r#"(function () {
  var posted = window.__posted = [];
  window.TelegramWebviewProxy = { postEvent: function (type) { posted.push(type); } };
  function post(type, data) { window.TelegramWebviewProxy.postEvent(type, JSON.stringify(data || {})); }
  window.Telegram = { WebApp: {
    initData: "", initDataUnsafe: {},
    ready: function () { post("web_app_ready"); },
    expand: function () { post("web_app_expand"); }
  } };
})();"#;

/// Telegram's bridge loads `async`, after the page's own script has run:
/// the page used to call `ready()` and `expand()` only when the bridge was
/// already there, so Telegram kept its loading placeholder and opened the
/// app at half height. They go once the bridge has loaded now, once each.
#[tokio::test]
async fn the_page_tells_telegram_it_is_ready_once_the_bridge_has_loaded() {
    let w = World::new().await;
    // The bridge answers late, as from Telegram's servers far away.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let bridge_addr = listener.local_addr().unwrap();
    let bridge = axum::Router::new().fallback(|| async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        (
            [(axum::http::header::CONTENT_TYPE, "text/javascript")],
            BRIDGE,
        )
    });
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, bridge).await;
    });
    let app = webapp::serve_with(
        "127.0.0.1:0".parse().unwrap(),
        w.running().shared().front.clone(),
        &token(&w),
        LiveApp {
            url: APP_URL.to_owned(),
            short_name: Some("table".to_owned()),
        },
        webapp::Serving {
            bridge: format!("http://{bridge_addr}/js/telegram-web-app.js"),
            ..webapp::Serving::default()
        },
    )
    .await
    .unwrap();
    let id = w.open("/kozel", false).await;
    let t = w.table(id).await;
    let mut phone = phone(app.local_addr()).await;
    let pages = &mut phone.pages;
    pages.show(&w, 0, id).await;
    pages.current(t.version()).await;
    let client = pages.client.clone();
    let posted = eventually(
        Duration::from_secs(10),
        Duration::from_millis(50),
        "the page told the bridge it is ready",
        || async {
            let v = client
                .execute("return window.__posted || [];", vec![])
                .await
                .unwrap();
            let v: Vec<String> = serde_json::from_value(v).unwrap();
            (v.len() >= 2).then_some(v)
        },
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let again: Vec<String> = serde_json::from_value(
        client
            .execute("return window.__posted;", vec![])
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(posted, ["web_app_ready", "web_app_expand"]);
    assert_eq!(again, posted, "once each");
    client.close().await.unwrap();
    server.abort();
    app.stop().await;
}

/// The Mini App is a front-end of its own crate: it names no shell and
/// no store, and no shell (nor anything beneath) names it; what they share
/// goes through `front::live`.
#[test]
fn the_mini_app_and_the_shells_name_each_other_nowhere() {
    fn code_of(dir: &str) -> Vec<(PathBuf, String)> {
        crate::support::source_files(dir)
            .into_iter()
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap();
                let code: String = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .collect::<Vec<_>>()
                    .join("\n");
                (p, code)
            })
            .collect()
    }
    // The Mini App and the drivers are crates whose manifests name no
    // other shell (`layers::the_crates_depend_only_on_what_their_layer_may_use`);
    // their text is read too, for a path through the root's re-exports.
    for dir in ["crates/telegram/src", "crates/discord/src"] {
        for (path, code) in code_of(dir) {
            for banned in ["crate::webapp", "kozyr_webapp", "kozyr::webapp"] {
                assert!(
                    !code.contains(banned),
                    "{} names the Mini App ({banned})",
                    path.display()
                );
            }
        }
    }
}
