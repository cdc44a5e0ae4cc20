//! [`Front`]: what a chat front-end decides, for every platform.
//!
//! A shell hands it typed inputs — a [`BotCommand`] someone sent in a chat,
//! a button's data someone pressed, a person who opened the bot through an
//! onboarding link — and carries out the [`Reply`]s it returns. Everything
//! between (who may do what, card selections, the per-game mapping of
//! buttons to moves, refusal texts in the person's language) lives here.
//!
//! Button data is untrusted: it is parsed strictly ([`Press::parse`]), a
//! hand's buttons act only for the presser's own seat and only from their
//! private chat, a table's other buttons only in the table's chat, a stop
//! prompt's only for the person who asked (its buttons name them), moves
//! carry the table's version (a press from an older state is refused), and
//! each input carries its platform's de-duplication key, so a redelivered
//! update applies once.
//!
//! What concerns one person is said to them alone ([`Reply::Tell`],
//! [`Reply::Popup`]); the words about where cards are follow the chat's
//! [`HandPlace`].

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::sync::Mutex;

use super::action::{ChatAction, Press, TableAction, asker_number};
use super::games::{front_for, front_of};
use super::outputs;
use super::place::HandPlace;
use super::present::{self, SettingsInfo, lobby::END_SCORE_CHOICES};
use super::screen::Screen;
use kozyr_cards::{CardSet, Seat};
use kozyr_game::GameKind;
use kozyr_i18n::{Args, Key, Lang, key, tr, tr_html};
use kozyr_table::runtime::{Ack, DedupKey, Request, ServiceError, TableService, Target};
use kozyr_table::{
    Actor, ChatKey, Command, HandView, Output, Player, Settings, TableError, TableId, TableView,
    TurnTimer, UserId,
};

/// Every command kozyr answers, in menu order, with the key of its
/// description: the one list each platform registers (a platform may leave
/// out a command its own interface covers otherwise).
pub const COMMAND_MENU: [(&str, Key); 11] = [
    ("new", key::CMD_NEW),
    ("kozel", key::CMD_KOZEL),
    ("hearts", key::CMD_HEARTS),
    ("help", key::CMD_HELP),
    ("rules", key::CMD_RULES),
    ("score", key::CMD_SCORE),
    ("stats", key::CMD_STATS),
    ("settings", key::CMD_SETTINGS),
    ("stop", key::CMD_STOP),
    ("kick", key::CMD_KICK),
    ("lang", key::CMD_LANG),
];

/// A command as people type it, parsed once (`/new kozel`, a slash
/// command): the same set on every platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BotCommand {
    /// `/new` with a game (open a table) or without (the game menu).
    New(Option<GameKind>),
    Help,
    Rules,
    Score,
    Stats,
    Settings,
    Stop,
    /// `/kick`, with the person it points at (Telegram: the author of the
    /// message it replies to) when there is one.
    Kick(Option<UserId>),
    Lang,
    /// `/start` without a payload: the welcome.
    Start,
}

impl BotCommand {
    /// The command `name` (lowercase, without `/`) with its arguments;
    /// `None` for what is not a kozyr command. `/kick` comes back without
    /// its person, which only the shell knows.
    ///
    /// ```
    /// use kozyr_front::core::BotCommand;
    /// use kozyr_game::GameKind;
    /// assert_eq!(BotCommand::parse("new", "Hearts"), Some(BotCommand::New(Some(GameKind::Hearts))));
    /// assert_eq!(BotCommand::parse("kozel", ""), Some(BotCommand::New(Some(GameKind::Kozel))));
    /// assert_eq!(BotCommand::parse("new", "chess"), Some(BotCommand::New(None)));
    /// assert_eq!(BotCommand::parse("dance", ""), None);
    /// ```
    pub fn parse(name: &str, args: &str) -> Option<BotCommand> {
        let game = |s: &str| s.trim().to_ascii_lowercase().parse::<GameKind>().ok();
        Some(match name {
            "new" => BotCommand::New(game(args)),
            "help" => BotCommand::Help,
            "rules" => BotCommand::Rules,
            "score" => BotCommand::Score,
            "stats" => BotCommand::Stats,
            "settings" => BotCommand::Settings,
            "stop" => BotCommand::Stop,
            "kick" => BotCommand::Kick(None),
            "lang" => BotCommand::Lang,
            "start" => BotCommand::Start,
            // `/kozel`, `/hearts`: every game's name opens a table of it.
            other => BotCommand::New(Some(game(other)?)),
        })
    }
}

/// Where an input came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The chat: a group (or channel), or the person's private chat.
    pub chat: ChatKey,
    /// Whether `chat` is the private chat of the person who sent the input.
    pub private: bool,
    /// The group's name, for new tables (shown on hand messages).
    pub title: Option<String>,
}

