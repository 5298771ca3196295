// Version 3's asynchronous copies: cp.async.bulk global -> shared with an mbarrier's
// complete-tx, shared -> global in bulk groups, cp.reduce.async.bulk onto what a bulk store
// wrote, and st.async / red.async (in kernels requiring clusters of one CTA).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-st-async
//
// Well-defined by construction: every region starts with bar.sync (earlier readers of its buffer
// are done), one thread (%pe, thread 0) initialises a fresh mbarrier and issues the copies, every
// thread waits for phase 0 (a bounded loop whose result is traced: 1 when the phase completed),
// and a thread reads only bytes the region wrote. Bulk stores go to fresh zeroed block words,
// read back after the issuing thread's wait_group 0 and a bar.sync. The staging buffer `sbulk`
// (2 KiB) is written through the generic proxy only after `fence.proxy.async`, as the ISA asks.

#include "tests/random/ptxgen_builder.hpp"

namespace d4r::ptxgen {

namespace {

constexpr int k_staging_bytes = 2048;

} // namespace

int64_t Builder::block_words(int64_t words)
{
  words += words & 1; // 16-byte aligned: bulk copies need it
  const int64_t at = static_cast<int64_t>(m_block.size());
  m_block.resize(static_cast<size_t>(at + words), 0);
  return static_cast<int64_t>(m_threads) * k_input_words * 8 + at * 8;
}

std::string Builder::new_barrier()
{
  const std::string name = "mb" + dec(m_barriers++);
  m_shared += "  .shared .align 8 .b64 " + name + ";\n";
  if (m_staging == 0) {
    m_shared += "  .shared .align 128 .b8 sbulk[" + dec(k_staging_bytes) + "];\n";
    m_staging = 1;
  }
  emit("bar.sync 0;");
  emit("@%pe mbarrier.init.shared::cta.b64 [" + name + "], 1;");
  if (m_cluster) {
    emit("@%pe fence.mbarrier_init.release.cluster;");
  }
  emit("bar.sync 0;");
  return name;
}

void Builder::barrier_wait(const std::string& barrier)
{
  // Bounded: a wrong byte count must end the program, not hang it; the traced predicate says
  // whether phase 0 completed.
  const std::string again = "L" + dec(m_labels++) + "_wait", done = "L" + dec(m_labels++) + "_done";
  emit("mov.u32 %tv, 0;");
  m_body += again + ":\n";
  const std::string line = "mbarrier.try_wait.parity.shared::cta.b64 %pw, [" + barrier + "], 0;";
  emit(line);
  emit("@%pw bra " + done + ";");
  emit("add.u32 %tv, %tv, 1;");
  emit("setp.lt.u32 %pw, %tv, 4000000;");
  emit("@%pw bra " + again + ";");
  emit("setp.ne.u32 %pw, %tv, %tv;");
  m_body += done + ":\n";
  const std::string d = fresh(1);
  emit("mov.pred " + d + ", %pw;");
  traced_cross(line + " (phase 0 completed)", d, 1, SlotType::pred, {});
}

void Builder::bulk_load_region()
{
  ++m_regions3;
  const std::string barrier = new_barrier();
  emit("fence.proxy.async.shared::cta;");
  // 1-3 copies of 16-byte multiples from the threads' input words into consecutive staging bytes.
  const int copies = 1 + static_cast<int>(m_rng.below(3));
  const int64_t start = static_cast<int64_t>(m_rng.below(16)) * 16;
  const int64_t input_bytes = static_cast<int64_t>(m_threads) * k_input_words * 8;
  std::vector<int64_t> sizes;
  int64_t total = 0;
  for (int i = 0; i < copies; ++i) {
    const int64_t room = (k_staging_bytes - start - total) / 16;
    if (room <= 0) {
      break;
    }
    const int64_t size = 16 * (1 + static_cast<int64_t>(m_rng.below(static_cast<size_t>(std::min<int64_t>(room, 40)))));
    sizes.push_back(size);
    total += size;
  }
  emit("@%pe mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + barrier + "], " + dec(total) + ";");
  int64_t at = start;
  for (const int64_t size : sizes) {
    const int64_t from = static_cast<int64_t>(m_rng.below(static_cast<size_t>((input_bytes - size) / 16 + 1))) * 16;
    emit("add.s64 %tb, %ib, " + dec(from) + ";");
    emit("mov.u32 %tw, sbulk;");
    emit("add.u32 %tw, %tw, " + dec(at) + ";");
    if (m_rng.chance(1, 3)) {
      emit("createpolicy.fractional.L2::evict_last.b64 %tc, 1.0;");
      emit("@%pe cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%tw], [%tb], " + dec(size) +
           ", [" + barrier + "], %tc;");
    } else {
      emit("@%pe cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%tw], [%tb], " + dec(size) + ", [" +
           barrier + "];");
    }
    at += size;
  }
  barrier_wait(barrier);
  // Each thread reads 1-2 values of the copied bytes (8-byte aligned, vectors 16-byte aligned).
  const int reads = 1 + static_cast<int>(m_rng.below(2));
  for (int r = 0; r < reads; ++r) {
    const size_t form = m_rng.below(4);
    const int64_t unit = form == 3 ? 16 : 8;
    const int64_t stride = unit * (1 + static_cast<int64_t>(m_rng.below(3)));
    const int64_t shift = static_cast<int64_t>(m_rng.below(64)) * unit;
    // offset = start + ((tid * stride + shift) mod total) rounded down to the unit
    emit("mul.lo.u32 %tw, %tx, " + dec(stride) + ";");
    emit("add.u32 %tw, %tw, " + dec(shift) + ";");
    emit("rem.u32 %tw, %tw, " + dec(total) + ";");
    emit("and.b32 %tw, %tw, " + hex(static_cast<uint32_t>(-unit)) + ";");
    emit("mov.u32 %tv, sbulk;");
    emit("add.u32 %tw, %tw, %tv;");
    const std::string where = "[%tw+" + dec(start) + "]";
    if (form == 0 || form == 1) {
      const int bits = form == 0 ? 32 : 64;
      const std::string d = fresh(bits);
      const std::string line = "ld.shared.b" + dec(bits) + " " + d + ", " + where + ";";
      emit(line);
      traced_cross(line + " (after cp.async.bulk)", d, bits, bits_type(bits), {});
    } else {
      const int count = form == 2 ? 2 : 4;
      std::vector<std::string> regs;
      std::string list;
      for (int i = 0; i < count; ++i) {
        regs.push_back(fresh(32));
        list += (i == 0 ? "" : ", ") + regs.back();
      }
      const std::string line = "ld.shared.v" + dec(count) + ".b32 {" + list + "}, " + where + ";";
      emit(line);
      for (int i = 0; i < count; ++i) {
        traced_cross(line + " (after cp.async.bulk, " + dec(i) + ")", regs[static_cast<size_t>(i)], 32, SlotType::b32, {});
      }
    }
  }
}

void Builder::bulk_store_region()
{
  ++m_regions3;
  if (m_staging == 0) {
    m_shared += "  .shared .align 128 .b8 sbulk[" + dec(k_staging_bytes) + "];\n";
    m_staging = 1;
  }
  // Every thread stages one 8-byte value (thread t at 8 t), all of it defined.
  emit("bar.sync 0;");
  const Src value = reg(64);
  emit("mov.u32 %tw, sbulk;");
  emit("shl.b32 %tv, %tx, 3;");
  emit("add.u32 %tw, %tw, %tv;");
  emit("st.shared.b64 [%tw], " + value.text + ";");
  emit("fence.proxy.async.shared::cta;");
  emit("bar.sync 0;");
  const int64_t staged = static_cast<int64_t>(m_threads) * 8;
  const int64_t from = static_cast<int64_t>(m_rng.below(static_cast<size_t>(staged / 16))) * 16;
  const int64_t size = 16 * (1 + static_cast<int64_t>(m_rng.below(static_cast<size_t>((staged - from) / 16))));
  const int64_t scratch = block_words(size / 8);
  emit("add.s64 %tb, %ib, " + dec(scratch) + ";");
  emit("mov.u32 %tw, sbulk;");
  emit("add.u32 %tw, %tw, " + dec(from) + ";");
  std::string what = "cp.async.bulk.global.shared::cta.bulk_group [" + dec(size) + " bytes]";
  emit("@%pe cp.async.bulk.global.shared::cta.bulk_group [%tb], [%tw], " + dec(size) + ";");
  emit("@%pe cp.async.bulk.commit_group;");
  if (m_rng.chance(1, 2)) {
    // A reduction of staged values onto the stored ones: after the store completed (a second
    // bulk operation in flight to the same bytes would have no order).
    static const char* const k_ops[] = {"add.u32", "add.s32", "add.u64", "min.u32", "max.s32", "min.s64", "max.u64",
                                        "inc.u32", "dec.u32", "and.b32", "or.b64",  "xor.b32"};
    const std::string op = k_ops[m_rng.below(std::size(k_ops))];
    const int64_t from2 = static_cast<int64_t>(m_rng.below(static_cast<size_t>((staged - size) / 16 + 1))) * 16;
    emit("@%pe cp.async.bulk.wait_group 0;");
    emit("mov.u32 %tw, sbulk;");
    emit("add.u32 %tw, %tw, " + dec(from2) + ";");
    const std::string hint = m_rng.chance(1, 4) ? ".L2::cache_hint" : "";
    if (!hint.empty()) {
      emit("createpolicy.fractional.L2::evict_last.b64 %tc, 1.0;");
    }
    emit("@%pe cp.reduce.async.bulk.global.shared::cta.bulk_group" + hint + "." + op + " [%tb], [%tw], " + dec(size) +
         (hint.empty() ? "" : ", %tc") + ";");
    emit("@%pe cp.async.bulk.commit_group;");
    what += " then cp.reduce.async.bulk." + op;
  }
  if (m_rng.chance(1, 2)) {
    emit("@%pe cp.async.bulk.wait_group.read 0;");
  }
  emit("@%pe cp.async.bulk.wait_group 0;");
  emit("@%pe fence.proxy.async.global;");
  emit("bar.sync 0;");
  // Each thread reads one 8-byte word of the stored bytes back.
  const int64_t shift = static_cast<int64_t>(m_rng.below(16));
  emit("add.u32 %tw, %tx, " + dec(shift) + ";");
  emit("rem.u32 %tw, %tw, " + dec(size / 8) + ";");
  emit("mul.wide.u32 %tc, %tw, 8;");
  emit("add.s64 %tc, %tc, %tb;");
  const std::string d = fresh(64);
  const std::string line = "ld.global.b64 " + d + ", [%tc];";
  emit(line);
  traced_cross(line + " (after " + what + ")", d, 64, SlotType::b64, {value});
}

void Builder::async_store_region()
{
  ++m_regions3;
  ++m_async_regions;
  const std::string barrier = new_barrier();
  const bool reduce = m_rng.chance(1, 3);
  const size_t address_form = m_rng.below(3); // .shared::cluster with the cta address, mapa'd, generic
  const std::string space = address_form == 2 ? "" : ".shared::cluster";
  auto address = [&](const std::string& reg32, const std::string& reg64) {
    if (address_form == 1) {
      emit("mapa.shared::cluster.u32 " + reg32 + ", " + reg32 + ", 0;");
    } else if (address_form == 2) {
      emit("cvt.u64.u32 " + reg64 + ", " + reg32 + ";");
      emit("cvta.shared.u64 " + reg64 + ", " + reg64 + ";");
    }
    return address_form == 2 ? reg64 : reg32;
  };
  // The barrier's address last, right before the instruction: %tv and %tc are scratch.
  auto bar_address = [&]() {
    emit("mov.u32 %tv, " + barrier + ";");
    return address("%tv", "%tc");
  };
  if (!reduce) {
    struct Form {
      const char* type;
      int count;
      int bits;
    };
    static const Form k_forms[] = {{"b32", 1, 32}, {"u32", 1, 32}, {"s32", 1, 32},   {"f32", 1, 32},
                                   {"b64", 1, 64}, {"u64", 1, 64}, {"s64", 1, 64},   {"f64", 1, 64},
                                   {"b32", 2, 32}, {"f32", 2, 32}, {"u64", 2, 64},   {"b32", 4, 32},
                                   {"s32", 4, 32}, {"f32", 4, 32}, {"b64", 2, 64}};
    const Form& form = k_forms[m_rng.below(std::size(k_forms))];
    const int64_t unit = form.count * form.bits / 8;
    const int64_t distance = 1 + static_cast<int64_t>(m_rng.below(static_cast<size_t>(m_threads - 1)));
    emit("@%pe mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + barrier + "], " + dec(unit * m_threads) + ";");
    emit("bar.sync 0;");
    // Thread t stores to the unit of thread (t + distance) mod threads.
    emit("add.u32 %tw, %tx, " + dec(distance) + ";");
    emit("and.b32 %tw, %tw, " + dec(m_threads - 1) + ";");
    emit("mul.lo.u32 %tw, %tw, " + dec(unit) + ";");
    emit("mov.u32 %t, sbulk;");
    emit("add.u32 %tw, %tw, %t;");
    const std::string data_address = address("%tw", "%tb");
    std::vector<Src> values;
    std::string list;
    const char kind = form.type[0] == 'f' ? 'f' : 'i';
    for (int i = 0; i < form.count; ++i) {
      values.push_back(reg(form.bits, kind));
      list += (i == 0 ? "" : ", ") + values.back().text;
    }
    const std::string operand = form.count == 1 ? list : "{" + list + "}";
    const std::string sem = m_rng.chance(1, 4) ? ".weak" : "";
    const std::string vec = form.count == 1 ? "" : ".v" + dec(form.count);
    const std::string line = "st.async" + sem + space + ".mbarrier::complete_tx::bytes" + vec + "." + form.type + " [" +
                             data_address + "], " + operand + ", [" + bar_address() + "];";
    emit(line);
    barrier_wait(barrier);
    // Thread t reads its own unit: what thread (t - distance) stored.
    emit("mov.u32 %tw, sbulk;");
    emit("mul.lo.u32 %tv, %tx, " + dec(unit) + ";");
    emit("add.u32 %tw, %tw, %tv;");
    for (int i = 0; i < form.count; ++i) {
      const std::string d = fresh(form.bits);
      const std::string load = "ld.shared.b" + dec(form.bits) + " " + d + ", [%tw+" + dec(i * form.bits / 8) + "];";
      emit(load);
      traced_cross(load + " (after " + line + ")", d, form.bits, bits_type(form.bits), values);
    }
    return;
  }
  // red.async: thread t reduces into word t mod 4, initialised by threads 0..3 first.
  struct Op {
    const char* name;
    int bits;
    bool uniform; // inc/dec: the same bound in every thread, so the order does not matter
  };
  static const Op k_ops[] = {{"inc.u32", 32, true},  {"dec.u32", 32, true},  {"min.u32", 32, false},
                             {"max.u32", 32, false}, {"min.s32", 32, false}, {"max.s32", 32, false},
                             {"add.u32", 32, false}, {"add.s32", 32, false}, {"add.u64", 64, false},
                             {"add.s64", 64, false}, {"and.b32", 32, false}, {"or.b32", 32, false},
                             {"xor.b32", 32, false}};
  const Op& op = k_ops[m_rng.below(std::size(k_ops))];
  const int64_t unit = op.bits / 8;
  const Src init = reg(op.bits, 'i');
  emit("setp.lt.u32 %pw, %tx, 4;");
  emit("mov.u32 %tw, sbulk;");
  emit("mul.lo.u32 %tv, %tx, " + dec(unit) + ";");
  emit("add.u32 %tw, %tw, %tv;");
  emit("@%pw st.shared.b" + dec(op.bits) + " [%tw], " + init.text + ";");
  emit("@%pe mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + barrier + "], " + dec(unit * m_threads) + ";");
  emit("bar.sync 0;");
  emit("and.b32 %tw, %tx, 3;");
  emit("mul.lo.u32 %tw, %tw, " + dec(unit) + ";");
  emit("mov.u32 %t, sbulk;");
  emit("add.u32 %tw, %tw, %t;");
  const std::string data_address = address("%tw", "%tb");
  Src value = reg(op.bits, 'i');
  if (op.uniform) {
    emit("mov.u32 %tu, " + dec(static_cast<int64_t>(m_rng.below(64))) + ";");
    value = Src{"%tu", -1};
  }
  const std::string line = "red.async.relaxed.cluster" + space + ".mbarrier::complete_tx::bytes." + op.name + " [" +
                           data_address + "], " + value.text + ", [" + bar_address() + "];";
  emit(line);
  barrier_wait(barrier);
  emit("and.b32 %tw, %tx, 3;");
  emit("mul.lo.u32 %tw, %tw, " + dec(unit) + ";");
  emit("mov.u32 %t, sbulk;");
  emit("add.u32 %tw, %tw, %t;");
  const std::string d = fresh(op.bits);
  const std::string load = "ld.shared.b" + dec(op.bits) + " " + d + ", [%tw];";
  emit(load);
  traced_cross(load + " (after " + line + ")", d, op.bits, bits_type(op.bits), {init, value});
}

} // namespace d4r::ptxgen
