//! Telegram's signed init data: who opened the Mini App, checked as
//! Telegram specifies (<https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app>).
//!
//! The init data is a query string (`query_id=…&user=…&auth_date=…&hash=…`).
//! The data-check-string is every field but `hash`, sorted by key, as
//! `key=value` lines joined by `\n`; the secret key is HMAC-SHA256 of the
//! bot token keyed by `"WebAppData"`; `hash` is the hex HMAC-SHA256 of the
//! data-check-string under that secret, compared in constant time. Data
//! older than [`MAX_AGE`] (or from the future) is refused: a copied sign-in
//! does not work for ever.

use std::collections::BTreeMap;
use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// How old a sign-in may be. Telegram signs anew each time the app opens.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// How far in the future `auth_date` may be (clocks differ a little).
const CLOCK_SKEW: u64 = 300;

/// Why init data was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("no init data")]
    Missing,
    #[error("init data is not a well-formed query string")]
    Malformed,
    #[error("init data's hash does not match")]
    BadHash,
    #[error("init data is too old (or dated in the future)")]
    Expired,
    #[error("init data names no user")]
    NoUser,
}

/// The Telegram user the init data is signed for.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct WebUser {
    pub id: u64,
    pub first_name: String,
    #[serde(default)]
    pub last_name: Option<String>,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub language_code: Option<String>,
}

impl WebUser {
    /// First and last name, as Telegram's clients show a person.
    pub fn full_name(&self) -> String {
        match &self.last_name {
            Some(last) if !last.is_empty() => format!("{} {last}", self.first_name),
            _ => self.first_name.clone(),
        }
    }
}

/// Checked init data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitData {
    pub user: WebUser,
    /// Seconds since the epoch when Telegram signed it.
    pub auth_date: u64,
    /// What a direct link passed (`startapp=`): the table, for links from groups.
    pub start_param: Option<String>,
}

fn fields(raw: &str) -> Result<BTreeMap<String, String>, AuthError> {
    if raw.is_empty() {
        return Err(AuthError::Missing);
    }
    let mut out = BTreeMap::new();
    for (k, v) in url::form_urlencoded::parse(raw.as_bytes()) {
        // A field given twice could be read one way here and another there.
        if out.insert(k.into_owned(), v.into_owned()).is_some() {
            return Err(AuthError::Malformed);
        }
    }
    Ok(out)
}

fn mac(token: &str, data_check: &str) -> HmacSha256 {
    let mut secret =
        HmacSha256::new_from_slice(b"WebAppData").expect("HMAC takes a key of any length");
    secret.update(token.as_bytes());
    let secret = secret.finalize().into_bytes();
    let mut m = HmacSha256::new_from_slice(&secret).expect("HMAC takes a key of any length");
    m.update(data_check.as_bytes());
    m
}

