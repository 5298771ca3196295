#include "compiler/translate/lowering.hpp"

namespace d4r::compiler::translate {

namespace {

LoweringTable make_table()
{
  LoweringTable table;
  add_arith_lowerings(table);
  add_compare_lowerings(table);
  add_convert_lowerings(table);
  add_memory_lowerings(table);
  add_control_lowerings(table);
  add_warp_lowerings(table);
  add_mma_lowerings(table);
  add_image_lowerings(table);
  add_fp8_lowerings(table);
  add_warp_reduce_lowerings(table);
  add_int_pack_lowerings(table);
  add_sleep_lowerings(table);
  add_video_lowerings(table);
  add_async_copy_lowerings(table);
  add_ldmatrix_lowerings(table);
  add_hint_lowerings(table);
  add_cluster_lowerings(table);
  add_wmma_lowerings(table);
  add_mbarrier_lowerings(table);
  add_wgmma_lowerings(table);
  // Stages 4-6 (lower_image.cpp, lower_fp8.cpp, lower_mma.cpp) register here.
  return table;
}

} // namespace

Lowering find_lowering(std::string_view opcode)
{
  static const LoweringTable table = make_table();
  auto it = table.find(std::string(opcode));
  return it == table.end() ? nullptr : it->second;
}

} // namespace d4r::compiler::translate