/// What the shell must do after an input.
///
/// What concerns only the person who sent the input — a refusal, a prompt
/// only they may answer, how to use a command — is [`Reply::Tell`] (a
/// command) or [`Reply::Popup`] (a press); what the chat should see is
/// [`Reply::Say`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Post this as a new message in the chat the input came from, for
    /// everyone there.
    Say(Screen),
    /// Show this to the person who sent the input and to no one else
    /// (Telegram: a private message, or in the group saying why when the
    /// bot cannot write to them; Discord: an ephemeral message). Its
    /// buttons may be pressed where it is shown.
    Tell(Screen),
    /// Answer the press with this short text (a popup, an ephemeral note).
    Popup(String),
    /// The message whose button was pressed did its job: remove its buttons.
    CloseMenu,
    /// The menu whose button was pressed did its job: it shows this
    /// instead (what was chosen), without buttons.
    ReplaceMenu(Screen),
    /// Show this again (a selection changed, a person came back).
    Render(Output),
    /// Post the chat's table message anew at the bottom of the chat, the
    /// old one losing its buttons: someone looked for the table (its
    /// message may be deleted or far up, which no platform tells a bot).
    BringTable(Box<TableView>),
    /// The pressed message's buttons were drawn for `table` at a state gone
    /// by (or for a table that closed): none of them acts any more. A
    /// platform whose messages can keep buttons they should not have (a
    /// post a kill kept from the store) takes them off, unless the message
    /// is the table's own, which a redraw is on its way to.
    Outdated(TableId),
    /// The person took a seat: tell them privately; a shell that finds it
    /// cannot message them calls [`Front::set_unreachable`].
    Seated {
        table: TableId,
        user: UserId,
        text: Screen,
    },
}

/// What a shell knows that the front-end must ask: a person's rights.
pub trait Admins: Sync {
    /// Whether `user` administers `chat` (its platform's own notion; may
    /// ask the platform, so it is async).
    fn is_admin(&self, chat: &ChatKey, user: &UserId) -> impl Future<Output = bool> + Send;
}

/// Defaults for chats that chose nothing, parsed once from the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Defaults {
    pub lang: Lang,
    pub turn_timer: Option<TurnTimer>,
}

/// How many names the front-end remembers (for people who are not seated:
/// the creator who left, the admin who stopped a table).
const MAX_NAMES: usize = 4096;

/// The platform-neutral front-end; one per process, shared by every shell.
pub struct Front {
    service: TableService,
    defaults: Defaults,
    /// Selected cards per (person, table): UI state, lost on restart,
    /// dropped with the table.
    selections: Mutex<HashMap<(UserId, TableId), Selection>>,
    /// People the platform cannot message (they blocked the bot) since
    /// they last wrote to it.
    unreachable: Mutex<HashSet<UserId>>,
    names: Mutex<Names>,
    /// Who watches which table through a live view (the Mini App).
    live: std::sync::Arc<super::live::LiveViews>,
}

/// The cards a person selected in their hand, and the deal they belong to:
/// a new deal starts with nothing selected, even where it deals a card
/// that was selected in the last one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Selection {
    deal: u32,
    cards: CardSet,
}

impl Selection {
    /// What is selected now, in deal `deal` with `hand` in hand.
    fn current(self, deal: u32, hand: CardSet) -> CardSet {
        if self.deal == deal {
            self.cards & hand
        } else {
            CardSet::EMPTY
        }
    }
}

/// Names by user, the oldest forgotten past [`MAX_NAMES`].
#[derive(Default)]
struct Names {
    by_user: HashMap<UserId, String>,
    order: VecDeque<UserId>,
}

impl Names {
    /// Keeps `name` for `user`; past `max` people, the first remembered
    /// is forgotten first.
    fn remember(&mut self, user: &UserId, name: &str, max: usize) {
        match self.by_user.get_mut(user) {
            Some(old) if old == name => {}
            Some(old) => *old = name.to_owned(),
            None => {
                self.by_user.insert(user.clone(), name.to_owned());
                self.order.push_back(user.clone());
                while self.order.len() > max {
                    if let Some(oldest) = self.order.pop_front() {
                        self.by_user.remove(&oldest);
                    }
                }
            }
        }
    }
}

/// A std mutex whose holder panicked is still usable: every section here
/// leaves its map consistent.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn text_of(lang: Lang, k: Key) -> String {
    tr_html(lang, k, &Args::new())
}

fn say(text: String) -> Vec<Reply> {
    vec![Reply::Say(Screen::text(text))]
}

fn tell(text: String) -> Vec<Reply> {
    vec![Reply::Tell(Screen::text(text))]
}

fn popup(lang: Lang, k: Key) -> Vec<Reply> {
    vec![Reply::Popup(tr(lang, k, &Args::new()))]
}

/// A press on buttons drawn for a state of `table` gone by: refused as out
/// of date, and the pressed message's buttons act no more.
fn outdated(lang: Lang, table: TableId) -> Vec<Reply> {
    let mut replies = popup(lang, key::ERR_STALE);
    replies.push(Reply::Outdated(table));
    replies
}

/// The text for a refused command, in `lang`.
pub fn refusal(lang: Lang, e: &ServiceError) -> String {
    let k = match e {
        ServiceError::Store(_) => key::ERR_TRY_AGAIN,
        ServiceError::Rejected(e) => match e {
            TableError::Illegal(g) => return present::rule_error(lang, g),
            TableError::NoOpenTable => key::ERR_NO_TABLE,
            TableError::TableAlreadyOpen => key::ERR_TABLE_EXISTS,
            TableError::NotAllowed => key::ERR_NOT_ALLOWED,
            TableError::NotSeated | TableError::NotYourSeat | TableError::UnknownPlayer => {
                key::ERR_NOT_SEATED
            }
            TableError::AlreadySeated => key::ERR_ALREADY_SEATED,
            TableError::TableFull => key::ERR_TABLE_FULL,
            TableError::SeatTaken { .. } => key::ERR_SEAT_TAKEN,
            TableError::SeatsNotFilled => key::ERR_NEED_FOUR,
            TableError::GameInProgress => key::ERR_GAME_STARTED,
            TableError::NotYourTurn => key::ERR_NOT_YOUR_TURN,
            TableError::TableClosed
            | TableError::NotPlaying
            | TableError::NotFinished
            | TableError::SeatAway
            | TableError::NotAway
            | TableError::StaleVersion { .. } => key::ERR_STALE,
            TableError::NotAnAi { .. } | TableError::SameSeat => key::ERR_BAD_BUTTON,
            TableError::NoTimer
            | TableError::TimerNotDue
            | TableError::SameChat
            | TableError::Internal(_) => key::ERR_TRY_AGAIN,
        },
    };
    tr(lang, k, &Args::new())
}

