//! Screens as Discord messages: rich text as Discord markdown
//! ([`Rich::markdown`](kozyr_front::rich::Rich::markdown)), buttons as
//! message components whose `custom_id` is the encoded
//! [`Press`], and a hand's card buttons as one
//! string select.
//!
//! Discord's limits are kept here, so no screen can be refused: at most 5
//! rows of at most 5 buttons, a select alone in its row with at most 25
//! options, `custom_id`s of 1–100 characters unique in the message, labels
//! of at most 80 characters, content of at most 2,000 characters.

use twilight_model::channel::message::Component;
use twilight_model::channel::message::component::{
    ActionRow, Button, ButtonStyle, SelectMenu, SelectMenuOption, SelectMenuType,
};

use kozyr_cards::{Card, CardSet};
use kozyr_front::action::{Press, TableAction};
use kozyr_front::screen::CardFace;
use kozyr_front::{ButtonTarget, Screen};
use kozyr_table::TableId;

pub const MAX_ROWS: usize = 5;
pub const MAX_BUTTONS_PER_ROW: usize = 5;
pub const MAX_OPTIONS: usize = 25;
pub const MAX_CONTENT: usize = 2000;
pub const MAX_LABEL: usize = 80;

/// The `custom_id` of the table message's "My hand" button (Discord only:
/// Telegram shows hands in the private chat without asking).
pub fn my_hand_id(table: TableId) -> String {
    format!("hand:{}", table.0)
}

/// The table of a "My hand" button's `custom_id`.
pub fn parse_my_hand(custom_id: &str) -> Option<TableId> {
    let n = custom_id.strip_prefix("hand:")?;
    // Canonical digits only: what [`my_hand_id`] writes.
    if n.is_empty() || n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok().map(TableId)
}

/// The `custom_id` of a hand's card menu; its values are the encoded
/// presses of the card buttons it replaces.
pub const CARD_MENU_ID: &str = "cards";

/// Cuts `text` to Discord's content limit, on a character boundary.
pub fn clip(text: String) -> String {
    if text.chars().count() <= MAX_CONTENT {
        return text;
    }
    let mut t: String = text.chars().take(MAX_CONTENT - 1).collect();
    t.push('…');
    t
}

fn label(l: &str) -> String {
    let l = l.trim();
    let l = if l.is_empty() { "·" } else { l };
    l.chars().take(MAX_LABEL).collect()
}

fn button(label_text: &str, custom_id: String, style: ButtonStyle) -> Component {
    Component::Button(Button {
        custom_id: Some(custom_id),
        disabled: false,
        emoji: None,
        id: None,
        label: Some(label(label_text)),
        sku_id: None,
        style,
        url: None,
    })
}

fn row(components: Vec<Component>) -> Component {
    Component::ActionRow(ActionRow {
        components,
        id: None,
    })
}

/// A message as Discord takes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub content: String,
    pub components: Vec<Component>,
}

/// Lays buttons out in rows within Discord's limits: a row longer than 5
/// is split, rows past `max_rows` and repeated `custom_id`s are dropped.
fn button_rows(
    rows: Vec<Vec<(String, String)>>,
    max_rows: usize,
    seen: &mut Vec<String>,
) -> Vec<Component> {
    let mut out = Vec::new();
    for r in rows {
        let r: Vec<(String, String)> = r
            .into_iter()
            .filter(|(_, id)| {
                let fresh = !id.is_empty() && id.len() <= 100 && !seen.contains(id);
                if fresh {
                    seen.push(id.clone());
                }
                fresh
            })
            .collect();
        for chunk in r.chunks(MAX_BUTTONS_PER_ROW) {
            if out.len() >= max_rows {
                tracing::warn!(
                    "a screen has more buttons than a Discord message holds; some left out"
                );
                return out;
            }
            out.push(row(chunk
                .iter()
                .map(|(l, id)| button(l, id.clone(), ButtonStyle::Secondary))
                .collect()));
        }
    }
    out
}

