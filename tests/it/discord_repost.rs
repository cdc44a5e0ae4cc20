//! The live table stays where people look, in Discord: at every new deal
//! it is posted anew at the bottom of the channel, below the
//! announcements, and when people's chat has buried it the next render
//! posts it anew; the old message keeps its text without buttons. The bot's
//! own messages (answers, pings, announcements) never bury it. Through the
//! strict fake Discord, which dispatches MESSAGE_CREATE only to a gateway
//! session identified with the `GUILD_MESSAGES` intent.

use std::time::Duration;

use kozyr::delivery::burial::BURIED_AFTER;
use kozyr::discord::bot::start;
use kozyr::front::action::TableAction;
use kozyr::table::{Phase, TableId, TurnTimer};
use kozyr_test_kit::fakediscord::{APP_ID, Seen};

use crate::support::discord::{
    CHANNEL, WAIT, World, deal_no, discord_config, open_and_start, tuning,
};
use crate::support::eventually;

/// A turn ping: a new message naming whose turn it is, without buttons
/// (an edit's mention notifies no one). It may come below the table.
fn is_ping(m: &Seen) -> bool {
    m.author == APP_ID && m.content.starts_with("<@") && m.buttons.is_empty()
}

/// The newest message the bot posted in the channel, as `user` sees it,
/// pings left out unless `with_pings`.
fn newest_bot_message(w: &World, user: usize, with_pings: bool) -> Option<Seen> {
    w.fake
        .seen_by(&w.users[user], CHANNEL)
        .into_iter()
        .rev()
        .find(|m| !m.ephemeral && m.author == APP_ID && (with_pings || !is_ping(m)))
}

/// The live table message (not `not`): the bot's newest message, with "My
/// hand"; a turn ping posted after it is let pass unless `strict`.
async fn live_table(w: &World, table: TableId, not: Option<u64>, strict: bool) -> Seen {
    let hand = format!("hand:{}", table.0);
    eventually(
        WAIT,
        Duration::from_millis(5),
        "the live table is the bot's newest message",
        || async {
            newest_bot_message(w, 0, strict)
                .filter(|m| Some(m.id) != not && m.buttons.iter().any(|(_, c)| *c == hand))
        },
    )
    .await
}

/// Public messages anyone can click on.
fn with_components(w: &World) -> Vec<u64> {
    w.fake
        .seen_by(&w.users[0], CHANNEL)
        .iter()
        .filter(|m| !m.ephemeral && (!m.buttons.is_empty() || m.select.is_some()))
        .map(|m| m.id)
        .collect()
}

/// What the bot counts of the channel's chat below its table message.
fn chatter(w: &World) -> u32 {
    w.bot.as_ref().unwrap().shared().chatter(CHANNEL)
}

/// What message `id` shows once it stopped changing (the edits in flight
/// have landed).
async fn settled(w: &World, id: u64) -> String {
    let content = |w: &World| {
        w.fake
            .seen_by(&w.users[0], CHANNEL)
            .into_iter()
            .find(|m| m.id == id)
            .map(|m| m.content)
            .unwrap_or_default()
    };
    let mut last = content(w);
    let mut still = 0;
    for _ in 0..200 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let now = content(w);
        if now == last {
            still += 1;
            if still == 6 {
                return now;
            }
        } else {
            (last, still) = (now, 0);
        }
    }
    panic!("message {id} keeps changing");
}

/// Waits until message `id` no longer shows `before`.
async fn changed(w: &World, id: u64, before: &str) {
    eventually(WAIT, Duration::from_millis(5), "an edit", || async {
        w.fake
            .seen_by(&w.users[0], CHANNEL)
            .into_iter()
            .find(|m| m.id == id && m.content != before)
            .map(|_| ())
    })
    .await;
}

/// Plays the awaited seat's move and waits for the table to take it.
async fn one_move(w: &World, table: TableId) {
    let t = w.table(table).await;
    w.play_safe(&t).await;
    w.wait_version_after(table, t.version()).await;
}

