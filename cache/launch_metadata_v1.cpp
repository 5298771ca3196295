// Version 1 of the launch metadata: the protobuf message d4r.kernel.v1.LaunchMetadata
// (proto/d4r/kernel/v1/kernel.proto) as rows of schema version 4 and before hold it. cache/ does
// not link protobuf (STYLE.md rule 1), and this form is only ever read again, by the version 5
// migration, so its wire format is read here: tags are varints (field << 3 | wire type), numbers
// varints, strings and messages length-delimited; unknown fields are skipped, as protobuf does.
// The field numbers are those of the .proto when this cache stopped writing it; they never change.
// https://protobuf.dev/programming-guides/encoding/

#include "cache/launch_metadata.hpp"

#include <functional>

namespace d4r::cache {

namespace {

enum WireType : uint32_t { k_varint = 0, k_fixed64 = 1, k_length = 2, k_fixed32 = 5 };

struct Field {
  uint32_t number = 0;
  uint32_t type = 0;
  uint64_t number_value = 0;   // k_varint
  std::string_view bytes;      // k_length
};

class WireReader {
public:
  explicit WireReader(std::string_view in) : m_in(in) {}

  // The next field, nullopt at the end; sets failed() on malformed input.
  std::optional<Field> next()
  {
    if (m_failed || m_at == m_in.size()) {
      return std::nullopt;
    }
    Field field;
    std::optional<uint64_t> tag = varint();
    if (!tag || (*tag >> 3) == 0 || (*tag >> 3) > UINT32_MAX) {
      return fail();
    }
    field.number = static_cast<uint32_t>(*tag >> 3);
    field.type = static_cast<uint32_t>(*tag & 7);
    switch (field.type) {
    case k_varint: {
      std::optional<uint64_t> value = varint();
      if (!value) {
        return fail();
      }
      field.number_value = *value;
      return field;
    }
    case k_fixed64:
    case k_fixed32: {
      const size_t size = field.type == k_fixed64 ? 8 : 4;
      if (size > m_in.size() - m_at) {
        return fail();
      }
      m_at += size; // no field of the message is fixed: skipped
      return field;
    }
    case k_length: {
      std::optional<uint64_t> size = varint();
      if (!size || *size > m_in.size() - m_at) {
        return fail();
      }
      field.bytes = m_in.substr(m_at, static_cast<size_t>(*size));
      m_at += static_cast<size_t>(*size);
      return field;
    }
    default:
      return fail(); // groups (3, 4) and reserved types: never written by proto3
    }
  }
  [[nodiscard]] bool failed() const { return m_failed; }

private:
  std::optional<uint64_t> varint()
  {
    uint64_t value = 0;
    for (int shift = 0; shift < 64 && m_at < m_in.size(); shift += 7) {
      const auto byte = static_cast<uint8_t>(m_in[m_at++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        return value;
      }
    }
    return std::nullopt;
  }
  std::optional<Field> fail()
  {
    m_failed = true;
    return std::nullopt;
  }
  std::string_view m_in;
  size_t m_at = 0;
  bool m_failed = false;
};

// Calls `each` for every field; false when the message is malformed or `each` refused a field.
bool for_each_field(std::string_view message, const std::function<bool(const Field&)>& each)
{
  WireReader reader(message);
  while (std::optional<Field> field = reader.next()) {
    if (!each(*field)) {
      return false;
    }
  }
  return !reader.failed();
}

// A uint32 field (proto3 varint; protobuf keeps the low 32 bits of a longer one).
uint32_t u32(const Field& field)
{
  return static_cast<uint32_t>(field.number_value);
}

bool kernel_of(std::string_view message, LaunchKernel& kernel)
{
  return for_each_field(message, [&](const Field& f) {
    uint32_t* numbers[] = {nullptr,          nullptr,           &kernel.kernarg_size,
                           &kernel.kernarg_align, &kernel.wave_size, &kernel.sgpr_count,
                           &kernel.vgpr_count, &kernel.lds_bytes, &kernel.scratch_bytes,
                           &kernel.max_workgroup_size};
    if (f.number == 1 && f.type == k_length) {
      kernel.name = std::string(f.bytes);
    } else if (f.number >= 2 && f.number <= 9 && f.type == k_varint) {
      *numbers[f.number] = u32(f);
    }
    return true;
  });
}

bool post_of(std::string_view message, LaunchPost& post)
{
  return for_each_field(message, [&](const Field& f) {
    uint32_t* numbers[] = {nullptr, nullptr, &post.grid_x, &post.grid_y, &post.block_x,
                           &post.block_y, &post.block_z};
    if (f.number == 1 && f.type == k_length) {
      post.name = std::string(f.bytes);
    } else if (f.number >= 2 && f.number <= 6 && f.type == k_varint) {
      *numbers[f.number] = u32(f);
    }
    return true;
  });
}

bool variable_of(std::string_view message, LaunchVariable& variable)
{
  return for_each_field(message, [&](const Field& f) {
    if (f.number == 1 && f.type == k_length) {
      variable.name = std::string(f.bytes);
    } else if (f.number == 2 && f.type == k_varint) {
      variable.size = f.number_value;
    }
    return true;
  });
}

} // namespace

Expected<LaunchMetadata> decode_launch_metadata_v1(std::string_view encoded)
{
  LaunchMetadata meta;
  // Field numbers 4..10 of LaunchMetadata, in order; 2 is reserved.
  uint32_t* numbers[] = {&meta.prep_blocks,      &meta.prep_key_offset, &meta.prep_key_at,
                         &meta.prep_key_slots,   &meta.prep_identity_at, &meta.block_z,
                         &meta.grid_x};
  const bool ok = for_each_field(encoded, [&](const Field& f) {
    if (f.type == k_length) {
      switch (f.number) {
      case 1:
        return kernel_of(f.bytes, meta.main); // a repeated singular message merges: same here
      case 3:
        return kernel_of(f.bytes, meta.prep ? *meta.prep : meta.prep.emplace());
      case 11:
        return post_of(f.bytes, meta.posts.emplace_back());
      case 12:
        meta.amdhsa_target = std::string(f.bytes);
        return true;
      case 13:
        return variable_of(f.bytes, meta.host_variables.emplace_back());
      default:
        return true;
      }
    }
    if (f.type == k_varint && f.number >= 4 && f.number <= 10) {
      *numbers[f.number - 4] = u32(f);
    } else if (f.type == k_varint && f.number == 14) {
      meta.tensor_map_layout = u32(f);
    }
    return true;
  });
  if (!ok) {
    return make_error(ErrorCode::corrupt, "cache: launch metadata of version 1 does not parse");
  }
  return meta;
}

} // namespace d4r::cache