/// The presses of a screen's buttons by row, with the card each shows
/// (onboarding links need a private chat Discord does not have: left out).
fn pressed_rows(screen: &Screen) -> Vec<Vec<(String, Press, Option<CardFace>)>> {
    screen
        .keyboard
        .rows
        .iter()
        .map(|r| {
            r.iter()
                .filter_map(|b| match b.target {
                    ButtonTarget::Press(p) => Some((b.label.clone(), p, b.card)),
                    // Onboarding links and the Telegram Mini App have no
                    // Discord counterpart.
                    ButtonTarget::Onboard { .. }
                    | ButtonTarget::LiveView { .. }
                    | ButtonTarget::LiveLink { .. } => None,
                })
                .collect::<Vec<_>>()
        })
        .filter(|r| !r.is_empty())
        .collect()
}

/// A public message: the screen's text and buttons, then `extra` lines
/// (raw markdown: mentions), then extra buttons (the "My hand" button).
pub fn public(
    screen: &Screen,
    extra: Option<&str>,
    extra_button: Option<(&str, String)>,
) -> Message {
    let mut content = screen.rich().markdown();
    if let Some(e) = extra {
        content.push_str("\n\n");
        content.push_str(e);
    }
    let mut rows: Vec<Vec<(String, String)>> = pressed_rows(screen)
        .into_iter()
        .map(|r| r.into_iter().map(|(l, p, _)| (l, p.encode())).collect())
        .collect();
    let mut seen = Vec::new();
    let mut max_rows = MAX_ROWS;
    let mut last = Vec::new();
    if let Some((l, id)) = extra_button {
        // The hand button always has its row, whatever else is left out.
        max_rows -= 1;
        seen.push(id.clone());
        last.push(row(vec![button(l, id, ButtonStyle::Primary)]));
    }
    rows.retain(|r| !r.is_empty());
    let mut components = button_rows(rows, max_rows, &mut seen);
    components.extend(last);
    Message {
        content: clip(content),
        components,
    }
}

/// The card a press is about (selecting it or playing it).
fn card_of(p: &Press) -> Option<Card> {
    match p {
        Press::Table { action, .. } => action.card(),
        Press::Chat { .. } => None,
    }
}

