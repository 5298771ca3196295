#pragma once
// Builds shared among the hosts of a tier that shares jobs (the Redis tier's job stream): a host
// whose workers are all busy offers a game's build it has queued (BuildService), and a host with
// an idle worker takes it and builds it as background work, through the same path as its own
// (single-flight, the tiers' claim on the key, the result stored in the shared tier). The host
// that offered it, reaching it in its own queue, finds it built or waits for that build (the
// claim), so an idle host lends its workers to a busy one. A host that dies with a job it took
// has it taken by another after the tier's timeout (at least once); a job whose recipe this host
// does not have, or whose module does not match its hash, is finished unbuilt: its host builds
// it. A host that reads its own offer (its take began while it was still idle) puts it back.

#include "cache/tier_chain.hpp"
#include "daemon/build_service.hpp"
#include "daemon/module_store.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace d4r::daemon {

// What a shared job says: enough for another host with the same recipes to build the same key.
struct SharedBuild {
  std::string recipe; // its name: the other host must have one of that name for the kernel
  std::string kernel;
  std::string target;
  Mode mode = Mode::fast;
  uint64_t module_hash = 0; // ptx recipes: the module's FNV-1a 64 (the job carries its bytes)
};

// "d4r-build 1\nRECIPE\nKERNEL\nTARGET\nMODE\nHASH" (HASH 16 hex digits).
[[nodiscard]] std::string encode_shared_build(const SharedBuild& build);
[[nodiscard]] std::optional<SharedBuild> decode_shared_build(std::string_view body);

// The taking side: one thread that, while this host's builds leave a worker idle, takes jobs
// from the tiers and builds them here.
class SharedBuildTaker {
public:
  SharedBuildTaker(BuildService& builds, cache::TierChain& tiers, ModuleStore& modules);
  ~SharedBuildTaker(); // stops taking; a build under way goes on without it
  SharedBuildTaker(const SharedBuildTaker&) = delete;
  SharedBuildTaker& operator=(const SharedBuildTaker&) = delete;

private:
  void run(const std::stop_token& stop);
  void build(const cache::ChainJob& job, const std::stop_token& stop);

  BuildService& m_builds;
  cache::TierChain& m_tiers;
  ModuleStore& m_modules;
  std::jthread m_thread;
};

} // namespace d4r::daemon
