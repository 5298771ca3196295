#include "util/tokens.hpp"

#include "util/file_descriptor.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace d4r {

namespace {

constexpr std::string_view k_header =
    "# d4r-kerneld tokens v1: NAME SHA256-OF-TOKEN CREATED-UNIX [REVOKED-UNIX]\n"
    "# written by `d4r-kernel token`; tokens themselves are never stored\n";
constexpr size_t k_max_name = 64;
constexpr size_t k_token_bytes = 32;

Error io_error(std::string_view what, const std::filesystem::path& path, int error)
{
  return Error{ErrorCode::io, "token file " + path.string() + ": " + std::string(what) + ": " +
                                  std::strerror(error)};
}

std::string base64url(std::span<const uint8_t> bytes)
{
  static constexpr char k_alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (uint8_t byte : bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(k_alphabet[(buffer >> bits) & 0x3f]);
    }
  }
  if (bits > 0) {
    out.push_back(k_alphabet[(buffer << (6 - bits)) & 0x3f]);
  }
  return out;
}

std::optional<int64_t> parse_seconds(std::string_view text)
{
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

std::vector<std::string_view> fields_of(std::string_view line)
{
  std::vector<std::string_view> fields;
  size_t at = 0;
  while (at < line.size()) {
    size_t start = line.find_first_not_of(" \t", at);
    if (start == std::string_view::npos) {
      break;
    }
    size_t end = line.find_first_of(" \t", start);
    end = end == std::string_view::npos ? line.size() : end;
    fields.push_back(line.substr(start, end - start));
    at = end;
  }
  return fields;
}

Expected<TokenClient> parse_line(std::string_view line, int number)
{
  std::vector<std::string_view> fields = fields_of(line);
  auto bad = [number](std::string why) {
    return make_error(ErrorCode::corrupt, "line " + std::to_string(number) + ": " + why);
  };
  if (fields.size() < 3 || fields.size() > 4) {
    return bad("expected NAME SHA256 CREATED [REVOKED]");
  }
  TokenClient client;
  client.name = std::string(fields[0]);
  if (Expected<void> valid = validate_client_name(client.name); !valid) {
    return bad(valid.error().message);
  }
  std::optional<Sha256> hash = parse_sha256_hex(fields[1]);
  std::optional<int64_t> created = parse_seconds(fields[2]);
  std::optional<int64_t> revoked = fields.size() == 4 ? parse_seconds(fields[3]) : int64_t{0};
  if (!hash || !created || !revoked) {
    return bad("not a SHA-256 of 64 hex digits and whole seconds");
  }
  client.hash = *hash;
  client.created_unix = *created;
  client.revoked_unix = *revoked;
  return client;
}

Expected<void> make_private_folder(const std::filesystem::path& folder)
{
  std::error_code ec;
  if (std::filesystem::is_directory(folder, ec)) {
    return {};
  }
  std::filesystem::create_directories(folder.parent_path(), ec);
  if (::mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) {
    return std::unexpected(io_error("mkdir", folder, errno));
  }
  return {};
}

} // namespace

Expected<void> validate_client_name(std::string_view name)
{
  if (name.empty() || name.size() > k_max_name) {
    return make_error(ErrorCode::invalid_argument, "a client name has 1 to 64 characters");
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) {
      return make_error(ErrorCode::invalid_argument,
                        "client name '" + std::string(name.substr(0, k_max_name)) +
                            "': only letters, digits, '.', '_' and '-'");
    }
  }
  if (name.front() == '.' || name.front() == '-') {
    return make_error(ErrorCode::invalid_argument, "a client name starts with a letter or digit");
  }
  return {};
}

Expected<std::filesystem::path> default_token_file(const EnvironmentMap& environment)
{
  std::optional<std::string> state = environment_value(environment, "XDG_STATE_HOME");
  if (state && state->starts_with('/')) {
    return std::filesystem::path(*state) / "d4r-kerneld" / "tokens";
  }
  if (std::optional<std::string> home = environment_value(environment, "HOME")) {
    return std::filesystem::path(*home) / ".local" / "state" / "d4r-kerneld" / "tokens";
  }
  return make_error(ErrorCode::invalid_argument,
                    "no token file: set --token-file, XDG_STATE_HOME or HOME");
}

