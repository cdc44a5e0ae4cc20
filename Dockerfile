# kozyr: multi-stage build. The runtime image is distroless (no shell, no
# package manager), runs as a non-root user, and keeps the database on /data.

FROM rust:1.95-bookworm AS build
WORKDIR /src
# Dependencies first, so code changes do not rebuild them.
COPY Cargo.toml Cargo.lock build.rs* ./
RUN mkdir -p src benches && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
    && for b in $(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | tail -n +2); do echo 'fn main() {}' > benches/$b.rs; done \
    && cargo build --release --locked || true
COPY . .
RUN touch src/main.rs src/lib.rs && cargo build --release --locked --bin kozyr \
    && strip target/release/kozyr \
    && mkdir -p /data-skeleton

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/kozyr /usr/local/bin/kozyr
COPY --from=build --chown=nonroot:nonroot /data-skeleton /data
ENV DATABASE_URL=sqlite:///data/kozyr.db \
    RUST_LOG=info
VOLUME /data
WORKDIR /data
USER nonroot
# `docker stop` sends SIGTERM; kozyr finishes in-flight moves and exits.
STOPSIGNAL SIGTERM
# Exec form: there is no shell in this image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/kozyr", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/kozyr"]
CMD ["run"]
