//! Telegram's HTML parse mode, as strictly as the fake needs: the tags the
//! Bot API documents, the four named entities plus numeric ones, and an
//! error for anything else. The result is the plain text and its entities,
//! which is what Telegram stores and compares ("message is not modified").

use serde::Serialize;

/// One formatting entity; offsets and lengths count UTF-16 code units, as in the Bot API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entity {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub offset: usize,
    pub length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_emoji_id: Option<String>,
}

/// Text with its entities, after parsing.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Parsed {
    pub text: String,
    pub entities: Vec<Entity>,
}

/// The number of UTF-16 code units in `s`: how Telegram measures text.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

struct Open {
    tag: String,
    kind: &'static str,
    start: usize,
    url: Option<String>,
    language: Option<String>,
    emoji: Option<String>,
}

/// Parses Telegram HTML. Errors carry the Bot API's description text after
/// `Bad Request: can't parse entities: `.
pub fn parse(src: &str) -> Result<Parsed, String> {
    let mut out = Parsed::default();
    let mut utf16 = 0usize;
    let mut stack: Vec<Open> = Vec::new();
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => {
                let end = src[i..]
                    .find('>')
                    .map(|e| i + e)
                    .ok_or_else(|| format!("Unclosed start tag at byte offset {i}"))?;
                let inner = &src[i + 1..end];
                if let Some(name) = inner.strip_prefix('/') {
                    let name = name.trim().to_ascii_lowercase();
                    let open = stack
                        .pop()
                        .ok_or_else(|| format!("Unexpected end tag at byte offset {i}"))?;
                    if open.tag != name {
                        return Err(format!(
                            "Unmatched end tag at byte offset {i}, expected \"</{}>\", found \"</{name}>\"",
                            open.tag
                        ));
                    }
                    let length = utf16 - open.start;
                    if length > 0 {
                        out.entities.push(Entity {
                            kind: open.kind,
                            offset: open.start,
                            length,
                            url: open.url,
                            language: open.language,
                            custom_emoji_id: open.emoji,
                        });
                    }
                } else {
                    stack.push(start_tag(inner, i, utf16, &stack)?);
                }
                i = end + 1;
            }
            b'&' => {
                let end = src[i..]
                    .find(';')
                    .filter(|&e| e <= 10)
                    .map(|e| i + e)
                    .ok_or_else(|| format!("Unescaped '&' at byte offset {i}"))?;
                let c = entity(&src[i + 1..end])
                    .ok_or_else(|| format!("Unsupported HTML entity at byte offset {i}"))?;
                out.text.push(c);
                utf16 += c.len_utf16();
                i = end + 1;
            }
            _ => {
                // Copy up to the next markup character in one go.
                let next = src[i..].find(['<', '&']).map_or(src.len(), |n| i + n);
                let chunk = &src[i..next];
                out.text.push_str(chunk);
                utf16 += utf16_len(chunk);
                i = next;
            }
        }
    }
    if let Some(open) = stack.pop() {
        return Err(format!(
            "Can't find end tag corresponding to start tag \"{}\"",
            open.tag
        ));
    }
    // Telegram lists entities by offset; nested ones keep the outer first.
    out.entities
        .sort_by(|a, b| a.offset.cmp(&b.offset).then(b.length.cmp(&a.length)));
    Ok(out)
}

fn entity(name: &str) -> Option<char> {
    match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        _ => {
            let num = name.strip_prefix('#')?;
            let code = match num.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse().ok()?,
            };
            char::from_u32(code).filter(|&c| c != '\0')
        }
    }
}

