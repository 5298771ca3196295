#include "compiler/translate/mma_layout.hpp"

#include <map>
#include <utility>

namespace d4r::compiler::translate {

namespace {

constexpr int k_lanes = 32;

int per_word(const MmaLayoutSpec& spec)
{
  return 32 / spec.element_bits;
}

// Words holding one 16-element row (or column) in the portable layouts.
int row_words(const MmaLayoutSpec& spec)
{
  return 16 / per_word(spec);
}

MatrixPos ptx_position(const MmaLayoutSpec& spec, int lane, int word, int sub)
{
  int g = lane >> 2;
  int t = lane & 3;
  int i = word * per_word(spec) + sub;
  switch (spec.operand) {
  case MmaOperand::a:
    if (spec.element_bits == 8) {
      return MatrixPos{g + 8 * (i >= 4 ? 1 : 0), 4 * t + (i & 3)};
    }
    return MatrixPos{g + 8 * ((i / 2) % 2), 2 * t + (i & 1) + 8 * (i >= 4 ? 1 : 0)};
  case MmaOperand::b:
    if (spec.element_bits == 8) {
      return MatrixPos{4 * t + i, g};
    }
    return MatrixPos{2 * t + (i & 1) + 8 * (i >= 2 ? 1 : 0), g};
  case MmaOperand::c: return MatrixPos{g + 8 * (i >= 2 ? 1 : 0), 2 * t + (i & 1)};
  }
  return MatrixPos{};
}

MatrixPos wmma_position(const MmaLayoutSpec& spec, int lane, int word, int sub)
{
  int index = lane % 16;
  int half = lane / 16;
  bool gfx11 = spec.layout == MmaLayout::gfx11;
  if (spec.operand == MmaOperand::c) {
    return gfx11 ? MatrixPos{2 * word + half, index} : MatrixPos{word + 8 * half, index};
  }
  int k = word * per_word(spec) + sub + (gfx11 ? 0 : 8 * half);
  return spec.operand == MmaOperand::a ? MatrixPos{index, k} : MatrixPos{k, index};
}

MatrixPos portable_position(const MmaLayoutSpec& spec, int lane, int word, int sub)
{
  int width = row_words(spec);
  int second = word >= width ? 1 : 0;
  int k = (word % width) * per_word(spec) + sub;
  if (spec.layout == MmaLayout::rows) {
    return MatrixPos{(lane >> 2) + 8 * second, k};
  }
  return MatrixPos{k, 2 * (lane & 3) + second};
}

} // namespace

int mma_layout_words(const MmaLayoutSpec& spec)
{
  bool wide = spec.element_bits == 32;
  bool narrow = spec.element_bits == 8;
  if (spec.operand == MmaOperand::c ? narrow : wide) {
    return 0;
  }
  switch (spec.layout) {
  case MmaLayout::ptx:
    if (spec.operand == MmaOperand::c) {
      return wide ? 4 : 2;
    }
    return (spec.operand == MmaOperand::a ? 4 : 2) / (narrow ? 2 : 1);
  case MmaLayout::gfx11:
    if (spec.operand == MmaOperand::c) {
      return wide ? 8 : 0; // f16 C/D (op_sel halves) is not modelled
    }
    return narrow ? 0 : 8; // RDNA3 has no fp8 WMMA
  case MmaLayout::gfx12:
    if (spec.operand == MmaOperand::c) {
      return wide ? 8 : 0;
    }
    return narrow ? 2 : 4;
  case MmaLayout::ptx_widened:
    return spec.element_bits == 16 && spec.operand != MmaOperand::c
               ? 2 * mma_layout_words({MmaLayout::ptx, spec.operand, 8})
               : 0;
  case MmaLayout::rows:
    return spec.operand == MmaOperand::a ? 2 * row_words(spec) : 0;
  case MmaLayout::cols:
    return spec.operand == MmaOperand::b ? 2 * row_words(spec) : 0;
  }
  return 0;
}

MatrixPos mma_layout_position(const MmaLayoutSpec& spec, int lane, int word, int sub)
{
  switch (spec.layout) {
  case MmaLayout::ptx: return ptx_position(spec, lane, word, sub);
  case MmaLayout::ptx_widened:
    return ptx_position({MmaLayout::ptx, spec.operand, 8}, lane, word / 2, 2 * (word % 2) + sub);
  case MmaLayout::gfx11:
  case MmaLayout::gfx12: return wmma_position(spec, lane, word, sub);
  case MmaLayout::rows:
  case MmaLayout::cols: return portable_position(spec, lane, word, sub);
  }
  return MatrixPos{};
}

std::optional<MmaWordRemap> mma_word_remap(const MmaLayoutSpec& destination,
                                           const MmaLayoutSpec& source)
{
  int words = mma_layout_words(destination);
  int source_words = mma_layout_words(source);
  if (words == 0 || source_words == 0 || destination.element_bits != source.element_bits) {
    return std::nullopt;
  }
  int subs = per_word(source);
  // (row, col) -> (lane, word, sub) of its first holder in the source.
  std::map<std::pair<int, int>, std::pair<MmaWordSource, int>> holders;
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int word = 0; word < source_words; ++word) {
      for (int sub = 0; sub < subs; ++sub) {
        MatrixPos pos = mma_layout_position(source, lane, word, sub);
        holders.try_emplace({pos.row, pos.col}, MmaWordSource{lane, word}, sub);
      }
    }
  }
  MmaWordRemap remap;
  remap.words = words;
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int word = 0; word < words; ++word) {
      std::optional<MmaWordSource> from;
      bool zero = false;
      for (int sub = 0; sub < subs; ++sub) {
        MatrixPos pos = mma_layout_position(destination, lane, word, sub);
        auto it = holders.find({pos.row, pos.col});
        if (it == holders.end()) {
          zero = true;
          continue;
        }
        if (it->second.second != sub || (from && !(*from == it->second.first))) {
          return std::nullopt;
        }
        from = it->second.first;
      }
      if (zero && from) {
        return std::nullopt;
      }
      remap.sources.push_back(from.value_or(MmaWordSource{}));
    }
  }
  return remap;
}

