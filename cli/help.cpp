#include "cli/help.hpp"

#include "cli/config_options.hpp"
#include "cli/metrics.hpp"
#include "cli/release_options.hpp"
#include "cli/key_command.hpp"
#include "cli/token_command.hpp"
#include "cli/warm_options.hpp"

namespace d4r::cli {

namespace {

constexpr std::string_view k_global_help = R"(usage: d4r-kernel [GLOBAL OPTIONS] COMMAND [OPTIONS]

Talks to d4r-kerneld, the kernel JIT daemon, over its Unix socket.

commands:
  status    the daemon's version, target, native dir, cache statistics and counters
  metrics   the same counters as a Prometheus text-format scrape
  resolve   ask for the replacement of one kernel of one PTX module (--out saves it)
  build     build a kernel from its recipe for a target and mode (--out saves it)
  import    import a d4r release directory into the cache
  export    write the cached kernels as a d4r release directory (for another machine)
  warm      build ahead, in the daemon's background, every kernel a DLL's modules would be served
  list      the cached kernels
  purge     remove cached kernels (--older-than 30d: only those unused since)
  pin       keep a game's kernels from the size cap and purge (unpin: let them go)
  ptx       inspect a PTX file, fatbin or DLL locally: modules, hashes, entries; or
            rewrite one of its modules with a recipe's passes
  config    every setting (socket, [Kernels] switches, target) and where it came from:
            flag, environment, $XDG_CONFIG_HOME/d4r-kerneld/config or default
  doctor    check this machine's setup (GPU, toolchains, socket, units, release, cache,
            environment) and say what to fix
  token     the named clients of a build server (--listen): add NAME, list, revoke NAME
  key       key show: the public key a build server signs results with, for clients to pin
  help      help on a command (also: d4r-kernel COMMAND --help)

global options (allowed anywhere on the line):
  --socket PATH     the daemon's socket (default: $D4R_KERNELD_SOCKET, else the rule games and
                    the daemon share: $XDG_RUNTIME_DIR/d4r-kerneld/socket, else
                    /run/user/UID/d4r-kerneld/socket)
  --json            print one JSON document on stdout instead of tables
  --timeout-ms N    give up on the daemon after N ms (default 5000; import: 600000)
  -h, --help        this help, or a command's help
  --version         print the version of d4r-kernel

exit status:
  0  success (resolve: READY)
  1  resolve: NOT_FOUND; doctor: a check FAILed; config: a value was not understood
  2  usage error (bad option or value; purge without --yes when stdin is not a terminal)
  3  resolve: PENDING (still building when the wait budget ran out)
  4  resolve: REJECTED
  5  the daemon is unreachable, failed the call, or sent a reply that does not check out
  6  a local step failed (writing the --out file; ptx: reading or decoding FILE)
  130  warm: interrupted (Ctrl-C)
)";

constexpr std::string_view k_status_help = R"(usage: d4r-kernel status [--json]

Prints the daemon's version, pid and uptime, the detected GPU target, the native (release) dir,
per accuracy mode the cache entries, bytes and size cap, hits, misses, evictions and quarantined
objects, the trash (removed objects waiting out their grace) and index replacements, a line
for ZLUDA's own compiles shared through the daemon (entries and bytes per mode, of the same cap;
client/zluda_compiles.md), and the daemon's counters; then per mode Resolve hits and misses, why each miss missed (new, evicted,
stale_toolchain, stale_translator, corrupt, unlisted_hash, rejected, unsupported_instruction,
build_failed, host_variables, tensor_maps, no_replacement, no_module, busy, in_flight, error),
build times (average, max, a histogram) and bytes served and built; per game (the executable
name each game's client sends; kept in the daemon, shown here, sent nowhere) hits, misses and
builds. `d4r-kernel metrics` prints the same as a Prometheus scrape.
)";

constexpr std::string_view k_resolve_help =
    R"(usage: d4r-kernel resolve --module-hash HEX --kernel NAME [OPTIONS]

Asks the daemon for the replacement of kernel NAME of the PTX module whose FNV-1a 64 hash is HEX,
as a game's hook would, and prints the outcome, reason, sha256, size, target and launch metadata.

