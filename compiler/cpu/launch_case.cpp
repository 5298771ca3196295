#include "compiler/cpu/launch_case.hpp"
// The golden-vector case format and its input generator. tests/golden/README.md specifies both in
// prose; this file is the normative code: the NVIDIA recording tool (tools/golden/d4r-golden.cpp)
// compiles it too, so the inputs on the GPU and on the host are the same bytes. Over 1,000 lines
// because the case parser is one class; the recording tool's link line names this file.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace d4r::compiler::cpu {

namespace {

// ---- element types ------------------------------------------------------------------------------

struct TypeName {
  const char* name;
  ElementType type;
};
constexpr TypeName k_type_names[] = {
    {"u8", ElementType::u8},   {"s8", ElementType::s8},     {"u16", ElementType::u16},
    {"s16", ElementType::s16}, {"u32", ElementType::u32},   {"s32", ElementType::s32},
    {"u64", ElementType::u64}, {"s64", ElementType::s64},   {"f16", ElementType::f16},
    {"bf16", ElementType::bf16}, {"f32", ElementType::f32}, {"f64", ElementType::f64},
};

bool parse_type(std::string_view token, ElementType* type)
{
  for (const TypeName& entry : k_type_names) {
    if (token == entry.name) {
      *type = entry.type;
      return true;
    }
  }
  return false;
}

uint64_t width_mask(ElementType type)
{
  const int64_t bits = element_size(type) * 8;
  return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

bool is_signed(ElementType type)
{
  return type == ElementType::s8 || type == ElementType::s16 || type == ElementType::s32 ||
         type == ElementType::s64;
}

// Exponent and mantissa widths of the float types.
struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
};

FloatFormat float_format(ElementType type)
{
  switch (type) {
  case ElementType::f16:
    return {5, 10};
  case ElementType::bf16:
    return {8, 7};
  case ElementType::f32:
    return {8, 23};
  case ElementType::f64:
    return {11, 52};
  case ElementType::u8:
  case ElementType::s8:
  case ElementType::u16:
  case ElementType::s16:
  case ElementType::u32:
  case ElementType::s32:
  case ElementType::u64:
  case ElementType::s64:
    break;
  }
  D4R_UNREACHABLE("float_format of an integer type");
}

// A double rounded to nearest-even into a float format of E exponent and M mantissa bits
// (overflow to infinity, gradual underflow, NaN to the quiet NaN with the sign kept).
uint64_t double_to_format(double value, FloatFormat format)
{
  const int e_bits = format.exponent_bits;
  const int m_bits = format.mantissa_bits;
  const uint64_t sign = std::signbit(value) ? uint64_t{1} << (e_bits + m_bits) : 0;
  const uint64_t exp_all = ((uint64_t{1} << e_bits) - 1) << m_bits;
  if (std::isnan(value)) {
    return sign | exp_all | (uint64_t{1} << (m_bits - 1));
  }
  const double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) {
    return sign | exp_all;
  }
  if (magnitude == 0) {
    return sign;
  }
  const int bias = (1 << (e_bits - 1)) - 1;
  const int e_min = 1 - bias;
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  exponent -= 1; // magnitude = 1.f * 2^exponent
  if (exponent < e_min) {
    const double scaled = std::nearbyint(std::ldexp(magnitude, m_bits - e_min));
    return sign | static_cast<uint64_t>(scaled); // 2^M here is the smallest normal, encoded right
  }
  double scaled = std::nearbyint(std::ldexp(magnitude, m_bits - exponent));
  if (scaled >= std::ldexp(1.0, m_bits + 1)) {
    scaled /= 2;
    exponent += 1;
  }
  if (exponent > bias) {
    return sign | exp_all;
  }
  const uint64_t mantissa = static_cast<uint64_t>(scaled) - (uint64_t{1} << m_bits);
  return sign | (static_cast<uint64_t>(exponent + bias) << m_bits) | mantissa;
}

uint64_t double_to_bits(double value, ElementType type)
{
  if (type == ElementType::f32) {
    const float narrow = static_cast<float>(value); // round to nearest even
    uint32_t bits = 0;
    std::memcpy(&bits, &narrow, sizeof(bits));
    return bits;
  }
  if (type == ElementType::f64) {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
  }
  return double_to_format(value, float_format(type));
}

// ---- the generator ------------------------------------------------------------------------------

