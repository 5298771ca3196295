#pragma once
// The signing key's file: created on first use, written atomically with mode 0600 (a temporary
// file, fsynced, then linked into place, so that a reader never sees half a key and two processes
// creating it at once end up with the same key), read back with its ownership and mode checked.

#include "trust/signing_key.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace d4r::trust {

struct LoadedKey {
  SigningKey key;
  bool created = false;              // this call made the key
  std::vector<std::string> warnings; // for the log: a mode that was fixed
};

// Reads the key at `path`. Not a regular file, a symbolic link, or owned by another user: refused
// (ErrorCode::permission_denied). Group or others may read or write it: made 0600 and a warning
// says so, since others may have copied it (the way out is a new key, which clients must pin
// again). Not one Ed25519 PEM private key: ErrorCode::corrupt naming the file.
[[nodiscard]] Expected<LoadedKey> load_key_file(const std::filesystem::path& path);

// Writes `key` to `path` (its folder made 0700 if missing) unless a file is already there:
// ErrorCode::io with EEXIST's message then, and the file there is left as it is.
[[nodiscard]] Expected<void> create_key_file(const std::filesystem::path& path,
                                             const SigningKey& key);

// The key at `path`, or a new one written there when there is none. Two processes racing here
// get the same key: the loser of the link reads the winner's.
[[nodiscard]] Expected<LoadedKey> load_or_create_key_file(const std::filesystem::path& path);

} // namespace d4r::trust