/// (a) Deal 2 starts: the live table, with its buttons, is the bot's newest
/// message, below "Deal 1 is over"; the deal-1 message keeps its text
/// without buttons, and an old client's click on it is answered as out of
/// date and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_deal_posts_the_live_table_anew_below_the_announcements() {
    let mut w = World::new().await;
    let id = open_and_start(&w, "kozel").await;
    // The series' first deal already moved the table below the lobby,
    // which lost its buttons.
    let first = live_table(&w, id, None, true).await;
    let wf = &w;
    eventually(
        WAIT,
        Duration::from_millis(5),
        "one message with buttons",
        || async { (with_components(wf) == vec![first.id]).then_some(()) },
    )
    .await;

    let n = deal_no(&w.table(id).await);
    let mut moves = 0;
    while deal_no(&w.table(id).await) == n {
        one_move(&w, id).await;
        moves += 1;
        assert!(moves < 200, "the deal does not end");
    }
    let t = w.table(id).await;
    assert_eq!((t.phase(), deal_no(&t)), (Phase::Playing, n + 1));

    let live = live_table(&w, id, Some(first.id), true).await;
    let seen = w.fake.seen_by(&w.users[0], CHANNEL);
    let at = |id: u64| seen.iter().position(|m| m.id == id).unwrap();
    let over = seen
        .iter()
        .position(|m| !m.ephemeral && m.content.contains(&format!("Deal {n} is over")))
        .expect("the deal-over announcement");
    assert!(
        at(first.id) < over && over < at(live.id),
        "old table, then the announcement, then the live table"
    );
    // The old message: its text, no buttons — edited once.
    eventually(
        WAIT,
        Duration::from_millis(5),
        "the old table without buttons",
        || async { (with_components(wf) == vec![live.id]).then_some(()) },
    )
    .await;
    let old = w
        .fake
        .seen_by(&w.users[0], CHANNEL)
        .into_iter()
        .find(|m| m.id == first.id)
        .unwrap();
    assert!(
        old.content.contains(&format!("· deal {n}")),
        "deal {n}'s table: {}",
        old.content
    );
    assert!(old.buttons.is_empty() && old.select.is_none());
    let old_edits = w
        .fake
        .calls()
        .iter()
        .filter(|c| c.method == "PATCH" && c.route == "PATCH /channels/:id/messages/:id")
        .count();

    // An old client still sends the old message's "My hand": out of date,
    // and nothing changes.
    let version = w.table(id).await.version();
    let (_, my_hand) = first
        .buttons
        .iter()
        .find(|(_, c)| c.starts_with("hand:"))
        .unwrap();
    let q = w.fake.click_raw(&w.users[1], first.id, my_hand).unwrap();
    assert_eq!(w.answered(q).await, 4, "an ephemeral answer");
    let note = w
        .fake
        .seen_by(&w.users[1], CHANNEL)
        .into_iter()
        .rev()
        .find(|m| m.ephemeral)
        .unwrap();
    assert!(note.content.contains("out of date"), "{}", note.content);
    assert!(note.buttons.is_empty() && note.select.is_none());
    assert_eq!(w.table(id).await.version(), version);

    // Deal 2 plays on from the live message, which is edited in place.
    for _ in 0..3 {
        one_move(&w, id).await;
    }
    assert_eq!(live_table(&w, id, None, false).await.id, live.id);
    let edits_after = w
        .fake
        .calls()
        .iter()
        .filter(|c| c.route == "PATCH /channels/:id/messages/:id")
        .count();
    assert!(edits_after > old_edits, "the live table is edited");
    w.assert_clean();
    w.stop().await;
}

