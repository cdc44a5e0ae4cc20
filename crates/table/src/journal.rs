//! What the table service tells the admin in the logs: a table's life at
//! `info` (opened, started, a deal ended and how, a series ended, closed —
//! each with its table, chat and who did it) and every command at `debug`
//! with its outcome, accepted or refused with the reason. "The bot ignored
//! me" is answered by grepping the chat's id.
//!
//! Everything is a structured field, so `KOZYR_LOG_FORMAT=json` carries the
//! same facts as fields rather than inside a sentence. Fields: `table`,
//! `chat`, `game`, `command`, `by` (person, ai, timer, system), `user`
//! (a person's platform id; names are not logged), `reason`, `took_ms`.

use std::time::Duration;

use kozyr_game::GameEvent;

use super::{Actor, Change, ChatKey, Command, Mover, TableError, TableEvent};

/// Who did it, as a low-cardinality word.
fn by(actor: &Actor) -> &'static str {
    match actor {
        Actor::Person { .. } => "person",
        Actor::Ai => "ai",
        Actor::System => "system",
    }
}

/// The person's platform id, or nothing for the service's own commands.
fn user(actor: &Actor) -> String {
    match actor {
        Actor::Person { player, .. } => player.id.to_string(),
        Actor::Ai | Actor::System => String::new(),
    }
}

fn mover(m: Mover) -> &'static str {
    match m {
        Mover::Person => "person",
        Mover::Ai => "ai",
        Mover::Timeout => "timer",
    }
}

/// A command the rules refused: nothing changed.
pub fn refused(chat: &ChatKey, actor: &Actor, command: &Command, error: &TableError) {
    tracing::debug!(
        %chat,
        command = command.name(),
        by = by(actor),
        user = %user(actor),
        reason = error.reason(),
        error = %error,
        "command refused"
    );
}

/// A command that is durable now: `changes` are what it did.
pub fn committed(
    chat: &ChatKey,
    actor: &Actor,
    command: &Command,
    changes: &[Change],
    took: Duration,
) {
    let table = changes.last().map(|c| c.table.id().to_string());
    tracing::debug!(
        %chat,
        table = table.as_deref().unwrap_or(""),
        command = command.name(),
        by = by(actor),
        user = %user(actor),
        took_ms = took.as_secs_f64() * 1e3,
        "command accepted"
    );
    for change in changes {
        for event in &change.events {
            life_event(&change.table, actor, event);
        }
    }
}

/// The `info` line of an event in a table's life; the rest stay quiet.
fn life_event(t: &super::Table, actor: &Actor, event: &TableEvent) {
    let (table, chat, game) = (t.id(), t.chat(), t.kind().as_str());
    let (by, user) = (by(actor), user(actor));
    match event {
        TableEvent::Created { .. } => {
            tracing::info!(%table, %chat, game, by, %user, "table opened");
        }
        TableEvent::SeriesStarted { series_no, .. } => {
            tracing::info!(%table, %chat, game, series_no, by, %user, "table started");
        }
        TableEvent::Acted { events, by, .. } => {
            for e in events {
                game_event(t, mover(*by), e);
            }
        }
        TableEvent::HandedToAi { seat, unreachable } => {
            tracing::info!(%table, %chat, game, seat = seat.index(), unreachable, "a seat was handed to the AI");
        }
        TableEvent::Stopped { by: stopper } => {
            let by_user = stopper
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
            tracing::info!(%table, %chat, game, reason = "stopped", by, user = %by_user, "table closed");
        }
        TableEvent::Superseded { by: newer } => {
            tracing::info!(%table, %chat, game, reason = "superseded", newer = %newer, by, %user, "table closed");
        }
        TableEvent::ChatMoved { to } => {
            tracing::info!(%table, %chat, game, to = %to, "the chat moved to a new id");
        }
        _ => {}
    }
}

