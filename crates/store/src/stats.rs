//! Leaderboards and the people behind them.

use std::str::FromStr;

use sqlx::FromRow;

use super::{PlayerStats, Store, StoreError};
use kozyr_game::GameKind;
use kozyr_table::{ChatKey, Counters, Lang, Platform, Player, Timestamp, UserId};

#[derive(FromRow)]
pub(super) struct StatsRow {
    user_id: String,
    name: Option<String>,
    game: String,
    series_played: i64,
    series_won: i64,
    series_lost: i64,
    goat: i64,
    deals_played: i64,
    deals_won: i64,
    eggs_deals: i64,
    points: i64,
}

impl StatsRow {
    pub(super) fn decode(self) -> Result<PlayerStats, StoreError> {
        Ok(PlayerStats {
            user: UserId::new(self.user_id).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            name: self.name,
            game: GameKind::from_str(&self.game).map_err(StoreError::Corrupt)?,
            counters: Counters {
                series_played: self.series_played,
                series_won: self.series_won,
                series_lost: self.series_lost,
                goat: self.goat,
                deals_played: self.deals_played,
                deals_won: self.deals_won,
                eggs_deals: self.eggs_deals,
                points: self.points,
            },
        })
    }
}

#[derive(FromRow)]
struct ChatStatsRow {
    game: String,
    series_played: i64,
    deals_played: i64,
    eggs_deals: i64,
}

#[derive(FromRow)]
struct PlayerRow {
    user_id: String,
    name: String,
    lang: String,
}

impl Store {
    /// A person's counters per game, summed over every chat.
    pub async fn player_totals(
        &self,
        platform: Platform,
        user: &UserId,
    ) -> Result<Vec<PlayerStats>, StoreError> {
        let rows: Vec<StatsRow> = sqlx::query_as(
            "SELECT s.user_id, p.name, s.game, sum(s.series_played) AS series_played,
                    sum(s.series_won) AS series_won, sum(s.series_lost) AS series_lost,
                    sum(s.goat) AS goat, sum(s.deals_played) AS deals_played,
                    sum(s.deals_won) AS deals_won, sum(s.eggs_deals) AS eggs_deals,
                    sum(s.points) AS points
             FROM player_stats AS s
             LEFT JOIN players AS p ON p.platform = s.platform AND p.user_id = s.user_id
             WHERE s.platform = ? AND s.user_id = ?
             GROUP BY s.game ORDER BY s.game",
        )
        .bind(platform.as_str())
        .bind(user.to_string())
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter().map(StatsRow::decode).collect()
    }

    /// What the chat has played, per game (series, deals, eggs).
    pub async fn chat_totals(
        &self,
        chat: &ChatKey,
    ) -> Result<Vec<(GameKind, Counters)>, StoreError> {
        let rows: Vec<ChatStatsRow> = sqlx::query_as(
            "SELECT game, series_played, deals_played, eggs_deals FROM chat_stats
             WHERE platform = ? AND chat_id = ? ORDER BY game",
        )
        .bind(chat.platform().as_str())
        .bind(chat.id())
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter()
            .map(|r| {
                let game = GameKind::from_str(&r.game).map_err(StoreError::Corrupt)?;
                Ok((
                    game,
                    Counters {
                        series_played: r.series_played,
                        deals_played: r.deals_played,
                        eggs_deals: r.eggs_deals,
                        ..Counters::default()
                    },
                ))
            })
            .collect()
    }

    /// A person as last seen.
    pub async fn player(
        &self,
        platform: Platform,
        user: &UserId,
    ) -> Result<Option<Player>, StoreError> {
        let row: Option<PlayerRow> = sqlx::query_as(
            "SELECT user_id, name, lang FROM players WHERE platform = ? AND user_id = ?",
        )
        .bind(platform.as_str())
        .bind(user.to_string())
        .fetch_optional(&self.reader)
        .await?;
        row.map(|r| {
            let id = UserId::new(r.user_id).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            let lang = Lang::from_code(&r.lang)
                .ok_or_else(|| StoreError::Corrupt(format!("language `{}`", r.lang)))?;
            Ok(Player::new(id, &r.name, lang))
        })
        .transpose()
    }

    /// Records a person's name and language (e.g. the language they chose).
    pub async fn save_player(
        &self,
        platform: Platform,
        player: &Player,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.commit_prepared(super::Commit::player(platform, player, now))
            .await
    }
}
