//! Deal records of a chat's finished deals, rebuilt from the event logs.

use std::io::Write;

use super::{Store, StoreError};
use crate::table::records::{DealRecord, deal_records};
use crate::table::{ChatKey, TableId};

impl Store {
    /// Every table the chat has had, oldest first.
    pub async fn chat_tables(&self, chat: &ChatKey) -> Result<Vec<TableId>, StoreError> {
        let ids: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM tables WHERE platform = ? AND chat_id = ? ORDER BY id",
        )
        .bind(chat.platform().as_str())
        .bind(chat.id())
        .fetch_all(&self.reader)
        .await?;
        Ok(ids.into_iter().map(TableId).collect())
    }

    /// The records of every deal finished at `table`, in order.
    pub async fn deal_records(&self, table: TableId) -> Result<Vec<DealRecord>, StoreError> {
        let log: Vec<_> = self
            .events(table)
            .await?
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        deal_records(&log).map_err(|e| StoreError::Corrupt(format!("table {table}: {e}")))
    }

    /// Writes the records of every deal finished in the chat as JSON lines
    /// (the `kozyr simulate` format); says what it wrote.
    pub async fn export_chat(
        &self,
        chat: &ChatKey,
        out: &mut dyn Write,
    ) -> Result<Exported, StoreError> {
        let tables = self.chat_tables(chat).await?;
        let mut deals = 0;
        for &table in &tables {
            for record in self.deal_records(table).await? {
                serde_json::to_writer(&mut *out, &record).map_err(std::io::Error::from)?;
                out.write_all(b"\n")?;
                deals += 1;
            }
        }
        out.flush()?;
        Ok(Exported {
            tables: tables.len(),
            deals,
        })
    }
}

/// What an export wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The chat's tables read (every one it has had).
    pub tables: usize,
    /// Records written: one per finished deal.
    pub deals: usize,
}

impl std::fmt::Display for Exported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural =
            |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
        write!(
            f,
            "{} finished {} from {} {}",
            self.deals,
            plural(self.deals, "deal", "deals"),
            self.tables,
            plural(self.tables, "table", "tables"),
        )
    }
}
