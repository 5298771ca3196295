#pragma once
// A tier: one place that may hold cached objects by key (the local store, an upstream daemon, a
// Redis store shared by build hosts). The daemon core asks an ordered list of them (TierChain,
// tier_chain.hpp), nearest first, each within its own time budget; a hit backfills the nearer
// tiers; a tier that fails is skipped and backed off. The core knows no tier's protocol: a remote
// tier is a class behind a factory that returns std::unique_ptr<Tier> (ccache's RemoteStorage).
//
// The contract, for implementers:
// - lookup() and store() return within `budget` (measured from the call). Past it they give up
//   and return TierFailure{timeout = true}; they never block on a peer longer than that.
// - A miss is not a failure: lookup returns an empty optional. A failure (peer down, refused,
//   protocol error, timeout) is a TierFailure; the chain then skips the tier for a backoff.
// - What lookup returns is the object as stored: `digest` is its SHA-256 and `bytes` must hash to
//   it. The chain checks that and treats a mismatch as a miss of that tier (the next one is
//   asked); a tier need not check, but must not return bytes it knows to be damaged.
// - `metadata` is opaque to tiers: the cache's own encoding of the launch metadata
//   (launch_metadata.hpp), stored and returned byte for byte.
// - The key's text form for a tier's own index is CacheKey::to_text(mode) (cache_key.hpp).
// - Calls may come from several threads at once: an implementation serialises what it must.
// - store() is best effort: a tier that cannot keep the object (read-only, full) returns success
//   or a failure, and the chain only logs it.

#include "cache/cache_key.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::cache {

// An object as tiers pass it around.
struct TierObject {
  Sha256 digest{};              // SHA-256 of `bytes`
  std::vector<std::byte> bytes; // the code object
  std::string metadata;         // launch_metadata.hpp's encoding, opaque to the tier
  std::string source;           // where it came from, for people ("build:...", "upstream:HOST")
};

// Why a tier did not answer (ccache's Failure): an error, and whether it was its budget running
// out (`timeout`) rather than the tier refusing or being down.
struct TierFailure {
  Error error;
  bool timeout = false;
};

template <typename T> using TierResult = std::expected<T, TierFailure>;

// Who builds a key among the hosts that share a tier: this caller (holding the tier's claim on
// the key until it settles it), or another host, which the tier waited for.
enum class ClaimState { yours, built_elsewhere };

struct Claim {
  ClaimState state = ClaimState::yours;
  std::string token; // the tier's own, for settle(); empty: nothing to settle
};

// A build one host offers the hosts sharing a tier: `body` is the daemon's description of it
// (opaque to tiers), `module` the PTX module it builds from (empty: none).
struct TierJob {
  std::string id; // the tier's own, for finish()
  std::string body;
  std::vector<std::byte> module;
  bool own = false; // offered by this host (taken back while it waited for another to take it)
};

class Tier {
public:
  virtual ~Tier() = default;

  // For logs and status: "local", "upstream:build.example:7474", "redis:127.0.0.1:6379".
  [[nodiscard]] virtual std::string name() const = 0;

  // The object stored for (mode, key), or an empty optional when the tier has none.
  [[nodiscard]] virtual TierResult<std::optional<TierObject>>
  lookup(Mode mode, const CacheKey& key, std::chrono::milliseconds budget) = 0;

  // Keeps the object for (mode, key): a backfill after a farther tier's hit, or a new build.
  [[nodiscard]] virtual TierResult<void> store(Mode mode, const CacheKey& key,
                                               const TierObject& object,
                                               std::chrono::milliseconds budget) = 0;

  // A tier that is a build server builds the object for (mode, key) itself, within `budget`:
  // true when it did (lookup() then finds it), false when it builds nothing or declined this one
  // (it has no recipe for the kernel, say: the caller builds). `module` is the PTX module file a
  // key with a module hash is built from; the tier sends it only where it is missing. Most
  // tiers build nothing.
  [[nodiscard]] virtual TierResult<bool> build(Mode /*mode*/, const CacheKey& /*key*/,
                                               const std::filesystem::path& /*module*/,
                                               std::chrono::milliseconds /*budget*/)
  {
    return false;
  }

  // A build host's single flight across machines, before a build of (mode, key): yours (with a
  // token when the tier now holds the key for this caller), or built_elsewhere when another
  // host held it and the tier waited, within `budget`, until that build ended (lookup() then
  // finds the object, unless that host failed: the caller builds it then). A tier no other host
  // builds through answers yours.
  [[nodiscard]] virtual TierResult<Claim> claim(Mode /*mode*/, const CacheKey& /*key*/,
                                                std::chrono::milliseconds /*budget*/)
  {
    return Claim{};
  }
  // After the caller's build of a claim with a token (stored already when it succeeded): the
  // key is given up, and hosts waiting on it look again. Best effort: a claim not settled
  // expires on its own.
  virtual void settle(Mode /*mode*/, const CacheKey& /*key*/, const Claim& /*claim*/) {}

  // Work sharing among the hosts of a shared tier: a host whose workers are all busy offers a
  // build (true: the tier took it), a host with an idle worker takes one, waiting at most `wait`
  // for one to come (nullopt: none came), and finishes it, built or not. Delivery is at least
  // once: a job a host took and never finished (it died) is given to another after the tier's
  // timeout. Most tiers share no work.
  [[nodiscard]] virtual TierResult<bool> offer(std::string_view /*body*/,
                                               std::span<const std::byte> /*module*/,
                                               std::chrono::milliseconds /*budget*/)
  {
    return false;
  }
  [[nodiscard]] virtual TierResult<std::optional<TierJob>> take(std::chrono::milliseconds /*wait*/,
                                                                std::chrono::milliseconds /*budget*/)
  {
    return std::optional<TierJob>();
  }
  virtual void finish(const TierJob& /*job*/) {}

  // The hosts sharing this tier that are alive now (each one's heartbeat), for status; none for
  // a tier that is no one else's.
  [[nodiscard]] virtual TierResult<std::vector<std::string>> hosts(std::chrono::milliseconds /*budget*/)
  {
    return std::vector<std::string>();
  }
};

} // namespace d4r::cache