namespace {

Fragment empty_fragment(MmaShape shape, MmaOperand operand, int element_bits, int registers,
                        int register_bits)
{
  Fragment f;
  f.rows = operand == MmaOperand::b ? shape.k : shape.m;
  f.cols = operand == MmaOperand::a ? shape.k : shape.n;
  f.registers = registers;
  f.element_bits = element_bits;
  f.register_bits = register_bits;
  f.positions.resize(static_cast<size_t>(k_lanes * registers * f.per_register()));
  return f;
}

template <typename Position> void fill(Fragment& f, Position position)
{
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int reg = 0; reg < f.registers; ++reg) {
      for (int sub = 0; sub < f.per_register(); ++sub) {
        f.positions[static_cast<size_t>((lane * f.registers + reg) * f.per_register() + sub)] =
            position(lane, reg, sub);
      }
    }
  }
}

} // namespace

std::optional<Fragment> mma_fragment(MmaShape shape, MmaOperand operand, int element_bits)
{
  if (shape.n != 8 || (shape.m != 16 && shape.m != 8)) {
    return std::nullopt;
  }
  int register_bits = element_bits == 64 ? 64 : 32;
  int p = register_bits / element_bits;
  int per_lane = (operand == MmaOperand::a ? shape.m * shape.k
                  : operand == MmaOperand::b ? shape.k * shape.n
                                             : shape.m * shape.n) / k_lanes;
  int registers = operand == MmaOperand::c ? per_lane * element_bits / register_bits : per_lane / p;
  if (operand != MmaOperand::c && (registers == 0 || per_lane % p != 0 || shape.k % (4 * p) != 0)) {
    return std::nullopt;
  }
  Fragment f = empty_fragment(shape, operand, element_bits, registers, register_bits);
  bool tall = shape.m == 16;
  fill(f, [&](int lane, int reg, int sub) {
    int g = lane >> 2;
    int t = lane & 3;
    switch (operand) {
    case MmaOperand::a:
      return tall ? MatrixPos{g + 8 * (reg & 1), 4 * p * (reg >> 1) + p * t + sub}
                  : MatrixPos{g, 4 * p * reg + p * t + sub};
    case MmaOperand::b: return MatrixPos{4 * p * reg + p * t + sub, g};
    case MmaOperand::c: {
      int i = reg * f.per_register() + sub;
      return MatrixPos{g + 8 * (i >= 2 ? 1 : 0), 2 * t + (i & 1)};
    }
    }
    return MatrixPos{};
  });
  return f;
}

