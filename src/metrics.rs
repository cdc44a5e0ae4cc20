//! Prometheus metrics, served at `GET /metrics` on `KOZYR_METRICS_LISTEN`
//! when it is set. The names, the recorder and the recording functions are
//! `kozyr-metrics` (`crates/metrics`), re-exported here, so every layer
//! records in one line; this module adds the HTTP endpoint, which alone
//! needs axum. `docs/OPERATIONS.md` lists the metrics with example alerts.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::State;
use axum::routing::get;

pub use kozyr_metrics::*;

/// Why the metrics endpoint could not start.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error(transparent)]
    Install(#[from] InstallError),
    #[error("cannot listen on KOZYR_METRICS_LISTEN {addr}: {error}")]
    Listen {
        addr: SocketAddr,
        error: std::io::Error,
    },
}

#[derive(Clone)]
struct Scrape {
    handle: PrometheusHandle,
    tables: Option<CountTables>,
}

/// Serves `GET /metrics` on `listen`; returns the bound address (port 0
/// picks one) and the server task. With `tables`, each scrape first counts
/// the open tables per platform and phase through it.
pub async fn serve(
    listen: SocketAddr,
    tables: Option<CountTables>,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), MetricsError> {
    let handle = install()?;
    let tcp = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|error| MetricsError::Listen {
            addr: listen,
            error,
        })?;
    let addr = tcp.local_addr().map_err(|error| MetricsError::Listen {
        addr: listen,
        error,
    })?;
    let app = Router::new()
        .route("/metrics", get(scrape))
        .with_state(Scrape { handle, tables });
    let server = tokio::spawn(async move {
        if let Err(e) = axum::serve(tcp, app).await {
            tracing::error!(error = %e, "the metrics server failed");
        }
    });
    tracing::info!(%addr, "metrics at http://{addr}/metrics");
    Ok((addr, server))
}

async fn scrape(State(s): State<Scrape>) -> ([(&'static str, &'static str); 1], String) {
    if let Some(count) = &s.tables {
        match count().await {
            Ok(rows) => {
                for (platform, phase, n) in rows {
                    tables_open(platform, phase, n);
                }
            }
            Err(e) => tracing::warn!(error = %e, "metrics: cannot count open tables"),
        }
    }
    (
        [("content-type", "text/plain; version=0.0.4; charset=utf-8")],
        render(&s.handle),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn the_endpoint_serves_what_was_recorded() {
        let (addr, server) = serve("127.0.0.1:0".parse().unwrap(), None).await.unwrap();
        // Before this test records: every metric is described and its known
        // series are seeded (at zero, unless a test beside it recorded).
        let body = get_metrics(addr).await;
        for name in [
            BUILD_INFO,
            MOVES,
            MOVE_SECONDS,
            COMMANDS_REFUSED,
            API_CALLS,
            API_RATE_LIMITED,
            PACER_CHATS_WAITING,
            PACER_PAUSE_SECONDS,
            SCHEDULER_QUEUE_LENGTH,
            OUTPUT_WAIT_SECONDS,
            OUTPUT_STALENESS_SECONDS,
            DB_COMMIT_SECONDS,
            DB_COMMIT_COMMANDS,
        ] {
            assert!(
                body.contains(&format!("# HELP {name} ")),
                "no HELP for {name}\n{body}"
            );
            assert!(
                body.contains(&format!("# TYPE {name} ")),
                "no TYPE for {name}\n{body}"
            );
        }
        for line in [
            concat!(
                "kozyr_build_info{version=\"",
                env!("CARGO_PKG_VERSION"),
                "\"} 1"
            ),
            // Seeded series, whatever their value by now: the lib's other
            // tests (the lane simulations) record into the same recorder.
            r#"kozyr_moves_total{by="timer"} "#,
            r#"kozyr_api_calls_total{platform="discord",method="create_message",outcome="ok"} "#,
            r#"kozyr_api_rate_limited_total{platform="telegram",method="getUpdates"} "#,
            r#"kozyr_scheduler_queue_length{priority="turn"} "#,
            r#"kozyr_output_wait_seconds_count{priority="background"} "#,
            "process_resident_memory_bytes ",
            "process_cpu_seconds_total ",
            "process_open_fds ",
        ] {
            assert!(body.contains(line), "{line} missing from\n{body}");
        }
        api_call("telegram", "sendMessage", "ok");
        api_call("telegram", "editMessageText", "retry_after");
        db_commit(Duration::from_millis(3), 2);
        // A lane of its own: the lane simulations running beside this test
        // set the real lanes' gauges at any moment.
        pacer_waiting("metrics-test", 5);
        command_refused("leave", "not_seated");
        let body = get_metrics(addr).await;
        server.abort();
        for line in [
            r#"kozyr_api_calls_total{platform="telegram",method="sendMessage",outcome="ok"}"#,
            r#"kozyr_api_rate_limited_total{platform="telegram",method="editMessageText"}"#,
            r#"kozyr_pacer_chats_waiting{lane="metrics-test"} 5"#,
            r#"kozyr_commands_refused_total{command="leave",reason="not_seated"}"#,
            "kozyr_db_commit_seconds_bucket{le=\"0.005\"}",
            "kozyr_db_commit_commands_count",
        ] {
            assert!(body.contains(line), "{line} missing from\n{body}");
        }
    }

    /// A bare HTTP/1.0 GET: the library has no HTTP client of its own.
    async fn get_metrics(addr: SocketAddr) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        tcp.write_all(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut body = String::new();
        tcp.read_to_string(&mut body).await.unwrap();
        assert!(
            body.starts_with("HTTP/1.0 200") || body.starts_with("HTTP/1.1 200"),
            "{body}"
        );
        body
    }
}
