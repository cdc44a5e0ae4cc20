//! How the front-end's replies to one input are answered on a platform
//! that answers each interaction once and says anything more as
//! follow-ups (Discord): which reply is the answer, which follow it, who
//! sees each, and what goes to the outbox. Pure: the shell makes the calls
//! in the order given, with its own markup.

use std::time::Duration;

use kozyr_front::Reply;
use kozyr_front::screen::Screen;
use kozyr_table::{HandView, Output, TableView, UserId};

/// The time an interaction's first answer has, from the press: Discord
/// takes it within 3 s and tells the person "This interaction failed"
/// after. Past it a callback is refused anyway, so none waits longer.
pub const ANSWER_WINDOW: Duration = Duration::from_secs(3);

/// An answer over the HTTP endpoint is the response to Discord's request,
/// which goes by this time (or an error does).
pub const HTTP_ANSWER_WITHIN: Duration = Duration::from_millis(2_900);

/// Past this age an interaction is not handled at all (one that waited in
/// the inbox): its person has been told it failed. Half a second less
/// than the window leaves room for the answer to travel.
pub const HANDLED_WITHIN: Duration = Duration::from_millis(2_500);

/// A failed first answer (a 5xx, a connection reset) is tried again until
/// this long after the press: people would see "This interaction failed"
/// for a move that counted.
pub const ANSWER_RETRY_UNTIL: Duration = Duration::from_millis(2_400);

/// Who sees a message sent in answer to an interaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Everyone in the channel.
    Chat,
    /// Only whoever sent the interaction (an ephemeral message).
    Sender,
}

/// Something said in answer, in the order the front-end said it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    /// For the channel ([`Reply::Say`]).
    Chat(Screen),
    /// For the sender alone ([`Reply::Tell`]).
    Sender(Screen),
    /// A short note for the sender alone ([`Reply::Popup`]).
    Note(String),
}

impl Said {
    pub fn seen(&self) -> Seen {
        match self {
            Said::Chat(_) => Seen::Chat,
            Said::Sender(_) | Said::Note(_) => Seen::Sender,
        }
    }
}

/// One input's replies, sorted by where each goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sorted {
    /// For the outbox, in order: screens drawn again.
    pub outputs: Vec<Output>,
    /// Tables to post anew at the bottom of their chat, after what is said.
    pub bring: Vec<TableView>,
    /// What is said, in order.
    pub said: Vec<Said>,
    /// The pressed menu did its job: `Some(None)` keeps its text, and
    /// `Some(Some(screen))` shows `screen` instead; either way without
    /// buttons.
    pub closed_menu: Option<Option<Screen>>,
    /// The note for a person who took a seat.
    pub seated: Option<Screen>,
    /// The pressing person's own hand drawn again, when the press came
    /// from it: the answer updates the pressed message itself.
    pub own_hand: Option<Box<HandView>>,
}

impl Sorted {
    /// Sorts `replies`; a hand of `hand_of` drawn again is the answer's
    /// (the press came from that hand), not the outbox's.
    pub fn of(replies: Vec<Reply>, hand_of: Option<&UserId>) -> Sorted {
        let mut s = Sorted::default();
        for r in replies {
            match r {
                Reply::Render(Output::RenderHand(h)) if Some(&h.player.id) == hand_of => {
                    s.own_hand = Some(h);
                }
                Reply::Render(o) => s.outputs.push(o),
                Reply::BringTable(v) => s.bring.push(*v),
                Reply::Say(screen) => s.said.push(Said::Chat(screen)),
                Reply::Tell(screen) => s.said.push(Said::Sender(screen)),
                Reply::Popup(text) => s.said.push(Said::Note(text)),
                Reply::CloseMenu => s.closed_menu = Some(None),
                Reply::ReplaceMenu(screen) => s.closed_menu = Some(Some(screen)),
                Reply::Seated { text, .. } => s.seated = Some(text),
                // Discord's engine strips a table's older messages itself
                // and finds the posts a kill kept from the store at a
                // start; an ephemeral hand is redrawn by the answer.
                Reply::Outdated(_) => {}
            }
        }
        s
    }
}

