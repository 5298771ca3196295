#include "util/boolean_spelling.hpp"

#include <gtest/gtest.h>

#include <string>

namespace d4r {
namespace {

TEST(BooleanSpelling, EveryOnSpellingInAnyCase)
{
  for (const char* text : {"1", "true", "TRUE", "True", "tRuE", "on", "ON", "On", "yes", "YES",
                           "Yes"}) {
    std::optional<bool> value = parse_boolean(text);
    ASSERT_TRUE(value) << text;
    EXPECT_TRUE(*value) << text;
  }
}

TEST(BooleanSpelling, EveryOffSpellingInAnyCase)
{
  for (const char* text : {"0", "false", "FALSE", "False", "off", "OFF", "Off", "no", "NO", "No"}) {
    std::optional<bool> value = parse_boolean(text);
    ASSERT_TRUE(value) << text;
    EXPECT_FALSE(*value) << text;
  }
}

TEST(BooleanSpelling, AnythingElseIsNeitherNotFalse)
{
  for (const char* text : {"", "2", "01", "-1", "maybe", "y", "n", "t", "f", "enable", "disabled",
                           " 1", "1 ", "true\n", "yes please", "nope", "onn", "of"}) {
    EXPECT_FALSE(parse_boolean(text)) << "'" << text << "'";
  }
}

} // namespace
} // namespace d4r