/// What the settings message shows of `s`; `version` goes on its buttons.
fn settings_info(s: &Settings, version: u64) -> SettingsInfo {
    SettingsInfo {
        version,
        lang: s.lang,
        turn_timer: s.turn_timer.map(TurnTimer::secs),
        hearts_end_score: s.options.hearts.end_score,
        shoot_the_moon: s.options.hearts.shoot_the_moon,
        any_heart_breaks: s.options.hearts.any_heart_breaks,
    }
}

impl Front {
    pub fn new(service: TableService, defaults: Defaults) -> Front {
        Front {
            service,
            defaults,
            selections: Mutex::new(HashMap::new()),
            unreachable: Mutex::new(HashSet::new()),
            names: Mutex::new(Names::default()),
            live: super::live::LiveViews::new(),
        }
    }

    pub fn service(&self) -> &TableService {
        &self.service
    }

    /// The live views of tables (the Mini App) that the chat shells make
    /// way for.
    pub fn live(&self) -> &std::sync::Arc<super::live::LiveViews> {
        &self.live
    }

    // ------------------------------------------------------------ state

    /// What the person holding `hand` has selected: exactly what their
    /// hand message shows ticked.
    pub fn selection(&self, hand: &HandView) -> CardSet {
        let game = front_for(&hand.game);
        lock(&self.selections)
            .get(&(hand.player.id.clone(), hand.table))
            .map_or(CardSet::EMPTY, |s| {
                s.current(game.deal_no(&hand.game), game.hand_cards(&hand.game))
            })
    }

    fn set_selection(&self, hand: &HandView, cards: CardSet) {
        let key = (hand.player.id.clone(), hand.table);
        let mut s = lock(&self.selections);
        if cards.is_empty() {
            s.remove(&key);
        } else {
            let deal = front_for(&hand.game).deal_no(&hand.game);
            s.insert(key, Selection { deal, cards });
        }
    }

    fn clear_selection(&self, user: &UserId, table: TableId) {
        lock(&self.selections).remove(&(user.clone(), table));
    }

    pub fn is_unreachable(&self, user: &UserId) -> bool {
        lock(&self.unreachable).contains(user)
    }

    /// Returns whether anything changed.
    pub fn set_unreachable(&self, user: &UserId, unreachable: bool) -> bool {
        let mut u = lock(&self.unreachable);
        if unreachable {
            u.insert(user.clone())
        } else {
            u.remove(user)
        }
    }

    /// Remembers what a person is called (the shell sees it on every input).
    pub fn remember_name(&self, user: &UserId, name: &str) {
        lock(&self.names).remember(user, name, MAX_NAMES);
    }

    pub fn name_of(&self, user: &UserId) -> Option<String> {
        lock(&self.names).by_user.get(user).cloned()
    }

    // ---------------------------------------------------------- screens

    fn info(&self, view: &TableView) -> present::TableInfo {
        outputs::table_info(view, &|u| self.is_unreachable(u))
    }

    /// The table message for `view`. A closed table's card selections are
    /// forgotten here: nothing can be pressed at it any more.
    pub fn table_screen(&self, view: &TableView) -> Screen {
        if view.phase == kozyr_table::Phase::Closed {
            lock(&self.selections).retain(|(_, t), _| *t != view.id);
        }
        let screen = self.table_screen_alone(view);
        // A direct link to the Mini App, only for an app registered with
        // BotFather: a group cannot hold a `web_app` button.
        match self.live.app() {
            Some(app) if app.short_name.is_some() && view.phase == kozyr_table::Phase::Playing => {
                let label = tr(view.settings.lang, key::WEBAPP_LINK, &Args::new());
                Screen {
                    keyboard: screen
                        .keyboard
                        .append_row([super::screen::Button::live_link(label, view.id)]),
                    ..screen
                }
            }
            _ => screen,
        }
    }

    /// A person's hand message, drawn for where the table's platform shows
    /// it ([`HandPlace::of`]), with their selection, and the button that
    /// opens the Mini App at the table when it is served.
    pub fn hand_screen(&self, hand: &HandView, view: &TableView) -> Screen {
        let layout = HandPlace::of(&view.chat).into();
        let screen = outputs::hand_screen(hand, &self.info(view), self.selection(hand), layout);
        if self.live.app().is_none() || hand.phase == kozyr_table::Phase::Closed {
            return screen;
        }
        let label = tr(hand.player.lang, key::WEBAPP_OPEN, &Args::new());
        Screen {
            keyboard: screen
                .keyboard
                .append_row([super::screen::Button::live_view(label, hand.table)]),
            ..screen
        }
    }

    /// A person's hand as a screen of its own, without a way to the Mini
    /// App, its cards selected before a move (what the Mini App itself
    /// shows).
    pub fn hand_screen_alone(&self, hand: &HandView, view: &TableView) -> Screen {
        outputs::hand_screen(
            hand,
            &self.info(view),
            self.selection(hand),
            super::present::HandLayout::MiniApp,
        )
    }

    /// The table as the group sees it, without the Mini App's link (what
    /// the Mini App itself shows).
    pub fn table_screen_alone(&self, view: &TableView) -> Screen {
        let creator = self.name_of(&view.creator);
        outputs::table_screen(view, &self.info(view), creator)
    }