/// The one answer a press gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PressFirst<M> {
    /// The pressed message becomes `M` (a hand after the move, a closed
    /// menu): the answer updates it, or, once deferred, edits it.
    Update(M),
    /// A new message only the sender sees.
    Note(M),
    /// Nothing to show: the press is acknowledged (a deferred update; once
    /// deferred, nothing more).
    Quiet,
}

/// How a press is answered: first, then the follow-ups in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PressAnswer<M> {
    pub first: PressFirst<M>,
    pub follow_ups: Vec<(M, Seen)>,
}

impl<M> PressAnswer<M> {
    /// Whether the interaction's original response is the pressed message
    /// (an update of it, or an acknowledgement), rather than a new note.
    pub fn original_is_pressed(&self) -> bool {
        !matches!(self.first, PressFirst::Note(_))
    }
}

/// How a press is answered. `update`: what the pressed message shows now,
/// if it changes; `notes`: what only the sender is told, in order;
/// `seated`: the note for taking a seat; `says`: what the channel is told.
/// `late`: the press was deferred (as an update of the pressed message), so
/// only an edit of that message remains of the answer, and every note is
/// a follow-up.
pub fn press_answer<M>(
    update: Option<M>,
    notes: Vec<M>,
    seated: Option<M>,
    says: Vec<M>,
    late: bool,
) -> PressAnswer<M> {
    let mut notes = notes.into_iter();
    let mut seated = seated;
    let first = match update {
        Some(m) => PressFirst::Update(m),
        None if late => PressFirst::Quiet,
        None => match notes.next().or_else(|| seated.take()) {
            Some(m) => PressFirst::Note(m),
            None => PressFirst::Quiet,
        },
    };
    let follow_ups = notes
        .chain(seated)
        .map(|m| (m, Seen::Sender))
        .chain(says.into_iter().map(|m| (m, Seen::Chat)))
        .collect();
    PressAnswer { first, follow_ups }
}

/// One call in answering a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandStep<M> {
    /// The interaction's answer (once deferred: an edit of the deferred
    /// answer, which keeps who sees it).
    Answer(M, Seen),
    /// The deferred "thinking…" answer goes: it is seen by others than
    /// the answer is for.
    DeleteDeferred,
    /// A message of its own after the answer.
    FollowUp(M, Seen),
}