/// A hand: the card buttons become one string select (`bounds`: how many
/// cards the move takes; the menu opens with the selected cards ticked),
/// the other buttons stay buttons.
pub fn hand(screen: &Screen, bounds: Option<(usize, usize)>, placeholder: &str) -> Message {
    let rows = pressed_rows(screen);
    // A card's first button goes into the menu; a second button naming the
    // same card (a "Play" button for the one card selected) is an action
    // and stays a button.
    let mut in_menu = CardSet::EMPTY;
    let mut cards: Vec<(String, Press, bool)> = Vec::new();
    let mut others: Vec<Vec<(String, String)>> = Vec::new();
    for r in rows {
        let mut kept = Vec::new();
        for (l, p, face) in r {
            match card_of(&p) {
                Some(c) if !in_menu.contains(c) && cards.len() < MAX_OPTIONS => {
                    in_menu.insert(c);
                    cards.push((l, p, face.is_some_and(|f| f.selected)));
                }
                _ => kept.push((l, p.encode())),
            }
        }
        if !kept.is_empty() {
            others.push(kept);
        }
    }
    let mut components = Vec::new();
    if !cards.is_empty() {
        let n = cards.len();
        // Toggles pick a set for the move (its size); a card that plays
        // at once is picked alone.
        let toggles = cards.iter().all(|(_, p, _)| {
            matches!(
                p,
                Press::Table {
                    action: TableAction::Toggle(_),
                    ..
                }
            )
        });
        let (min, max) = if toggles {
            bounds.map_or((0, n), |(lo, hi)| (lo.min(n), hi.min(n)))
        } else {
            (1, 1)
        };
        let options = cards
            .iter()
            .map(|(l, p, selected)| SelectMenuOption {
                default: toggles && *selected,
                description: None,
                emoji: None,
                label: label(l),
                value: p.encode(),
            })
            .collect();
        components.push(row(vec![Component::SelectMenu(SelectMenu {
            channel_types: None,
            custom_id: CARD_MENU_ID.to_owned(),
            default_values: None,
            disabled: false,
            id: None,
            kind: SelectMenuType::Text,
            max_values: Some(max.max(1) as u8),
            min_values: Some(min as u8),
            options: Some(options),
            placeholder: Some(label(placeholder)),
            required: None,
        })]));
    }
    let mut seen = vec![CARD_MENU_ID.to_owned()];
    let left = MAX_ROWS - components.len();
    components.extend(button_rows(others, left, &mut seen));
    Message {
        content: clip(screen.rich().markdown()),
        components,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kozyr_front::{Button, Keyboard};

    fn press(action: TableAction) -> Press {
        Press::Table {
            table: TableId(7),
            version: 3,
            action,
        }
    }

    fn count_buttons(c: &[Component]) -> Vec<usize> {
        c.iter()
            .map(|r| match r {
                Component::ActionRow(a) => a.components.len(),
                _ => panic!("top level must be rows"),
            })
            .collect()
    }

    #[test]
    fn long_rows_split_and_the_hand_button_keeps_its_row() {
        let row: Vec<Button> = (0..4u8)
            .map(|s| {
                Button::press(
                    format!("Seat {s}"),
                    press(TableAction::TakeSeat(kozyr_cards::Seat::new(s).unwrap())),
                )
            })
            .chain([
                Button::press("Join", press(TableAction::Join)),
                Button::press("Leave", press(TableAction::Leave)),
                Button::press("Join again", press(TableAction::Join)),
            ])
            .collect();
        let screen = Screen {
            text: "<b>Lobby</b>".into(),
            keyboard: Keyboard::new(vec![row.clone(), row.clone(), row.clone(), row]),
        };
        let m = public(
            &screen,
            Some("<@5>"),
            Some(("My hand", my_hand_id(TableId(7)))),
        );
        // 6 distinct buttons (the repeated custom ids are dropped): 5 + 1, then the hand row.
        assert_eq!(count_buttons(&m.components), vec![5, 1, 1]);
        assert_eq!(m.content, "**Lobby**\n\n<@5>");
    }

    #[test]
    fn card_buttons_become_one_select_with_the_move_bounds() {
        let cards: Vec<Button> = ["AS", "KS", "TS"]
            .iter()
            .map(|c| {
                let card = c.parse().unwrap();
                let face = CardFace {
                    selected: *c == "KS",
                    ..CardFace::of(card)
                };
                Button::card(face, press(TableAction::Toggle(card)))
            })
            .collect();
        let screen = Screen {
            text: "hand".into(),
            keyboard: Keyboard::new(vec![
                cards,
                vec![Button::press("Clear", press(TableAction::Clear))],
            ]),
        };
        let m = hand(&screen, Some((1, 4)), "Choose");
        let Component::ActionRow(r) = &m.components[0] else {
            panic!()
        };
        let Component::SelectMenu(s) = &r.components[0] else {
            panic!()
        };
        assert_eq!((s.min_values, s.max_values), (Some(1), Some(3)));
        let opts = s.options.as_ref().unwrap();
        assert_eq!(opts.len(), 3);
        assert!(opts[1].default && !opts[0].default);
        assert_eq!(count_buttons(&m.components), vec![1, 1]);
    }

    #[test]
    fn my_hand_ids_are_canonical() {
        assert_eq!(parse_my_hand(&my_hand_id(TableId(12))), Some(TableId(12)));
        for bad in [
            "hand:",
            "hand:012",
            "hand:1x",
            "hand:-1",
            "hnd:1",
            "hand:99999999999999999999999",
        ] {
            assert_eq!(parse_my_hand(bad), None, "{bad}");
        }
    }
}