    /// The chat's message for an announcement, worded with `view` (the
    /// state after it).
    pub fn announcement(
        &self,
        view: &TableView,
        announcement: &kozyr_table::Announcement,
    ) -> Option<Screen> {
        outputs::announcement_screen(view, &self.info(view), announcement, &|u| self.name_of(u))
    }

    /// The private reminders for a turn timer close to running out:
    /// (person, screen) for everyone awaited who can be reached.
    pub fn reminders(&self, spec: &kozyr_table::TimerSpec) -> Vec<(Player, Screen)> {
        let left = outputs::time_left(spec.deadline, self.service.now());
        spec.awaiting
            .iter()
            .filter_map(|a| a.player.as_ref())
            .filter(|p| !self.is_unreachable(&p.id))
            .map(|p| (p.clone(), outputs::reminder_screen(p.lang, left)))
            .collect()
    }

    /// The person's hand at `table` drawn again (after a selection change).
    async fn render_hand_of(&self, table: TableId, user: &UserId) -> Option<Reply> {
        let hand = self.service.hand_of(table, user).await.ok()??;
        Some(Reply::Render(Output::RenderHand(Box::new(hand))))
    }

    // ----------------------------------------------------------- inputs

    async fn submit(
        &self,
        target: Target,
        actor: Actor,
        command: Command,
        dedup: Option<DedupKey>,
    ) -> Result<Ack, ServiceError> {
        let r = self
            .service
            .submit(Request {
                target,
                actor,
                command,
                dedup,
            })
            .await;
        if let Err(ServiceError::Store(e)) = &r {
            tracing::error!(error = %e, "store failure");
        }
        r
    }

    /// The language of a chat's own messages: the one it chose (or the one
    /// its newest table was opened in), whoever sends the command; in a
    /// chat that never had either, the sender's, else the default.
    pub async fn chat_lang(&self, chat: &ChatKey, sender: Option<&Player>) -> Lang {
        if let Ok(Some(l)) = self.service.chat_language(chat).await {
            return l;
        }
        sender.map_or(self.defaults.lang, |p| p.lang)
    }

    fn new_table_settings(&self, lang: Lang) -> Settings {
        Settings {
            lang,
            turn_timer: self.defaults.turn_timer,
            ..Settings::default()
        }
    }

    /// A command typed in a chat. Private chats get the private set.
    /// Refusals, the stop prompt and `/kick`'s how-to concern the sender
    /// alone ([`Reply::Tell`]); menus and what the table shows are for the
    /// chat ([`Reply::Say`]).
    pub async fn command<A: Admins>(
        &self,
        admins: &A,
        from: &Player,
        origin: &Origin,
        command: BotCommand,
        dedup: DedupKey,
    ) -> Vec<Reply> {
        self.remember_name(&from.id, &from.name);
        if origin.private {
            return self.private_command(from, origin, command);
        }
        let chat = &origin.chat;
        let lang = self.chat_lang(chat, Some(from)).await;
        let place = HandPlace::of(chat);
        match command {
            BotCommand::New(Some(kind)) => {
                match self
                    .create(chat, origin.title.as_deref(), from, kind, lang, dedup)
                    .await
                {
                    Ok(_) => Vec::new(),
                    Err(ServiceError::Rejected(TableError::TableAlreadyOpen)) => {
                        self.bring_table(chat, lang, Reply::Say).await
                    }
                    Err(e) => tell(refusal(lang, &e)),
                }
            }
            BotCommand::New(None) => vec![Reply::Say(present::game_menu(lang, 0))],
            BotCommand::Help | BotCommand::Start => say(text_of(lang, place.help_group())),
            BotCommand::Rules => {
                let table = self.service.open_table_view(chat).await.ok().flatten();
                let text = match table {
                    Some(t) => front_of(t.kind).rules(lang),
                    None => GameKind::ALL
                        .iter()
                        .map(|&g| front_of(g).rules(lang))
                        .collect::<Vec<_>>()
                        .join("\n\n"),
                };
                say(text)
            }
            BotCommand::Score => {
                let screen = match self.service.open_table_view(chat).await.ok().flatten() {
                    Some(view) => outputs::score_screen(&view, &self.info(&view)),
                    None => None,
                };
                vec![Reply::Say(screen.unwrap_or_else(|| {
                    Screen::text(text_of(lang, key::SCORE_NONE))
                }))]
            }
            BotCommand::Stats => say(self.stats_text(chat, lang).await),
            BotCommand::Settings => {
                if !admins.is_admin(chat, &from.id).await {
                    return tell(text_of(lang, key::ERR_ADMIN_ONLY));
                }
                let table = self.service.open_table_view(chat).await.ok().flatten();
                let s = table
                    .as_ref()
                    .map_or_else(|| self.new_table_settings(lang), |t| t.settings);
                let info = settings_info(&s, table.as_ref().map_or(0, |t| t.version));
                vec![Reply::Say(present::settings(lang, &info))]
            }
            BotCommand::Stop => {
                let Some(view) = self.service.open_table_view(chat).await.ok().flatten() else {
                    return tell(text_of(lang, key::ERR_NO_TABLE));
                };
                // Only who may stop the table is asked whether to; the
                // prompt is theirs alone, and so are its buttons.
                if view.creator != from.id && !admins.is_admin(chat, &from.id).await {
                    return tell(text_of(lang, key::ERR_ADMIN_ONLY));
                }
                vec![Reply::Tell(present::stop_prompt(
                    lang,
                    &self.info(&view),
                    asker_number(&from.id),
                ))]
            }
            BotCommand::Kick(None) => tell(text_of(lang, key::KICK_HOW)),
            BotCommand::Kick(Some(target)) => {
                if !admins.is_admin(chat, &from.id).await {
                    return tell(text_of(lang, key::ERR_ADMIN_ONLY));
                }
                let actor = Actor::Person {
                    player: from.clone(),
                    admin: true,
                };
                match self
                    .submit(
                        Target::Chat(chat.clone()),
                        actor,
                        Command::Kick { user: target },
                        Some(dedup),
                    )
                    .await
                {
                    Ok(_) => Vec::new(),
                    Err(e) => tell(refusal(lang, &e)),
                }
            }
            BotCommand::Lang => vec![Reply::Say(present::language_menu(lang, 0))],
        }
    }

