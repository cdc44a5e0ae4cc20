//! Helpers the integration tests share.

use std::io::{BufRead, BufReader, Read};
use std::process::Command;

/// This test binary, started again to run only the test named `test` (its
/// full path, e.g. `crash::name`): the child half of a test that needs a
/// process to SIGKILL. The caller sets the environment variable that turns
/// the test into the child. Read the child's stdout with [`skip_to_ready`]:
/// the test harness prints its own lines first.
pub fn respawn(test: &str) -> Command {
    let exe = std::env::current_exe().expect("own path");
    let mut cmd = Command::new(exe);
    // Terse output on one thread prints nothing while the test runs, and
    // `--nocapture` lets the child's `println!` through to the parent.
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1", "-q"]);
    cmd
}

/// Reads the child's stdout up to and including its `ready` line,
/// skipping what the test harness printed before it.
pub fn skip_to_ready<R: Read>(out: &mut BufReader<R>) {
    let mut seen = Vec::new();
    loop {
        let mut line = String::new();
        let n = out.read_line(&mut line).expect("read");
        assert!(n > 0, "the child exited before it was ready: {seen:?}");
        if line.trim() == "ready" {
            return;
        }
        seen.push(line);
    }
}