/// (b) People chat under the table during a deal: below the threshold the
/// table is still edited in place; past it, the next move posts the table
/// anew below the chat, and play goes on by clicking its buttons.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_that_buries_the_table_gets_it_posted_anew_at_the_bottom() {
    let mut w = World::new().await;
    let id = open_and_start(&w, "kozel").await;
    let first = live_table(&w, id, None, false).await;
    one_move(&w, id).await;

    // 14 lines of chat: not buried yet.
    let say = |w: &World, k: usize| {
        w.fake
            .say(&w.users[k % 4], CHANNEL, &format!("nice one {k}"))
    };
    for k in 0..(BURIED_AFTER as usize - 1) {
        say(&w, k);
    }
    let wf = &w;
    eventually(
        WAIT,
        Duration::from_millis(5),
        "the chat counted",
        || async { (chatter(wf) == BURIED_AFTER - 1).then_some(()) },
    )
    .await;
    let before = settled(&w, first.id).await;
    one_move(&w, id).await;
    // The move is shown in the same message.
    changed(&w, first.id, &before).await;
    assert_eq!(with_components(&w), vec![first.id]);

    // Six more: 20 lines below the table.
    let mut last_chat = 0;
    for k in (BURIED_AFTER as usize - 1)..20 {
        last_chat = say(&w, k);
    }
    eventually(
        WAIT,
        Duration::from_millis(5),
        "the chat counted",
        || async { (chatter(wf) == 20).then_some(()) },
    )
    .await;
    // Chat alone changes nothing: the table waits for its next render.
    assert_eq!(with_components(&w), vec![first.id]);
    one_move(&w, id).await;
    let live = live_table(&w, id, Some(first.id), false).await;
    assert!(live.id > last_chat, "below the chat");
    eventually(
        WAIT,
        Duration::from_millis(5),
        "the buried table without buttons",
        || async { (with_components(wf) == vec![live.id]).then_some(()) },
    )
    .await;
    assert_eq!(chatter(&w), 0, "nothing below the new table message");

    // The next player opens their hand from the new message and plays; the
    // table is edited in place from now on.
    let t = w.table(id).await;
    let seat = t.awaiting()[0].index();
    let (_, my_hand) = live
        .buttons
        .iter()
        .find(|(_, c)| c.starts_with("hand:"))
        .unwrap();
    let q = w.fake.click(&w.users[seat], live.id, my_hand).unwrap();
    assert_eq!(w.answered(q).await, 4);
    let fresh = w
        .sees(seat, "the hand from the new table", |seen| {
            seen.iter()
                .rev()
                .find(|m| {
                    // Cards to pick, or (a one-card answer) a card's moves.
                    m.ephemeral
                        && (m.select.is_some() || m.buttons.iter().any(|(_, c)| c.starts_with('t')))
                })
                .map(|m| m.id)
        })
        .await;
    assert!(fresh > live.id);
    for _ in 0..4 {
        one_move(&w, id).await;
    }
    assert!(w.table(id).await.version() > t.version() + 3);
    assert_eq!(live_table(&w, id, None, false).await.id, live.id);
    assert_eq!(with_components(&w), vec![live.id]);
    w.assert_clean();
    w.stop().await;
}

/// Chat said while the table's post anew was on its way (Discord had
/// taken the post, its answer had not come back) is below the new message
/// once the answer comes, and counts toward burying it. It used to be
/// forgotten then: the count started again from nothing, so under load a
/// busy channel's count fell behind what people saw (found as a flake of
/// the test above, whose chat went on while a post was answered).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_said_while_the_table_was_posted_anew_counts_below_it() {
    let mut w = World::new().await;
    let id = open_and_start(&w, "kozel").await;
    let first = live_table(&w, id, None, false).await;
    let say = |w: &World, k: usize| w.fake.say(&w.users[k % 4], CHANNEL, &format!("chat {k}"));
    for k in 0..BURIED_AFTER as usize {
        say(&w, k);
    }
    let wf = &w;
    let counted = |n: u32, what: &'static str| {
        eventually(WAIT, Duration::from_millis(5), what, move || async move {
            (chatter(wf) == n).then_some(())
        })
    };
    counted(BURIED_AFTER, "the chat counted").await;
    // Buried: the next render posts the table anew, and its answer is held.
    w.fake.hold_answers("POST /channels/:id/messages", 1);
    one_move(&w, id).await;
    let live = live_table(&w, id, Some(first.id), false).await;
    let below: Vec<u64> = (100..103).map(|k| say(&w, k)).collect();
    assert!(below.iter().all(|&m| m > live.id), "said after the post");
    counted(BURIED_AFTER + 3, "the three heard before the answer").await;
    w.fake.release_answers();
    counted(3, "only the three below the new table").await;
    w.assert_clean();
    w.stop().await;
}

