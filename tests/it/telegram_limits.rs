//! Telegram's output limits (issue 11): the fake enforces them as
//! Telegram does, and the whole bot stays within them whatever people do.

use std::time::Duration;

use kozyr::fakebot::{FakeBot, FakeBotConfig, LimitHits, UserSpec};
use teloxide::RequestError;
use teloxide::prelude::*;

fn retry_after(r: Result<impl std::fmt::Debug, RequestError>) -> Duration {
    match r {
        Err(RequestError::RetryAfter(s)) => s.duration(),
        other => panic!("expected RetryAfter, got {other:?}"),
    }
}

#[tokio::test]
async fn the_fake_limits_private_chats_and_the_whole_bot() {
    let fake = FakeBot::start_with(FakeBotConfig::default().telegram_limits())
        .await
        .unwrap();
    let bot = fake.bot();
    let users: Vec<UserId> = (0..12)
        .map(|i| fake.add_user(UserSpec::new(&format!("P{i}"))))
        .collect();
    for &u in &users {
        fake.start_bot(u, None).unwrap();
    }
    let dm = |i: usize| FakeBot::private_chat(users[i]);
    // A private chat takes a burst of three, then about one a second.
    for n in 0..3 {
        bot.send_message(dm(0), format!("{n}")).await.unwrap();
    }
    let wait = retry_after(bot.send_message(dm(0), "too fast").await);
    assert_eq!(wait, Duration::from_secs(1));
    assert_eq!(fake.limit_hits().private, 1);
    // The whole bot: 30 at once (three already went), then 429 anywhere.
    let mut sent = 3;
    'all: for round in 0..3 {
        for i in 1..12 {
            match bot.send_message(dm(i), format!("{round}")).await {
                Ok(_) => sent += 1,
                Err(e) => {
                    assert_eq!(retry_after(Err::<(), _>(e)), Duration::from_secs(1));
                    break 'all;
                }
            }
        }
    }
    assert!((30..=31).contains(&sent), "{sent} outputs went out at once");
    assert_eq!(
        fake.limit_hits(),
        LimitHits {
            bot: 1,
            private: 1,
            group: 0
        }
    );
    // A second later the buckets have refilled.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    bot.send_message(dm(0), "later").await.unwrap();
}
