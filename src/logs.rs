//! The log subscriber, installed once by whichever binary runs: `kozyr`
//! and the load generator (`kozyr-loadtest`) alike.

use crate::config::LogFormat;

/// Installs the log subscriber: `filter` (EnvFilter syntax) in `format`.
/// Text carries colours only on a terminal without `NO_COLOR`: `docker
/// logs`, journald and files get plain lines.
pub fn init(filter: &str, format: LogFormat) -> Result<(), String> {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .map_err(|e| format!("RUST_LOG is malformed: {e}"))?;
    let logs = tracing_subscriber::fmt().with_env_filter(filter);
    match format {
        LogFormat::Text => logs
            .with_ansi(crate::config::log_colours(
                std::io::stdout().is_terminal(),
                std::env::var("NO_COLOR").ok().as_deref(),
            ))
            .init(),
        LogFormat::Json => logs.json().init(),
    }
    Ok(())
}
