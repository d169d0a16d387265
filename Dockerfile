# The Troupe image: `troupe operator` by default (helm/troupe runs it that way); any other
# subcommand works too (`docker run IMAGE serve ...`).
#
# Build stage: the project's own scripts install the Debian packages and build Release
# without tests. Runtime stage: the binary and the shared libraries it links, nothing else.

FROM debian:bookworm AS build
WORKDIR /src
COPY scripts/bootstrap scripts/bootstrap
# bootstrap installs what building and testing need; running it before copying the sources
# keeps this layer cached across source changes.
RUN scripts/bootstrap
COPY . .
RUN scripts/build /build -DCMAKE_BUILD_TYPE=Release -DTROUPE_BUILD_TESTS=OFF \
 && install -D -m 0755 /build/cmd/troupe /out/troupe \
 && strip /out/troupe

FROM debian:bookworm-slim AS runtime
# The shared libraries troupe links (libstdc++ and libc come with the base image), and CA
# certificates for talking to API servers outside the cluster.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates libfmt9 libspdlog1.10 libyaml-cpp0.7 libsqlite3-0 libssl3 libjemalloc2 \
      libsimdjson14 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/troupe /usr/local/bin/troupe
# Fail the build, not the first pod, when a library is missing. kubectl finds its plugin
# `kubectl troupe` as kubectl-troupe on the PATH: a link to the same binary, which runs the
# plugin when called by that name.
RUN if ldd /usr/local/bin/troupe | grep 'not found'; then exit 1; fi \
 && ln -s troupe /usr/local/bin/kubectl-troupe \
 && install -d -o 65532 -g 65532 /var/lib/troupe
# The chart mounts its state volume at /var/lib/troupe; outside Kubernetes, mount one there.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/troupe"]
CMD ["operator"]
