#!/usr/bin/env bash
# translator_fingerprint.sh SOURCE_DIR: the translator's fingerprint (compiler/translate/
# fingerprint.cmake) is derived from its inputs: the same tree gives the same digest, a changed byte
# in any input, a new input file or another LLVM version gives another, and a file outside its
# inputs changes nothing. Run on a copy of the inputs, so the real tree is never touched.
set -u
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
script="$source_dir/compiler/translate/fingerprint.cmake"
tree="$work/tree"
mkdir -p "$tree/compiler/translate" "$tree/compiler/ptx" "$tree/kernels/support" "$tree/docs"
cp "$source_dir"/compiler/translate/*.cpp "$tree/compiler/translate/"
cp "$source_dir"/compiler/ptx/*.cpp "$tree/compiler/ptx/"
cp "$source_dir"/kernels/support/*.c "$tree/kernels/support/"
echo "not an input" > "$tree/docs/notes.md"
failures=0
digest() { # digest LLVM_VERSION: the fingerprint the script writes for $tree
  rm -f "$work/out.cpp"
  cmake -DD4R_FINGERPRINT_ROOT="$tree" -DD4R_FINGERPRINT_LLVM="$1" \
    -DD4R_FINGERPRINT_OUTPUT="$work/out.cpp" -P "$script" || { echo "FAIL: the script failed"; exit 1; }
  grep -oE '"[0-9a-f]{64}"' "$work/out.cpp" | tr -d '"'
}
expect() { # expect same|different A B WHAT
  if { [ "$1" = same ] && [ "$2" != "$3" ]; } || { [ "$1" = different ] && [ "$2" = "$3" ]; }; then
    echo "FAIL: $4 ($2 vs $3)"
    failures=$((failures + 1))
  fi
}
base=$(digest 19.1.7)
[ ${#base} -eq 64 ] || { echo "FAIL: no 64-digit fingerprint in the output"; exit 1; }
expect same "$base" "$(digest 19.1.7)" "the same inputs give the same fingerprint"
echo "changed" >> "$tree/docs/notes.md"
expect same "$base" "$(digest 19.1.7)" "a file outside the inputs changes nothing"
expect different "$base" "$(digest 19.1.8)" "another LLVM version changes it"
lowering=$(ls "$tree"/compiler/translate/lower_*.cpp | head -1)
cp "$lowering" "$work/saved.cpp"
printf ' ' >> "$lowering"
expect different "$base" "$(digest 19.1.7)" "one byte more in $(basename "$lowering") changes it"
cp "$work/saved.cpp" "$lowering"
expect same "$base" "$(digest 19.1.7)" "restoring the file restores it"
support=$(ls "$tree"/kernels/support/*.c | head -1)
printf '\n' >> "$support"
expect different "$base" "$(digest 19.1.7)" "a support library change changes it"
cp "$source_dir/kernels/support/$(basename "$support")" "$support"
echo "// new" > "$tree/compiler/translate/lower_new.cpp"
expect different "$base" "$(digest 19.1.7)" "a new translator file changes it"
[ "$failures" -eq 0 ] && echo "translator_fingerprint: ok"
exit "$failures"