    /// Whether [`Front::command`] answers `command` in a chat only to
    /// its sender, if at all: opening a table (the table message is the
    /// answer; the command gets a refusal or nothing), `/stop` (its
    /// prompt is the asker's alone, as is a refusal) and `/kick` (its
    /// how-to, or a refusal). A platform that must acknowledge a command
    /// before its answer is known (Discord's deferral) does so privately
    /// then, so the chat is not shown a note that then vanishes.
    pub fn answers_only_the_sender(command: &BotCommand) -> bool {
        matches!(
            command,
            BotCommand::New(Some(_)) | BotCommand::Stop | BotCommand::Kick(_)
        )
    }

    fn private_command(&self, from: &Player, origin: &Origin, command: BotCommand) -> Vec<Reply> {
        let lang = from.lang;
        let place = HandPlace::of(&origin.chat);
        match command {
            // Opening the private chat is what lets the bot send the cards
            // there; where cards are shown elsewhere, it is just hello.
            BotCommand::Start if place == HandPlace::PrivateChat => {
                say(text_of(lang, key::START_WELCOME))
            }
            BotCommand::Start | BotCommand::Help => say(text_of(lang, place.help_private())),
            BotCommand::Rules => say(GameKind::ALL
                .iter()
                .map(|&g| front_of(g).rules(lang))
                .collect::<Vec<_>>()
                .join("\n\n")),
            _ => say(text_of(lang, key::ERR_GROUP_ONLY)),
        }
    }

    async fn stats_text(&self, chat: &ChatKey, lang: Lang) -> String {
        let game = self
            .service
            .open_table_view(chat)
            .await
            .ok()
            .flatten()
            .map_or(GameKind::Kozel, |t| t.kind);
        let board = match self.service.leaderboard(chat, game, 10).await {
            Ok(b) => b,
            Err(e) => {
                tracing::error!(error = %e, "leaderboard");
                return tr(lang, key::ERR_TRY_AGAIN, &Args::new());
            }
        };
        if board.is_empty() {
            return text_of(lang, key::STATS_EMPTY);
        }
        let mut out = vec![text_of(lang, key::STATS_TITLE)];
        for (i, p) in board.iter().enumerate() {
            out.push(tr_html(
                lang,
                key::STATS_LINE,
                &Args::new()
                    .num("place", i as i64 + 1)
                    .text(
                        "name",
                        present::clean_name(p.name.as_deref().unwrap_or("?")),
                    )
                    .num("games", p.counters.series_played)
                    .num("wins", p.counters.series_won),
            ));
            if p.counters.goat > 0 {
                out.push(tr_html(
                    lang,
                    key::STATS_GOATS,
                    &Args::new().num("count", p.counters.goat),
                ));
            }
        }
        out.join("\n")
    }

    /// A new table was asked for where one is open: the chat is shown
    /// the open one, posted anew at the bottom (its message may be gone:
    /// an admin deleted it, or a restored database meets a chat without
    /// it), and `say` tells why in `lang` (the chat's for a message to
    /// it, the presser's for a popup).
    async fn bring_table(
        &self,
        chat: &ChatKey,
        lang: Lang,
        say: impl FnOnce(Screen) -> Reply,
    ) -> Vec<Reply> {
        match self.service.open_table_view(chat).await {
            Ok(Some(view)) => {
                vec![
                    say(Screen::text(text_of(lang, key::TABLE_SHOWN_AGAIN))),
                    Reply::BringTable(Box::new(view)),
                ]
            }
            // Closed in between: the next /new opens one.
            Ok(None) => tell(text_of(lang, key::ERR_STALE)),
            Err(e) => tell(refusal(lang, &e)),
        }
    }

    async fn create(
        &self,
        chat: &ChatKey,
        title: Option<&str>,
        from: &Player,
        kind: GameKind,
        lang: Lang,
        dedup: DedupKey,
    ) -> Result<Ack, ServiceError> {
        self.submit(
            Target::Chat(chat.clone()),
            Actor::person(from.clone()),
            Command::Create {
                kind,
                settings: self.new_table_settings(lang),
                title: title.unwrap_or("—").to_owned(),
                sit: true,
            },
            Some(dedup),
        )
        .await
    }

    /// A person opened the bot through an onboarding link for `table`
    /// (Telegram: a `/start` deep link): seat them, and tell them where.
    pub async fn join_by_link(
        &self,
        from: &Player,
        table: TableId,
        seat: Option<Seat>,
        dedup: DedupKey,
    ) -> Vec<Reply> {
        self.remember_name(&from.id, &from.name);
        let lang = from.lang;
        let r = self
            .submit(
                Target::Table(table),
                Actor::person(from.clone()),
                Command::Join { seat },
                Some(dedup),
            )
            .await;
        match r {
            Ok(_) | Err(ServiceError::Rejected(TableError::AlreadySeated)) => {
                let Ok(Some(view)) = self.service.table_view(table).await else {
                    return say(text_of(lang, key::ERR_STALE));
                };
                let mut replies = vec![Reply::Say(self.seated_text(from, &view))];
                // The table shows them without the "open the bot" link now.
                replies.push(Reply::Render(Output::RenderTable(Box::new(view.clone()))));
                if let Ok(Some(hand)) = self.service.hand_of(table, &from.id).await {
                    replies.push(Reply::Render(Output::RenderHand(Box::new(hand))));
                }
                replies
            }
            Err(e) => say(refusal(lang, &e)),
        }
    }