// splitmix64 (Steele, Lea, Flood 2014): state += golden gamma, then the mix.
struct SplitMix64 {
  uint64_t state;
  uint64_t next()
  {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// Values every float format is checked at (README: "floats"), as doubles rounded into the format.
constexpr double k_special_values[] = {
    1.0,          -1.0,         0.5,          -0.5,        1.5,          2.5,
    -2.5,         3.5,          0.25,         1.0 / 3.0,   -2.0 / 3.0,   0.49999997,
    0.50000006,   65504.0,      65520.0,      -65520.0,    448.0,        464.0,
    480.0,        57344.0,      61440.0,      2147483648.0, -2147483648.0, 2147483520.0,
    4294967296.0, 4294967040.0, 9223372036854775808.0, -9223372036854775808.0,
    18446744073709551616.0, 16777217.0, 8388608.5, 32767.5, 32768.0, -32768.5,
    127.5,        255.5,        -128.5,       1e-8,        -6e-8,        1e-40,
    1e-310,       3e38,         1e300,
};

std::vector<uint64_t> special_bits(FloatFormat format, ElementType type)
{
  const int w = format.exponent_bits + format.mantissa_bits;
  const uint64_t sign = uint64_t{1} << w;
  const uint64_t mantissa = (uint64_t{1} << format.mantissa_bits) - 1;
  const uint64_t inf = ((uint64_t{1} << format.exponent_bits) - 1) << format.mantissa_bits;
  const uint64_t quiet = uint64_t{1} << (format.mantissa_bits - 1);
  const uint64_t min_normal = uint64_t{1} << format.mantissa_bits;
  const uint64_t max_finite = (inf - min_normal) | mantissa;
  std::vector<uint64_t> bits = {
      0,          sign,           inf,       sign | inf,       inf | quiet,        sign | inf | quiet,
      inf | quiet | 5, sign | inf | (quiet - 1) | quiet, inf | 1, sign | inf | (quiet >> 1), 1,
      sign | 1,   mantissa,       sign | mantissa, min_normal, sign | min_normal, max_finite,
      sign | max_finite,
  };
  for (double value : k_special_values) {
    bits.push_back(double_to_bits(value, type));
  }
  return bits;
}

uint64_t float_sample(uint64_t r, ElementType type, const std::vector<uint64_t>& specials)
{
  const FloatFormat format = float_format(type);
  const int e_bits = format.exponent_bits;
  const int m_bits = format.mantissa_bits;
  const uint64_t sign = (r & 1) << (e_bits + m_bits);
  const uint64_t mantissa_mask = (uint64_t{1} << m_bits) - 1;
  const uint64_t m = (r >> 1) & mantissa_mask;
  const uint64_t x = r >> 8;
  const int64_t bias = (int64_t{1} << (e_bits - 1)) - 1;
  const int64_t exp_top = (int64_t{1} << e_bits) - 2; // the largest finite exponent field
  const uint64_t cls = r >> 60;
  if (cls == 0) {
    return specials[x % specials.size()];
  }
  if (cls == 1) {
    return sign | ((m % mantissa_mask) + 1);
  }
  if (cls <= 4) {
    return (r * 0x9E3779B97F4A7C15ull) & width_mask(type);
  }
  if (cls <= 10) {
    const int64_t field = std::clamp<int64_t>(bias - 12 + static_cast<int64_t>(x % 25), 1, exp_top);
    return sign | (static_cast<uint64_t>(field) << m_bits) | m;
  }
  if (cls <= 12) {
    const double half = static_cast<double>(static_cast<int64_t>(x % 4001) - 2000) / 2.0;
    return double_to_bits(half, type);
  }
  if (cls == 13) {
    const double near = std::ldexp(1.0, static_cast<int>(x % 70)) + static_cast<double>((x >> 8) % 5) - 2.0;
    return double_to_bits((r & 1) != 0 ? -near : near, type);
  }
  const int64_t field = std::max<int64_t>(1, bias - 1 - static_cast<int64_t>(x % 30));
  return sign | (static_cast<uint64_t>(field) << m_bits) | m;
}

uint64_t integer_in(SplitMix64& rng, double lo, double hi)
{
  const int64_t low = static_cast<int64_t>(lo);
  const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(hi) - low) + 1;
  const uint64_t offset = span == 0 ? rng.next() : rng.next() % span;
  return static_cast<uint64_t>(low) + offset;
}

uint64_t fill_element(const Fill& fill, ElementType type, int64_t index, SplitMix64& rng,
                      const std::vector<uint64_t>& specials)
{
  switch (fill.kind) {
  case FillKind::cd_bytes:
    return 0xCDCDCDCDCDCDCDCDull;
  case FillKind::random:
    return (rng.next() & fill.and_mask) | fill.or_mask;
  case FillKind::floats:
    return float_sample(rng.next(), type, specials);
  case FillKind::range:
    if (is_float(type)) {
      const double unit = static_cast<double>(rng.next() >> 11) * 0x1p-53;
      return double_to_bits(fill.lo + (fill.hi - fill.lo) * unit, type);
    }
    return integer_in(rng, fill.lo, fill.hi);
  case FillKind::ints: {
    const uint64_t value = integer_in(rng, fill.lo, fill.hi);
    return is_float(type) ? double_to_bits(static_cast<double>(static_cast<int64_t>(value)), type) : value;
  }
  case FillKind::iota:
    return fill.start + static_cast<uint64_t>(index) * fill.step;
  case FillKind::constant:
    return fill.values.front();
  case FillKind::list:
    return fill.values[static_cast<size_t>((index / fill.repeat) % static_cast<int64_t>(fill.values.size()))];
  }
  D4R_UNREACHABLE("fill kind");
}

// ---- the parser ---------------------------------------------------------------------------------

class Parser {
public:
  Parser(std::string_view name) : m_name(name) {}
  Expected<LaunchCase> parse(std::string_view text);

private:
  std::string m_name;
  int m_line = 0;
  LaunchCase m_case;
  bool m_have_ptx = false;
  bool m_have_kernel = false;
  struct PendingCompare {
    int line;
    std::vector<std::string> tokens;
  };
  std::vector<PendingCompare> m_compares;

