#!/usr/bin/env bash
# build.sh OUTPUT [--test]: builds chart-render (or runs its Go tests) from Debian's Go
# packages, offline.
#
# Debian installs Go libraries as sources under /usr/share/gocode (golang-*-dev), for
# builds in GOPATH mode. Modules with a major version in their path (sprig/v3,
# semver/v3) are found there through Go's minimal module compatibility, which applies
# to code inside a GOPATH tree that has a go.mod: hence the link below.
set -euo pipefail
out=$(realpath -m "${1:?usage: build.sh OUTPUT}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(dirname "$out")/chart-render-gopath
mkdir -p "$work/src/troupe.dev"
ln -sfn "$here" "$work/src/troupe.dev/chart-render"
export GO111MODULE=off GOFLAGS= GOPROXY=off GOPATH="$work:/usr/share/gocode"
# Go's own build cache (shared by the build trees) where it has one.
if [ -z "${GOCACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ]; then export GOCACHE=$work/cache; fi
cd "$work/src/troupe.dev/chart-render"
if [ "${2:-}" = "--test" ]; then
  exec go test -count=1 .
fi
exec go build -trimpath -o "$out" .
