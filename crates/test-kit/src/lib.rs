//! Test tools for kozyr, never part of the product: [`fakebot`], a strict
//! fake of the Telegram Bot API, and [`fakediscord`], a strict fake of
//! Discord (its gateway and REST routes). Each binds to loopback and is
//! talked to by the real client library (teloxide, twilight), enforcing the
//! platform's limits and deadlines with no burst allowance.

pub mod fakebot;
pub mod fakediscord;