/// How a command is answered: `said` in order (the first is the answer,
/// the rest follow); with nothing said, `acknowledgement` for the sender
/// alone. `deferred`: who saw the deferred answer, if the command was
/// deferred (`late`); when that is not who the answer is for, the deferred
/// answer is deleted and the answer follows as a message of its own.
pub fn command_answer<M>(
    said: Vec<(M, Seen)>,
    acknowledgement: M,
    deferred: Option<Seen>,
) -> Vec<CommandStep<M>> {
    let mut said = said.into_iter();
    let (first, acknowledged) = match said.next() {
        Some(first) => (first, false),
        None => ((acknowledgement, Seen::Sender), true),
    };
    let mut steps = Vec::new();
    match deferred {
        Some(seen) if seen != first.1 => {
            steps.push(CommandStep::DeleteDeferred);
            if !acknowledged {
                steps.push(CommandStep::FollowUp(first.0, first.1));
            }
        }
        _ => steps.push(CommandStep::Answer(first.0, first.1)),
    }
    steps.extend(said.map(|(m, seen)| CommandStep::FollowUp(m, seen)));
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    use CommandStep::{Answer, DeleteDeferred, FollowUp};
    use Seen::{Chat, Sender};

    /// Every press gets exactly one answer, and each note, seat note and
    /// saying goes exactly once: the cases as data.
    #[test]
    fn a_press_is_answered_once_and_every_note_goes_once() {
        let s = |v: &[&'static str]| v.to_vec();
        #[allow(clippy::type_complexity)]
        let cases: &[(
            Option<&str>,
            Vec<&str>,
            Option<&str>,
            Vec<&str>,
            bool,
            PressFirst<&str>,
            Vec<(&str, Seen)>,
        )] = &[
            // A move from the hand: the hand is the answer.
            (
                Some("hand"),
                s(&[]),
                None,
                s(&[]),
                false,
                PressFirst::Update("hand"),
                vec![],
            ),
            // A refusal with no change: the note is the answer.
            (
                None,
                s(&["stale"]),
                None,
                s(&[]),
                false,
                PressFirst::Note("stale"),
                vec![],
            ),
            // Nothing changes and nothing to say: acknowledged.
            (None, s(&[]), None, s(&[]), false, PressFirst::Quiet, vec![]),
            // Taking a seat from the table message: the seat note answers.
            (
                None,
                s(&[]),
                Some("seated"),
                s(&[]),
                false,
                PressFirst::Note("seated"),
                vec![],
            ),
            // A closed menu with a note and a saying: the menu is updated,
            // the rest follows, the sender's first.
            (
                Some("menu"),
                s(&["n1", "n2"]),
                Some("seated"),
                s(&["said"]),
                false,
                PressFirst::Update("menu"),
                vec![
                    ("n1", Sender),
                    ("n2", Sender),
                    ("seated", Sender),
                    ("said", Chat),
                ],
            ),
            // A refusal and a seat note: neither is lost.
            (
                None,
                s(&["note"]),
                Some("seated"),
                s(&[]),
                false,
                PressFirst::Note("note"),
                vec![("seated", Sender)],
            ),
            // Deferred: only the pressed message's edit remains; every note
            // follows.
            (
                Some("hand"),
                s(&["note"]),
                None,
                s(&[]),
                true,
                PressFirst::Update("hand"),
                vec![("note", Sender)],
            ),
            (
                None,
                s(&["note"]),
                Some("seated"),
                s(&[]),
                true,
                PressFirst::Quiet,
                vec![("note", Sender), ("seated", Sender)],
            ),
        ];
        for (update, notes, seated, says, late, first, follow_ups) in cases {
            let a = press_answer(*update, notes.clone(), *seated, says.clone(), *late);
            let case = format!("{update:?} {notes:?} {seated:?} {says:?} late {late}");
            assert_eq!(&a.first, first, "{case}");
            assert_eq!(&a.follow_ups, follow_ups, "{case}");
            assert_eq!(
                a.original_is_pressed(),
                !matches!(first, PressFirst::Note(_)),
                "{case}"
            );
        }
    }

    #[test]
    fn a_command_is_answered_for_whom_it_concerns() {
        let ack = "✅";
        // Said in the channel, on time: the answer, then the rest.
        assert_eq!(
            command_answer(vec![("table", Chat), ("tip", Sender)], ack, None),
            vec![Answer("table", Chat), FollowUp("tip", Sender)]
        );
        // Nothing said: a quiet acknowledgement for the sender.
        assert_eq!(command_answer(vec![], ack, None), vec![Answer(ack, Sender)]);
        // Deferred privately and answered privately: the deferred answer
        // becomes it.
        assert_eq!(
            command_answer(vec![("refused", Sender)], ack, Some(Sender)),
            vec![Answer("refused", Sender)]
        );
        // Deferred in public, but the answer is the sender's alone: the
        // public "thinking…" goes, and the answer follows privately.
        assert_eq!(
            command_answer(vec![("refused", Sender), ("x", Chat)], ack, Some(Chat)),
            vec![
                DeleteDeferred,
                FollowUp("refused", Sender),
                FollowUp("x", Chat)
            ]
        );
        // Deferred in public with nothing said: the note goes, and no
        // acknowledgement is posted after it.
        assert_eq!(
            command_answer(vec![], ack, Some(Chat)),
            vec![DeleteDeferred]
        );
        // Deferred privately, answered in public: the private note goes.
        assert_eq!(
            command_answer(vec![("scores", Chat)], ack, Some(Sender)),
            vec![DeleteDeferred, FollowUp("scores", Chat)]
        );
    }

    #[test]
    fn a_hand_drawn_again_for_its_presser_is_the_answers() {
        use kozyr_front::screen::Screen;
        let note = Reply::Popup("no".into());
        let say = Reply::Say(Screen::text("hi".to_owned()));
        let s = Sorted::of(vec![note, say, Reply::CloseMenu], None);
        assert_eq!(
            s.said,
            vec![
                Said::Note("no".into()),
                Said::Chat(Screen::text("hi".to_owned()))
            ]
        );
        assert_eq!(s.closed_menu, Some(None));
        assert!(s.own_hand.is_none() && s.outputs.is_empty());
    }
}