fn data_check_string(fields: &BTreeMap<String, String>) -> String {
    fields
        .iter()
        .filter(|(k, _)| k.as_str() != "hash")
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks `raw` init data against the bot's `token` at `now` (seconds
/// since the epoch).
pub fn verify(raw: &str, token: &str, now: u64) -> Result<InitData, AuthError> {
    let fields = fields(raw)?;
    let hash = fields.get("hash").ok_or(AuthError::BadHash)?;
    let hash = hex::decode(hash).map_err(|_| AuthError::BadHash)?;
    mac(token, &data_check_string(&fields))
        .verify_slice(&hash)
        .map_err(|_| AuthError::BadHash)?;
    let auth_date: u64 = fields
        .get("auth_date")
        .and_then(|d| d.parse().ok())
        .ok_or(AuthError::Malformed)?;
    if auth_date > now + CLOCK_SKEW || now.saturating_sub(auth_date) > MAX_AGE.as_secs() {
        return Err(AuthError::Expired);
    }
    let user: WebUser = fields
        .get("user")
        .and_then(|u| serde_json::from_str(u).ok())
        .ok_or(AuthError::NoUser)?;
    Ok(InitData {
        user,
        auth_date,
        start_param: fields.get("start_param").cloned(),
    })
}

/// Init data for `fields` signed with `token`, as Telegram makes it: for
/// tests and the load test, which play the part of Telegram's clients.
pub fn sign(fields: &[(&str, &str)], token: &str) -> String {
    let map: BTreeMap<String, String> = fields
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let hash = hex::encode(mac(token, &data_check_string(&map)).finalize().into_bytes());
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in fields {
        out.append_pair(k, v);
    }
    out.append_pair("hash", &hash);
    out.finish()
}

/// Init data for `user` signed at `auth_date` (seconds since the epoch).
pub fn sign_user(
    user_id: u64,
    first_name: &str,
    lang: &str,
    auth_date: u64,
    token: &str,
) -> String {
    let user = serde_json::json!({
        "id": user_id,
        "first_name": first_name,
        "language_code": lang,
    })
    .to_string();
    let date = auth_date.to_string();
    sign(
        &[
            ("query_id", "AAHdF6IQAAAAAN0XohDhrOrc"),
            ("user", &user),
            ("auth_date", &date),
        ],
        token,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "123456789:AAE-abcdefghijklmnopqrstuvwxyz_012";
    const NOW: u64 = 1_800_000_000;

    /// The data-check-string and hash computed by hand from Telegram's
    /// description, independently of [`sign`].
    fn by_hand(fields: &[(&str, &str)]) -> String {
        let mut sorted: Vec<_> = fields.to_vec();
        sorted.sort();
        let check = sorted
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut k = HmacSha256::new_from_slice(b"WebAppData").unwrap();
        k.update(TOKEN.as_bytes());
        let secret = k.finalize().into_bytes();
        let mut m = HmacSha256::new_from_slice(&secret).unwrap();
        m.update(check.as_bytes());
        let hash = hex::encode(m.finalize().into_bytes());
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in fields {
            q.append_pair(k, v);
        }
        q.append_pair("hash", &hash);
        q.finish()
    }

    const USER: &str = r#"{"id":42,"first_name":"Ann","last_name":"Lee","language_code":"ru"}"#;

    #[test]
    fn a_signed_example_is_accepted() {
        let date = (NOW - 60).to_string();
        let raw = by_hand(&[
            ("query_id", "AAH"),
            ("user", USER),
            ("auth_date", &date),
            ("start_param", "17"),
        ]);
        let d = verify(&raw, TOKEN, NOW).unwrap();
        assert_eq!(d.user.id, 42);
        assert_eq!(d.user.full_name(), "Ann Lee");
        assert_eq!(d.user.language_code.as_deref(), Some("ru"));
        assert_eq!(d.start_param.as_deref(), Some("17"));
        // `sign` makes the same as the hand-made one.
        assert_eq!(
            verify(&sign_user(7, "Bo", "en", NOW, TOKEN), TOKEN, NOW).map(|d| d.user.id),
            Ok(7)
        );
    }

    #[test]
    fn forged_old_tampered_and_missing_data_are_refused() {
        let date = (NOW - 60).to_string();
        let good = by_hand(&[("user", USER), ("auth_date", &date)]);
        // Another bot's token signed it.
        let other = "987654321:AAE-abcdefghijklmnopqrstuvwxyz_999";
        assert_eq!(verify(&good, other, NOW), Err(AuthError::BadHash));
        // A forged hash.
        let forged = format!("{}{}", &good[..good.len() - 4], "0000");
        assert_eq!(verify(&forged, TOKEN, NOW), Err(AuthError::BadHash));
        assert_eq!(
            verify(&good.replace("hash=", "hash=zz"), TOKEN, NOW),
            Err(AuthError::BadHash)
        );
        // A tampered field: another user id with the old hash.
        let tampered = good.replace("%22id%22%3A42", "%22id%22%3A43");
        assert_ne!(tampered, good);
        assert_eq!(verify(&tampered, TOKEN, NOW), Err(AuthError::BadHash));
        // Old, and from the future.
        let old = (NOW - MAX_AGE.as_secs() - 1).to_string();
        let raw = by_hand(&[("user", USER), ("auth_date", &old)]);
        assert_eq!(verify(&raw, TOKEN, NOW), Err(AuthError::Expired));
        let future = (NOW + 3600).to_string();
        let raw = by_hand(&[("user", USER), ("auth_date", &future)]);
        assert_eq!(verify(&raw, TOKEN, NOW), Err(AuthError::Expired));
        // Signed, but without a user or a date; a field twice; nothing.
        let raw = by_hand(&[("auth_date", &date)]);
        assert_eq!(verify(&raw, TOKEN, NOW), Err(AuthError::NoUser));
        let raw = by_hand(&[("user", USER)]);
        assert_eq!(verify(&raw, TOKEN, NOW), Err(AuthError::Malformed));
        let twice = format!("{good}&user=x");
        assert_eq!(verify(&twice, TOKEN, NOW), Err(AuthError::Malformed));
        assert_eq!(verify("", TOKEN, NOW), Err(AuthError::Missing));
        assert_eq!(verify("hash", TOKEN, NOW), Err(AuthError::BadHash));
    }
}