Expected<std::string> generate_token()
{
  std::array<uint8_t, k_token_bytes> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return make_error(ErrorCode::internal, "RAND_bytes failed: no random token could be made");
  }
  std::string token = "d4r_" + base64url(bytes);
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return token;
}

Sha256 token_hash(std::string_view token)
{
  return sha256(token);
}

Expected<TokenFile> parse_token_file(std::string_view text)
{
  TokenFile file;
  int number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    std::vector<std::string_view> fields = fields_of(line);
    if (fields.empty() || fields.front().starts_with('#')) {
      continue; // blank or a comment
    }
    TRY_ASSIGN(TokenClient client, parse_line(line, number));
    file.clients.push_back(std::move(client));
  }
  return file;
}

std::string format_token_file(const TokenFile& file)
{
  std::string text(k_header);
  for (const TokenClient& client : file.clients) {
    text += client.name + ' ' + to_hex(client.hash) + ' ' + std::to_string(client.created_unix);
    if (client.revoked_unix != 0) {
      text += ' ' + std::to_string(client.revoked_unix);
    }
    text += '\n';
  }
  return text;
}

Expected<TokenFile> read_token_file(const std::filesystem::path& path)
{
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) {
    if (errno == ENOENT) {
      return TokenFile{};
    }
    return std::unexpected(io_error("open", path, errno));
  }
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return std::unexpected(io_error("read", path, errno));
    }
    if (n == 0) {
      break;
    }
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > (16 << 20)) {
      return make_error(ErrorCode::corrupt, "token file " + path.string() + ": over 16 MiB");
    }
  }
  Expected<TokenFile> file = parse_token_file(text);
  if (!file) {
    return make_error(ErrorCode::corrupt, "token file " + path.string() + ": " + file.error().message);
  }
  return file;
}

Expected<void> write_token_file(const std::filesystem::path& path, const TokenFile& file)
{
  TRY(make_private_folder(path.parent_path()));
  std::filesystem::path temp = path.string() + ".tmp." + std::to_string(::getpid());
  // 0600 from the first byte: O_CREAT's mode under any umask is at most that.
  FileDescriptor fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) {
    return std::unexpected(io_error("create", temp, errno));
  }
  std::string text = format_token_file(file);
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd.get(), text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      int error = errno;
      ::unlink(temp.c_str());
      return std::unexpected(io_error("write", temp, error));
    }
    written += static_cast<size_t>(n);
  }
  if (::fchmod(fd.get(), 0600) != 0 || ::fsync(fd.get()) != 0 || fd.close_checked() != 0 ||
      ::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return std::unexpected(io_error("replace", path, error));
  }
  FileDescriptor folder(::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (folder.valid()) {
    ::fsync(folder.get()); // the rename itself survives a crash
  }
  return {};
}

Expected<void> update_token_file(const std::filesystem::path& path,
                                 const std::function<Expected<void>(TokenFile&)>& change)
{
  TRY(make_private_folder(path.parent_path()));
  std::filesystem::path lock_path = path.string() + ".lock";
  FileDescriptor lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!lock.valid()) {
    return std::unexpected(io_error("open lock", lock_path, errno));
  }
  if (::flock(lock.get(), LOCK_EX) != 0) {
    return std::unexpected(io_error("lock", lock_path, errno));
  }
  TRY_ASSIGN(TokenFile file, read_token_file(path));
  TRY(change(file));
  return write_token_file(path, file);
}

const TokenClient* find_token(const TokenFile& file, std::string_view token)
{
  const Sha256 hash = token_hash(token);
  const TokenClient* found = nullptr;
  for (const TokenClient& client : file.clients) {
    // CRYPTO_memcmp takes the same time whatever the bytes; every line is compared.
    bool same = CRYPTO_memcmp(client.hash.data(), hash.data(), hash.size()) == 0;
    found = same && found == nullptr ? &client : found;
  }
  return found;
}

} // namespace d4r