  Error error(const std::string& message) const
  {
    return Error{ErrorCode::invalid_argument,
                 "golden case " + m_name + ": line " + std::to_string(m_line) + ": " + message};
  }
  Expected<void> line(std::string_view key, const std::vector<std::string>& tokens);
  Expected<std::array<uint32_t, 3>> dims(const std::vector<std::string>& tokens);
  Expected<Arg> arg(const std::vector<std::string>& tokens, size_t first);
  Expected<Arg> buffer(const std::vector<std::string>& tokens, size_t first);
  Expected<Arg> image(const std::vector<std::string>& tokens, size_t first);
  Expected<Arg> tensor_map(const std::vector<std::string>& tokens, size_t first);
  Expected<void> tensor_map_option(TensorMapSpec& spec, const std::string& key, const std::string& value);
  Expected<void> check_tensor_maps();
  Expected<Fill> fill(const std::vector<std::string>& tokens, size_t first, ElementType type);
  Expected<void> fill_options(Fill& fill, const std::vector<std::string>& tokens, size_t first,
                              ElementType type);
  Expected<uint64_t> value(std::string_view token, ElementType type);
  Expected<int64_t> integer(std::string_view token, int64_t lo, int64_t hi);
  Expected<double> real(std::string_view token);
  Expected<void> field(const std::vector<std::string>& tokens);
  Expected<void> global(const std::vector<std::string>& tokens);
  Expected<void> texref(const std::vector<std::string>& tokens);
  Expected<void> apply_compare(const PendingCompare& pending);
  void number_output(Arg& arg);
};

std::vector<std::string> split(std::string_view text)
{
  std::vector<std::string> tokens;
  std::istringstream in{std::string(text)};
  std::string token;
  while (in >> token) {
    tokens.push_back(token);
  }
  return tokens;
}

std::string_view trim(std::string_view text)
{
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) {
    return {};
  }
  const size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

Expected<LaunchCase> Parser::parse(std::string_view text)
{
  m_case.name = m_name;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t newline = std::min(text.find('\n', pos), text.size());
    std::string_view raw = text.substr(pos, newline - pos);
    pos = newline + 1;
    m_line += 1;
    raw = trim(raw.substr(0, std::min(raw.find('#'), raw.size())));
    if (raw.empty()) {
      continue;
    }
    const size_t equals = raw.find('=');
    if (equals == std::string_view::npos) {
      return std::unexpected(error("expected `key = value`"));
    }
    TRY(line(trim(raw.substr(0, equals)), split(raw.substr(equals + 1))));
  }
  if (!m_have_ptx || !m_have_kernel) {
    return std::unexpected(error("`ptx` and `kernel` are required"));
  }
  for (const PendingCompare& pending : m_compares) {
    m_line = pending.line;
    TRY(apply_compare(pending));
  }
  TRY(check_tensor_maps());
  return std::move(m_case);
}

Expected<void> Parser::line(std::string_view key, const std::vector<std::string>& tokens)
{
  if (tokens.empty()) {
    return std::unexpected(error("`" + std::string(key) + "` has no value"));
  }
  if (key == "ptx" || key == "kernel") {
    if (tokens.size() != 1) {
      return std::unexpected(error("`" + std::string(key) + "` takes one word"));
    }
    (key == "ptx" ? m_case.ptx : m_case.kernel) = tokens[0];
    (key == "ptx" ? m_have_ptx : m_have_kernel) = true;
    return {};
  }
  if (key == "expect") {
    if (tokens.size() != 1 || (tokens[0] != "complete" && tokens[0] != "trap")) {
      return std::unexpected(error("`expect` is `complete` or `trap`"));
    }
    m_case.expect = tokens[0] == "trap" ? Expect::trap : Expect::complete;
    return {};
  }
  if (key == "grid" || key == "block") {
    using Shape = std::array<uint32_t, 3>;
    TRY_ASSIGN(const Shape shape, dims(tokens));
    (key == "grid" ? m_case.grid : m_case.block) = shape;
    return {};
  }
  if (key == "dynamic_shared") {
    TRY_ASSIGN(const int64_t bytes, integer(tokens[0], 0, 1 << 20));
    m_case.dynamic_shared = static_cast<uint32_t>(bytes);
    return tokens.size() == 1 ? Expected<void>{} : std::unexpected(error("`dynamic_shared` takes one number"));
  }
  if (key == "param") {
    Param param;
    if (tokens[0] == "struct") {
      if (tokens.size() != 3) {
        return std::unexpected(error("expected `param = struct SIZE ALIGN`"));
      }
      param.is_struct = true;
      TRY_ASSIGN(param.struct_size, integer(tokens[1], 1, 4096));
      TRY_ASSIGN(param.struct_align, integer(tokens[2], 1, 16));
      if ((param.struct_align & (param.struct_align - 1)) != 0) {
        return std::unexpected(error("struct alignment must be a power of two"));
      }
    } else {
      TRY_ASSIGN(param.arg, arg(tokens, 0));
      number_output(param.arg);
    }
    m_case.params.push_back(std::move(param));
    return {};
  }
  if (key == "field") {
    return field(tokens);
  }
  if (key == "global") {
    return global(tokens);
  }
  if (key == "texref") {
    return texref(tokens);
  }
  if (key == "compare") {
    m_compares.push_back({m_line, tokens});
    return {};
  }
  return std::unexpected(error("unknown key `" + std::string(key) + "`"));
}

Expected<std::array<uint32_t, 3>> Parser::dims(const std::vector<std::string>& tokens)
{
  if (tokens.size() != 3) {
    return std::unexpected(error("expected three numbers X Y Z"));
  }
  std::array<uint32_t, 3> shape{};
  for (size_t i = 0; i < 3; ++i) {
    TRY_ASSIGN(const int64_t extent, integer(tokens[i], 1, 65535));
    shape[i] = static_cast<uint32_t>(extent);
  }
  return shape;
}

Expected<void> Parser::field(const std::vector<std::string>& tokens)
{
  if (m_case.params.empty() || !m_case.params.back().is_struct) {
    return std::unexpected(error("`field` must follow a `param = struct`"));
  }
  Param& owner = m_case.params.back();
  Field entry;
  TRY_ASSIGN(entry.offset, integer(tokens[0], 0, owner.struct_size - 1));
  TRY_ASSIGN(entry.arg, arg(tokens, 1));
  const int64_t size = entry.arg.kind == ArgKind::scalar ? element_size(entry.arg.scalar.type) : 8;
  if (entry.offset % size != 0 || entry.offset + size > owner.struct_size) {
    return std::unexpected(error("field at " + tokens[0] + " is misaligned or past the struct's end"));
  }
  for (const Field& other : owner.fields) {
    const int64_t other_size = other.arg.kind == ArgKind::scalar ? element_size(other.arg.scalar.type) : 8;
    if (entry.offset < other.offset + other_size && other.offset < entry.offset + size) {
      return std::unexpected(error("field at " + tokens[0] + " overlaps another field"));
    }
  }
  number_output(entry.arg);
  owner.fields.push_back(std::move(entry));
  return {};
}

