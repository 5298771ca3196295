// The daemon's view of the token file: the Bearer scheme, and a change to the file (a revoke,
// an add) seen by the next check without a restart.

#include "daemon/token_store.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace d4r::daemon {
namespace {

class TokenStoreTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = ::testing::TempDir() + "d4r-token-store-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_path = m_dir / "tokens";
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::filesystem::path m_dir;
  std::filesystem::path m_path;
};

TEST_F(TokenStoreTest, BearerTokensByVerdict)
{
  TokenFile file;
  file.clients.push_back({"deck", token_hash("d4r_good"), 1, 0});
  file.clients.push_back({"gone", token_hash("d4r_old"), 1, 2});
  ASSERT_TRUE(write_token_file(m_path, file));
  TokenStore store(m_path);
  TokenCheck good = store.check("Bearer d4r_good");
  EXPECT_EQ(good.verdict, TokenVerdict::accepted);
  EXPECT_EQ(good.client, "deck");
  EXPECT_EQ(store.check("Bearer d4r_old").verdict, TokenVerdict::revoked);
  EXPECT_EQ(store.check("Bearer d4r_old").client, "gone");
  EXPECT_EQ(store.check("Bearer d4r_bad").verdict, TokenVerdict::unknown);
  EXPECT_EQ(store.check("").verdict, TokenVerdict::missing);
  EXPECT_EQ(store.check("Bearer ").verdict, TokenVerdict::missing);
  EXPECT_EQ(store.check("d4r_good").verdict, TokenVerdict::missing) << "no scheme";
  EXPECT_EQ(store.check("Basic d4r_good").verdict, TokenVerdict::missing);
}

TEST_F(TokenStoreTest, ChangesToTheFileTakeEffectAtTheNextCheck)
{
  TokenStore store(m_path);
  EXPECT_EQ(store.check("Bearer d4r_a").verdict, TokenVerdict::unknown) << "no file: no clients";
  TokenFile file;
  file.clients.push_back({"a", token_hash("d4r_a"), 1, 0});
  ASSERT_TRUE(write_token_file(m_path, file));
  EXPECT_EQ(store.check("Bearer d4r_a").verdict, TokenVerdict::accepted);
  file.clients[0].revoked_unix = 5; // same size as before but one digit: the stamp still moves
  ASSERT_TRUE(write_token_file(m_path, file));
  EXPECT_EQ(store.check("Bearer d4r_a").verdict, TokenVerdict::revoked);
  // A damaged file keeps the clients read before.
  {
    std::ofstream damaged(m_path, std::ios::trunc);
    damaged << "a not-a-hash 1\n";
  }
  EXPECT_EQ(store.check("Bearer d4r_a").verdict, TokenVerdict::revoked);
  std::filesystem::remove(m_path);
  EXPECT_EQ(store.check("Bearer d4r_a").verdict, TokenVerdict::unknown);
}

} // namespace
} // namespace d4r::daemon
