//! Deal records of a chat's finished deals, rebuilt from the event logs.

use std::io::Write;

use super::{CopyError, Queries, Store, StoreError};
use kozyr_table::records::{DealRecord, deal_records, deal_records_and_current};
use kozyr_table::{ChatKey, TableId};

impl Store {
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
    /// (see [`export_chat`]).
    pub async fn export_chat(
        &self,
        chat: &ChatKey,
        with_current: bool,
        out: &mut dyn Write,
    ) -> Result<Exported, CopyError> {
        export_chat(self, chat, with_current, out).await
    }
}

/// Writes the records of every deal finished in the chat as JSON lines
/// (the `kozyr simulate` format), and with `with_current` each table's
/// deal still being played too (marked `unfinished`, after the table's
/// finished deals); says what it wrote. The same history writes the same
/// lines from either backend.
pub async fn export_chat(
    history: &impl Queries,
    chat: &ChatKey,
    with_current: bool,
    out: &mut dyn Write,
) -> Result<Exported, CopyError> {
    let tables = history.chat_tables(chat).await?;
    let mut written = Exported {
        tables: tables.len(),
        deals: 0,
        unfinished: 0,
    };
    for &table in &tables {
        let log: Vec<_> = history
            .events(table)
            .await?
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        let (finished, current) = deal_records_and_current(&log)
            .map_err(|e| StoreError::Corrupt(format!("table {table}: {e}")))?;
        let current = current.filter(|_| with_current);
        written.deals += finished.len();
        written.unfinished += usize::from(current.is_some());
        for record in finished.iter().chain(current.iter()) {
            serde_json::to_writer(&mut *out, record).map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    Ok(written)
}

/// What an export wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The chat's tables read (every one it has had).
    pub tables: usize,
    /// Records of finished deals written.
    pub deals: usize,
    /// Records of deals still being played written (`--with-current`).
    pub unfinished: usize,
}

impl std::fmt::Display for Exported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural =
            |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
        write!(
            f,
            "{} finished {}",
            self.deals,
            plural(self.deals, "deal", "deals")
        )?;
        if self.unfinished > 0 {
            write!(f, " and {} unfinished", self.unfinished)?;
        }
        write!(
            f,
            " from {} {}",
            self.tables,
            plural(self.tables, "table", "tables")
        )
    }
}