Expected<void> Parser::global(const std::vector<std::string>& tokens)
{
  if (tokens.size() < 4) {
    return std::unexpected(error("expected `global = NAME TYPE COUNT FILL`"));
  }
  GlobalSpec spec;
  spec.name = tokens[0];
  if (!parse_type(tokens[1], &spec.type)) {
    return std::unexpected(error("unknown element type `" + tokens[1] + "`"));
  }
  TRY_ASSIGN(spec.count, integer(tokens[2], 1, int64_t{1} << 20));
  TRY_ASSIGN(spec.fill, fill(tokens, 3, spec.type));
  for (const GlobalSpec& other : m_case.globals) {
    if (other.name == spec.name) {
      return std::unexpected(error("global " + spec.name + " is written twice"));
    }
  }
  m_case.globals.push_back(std::move(spec));
  return {};
}

Expected<void> Parser::texref(const std::vector<std::string>& tokens)
{
  if (tokens.size() < 2) {
    return std::unexpected(error("expected `texref = NAME FORMAT WIDTH HEIGHT [options] FILL`"));
  }
  std::vector<std::string> texture = tokens;
  texture[0] = "texture";
  TRY_ASSIGN(Arg image, this->image(texture, 0));
  for (const TexrefSpec& other : m_case.texrefs) {
    if (other.name == tokens[0]) {
      return std::unexpected(error("texref " + tokens[0] + " is bound twice"));
    }
  }
  m_case.texrefs.push_back(TexrefSpec{tokens[0], image.image});
  return {};
}

void Parser::number_output(Arg& arg)
{
  OutputInfo info;
  if (arg.kind == ArgKind::buffer && arg.buffer.direction != Direction::in) {
    info.type = arg.buffer.type;
    info.bytes = arg.buffer.count * element_size(arg.buffer.type);
    info.what = std::string(arg.buffer.direction == Direction::out ? "buffer out " : "buffer inout ") +
                to_string(arg.buffer.type) + " " + std::to_string(arg.buffer.count);
  } else if (arg.kind == ArgKind::image && !arg.image.texture) {
    info.type = image_element(arg.image.format);
    info.bytes = texel_bytes(arg.image) * arg.image.width * arg.image.height * image_slices(arg.image);
    info.what = "surface " + std::string(to_string(info.type)) + "x" + std::to_string(arg.image.channels) +
                " " + std::to_string(arg.image.width) + "x" + std::to_string(arg.image.height) + "x" +
                std::to_string(image_slices(arg.image));
  } else {
    return;
  }
  arg.output_index = static_cast<int64_t>(m_case.outputs.size());
  m_case.outputs.push_back(std::move(info));
}

Expected<Arg> Parser::arg(const std::vector<std::string>& tokens, size_t first)
{
  if (first >= tokens.size()) {
    return std::unexpected(error("missing argument"));
  }
  const std::string& head = tokens[first];
  if (head == "buffer") {
    return buffer(tokens, first + 1);
  }
  if (head == "texture" || head == "surface") {
    return image(tokens, first);
  }
  if (head == "tensormap") {
    if (first != 0) {
      return std::unexpected(error("a tensor map is a param of its own, not a struct field"));
    }
    return tensor_map(tokens, first + 1);
  }
  Arg result;
  if (!parse_type(head, &result.scalar.type)) {
    return std::unexpected(error("unknown param kind `" + head + "`"));
  }
  if (tokens.size() != first + 2) {
    return std::unexpected(error("a scalar param is `TYPE VALUE`"));
  }
  TRY_ASSIGN(result.scalar.bits, value(tokens[first + 1], result.scalar.type));
  return result;
}

Expected<Arg> Parser::buffer(const std::vector<std::string>& tokens, size_t first)
{
  if (tokens.size() < first + 3) {
    return std::unexpected(error("expected `buffer in|out|inout TYPE COUNT [FILL]`"));
  }
  Arg result;
  result.kind = ArgKind::buffer;
  BufferSpec& spec = result.buffer;
  const std::string& direction = tokens[first];
  if (direction == "in" || direction == "out" || direction == "inout") {
    spec.direction = direction == "in" ? Direction::in : direction == "out" ? Direction::out : Direction::inout;
  } else {
    return std::unexpected(error("buffer direction must be in, out or inout, not `" + direction + "`"));
  }
  if (!parse_type(tokens[first + 1], &spec.type)) {
    return std::unexpected(error("unknown element type `" + tokens[first + 1] + "`"));
  }
  TRY_ASSIGN(spec.count, integer(tokens[first + 2], 0, int64_t{1} << 24));
  if (spec.direction == Direction::out) {
    if (tokens.size() != first + 3) {
      return std::unexpected(error("an out buffer takes no fill (it starts as 0xCD bytes)"));
    }
    return result;
  }
  TRY_ASSIGN(spec.fill, fill(tokens, first + 3, spec.type));
  return result;
}

struct FormatName {
  const char* name;
  d4r_host_image_format format;
};
constexpr FormatName k_format_names[] = {
    {"u8", d4r_image_u8}, {"f16", d4r_image_f16}, {"f32", d4r_image_f32}, {"u32", d4r_image_u32}};

