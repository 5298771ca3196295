#pragma once
// Another daemon's store as a tier (cache/tier.hpp), asked after the local store: a desktop's
// d4r-kerneld (--listen) serves what it built to a handheld's (--upstream), which keeps it.
//
// A lookup is one FetchObject call over TLS with this machine's bearer token, within the tier's
// budget. What comes back is native code, which nothing here can check by reading it: it is
// taken only with the build server's signature over the object, its launch metadata and this
// very key (trust/object_signature.hpp), made by the key the user pinned (--upstream-key). An
// unsigned object, another signer, or a signature that does not match is refused, logged by the
// chain with the reason, and the upstream is backed off like one that is down; the daemon then
// builds locally. store() keeps nothing there: the server builds its own. build() asks the server
// to build what neither store has (uploading the game's module if the server lacks it), after
// which lookup() fetches it, signed, as any object of the server's.

#include "cache/tier.hpp"
#include "daemon/config.hpp"
#include "trust/public_key.hpp"
#include "util/error.hpp"

#include <memory>
#include <string>

namespace d4r::daemon {

struct UpstreamOptions {
  std::string address;    // HOST:PORT
  std::string root_certs; // PEM; empty: the system's roots
  std::string token;      // sent as "authorization: Bearer TOKEN"
  trust::PublicKey pinned;
};

// The options of the config's --upstream flags, with the CA and token files read; an error names
// the file and what is wrong with it.
[[nodiscard]] Expected<UpstreamOptions> upstream_options(const DaemonConfig& config);

[[nodiscard]] std::unique_ptr<cache::Tier> make_upstream_tier(UpstreamOptions options);

} // namespace d4r::daemon
