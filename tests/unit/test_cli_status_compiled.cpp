// `d4r-kernel status`'s line for the hook's own compiled modules, text and --json, from a reply.

#include "cli/json_writer.hpp"
#include "cli/output.hpp"
#include "cli/status_compiled.hpp"

#include <gtest/gtest.h>

namespace d4r::cli {
namespace {

pb::StatusReply two_stores()
{
  pb::StatusReply reply;
  pb::StoreStats* fast = reply.add_stores();
  fast->set_mode(pb::MODE_FAST);
  fast->set_entries(12);
  fast->set_compiled_entries(1);
  fast->set_compiled_bytes(1536);
  fast->set_max_bytes(4LL << 30);
  pb::StoreStats* accuracy = reply.add_stores();
  accuracy->set_mode(pb::MODE_ACCURACY);
  accuracy->set_compiled_entries(3);
  accuracy->set_compiled_bytes(512);
  return reply;
}

TEST(StatusCompiled, OneLineWithEntriesBytesAndTheCap)
{
  EXPECT_EQ(compiled_store_text(two_stores()),
            "zluda compiles: fast 1 entry, 1.5 KiB of 4.0 GiB; accuracy 3 entries, 512 B of "
            "unlimited (in the stores above, sharing their cap)\n");
  EXPECT_EQ(compiled_store_text(pb::StatusReply()), "") << "no stores, no line";
  std::string status = status_text(two_stores(), "/s");
  EXPECT_NE(status.find("\nzluda compiles: fast 1 entry"), std::string::npos) << status;
}

TEST(StatusCompiled, JsonHasAnArrayOfItsOwn)
{
  JsonWriter json;
  json.begin_object();
  compiled_store_json(json, two_stores());
  json.end_object();
  EXPECT_EQ(json.text(), R"({"compiled_store":[{"mode":"fast","entries":1,"bytes":1536,)"
                         R"("max_bytes":4294967296},{"mode":"accuracy","entries":3,"bytes":512,)"
                         R"("max_bytes":0}]})");
  JsonWriter status;
  status_json(status, two_stores(), "/s");
  EXPECT_NE(status.text().find(R"("compiled_store":[{"mode":"fast","entries":1)"),
            std::string::npos)
      << status.text();
}

} // namespace
} // namespace d4r::cli
