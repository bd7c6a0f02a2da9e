# guildctl as a container image, for CI systems other than GitHub Actions (GitLab CI,
# Jenkins, Woodpecker, Buildkite, ...). Built and published only by the release workflow
# (.github/workflows/release.yml, to ghcr.io with build provenance); docs/container.md.
#
#   docker run --rm -v "$PWD:/work" -w /work ghcr.io/guildctl/guildctl:0.1.0 validate -f guild.yaml
#
# Base images are pinned by digest, the tag beside it for people: a tag can be pushed
# again with other content, a digest cannot. The digest is the image index's (every
# platform), as `docker buildx imagetools inspect rust:1.95.0-alpine3.23` prints it under
# "Digest:"; docs/container.md, "Updating the base images", says how to move one.
#
# Stage 1 builds the static binary: Alpine's Rust targets musl, and the release profile
# (Cargo.toml) links it statically, as the release archives' x86_64-unknown-linux-musl is.
FROM rust:1.95.0-alpine3.23@sha256:606fd313a0f49743ee2a7bd49a0914bab7deedb12791f3a846a34a4711db7ed2 AS build
# ring (under rustls) compiles C: musl-dev for its headers.
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
# The toolchain the image ships is the one rust-toolchain.toml pins (1.95.0).
RUN cargo build --release --locked --bin guildctl \
 && cp target/release/guildctl /guildctl

# Stage 2: the binary on BusyBox (musl) and nothing else. Not distroless/scratch on
# purpose: GitLab's Docker executor and most CI systems run a job's script with the
# image's `sh`, which BusyBox gives (about 1 MB). guildctl needs no CA bundle: rustls
# carries its roots (webpki-roots).
FROM busybox:1.37.0-musl@sha256:fc6dddc4c44b1bfe37f41cae8e67d1693828e8f42a91862816d7953e2c9d3f23
COPY --from=build /guildctl /usr/local/bin/guildctl
# Runs here, where no C library is installed: the proof that it is static.
RUN ["/usr/local/bin/guildctl", "--version"]
# No root: a numeric user, so a runner needs no passwd entry for it.
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["guildctl"]
CMD ["--help"]
