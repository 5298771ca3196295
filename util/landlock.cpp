#include "util/landlock.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace d4r {
namespace {

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

// Rights newer than bookworm's headers (linux-libc-dev 6.1 knows ABI 2).
constexpr uint64_t k_fs_truncate = uint64_t{1} << 14;        // ABI 3
constexpr uint64_t k_fs_ioctl_dev = uint64_t{1} << 15;       // ABI 5
constexpr uint64_t k_net_bind_tcp = uint64_t{1} << 0;        // ABI 4
constexpr uint64_t k_net_connect_tcp = uint64_t{1} << 1;     // ABI 4
constexpr uint64_t k_scope_abstract_unix = uint64_t{1} << 0; // ABI 6
constexpr uint64_t k_scope_signal = uint64_t{1} << 1;        // ABI 6

// landlock_ruleset_attr as of ABI 6; the kernel is told how much of it it may read.
struct RulesetAttr {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};

// The rights a rule on a file (not a folder) may carry.
constexpr uint64_t k_file_rights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                   LANDLOCK_ACCESS_FS_READ_FILE | k_fs_truncate | k_fs_ioctl_dev;

uint64_t known_fs_rights(int abi)
{
  uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; // ABI 1: bits 0..12
  if (abi >= 2) {
    rights |= LANDLOCK_ACCESS_FS_REFER;
  }
  if (abi >= 3) {
    rights |= k_fs_truncate;
  }
  if (abi >= 5) {
    rights |= k_fs_ioctl_dev;
  }
  return rights;
}

std::string errno_text(int error)
{
  return std::error_code(error, std::generic_category()).message();
}

} // namespace

int landlock_abi() noexcept
{
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

uint64_t landlock_write_rights(int abi)
{
  const uint64_t rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                          LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                          LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                          LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                          LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM |
                          LANDLOCK_ACCESS_FS_REFER | k_fs_truncate;
  return rights & known_fs_rights(abi);
}

uint64_t landlock_read_rights()
{
  return LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
}

uint64_t landlock_write_existing_rights(int abi)
{
  return (LANDLOCK_ACCESS_FS_WRITE_FILE | k_fs_truncate) & known_fs_rights(abi);
}

Expected<LandlockRuleset> LandlockRuleset::create(int abi, const LandlockHandled& handled)
{
  RulesetAttr attr;
  attr.handled_access_fs = handled.fs & known_fs_rights(abi);
  size_t size = sizeof(uint64_t);
  if (abi >= 4 && handled.tcp) {
    attr.handled_access_net = k_net_bind_tcp | k_net_connect_tcp;
    size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6 && handled.scoped) {
    attr.scoped = k_scope_abstract_unix | k_scope_signal;
    size = sizeof(RulesetAttr);
  }
  long fd = ::syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (fd < 0) {
    return make_error(ErrorCode::internal, "landlock: " + errno_text(errno));
  }
  LandlockRuleset ruleset;
  ruleset.m_fd = static_cast<int>(fd);
  ruleset.m_abi = abi;
  return ruleset;
}

LandlockRuleset::LandlockRuleset(LandlockRuleset&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_abi(other.m_abi)
{
}

LandlockRuleset& LandlockRuleset::operator=(LandlockRuleset&& other) noexcept
{
  if (this != &other) {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
    m_fd = std::exchange(other.m_fd, -1);
    m_abi = other.m_abi;
  }
  return *this;
}

LandlockRuleset::~LandlockRuleset()
{
  if (m_fd >= 0) {
    ::close(m_fd);
  }
}

Expected<void> LandlockRuleset::allow_beneath(const std::filesystem::path& path, uint64_t rights)
{
  int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) {
    return make_error(ErrorCode::io, "landlock: " + path.string() + ": " + errno_text(errno));
  }
  struct stat status {};
  if (::fstat(fd, &status) == 0 && !S_ISDIR(status.st_mode)) {
    rights &= k_file_rights;
  }
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights & known_fs_rights(m_abi);
  rule.parent_fd = fd;
  long rc = ::syscall(SYS_landlock_add_rule, m_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  int error = errno;
  ::close(fd);
  if (rc != 0) {
    return make_error(ErrorCode::internal,
                      "landlock: rule for " + path.string() + ": " + errno_text(error));
  }
  return {};
}

int LandlockRuleset::restrict_self() const noexcept
{
  if (m_fd < 0) {
    return 0;
  }
  return ::syscall(SYS_landlock_restrict_self, m_fd, 0) == 0 ? 0 : errno;
}

} // namespace d4r