    fn seated_text(&self, who: &Player, view: &TableView) -> Screen {
        let seat = view.seat_of(&who.id).map_or(0, |s| s.index() as i64 + 1);
        Screen::text(tr_html(
            who.lang,
            HandPlace::of(&view.chat).seated(),
            &Args::new()
                .text("group", present::clean_name(&view.title))
                .num("seat", seat),
        ))
    }

    /// A button press. `data` is the button's data as the platform gave it
    /// back. The replies always hold at most one [`Reply::Popup`].
    pub async fn press<A: Admins>(
        &self,
        admins: &A,
        from: &Player,
        origin: &Origin,
        data: &str,
        dedup: DedupKey,
    ) -> Vec<Reply> {
        self.remember_name(&from.id, &from.name);
        let lang = from.lang;
        let Ok(press) = Press::parse(data) else {
            return popup(lang, key::ERR_BAD_BUTTON);
        };
        match press {
            Press::Chat { action, .. } => {
                self.chat_press(admins, from, origin, action, dedup).await
            }
            Press::Table {
                table,
                version,
                action,
            } => {
                // A press delivered again (its first handling committed but
                // was cut off before the answer) is answered as the first
                // was: the checks below would see the table it moved on.
                // A selection's toggle is never submitted, so never recorded.
                let submitted = !matches!(action, TableAction::Toggle(_) | TableAction::Clear);
                let replay = if submitted {
                    self.service.replay(&dedup).await
                } else {
                    Ok(None)
                };
                match replay {
                    Ok(Some(_)) => return Self::replayed(action),
                    Ok(None) => {}
                    Err(e) => {
                        tracing::error!(error = %e, "store failure");
                        return vec![Reply::Popup(refusal(lang, &e))];
                    }
                }
                let Ok(Some(view)) = self.service.table_view(table).await else {
                    return outdated(lang, table);
                };
                // A stop prompt is answered by the person who asked only.
                if let TableAction::Stop { asker, .. } = action
                    && asker != asker_number(&from.id)
                {
                    return popup(lang, key::ERR_NOT_YOUR_QUESTION);
                }
                // Hand buttons live in the person's private chat (or a
                // message only they see); table buttons in the table's
                // chat, and the stop prompt's wherever its asker was told
                // it. A hand button elsewhere was not drawn by kozyr; a
                // table's button pressed in another chat (forwarded, or
                // sent by a modified client) acts there on nothing.
                let in_table_chat = view.chat == origin.chat;
                if action.is_hand() && !origin.private {
                    return popup(lang, key::ERR_BAD_BUTTON);
                }
                let told_privately = matches!(action, TableAction::Stop { .. }) && origin.private;
                if !action.is_hand() && !in_table_chat && !told_privately {
                    return popup(lang, key::ERR_OTHER_CHAT);
                }
                self.table_press(admins, from, &view, version, action, dedup)
                    .await
            }
        }
    }

    /// The replies to a table press that had been applied: what its
    /// first delivery answered, less what it already did (a seat taken
    /// is not announced twice).
    fn replayed(action: TableAction) -> Vec<Reply> {
        match action {
            TableAction::Stop { confirm: true, .. } => vec![Reply::CloseMenu],
            _ => Vec::new(),
        }
    }

    async fn chat_press<A: Admins>(
        &self,
        admins: &A,
        from: &Player,
        origin: &Origin,
        action: ChatAction,
        dedup: DedupKey,
    ) -> Vec<Reply> {
        let lang = from.lang;
        if origin.private {
            return popup(lang, key::ERR_GROUP_ONLY);
        }
        let chat = &origin.chat;
        let chat_lang = self.chat_lang(chat, Some(from)).await;
        if let ChatAction::NewTable(kind) = action {
            return match self
                .create(chat, origin.title.as_deref(), from, kind, chat_lang, dedup)
                .await
            {
                // The menu did its job: a second press would only be refused.
                Ok(_) => vec![Reply::CloseMenu],
                Err(ServiceError::Rejected(TableError::TableAlreadyOpen)) => {
                    let mut replies = self.bring_table(chat, lang, |s| Reply::Popup(s.text)).await;
                    replies.push(Reply::CloseMenu);
                    replies
                }
                Err(e) => vec![Reply::Popup(refusal(lang, &e))],
            };
        }
        if !admins.is_admin(chat, &from.id).await {
            return popup(lang, key::ERR_ADMIN_ONLY);
        }
        let actor = Actor::Person {
            player: from.clone(),
            admin: true,
        };
        if let ChatAction::SetLanguage(l) = action {
            return match self
                .submit(
                    Target::Chat(chat.clone()),
                    actor,
                    Command::SetLanguage { lang: l },
                    Some(dedup),
                )
                .await
            {
                // The menu did its job: it says what the chat speaks now,
                // in that language, and keeps no buttons.
                Ok(_) => vec![
                    Reply::Popup(tr(lang, key::SETTINGS_SAVED, &Args::new())),
                    Reply::ReplaceMenu(present::language_set(l)),
                ],
                Err(e) => vec![Reply::Popup(refusal(lang, &e))],
            };
        }
        let Ok(Some(table)) = self.service.open_table_view(chat).await else {
            // Without a table there is nothing to keep these settings for;
            // the next table starts from the defaults.
            return popup(lang, key::ERR_NO_TABLE);
        };
        let mut settings = table.settings;
        match action {
            ChatAction::NewTable(_) | ChatAction::SetLanguage(_) => {}
            ChatAction::SetTurnTimer(secs) => {
                settings.turn_timer = secs.and_then(TurnTimer::from_secs);
            }
            ChatAction::SetHeartsEndScore(n) => {
                if !END_SCORE_CHOICES.contains(&n) {
                    return popup(lang, key::ERR_BAD_BUTTON);
                }
                settings.options.hearts.end_score = n;
            }
            ChatAction::SetShootTheMoon(on) => settings.options.hearts.shoot_the_moon = on,
            ChatAction::SetAnyHeartBreaks(on) => settings.options.hearts.any_heart_breaks = on,
        }
        match self
            .submit(
                Target::Chat(chat.clone()),
                actor,
                Command::ChangeSettings { settings },
                Some(dedup),
            )
            .await
        {
            // The menu did its job: it shows the settings now in force,
            // without buttons (`/settings` opens a new one).
            Ok(_) => vec![
                Reply::Popup(tr(lang, key::SETTINGS_SAVED, &Args::new())),
                Reply::ReplaceMenu(present::settings_saved(
                    chat_lang,
                    &settings_info(&settings, 0),
                )),
            ],
            Err(e) => vec![Reply::Popup(refusal(lang, &e))],
        }
    }