Expected<Arg> Parser::image(const std::vector<std::string>& tokens, size_t first)
{
  if (tokens.size() < first + 4) {
    return std::unexpected(error("expected `" + tokens[first] + " FORMAT WIDTH HEIGHT ...`"));
  }
  Arg result;
  result.kind = ArgKind::image;
  ImageSpec& spec = result.image;
  spec.texture = tokens[first] == "texture";
  const std::string& format = tokens[first + 1];
  const size_t x = format.find('x');
  bool known = false;
  for (const FormatName& entry : k_format_names) {
    if (x != std::string::npos && format.substr(0, x) == entry.name) {
      spec.format = entry.format;
      known = true;
    }
  }
  const std::string channels = x == std::string::npos ? "" : format.substr(x + 1);
  if (!known || (channels != "1" && channels != "2" && channels != "4")) {
    return std::unexpected(error("unknown image format `" + format + "` (u8|f16|f32|u32 x 1|2|4)"));
  }
  spec.channels = channels[0] - '0';
  TRY_ASSIGN(spec.width, integer(tokens[first + 2], 1, 4096));
  TRY_ASSIGN(spec.height, integer(tokens[first + 3], 1, 4096));
  size_t pos = first + 4;
  for (; pos < tokens.size() && tokens[pos].find('=') != std::string::npos; ++pos) {
    const std::string& option = tokens[pos];
    const std::string problem =
        apply_image_option(spec, option.substr(0, option.find('=')), option.substr(option.find('=') + 1));
    if (!problem.empty()) {
      return std::unexpected(error(problem));
    }
  }
  if (const std::string problem = check_image(spec); !problem.empty()) {
    return std::unexpected(error(problem));
  }
  if (pos == tokens.size()) {
    if (spec.texture) {
      return std::unexpected(error("a texture needs a fill"));
    }
    return result;
  }
  TRY_ASSIGN(spec.fill, fill(tokens, pos, image_element(spec.format)));
  return result;
}

// `tensormap global=N type=T dims=D0,D1.. strides=S1,.. box=B0,B1.. [elementstrides=E0,..]
// [swizzle=none|32B|64B|128B] [interleave=none|16B|32B] [l2=none|64B|128B|256B] [oob=zero|nan]`;
// an im2col map has `channels=C pixels=P [lower=L..] [upper=U..]` (rank - 2 corners) for box=.
Expected<Arg> Parser::tensor_map(const std::vector<std::string>& tokens, size_t first)
{
  Arg result;
  result.kind = ArgKind::tensor_map;
  TensorMapSpec& spec = result.tensor_map;
  bool have_dims = false;
  bool have_box = false;
  bool have_global = false;
  bool have_type = false;
  for (size_t pos = first; pos < tokens.size(); ++pos) {
    const size_t equals = tokens[pos].find('=');
    if (equals == std::string::npos) {
      return std::unexpected(error("expected KEY=VALUE in a tensormap, not `" + tokens[pos] + "`"));
    }
    const std::string key = tokens[pos].substr(0, equals);
    have_dims = have_dims || key == "dims";
    have_box = have_box || key == "box";
    have_global = have_global || key == "global";
    have_type = have_type || key == "type";
    TRY(tensor_map_option(spec, key, tokens[pos].substr(equals + 1)));
  }
  if (!have_dims || !(have_box || spec.im2col) || !have_global || !have_type) {
    return std::unexpected(error("a tensormap needs global=, type=, dims= and box= (or channels= and pixels=)"));
  }
  if (spec.im2col && (have_box || spec.rank < 3 || spec.channels == 0 || spec.pixels == 0)) {
    return std::unexpected(error("an im2col tensormap has rank 3-5, channels= and pixels=, and no box="));
  }
  return result;
}

Expected<void> Parser::tensor_map_option(TensorMapSpec& spec, const std::string& key, const std::string& value)
{
  static constexpr const char* k_sizes[] = {"none", "16B", "32B", "64B", "128B", "256B"};
  const auto choice = [&](std::initializer_list<int> sizes) -> Expected<int> {
    int index = 0;
    for (const int size : sizes) {
      if (value == k_sizes[size]) {
        return index;
      }
      index += 1;
    }
    return std::unexpected(error("tensormap " + key + "=" + value + ": not a choice"));
  };
  std::vector<int64_t> numbers;
  const bool corner = key == "lower" || key == "upper"; // im2col corners may be negative
  for (size_t begin = 0; begin <= value.size() && key != "type" && key != "swizzle" && key != "interleave" &&
                         key != "l2" && key != "oob";) {
    const size_t comma = std::min(value.find(',', begin), value.size());
    TRY_ASSIGN(const int64_t number, integer(value.substr(begin, comma - begin), corner ? -32768 : 0,
                                             corner ? 32767 : int64_t{1} << 40));
    numbers.push_back(number);
    begin = comma + 1;
  }
  const size_t count = numbers.size();
  const size_t rank = static_cast<size_t>(spec.rank);
  if (key == "global" && count == 1) {
    spec.buffer_param = numbers[0];
  } else if (key == "type") {
    const bool known = parse_type(value, &spec.type) && spec.type != ElementType::s8 &&
                       spec.type != ElementType::s16;
    if (!known) {
      return std::unexpected(error("tensormap type " + value + ": u8 u16 u32 s32 u64 s64 f16 bf16 f32 f64"));
    }
  } else if (key == "dims" && count >= 1 && count <= 5) {
    spec.rank = static_cast<int>(count);
    for (size_t i = 0; i < count; ++i) {
      if (numbers[i] < 1 || numbers[i] > 0xffffffffll) {
        return std::unexpected(error("tensormap dims are 1 .. 2^32 - 1"));
      }
      spec.dims[i] = static_cast<uint64_t>(numbers[i]);
    }
  } else if (key == "strides" && rank > 0 && count == rank - 1) {
    for (size_t i = 0; i < count; ++i) {
      spec.strides[i] = static_cast<uint64_t>(numbers[i]);
    }
  } else if ((key == "box" || key == "elementstrides") && rank > 0 && count == rank) {
    const int64_t top = key == "box" ? 256 : 8;
    for (size_t i = 0; i < count; ++i) {
      if (numbers[i] < 1 || numbers[i] > top) {
        return std::unexpected(error("tensormap " + key + " values are 1 .. " + std::to_string(top)));
      }
      (key == "box" ? spec.box : spec.element_strides)[i] = static_cast<uint32_t>(numbers[i]);
    }
  } else if (corner && rank >= 3 && count == rank - 2) {
    for (size_t i = 0; i < count; ++i) {
      (key == "lower" ? spec.lower : spec.upper)[i] = static_cast<int32_t>(numbers[i]);
    }
  } else if ((key == "channels" || key == "pixels") && count == 1 && numbers[0] >= 1 &&
             numbers[0] <= (key == "channels" ? 256 : 1024)) {
    spec.im2col = true;
    (key == "channels" ? spec.channels : spec.pixels) = static_cast<uint32_t>(numbers[0]);
  } else if (key == "swizzle") {
    TRY_ASSIGN(spec.swizzle, choice({0, 2, 3, 4}));
  } else if (key == "interleave") {
    TRY_ASSIGN(spec.interleave, choice({0, 1, 2}));
  } else if (key == "l2") {
    TRY_ASSIGN(spec.l2_promotion, choice({0, 3, 4, 5}));
  } else if (key == "oob" && (value == "zero" || value == "nan")) {
    spec.fill = value == "nan" ? 1 : 0;
  } else {
    return std::unexpected(error("tensormap " + key + "=" + value + ": unknown, or before dims= (rank " +
                                 std::to_string(rank) + ")"));
  }
  return {};
}

