# kozyr: multi-stage build. The runtime image is distroless (no shell, no
# package manager), runs as the non-root user nonroot (uid/gid 65532), and
# keeps the database on /data.

FROM rust:1.95-bookworm AS build
WORKDIR /src
# Dependencies first, in their own layer: it is rebuilt only when Cargo.toml
# or Cargo.lock change, so a code change recompiles kozyr alone. The script
# gives every target in Cargo.toml an empty source file (Cargo refuses a
# manifest with a missing target); tests/admin.rs checks it still does.
# Nothing may swallow its exit status: a failing dependency build must fail
# the image build (it once failed on every build, unnoticed).
COPY Cargo.toml Cargo.lock ./
# Every workspace member's manifest (Cargo.toml's `members`), at its place.
COPY crates/cards/Cargo.toml crates/cards/
COPY crates/kozel/Cargo.toml crates/kozel/
COPY crates/hearts/Cargo.toml crates/hearts/
COPY crates/game/Cargo.toml crates/game/
COPY crates/ai/Cargo.toml crates/ai/
COPY crates/sim/Cargo.toml crates/sim/
COPY crates/metrics/Cargo.toml crates/metrics/
COPY crates/i18n/Cargo.toml crates/i18n/
COPY crates/table/Cargo.toml crates/table/
COPY crates/store/Cargo.toml crates/store/
COPY crates/front/Cargo.toml crates/front/
COPY crates/delivery/Cargo.toml crates/delivery/
COPY crates/outlet/Cargo.toml crates/outlet/
COPY crates/webapp/Cargo.toml crates/webapp/
COPY crates/config/Cargo.toml crates/config/
COPY crates/telegram/Cargo.toml crates/telegram/
COPY crates/discord/Cargo.toml crates/discord/
COPY crates/test-kit/Cargo.toml crates/test-kit/
COPY crates/loadtest/Cargo.toml crates/loadtest/
COPY docker/stub-targets.sh docker/
RUN sh docker/stub-targets.sh . && cargo build --release --locked --bin kozyr
COPY . .
# Touch the real crate roots (the workspace's members too) so Cargo sees them as newer than the stubs it
# built, whatever modification times the build context carries. The release
# profile strips the binary (Cargo.toml).
RUN touch src/main.rs src/lib.rs crates/*/src/lib.rs && cargo build --release --locked --bin kozyr \
    && mkdir -p /data-skeleton

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/kozyr /usr/local/bin/kozyr
COPY --from=build --chown=nonroot:nonroot /data-skeleton /data
# Logs: plain text (docker logs has no terminal); KOZYR_LOG_FORMAT=json for
# log shippers.
ENV DATABASE_URL=sqlite:///data/kozyr.db \
    RUST_LOG=info
VOLUME /data
WORKDIR /data
USER nonroot
# Webhook mode (WEBHOOK_LISTEN, default 0.0.0.0:8443) and the optional
# Prometheus endpoint (KOZYR_METRICS_LISTEN, e.g. 0.0.0.0:9090). Long
# polling needs no open port.
EXPOSE 8443 9090
# `docker stop` sends SIGTERM; kozyr finishes in-flight moves and exits.
STOPSIGNAL SIGTERM
# Exec form: there is no shell in this image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/kozyr", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/kozyr"]
CMD ["run"]
