//! The command list registered with `setMyCommands`, per language.

use teloxide::types::BotCommand;

use kozyr_i18n::{Args, Lang, tr};

/// Every command kozyr answers, with the key of its description.
pub use kozyr_front::core::COMMAND_MENU as COMMANDS;

/// The command menu in `lang`.
///
/// ```
/// use kozyr_i18n::Lang;
/// let ru = kozyr_telegram::commands::bot_commands(Lang::Ru);
/// assert_eq!(ru[0].command, "new");
/// assert_eq!(ru[0].description, "Открыть стол (Козёл или Червы)");
/// ```
pub fn bot_commands(lang: Lang) -> Vec<BotCommand> {
    COMMANDS
        .iter()
        .map(|&(command, k)| BotCommand::new(command, tr(lang, k, &Args::new())))
        .collect()
}