// After the last line: each map's buffer exists, is big enough, and its strides are multiples of 16.
Expected<void> Parser::check_tensor_maps()
{
  for (const Param& param : m_case.params) {
    if (param.is_struct || param.arg.kind != ArgKind::tensor_map) {
      continue;
    }
    const TensorMapSpec& spec = param.arg.tensor_map;
    const int64_t index = spec.buffer_param;
    if (index < 0 || index >= static_cast<int64_t>(m_case.params.size()) ||
        m_case.params[static_cast<size_t>(index)].is_struct ||
        m_case.params[static_cast<size_t>(index)].arg.kind != ArgKind::buffer) {
      return std::unexpected(error("tensormap global=" + std::to_string(index) + " is not a buffer param"));
    }
    const BufferSpec& buffer = m_case.params[static_cast<size_t>(index)].arg.buffer;
    // A store or reduction writes whole 16-byte chunks along dimension 0, past the tensor's last
    // element when its row is not a multiple of 16 bytes (tma_diag_chunk_*): the buffer holds them.
    uint64_t end = (spec.dims[0] * static_cast<uint64_t>(element_size(spec.type)) + 15) / 16 * 16;
    for (int i = 1; i < spec.rank; ++i) {
      const uint64_t stride = spec.strides[static_cast<size_t>(i - 1)];
      if (stride % 16 != 0 || stride == 0) {
        return std::unexpected(error("tensormap strides are positive multiples of 16"));
      }
      end += (spec.dims[static_cast<size_t>(i)] - 1) * stride;
    }
    if (end > static_cast<uint64_t>(buffer.count * element_size(buffer.type))) {
      return std::unexpected(error("tensormap reaches past its buffer (param " + std::to_string(index) + ")"));
    }
  }
  return {};
}

Expected<Fill> Parser::fill(const std::vector<std::string>& tokens, size_t first, ElementType type)
{
  if (first >= tokens.size()) {
    return std::unexpected(error("missing fill (random|floats|range|ints|iota|const|list)"));
  }
  Fill result;
  const std::string& kind = tokens[first];
  size_t options = first + 1;
  if (kind == "random" || kind == "floats") {
    result.kind = kind == "random" ? FillKind::random : FillKind::floats;
    if (result.kind == FillKind::floats && !is_float(type)) {
      return std::unexpected(error("`floats` needs a float element type"));
    }
  } else if (kind == "range" || kind == "ints") {
    result.kind = kind == "range" ? FillKind::range : FillKind::ints;
    if (tokens.size() < first + 3) {
      return std::unexpected(error("expected `" + kind + " LO HI seed=S`"));
    }
    TRY_ASSIGN(result.lo, real(tokens[first + 1]));
    TRY_ASSIGN(result.hi, real(tokens[first + 2]));
    const bool integral = !is_float(type) || kind == "ints";
    if (!(result.lo <= result.hi) ||
        (integral && (result.lo != std::floor(result.lo) || result.hi != std::floor(result.hi)))) {
      return std::unexpected(error("bad bounds for `" + kind + "`"));
    }
    options = first + 3;
  } else if (kind == "iota") {
    result.kind = FillKind::iota;
    for (size_t i = first + 1; i < tokens.size() && i < first + 3; ++i, ++options) {
      TRY_ASSIGN(const int64_t number, integer(tokens[i], INT64_MIN, INT64_MAX));
      (i == first + 1 ? result.start : result.step) = static_cast<uint64_t>(number);
    }
  } else if (kind == "const" || kind == "list") {
    result.kind = kind == "const" ? FillKind::constant : FillKind::list;
    for (; options < tokens.size() && tokens[options].find('=') == std::string::npos; ++options) {
      TRY_ASSIGN(const uint64_t bits, value(tokens[options], type));
      result.values.push_back(bits);
    }
    if (result.values.empty() || (kind == "const" && result.values.size() != 1)) {
      return std::unexpected(error("`" + kind + "` needs " + (kind == "const" ? "one value" : "values")));
    }
  } else {
    return std::unexpected(error("unknown fill `" + kind + "`"));
  }
  TRY(fill_options(result, tokens, options, type));
  return result;
}

