//! Playing a deal as people do, the same way on every platform: each
//! platform's `World` says how its people make one move
//! ([`Play::play_safe`]) and how the test reads the table; what a deal is
//! made of is written once here.

use kozyr::table::{Phase, Table, TableId};

pub use kozyr_loadtest::deal_no;

/// What a platform's `World` does for the play helpers.
// The futures are awaited in place by tests, never spawned: whether they
// are `Send` does not matter.
#[allow(async_fn_in_trait)]
pub trait Play {
    /// The table as the store has it now.
    async fn table(&self, id: TableId) -> Table;
    /// The awaited seat's safe move, made by pressing what its person sees.
    async fn play_safe(&self, t: &Table);
    /// The table once its version is past `v`.
    async fn wait_version_after(&self, id: TableId, v: u64) -> Table;

    /// Plays the deal in progress to its end (or to the end of the game),
    /// every move the awaited seat's safe one, made as a person makes it.
    /// Returns how many moves it took.
    async fn finish_deal(&self, id: TableId) -> u32 {
        self.finish_deal_with(id, |_, _| {}).await
    }

    /// [`Play::finish_deal`], with `before_move` called with the table and
    /// the moves made so far before each move.
    async fn finish_deal_with(&self, id: TableId, mut before_move: impl FnMut(&Table, u32)) -> u32 {
        let n = deal_no(&self.table(id).await);
        let mut moves = 0;
        loop {
            let t = self.table(id).await;
            if t.phase() != Phase::Playing || deal_no(&t) != n {
                return moves;
            }
            before_move(&t, moves);
            self.play_safe(&t).await;
            self.wait_version_after(id, t.version()).await;
            moves += 1;
            assert!(moves < 200, "the deal does not end");
        }
    }
}

/// Implements [`Play`] for a `World` whose inherent methods of the same
/// names do the work.
macro_rules! by_inherent_methods {
    ($world:ty) => {
        impl $crate::support::play::Play for $world {
            async fn table(&self, id: kozyr::table::TableId) -> kozyr::table::Table {
                <$world>::table(self, id).await
            }

            async fn play_safe(&self, t: &kozyr::table::Table) {
                <$world>::play_safe(self, t).await
            }

            async fn wait_version_after(
                &self,
                id: kozyr::table::TableId,
                v: u64,
            ) -> kozyr::table::Table {
                <$world>::wait_version_after(self, id, v).await
            }
        }
    };
}
pub(crate) use by_inherent_methods;
