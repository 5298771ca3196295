#include "cache/launch_metadata.hpp"

#include <bit>
#include <cstring>

namespace d4r::cache {

namespace {

static_assert(std::endian::native == std::endian::little, "the encoding is little-endian");

class Writer {
public:
  template <typename T> void integer(T value)
  {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    m_out.append(bytes, sizeof(T));
  }
  void text(std::string_view value)
  {
    integer(static_cast<uint32_t>(value.size()));
    m_out.append(value);
  }
  void kernel(const LaunchKernel& k)
  {
    text(k.name);
    for (uint32_t value : {k.kernarg_size, k.kernarg_align, k.wave_size, k.sgpr_count, k.vgpr_count,
                           k.lds_bytes, k.scratch_bytes, k.max_workgroup_size}) {
      integer(value);
    }
  }
  std::string take() { return std::move(m_out); }

private:
  std::string m_out;
};

// Every read checks what is left; the first failure sticks and the decode reports it once.
class Reader {
public:
  explicit Reader(std::string_view in) : m_in(in) {}
  template <typename T> T integer()
  {
    T value{};
    if (!take(sizeof(T))) {
      return value;
    }
    std::memcpy(&value, m_in.data() + m_at - sizeof(T), sizeof(T));
    return value;
  }
  std::string text()
  {
    const uint32_t size = integer<uint32_t>();
    if (!take(size)) {
      return {};
    }
    return std::string(m_in.substr(m_at - size, size));
  }
  // A count of items each at least `item_bytes` long: more than the rest could hold fails here,
  // before anything is reserved for them.
  uint32_t count(size_t item_bytes)
  {
    const uint32_t n = integer<uint32_t>();
    if (m_ok && static_cast<uint64_t>(n) * item_bytes > m_in.size() - m_at) {
      m_ok = false;
      return 0;
    }
    return n;
  }
  void kernel(LaunchKernel& k)
  {
    k.name = text();
    for (uint32_t* value : {&k.kernarg_size, &k.kernarg_align, &k.wave_size, &k.sgpr_count,
                            &k.vgpr_count, &k.lds_bytes, &k.scratch_bytes, &k.max_workgroup_size}) {
      *value = integer<uint32_t>();
    }
  }
  [[nodiscard]] bool ok_and_done() const { return m_ok && m_at == m_in.size(); }

private:
  bool take(size_t size)
  {
    if (!m_ok || size > m_in.size() - m_at) {
      m_ok = false;
      return false;
    }
    m_at += size;
    return true;
  }
  std::string_view m_in;
  size_t m_at = 0;
  bool m_ok = true;
};

} // namespace

std::string encode_launch_metadata(const LaunchMetadata& meta)
{
  Writer out;
  out.integer(k_launch_metadata_version);
  out.text(meta.amdhsa_target);
  out.kernel(meta.main);
  out.integer(static_cast<uint8_t>(meta.prep ? 1 : 0));
  if (meta.prep) {
    out.kernel(*meta.prep);
  }
  for (uint32_t value : {meta.prep_blocks, meta.prep_key_offset, meta.prep_key_at,
                         meta.prep_key_slots, meta.prep_identity_at, meta.block_z, meta.grid_x}) {
    out.integer(value);
  }
  out.integer(static_cast<uint32_t>(meta.posts.size()));
  for (const LaunchPost& post : meta.posts) {
    out.text(post.name);
    for (uint32_t value : {post.grid_x, post.grid_y, post.block_x, post.block_y, post.block_z}) {
      out.integer(value);
    }
  }
  out.integer(static_cast<uint32_t>(meta.host_variables.size()));
  for (const LaunchVariable& variable : meta.host_variables) {
    out.text(variable.name);
    out.integer(variable.size);
  }
  out.integer(meta.tensor_map_layout);
  return out.take();
}

Expected<LaunchMetadata> decode_launch_metadata(std::string_view encoded)
{
  if (encoded.empty() || static_cast<uint8_t>(encoded[0]) != k_launch_metadata_version) {
    return make_error(ErrorCode::corrupt,
                      encoded.empty() ? "cache: the object has no launch metadata"
                                      : "cache: launch metadata of version " +
                                            std::to_string(static_cast<uint8_t>(encoded[0])) +
                                            ", this build reads " +
                                            std::to_string(k_launch_metadata_version));
  }
  Reader in(encoded.substr(1));
  LaunchMetadata meta;
  meta.amdhsa_target = in.text();
  in.kernel(meta.main);
  if (in.integer<uint8_t>() != 0) {
    in.kernel(meta.prep.emplace());
  }
  for (uint32_t* value : {&meta.prep_blocks, &meta.prep_key_offset, &meta.prep_key_at,
                          &meta.prep_key_slots, &meta.prep_identity_at, &meta.block_z, &meta.grid_x}) {
    *value = in.integer<uint32_t>();
  }
  meta.posts.resize(in.count(4 + 5 * 4));
  for (LaunchPost& post : meta.posts) {
    post.name = in.text();
    for (uint32_t* value : {&post.grid_x, &post.grid_y, &post.block_x, &post.block_y, &post.block_z}) {
      *value = in.integer<uint32_t>();
    }
  }
  meta.host_variables.resize(in.count(4 + 8));
  for (LaunchVariable& variable : meta.host_variables) {
    variable.name = in.text();
    variable.size = in.integer<uint64_t>();
  }
  meta.tensor_map_layout = in.integer<uint32_t>();
  if (!in.ok_and_done()) {
    return make_error(ErrorCode::corrupt, "cache: stored launch metadata is truncated or overlong");
  }
  return meta;
}

} // namespace d4r::cache
