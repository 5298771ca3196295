#pragma once
// gRPC's own log lines, forwarded to the daemon's log (they went to stderr, past the journal's
// levels), and the one event of gRPC's that the daemon counts from them: a call abandoned while
// it was being received because the transport's memory (--transport-memory, gRPC's resource
// quota) was spent. gRPC refuses such a call itself, before any handler sees it, and tells the
// client only RESOURCE_EXHAUSTED ("Received RST_STREAM with error code 11"); its resource-quota
// trace is the only place that says so, so that trace is switched on and its lines read here.

#include "daemon/counters.hpp"

namespace d4r::daemon {

// Once, after the first gRPC server or channel exists (gRPC is initialised). `counters` must
// outlive every gRPC thread.
void forward_grpc_log(Counters& counters);

} // namespace d4r::daemon
