//! The fake's state and rules: sessions and their events, interactions,
//! messages, the clock, and every check Discord makes.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{APP_ID, Answer, GUILD_ID, Limit, TOKEN};

/// A person in the fake server.
#[derive(Clone, Debug)]
pub struct User {
    pub id: u64,
    pub name: String,
    /// Their client's language (`en-US`, `ru`, `pt-BR`, `ro`).
    pub locale: String,
    /// Manage Server (an admin); else no special permission.
    pub admin: bool,
}

impl User {
    pub fn new(id: u64, name: &str) -> User {
        User {
            id,
            name: name.to_owned(),
            locale: "en-US".into(),
            admin: false,
        }
    }
}

/// One REST call the bot made.
#[derive(Clone, Debug)]
pub struct Call {
    pub method: String,
    /// The route with ids and tokens replaced (`PATCH /channels/:id/messages/:id`).
    pub route: String,
    pub at: Instant,
    pub status: u16,
}

/// A select menu as a person sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct SeenSelect {
    /// (label, value, ticked)
    pub options: Vec<(String, String, bool)>,
    pub min: usize,
    pub max: usize,
}

/// A message as a person sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    pub id: u64,
    pub content: String,
    /// (label, custom_id), row by row.
    pub buttons: Vec<(String, String)>,
    pub select: Option<SeenSelect>,
    pub ephemeral: bool,
    /// Who posted it: a person's id, or [`APP_ID`] for the bot.
    pub author: u64,
}

struct Msg {
    id: u64,
    channel: u64,
    /// A person's id, or [`APP_ID`]: the bot (its own posts, its answers).
    author: u64,
    content: String,
    components: Value,
    /// Visible to this person only.
    ephemeral_for: Option<u64>,
    deleted: bool,
}

struct Interaction {
    user: u64,
    channel: u64,
    /// The message a component was on.
    message: Option<u64>,
    dispatched: Instant,
    /// On the fake clock.
    dispatched_ms: u64,
    answered: Option<u8>,
    /// The interaction's original response message.
    original: Option<u64>,
    ephemeral_original: bool,
}

struct Session {
    /// (seq, text) dispatched to this session.
    events: Vec<(u64, String)>,
    seq: u64,
    ended: bool,
    /// The gateway intents its IDENTIFY asked for.
    intents: u64,
    /// `[id, total]` its IDENTIFY named.
    shard: (u64, u64),
    /// A connection speaks for it now.
    live: bool,
}

/// The shard a server's events go to: `(guild_id >> 22) % total`.
pub fn shard_of(guild: u64, total: u64) -> u64 {
    (guild >> 22) % total.max(1)
}

/// The `GUILD_MESSAGES` intent: MESSAGE_CREATE in server channels. Not
/// privileged (MESSAGE_CONTENT, 1 << 15, is; without it the content of
/// others' messages arrives empty, as here).
pub const GUILD_MESSAGES: u64 = 1 << 9;

const THREE_SECONDS: Duration = Duration::from_secs(3);
const FIFTEEN_MINUTES_MS: u64 = 15 * 60 * 1000;

pub struct World {
    url: String,
    pub guild_locale: String,
    pub heartbeat_ms: u64,
    pub violations: Vec<String>,
    pub calls: Vec<Call>,
    pub latencies: Vec<Duration>,
    pub limits: Vec<(String, usize)>,
    /// (route prefix, calls left): calls carried out at once whose answer
    /// waits until the test releases it ([`crate::fakediscord::FakeDiscord::hold_answers`]).
    pub holds: Vec<(String, usize)>,
    /// (route prefix, calls left): answered 502 Bad Gateway, as Discord's
    /// edge does during an outage.
    pub outages: Vec<(String, usize)>,
    /// Global 429s still to be answered: the next calls bound to the
    /// global limit get one each, ([`crate::fakediscord::FakeDiscord::rate_limit_globally`]).
    pub global_limits: Vec<GlobalLimit>,
    /// The global 429 in force: until when, and when it was answered.
    pub global_until: Option<(Instant, Instant)>,
    /// The bot token was reset (the Developer Portal's "Reset Token"):
    /// from now on Discord refuses it, on the gateway (4004) and over REST
    /// (401).
    pub token_revoked: bool,
    pub too_old: HashSet<u64>,
    pub commands: Vec<Value>,
    pub identifies: usize,
    pub resumes: usize,
    pub heartbeats: usize,
    pub connected: usize,
    /// An event was queued for the gateway since the last look.
    pub wake: bool,
    sessions: HashMap<String, Session>,
    /// The newest session of each shard id: its servers' events go there.
    current: HashMap<u64, String>,
    /// The shard total of the newest IDENTIFY: how servers map to shards.
    shard_total: Option<u64>,
    /// What `GET /gateway/bot` recommends.
    pub recommended_shards: u64,
    /// `session_start_limit.max_concurrency` of `GET /gateway/bot`.
    pub max_concurrency: u64,
    /// The most servers one shard may hold before IDENTIFY is closed with
    /// 4011 (Discord: 2,500); `None` is no limit.
    pub guilds_per_shard: Option<usize>,
    /// The servers the bot is in.
    pub guilds: std::collections::BTreeSet<u64>,
    /// Channel → its server (unlisted: [`GUILD_ID`]).
    pub guild_of: HashMap<u64, u64>,
    /// `[id, total]` of every IDENTIFY accepted, in order.
    pub identified: Vec<(u64, u64)>,
    interactions: HashMap<u64, Interaction>,
    by_token: HashMap<String, u64>,
    messages: HashMap<u64, Msg>,
    users: HashMap<u64, User>,
    next_id: u64,
    started: Instant,
    offset_ms: u64,
    /// Edits (of a message, or an interaction's update answer) after which
    /// the message showed exactly what it showed before.
    pub unchanged_edits: usize,
    /// Person → how many new messages of the bot mentioned them with the
    /// mention allowed: each made their Discord notify them. Edits notify
    /// no one.
    pub notified: HashMap<u64, usize>,
}

