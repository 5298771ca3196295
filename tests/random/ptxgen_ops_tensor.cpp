// Version 3's warpgroup matrix multiply (sm_90a): wgmma.mma_async dense and .sp over a 32 KiB
// shared-memory image, through random matrix descriptors (every swizzle mode, K- and MN-major,
// canonical and odd strides, unaligned starts with base offsets) and A register fragments.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions
//
// Well-defined by construction: the image is written whole before the first wgmma (from the
// block's material words, by a cp.async.bulk or by every thread), every descriptor addresses
// bytes inside it (checked by enumerating the ISA's canonical-layout offsets; a swizzle only
// permutes 16-byte chunks inside a 128-byte line), registers stored into it go to words no other
// thread writes, and `fence.proxy.async` plus bar.sync order those generic stores before wgmma's
// reads; the sparsity metadata are valid index pairs; scale-d is uniform over the warpgroup.
// One type family per program (its image material fits it: moderate values, a few edges).

#include "tests/random/ptxgen_builder.hpp"

#include <algorithm>

namespace d4r::ptxgen {

namespace {

constexpr int64_t k_image_bytes = 32768;

enum Family { half = 0, tf32 = 1, fp8 = 2, int8 = 3, b1 = 4 };

// A float of `exponent_bits`/`mantissa_bits` (bias 2^(e-1) - 1), mostly of a moderate size
// (2^-6 .. 2^4), sometimes 0, subnormal, huge, infinite or NaN.
uint64_t material_float(Rng& rng, int exponent_bits, int mantissa_bits)
{
  const uint64_t sign = rng.next() & 1;
  const uint64_t bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
  const uint64_t all_ones = (uint64_t{1} << exponent_bits) - 1;
  uint64_t exponent = bias - 6 + rng.below(11);
  const uint64_t mantissa = rng.next() & ((uint64_t{1} << mantissa_bits) - 1);
  // Rare enough that most dot products (16-64 terms) stay finite.
  const size_t edge = rng.below(512);
  if (edge == 0) {
    exponent = all_ones; // inf or NaN
  } else if (edge <= 8) {
    exponent = 0; // subnormal or zero
  } else if (edge <= 12) {
    return sign << (exponent_bits + mantissa_bits);
  } else if (edge <= 14) {
    exponent = all_ones - 1; // the largest binade
  }
  return sign << (exponent_bits + mantissa_bits) | exponent << mantissa_bits | mantissa;
}

uint64_t material_word(Rng& rng, int family)
{
  uint64_t word = 0;
  switch (family) {
  case half:
    for (int i = 0; i < 4; ++i) {
      word |= material_float(rng, 5, 10) << (16 * i); // f16 bits; read as bf16 they are moderate too
    }
    return word;
  case tf32:
    return material_float(rng, 8, 23) | material_float(rng, 8, 23) << 32;
  case fp8:
    for (int i = 0; i < 8; ++i) {
      // Moderate in both formats: an e5m2 exponent field of 10..18 (2^-5 .. 2^3) is an e4m3 one
      // of 5..9 (2^-2 .. 2^2), so 32-term sums stay inside f16; 1 in 32 any byte (NaN, inf, huge).
      uint64_t byte = rng.next() & 0x83;
      byte |= (10 + rng.below(9)) << 2;
      if (rng.chance(1, 32)) {
        byte = rng.next() & 0xff;
      }
      word |= byte << (8 * i);
    }
    return word;
  case int8:
    return rng.chance(1, 8) ? int_value(rng, 64) : rng.next();
  default: { // b1: a density per word
    const size_t density = rng.below(5);
    word = rng.next();
    return density == 0 ? word & rng.next() & rng.next() : density == 1 ? word | rng.next() : word;
  }
  }
}

// Valid 2-of-4 index pairs (i0 < i1) per nibble; .tf32 keeps 1 of 2: 0b0100 or 0b1110.
uint32_t sparsity_metadata(Rng& rng, int family)
{
  static const uint32_t k_pairs[] = {0x4, 0x8, 0xc, 0x9, 0xd, 0xe};
  static const uint32_t k_tf32[] = {0x4, 0xe};
  uint32_t meta = 0;
  for (int nibble = 0; nibble < 8; ++nibble) {
    meta |= (family == tf32 ? k_tf32[rng.below(2)] : k_pairs[rng.below(6)]) << (4 * nibble);
  }
  return meta;
}

struct Descriptor {
  int64_t start = 0; // byte offset in the image
  int64_t lbo = 0, sbo = 0;
  int base = 0, mode = 0; // mode: 0 none, 1 128-byte, 2 64-byte, 3 32-byte swizzle
};

int64_t swizzle_width(int mode)
{
  return mode == 0 ? 16 : mode == 1 ? 128 : mode == 2 ? 64 : 32;
}

// The largest offset from start of an operand's element bytes (PTX ISA 9.7.15.5.1.2: the
// canonical layouts), K-major in bytes, MN-major in elements of `element` bytes.
int64_t max_offset(const Descriptor& d, int rows, int kbytes, int element, bool mn_major)
{
  const int64_t w = swizzle_width(d.mode);
  int64_t most = 0;
  if (!mn_major) {
    const int64_t s = d.mode == 0 ? d.lbo : 16;
    for (int mn = 0; mn < rows; ++mn) {
      for (int kb = 0; kb < kbytes; ++kb) {
        most = std::max(most, (mn % 8) * w + (mn / 8) * d.sbo + (kb / 16) * s + kb % 16);
      }
    }
    return most;
  }
  const int64_t p = d.mode == 0 ? d.sbo : d.lbo, q = d.mode == 0 ? d.lbo : d.sbo;
  for (int mb = 0; mb < rows * element; ++mb) {
    for (int k = 0; k < kbytes / element; ++k) {
      most = std::max(most, mb % w + (mb / w) * p + (k % 8) * w + (k / 8) * q + element - 1 - mb % element);
    }
  }
  return most;
}

bool inside(const Descriptor& d, int rows, int kbytes, int element, bool mn_major)
{
  // A swizzle permutes 16-byte chunks within a 128-byte line: the lines must be in the image.
  const int64_t low = d.start & ~int64_t{127};
  const int64_t high = (d.start + max_offset(d, rows, kbytes, element, mn_major)) | 127;
  return low >= 0 && high < k_image_bytes;
}

Descriptor random_descriptor(Rng& rng, int rows, int kbytes, int element, bool mn_major)
{
  for (int attempt = 0; attempt < 60; ++attempt) {
    Descriptor d;
    d.mode = rng.chance(2, 5) ? 0 : 1 + static_cast<int>(rng.below(3));
    if (!mn_major && d.mode != 0 && kbytes > swizzle_width(d.mode)) {
      d.mode = 1 + static_cast<int>(rng.below(2)); // a K row wider than a 32-byte swizzle
    }
    const int64_t w = swizzle_width(d.mode);
    auto odd = [&]() { return 16 * (1 + static_cast<int64_t>(rng.below(128))); };
    const bool canonical = rng.chance(2, 3);
    if (!mn_major) {
      if (d.mode == 0) {
        if (canonical && rng.chance(1, 2)) {
          d.lbo = 128;
          d.sbo = 128 * (kbytes / 16);
        } else if (canonical) {
          d.lbo = 128 * ((rows + 7) / 8);
          d.sbo = 128;
        } else {
          d.lbo = odd();
          d.sbo = odd();
        }
      } else {
        d.sbo = canonical ? 8 * w : odd();
        d.lbo = odd(); // unused: the K extent is inside the swizzle width
      }
    } else {
      const int64_t kgroups = (kbytes / element + 7) / 8;
      if (d.mode == 0) {
        d.sbo = canonical ? 128 : odd();
        d.lbo = canonical ? 128 * ((rows * element + 15) / 16) : odd();
      } else {
        d.lbo = canonical ? 8 * w * kgroups : odd();
        d.sbo = canonical ? 8 * w : odd();
      }
    }
    if (d.mode == 0 || rng.chance(1, 2)) {
      d.start = static_cast<int64_t>(rng.below(static_cast<size_t>(k_image_bytes / 16))) * 16;
      if (d.mode != 0) {
        // Off the pattern's boundary: the base offset is where the pattern starts (sometimes any).
        d.base = rng.chance(3, 4) ? static_cast<int>((d.start >> 7) & 7) : static_cast<int>(rng.below(8));
      }
    } else {
      // On the pattern's boundary (8 lines), possibly a K step (32 bytes) into the line.
      const int64_t pattern = 8 * w;
      d.start = static_cast<int64_t>(rng.below(static_cast<size_t>(k_image_bytes / pattern))) * pattern;
      if (!mn_major && w > kbytes) {
        d.start += 32 * static_cast<int64_t>(rng.below(static_cast<size_t>(w / 32)));
      }
    }
    if (inside(d, rows, kbytes, element, mn_major)) {
      return d;
    }
  }
  Descriptor d; // compact, no swizzle, at the start: always inside for these sizes
  d.lbo = mn_major ? 128 * ((rows * element + 15) / 16) : 128;
  d.sbo = mn_major ? 128 : 128 * (kbytes / 16);
  return d;
}

// The descriptor's bits above the start field.
uint64_t descriptor_high(const Descriptor& d)
{
  return static_cast<uint64_t>(d.lbo >> 4) << 16 | static_cast<uint64_t>(d.sbo >> 4) << 32 |
         static_cast<uint64_t>(d.base) << 49 | static_cast<uint64_t>(d.mode == 0 ? 0 : d.mode) << 62;
}

std::string register_list(const std::vector<std::string>& regs)
{
  std::string text = "{";
  for (size_t i = 0; i < regs.size(); ++i) {
    text += (i == 0 ? "" : ", ") + regs[i];
  }
  return text + "}";
}

} // namespace

void Builder::fill_image()
{
  m_wgmma_family = static_cast<int>(m_rng.below(5));
  m_shared += "  .shared .align 1024 .b8 img[" + dec(k_image_bytes) + "];\n";
  const int64_t image = block_words(k_image_bytes / 8);
  m_image_words = (image - static_cast<int64_t>(m_threads) * k_input_words * 8) / 8;
  for (int64_t i = 0; i < k_image_bytes / 8; ++i) {
    m_block[static_cast<size_t>(m_image_words + i)] = material_word(m_rng, m_wgmma_family);
  }
  const int64_t meta = block_words(m_threads / 2);
  m_meta_words = (meta - static_cast<int64_t>(m_threads) * k_input_words * 8) / 8;
  for (int t = 0; t < m_threads; t += 2) {
    m_block[static_cast<size_t>(m_meta_words + t / 2)] =
        sparsity_metadata(m_rng, m_wgmma_family) | uint64_t{sparsity_metadata(m_rng, m_wgmma_family)} << 32;
  }
  if (m_rng.chance(1, 2)) {
    // One thread copies the image with 1, 2, 4 or 8 bulk copies completing one mbarrier phase.
    const std::string barrier = new_barrier();
    const int64_t copies = int64_t{1} << m_rng.below(4);
    const int64_t size = k_image_bytes / copies;
    emit("@%pe mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + barrier + "], " + dec(k_image_bytes) + ";");
    for (int64_t i = 0; i < copies; ++i) {
      emit("add.s64 %tb, %ib, " + dec(image + i * size) + ";");
      emit("mov.u32 %tw, img;");
      emit("add.u32 %tw, %tw, " + dec(i * size) + ";");
      emit("@%pe cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%tw], [%tb], " + dec(size) + ", [" +
           barrier + "];");
    }
    barrier_wait(barrier);
    return;
  }
  // Every thread copies 16-byte chunks t, t + threads, ... (a loop of 16 iterations for 128).
  const std::string again = "L" + dec(m_labels++) + "_image";
  const int64_t stride = static_cast<int64_t>(m_threads) * 16;
  const std::string nc = m_rng.chance(1, 2) ? ".nc" : "";
  emit("mul.wide.u32 %tb, %tx, 16;");
  emit("add.s64 %tb, %tb, %ib;");
  emit("add.s64 %tb, %tb, " + dec(image) + ";");
  emit("mov.u32 %tw, img;");
  emit("shl.b32 %tv, %tx, 4;");
  emit("add.u32 %tw, %tw, %tv;");
  emit("mov.u32 %tv, 0;");
  m_body += again + ":\n";
  emit("ld.global" + nc + ".v4.b32 {%q0, %q1, %q2, %q3}, [%tb];");
  emit("st.shared.v4.b32 [%tw], {%q0, %q1, %q2, %q3};");
  emit("add.s64 %tb, %tb, " + dec(stride) + ";");
  emit("add.u32 %tw, %tw, " + dec(stride) + ";");
  emit("add.u32 %tv, %tv, 1;");
  emit("setp.lt.u32 %pw, %tv, " + dec(k_image_bytes / stride) + ";");
  emit("@%pw bra " + again + ";");
  emit("bar.sync 0;");
}

Src Builder::image_value()
{
  // Thread t reads word (t * 4 + j) mod 8192 of the image, j random.
  const int64_t j = static_cast<int64_t>(m_rng.below(static_cast<size_t>(k_image_bytes / 4)));
  emit("mul.lo.u32 %tw, %tx, 16;");
  emit("add.u32 %tw, %tw, " + dec(j * 4) + ";");
  emit("and.b32 %tw, %tw, " + dec(k_image_bytes - 4) + ";");
  emit("mov.u32 %tv, img;");
  emit("add.u32 %tw, %tw, %tv;");
  const std::string d = fresh(32);
  const std::string line = "ld.shared.b32 " + d + ", [%tw];";
  emit(line);
  const SlotType type = m_wgmma_family == half ? SlotType::f16x2 : m_wgmma_family == tf32 ? SlotType::f32 : SlotType::b32;
  traced_cross(line + " (image)", d, 32, type, {});
  return Src{d, m_pool32.back().slot};
}

void Builder::wgmma_region()
{
  ++m_regions3;
  ++m_wgmma_regions;
  if (m_wgmma_family < 0) {
    fill_image();
  } else {
    emit("bar.sync 0;"); // the earlier wgmma's reads are done before the image is written again
  }
  const int family = m_wgmma_family;
  const char kind = family == int8 || family == b1 ? 'i' : 'f';
  // Registers other forms made, stored over the image: thread t writes word t of a 512-byte
  // block, a different block per store, so no two threads write one word.
  std::vector<Src> stored;
  const int stores = static_cast<int>(m_rng.below(3));
  const size_t first_block = m_rng.below(static_cast<size_t>(k_image_bytes / 512 - stores));
  for (int j = 0; j < stores; ++j) {
    const Src value = reg(32, kind);
    stored.push_back(value);
    emit("mov.u32 %tw, img;");
    emit("shl.b32 %tv, %tx, 2;");
    emit("add.u32 %tw, %tw, %tv;");
    emit("st.shared.b32 [%tw+" + dec(static_cast<int64_t>(first_block + static_cast<size_t>(j)) * 512) + "], " + value.text +
         ";");
  }
  emit("fence.proxy.async.shared::cta;");
  emit("bar.sync 0;");
  // The form.
  static const int k_ns[] = {8, 16, 24, 32, 48, 64, 8, 16, 32, 128};
  const int n = k_ns[m_rng.below(std::size(k_ns))];
  const bool sparse = family != b1 && m_rng.chance(1, 3);
  std::string atype, btype, dtype = "f32";
  int k = 16, element = 2;
  switch (family) {
  case half:
    atype = btype = m_rng.chance(1, 2) ? "f16" : "bf16";
    dtype = atype == "f16" && m_rng.chance(1, 2) ? "f16" : "f32";
    break;
  case tf32:
    atype = btype = "tf32";
    k = 8;
    element = 4;
    break;
  case fp8:
    atype = m_rng.chance(1, 2) ? "e4m3" : "e5m2";
    btype = m_rng.chance(1, 2) ? "e4m3" : "e5m2";
    dtype = m_rng.chance(1, 2) ? "f16" : "f32";
    k = 32;
    element = 1;
    break;
  case int8:
    atype = m_rng.chance(1, 2) ? "s8" : "u8";
    btype = m_rng.chance(1, 2) ? "s8" : "u8";
    dtype = "s32";
    k = 32;
    element = 1;
    break;
  default:
    atype = btype = "b1";
    dtype = "s32";
    k = 256;
    element = 1; // 32 bytes of K per row, as bytes
    break;
  }
  const bool a_in_registers = m_rng.chance(1, 3);
  const bool transposable = family == half;
  const bool trans_a = transposable && !a_in_registers && m_rng.chance(1, 4);
  const bool trans_b = transposable && m_rng.chance(1, 4);
  const int kbytes_b = sparse ? 64 : 32;
  const int regs = dtype == "f16" ? n / 4 : n / 2;
  const bool scaled = family == half || family == tf32 || family == fp8;
  std::string shape = "m64n" + dec(n) + "k" + dec(sparse ? 2 * k : k);
  std::string opcode = std::string("wgmma.mma_async") + (sparse ? ".sp" : "") + ".sync.aligned." + shape;
  if (family == int8 && m_rng.chance(1, 2)) {
    opcode += ".satfinite";
  }
  opcode += "." + dtype + "." + atype + "." + btype + (family == b1 ? ".and.popc" : "");
  // C: the accumulators start as pool registers (or zero), D is traced register by register.
  std::vector<std::string> d;
  std::vector<Src> c_sources;
  // C is zero, or registers of the pools, or image words (moderate values of the family).
  const size_t c_from = m_rng.below(3);
  for (int i = 0; i < regs; ++i) {
    const std::string reg_d = fresh(32);
    d.push_back(reg_d);
    if (c_from == 0) {
      emit("mov.b32 " + reg_d + ", 0;");
      c_sources.push_back(Src{"0", -1});
    } else {
      const Src c = c_from == 1 ? reg(32, kind) : image_value();
      emit("mov.b32 " + reg_d + ", " + c.text + ";");
      c_sources.push_back(c);
    }
  }
  std::vector<Src> sources = stored;
  Src meta{};
  if (sparse) {
    emit("mul.wide.u32 %tc, %tx, 4;");
    emit("add.s64 %tc, %tc, %ib;");
    const std::string m = fresh(32);
    const int64_t at = static_cast<int64_t>(m_threads) * k_input_words * 8 + m_meta_words * 8;
    traced("ld.global.u32 " + m + ", [%tc+" + dec(at) + "];", m, 32, SlotType::b32, {}, false);
    meta = Src{m, m_pool32.back().slot};
    sources.push_back(meta);
  }
  const int chain = m_rng.chance(1, 3) ? 2 : 1;
  std::vector<std::string> lines;
  std::vector<std::vector<Src>> a_regs(static_cast<size_t>(chain));
  for (int step = 0; step < chain; ++step) {
    if (a_in_registers) {
      // Pool registers (what other forms made: often NaN as halves or FP8), or image words.
      a_regs[static_cast<size_t>(step)] = m_rng.chance(1, 3) ? fragment(4, kind)
                                                             : std::vector<Src>{image_value(), image_value(), image_value(),
                                                                                image_value()};
      sources.insert(sources.end(), a_regs[static_cast<size_t>(step)].begin(), a_regs[static_cast<size_t>(step)].end());
    }
  }
  emit("wgmma.fence.sync.aligned;");
  for (int step = 0; step < chain; ++step) {
    std::string a_operand;
    if (a_in_registers) {
      std::vector<std::string> names;
      for (const Src& a : a_regs[static_cast<size_t>(step)]) {
        names.push_back(a.text);
      }
      a_operand = register_list(names);
    } else {
      const Descriptor a = random_descriptor(m_rng, 64, 32, element, trans_a);
      emit("mov.u32 %tw, img;");
      emit("add.u32 %tw, %tw, " + dec(a.start) + ";");
      emit("shr.u32 %tw, %tw, 4;");
      emit("and.b32 %tw, %tw, 0x3fff;");
      emit("cvt.u64.u32 %tb, %tw;");
      emit("or.b64 %tb, %tb, " + hex(descriptor_high(a)) + ";");
      a_operand = "%tb";
    }
    const Descriptor b = random_descriptor(m_rng, n, kbytes_b, element, trans_b);
    emit("mov.u32 %tw, img;");
    emit("add.u32 %tw, %tw, " + dec(b.start) + ";");
    emit("shr.u32 %tw, %tw, 4;");
    emit("and.b32 %tw, %tw, 0x3fff;");
    emit("cvt.u64.u32 %tc, %tw;");
    emit("or.b64 %tc, %tc, " + hex(descriptor_high(b)) + ";");
    // scale-d: uniform; the first step may drop C, a chained step accumulates.
    const bool scale_d = step > 0 || !m_rng.chance(1, 4);
    emit("mov.u32 %tu, " + dec(scale_d ? 1 : 0) + ";");
    emit("setp.ne.u32 %pw, %tu, 0;");
    std::string line = opcode + " " + register_list(d) + ", " + a_operand + ", %tc";
    if (sparse) {
      line += ", " + meta.text + ", " + dec(family == half && m_rng.chance(1, 2) ? 1 : 0);
    }
    line += ", %pw";
    if (scaled) {
      line += std::string(", ") + (m_rng.chance(1, 4) ? "-1" : "1") + ", " + (m_rng.chance(1, 4) ? "-1" : "1");
    }
    if (transposable) {
      line += a_in_registers ? "" : std::string(", ") + (trans_a ? "1" : "0");
      line += std::string(", ") + (trans_b ? "1" : "0");
    }
    line += ";";
    emit(line);
    lines.push_back(line);
  }
  emit("wgmma.commit_group.sync.aligned;");
  emit("wgmma.wait_group.sync.aligned 0;");
  const std::string what = lines.size() == 1 ? lines[0] : lines[0] + " then " + lines[1];
  const SlotType type = dtype == "s32" ? SlotType::b32 : dtype == "f16" ? SlotType::f16x2 : SlotType::f32;
  for (int i = 0; i < regs; ++i) {
    std::vector<Src> own = sources;
    own.push_back(c_sources[static_cast<size_t>(i)]);
    traced_cross(what + " (d" + dec(i) + ")", d[static_cast<size_t>(i)], 32, type, own);
  }
}

} // namespace d4r::ptxgen
