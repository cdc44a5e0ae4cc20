//! A platform's "too many requests" honoured for every later call, not only
//! for the one it answered.
//!
//! A per-route limit a client library keeps in its buckets; what it may
//! not keep is a limit that covers more than the route it met: Discord's
//! global 429 (`X-RateLimit-Global`), or a 429 from its edge that names no
//! scope at all, covers every call of the bot (except those bound to no
//! global limit: interaction callbacks and their webhooks) until its
//! `retry_after`. [`TooMany::limit`] reads what a 429 covered,
//! [`bound_by_global`] which calls the global limit binds, and [`Gate`]
//! remembers such answers and says how long a call has to wait; it
//! awaits nothing (time comes in as `now`).

use crate::Map;
use std::time::{Duration, Instant};

/// What a 429 covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every call bound to the global limit.
    Global,
    /// Calls to the route it answered.
    Route,
}

/// Bot-token REST calls let through in one global window of the client's
/// limiter. Discord allows a bot 50 a second (interaction answers and edits
/// through their tokens aside, which it does not count). twilight counts
/// them in fixed windows of a second that begin at a window's first call,
/// so 50 a window could put 100 into one second spanning two windows; 25
/// keeps every second at 50 at most.
pub const GLOBAL_CALLS_PER_WINDOW: u16 = 25;

/// The calls waiting on a 429's `retry_after`, longer than this, are let go
/// at this pause anyway: a platform's answer never parks the bot for good.
pub const LONGEST_WAIT: Duration = Duration::from_secs(60);

/// The 429s still in force.
#[derive(Debug, Default)]
pub struct Gate {
    global_until: Option<Instant>,
    routes: Map<String, Instant>,
}

impl Gate {
    /// A call on `route` was answered 429 at `now`, to be tried again after
    /// `retry_after`.
    pub fn limited(&mut self, now: Instant, route: &str, scope: Scope, retry_after: Duration) {
        let until = now + retry_after.min(LONGEST_WAIT);
        let slot = match scope {
            Scope::Global => self.global_until.get_or_insert(until),
            Scope::Route => self.routes.entry(route.to_owned()).or_insert(until),
        };
        *slot = (*slot).max(until);
        // Limits that ended are dropped as new ones come.
        self.routes.retain(|_, until| *until > now);
    }

    /// How long a call on `route` waits before it goes out at `now`
    /// (`None`: it goes now). `global` says whether the route is bound to
    /// the global limit.
    pub fn wait(&self, now: Instant, route: &str, global: bool) -> Option<Duration> {
        let global_until = self.global_until.filter(|_| global);
        let until = global_until.max(self.routes.get(route).copied())?;
        (until > now).then(|| until - now)
    }
}

/// What a 429 answer said, as the shell read it from its headers and its
/// JSON body.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TooMany<'a> {
    /// `X-RateLimit-Global`.
    pub global_header: Option<&'a str>,
    /// `X-RateLimit-Scope` (`user`, `shared`, `global`).
    pub scope_header: Option<&'a str>,
    /// `Retry-After`, in seconds.
    pub retry_after_header: Option<&'a str>,
    /// The body's `global`.
    pub body_global: bool,
    /// The body's `retry_after`, in seconds with a fraction.
    pub body_retry_after: Option<f64>,
}

impl TooMany<'_> {
    /// What the 429 covered and for how long: global when the platform
    /// says so, and when it names no scope at all (Discord's edge answers
    /// 429 without rate-limit headers, and that holds every call);
    /// `retry_after` from the body, else the header, else a second.
    pub fn limit(&self) -> (Scope, Duration) {
        let global = self
            .global_header
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
            || self.scope_header.is_none_or(|v| v == "global")
            || self.body_global;
        let secs = (self.body_retry_after)
            .or_else(|| self.retry_after_header.and_then(|v| v.trim().parse().ok()))
            .filter(|s: &f64| s.is_finite() && *s >= 0.0)
            .unwrap_or(1.0);
        let scope = if global { Scope::Global } else { Scope::Route };
        (scope, Duration::from_secs_f64(secs.min(3600.0)))
    }
}

/// Whether a call to `path` counts against the global limit: interaction
/// callbacks and the webhooks of interaction tokens do not (Discord's
/// documentation of each).
pub fn bound_by_global(path: &str) -> bool {
    !(path.contains("/interactions/") || path.contains("/webhooks/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: &str = "POST /channels/1/messages";

    #[test]
    fn a_global_limit_holds_every_bound_call_until_it_ends() {
        let (mut g, t0) = (Gate::default(), Instant::now());
        g.limited(t0, R, Scope::Global, Duration::from_millis(1740));
        let at = t0 + Duration::from_millis(740);
        assert_eq!(
            g.wait(at, "PATCH /channels/2/messages/3", true),
            Some(Duration::from_secs(1))
        );
        assert_eq!(g.wait(at, "POST /webhooks/1/t", false), None);
        assert_eq!(g.wait(t0 + Duration::from_millis(1740), R, true), None);
    }

    #[test]
    fn a_route_limit_holds_that_route_only_and_the_longer_limit_wins() {
        let (mut g, t0) = (Gate::default(), Instant::now());
        g.limited(t0, R, Scope::Route, Duration::from_secs(2));
        g.limited(t0, R, Scope::Route, Duration::from_secs(1));
        assert_eq!(g.wait(t0, R, true), Some(Duration::from_secs(2)));
        assert_eq!(g.wait(t0, "GET /users/@me", true), None);
        g.limited(t0, "GET /users/@me", Scope::Global, Duration::from_secs(3));
        assert_eq!(g.wait(t0, R, true), Some(Duration::from_secs(3)));
        assert_eq!(g.wait(t0, R, false), Some(Duration::from_secs(2)));
    }

    #[test]
    fn no_answer_parks_the_calls_for_longer_than_a_minute() {
        let (mut g, t0) = (Gate::default(), Instant::now());
        g.limited(t0, R, Scope::Global, Duration::from_secs(86_400));
        assert_eq!(g.wait(t0, R, true), Some(LONGEST_WAIT));
    }

    #[test]
    fn a_429_is_global_when_the_platform_says_so_or_names_no_scope() {
        let said = TooMany {
            global_header: Some("true"),
            body_global: true,
            body_retry_after: Some(1.74),
            ..TooMany::default()
        };
        assert_eq!(said.limit(), (Scope::Global, Duration::from_millis(1740)));
        // An edge's 429: no rate-limit headers, a body that is no JSON.
        let edge = TooMany {
            retry_after_header: Some("2"),
            ..TooMany::default()
        };
        assert_eq!(edge.limit(), (Scope::Global, Duration::from_secs(2)));
        let route = TooMany {
            scope_header: Some("user"),
            retry_after_header: Some("1"),
            body_retry_after: Some(0.2),
            ..TooMany::default()
        };
        assert_eq!(route.limit(), (Scope::Route, Duration::from_millis(200)));
        let nonsense = TooMany {
            scope_header: Some("user"),
            body_retry_after: Some(f64::NAN),
            ..TooMany::default()
        };
        assert_eq!(nonsense.limit(), (Scope::Route, Duration::from_secs(1)));
    }

    #[test]
    fn only_interaction_calls_are_free_of_the_global_limit() {
        assert!(bound_by_global("/api/v10/channels/1/messages"));
        assert!(!bound_by_global("/api/v10/interactions/1/tok/callback"));
        assert!(!bound_by_global(
            "/api/v10/webhooks/1/tok/messages/@original"
        ));
    }
}
