// The game name a client sends: the executable's name, the Windows one under Wine, always valid
// UTF-8 without control characters (protobuf refuses other strings), never a path.

#include "client/game_name.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace d4r::client {
namespace {

TEST(GameName, TheExecutablesBasename)
{
  EXPECT_EQ(game_name_from("/usr/games/supertuxkart", "supertuxkart"), "supertuxkart");
  EXPECT_EQ(game_name_from("/opt/x/Game Name", "whatever"), "Game Name");
}

TEST(GameName, UnderWineTheWindowsExecutable)
{
  EXPECT_EQ(game_name_from("/usr/lib/wine/wine64-preloader", "C:\\Games\\Cyberpunk\\bin\\Cyberpunk2077.exe"),
            "Cyberpunk2077.exe");
  EXPECT_EQ(game_name_from("/home/u/.steam/proton/files/bin/wine-preloader", "Z:\\home\\u\\game\\GAME.EXE"),
            "GAME.EXE");
  EXPECT_EQ(game_name_from("/usr/bin/wine", "/home/u/setup.exe"), "setup.exe");
  // Not a Windows program's name: the loader's own.
  EXPECT_EQ(game_name_from("/usr/lib/wine/wine64", "wineboot"), "wine64");
}

TEST(GameName, CleanedAndBounded)
{
  EXPECT_EQ(game_name_from("/x/a\nb\x01", ""), "a?b?");
  EXPECT_EQ(game_name_from("/x/bad\xff\xc3utf8", ""), "bad??utf8");
  EXPECT_EQ(game_name_from("/x/caf\xc3\xa9", ""), "caf\xc3\xa9");
  EXPECT_EQ(game_name_from("/x/" + std::string(200, 'a'), "").size(), k_max_game_bytes);
  std::string near_cut = std::string(63, 'a') + "\xe2\x82\xac"; // a 3-byte euro sign over the cut
  EXPECT_EQ(game_name_from("/x/" + near_cut, ""), std::string(63, 'a'));
}

TEST(GameName, ThisProcess)
{
  EXPECT_EQ(this_game(), std::filesystem::read_symlink("/proc/self/exe").filename().string());
}

} // namespace
} // namespace d4r::client
