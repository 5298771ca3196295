// The daemon's signer: the key is made on first use only, read again (the same key) by a later
// daemon, and a key file that cannot be used makes every signing call fail with its reason.

#include "daemon/result_signer.hpp"

#include "trust/key_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace d4r::daemon {
namespace {

class ResultSignerTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "d4r-test-signer-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::filesystem::path m_dir;
};

TEST_F(ResultSignerTest, MakesTheKeyOnFirstUseAndSignsWithIt)
{
  std::filesystem::path path = m_dir / "state" / "signing.key";
  ResultSigner signer(path);
  EXPECT_FALSE(std::filesystem::exists(path)) << "nothing is made before it is needed";
  std::vector<std::byte> object(100, std::byte{1});
  trust::SignedFields fields{"key text", object, sha256(std::string_view("meta"))};
  Expected<trust::ObjectSignature> signature = signer.sign(fields);
  ASSERT_TRUE(signature) << signature.error().message;
  ASSERT_TRUE(std::filesystem::exists(path));
  Expected<trust::PublicKey> public_key = signer.public_key();
  ASSERT_TRUE(public_key);
  EXPECT_TRUE(trust::verify_object(*public_key, fields, trust::to_text(*signature)));
  // A restarted daemon signs with the same key: what clients pinned still holds.
  ResultSigner restarted(path);
  EXPECT_EQ(restarted.public_key(), *public_key);
}

TEST_F(ResultSignerTest, AnUnusableKeyFileFailsEverySigningCall)
{
  std::filesystem::path path = m_dir / "signing.key";
  std::ofstream(path) << "garbage";
  ::chmod(path.c_str(), 0600);
  ResultSigner signer(path);
  std::vector<std::byte> object(4, std::byte{2});
  trust::SignedFields fields{"k", object, {}};
  for (int i = 0; i < 2; ++i) {
    Expected<trust::ObjectSignature> signature = signer.sign(fields);
    ASSERT_FALSE(signature);
    EXPECT_NE(signature.error().message.find("not a PEM file"), std::string::npos)
        << signature.error().message;
  }
}

} // namespace
} // namespace d4r::daemon