options:
  --module-hash HEX     16 hex digits, as d4r-kernels.txt lists the module (required)
  --kernel NAME         the .entry name, [A-Za-z0-9_$], at most 8192 bytes (required)
  --mode fast|accuracy  the accuracy mode (default: the daemon's)
  --target gfxNNNN      gfx1100-gfx1103, gfx1200 or gfx1201 (default: the daemon's GPU)
  --no-fp8              as D4R_ZLUDA_WMMA_FP8_NATIVE=0: no -fp8 folder on gfx12
  --no-swin-encoders    as D4R_NATIVE_SWIN_ENCODERS=0
  --wait-ms N           how long the daemon may build before answering PENDING (0: its default);
                        added to --timeout-ms for this call
  --out FILE            save the code object to FILE once its sha256 checks out (written to a
                        temporary file and renamed, so FILE is never partial)

exit status: 0 READY, 1 NOT_FOUND, 2 usage error, 3 PENDING, 4 REJECTED,
             5 daemon unreachable or bad reply (sha256 mismatch included), 6 FILE not written
)";

constexpr std::string_view k_build_help =
    R"(usage: d4r-kernel build --kernel NAME [--target gfxNNNN] [--mode fast|accuracy] [OPTIONS]

Builds kernel NAME from its recipe (kernels/recipes) for a target and accuracy mode through the
daemon, whatever module will ask for it (to warm a machine, or to try a recipe), and prints the
outcome and launch metadata as resolve does. The build runs in an isolated worker process.

options:
  --kernel NAME         a kernel that a recipe serves (required)
  --target gfxNNNN      gfx1100-gfx1103, gfx1200 or gfx1201 (default: the daemon's GPU)
  --mode fast|accuracy  the accuracy mode (default: the daemon's)
  --wait-ms N           how long to wait for the build (default 300000); PENDING past it
  --out FILE            save the code object to FILE once its sha256 checks out

exit status: 0 READY, 1 NOT_FOUND (no recipe, or the build failed: see the reason), 2 usage error,
             3 PENDING, 5 daemon unreachable or bad reply, 6 FILE not written
)";

constexpr std::string_view k_import_help = R"(usage: d4r-kernel import [DIR] [--json]

Imports the code objects of a d4r release directory (per-target folders, -fp8, accuracy/,
manifests) into the daemon's cache. DIR is made absolute before it is sent; without DIR the daemon
imports its configured native dir (--native-dir or D4R_ZLUDA_NATIVE_DIR). Prints how many objects
were imported, how many were already present, and one line per object that was skipped.
)";

constexpr std::string_view k_list_help = R"(usage: d4r-kernel list [--mode fast|accuracy] [--json]

Lists the cached kernels: kernel, module hash, target, mode, size, sha256 prefix, source and the
time it was last served (UTC). Without --mode, every mode.
)";

constexpr std::string_view k_purge_help =
    R"(usage: d4r-kernel purge [--mode fast|accuracy] [--older-than DURATION] [--force] [--yes]
                        [--json]

Removes cached kernels (without --mode: of every mode). Asks for confirmation on a terminal;
when stdin is not a terminal, --yes is required. --older-than 30d (s, m, h, d, w) removes only
the entries not served for that long. Pinned entries (d4r-kernel pin) stay unless --force.
)";

constexpr std::string_view k_ptx_help = R"(usage: d4r-kernel ptx inspect FILE [--max-decompressed SIZE] [--json]
       d4r-kernel ptx rewrite --recipe R FILE [--module HASH] [--target T] [-o OUT]
       d4r-kernel ptx translate FILE --target T [--kernel NAME] [--recipe R] [--module HASH]
                                [--mode fast|accuracy] [--emit-llvm] [-o OUT]
       d4r-kernel ptx run FILE --kernel NAME --inputs CASE|DIR [--out DIR] [--module HASH]
                          [--mode fast|accuracy]

inspect reads FILE without the daemon: PTX text, a CUDA fatbin as nvcc writes it (PTX entries
stored, ZSTD- or LZ4-compressed; cubins for several architectures), or any binary with fatbins
embedded in it, such as a DLSS DLL. For each PTX module it prints where it sits in FILE (fatbin and
entry offsets; "-" for plain text), its architecture, its size after decompression, how it was
compressed, its FNV-1a 64 (the hash d4r-kernels.txt lists), its SHA-256 and the names of its .entry
kernels; then the entries it skipped (cubins), with their architecture, size and compression.
Entries are decompressed one at a time, at most 256 MiB each and 1 GiB in all; --max-decompressed
SIZE (bytes, or with K, M or G) sets the limit in all.