/// (c) The bot's own public messages — answers to slash commands, turn
/// pings, announcements — come to it as MESSAGE_CREATE too, and never
/// count toward burying its table. A 10-second turn timer (the shortest)
/// brings an announcement below the table mid-deal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bots_own_messages_do_not_bury_the_table() {
    let mut w = World::without_bot().await;
    let mut config = discord_config(&w.fake, &w.dir);
    config.default_turn_timer = TurnTimer::from_secs(10);
    w.bot = Some(start(&config, tuning()).await.unwrap());
    w.connected().await;
    w.open_reader().await;
    let id = open_and_start(&w, "kozel").await;
    let first = live_table(&w, id, None, false).await;
    // Nobody has opened a hand: the first mover was notified by the
    // mention in the table posted anew as the deal began.
    let wf = &w;
    eventually(WAIT, Duration::from_millis(5), "a turn mention", || async {
        wf.users
            .iter()
            .any(|u| wf.fake.notifications_of(u) == 1)
            .then_some(())
    })
    .await;
    let creates_before = w.fake.message_creates();
    for k in 0..20 {
        let q = w.fake.slash(&w.users[k % 4], CHANNEL, "help");
        assert_eq!(w.answered(q).await, 4, "a public answer");
    }
    for _ in 0..2 {
        one_move(&w, id).await;
    }
    // The last move's edit lands on the same message.
    let before = settled(&w, first.id).await;
    one_move(&w, id).await;
    changed(&w, first.id, &before).await;
    let below: Vec<Seen> = w
        .fake
        .seen_by(&w.users[0], CHANNEL)
        .into_iter()
        .filter(|m| !m.ephemeral && m.id > first.id)
        .collect();
    assert!(below.len() >= 20, "{} bot messages below", below.len());
    assert!(below.iter().all(|m| m.author == APP_ID));
    assert!(
        w.fake.message_creates() >= creates_before + 20,
        "the bot was told of its own messages"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(with_components(&w), vec![first.id], "never posted anew");
    assert_eq!(chatter(&w), 0);

    // Nobody moves: the turn runs out, a safe move is played and announced
    // below the table, which is edited in place.
    let before = settled(&w, first.id).await;
    let v = w.table(id).await.version();
    let auto = eventually(
        Duration::from_secs(30),
        Duration::from_millis(20),
        "the turn runs out",
        || async {
            wf.fake
                .seen_by(&wf.users[0], CHANNEL)
                .into_iter()
                .find(|m| m.author == APP_ID && m.content.contains("ran out of time"))
        },
    )
    .await;
    assert!(auto.id > first.id, "below the table");
    assert!(w.table(id).await.version() > v);
    changed(&w, first.id, &before).await;
    settled(&w, first.id).await;
    assert_eq!(with_components(&w), vec![first.id], "never posted anew");
    assert_eq!(chatter(&w), 0);
    w.assert_clean();
    w.stop().await;
}

/// `/kozel` where a table is open (its message may be deleted or far up):
/// the channel is told so, publicly, and the live table is posted anew at
/// the bottom, the old message losing its buttons (issue 29.4: before, the
/// asker alone was told "There is already a table" and nothing moved).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_where_a_table_is_open_posts_it_anew() {
    let mut w = World::new().await;
    let id = open_and_start(&w, "kozel").await;
    let first = live_table(&w, id, None, true).await;
    let q = w.fake.slash(&w.users[2], CHANNEL, "kozel");
    w.answered(q).await;
    let live = live_table(&w, id, Some(first.id), false).await;
    let seen = w.fake.seen_by(&w.users[0], CHANNEL);
    let said = seen
        .iter()
        .position(|m| !m.ephemeral && m.content.contains("There is already a table in this chat"))
        .expect("the channel is told, not the asker alone");
    let at = |id: u64| seen.iter().position(|m| m.id == id).unwrap();
    assert!(at(first.id) < said && said < at(live.id), "{seen:#?}");
    let wf = &w;
    eventually(
        WAIT,
        Duration::from_millis(5),
        "only the new table message has buttons",
        || async { (with_components(wf) == vec![live.id]).then_some(()) },
    )
    .await;
    assert_eq!(w.open_table().await.id(), id);
    w.stop().await;
}

