#!/bin/sh
# config_command.sh D4R_KERNEL: `d4r-kernel config` as a user runs it: the built binary with a
# temporary XDG_CONFIG_HOME, D4R_* variables and flags; each value and its source checked in the
# table and in the --json document (parsed by python3), the exit status on a bad value.
set -u
cli=$1
. "$(dirname "$0")/cli_lib.sh" # $work, fail, expect_status, expect_json_stdout, finish

# run STATUS ARGS...: the tool in a clean environment (only what the test sets), out and err kept.
run() {
  want=$1
  shift
  env -i PATH="$PATH" HOME="$work/home" XDG_RUNTIME_DIR="$work/run" XDG_CONFIG_HOME="$work/cfg" \
    $extra "$cli" "$@" </dev/null >"$work/out" 2>"$work/err"
  got=$?
  [ "$got" -eq "$want" ] || fail "d4r-kernel $* ($extra) exited $got, expected $want: $(cat "$work/out" "$work/err")"
}

# json_value NAME FIELD: a field of one setting of the --json document in out.
json_value() {
  python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
for s in doc["settings"]:
    if s["name"] == sys.argv[2]:
        print(json.dumps(s[sys.argv[3]]))' "$work/out" "$1" "$2"
}

expect_json() { # NAME FIELD WANT
  got=$(json_value "$1" "$2") || { fail "not a JSON document: $(cat "$work/out")"; return; }
  [ "$got" = "$3" ] || fail "$1.$2 is $got, expected $3 ($extra): $(cat "$work/out")"
}

expect_line() { # REGEX: a line of the table
  grep -Eq "$1" "$work/out" || fail "no line matching '$1' ($extra): $(cat "$work/out")"
}

# Nothing set: every default, the socket by the shared rule.
extra=""
run 0 config
expect_line "^config file: $work/cfg/d4r-kerneld/config \(not there\)$"
expect_line "^socket +$work/run/d4r-kerneld/socket +default "
expect_line "^PreferAccuracy +false +default "
expect_line "^NativeFp8 +true +default "
run 0 config --json
expect_json socket value "\"$work/run/d4r-kerneld/socket\""
expect_json PreferAccuracy value false
expect_json PreferAccuracy source '"default"'
expect_json NativeSwinEncoders value true

# The file, in d4r.ini's syntax.
mkdir -p "$work/cfg/d4r-kerneld"
printf '; from d4r.ini\n[Kernels]\nPreferAccuracy = true\nNativeFp8 = off\nIgnoreDenormals = true\n' \
  >"$work/cfg/d4r-kerneld/config"
run 0 config
expect_line "^PreferAccuracy +true +file +$work/cfg/d4r-kerneld/config:3$"
expect_line "^NativeFp8 +false +file "
expect_line "^note: .*IgnoreDenormals is not read by d4r-kerneld"
run 0 config --json
expect_json PreferAccuracy value true
expect_json PreferAccuracy source '"file"'
expect_json NativeFp8 value false

# The environment over the file, each spelling.
for spelling in 0 off FALSE No; do
  extra="D4R_PREFER_ACCURACY=$spelling"
  run 0 config --json
  expect_json PreferAccuracy value false
  expect_json PreferAccuracy source '"env"'
  expect_json PreferAccuracy from "\"D4R_PREFER_ACCURACY=$spelling\""
done
extra="D4R_ZLUDA_WMMA_FP8_NATIVE=YES D4R_GPU_ARCH=gfx1201 D4R_KERNELD_SOCKET=$work/other.sock"
run 0 config --json
expect_json NativeFp8 value true
expect_json NativeFp8 source '"env"'
expect_json target value '"gfx1201"'
expect_json target source '"env"'
expect_json socket value "\"$work/other.sock\""
expect_json socket source '"env"'

# Flags over the environment.
extra="D4R_PREFER_ACCURACY=1 D4R_GPU_ARCH=gfx1201"
run 0 config --mode fast --no-swin-encoders --target gfx1100 --socket "$work/flag.sock" --json
expect_json PreferAccuracy value false
expect_json PreferAccuracy source '"flag"'
expect_json PreferAccuracy from '"--mode fast"'
expect_json NativeSwinEncoders source '"flag"'
expect_json target value '"gfx1100"'
expect_json socket source '"flag"'
run 0 config --mode fast
expect_line "^PreferAccuracy +false +flag +--mode fast$"

# The positive switch flags (d4r-kerneld takes the same) win over a variable and the file that
# turned the switch off; the last of two flags wins.
extra="D4R_ZLUDA_WMMA_FP8_NATIVE=0 D4R_NATIVE_SWIN_ENCODERS=off"
run 0 config --fp8 --swin-encoders
expect_line "^NativeFp8 +true +flag +--fp8$"
expect_line "^NativeSwinEncoders +true +flag +--swin-encoders$"
run 0 config --json --fp8 --no-fp8
expect_json NativeFp8 value false
expect_json NativeFp8 from '"--no-fp8"'
extra=""
run 2 config --fp8=yes

# A value in no spelling: said, exit 1, the file's value serves.
extra="D4R_PREFER_ACCURACY=maybe"
run 1 config
expect_line "^problem: D4R_PREFER_ACCURACY=maybe: not a switch value \(write 1/true/on/yes or 0/false/off/no\)"
expect_line "^PreferAccuracy +true +file "
run 1 config --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["problems"]) == 1, d' \
  "$work/out" || fail "--json problems: $(cat "$work/out")"
extra=""
run 2 config --mode sometimes
run 2 config extra-argument
run 0 config --help
grep -q 'PreferAccuracy, NativeFp8, NativeSwinEncoders' "$work/out" || fail "config --help"

finish config_command
