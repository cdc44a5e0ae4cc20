use clap::Parser;

/// kozyr: Kozel and Hearts for chat groups.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {}

fn main() {
    let _ = Cli::parse();
}