Fragment mma_m8n8k4_fragment(MmaOperand operand, bool row_major, int element_bits)
{
  MmaShape shape{32, 32, 4};
  int registers = operand == MmaOperand::c ? (element_bits == 32 ? 8 : 4) : 2;
  Fragment f = empty_fragment(shape, operand, element_bits, registers, 32);
  fill(f, [&](int lane, int reg, int sub) {
    int i = reg * f.per_register() + sub;
    int block = 8 * ((lane % 16) / 4);
    int hi = lane >= 16 ? 4 : 0;
    int low = lane % 4;
    switch (operand) {
    case MmaOperand::a:
      return row_major ? MatrixPos{block + low + hi, i} : MatrixPos{block + i % 4 + hi, low};
    case MmaOperand::b:
      return row_major ? MatrixPos{low, block + i + hi} : MatrixPos{i, block + low + hi};
    case MmaOperand::c:
      if (element_bits == 16) {
        return MatrixPos{block + low + hi, block + i};
      }
      return MatrixPos{block + (lane & 1) + (i & 2) + hi, block + (i & 4) + (lane & 2) + (i & 1)};
    }
    return MatrixPos{};
  });
  return f;
}

Fragment wmma_fragment(MmaShape shape, MmaOperand operand, int element_bits, int registers,
                       int register_bits)
{
  Fragment f = empty_fragment(shape, operand, element_bits, registers, register_bits);
  int p = f.per_register();
  int size = f.rows * f.cols;
  fill(f, [&](int lane, int reg, int sub) {
    int index = (lane * registers + reg) * p + sub;
    int e = index % size;
    switch (operand) {
    case MmaOperand::a: return MatrixPos{e / f.cols, e % f.cols};
    case MmaOperand::b: return MatrixPos{e % f.rows, e / f.rows};
    case MmaOperand::c: {
      int element = reg * p + sub;
      return MatrixPos{element * (k_lanes / f.cols) + lane / f.cols, lane % f.cols};
    }
    }
    return MatrixPos{};
  });
  return f;
}

std::optional<std::vector<FragmentElement>> fragment_elements(const Fragment& fragment, bool rows,
                                                              const std::vector<int>& lines)
{
  int length = rows ? fragment.cols : fragment.rows;
  std::map<std::pair<int, int>, std::vector<FragmentElement>> holders; // (line, index)
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int reg = 0; reg < fragment.registers; ++reg) {
      for (int sub = 0; sub < fragment.per_register(); ++sub) {
        MatrixPos pos = fragment.at(lane, reg, sub);
        holders[{rows ? pos.row : pos.col, rows ? pos.col : pos.row}].push_back(
            FragmentElement{lane, reg, sub});
      }
    }
  }
  std::vector<FragmentElement> out;
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int e = 0; e < length; ++e) {
      auto it = holders.find({lines[static_cast<size_t>(lane)], e});
      if (it == holders.end()) {
        return std::nullopt;
      }
      FragmentElement chosen = it->second.front();
      for (const FragmentElement& holder : it->second) {
        if (holder.lane == lane) {
          chosen = holder;
          break;
        }
      }
      out.push_back(chosen);
    }
  }
  return out;
}

std::optional<MmaWordRemap> fragment_lines(const Fragment& fragment, bool rows,
                                           const std::vector<int>& lines)
{
  int p = fragment.per_register();
  int length = rows ? fragment.cols : fragment.rows;
  if (length % p != 0 || lines.size() != static_cast<size_t>(k_lanes)) {
    return std::nullopt;
  }
  // (line, first element) -> every (lane, register) holding that run in order.
  std::map<std::pair<int, int>, std::vector<MmaWordSource>> runs;
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int reg = 0; reg < fragment.registers; ++reg) {
      MatrixPos first = fragment.at(lane, reg, 0);
      int line = rows ? first.row : first.col;
      int start = rows ? first.col : first.row;
      bool ordered = start % p == 0;
      for (int sub = 1; sub < p && ordered; ++sub) {
        MatrixPos pos = fragment.at(lane, reg, sub);
        ordered = (rows ? pos.row : pos.col) == line && (rows ? pos.col : pos.row) == start + sub;
      }
      if (ordered) {
        runs[{line, start}].push_back(MmaWordSource{lane, reg});
      }
    }
  }
  MmaWordRemap remap;
  remap.words = length / p;
  for (int lane = 0; lane < k_lanes; ++lane) {
    for (int w = 0; w < remap.words; ++w) {
      auto it = runs.find({lines[static_cast<size_t>(lane)], w * p});
      if (it == runs.end()) {
        return std::nullopt;
      }
      MmaWordSource chosen = it->second.front();
      for (const MmaWordSource& holder : it->second) {
        if (holder.lane == lane) {
          chosen = holder;
          break;
        }
      }
      remap.sources.push_back(chosen);
    }
  }
  return remap;
}

} // namespace d4r::compiler::translate
