#include "client/compiled_answer.hpp"

#include "client/object_file.hpp"
#include "d4r/kernel/v1/kernel.pb.h"
#include "util/compiled_key.hpp"
#include "util/digest.hpp"

#include <cstring>

namespace d4r::client {

namespace pb = d4r::kernel::v1;

namespace {

Error malformed(const std::string& what)
{
  return Error{ErrorCode::invalid_argument, "compiled module: malformed reply: " + what};
}

} // namespace

Expected<std::unique_ptr<CompiledAnswer>>
CompiledAnswer::from_reply(pb::LookupCompiledReply& reply, Mode asked_mode,
                           std::chrono::steady_clock::time_point read_deadline)
{
  // Accuracy mode never gets a fast-mode object, nor the reverse.
  const pb::Mode asked = asked_mode == Mode::accuracy ? pb::MODE_ACCURACY : pb::MODE_FAST;
  if (reply.mode() != asked) {
    return std::unexpected(malformed("answer is for another mode"));
  }
  pb::CodeObject& object = *reply.mutable_object();
  if (object.sha256().size() != 32 || object.size() <= 0 || object.size() > k_max_compiled_bytes) {
    return std::unexpected(malformed("object digest or size is invalid"));
  }
  Sha256 digest{};
  std::memcpy(digest.data(), object.sha256().data(), digest.size());
  auto answer = std::make_unique<CompiledAnswer>();
  if (object.has_path()) {
    TRY_ASSIGN(answer->bytes, read_verified_object(object.path(), object.size(), digest,
                                                   read_deadline));
  } else if (object.has_data()) {
    answer->bytes = std::move(*object.mutable_data());
    if (static_cast<int64_t>(answer->bytes.size()) != object.size() ||
        sha256(answer->bytes) != digest) {
      return std::unexpected(malformed("object bytes do not match their size and sha256"));
    }
  } else {
    return std::unexpected(malformed("object has neither bytes nor a path"));
  }
  answer->code = answer->bytes.data();
  answer->code_size = answer->bytes.size();
  const std::string hex = to_hex(digest);
  std::memcpy(answer->sha256_hex, hex.c_str(), hex.size() + 1);
  answer->mode = asked_mode == Mode::accuracy ? D4RK_MODE_ACCURACY : D4RK_MODE_FAST;
  return answer;
}

} // namespace d4r::client