/// `kozyr run` killed (-9) while it posted the buried table anew: Discord
/// had taken the new message, its answer had not come back, so the store
/// still named the one above. The process after used to edit that one on,
/// and the new message stayed at the bottom with live buttons nothing
/// edited (issue 29.7g). It looks now, for a table whose message's content
/// was unknown at the kill, for later messages of that table: the newest
/// shows the table from then on, the old one loses its buttons.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_posted_anew_just_before_a_kill_is_the_one_edited_after() {
    let mut w = World::without_bot().await;
    w.spawn().await;
    let id = open_and_start(&w, "kozel").await;
    let first = live_table(&w, id, None, false).await;
    one_move(&w, id).await;
    for k in 0..=BURIED_AFTER as usize {
        w.fake
            .say(&w.users[k % 4], CHANNEL, &format!("nice one {k}"));
    }
    // The chat reaches the bot over the gateway before the next move.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let posts = |w: &World| {
        w.fake
            .calls()
            .iter()
            .filter(|c| c.method == "POST" && c.route == "POST /channels/:id/messages")
            .count()
    };
    let before = posts(&w);
    w.fake.hold_answers("POST /channels/:id/messages", 1);
    one_move(&w, id).await;
    eventually(WAIT, Duration::from_millis(5), "the post anew", || async {
        (posts(&w) > before).then_some(())
    })
    .await;
    let orphan = live_table(&w, id, Some(first.id), false).await;
    w.kill();
    w.fake.release_answers();
    assert_eq!(
        with_components(&w),
        vec![first.id, orphan.id],
        "two table messages with buttons at the kill"
    );

    w.spawn().await;
    let wr = &w;
    eventually(
        WAIT,
        Duration::from_millis(20),
        "one table message with buttons, the newest",
        || async { (with_components(wr) == vec![orphan.id]).then_some(()) },
    )
    .await;
    // The next move shows in it.
    let shown = settled(&w, orphan.id).await;
    one_move(&w, id).await;
    changed(&w, orphan.id, &shown).await;
    assert_eq!(with_components(&w), vec![orphan.id]);
    w.assert_clean();
    w.kill();
}

/// `kozyr run` killed (-9) while it posted a table's first message: Discord
/// had taken the lobby, its answer had not come back, so the store had no
/// row for it at all. The process after used to post a second lobby and
/// leave the first with live buttons nothing edited (found by the delivery
/// engine's kill simulation). It looks now, for an open table without a
/// message, among its channel's newest messages: the lobby found shows
/// the table from then on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tables_first_post_just_before_a_kill_is_the_one_edited_after() {
    let mut w = World::without_bot().await;
    w.spawn().await;
    w.fake.hold_answers("POST /channels/:id/messages", 1);
    let q = w.fake.slash(&w.users[0], CHANNEL, "kozel");
    w.answered(q).await;
    let wr = &w;
    let lobby = eventually(WAIT, Duration::from_millis(5), "the lobby", || async {
        with_components(wr).first().copied()
    })
    .await;
    w.kill();
    w.fake.release_answers();

    w.spawn().await;
    let shown = settled(&w, lobby).await;
    let q = w.click_table(1, TableAction::Join).await;
    w.answered(q).await;
    // The join shows in the lobby, and no second one was posted.
    changed(&w, lobby, &shown).await;
    assert_eq!(with_components(&w), vec![lobby]);
    w.assert_clean();
    w.kill();
}
