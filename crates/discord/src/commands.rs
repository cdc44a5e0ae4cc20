//! The slash commands registered at start, with descriptions in every
//! language. The names stay the same in every language, as on Telegram:
//! `/kozel` is `/kozel` whoever types it.

use twilight_model::application::command::{Command, CommandType};
use twilight_util::builder::command::CommandBuilder;

use super::ids::locales_of;
use kozyr_front::core::COMMAND_MENU;
use kozyr_i18n::{Args, Key, Lang, tr};

/// The commands kozyr registers on Discord, with the key of each
/// description: the front's menu less `/kick`, which needs a reply to a
/// message, and `/lang`, which `/settings` covers.
pub fn commands() -> impl Iterator<Item = (&'static str, Key)> {
    COMMAND_MENU
        .into_iter()
        .filter(|(name, _)| !matches!(*name, "kick" | "lang"))
}

/// The command list, described in `default` and localized into every
/// other language kozyr speaks.
///
/// ```
/// let cmds = kozyr_discord::commands::slash_commands(kozyr_i18n::Lang::En);
/// assert_eq!(cmds[0].name, "new");
/// let ru = cmds[0].description_localizations.as_ref().unwrap();
/// assert_eq!(ru["ru"], "Открыть стол (Козёл или Червы)");
/// assert!(ru.contains_key("pt-BR") && ru.contains_key("ro"));
/// ```
pub fn slash_commands(default: Lang) -> Vec<Command> {
    commands()
        .map(|(name, k)| {
            let describe = |lang| {
                // Discord's limit for a description.
                tr(lang, k, &Args::new())
                    .chars()
                    .take(100)
                    .collect::<String>()
            };
            let localized: Vec<(String, String)> = Lang::ALL
                .into_iter()
                .flat_map(|lang| {
                    locales_of(lang)
                        .iter()
                        .map(move |loc| ((*loc).to_owned(), lang))
                })
                .map(|(loc, lang)| (loc, describe(lang)))
                .collect();
            CommandBuilder::new(name, describe(default), CommandType::ChatInput)
                .description_localizations(localized)
                .build()
        })
        .collect()
}