Expected<void> Parser::fill_options(Fill& fill, const std::vector<std::string>& tokens, size_t first,
                                    ElementType type)
{
  bool seeded = false;
  for (size_t i = first; i < tokens.size(); ++i) {
    const std::string& option = tokens[i];
    const size_t equals = option.find('=');
    const std::string key = equals == std::string::npos ? option : option.substr(0, equals);
    const std::string val = equals == std::string::npos ? "" : option.substr(equals + 1);
    const bool seeded_kind = fill.kind == FillKind::random || fill.kind == FillKind::floats ||
                             fill.kind == FillKind::range || fill.kind == FillKind::ints;
    if (key == "seed" && seeded_kind) {
      TRY_ASSIGN(const int64_t seed, integer(val, 0, INT64_MAX));
      fill.seed = static_cast<uint64_t>(seed);
      seeded = true;
    } else if ((key == "and" || key == "or") && fill.kind == FillKind::random) {
      TRY_ASSIGN(const uint64_t mask, value(val, ElementType::u64));
      (key == "and" ? fill.and_mask : fill.or_mask) = mask;
    } else if (key == "repeat" && fill.kind == FillKind::list) {
      TRY_ASSIGN(fill.repeat, integer(val, 1, int64_t{1} << 32));
    } else {
      return std::unexpected(error("unexpected fill option `" + option + "`"));
    }
  }
  const bool needs_seed = fill.kind == FillKind::random || fill.kind == FillKind::floats ||
                          fill.kind == FillKind::range || fill.kind == FillKind::ints;
  if (needs_seed && !seeded) {
    return std::unexpected(error("this fill needs seed=N"));
  }
  fill.and_mask &= width_mask(type);
  fill.or_mask &= width_mask(type);
  return {};
}

Expected<int64_t> Parser::integer(std::string_view token, int64_t lo, int64_t hi)
{
  int64_t number = 0;
  const bool negative = !token.empty() && token[0] == '-';
  std::string_view digits = negative ? token.substr(1) : token;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits = digits.substr(2);
    base = 16;
  }
  uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty() ||
      magnitude > (negative ? uint64_t{1} << 63 : uint64_t{INT64_MAX})) {
    return std::unexpected(error("bad number `" + std::string(token) + "`"));
  }
  number = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  if (number < lo || number > hi) {
    return std::unexpected(error("number `" + std::string(token) + "` out of range"));
  }
  return number;
}

Expected<double> Parser::real(std::string_view token)
{
  const std::string text(token);
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    return std::unexpected(error("bad number `" + text + "`"));
  }
  return number;
}

// A value of `type` as bits: integers in decimal or 0x hex; floats as 0fXXXXXXXX (f32 bits),
// 0dXXXXXXXXXXXXXXXX (f64 bits), 0x raw bits, or a decimal / inf / nan rounded to nearest even.
Expected<uint64_t> Parser::value(std::string_view token, ElementType type)
{
  const std::string text(token);
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'f' || text[1] == 'd');
  if (hex && (is_float(type) || text[1] == 'x')) {
    if ((text[1] == 'f' && (type != ElementType::f32 || text.size() != 10)) ||
        (text[1] == 'd' && (type != ElementType::f64 || text.size() != 18))) {
      return std::unexpected(error("`" + text + "` does not match type " + to_string(type)));
    }
    uint64_t bits = 0;
    const auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), bits, 16);
    if (ec != std::errc{} || end != text.data() + text.size() || (bits & ~width_mask(type)) != 0) {
      return std::unexpected(error("bad " + std::string(to_string(type)) + " bits `" + text + "`"));
    }
    return bits;
  }
  if (is_float(type)) {
    TRY_ASSIGN(const double number, real(text));
    return double_to_bits(number, type);
  }
  const int64_t bits = static_cast<int64_t>(element_size(type) * 8);
  const int64_t lo = is_signed(type) ? (bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1))) : 0;
  const int64_t hi = bits == 64 ? INT64_MAX : (is_signed(type) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1);
  if (type == ElementType::u64 && !text.empty() && text[0] != '-') {
    uint64_t number = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number, 10);
    if (ec == std::errc{} && end == text.data() + text.size()) {
      return number;
    }
  }
  TRY_ASSIGN(const int64_t number, integer(text, lo, hi));
  return static_cast<uint64_t>(number) & width_mask(type);
}

Expected<void> Parser::apply_compare(const PendingCompare& pending)
{
  const std::vector<std::string>& tokens = pending.tokens;
  const std::string& target = tokens[0];
  if (target.rfind("out", 0) != 0 || tokens.size() < 2) {
    return std::unexpected(error("expected `compare = outN exact|none|ulp K`"));
  }
  TRY_ASSIGN(const int64_t index, integer(target.substr(3), 0, 1 << 20));
  if (index >= static_cast<int64_t>(m_case.outputs.size())) {
    return std::unexpected(error("`" + target + "`: the case has " + std::to_string(m_case.outputs.size()) +
                                 " outputs"));
  }
  OutputInfo& output = m_case.outputs[static_cast<size_t>(index)];
  if (tokens[1] == "exact" && tokens.size() == 2) {
    output.compare = {CompareKind::exact, 0};
  } else if (tokens[1] == "none" && tokens.size() == 2) {
    output.compare = {CompareKind::none, 0};
  } else if (tokens[1] == "ulp" && tokens.size() == 3) {
    if (!is_float(output.type)) {
      return std::unexpected(error("`ulp` needs a float output, " + target + " is " + to_string(output.type)));
    }
    TRY_ASSIGN(const int64_t ulp, integer(tokens[2], 0, int64_t{1} << 40));
    output.compare = {CompareKind::ulp, ulp};
  } else {
    return std::unexpected(error("expected `compare = outN exact|none|ulp K`"));
  }
  return {};
}

uint64_t load_bits(std::span<const std::byte> bytes, int64_t index, int64_t size)
{
  uint64_t bits = 0;
  std::memcpy(&bits, bytes.data() + index * size, static_cast<size_t>(size));
  return bits;
}

