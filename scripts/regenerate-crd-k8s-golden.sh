#!/usr/bin/env bash
# Regenerates test/golden/crd-k8s/controller-gen-k8s-types.yaml with controller-gen v0.23.0 (built from
# Go modules into ~/.cache/op-gen/bin on first use). Review the diff by hand.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${XDG_CACHE_HOME:-$HOME/.cache}/op-gen/bin"
[ -x "$bin/controller-gen" ] || GOBIN="$bin" go install sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0
out="$(mktemp -d)"
(cd "$root/test/fixtures/crd-k8s/go" && "$bin/controller-gen" crd paths=./api/... output:crd:dir="$out")
cp "$out/k8s.example.com_apps.yaml" "$root/test/golden/crd-k8s/controller-gen-k8s-types.yaml"
rm -rf "$out"
