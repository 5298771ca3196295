#include "cli/output.hpp"

#include "util/digest.hpp"

#include <gtest/gtest.h>

#include <string>

namespace d4r::cli {
namespace {

std::string raw_sha256(std::string_view text)
{
  Sha256 digest = sha256(text);
  return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

bool contains(const std::string& haystack, const std::string& needle)
{
  return haystack.find(needle) != std::string::npos;
}

TEST(CliOutput, TableAlignsColumns)
{
  Table table({"name", "count"}, {Table::Align::left, Table::Align::right});
  table.add_row({"a", "1"});
  table.add_row({"longer", "12345"});
  EXPECT_EQ(table.render(), "name    count\n"
                            "a           1\n"
                            "longer  12345\n");
}

TEST(CliOutput, TableWithoutHeadersHasNoTrailingBlanks)
{
  Table table({}, {Table::Align::left, Table::Align::left});
  table.add_row({"key", ""});
  table.add_row({"k", "value"});
  EXPECT_EQ(table.render(), "key\nk    value\n");
}

TEST(CliOutput, FormatsBytesDurationsAndTimes)
{
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(4LL << 30), "4.0 GiB");
  EXPECT_EQ(format_duration_ms(850), "850 ms");
  EXPECT_EQ(format_duration_ms(42'000), "42s");
  EXPECT_EQ(format_duration_ms(187'000), "3m 07s");
  EXPECT_EQ(format_duration_ms((2 * 3600 + 3 * 60 + 4) * 1000LL), "2h 03m 04s");
  EXPECT_EQ(format_duration_ms((5 * 86400 + 2 * 3600 + 3 * 60) * 1000LL), "5d 02h 03m");
  EXPECT_EQ(format_unix_ms(0), "never");
  EXPECT_EQ(format_unix_ms(1'700'000'000'123), "2023-11-14 22:13:20Z");
}

TEST(CliOutput, Sha256HexChecksTheLength)
{
  std::string digest = raw_sha256("abc");
  EXPECT_EQ(sha256_hex(digest), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "");
  EXPECT_EQ(sha256_hex("short"), "<5 bytes, not a sha256>");
}

TEST(CliOutput, NamesModesAndOutcomes)
{
  EXPECT_EQ(mode_name(pb::MODE_FAST), "fast");
  EXPECT_EQ(mode_name(pb::MODE_ACCURACY), "accuracy");
  EXPECT_EQ(mode_name(pb::MODE_UNSPECIFIED), "default");
  EXPECT_EQ(mode_name(static_cast<pb::Mode>(9)), "mode(9)");
  EXPECT_EQ(outcome_name(pb::ResolveReply::PENDING), "PENDING");
  EXPECT_EQ(outcome_name(static_cast<pb::ResolveReply::Outcome>(42)), "OUTCOME(42)");
}

pb::StatusReply sample_status()
{
  pb::StatusReply reply;
  reply.set_version("0.1.0");
  reply.set_pid(4242);
  reply.set_uptime_ms(61'000);
  reply.set_detected_target("gfx1201");
  reply.set_native_dir("/opt/d4r/kernels");
  pb::StoreStats* fast = reply.add_stores();
  fast->set_mode(pb::MODE_FAST);
  fast->set_entries(12);
  fast->set_bytes(3 * 1024 * 1024);
  fast->set_max_bytes(4LL << 30);
  fast->set_hits(10);
  fast->set_misses(2);
  fast->set_quarantined(1);
  (*reply.mutable_counters())["resolve.ready"] = 10;
  (*reply.mutable_counters())["resolve.not_found.no_manifest_entry"] = 2;
  return reply;
}

TEST(CliOutput, StatusTextShowsEveryPart)
{
  std::string text = status_text(sample_status(), "/run/user/1/d4r-kerneld/socket");
  EXPECT_TRUE(contains(text, "d4r-kerneld 0.1.0 (pid 4242), up 1m 01s\n")) << text;
  EXPECT_TRUE(contains(text, "socket           /run/user/1/d4r-kerneld/socket\n")) << text;
  EXPECT_TRUE(contains(text, "detected target  gfx1201\n")) << text;
  EXPECT_TRUE(contains(text, "native dir       /opt/d4r/kernels\n")) << text;
  EXPECT_TRUE(contains(text, "mode  entries    bytes      max  hits  misses  evictions  "
                             "quarantined\n"))
      << text;
  EXPECT_TRUE(contains(text, "fast       12  3.0 MiB  4.0 GiB    10       2          0"
                             "            1\n"))
      << text;
  // Counters come out sorted by name.
  size_t not_found = text.find("resolve.not_found.no_manifest_entry");
  size_t ready = text.find("resolve.ready");
  ASSERT_NE(not_found, std::string::npos);
  ASSERT_NE(ready, std::string::npos);
  EXPECT_LT(not_found, ready);
}

TEST(CliOutput, StatusJson)
{
  JsonWriter json;
  status_json(json, sample_status(), "/s");
  EXPECT_TRUE(json.complete());
  EXPECT_EQ(
      json.text(),
      R"({"socket":"/s","version":"0.1.0","pid":4242,"uptime_ms":61000,)"
      R"("detected_target":"gfx1201","native_dir":"/opt/d4r/kernels","stores":[{"mode":"fast",)"
      R"("path":"","entries":12,"bytes":3145728,"max_bytes":4294967296,"hits":10,"misses":2,)"
      R"("evictions":0,"quarantined":1,"inserts":0}],)"
      R"("compiled_store":[{"mode":"fast","entries":0,"bytes":0,)"
      R"("max_bytes":4294967296}],"counters":{)"
      R"("resolve.not_found.no_manifest_entry":2,"resolve.ready":10},)"
      R"("builds":{"queued":0,"running":0,"done":0,"elsewhere":0,"failed":0,"negative_hits":0,"recipes":[],)"
      R"("toolchains":{},"recent":[]},)"
      R"("store_trash":[{"mode":"fast","trash_objects":0,"trash_bytes":0,"trash_cut_short":0,)"
      R"("index_replacements":0}],"telemetry":{"modes":[],"games":[]},"tiers":[]})");
}

pb::ResolveReply ready_reply()
{
  pb::ResolveReply reply;
  reply.set_outcome(pb::ResolveReply::READY);
  reply.set_target("gfx1201-fp8");
  reply.set_mode(pb::MODE_FAST);
  reply.mutable_object()->set_sha256(raw_sha256("code"));
  reply.mutable_object()->set_size(4);
  reply.mutable_object()->set_data("code");
  pb::LaunchMetadata* meta = reply.mutable_metadata();
  meta->set_amdhsa_target("amdgcn-amd-amdhsa--gfx1201");
  meta->mutable_main()->set_name("d4r_test_layer");
  meta->mutable_main()->set_kernarg_size(264);
  meta->mutable_main()->set_wave_size(32);
  meta->mutable_prep()->set_name("d4r_test_layer_prep");
  meta->set_prep_blocks(4);
  meta->set_block_z(2);
  pb::PostKernel* post = meta->add_posts();
  post->set_name("d4r_test_layer_post1");
  post->set_grid_x(8);
  return reply;
}

TEST(CliOutput, ResolveTextShowsObjectAndMetadata)
{
  std::string text = resolve_text(ready_reply(), "/tmp/out.hsaco");
  EXPECT_TRUE(contains(text, "outcome        READY\n")) << text;
  EXPECT_TRUE(contains(text, "target         gfx1201-fp8\n")) << text;
  EXPECT_TRUE(contains(text, "sha256         " + sha256_hex(raw_sha256("code")) + "\n")) << text;
  EXPECT_TRUE(contains(text, "size           4 B (4 bytes)\n")) << text;
  EXPECT_TRUE(contains(text, "written to     /tmp/out.hsaco\n")) << text;
  EXPECT_TRUE(contains(text, "main           d4r_test_layer: kernarg 264 B")) << text;
  EXPECT_TRUE(contains(text, "prep blocks    4\n")) << text;
  EXPECT_TRUE(contains(text, "post1          d4r_test_layer_post1: grid 8x0")) << text;
  EXPECT_FALSE(contains(text, "reason")) << text;
}

TEST(CliOutput, ResolveTextOfARejectionShowsTheReasonOnly)
{
  pb::ResolveReply reply;
  reply.set_outcome(pb::ResolveReply::REJECTED);
  reply.set_reason("prep kernel with zero prep blocks");
  std::string text = resolve_text(reply, "");
  EXPECT_TRUE(contains(text, "outcome  REJECTED\nreason   prep kernel with zero prep blocks\n"))
      << text;
  EXPECT_FALSE(contains(text, "sha256")) << text;
}

TEST(CliOutput, ResolveJsonLeavesTheBytesOut)
{
  JsonWriter json;
  resolve_json(json, ready_reply(), "");
  EXPECT_TRUE(json.complete());
  const std::string& text = json.text();
  EXPECT_TRUE(contains(text, R"("outcome":"READY")")) << text;
  EXPECT_TRUE(contains(text, R"("object":{"sha256":")" + sha256_hex(raw_sha256("code")) +
                                 R"(","size":4,"written_to":null})"))
      << text;
  EXPECT_TRUE(contains(text, R"("prep":{"name":"d4r_test_layer_prep")")) << text;
  EXPECT_TRUE(contains(text, R"("posts":[{"name":"d4r_test_layer_post1","grid_x":8,)")) << text;
  EXPECT_FALSE(contains(text, "\"data\"")) << text;

  pb::ResolveReply not_found;
  not_found.set_outcome(pb::ResolveReply::NOT_FOUND);
  JsonWriter other;
  resolve_json(other, not_found, "");
  EXPECT_EQ(other.text(), R"({"outcome":"NOT_FOUND","reason":"","target":"","mode":"default",)"
                          R"("object":null,"metadata":null})");
}

TEST(CliOutput, ListShowsHexHashesAndShortDigests)
{
  pb::ListReply reply;
  pb::CacheEntry* e = reply.add_entries();
  e->set_mode(pb::MODE_ACCURACY);
  e->set_kernel("rrlite_enc1_4x4");
  e->set_module_hash(0x8baeb925f177af87ULL);
  e->set_target("gfx1100");
  e->set_source("import");
  e->set_sha256(raw_sha256("abc"));
  e->set_size(2048);
  std::string text = list_text(reply);
  EXPECT_TRUE(
      contains(text, "kernel           module hash       target   mode         size  sha256"))
      << text;
  EXPECT_TRUE(contains(text, "rrlite_enc1_4x4  8baeb925f177af87  gfx1100  accuracy  2.0 KiB  "
                             "ba7816bf8f01  import  never\n"))
      << text;
  JsonWriter json;
  list_json(json, reply);
  EXPECT_TRUE(contains(json.text(), R"("module_hash":"8baeb925f177af87")")) << json.text();
  EXPECT_TRUE(contains(json.text(), R"("sha256":")" + sha256_hex(raw_sha256("abc")) + "\""));
  EXPECT_EQ(list_text(pb::ListReply()), "no cached kernels\n");
}

TEST(CliOutput, ImportAndPurge)
{
  pb::ImportReply reply;
  reply.set_imported(3);
  reply.set_already_present(5);
  reply.add_problems("gfx1201/x.hsaco: not listed in d4r-kernels.txt");
  std::string text = import_text(reply, "/opt/k");
  EXPECT_TRUE(contains(text, "directory        /opt/k\nimported         3\n")) << text;
  EXPECT_TRUE(contains(text, "already present  5\nproblems         1\n")) << text;
  EXPECT_TRUE(contains(text, "  gfx1201/x.hsaco: not listed")) << text;
  JsonWriter json;
  import_json(json, reply, "");
  EXPECT_EQ(json.text(), R"({"directory":"","imported":3,"already_present":5,"problems":[)"
                         R"("gfx1201/x.hsaco: not listed in d4r-kernels.txt"]})");

  pb::PurgeReply purge;
  purge.set_removed_entries(7);
  purge.set_removed_bytes(3072);
  EXPECT_EQ(purge_text(purge), "removed 7 entries (3.0 KiB)\n");
  JsonWriter purge_doc;
  purge_json(purge_doc, purge);
  EXPECT_EQ(purge_doc.text(), R"({"removed_entries":7,"removed_bytes":3072,"kept_pinned":0})");
}

} // namespace
} // namespace d4r::cli
