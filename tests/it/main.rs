//! Every integration test, in one test binary (one link instead of one per
//! file). Each module was a file of its own under `tests/`; `support` holds
//! what they share. Run one module with `cargo test --test it chaos::`.

mod support;

mod admin;
mod admin_ops;
mod chaos;
mod chaos_input;
mod chaos_kill;
mod chaos_storm;
mod codemap;
mod crash;
mod data_tools;
mod delivery;
mod discord;
mod discord_alerts;
mod discord_chaos;
mod discord_defer;
mod discord_repost;
mod discord_shards;
mod discord_split;
mod discord_transport;
mod fakebot;
mod hearts_records;
mod inbox;
mod kozel_records;
mod layers;
mod migrations;
mod outlet_interaction;
mod outlet_jobs;
mod output_faults;
mod postgres_e2e;
mod replicas;
mod replicas_move;
mod replicas_webhook;
mod service;
mod sqlite_claim;
mod store_backends;
mod store_faults;
mod takeover_screens;
mod telegram;
mod telegram_limits;
mod telegram_play;
mod telegram_screens;
mod turn_alerts;
mod webapp;
mod words;
