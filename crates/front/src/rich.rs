//! A small rich-text model: runs of text, each bold, italic or monospace
//! (or a mix). Presenters write kozyr markup — `<b>`, `<i>`, `<code>` and
//! the four escapes `&lt; &gt; &amp; &quot;` (everything a person typed is
//! escaped by [`kozyr_i18n::tr_html`]) — and [`Rich::from_markup`] turns it
//! into [`Span`]s, so no platform ever sees another platform's markup.
//!
//! Parsing never fails: a tag kozyr does not write, or a stray `<` or `&`,
//! is kept as literal text, and an unclosed tag ends with the text.
//!
//! ```
//! use kozyr_front::rich::{Rich, Span, Style};
//! let r = Rich::from_markup("<b>Ann</b> &amp; Bob");
//! assert_eq!(r.spans(), &[
//!     Span { text: "Ann".into(), style: Style { bold: true, ..Style::PLAIN } },
//!     Span { text: " & Bob".into(), style: Style::PLAIN },
//! ]);
//! assert_eq!(r.plain(), "Ann & Bob");
//! ```

/// How a run of text looks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Style {
    pub bold: bool,
    pub italic: bool,
    pub mono: bool,
}

impl Style {
    pub const PLAIN: Style = Style {
        bold: false,
        italic: false,
        mono: false,
    };
}

/// A run of text in one style. Line breaks are `\n` inside the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    pub text: String,
    pub style: Style,
}

/// Rich text: spans in order, neighbours of the same style merged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rich {
    spans: Vec<Span>,
}

/// Which flag of a [`Style`] a tag sets.
type Flag = fn(&mut Style) -> &mut bool;

/// The tags kozyr markup has, and the style each sets.
const TAGS: [(&str, Flag); 3] = [
    ("b", |s| &mut s.bold),
    ("i", |s| &mut s.italic),
    ("code", |s| &mut s.mono),
];

const ESCAPES: [(&str, char); 4] = [
    ("&lt;", '<'),
    ("&gt;", '>'),
    ("&amp;", '&'),
    ("&quot;", '"'),
];

impl Rich {
    /// Parses kozyr markup (see the module docs).
    pub fn from_markup(markup: &str) -> Rich {
        let mut rich = Rich::default();
        let mut style = Style::PLAIN;
        let mut rest = markup;
        while let Some(c) = rest.chars().next() {
            if c == '<'
                && let Some((tag_len, tag, closing)) = tag_at(rest)
                && let Some((_, field)) = TAGS.iter().find(|(name, _)| *name == tag)
            {
                *field(&mut style) = !closing;
                rest = &rest[tag_len..];
                continue;
            }
            if c == '&'
                && let Some((entity, ch)) = ESCAPES.iter().find(|(e, _)| rest.starts_with(e))
            {
                rich.push_char(*ch, style);
                rest = &rest[entity.len()..];
                continue;
            }
            rich.push_char(c, style);
            rest = &rest[c.len_utf8()..];
        }
        rich
    }