rewrite parses one PTX module of FILE (--module HASH picks it when FILE holds several) and runs
the passes recipe R lists ("passes = sust fp8-cvt roundf") on the entries R serves, for target T
(default: R's first target). Each pass's count goes to stderr ("sust: 12 rewrites", "roundf:
unchanged"); the rewritten PTX to stdout, or to OUT.

translate builds what the daemon builds for a ptx recipe: R's passes (when --recipe is given), then
our PTX -> LLVM IR translator and LLVM 19's AMDGPU backend, linked into a code object for target T
(gfx1100-gfx1103, gfx1200, gfx1201) written to OUT. --kernel NAME keeps that one entry. With
--emit-llvm it prints the optimised LLVM IR instead; --target host --emit-llvm shows the IR the CPU
executor runs. An instruction the translator does not know fails with "unsupported: OP at line L".
--mode picks the set, as the daemon's requests do (default fast). The two differ in two places: a
kernel whose other f32 arithmetic is all .ftz and that multiplies matrices with f32 accumulators
runs with f32 denormals flushed by the float mode in the fast set; and on gfx11, which has no FP8
WMMA, the fast set multiplies FP8 matrices with the f16 WMMA, summing as the hardware does, where
the accuracy set sums exactly as the H200's tensor cores.

run translates the kernel for the host and runs it on the CPU executor with the launch described by
a case file (tests/golden/README.md: grid, block and every parameter; inputs are generated from
its seeds): CASE, or the one .case file in DIR. Outputs go to DIR/outN.bin with --out DIR. Each
output with an expected file (CASE's folder: STEM.outN.bin, or ../expected/STEM.outN.bin) is
compared with it, bit for bit unless the case names a tolerance.

exit status: 0 success, 1 run: an output differs from its expected file, 2 usage error, 6 FILE or R
  unreadable, truncated or malformed, without PTX, a pass failed, the translation failed or the
  kernel failed on the CPU (a trap, a deadlock)
)";

constexpr std::string_view k_doctor_help =
    R"(usage: d4r-kernel doctor [--cache-dir DIR] [--native-dir DIR] [--kfd-topology DIR]
                         [--kfd-device PATH] [--worker PATH] [--json]

Checks what a d4r-kerneld setup most often gets wrong, one line per finding:
  ok|warn|FAIL  AREA: what was found  -- what to do
  gpu        /dev/kfd readable and writable, the KFD topology's GPU nodes
             (gfx_target_version) and the one the daemon picks, D4R_GPU_ARCH
  toolchain  d4r-kernel-worker found, the backend of the target, ROCm comgr and the ISAs it knows
  socket     the socket path (the CLI's rule; games use the default), a socket, yours, mode 0600
  daemon     a Status RPC within 2 s (--timeout-ms): the daemon's version
  units      d4r-kerneld.socket and .service installed (~/.config/systemd/user,
             ~/.local/share/systemd/user, /etc/systemd/user, /usr/local/lib/systemd/user,
             /usr/lib/systemd/user), the socket enabled, ExecStart an executable
  release    the release directory's folder per mode, its manifest and accuracy markers
  cache      the cache root and each mode's store writable, its index's integrity, its size
  env        the D4R_* variables a game started here sends (as the client library reads
             them) against the daemon's reading, misspelt names, ~/.config/d4r-kerneld/env
  config file  ~/.config/d4r-kerneld/config ($XDG_CONFIG_HOME) as games and the daemon read it

The paths are the daemon's: its configuration is computed from this environment as d4r-kerneld
computes its own (a running daemon's answer wins for the target, release and cache), and the
options override them as the daemon's flags of the same names do. Nothing is written; the cache
index is opened read-only.

exit status: 0 no check FAILed (warnings allowed), 1 a check FAILed, 2 usage error
)";

} // namespace

std::string help_text(std::string_view topic)
{
  if (topic == "doctor") {
    return std::string(k_doctor_help);
  }
  if (topic == "config") {
    return std::string(config_help());
  }
  if (topic == "status") {
    return std::string(k_status_help);
  }
  if (topic == "metrics") {
    return std::string(metrics_help());
  }
  if (topic == "warm") {
    return std::string(warm_help());
  }
  if (topic == "token") {
    return std::string(token_help());
  }
  if (topic == "key") {
    return std::string(key_help());
  }
  if (topic == "export") {
    return std::string(export_help());
  }
  if (topic == "pin" || topic == "unpin") {
    return std::string(pin_help());
  }
  if (topic == "resolve") {
    return std::string(k_resolve_help);
  }
  if (topic == "build") {
    return std::string(k_build_help);
  }
  if (topic == "import") {
    return std::string(k_import_help);
  }
  if (topic == "list") {
    return std::string(k_list_help);
  }
  if (topic == "purge") {
    return std::string(k_purge_help);
  }
  if (topic == "ptx") {
    return std::string(k_ptx_help);
  }
  return std::string(k_global_help);
}

std::string version_text()
{
  return "d4r-kernel " D4R_VERSION "\n";
}

} // namespace d4r::cli
