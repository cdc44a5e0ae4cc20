#!/bin/sh
# Writes an empty source file for every target Cargo.toml names, so that
# `cargo build` can compile the dependencies alone in their own Docker layer
# (cached until Cargo.toml or Cargo.lock change). Cargo refuses a manifest
# whose targets have no source, so every `[[bin]]`, `[[bench]]`, `[[test]]`
# and `[[example]]` gets a stub at its `path`, or at the place Cargo looks
# for it by name, and each workspace member under `crates/` an empty library. `tests/admin.rs` runs this on a copy of the manifest and
# checks that Cargo accepts the result, so a new kind of target cannot
# quietly break the cache again.
#
# Usage: docker/stub-targets.sh [DIR]   (default: the current directory)
set -eu
cd "${1:-.}"
test -f Cargo.toml || { echo "stub-targets: no Cargo.toml in $(pwd)" >&2; exit 1; }

mkdir -p src
echo 'fn main() {}' > src/main.rs
: > src/lib.rs
# The workspace's library crates (crates/*, each manifest copied before
# this runs): an empty library root each.
for manifest in crates/*/Cargo.toml; do
    [ -f "$manifest" ] || continue
    member=$(dirname "$manifest")
    mkdir -p "$member/src"
    : > "$member/src/lib.rs"
done

# One line per target: "<kind> <name> <path or ->".
awk '
    function flush() {
        if (kind != "" && name != "") print kind, name, (path == "" ? "-" : path)
        name = ""; path = ""
    }
    /^[[:space:]]*\[/ {
        flush()
        kind = ""
        if ($0 ~ /^\[\[bin\]\]/) kind = "bin"
        else if ($0 ~ /^\[\[bench\]\]/) kind = "bench"
        else if ($0 ~ /^\[\[test\]\]/) kind = "test"
        else if ($0 ~ /^\[\[example\]\]/) kind = "example"
        next
    }
    kind != "" && /^[[:space:]]*name[[:space:]]*=/ {
        v = $0; sub(/^[^=]*=[[:space:]]*"/, "", v); sub(/".*$/, "", v); name = v
    }
    kind != "" && /^[[:space:]]*path[[:space:]]*=/ {
        v = $0; sub(/^[^=]*=[[:space:]]*"/, "", v); sub(/".*$/, "", v); path = v
    }
    END { flush() }
' Cargo.toml | while read -r kind name path; do
    if [ "$path" = "-" ]; then
        case "$kind" in
            bin) path="src/bin/$name.rs" ;;
            bench) path="benches/$name.rs" ;;
            test) path="tests/$name.rs" ;;
            example) path="examples/$name.rs" ;;
        esac
    fi
    mkdir -p "$(dirname "$path")"
    echo 'fn main() {}' > "$path"
done