std::string hex_bits(uint64_t bits, int64_t size)
{
  static const char digits[] = "0123456789abcdef";
  std::string text = "0x";
  for (int64_t nibble = size * 2 - 1; nibble >= 0; --nibble) {
    text += digits[(bits >> (nibble * 4)) & 0xf];
  }
  return text;
}

// Distance in units in the last place; NaNs are equal to each other whatever their payload.
bool within_ulp(uint64_t a, uint64_t b, ElementType type, int64_t ulp)
{
  const FloatFormat format = float_format(type);
  const int w = format.exponent_bits + format.mantissa_bits;
  const uint64_t magnitude_mask = (uint64_t{1} << w) - 1;
  const uint64_t inf = ((uint64_t{1} << format.exponent_bits) - 1) << format.mantissa_bits;
  const bool a_nan = (a & magnitude_mask) > inf;
  const bool b_nan = (b & magnitude_mask) > inf;
  if (a_nan || b_nan) {
    return a_nan && b_nan;
  }
  const auto ordered = [&](uint64_t bits) {
    const int64_t magnitude = static_cast<int64_t>(bits & magnitude_mask);
    return ((bits >> w) & 1) != 0 ? -magnitude : magnitude;
  };
  const int64_t distance = ordered(a) - ordered(b);
  return (distance < 0 ? -distance : distance) <= ulp;
}

} // namespace

// ---- public ---------------------------------------------------------------------------------

int64_t element_size(ElementType type)
{
  switch (type) {
  case ElementType::u8:
  case ElementType::s8:
    return 1;
  case ElementType::u16:
  case ElementType::s16:
  case ElementType::f16:
  case ElementType::bf16:
    return 2;
  case ElementType::u32:
  case ElementType::s32:
  case ElementType::f32:
    return 4;
  case ElementType::u64:
  case ElementType::s64:
  case ElementType::f64:
    return 8;
  }
  D4R_UNREACHABLE("element type");
}

bool is_float(ElementType type)
{
  return type == ElementType::f16 || type == ElementType::bf16 || type == ElementType::f32 ||
         type == ElementType::f64;
}

const char* to_string(ElementType type)
{
  for (const TypeName& entry : k_type_names) {
    if (entry.type == type) {
      return entry.name;
    }
  }
  D4R_UNREACHABLE("element type name");
}

Expected<LaunchCase> parse_launch_case(std::string_view text, std::string_view name)
{
  Parser parser(name);
  return parser.parse(text);
}

Expected<LaunchCase> read_launch_case(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorCode::io, "golden case " + path.string() + ": cannot read");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_launch_case(text.str(), path.stem().string());
}

std::vector<std::byte> generate_fill(const Fill& fill, ElementType type, int64_t count)
{
  const int64_t size = element_size(type);
  std::vector<std::byte> bytes(static_cast<size_t>(count * size));
  SplitMix64 rng{fill.seed};
  const std::vector<uint64_t> specials =
      fill.kind == FillKind::floats ? special_bits(float_format(type), type) : std::vector<uint64_t>{};
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t bits = fill_element(fill, type, i, rng, specials) & width_mask(type);
    std::memcpy(bytes.data() + i * size, &bits, static_cast<size_t>(size)); // little-endian host
  }
  return bytes;
}

std::vector<ParamSlot> param_layout(const LaunchCase& launch_case, int64_t* total_bytes)
{
  std::vector<ParamSlot> slots;
  int64_t end = 0;
  for (const Param& param : launch_case.params) {
    ParamSlot slot;
    if (param.is_struct) {
      slot.size = param.struct_size;
      slot.align = param.struct_align;
    } else if (param.arg.kind == ArgKind::scalar) {
      slot.size = element_size(param.arg.scalar.type);
      slot.align = slot.size;
    } else if (param.arg.kind == ArgKind::tensor_map) {
      slot.size = 128; // a CUtensorMap: .param .align 64 .b8 [128]
      slot.align = 64;
    } else {
      slot.size = 8;
      slot.align = 8;
    }
    slot.offset = (end + slot.align - 1) / slot.align * slot.align;
    end = slot.offset + slot.size;
    slots.push_back(slot);
  }
  *total_bytes = end;
  return slots;
}

Expected<void> compare_output(const LaunchCase& launch_case, int64_t output_index,
                              std::span<const std::byte> expected, std::span<const std::byte> actual)
{
  const OutputInfo& output = launch_case.outputs.at(static_cast<size_t>(output_index));
  const std::string label = "golden case " + launch_case.name + ": out" + std::to_string(output_index) + " (" +
                            output.what + ")";
  if (expected.size() != actual.size() || static_cast<int64_t>(expected.size()) != output.bytes) {
    return make_error(ErrorCode::rejected, label + ": " + std::to_string(actual.size()) + " bytes, expected " +
                                               std::to_string(expected.size()));
  }
  if (output.compare.kind == CompareKind::none) {
    return {};
  }
  const int64_t size = element_size(output.type);
  const int64_t count = output.bytes / size;
  int64_t differing = 0;
  std::string first;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t want = load_bits(expected, i, size);
    const uint64_t got = load_bits(actual, i, size);
    const bool same = output.compare.kind == CompareKind::exact ? want == got
                                                                 : within_ulp(want, got, output.type, output.compare.ulp);
    if (same) {
      continue;
    }
    if (differing < 4) {
      first += (differing == 0 ? "" : ", ") + std::string("[") + std::to_string(i) + "] expected " +
               hex_bits(want, size) + " got " + hex_bits(got, size);
    }
    differing += 1;
  }
  if (differing == 0) {
    return {};
  }
  return make_error(ErrorCode::rejected, label + ": " + std::to_string(differing) + " of " +
                                             std::to_string(count) + " elements differ: " + first);
}

} // namespace d4r::compiler::cpu