    async fn table_press<A: Admins>(
        &self,
        admins: &A,
        from: &Player,
        view: &TableView,
        version: u64,
        action: TableAction,
        dedup: DedupKey,
    ) -> Vec<Reply> {
        let lang = from.lang;
        let user = &from.id;
        let id = view.id;
        let seat = view.seat_of(user);
        match action {
            TableAction::Toggle(card) => {
                // Selection is the person's own UI state: it needs their
                // seat and the card in their hand, not the exact version.
                if seat.is_none() {
                    return popup(lang, key::ERR_NOT_SEATED);
                }
                // A card that left the hand: the message was drawn before.
                let Ok(Some(hand)) = self.service.hand_of(id, user).await else {
                    return outdated(lang, id);
                };
                let cards = front_for(&hand.game).hand_cards(&hand.game);
                if !cards.contains(card) {
                    return outdated(lang, id);
                }
                let mut sel = self.selection(&hand);
                if sel.contains(card) {
                    sel.remove(card);
                } else {
                    sel.insert(card);
                }
                self.set_selection(&hand, sel);
                return vec![Reply::Render(Output::RenderHand(Box::new(hand)))];
            }
            TableAction::Clear => {
                self.clear_selection(user, id);
                return self.render_hand_of(id, user).await.into_iter().collect();
            }
            _ => {}
        }
        let game_action = view.game.as_ref().and_then(|g| front_for(g).action(action));
        let needs_admin = matches!(
            action,
            TableAction::Start
                | TableAction::Stop { .. }
                | TableAction::AddAi
                | TableAction::Rematch
        );
        let admin = needs_admin && admins.is_admin(&view.chat, user).await;
        let actor = Actor::Person {
            player: from.clone(),
            admin,
        };
        let command = if let Some(action) = game_action {
            let Some(seat) = seat else {
                return popup(lang, key::ERR_NOT_SEATED);
            };
            if version != view.version {
                // A hand that waits draws its buttons without a version: a
                // play from it is refused as what it is while the seat has
                // no turn.
                let out_of_turn = version == present::UNVERSIONED && !view.awaiting.contains(&seat);
                if out_of_turn {
                    return popup(lang, key::ERR_NOT_YOUR_TURN);
                }
                return outdated(lang, id);
            }
            Command::Act {
                seat,
                action,
                version,
            }
        } else {
            match action {
                TableAction::Join => Command::Join { seat: None },
                TableAction::TakeSeat(s) => Command::Join { seat: Some(s) },
                TableAction::Leave => Command::Leave,
                TableAction::AddAi => Command::AddAi { seat: None },
                TableAction::Start => Command::Start,
                TableAction::TakeBack => Command::TakeBack,
                // The prompt did its job: it says the table goes on, in
                // the table's language, as it asked in.
                TableAction::Stop { confirm: false, .. } => {
                    return vec![Reply::ReplaceMenu(present::stop_kept(view.settings.lang))];
                }
                TableAction::Stop { confirm: true, .. } => Command::Stop,
                TableAction::Rematch => {
                    // The button carries the version of the finished state:
                    // a second press (or one after play restarted) is stale.
                    if version != view.version {
                        return outdated(lang, id);
                    }
                    Command::Rematch
                }
                _ => return popup(lang, key::ERR_BAD_BUTTON),
            }
        };
        let joining = matches!(command, Command::Join { .. });
        let acting = matches!(command, Command::Act { .. });
        let stopping = matches!(command, Command::Stop);
        match self
            .submit(Target::Table(id), actor, command, Some(dedup))
            .await
        {
            Ok(ack) => {
                let mut replies = Vec::new();
                if acting && !ack.duplicate {
                    self.clear_selection(user, id);
                }
                if stopping {
                    replies.push(Reply::CloseMenu);
                }
                if joining
                    && !ack.duplicate
                    && let Ok(Some(now)) = self.service.table_view(id).await
                {
                    replies.push(Reply::Seated {
                        table: id,
                        user: user.clone(),
                        text: self.seated_text(from, &now),
                    });
                }
                replies
            }
            Err(ServiceError::Rejected(TableError::StaleVersion { .. })) => outdated(lang, id),
            Err(e) => vec![Reply::Popup(refusal(lang, &e))],
        }
    }