fn start_tag(inner: &str, at: usize, utf16: usize, stack: &[Open]) -> Result<Open, String> {
    let inner = inner.trim_end_matches('/').trim();
    let (name, attrs) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
    let tag = name.to_ascii_lowercase();
    let attrs = parse_attrs(attrs).ok_or_else(|| format!("Bad attribute at byte offset {at}"))?;
    let attr = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let mut open = Open {
        tag: tag.clone(),
        kind: "",
        start: utf16,
        url: None,
        language: None,
        emoji: None,
    };
    open.kind = match tag.as_str() {
        "b" | "strong" => "bold",
        "i" | "em" => "italic",
        "u" | "ins" => "underline",
        "s" | "strike" | "del" => "strikethrough",
        "tg-spoiler" => "spoiler",
        "span" if attr("class").as_deref() == Some("tg-spoiler") => "spoiler",
        "a" => {
            open.url = Some(attr("href").ok_or_else(|| {
                format!("Can't find href attribute of tag \"a\" at byte offset {at}")
            })?);
            "text_link"
        }
        "code" => {
            // `<pre><code class="language-x">` sets the language of the pre block.
            if stack.last().is_some_and(|o| o.tag == "pre") {
                open.language =
                    attr("class").and_then(|c| c.strip_prefix("language-").map(str::to_owned));
            }
            "code"
        }
        "pre" => "pre",
        "blockquote" if attrs.iter().any(|(n, _)| n == "expandable") => "expandable_blockquote",
        "blockquote" => "blockquote",
        "tg-emoji" => {
            open.emoji = Some(attr("emoji-id").ok_or_else(|| {
                format!("Can't find emoji-id attribute of tag \"tg-emoji\" at byte offset {at}")
            })?);
            "custom_emoji"
        }
        _ => {
            return Err(format!(
                "Unsupported start tag \"{tag}\" at byte offset {at}"
            ));
        }
    };
    Ok(open)
}

/// `name="value" name='value' name=value name` → pairs; `None` on junk.
fn parse_attrs(mut s: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    loop {
        s = s.trim_start();
        if s.is_empty() {
            return Some(out);
        }
        let name_end = s
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(s.len());
        let name = s[..name_end].to_ascii_lowercase();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return None;
        }
        s = s[name_end..].trim_start();
        let Some(rest) = s.strip_prefix('=') else {
            out.push((name, String::new()));
            continue;
        };
        let rest = rest.trim_start();
        let (value, after) = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let close = rest[1..].find(q)? + 1;
                (&rest[1..close], &rest[close + 1..])
            }
            _ => {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                (&rest[..end], &rest[end..])
            }
        };
        out.push((name, unescape(value)?));
        s = after;
    }
}

fn unescape(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let end = rest[amp..].find(';')? + amp;
        out.push(entity(&rest[amp + 1..end])?);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str, text: &str, entities: &[(&str, usize, usize)]) {
        let p = parse(src).unwrap_or_else(|e| panic!("{src:?}: {e}"));
        assert_eq!(p.text, text);
        let got: Vec<_> = p
            .entities
            .iter()
            .map(|e| (e.kind, e.offset, e.length))
            .collect();
        assert_eq!(got, entities, "{src:?}");
    }

    #[test]
    fn parses_tags_and_entities() {
        check("plain", "plain", &[]);
        check("<b>Kozel</b> · 10♠", "Kozel · 10♠", &[("bold", 0, 5)]);
        check("a &lt;b&gt; &amp; &quot;&#33;&#x41;", "a <b> & \"!A", &[]);
        check(
            "<b>x<i>y</i></b>",
            "xy",
            &[("bold", 0, 2), ("italic", 1, 1)],
        );
        check("🂠<u>z</u>", "🂠z", &[("underline", 2, 1)]);
        check(
            "<a href=\"https://t.me/x?start=a&amp;b\">go</a>",
            "go",
            &[("text_link", 0, 2)],
        );
        check(
            "<span class=\"tg-spoiler\">s</span>",
            "s",
            &[("spoiler", 0, 1)],
        );
        check("<b></b>x", "x", &[]);
    }

    #[test]
    fn rejects_what_telegram_rejects() {
        for bad in [
            "<b>open",
            "</b>",
            "<b><i>x</b></i>",
            "<script>x</script>",
            "<span>x</span>",
            "a < b",
            "a & b",
            "&nbsp;",
            "<a>x</a>",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} parsed");
        }
    }
}
