#!/bin/sh
# Writes the CRD pairs of test/fixtures/crd-diff/crdify/pairs/ from two fetched repositories
# (git directories, e.g. the mirrors the fetch tool makes). Not run in CI: the pairs are committed.
#   tools/crdify-verdicts/prepare-pairs.sh <crdify git dir> <cloudnative-pg git dir> <keda git dir> <kustomize-controller git dir>
# crdify (Apache-2.0): every example against examples/base-crd.yaml, and every test/<case>/{a,b}.yaml.
# CloudNativePG (Apache-2.0): config/crd/bases/postgresql.cnpg.io_clusters.yaml at consecutive
# release tags, descriptions removed (strip-descriptions.mjs) to keep the files small; each release once
# (test/unit/crd-diff/crdify-pairs.ts pairs consecutive releases). KEDA (Apache-2.0):
# config/crd/bases/keda.sh_scaledobjects.yaml the same way; Flux's kustomize-controller (Apache-2.0):
# config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml (several served versions).
set -eu
CRDIFY=$1
CNPG=$2
KEDA=$3
FLUX=$4
OUT=$(dirname "$0")/../../test/fixtures/crd-diff/crdify/pairs
HERE=$(dirname "$0")
rm -rf "$OUT" && mkdir -p "$OUT"
SRC="$OUT/../SOURCES.md"
{
  echo "# Where the pairs come from"
  echo
  echo "Written by tools/crdify-verdicts/prepare-pairs.sh; the licence of all four repositories is Apache-2.0."
  echo
} > "$SRC"
c=$(git --git-dir="$CRDIFY" rev-parse HEAD)
echo "- kubernetes-sigs/crdify at $c: examples/ (each against examples/base-crd.yaml) and test/<case>/{a,b}.yaml, unchanged" >> "$SRC"
for f in $(git --git-dir="$CRDIFY" ls-tree --name-only HEAD examples/ | grep -v -e base-crd.yaml -e config.yaml); do
  n=example-$(basename "$f" .yaml)
  mkdir -p "$OUT/$n"
  git --git-dir="$CRDIFY" show HEAD:examples/base-crd.yaml > "$OUT/$n/old.yaml"
  git --git-dir="$CRDIFY" show "HEAD:$f" > "$OUT/$n/new.yaml"
done
for d in $(git --git-dir="$CRDIFY" ls-tree --name-only -d HEAD test/); do
  n=test-$(basename "$d")
  mkdir -p "$OUT/$n"
  git --git-dir="$CRDIFY" show "HEAD:$d/a.yaml" > "$OUT/$n/old.yaml"
  git --git-dir="$CRDIFY" show "HEAD:$d/b.yaml" > "$OUT/$n/new.yaml"
done
mkdir -p "$OUT/cnpg"
for t in v1.25.0 v1.26.0 v1.27.0 v1.28.0 v1.29.0 v1.30.0; do
  echo "- cloudnative-pg/cloudnative-pg $t ($(git --git-dir="$CNPG" rev-parse "$t^{commit}")): config/crd/bases/postgresql.cnpg.io_clusters.yaml, descriptions removed, as cnpg/clusters-$t.json" >> "$SRC"
  git --git-dir="$CNPG" show "$t:config/crd/bases/postgresql.cnpg.io_clusters.yaml" | node "$HERE/strip-descriptions.mjs" > "$OUT/cnpg/clusters-$t.json"
done
mkdir -p "$OUT/keda"
for t in v2.15.0 v2.16.0 v2.17.0 v2.18.0 v2.19.0 v2.20.0; do
  echo "- kedacore/keda $t ($(git --git-dir="$KEDA" rev-parse "$t^{commit}")): config/crd/bases/keda.sh_scaledobjects.yaml, descriptions removed, as keda/scaledobjects-$t.json" >> "$SRC"
  git --git-dir="$KEDA" show "$t:config/crd/bases/keda.sh_scaledobjects.yaml" | node "$HERE/strip-descriptions.mjs" > "$OUT/keda/scaledobjects-$t.json"
done
mkdir -p "$OUT/flux"
for t in v1.4.0 v1.5.0 v1.6.0 v1.7.0 v1.8.0 v1.9.0; do
  echo "- fluxcd/kustomize-controller $t ($(git --git-dir="$FLUX" rev-parse "$t^{commit}")): config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml, descriptions removed, as flux/kustomizations-$t.json" >> "$SRC"
  git --git-dir="$FLUX" show "$t:config/crd/bases/kustomize.toolkit.fluxcd.io_kustomizations.yaml" | node "$HERE/strip-descriptions.mjs" > "$OUT/flux/kustomizations-$t.json"
done
