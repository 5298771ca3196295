#include "cli/json_writer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace d4r::cli {
namespace {

TEST(CliJson, QuotesAndEscapesSpecialCharacters)
{
  EXPECT_EQ(json_quote(""), "\"\"");
  EXPECT_EQ(json_quote("plain"), "\"plain\"");
  EXPECT_EQ(json_quote("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(json_quote("C:\\dir"), "\"C:\\\\dir\"");
  EXPECT_EQ(json_quote("a\nb\tc\rd\be\ff"), "\"a\\nb\\tc\\rd\\be\\ff\"");
  EXPECT_EQ(json_quote("/slash/"), "\"/slash/\"");
}

TEST(CliJson, EscapesOtherControlBytesAsUnicode)
{
  EXPECT_EQ(json_quote(std::string("a\0b", 3)), "\"a\\u0000b\"");
  EXPECT_EQ(json_quote("\x01\x1f"), "\"\\u0001\\u001f\"");
  EXPECT_EQ(json_quote("\x7f"), "\"\\u007f\"");
}

TEST(CliJson, KeepsValidUtf8)
{
  // é (2 bytes), € (3 bytes), 😀 (4 bytes).
  std::string text = "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  EXPECT_EQ(json_quote(text), "\"" + text + "\"");
}

TEST(CliJson, EscapesBytesThatAreNotUtf8)
{
  EXPECT_EQ(json_quote("\xff"), "\"\\u00ff\"");
  // A lone continuation byte, a truncated sequence and a lead byte followed by ASCII.
  EXPECT_EQ(json_quote("\x80"), "\"\\u0080\"");
  EXPECT_EQ(json_quote("\xe2\x82"), "\"\\u00e2\\u0082\"");
  EXPECT_EQ(json_quote("\xc3x"), "\"\\u00c3x\"");
  // Overlong "/" (c0 af), a UTF-16 surrogate (ed a0 80) and a code point past U+10FFFF.
  EXPECT_EQ(json_quote("\xc0\xaf"), "\"\\u00c0\\u00af\"");
  EXPECT_EQ(json_quote("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");
  EXPECT_EQ(json_quote("\xf4\x90\x80\x80"), "\"\\u00f4\\u0090\\u0080\\u0080\"");
}

TEST(CliJson, WriterPlacesCommasAndKeys)
{
  JsonWriter json;
  json.begin_object();
  json.key("name").string("k\"1");
  json.key("size").number(-12);
  json.key("hash").unsigned_number(0xffffffffffffffffULL);
  json.key("ok").boolean(true);
  json.key("none").null();
  json.key("list").begin_array();
  json.number(1).number(2);
  json.begin_object().end_object();
  json.begin_array().end_array();
  json.end_array();
  json.key("empty").begin_object().end_object();
  EXPECT_FALSE(json.complete());
  json.end_object();
  EXPECT_TRUE(json.complete());
  EXPECT_EQ(json.text(), R"({"name":"k\"1","size":-12,"hash":18446744073709551615,"ok":true,)"
                         R"("none":null,"list":[1,2,{},[]],"empty":{}})");
}

TEST(CliJson, KeysAreEscapedToo)
{
  JsonWriter json;
  json.begin_object().key("a\nb").boolean(false).end_object();
  EXPECT_EQ(json.text(), "{\"a\\nb\":false}");
}

} // namespace
} // namespace d4r::cli
