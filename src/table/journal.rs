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

use crate::game::GameEvent;

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
        reason = crate::metrics::refusal_reason(error),
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

/// A deal's or a series' end, with its result as fields.
fn game_event(t: &super::Table, last_move_by: &'static str, event: &GameEvent) {
    let (table, chat, game) = (t.id(), t.chat(), t.kind().as_str());
    match event {
        GameEvent::Kozel(crate::kozel::Event::DealOver(r)) => tracing::info!(
            %table, %chat, game,
            team_points = ?r.team_points,
            team_tricks = ?r.team_tricks,
            defeat_points = ?r.defeat_points,
            eggs = r.eggs,
            last_move_by,
            "deal ended"
        ),
        GameEvent::Kozel(crate::kozel::Event::SeriesOver { goat, with_eggs }) => tracing::info!(
            %table, %chat, game, goat = ?goat, with_eggs, "series ended"
        ),
        GameEvent::Hearts(crate::hearts::Event::DealOver {
            deal,
            deal_points,
            total_points,
            moon_shooter,
        }) => tracing::info!(
            %table, %chat, game,
            deal,
            deal_points = ?deal_points.0,
            total_points = ?total_points.0,
            moon_shooter = ?moon_shooter.map(|s| s.index()),
            last_move_by,
            "deal ended"
        ),
        GameEvent::Hearts(crate::hearts::Event::GameOver { ranking }) => tracing::info!(
            %table, %chat, game, ranking = ?ranking, "series ended"
        ),
        _ => {}
    }
}