/// A deal's or a series' end, with its result as fields (the game says
/// which fields).
fn game_event(t: &super::Table, last_move_by: &'static str, event: &GameEvent) {
    event.log_end(&t.id(), t.chat(), last_move_by);
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::{Context, Phase, Player, Settings, Table, TableId, Timestamp, UserId, decide};
    use kozyr_game::GameKind;

    /// Log lines in memory, as `KOZYR_LOG_FORMAT=json` writes them.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Lines {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Lines {
        type Writer = Lines;
        fn make_writer(&'a self) -> Lines {
            self.clone()
        }
    }

    fn person(i: u32) -> Actor {
        let id = UserId::new(i.to_string()).unwrap();
        Actor::person(Player::new(id, &format!("P{i}"), kozyr_i18n::Lang::En))
    }

    /// Runs `command` through `decide` and the journal, as the runtime does.
    fn run(chat: &ChatKey, open: &mut Option<Table>, actor: &Actor, command: Command) {
        let ctx = Context {
            now: Timestamp::from_millis(1_000_000),
            seed: 7,
            new_table_id: TableId(5),
        };
        match decide(open.as_ref(), chat, actor, &command, &ctx) {
            Ok(t) => {
                committed(chat, actor, &command, &t.changes, Duration::from_millis(2));
                *open = t.open_table().cloned();
            }
            Err(e) => refused(chat, actor, &command, &e),
        }
    }

    #[test]
    fn a_tables_life_is_in_the_logs_as_fields() {
        let lines = Lines::default();
        let subscriber = tracing_subscriber::fmt()
            .json()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(lines.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let chat = ChatKey::new(crate::Platform::Telegram, "-100").unwrap();
            let mut open = None;
            let settings = Settings {
                turn_timer: None,
                ..Settings::default()
            };
            let create = Command::Create {
                kind: GameKind::Kozel,
                settings,
                title: "Friday".into(),
                sit: true,
            };
            run(&chat, &mut open, &person(1), create);
            for i in 2..=4 {
                run(&chat, &mut open, &person(i), Command::Join { seat: None });
            }
            run(&chat, &mut open, &person(2), Command::Start);
            run(&chat, &mut open, &person(1), Command::Start);
            // The first deal, by safe moves.
            let deal_over = |t: &Table| match t.game().map(|g| g.public_view()) {
                Some(kozyr_game::GameView::Kozel(v)) => v.deal_no > 1,
                _ => true,
            };
            let mut moves = 0;
            while let Some(t) = open
                .clone()
                .filter(|t| t.phase() == Phase::Playing && !deal_over(t))
            {
                let seat = t.awaiting()[0];
                let action = t.game().and_then(|g| g.safe_action(seat)).unwrap();
                let version = t.version();
                let mover = person(seat.index() as u32 + 1);
                run(
                    &chat,
                    &mut open,
                    &mover,
                    Command::Act {
                        seat,
                        action,
                        version,
                    },
                );
                moves += 1;
                assert!(moves < 500, "the deal does not end");
            }
            run(&chat, &mut open, &person(1), Command::Stop);
        });
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        let events: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        let find = |message: &str| {
            events
                .iter()
                .find(|e| e["fields"]["message"] == message)
                .unwrap_or_else(|| panic!("no {message:?} in\n{text}"))
                .clone()
        };
        let opened = find("table opened");
        assert_eq!(opened["level"], "INFO");
        assert_eq!(opened["fields"]["table"], "5");
        assert_eq!(opened["fields"]["chat"], "telegram:-100");
        assert_eq!(opened["fields"]["game"], "kozel");
        assert_eq!(opened["fields"]["by"], "person");
        assert_eq!(opened["fields"]["user"], "1");
        let refused = find("command refused");
        assert_eq!(refused["level"], "DEBUG");
        assert_eq!(refused["fields"]["command"], "start");
        assert_eq!(refused["fields"]["reason"], "not_allowed");
        assert_eq!(refused["fields"]["user"], "2");
        assert_eq!(find("table started")["fields"]["user"], "1");
        let deal = find("deal ended");
        assert_eq!(deal["level"], "INFO");
        assert_eq!(deal["fields"]["table"], "5");
        assert!(deal["fields"]["team_points"].is_string(), "{deal}");
        assert!(deal["fields"]["defeat_points"].is_string(), "{deal}");
        assert!(deal["fields"]["eggs"].is_boolean(), "{deal}");
        let closed = find("table closed");
        assert_eq!(closed["fields"]["reason"], "stopped");
        assert_eq!(closed["fields"]["user"], "1");
        let accepted = find("command accepted");
        assert_eq!(accepted["level"], "DEBUG");
        assert!(accepted["fields"]["took_ms"].is_number(), "{accepted}");
    }
}