/// The people a new message notifies: those mentioned (`<@id>`) whom
/// `allowed_mentions` lets be pinged (without it, everyone mentioned).
fn notified_by(body: &Value) -> Vec<u64> {
    let content = body["content"].as_str().unwrap_or("");
    let mentioned = content.split("<@").skip(1).filter_map(|rest| {
        rest.split('>')
            .next()?
            .trim_start_matches('!')
            .parse::<u64>()
            .ok()
    });
    let allowed = &body["allowed_mentions"];
    let all = allowed.is_null()
        || allowed["parse"]
            .as_array()
            .is_some_and(|p| p.iter().any(|v| v == "users"));
    let listed: Vec<u64> = allowed["users"]
        .as_array()
        .map(|u| {
            u.iter()
                .filter_map(|v| v.as_str().and_then(|s| s.parse().ok()).or(v.as_u64()))
                .collect()
        })
        .unwrap_or_default();
    let mut out: Vec<u64> = mentioned.filter(|u| all || listed.contains(u)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn user_json(u: &User) -> Value {
    json!({"id": u.id.to_string(), "username": u.name, "global_name": u.name,
           "discriminator": "0", "avatar": null})
}

fn bot_json() -> Value {
    json!({"id": APP_ID.to_string(), "username": "kozyr", "discriminator": "0",
           "avatar": null, "bot": true})
}

/// The route of a path, ids and tokens replaced.
/// Whether one of the calls counted down in `list` (route prefix, calls
/// left) is `route`'s: then it is spent.
fn take_one(list: &mut [(String, usize)], route: &str) -> bool {
    match list
        .iter_mut()
        .find(|(r, n)| *n > 0 && route.starts_with(r.as_str()))
    {
        Some(found) => {
            found.1 -= 1;
            true
        }
        None => false,
    }
}

/// A 429 that covers every call of the bot bound to the global limit.
#[derive(Clone, Copy, Debug)]
pub struct GlobalLimit {
    pub retry_after: Duration,
    /// As Discord's edge sends it: no rate-limit headers, a page for a
    /// body, only `Retry-After` (whole seconds).
    pub from_edge: bool,
}

/// How long after a global 429 went out a call may still arrive without
/// being counted: it was sent before the bot could know.
pub const GLOBAL_GRACE: Duration = Duration::from_millis(300);

fn route_of(method: &str, path: &str) -> String {
    let parts: Vec<&str> = path
        .split('/')
        .map(|p| {
            if p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty() {
                ":id"
            } else if p.len() > 30 {
                ":token"
            } else {
                p
            }
        })
        .collect();
    format!("{method} /{}", parts.join("/"))
}

impl World {
    pub fn new(url: String) -> World {
        World {
            url,
            guild_locale: "en-US".into(),
            heartbeat_ms: 41_250,
            violations: Vec::new(),
            calls: Vec::new(),
            latencies: Vec::new(),
            limits: Vec::new(),
            holds: Vec::new(),
            outages: Vec::new(),
            global_limits: Vec::new(),
            global_until: None,
            token_revoked: false,
            too_old: HashSet::new(),
            commands: Vec::new(),
            identifies: 0,
            resumes: 0,
            heartbeats: 0,
            connected: 0,
            wake: false,
            sessions: HashMap::new(),
            current: HashMap::new(),
            shard_total: None,
            recommended_shards: 1,
            max_concurrency: 1,
            guilds_per_shard: None,
            guilds: [GUILD_ID].into(),
            guild_of: HashMap::new(),
            identified: Vec::new(),
            interactions: HashMap::new(),
            by_token: HashMap::new(),
            messages: HashMap::new(),
            users: HashMap::new(),
            next_id: 1_000_000_000_000_000_000,
            started: Instant::now(),
            offset_ms: 0,
            unchanged_edits: 0,
            notified: HashMap::new(),
        }
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64 + self.offset_ms
    }

    pub fn advance(&mut self, d: Duration) {
        self.offset_ms += d.as_millis() as u64;
    }

    // ------------------------------------------------------------ gateway

    /// The close code of a refused IDENTIFY, or the session and its READY.
    /// `shard` is the IDENTIFY's `[id, total]` (absent: `[0, 1]`).
    pub fn identify(
        &mut self,
        token: &str,
        intents: Option<u64>,
        shard: Option<(u64, u64)>,
    ) -> Result<(String, String), u16> {
        if self.token_revoked {
            return Err(4004);
        }
        if token != TOKEN && token != format!("Bot {TOKEN}") {
            self.violations.push("IDENTIFY with a wrong token".into());
            return Err(4004);
        }
        let Some(intents) = intents else {
            // Discord requires the field (close code 4013, invalid intents).
            self.violations.push("IDENTIFY without intents".into());
            return Err(4013);
        };
        let (id, total) = shard.unwrap_or((0, 1));
        // Discord closes with 4010 (invalid shard) for a shard past the
        // total, or a total other than the live sessions'.
        if id >= total {
            self.violations
                .push(format!("IDENTIFY with the invalid shard [{id}, {total}]"));
            return Err(4010);
        }
        if let Some(other) = self
            .sessions
            .values()
            .find(|s| s.live && !s.ended && s.shard.1 != total)
        {
            self.violations.push(format!(
                "IDENTIFY of shard [{id}, {total}] while a session of [{}, {}] is live",
                other.shard.0, other.shard.1
            ));
            return Err(4010);
        }
        let guilds: Vec<u64> = self
            .guilds
            .iter()
            .copied()
            .filter(|&g| shard_of(g, total) == id)
            .collect();
        if let Some(most) = self.guilds_per_shard
            && guilds.len() > most
        {
            self.violations.push(format!(
                "IDENTIFY of shard [{id}, {total}] with {} servers: sharding required",
                guilds.len()
            ));
            return Err(4011);
        }
        self.identifies += 1;
        self.identified.push((id, total));
        let sid = format!("session-{}", self.id());
        let unavailable: Vec<Value> = guilds
            .iter()
            .map(|g| json!({"id": g.to_string(), "unavailable": true}))
            .collect();
        let ready = json!({"op": 0, "t": "READY", "s": 1, "d": {
            "v": 10, "user": {"id": APP_ID.to_string(), "username": "kozyr", "discriminator": "0",
                "avatar": null, "bot": true, "mfa_enabled": false, "verified": true},
            "guilds": unavailable, "session_id": sid,
            "resume_gateway_url": self.url, "shard": [id, total],
            "application": {"id": APP_ID.to_string(), "flags": 0}}});
        self.sessions.insert(
            sid.clone(),
            Session {
                events: Vec::new(),
                seq: 1,
                ended: false,
                intents,
                shard: (id, total),
                live: true,
            },
        );
        self.current.insert(id, sid.clone());
        self.shard_total = Some(total);
        Ok((sid, ready.to_string()))
    }

    pub fn resume(&mut self, sid: &str, seq: u64) -> bool {
        match self.sessions.get_mut(sid) {
            Some(s) if !s.ended && seq <= s.seq => {
                self.resumes += 1;
                s.live = true;
                let shard = s.shard.0;
                self.current.insert(shard, sid.to_owned());
                true
            }
            _ => false,
        }
    }

    /// The shard id `sid` speaks for.
    pub fn shard_of_session(&self, sid: &str) -> Option<u64> {
        self.sessions.get(sid).map(|s| s.shard.0)
    }

    /// The connection speaking for `sid` closed.
    pub fn disconnected(&mut self, sid: &str) {
        if let Some(s) = self.sessions.get_mut(sid) {
            s.live = false;
        }
    }

    /// `[id, total]` of the sessions a connection speaks for now.
    pub fn live_shards(&self) -> Vec<(u64, u64)> {
        let mut live: Vec<(u64, u64)> = self
            .sessions
            .values()
            .filter(|s| s.live && !s.ended)
            .map(|s| s.shard)
            .collect();
        live.sort_unstable();
        live
    }

    /// The session that takes `guild`'s events: the newest of its shard.
    /// `Err` names the shard when no session has it.
    fn session_for(&self, guild: u64) -> Result<String, String> {
        let Some(total) = self.shard_total else {
            return Err("no session".into());
        };
        let shard = shard_of(guild, total);
        self.current
            .get(&shard)
            .cloned()
            .ok_or_else(|| format!("no session of its shard [{shard}, {total}]"))
    }

    fn guild_of_channel(&self, channel: u64) -> u64 {
        self.guild_of.get(&channel).copied().unwrap_or(GUILD_ID)
    }

    pub fn resumed_event(&mut self, sid: &str) -> Option<(u64, String)> {
        let s = self.sessions.get_mut(sid)?;
        s.seq += 1;
        let text = json!({"op": 0, "t": "RESUMED", "s": s.seq, "d": {}}).to_string();
        Some((s.seq, text))
    }

    pub fn end_session(&mut self, sid: &str) {
        if let Some(s) = self.sessions.get_mut(sid) {
            s.ended = true;
        }
    }

    pub fn events_after(&self, sid: &str, seq: u64) -> Vec<(u64, String)> {
        self.sessions.get(sid).map_or_else(Vec::new, |s| {
            s.events.iter().filter(|(n, _)| *n > seq).cloned().collect()
        })
    }

    pub fn delivered(&mut self, _sid: &str, _seq: u64) {}

    pub fn message_creates(&self) -> usize {
        self.sessions
            .values()
            .flat_map(|s| &s.events)
            .filter(|(_, t)| t.contains("\"t\":\"MESSAGE_CREATE\""))
            .count()
    }

    fn dispatch(&mut self, interaction: Value, channel: u64) {
        let guild = self.guild_of_channel(channel);
        let sid = match self.session_for(guild) {
            Ok(sid) => sid,
            Err(why) => {
                self.violations.push(format!(
                    "an interaction with no session to take it (server {guild}: {why})"
                ));
                return;
            }
        };
        let Some(s) = self.sessions.get_mut(&sid) else {
            return;
        };
        s.seq += 1;
        let text =
            json!({"op": 0, "t": "INTERACTION_CREATE", "s": s.seq, "d": interaction}).to_string();
        s.events.push((s.seq, text));
    }

    /// MESSAGE_CREATE for a new public message, to the current session if
    /// its IDENTIFY asked for `GUILD_MESSAGES` (Discord sends nothing
    /// otherwise). The bot's own messages are dispatched too, as Discord
    /// does. The content is left out: reading it needs MESSAGE_CONTENT.
    fn message_created(&mut self, id: u64) {
        let Some(m) = self.messages.get(&id) else {
            return;
        };
        if m.ephemeral_for.is_some() {
            return;
        }
        let mut d = self.message_json(m);
        d["content"] = json!("");
        d["components"] = json!([]);
        let guild = self.guild_of_channel(m.channel);
        d["guild_id"] = json!(guild.to_string());
        let sid = match self.session_for(guild) {
            Ok(sid) => sid,
            // Before any session there is no one to tell (nor a shard).
            Err(_) if self.shard_total.is_none() => return,
            Err(why) => {
                self.violations.push(format!(
                    "MESSAGE_CREATE with no session to take it (server {guild}: {why})"
                ));
                return;
            }
        };
        let Some(s) = self.sessions.get_mut(&sid) else {
            return;
        };
        if s.ended || s.intents & GUILD_MESSAGES == 0 {
            return;
        }
        s.seq += 1;
        let text = json!({"op": 0, "t": "MESSAGE_CREATE", "s": s.seq, "d": d}).to_string();
        s.events.push((s.seq, text));
        self.wake = true;
    }

    // -------------------------------------------------------------- people

    /// `user` writes a plain message in `channel`.
    pub fn say(&mut self, user: &User, channel: u64, text: &str) -> u64 {
        self.users.insert(user.id, user.clone());
        let id = self.new_message_by(user.id, channel, &json!({"content": text}), None);
        self.message_created(id);
        id
    }

    fn interaction_json(
        &mut self,
        user: &User,
        channel: u64,
        kind: u8,
        data: Value,
        message: Option<u64>,
    ) -> (u64, Value) {
        self.users.insert(user.id, user.clone());
        let id = self.id();
        let token = format!("itoken-{id}-{}", "x".repeat(40));
        let perms: u64 = if user.admin {
            0x20 | 0x10 | 0x800 | 0x400
        } else {
            0x800 | 0x400
        };
        let mut v = json!({
            "id": id.to_string(), "application_id": APP_ID.to_string(), "type": kind,
            "data": data, "guild_id": self.guild_of_channel(channel).to_string(),
            "channel": {"id": channel.to_string(), "type": 0, "name": "cards"},
            "channel_id": channel.to_string(),
            "member": {"user": user_json(user), "roles": [], "joined_at": "2026-01-01T00:00:00.000000+00:00",
                       "deaf": false, "mute": false, "flags": 0, "permissions": perms.to_string()},
            "token": token, "version": 1, "locale": user.locale, "guild_locale": self.guild_locale,
            "app_permissions": "2048", "entitlements": [], "authorizing_integration_owners": {},
            "attachment_size_limit": 8388608, "context": 0,
        });
        if let Some(m) = message.and_then(|m| self.messages.get(&m)) {
            v["message"] = self.message_json(m);
        }
        self.interactions.insert(
            id,
            Interaction {
                user: user.id,
                channel,
                message,
                dispatched: Instant::now(),
                dispatched_ms: self.now_ms(),
                answered: None,
                original: None,
                ephemeral_original: false,
            },
        );
        self.by_token.insert(token, id);
        (id, v)
    }

    pub fn slash(&mut self, user: &User, channel: u64, name: &str) -> u64 {
        let data = json!({"id": "1", "name": name, "type": 1});
        let (id, v) = self.interaction_json(user, channel, 2, data, None);
        self.dispatch(v, channel);
        id
    }

    /// A slash command as Discord would post it to an HTTP interactions
    /// endpoint (not dispatched on the gateway); the test answers it over
    /// HTTP, so the fake counts it answered.
    pub fn slash_for_http(&mut self, user: &User, channel: u64, name: &str) -> Value {
        let data = json!({"id": "1", "name": name, "type": 1});
        let (id, v) = self.interaction_json(user, channel, 2, data, None);
        if let Some(ix) = self.interactions.get_mut(&id) {
            ix.answered = Some(0);
        }
        v
    }

    fn visible(&self, user: u64, message: u64) -> Result<&Msg, String> {
        match self.messages.get(&message) {
            Some(m) if !m.deleted && m.ephemeral_for.is_none_or(|u| u == user) => Ok(m),
            _ => Err(format!("message {message} is not one this person can see")),
        }
    }

    fn components_of(m: &Msg) -> Vec<Value> {
        m.components
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|row| row["components"].as_array().cloned().unwrap_or_default())
            .collect()
    }

    pub fn click(&mut self, user: &User, message: u64, custom_id: &str) -> Result<u64, String> {
        let m = self.visible(user.id, message)?;
        let found = Self::components_of(m)
            .iter()
            .any(|c| c["type"] == 2 && c["custom_id"] == custom_id && c["disabled"] != true);
        if !found {
            return Err(format!("no button {custom_id} on message {message}"));
        }
        let channel = m.channel;
        let data = json!({"custom_id": custom_id, "component_type": 2});
        let (id, v) = self.interaction_json(user, channel, 3, data, Some(message));
        self.dispatch(v, channel);
        Ok(id)
    }

    pub fn click_raw(&mut self, user: &User, message: u64, custom_id: &str) -> Result<u64, String> {
        let channel = self.visible(user.id, message)?.channel;
        let data = json!({"custom_id": custom_id, "component_type": 2});
        let (id, v) = self.interaction_json(user, channel, 3, data, Some(message));
        self.dispatch(v, channel);
        Ok(id)
    }

    pub fn choose(&mut self, user: &User, message: u64, values: &[String]) -> Result<u64, String> {
        let m = self.visible(user.id, message)?;
        let select = Self::components_of(m)
            .into_iter()
            .find(|c| c["type"] == 3)
            .ok_or_else(|| format!("no select menu on message {message}"))?;
        let options: Vec<String> = select["options"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| o["value"].as_str().map(str::to_owned))
            .collect();
        if let Some(v) = values.iter().find(|v| !options.contains(v)) {
            return Err(format!("{v} is not an option"));
        }
        let min = select["min_values"].as_u64().unwrap_or(1) as usize;
        let max = select["max_values"].as_u64().unwrap_or(1) as usize;
        if values.len() < min || values.len() > max {
            return Err(format!(
                "{} values, the menu takes {min}-{max}",
                values.len()
            ));
        }
        let custom_id = select["custom_id"].clone();
        let channel = m.channel;
        let data = json!({"custom_id": custom_id, "component_type": 3, "values": values});
        let (id, v) = self.interaction_json(user, channel, 3, data, Some(message));
        self.dispatch(v, channel);
        Ok(id)
    }

    pub fn seen_by(&self, user: u64, channel: u64) -> Vec<Seen> {
        let mut ms: Vec<&Msg> = self
            .messages
            .values()
            .filter(|m| {
                m.channel == channel && !m.deleted && m.ephemeral_for.is_none_or(|u| u == user)
            })
            .collect();
        ms.sort_by_key(|m| m.id);
        ms.into_iter()
            .map(|m| {
                let comps = Self::components_of(m);
                let buttons = comps
                    .iter()
                    .filter(|c| c["type"] == 2)
                    .map(|c| {
                        (
                            c["label"].as_str().unwrap_or("").to_owned(),
                            c["custom_id"].as_str().unwrap_or("").to_owned(),
                        )
                    })
                    .collect();
                let select = comps.iter().find(|c| c["type"] == 3).map(|s| SeenSelect {
                    options: s["options"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|o| {
                            (
                                o["label"].as_str().unwrap_or("").to_owned(),
                                o["value"].as_str().unwrap_or("").to_owned(),
                                o["default"] == true,
                            )
                        })
                        .collect(),
                    min: s["min_values"].as_u64().unwrap_or(1) as usize,
                    max: s["max_values"].as_u64().unwrap_or(1) as usize,
                });
                Seen {
                    id: m.id,
                    content: m.content.clone(),
                    buttons,
                    select,
                    ephemeral: m.ephemeral_for.is_some(),
                    author: m.author,
                }
            })
            .collect()
    }

    pub fn answer_of(&self, interaction: u64) -> Option<u8> {
        self.interactions.get(&interaction)?.answered
    }

    pub fn unanswered(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .interactions
            .iter()
            .filter(|(_, i)| i.answered.is_none())
            .map(|(id, _)| *id)
            .collect();
        v.sort();
        v
    }

    // ---------------------------------------------------------- messages

    fn message_json(&self, m: &Msg) -> Value {
        let mut v = json!({
            "id": m.id.to_string(), "channel_id": m.channel.to_string(),
            "author": self.users.get(&m.author).map_or_else(bot_json, user_json),
            "content": m.content, "timestamp": "2026-01-01T00:00:00.000000+00:00",
            "edited_timestamp": null, "tts": false, "mention_everyone": false, "mentions": [],
            "mention_roles": [], "attachments": [], "embeds": [], "pinned": false, "type": 0,
            "components": m.components,
        });
        if m.ephemeral_for.is_some() {
            v["flags"] = json!(64);
        }
        v
    }

    /// Checks a message payload as Discord does; the first problem.
    fn check_payload(&self, body: &Value) -> Result<(), String> {
        if let Some(c) = body["content"].as_str()
            && c.chars().count() > 2000
        {
            return Err(format!("content of {} characters", c.chars().count()));
        }
        let Some(rows) = body.get("components") else {
            return Ok(());
        };
        if rows.is_null() {
            return Ok(());
        }
        let rows = rows.as_array().ok_or("components is not a list")?;
        if rows.len() > 5 {
            return Err(format!("{} rows", rows.len()));
        }
        let mut ids = HashSet::new();
        for row in rows {
            if row["type"] != 1 {
                return Err("a top-level component that is not an action row".into());
            }
            let items = row["components"]
                .as_array()
                .ok_or("a row without components")?;
            if items.is_empty() {
                return Err("an empty row".into());
            }
            let selects = items.iter().filter(|c| c["type"] == 3).count();
            if selects > 0 && items.len() > 1 {
                return Err("a select menu shares its row".into());
            }
            if items.len() > 5 {
                return Err(format!("{} buttons in a row", items.len()));
            }
            for c in items {
                let id = c["custom_id"].as_str().unwrap_or("");
                if id.is_empty() || id.chars().count() > 100 {
                    return Err(format!("custom_id {id:?} not 1-100 characters"));
                }
                if !ids.insert(id.to_owned()) {
                    return Err(format!("custom_id {id} twice in a message"));
                }
                match c["type"].as_u64() {
                    Some(2) => {
                        let label = c["label"].as_str().unwrap_or("");
                        if label.chars().count() > 80 {
                            return Err("a button label over 80 characters".into());
                        }
                    }
                    Some(3) => {
                        let opts = c["options"].as_array().ok_or("a select without options")?;
                        if opts.is_empty() || opts.len() > 25 {
                            return Err(format!("a select with {} options", opts.len()));
                        }
                        let min = c["min_values"].as_u64().unwrap_or(1);
                        let max = c["max_values"].as_u64().unwrap_or(1);
                        if min > max || max == 0 || max > opts.len() as u64 || min > 25 {
                            return Err(format!("select min {min} max {max} of {}", opts.len()));
                        }
                        let mut values = HashSet::new();
                        for o in opts {
                            let v = o["value"].as_str().unwrap_or("");
                            if v.is_empty() || v.len() > 100 || !values.insert(v.to_owned()) {
                                return Err(format!("select option value {v:?}"));
                            }
                        }
                    }
                    other => return Err(format!("component type {other:?}")),
                }
            }
        }
        Ok(())
    }

    /// A message of the bot's; MESSAGE_CREATE when it is public.
    fn new_message(&mut self, channel: u64, body: &Value, ephemeral_for: Option<u64>) -> u64 {
        for user in notified_by(body) {
            *self.notified.entry(user).or_default() += 1;
        }
        let id = self.new_message_by(APP_ID, channel, body, ephemeral_for);
        self.message_created(id);
        id
    }

    fn new_message_by(
        &mut self,
        author: u64,
        channel: u64,
        body: &Value,
        ephemeral_for: Option<u64>,
    ) -> u64 {
        let id = self.id();
        self.messages.insert(
            id,
            Msg {
                id,
                channel,
                author,
                content: body["content"].as_str().unwrap_or("").to_owned(),
                components: body.get("components").cloned().unwrap_or(json!([])),
                ephemeral_for,
                deleted: false,
            },
        );
        id
    }

    fn edit_message(&mut self, id: u64, body: &Value) {
        if let Some(m) = self.messages.get_mut(&id) {
            let before = (m.content.clone(), m.components.clone());
            if let Some(c) = body.get("content").and_then(Value::as_str) {
                m.content = c.to_owned();
            }
            if let Some(c) = body.get("components")
                && !c.is_null()
            {
                m.components = c.clone();
            }
            // Discord takes it, but it spent a call (and rate limit) for nothing.
            if before == (m.content.clone(), m.components.clone()) {
                self.unchanged_edits += 1;
            }
        }
    }

    // ------------------------------------------------------------- REST

    /// Answers one REST call; the rate-limit bucket of its route.
    pub fn rest(
        &mut self,
        method: &str,
        path: &str,
        query: &str,
        auth: Option<&str>,
        body: &Value,
    ) -> (Answer, String, bool) {
        let route = route_of(method, path);
        let held = take_one(&mut self.holds, &route);
        let bucket = format!(
            "{:x}",
            route.len() * 31 + route.bytes().map(usize::from).sum::<usize>()
        );
        let answer = self.rest_inner(method, path, query, &route, auth, body);
        self.calls.push(Call {
            method: method.to_owned(),
            route: route.clone(),
            at: Instant::now(),
            status: answer.status,
        });
        (answer, bucket, held)
    }

    fn rest_inner(
        &mut self,
        method: &str,
        path: &str,
        query: &str,
        route: &str,
        auth: Option<&str>,
        body: &Value,
    ) -> Answer {
        if take_one(&mut self.outages, route) {
            return Answer {
                status: 502,
                body: json!({"message": "502: Bad Gateway", "code": 0}),
                limit: None,
            };
        }
        if take_one(&mut self.limits, route) {
            return Answer {
                status: 429,
                body: json!({"message": "You are being rate limited.", "retry_after": 0.2, "global": false}),
                limit: Some(Limit::Route),
            };
        }
        let segs: Vec<&str> = path.split('/').collect();
        let bot_auth = auth == Some(&format!("Bot {TOKEN}"));
        // Interaction callbacks and their webhooks are bound to no global
        // limit.
        let bound = bot_auth && !matches!(segs.first(), Some(&"webhooks" | &"interactions"));
        if bound && let Some(answer) = self.global_limit(route) {
            return answer;
        }
        if bot_auth && self.token_revoked {
            return Answer::error(401, 0, "401: Unauthorized");
        }
        let webhook = segs.first() == Some(&"webhooks") || segs.first() == Some(&"interactions");
        if !webhook && !bot_auth {
            self.violations
                .push(format!("{route} without the bot token"));
            return Answer::error(401, 0, "401: Unauthorized");
        }
        match (method, segs.as_slice()) {
            ("GET", ["gateway", "bot"]) => Answer::ok(json!({
                "url": self.url, "shards": self.recommended_shards,
                "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 0,
                    "max_concurrency": self.max_concurrency}})),
            ("GET", ["users", "@me"]) => Answer::ok(bot_json()),
            ("PUT", ["applications", app, "commands"])
            | ("PUT", ["applications", app, "guilds", _, "commands"]) => {
                if *app != APP_ID.to_string() {
                    return Answer::error(403, 50001, "Missing Access");
                }
                let Some(list) = body.as_array() else {
                    return self.refuse(route, "commands are not a list");
                };
                for c in list {
                    let name = c["name"].as_str().unwrap_or("");
                    let desc = c["description"].as_str().unwrap_or("");
                    let ok_name = !name.is_empty()
                        && name.len() <= 32
                        && name.chars().all(|ch| {
                            ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-' || ch == '_'
                        });
                    if !ok_name || desc.is_empty() || desc.chars().count() > 100 {
                        return self.refuse(route, &format!("command {name:?}"));
                    }
                    for (_, d) in c["description_localizations"]
                        .as_object()
                        .into_iter()
                        .flatten()
                    {
                        if d.as_str()
                            .is_none_or(|d| d.is_empty() || d.chars().count() > 100)
                        {
                            return self.refuse(route, &format!("a description of {name}"));
                        }
                    }
                }
                self.commands = list.clone();
                let out: Vec<Value> = list
                    .iter()
                    .map(|c| {
                        let mut c = c.clone();
                        c["id"] = json!("1");
                        c["application_id"] = json!(APP_ID.to_string());
                        c["version"] = json!("1");
                        c
                    })
                    .collect();
                Answer::ok(Value::Array(out))
            }
            ("POST", ["interactions", id, token, "callback"]) => {
                self.callback(route, id, token, body)
            }
            ("PATCH", ["webhooks", _, token, "messages", "@original"]) => {
                let Some(ix) = self.valid_token(token) else {
                    return Answer::error(401, 50027, "Invalid Webhook Token");
                };
                let Some(orig) = self.interactions[&ix].original else {
                    return Answer::error(404, 10015, "Unknown Webhook");
                };
                if let Err(e) = self.check_payload(body) {
                    return self.refuse(route, &e);
                }
                self.edit_message(orig, body);
                let m = &self.messages[&orig];
                Answer::ok(self.message_json(m))
            }
            ("DELETE", ["webhooks", _, token, "messages", "@original"]) => {
                let Some(ix) = self.valid_token(token) else {
                    return Answer::error(401, 50027, "Invalid Webhook Token");
                };
                if let Some(o) = self.interactions[&ix].original
                    && let Some(m) = self.messages.get_mut(&o)
                {
                    m.deleted = true;
                }
                Answer::empty()
            }
            ("POST", ["webhooks", _, token]) => {
                let Some(ix) = self.valid_token(token) else {
                    return Answer::error(401, 50027, "Invalid Webhook Token");
                };
                if self.interactions[&ix].answered.is_none() {
                    return Answer::error(404, 10015, "Unknown Webhook");
                }
                if let Err(e) = self.check_payload(body) {
                    return self.refuse(route, &e);
                }
                let (user, channel) = (self.interactions[&ix].user, self.interactions[&ix].channel);
                let eph = body["flags"].as_u64().unwrap_or(0) & 64 != 0;
                let id = self.new_message(channel, body, eph.then_some(user));
                Answer::ok(self.message_json(&self.messages[&id]))
            }
            ("POST", ["channels", channel, "messages"]) => {
                let Ok(channel) = channel.parse::<u64>() else {
                    return Answer::error(404, 10003, "Unknown Channel");
                };
                if let Err(e) = self.check_payload(body) {
                    return self.refuse(route, &e);
                }
                if body["content"].as_str().unwrap_or("").is_empty() {
                    return self.refuse(route, "an empty message");
                }
                let id = self.new_message(channel, body, None);
                Answer::ok(self.message_json(&self.messages[&id]))
            }
            ("GET", ["channels", channel, "messages"]) => {
                // `after` and `limit` (at most 100) as Discord reads them:
                // the oldest messages past `after`, or without it the
                // newest; newest first.
                let param = |name: &str| {
                    query.split('&').find_map(|kv| {
                        let (k, v) = kv.split_once('=')?;
                        (k == name).then(|| v.parse::<u64>().ok())?
                    })
                };
                let (Ok(channel), after, limit) = (
                    channel.parse::<u64>(),
                    param("after"),
                    param("limit").unwrap_or(50).clamp(1, 100) as usize,
                ) else {
                    return Answer::error(404, 10003, "Unknown Channel");
                };
                let mut found: Vec<&Msg> = self
                    .messages
                    .values()
                    .filter(|m| m.channel == channel && !m.deleted && m.ephemeral_for.is_none())
                    .filter(|m| after.is_none_or(|a| m.id > a))
                    .collect();
                found.sort_by_key(|m| m.id);
                match after {
                    Some(_) => found.truncate(limit),
                    None => {
                        let older = found.len().saturating_sub(limit);
                        found.drain(..older);
                    }
                }
                found.reverse();
                Answer::ok(Value::Array(
                    found.iter().map(|m| self.message_json(m)).collect(),
                ))
            }
            ("DELETE", ["channels", channel, "messages", message]) => {
                let (Ok(channel), Ok(message)) = (channel.parse::<u64>(), message.parse::<u64>())
                else {
                    return Answer::error(404, 10008, "Unknown Message");
                };
                match self.messages.get_mut(&message) {
                    Some(m) if m.channel == channel && !m.deleted && m.ephemeral_for.is_none() => {
                        m.deleted = true;
                        Answer::empty()
                    }
                    _ => Answer::error(404, 10008, "Unknown Message"),
                }
            }
            ("PATCH", ["channels", channel, "messages", message]) => {
                let (Ok(channel), Ok(message)) = (channel.parse::<u64>(), message.parse::<u64>())
                else {
                    return Answer::error(404, 10008, "Unknown Message");
                };
                match self.messages.get(&message) {
                    Some(m) if m.channel == channel && !m.deleted && m.ephemeral_for.is_none() => {}
                    _ => return Answer::error(404, 10008, "Unknown Message"),
                }
                if self.too_old.contains(&message) {
                    return Answer::error(
                        400,
                        30046,
                        "Maximum number of edits to messages older than 1 hour reached. Try again later.",
                    );
                }
                if let Err(e) = self.check_payload(body) {
                    return self.refuse(route, &e);
                }
                self.edit_message(message, body);
                Answer::ok(self.message_json(&self.messages[&message]))
            }
            _ => {
                self.violations
                    .push(format!("{route}: a route the fake does not know"));
                Answer::error(404, 0, "404: Not Found")
            }
        }
    }

    /// A global 429 for a call bound to the global limit: one of those
    /// the test asked for, or the one in force again — a call that
    /// arrives inside its `retry_after` (after [`GLOBAL_GRACE`]) is a
    /// violation, as Discord counts it against the bot.
    fn global_limit(&mut self, route: &str) -> Option<Answer> {
        let now = Instant::now();
        let limit = match self.global_until {
            Some((until, at)) if now < until => {
                if now > at + GLOBAL_GRACE {
                    self.violations.push(format!(
                        "{route} {:?} into a global 429's retry_after ({:?} left)",
                        now - at,
                        until - now
                    ));
                }
                GlobalLimit {
                    retry_after: until - now,
                    from_edge: false,
                }
            }
            _ => {
                if self.global_limits.is_empty() {
                    return None;
                }
                let l = self.global_limits.remove(0);
                self.global_until = Some((now + l.retry_after, now));
                l
            }
        };
        let secs = limit.retry_after.as_secs_f64();
        Some(if limit.from_edge {
            Answer {
                status: 429,
                body: Value::String("<html>Too Many Requests</html>".into()),
                limit: Some(Limit::Edge {
                    retry_after: secs.ceil() as u64,
                }),
            }
        } else {
            Answer {
                status: 429,
                body: json!({"message": "You are being rate limited.", "retry_after": secs, "global": true}),
                limit: Some(Limit::Global { retry_after: secs }),
            }
        })
    }

    fn refuse(&mut self, route: &str, why: &str) -> Answer {
        self.violations.push(format!("{route}: {why}"));
        Answer::error(400, 50035, &format!("Invalid Form Body: {why}"))
    }

    /// The interaction of a webhook token Discord still takes.
    fn valid_token(&self, token: &str) -> Option<u64> {
        let id = *self.by_token.get(token)?;
        let ix = &self.interactions[&id];
        (self.now_ms().saturating_sub(ix.dispatched_ms) < FIFTEEN_MINUTES_MS).then_some(id)
    }

    fn callback(&mut self, route: &str, id: &str, token: &str, body: &Value) -> Answer {
        let Some(&ix_id) = id
            .parse::<u64>()
            .ok()
            .and_then(|i| self.by_token.get(token).filter(|t| **t == i))
        else {
            self.violations
                .push(format!("{route}: unknown interaction"));
            return Answer::error(404, 10062, "Unknown interaction");
        };
        let (answered, dispatched, message, channel, user) = {
            let ix = &self.interactions[&ix_id];
            (ix.answered, ix.dispatched, ix.message, ix.channel, ix.user)
        };
        if answered.is_some() {
            self.violations
                .push(format!("interaction {ix_id} answered twice"));
            return Answer::error(400, 40060, "Interaction has already been acknowledged.");
        }
        let late = dispatched.elapsed();
        if late > THREE_SECONDS {
            self.violations
                .push(format!("interaction {ix_id} answered after {late:?}"));
            return Answer::error(404, 10062, "Unknown interaction");
        }
        let kind = body["type"].as_u64().unwrap_or(0) as u8;
        let data = &body["data"];
        if let Err(e) = self.check_payload(data) {
            return self.refuse(route, &e);
        }
        let eph = data["flags"].as_u64().unwrap_or(0) & 64 != 0;
        let original = match kind {
            4 => {
                if data["content"].as_str().unwrap_or("").is_empty() {
                    return self.refuse(route, "an empty message");
                }
                Some(self.new_message(channel, data, eph.then_some(user)))
            }
            5 => Some(self.new_message(channel, &json!({"content": ""}), eph.then_some(user))),
            6 | 7 => {
                let Some(m) = message else {
                    return self.refuse(route, "an update answer to a command");
                };
                if kind == 7 {
                    self.edit_message(m, data);
                }
                Some(m)
            }
            1 => None,
            other => return self.refuse(route, &format!("response type {other}")),
        };
        let ix = self.interactions.get_mut(&ix_id).expect("interaction");
        ix.answered = Some(kind);
        ix.original = original;
        ix.ephemeral_original = eph;
        self.latencies.push(late);
        Answer::empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_fake_sends_is_what_twilight_reads() {
        let mut w = World::new("ws://127.0.0.1:1".into());
        let (_, ready) = w.identify(TOKEN, Some(0), None).unwrap();
        let v: Value = serde_json::from_str(&ready).unwrap();
        let _: twilight_model::gateway::payload::incoming::Ready =
            serde_json::from_value(v["d"].clone()).unwrap();
        let ann = User::new(5, "Ann");
        let body = json!({"content": "hi", "components": [{"type": 1, "components": [
            {"type": 2, "style": 2, "label": "Go", "custom_id": "go"}]}]});
        let m = w.new_message(77, &body, None);
        let _: twilight_model::channel::Message =
            serde_json::from_value(w.message_json(&w.messages[&m])).unwrap();
        w.slash(&ann, 77, "kozel");
        w.click(&ann, m, "go").unwrap();
        for (_, text) in w.events_after(&w.current[&0], 0) {
            let v: Value = serde_json::from_str(&text).unwrap();
            let i: twilight_model::application::interaction::Interaction =
                serde_json::from_value(v["d"].clone()).unwrap();
            assert_eq!(i.author_id().map(|u| u.get()), Some(5));
        }
        assert!(w.click(&ann, m, "nope").is_err());
        assert!(w.violations.is_empty(), "{:?}", w.violations);
    }

    /// IDENTIFY is refused as Discord refuses it — 4011 when one shard
    /// would hold too many servers, 4010 for a shard past its total or a
    /// total other than the live sessions' — and each server's events go
    /// to its shard's session only, or to no one.
    #[test]
    fn sessions_are_sharded_like_discords() {
        let ann = User::new(5, "Ann");
        let mut w = World::new(String::new());
        // GUILD_ID is on shard 1 of 2, this one on shard 0.
        let other = GUILD_ID + (1 << 22);
        assert_eq!((shard_of(GUILD_ID, 2), shard_of(other, 2)), (1, 0));
        w.guilds.insert(other);
        w.guild_of.insert(88, other);
        w.guilds_per_shard = Some(1);
        let refused = [(None, 4011), (Some((2, 2)), 4010), (Some((0, 0)), 4010)];
        for (shard, code) in refused {
            assert_eq!(
                w.identify(TOKEN, Some(0), shard).err(),
                Some(code),
                "{shard:?}"
            );
        }
        let (one, ready) = w.identify(TOKEN, Some(0), Some((1, 2))).unwrap();
        let v: Value = serde_json::from_str(&ready).unwrap();
        assert_eq!(v["d"]["shard"], json!([1, 2]));
        assert_eq!(
            v["d"]["guilds"],
            json!([{"id": GUILD_ID.to_string(), "unavailable": true}])
        );
        assert_eq!(w.identify(TOKEN, Some(0), Some((0, 3))).err(), Some(4010));
        assert_eq!(w.violations.len(), 4, "{:?}", w.violations);

        w.slash(&ann, 77, "kozel");
        w.slash(&ann, 88, "kozel");
        assert_eq!(w.events_after(&one, 0).len(), 1);
        assert_eq!(w.violations.len(), 5);
        assert!(w.violations[4].contains("[0, 2]"), "{:?}", w.violations);

        let (zero, _) = w.identify(TOKEN, Some(0), Some((0, 2))).unwrap();
        w.slash(&ann, 88, "kozel");
        let events = w.events_after(&zero, 0);
        assert_eq!(events.len(), 1);
        assert!(events[0].1.contains(&other.to_string()));
        assert_eq!(w.events_after(&one, 0).len(), 1);
        assert_eq!(w.live_shards(), [(0, 2), (1, 2)]);
        assert_eq!(w.identified, [(1, 2), (0, 2)]);
    }

    /// MESSAGE_CREATE goes only to a session that asked for
    /// `GUILD_MESSAGES`, for people's messages and the bot's alike, never
    /// for an ephemeral one; twilight reads it.
    #[test]
    fn message_create_needs_the_guild_messages_intent() {
        let ann = User::new(5, "Ann");
        let mut w = World::new(String::new());
        assert_eq!(w.identify(TOKEN, None, None), Err(4013));
        w.violations.clear();
        // Every intent but GUILD_MESSAGES.
        w.identify(TOKEN, Some(!GUILD_MESSAGES & ((1 << 26) - 1)), None)
            .unwrap();
        w.say(&ann, 77, "hello");
        w.new_message(77, &json!({"content": "table"}), None);
        assert_eq!(w.message_creates(), 0);
        assert!(!w.wake);

        let (sid, _) = w.identify(TOKEN, Some(GUILD_MESSAGES), None).unwrap();
        let said = w.say(&ann, 77, "hello");
        let posted = w.new_message(77, &json!({"content": "table"}), None);
        w.new_message(77, &json!({"content": "hand"}), Some(5));
        assert!(w.wake);
        let events = w.events_after(&sid, 0);
        assert_eq!(events.len(), 2);
        let authors: Vec<(u64, u64)> = events
            .iter()
            .map(|(_, text)| {
                let v: Value = serde_json::from_str(text).unwrap();
                assert_eq!(v["t"], "MESSAGE_CREATE");
                let m: twilight_model::gateway::payload::incoming::MessageCreate =
                    serde_json::from_value(v["d"].clone()).unwrap();
                assert_eq!(m.channel_id.get(), 77);
                assert_eq!(m.content, "", "no MESSAGE_CONTENT intent");
                (m.id.get(), m.author.id.get())
            })
            .collect();
        assert_eq!(authors, vec![(said, 5), (posted, APP_ID)]);
        assert!(w.violations.is_empty(), "{:?}", w.violations);
    }

    #[test]
    fn payloads_past_discords_limits_are_refused() {
        let w = World::new(String::new());
        let button = |id: &str| json!({"type": 2, "style": 2, "label": "x", "custom_id": id});
        let row = |items: Vec<Value>| json!({"type": 1, "components": items});
        let six: Vec<Value> = (0..6).map(|i| button(&format!("b{i}"))).collect();
        assert!(w.check_payload(&json!({"components": [row(six)]})).is_err());
        assert!(
            w.check_payload(
                &json!({"components": [row(vec![button("a")]), row(vec![button("a")])]})
            )
            .is_err()
        );
        assert!(
            w.check_payload(&json!({"content": "x".repeat(2001)}))
                .is_err()
        );
        let select = json!({"type": 3, "custom_id": "s", "options": [{"label": "a", "value": "a"}], "min_values": 1, "max_values": 1});
        assert!(
            w.check_payload(&json!({"components": [row(vec![select.clone(), button("b")])]}))
                .is_err()
        );
        assert!(
            w.check_payload(&json!({"components": [row(vec![select])]}))
                .is_ok()
        );
    }
}