    /// A platform that knows a chat's language (Discord: the server's
    /// `guild_locale`) gives it to a chat that has none yet; a chat that
    /// chose one (or opened a table in one) keeps it.
    pub async fn adopt_chat_language(&self, chat: &ChatKey, lang: Lang) {
        if !matches!(self.service.chat_language(chat).await, Ok(None)) {
            return;
        }
        let r = self
            .submit(
                Target::Chat(chat.clone()),
                Actor::System,
                Command::SetLanguage { lang },
                None,
            )
            .await;
        if let Err(e) = r
            && e.rejection().is_none()
        {
            tracing::warn!(error = %e, "keeping a chat's language failed");
        }
    }

    /// Sets the whole card selection of `from` at `table` at once (a
    /// platform's multi-select menu), where [`TableAction::Toggle`] flips
    /// one card. Cards not in their hand make it stale; the hand comes
    /// back to be drawn again.
    pub async fn select_cards(&self, from: &Player, table: TableId, cards: CardSet) -> Vec<Reply> {
        self.remember_name(&from.id, &from.name);
        let lang = from.lang;
        let Ok(Some(hand)) = self.service.hand_of(table, &from.id).await else {
            return popup(lang, key::ERR_NOT_SEATED);
        };
        let held = front_for(&hand.game).hand_cards(&hand.game);
        if held & cards != cards {
            return popup(lang, key::ERR_STALE);
        }
        self.set_selection(&hand, cards);
        vec![Reply::Render(Output::RenderHand(Box::new(hand)))]
    }

    // ------------------------------------------------- platform events

    /// The platform cannot reach `user` any more (they blocked the bot): an
    /// AI player plays their seats at `tables` until they take them back.
    pub async fn hand_over(&self, user: &UserId, tables: &[TableId]) {
        for &table in tables {
            let r = self
                .submit(
                    Target::Table(table),
                    Actor::System,
                    Command::HandToAi { user: user.clone() },
                    None,
                )
                .await;
            if let Err(e) = r
                && e.rejection().is_none()
            {
                tracing::error!(error = %e, "handing a seat to the AI player failed");
            }
        }
    }

    /// The bot is out of `chat` (removed from a group): its open table stops.
    pub async fn chat_gone(&self, chat: &ChatKey) {
        let r = self
            .submit(
                Target::Chat(chat.clone()),
                Actor::System,
                Command::Stop,
                None,
            )
            .await;
        match r {
            Ok(_) => tracing::info!(%chat, "removed from a chat; its table stopped"),
            Err(e) if e.rejection().is_some() => {}
            Err(e) => tracing::error!(error = %e, "stopping the table of a chat the bot left"),
        }
    }

    /// The platform gave `from` a new id: its table follows.
    pub async fn chat_moved(&self, from: &ChatKey, to: &ChatKey) {
        let r = self
            .submit(
                Target::Chat(from.clone()),
                Actor::System,
                Command::MigrateChat { to: to.clone() },
                Some(DedupKey::migration(from)),
            )
            .await;
        if let Err(e) = r
            && e.rejection().is_none()
        {
            tracing::error!(error = %e, "chat migration failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_holds_only_in_its_deal_and_hand() {
        let cards = |s: &str| s.parse::<CardSet>().unwrap();
        let sel = Selection {
            deal: 3,
            cards: cards("TC 9H"),
        };
        assert_eq!(sel.current(3, cards("TC 9H AS")), cards("TC 9H"));
        // A card played since is no longer selected.
        assert_eq!(sel.current(3, cards("9H AS")), cards("9H"));
        // The next deal deals 10♣ again: it starts unselected.
        assert_eq!(sel.current(4, cards("TC 9H AS")), CardSet::EMPTY);
        assert_eq!(Selection::default().current(1, cards("AS")), CardSet::EMPTY);
    }

    #[test]
    fn names_are_bounded_and_the_oldest_go_first() {
        let mut n = Names::default();
        for i in 0..10u64 {
            n.remember(&UserId::Telegram(i), &format!("P{i}"), 4);
        }
        // A rename keeps the place; the map never grows past the bound.
        n.remember(&UserId::Telegram(9), "Nine", 4);
        assert_eq!(n.by_user.len(), 4);
        assert_eq!(n.order.len(), 4);
        assert_eq!(n.by_user.get(&UserId::Telegram(5)), None);
        assert_eq!(
            n.by_user.get(&UserId::Telegram(6)).map(String::as_str),
            Some("P6")
        );
        assert_eq!(
            n.by_user.get(&UserId::Telegram(9)).map(String::as_str),
            Some("Nine")
        );
    }

    #[test]
    fn commands_parse_once_the_same_on_every_platform() {
        let check = |name: &str, args: &str, expect: Option<BotCommand>| {
            assert_eq!(BotCommand::parse(name, args), expect, "/{name} {args}");
        };
        check("new", "", Some(BotCommand::New(None)));
        check(
            "new",
            " KOZEL ",
            Some(BotCommand::New(Some(GameKind::Kozel))),
        );
        check("hearts", "", Some(BotCommand::New(Some(GameKind::Hearts))));
        check("kick", "", Some(BotCommand::Kick(None)));
        check("stop", "now", Some(BotCommand::Stop));
        check("settings", "", Some(BotCommand::Settings));
        check("kozell", "", None);
        check("", "", None);
    }
}