    pub fn push(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.text.push_str(text),
            _ => self.spans.push(Span {
                text: text.to_owned(),
                style,
            }),
        }
    }

    fn push_char(&mut self, c: char, style: Style) {
        let mut buf = [0u8; 4];
        self.push(c.encode_utf8(&mut buf), style);
    }

    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// The text without styles.
    pub fn plain(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }

    /// Back to the markup [`Rich::from_markup`] reads (Telegram's HTML
    /// subset): each span's styles as `<b>`, `<i>`, `<code>`, its text
    /// escaped.
    ///
    /// ```
    /// use kozyr_front::rich::Rich;
    /// let r = Rich::from_markup("<b>Ann &amp; Bob</b> <i>lead</i> <code>10♠</code>");
    /// assert_eq!(r.html(), "<b>Ann &amp; Bob</b> <i>lead</i> <code>10♠</code>");
    /// ```
    pub fn html(&self) -> String {
        let mut out = String::new();
        for span in &self.spans {
            let s = span.style;
            let tags: Vec<&str> = [(s.bold, "b"), (s.italic, "i"), (s.mono, "code")]
                .into_iter()
                .filter_map(|(on, tag)| on.then_some(tag))
                .collect();
            for t in &tags {
                out.push_str(&format!("<{t}>"));
            }
            out.push_str(&kozyr_i18n::escape_html(&span.text));
            for t in tags.iter().rev() {
                out.push_str(&format!("</{t}>"));
            }
        }
        out
    }

    /// Discord's markdown: `**bold**`, `*italic*`, `` `code` ``,
    /// everything else escaped.
    ///
    /// ```
    /// use kozyr_front::rich::Rich;
    /// let r = Rich::from_markup("<b>Ann</b> <i>leads</i> <code>10♠</code> 2*3");
    /// assert_eq!(r.markdown(), "**Ann** *leads* `10♠` 2\\*3");
    /// ```
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for span in &self.spans {
            let s = span.style;
            // Whitespace at the edges stays outside the markers (Discord
            // does not format `** x**`).
            let trimmed = span.text.trim();
            if trimmed.is_empty() {
                out.push_str(&span.text);
                continue;
            }
            let start = span.text.len() - span.text.trim_start().len();
            let (lead, rest) = span.text.split_at(start);
            let tail = &rest[trimmed.len()..];
            out.push_str(lead);
            let body = if s.mono {
                format!("`{}`", trimmed.replace('`', "'"))
            } else {
                escape_markdown(trimmed)
            };
            let marks = match (s.bold, s.italic) {
                (true, true) => "***",
                (true, false) => "**",
                (false, true) => "*",
                (false, false) => "",
            };
            out.push_str(marks);
            out.push_str(&body);
            out.push_str(marks);
            out.push_str(tail);
        }
        out
    }
}

/// Escapes what Discord markdown would read as formatting.
fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '*' | '_' | '~' | '`' | '|' | '>' | '#' | '-' | '[' | ']' | '<' | '@' | ':'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `<name>` or `</name>` at the start of `s`: (its length, name, closing).
fn tag_at(s: &str) -> Option<(usize, &str, bool)> {
    let end = s.find('>')?;
    let inner = &s[1..end];
    let (closing, name) = match inner.strip_prefix('/') {
        Some(n) => (true, n),
        None => (false, inner),
    };
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase())).then_some((
        end + 1,
        name,
        closing,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(markup: &str) -> String {
        Rich::from_markup(markup)
            .spans()
            .iter()
            .map(|s| {
                let mut marks = String::new();
                if s.style.bold {
                    marks.push('B');
                }
                if s.style.italic {
                    marks.push('I');
                }
                if s.style.mono {
                    marks.push('M');
                }
                format!("[{marks}]{}", s.text)
            })
            .collect()
    }

    #[test]
    fn markup_becomes_spans() {
        let check = |markup: &str, expect: &str| assert_eq!(show(markup), expect, "{markup}");
        check("plain", "[]plain");
        check("<b>bold</b> then", "[B]bold[] then");
        check("<b><i>both</i></b>", "[BI]both");
        check("<code>10♠</code>", "[M]10♠");
        check("&lt;b&gt; is text", "[]<b> is text");
        check("Tom &amp; &quot;Jerry&quot;", "[]Tom & \"Jerry\"");
        // Not kozyr's: kept as typed.
        check("a < b & c", "[]a < b & c");
        check("<u>x</u>", "[]<u>x</u>");
        check("<b>unclosed", "[B]unclosed");
        check("", "");
        check("line\n<b>two</b>", "[]line\n[B]two");
    }

    #[test]
    fn escaped_text_comes_back_unchanged() {
        for text in [
            "<b>not bold</b>",
            "&amp;",
            "\"quoted\"",
            "a<b",
            "x&y",
            "ünï©ødé 🂡",
        ] {
            let r = Rich::from_markup(&kozyr_i18n::escape_html(text));
            assert_eq!(r.plain(), text);
            assert!(r.spans().iter().all(|s| s.style == Style::PLAIN));
        }
    }
}
