//! The command list registered with `setMyCommands`, per language.

use teloxide::types::BotCommand;

use crate::i18n::{Args, Key, Lang, key, tr};

/// Every command kozyr answers, with the key of its description.
pub const COMMANDS: [(&str, Key); 11] = [
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

/// The command menu in `lang`.
///
/// ```
/// use kozyr::i18n::Lang;
/// let ru = kozyr::telegram::commands::bot_commands(Lang::Ru);
/// assert_eq!(ru[0].command, "new");
/// assert_eq!(ru[0].description, "Открыть стол (Козёл или Червы)");
/// ```
pub fn bot_commands(lang: Lang) -> Vec<BotCommand> {
    COMMANDS
        .iter()
        .map(|&(command, k)| BotCommand::new(command, tr(lang, k, &Args::new())))
        .collect()
}
