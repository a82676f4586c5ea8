// Chooses the kernel table once: the best instruction set that is both built into this binary and
// run by this CPU (xsimd's cpuid), unless ATTNSEQ_ARCH names a lower one. Compiled without any
// -m flag, so this file runs on every CPU of its target.
#include "kernels/dispatch.hpp"

#include <cstdio>
#include <cstdlib>

#include <xsimd/xsimd.hpp>

namespace attnseq::simd {

float kOpaqueOne = 1.f;  // never written: see dispatch.hpp

// Each arch's tables, defined where that arch's code is compiled (simd_impl.inc, q8_impl.inc).
#define ATTNSEQ_TABLE_OF(ns, Table, fn) \
  namespace ns {                        \
  const Table& fn();                    \
  }
#if defined(ATTNSEQ_DISPATCH_X86)
ATTNSEQ_TABLE_OF(sse2, KernelTable, table)
ATTNSEQ_TABLE_OF(avx2, KernelTable, table)
ATTNSEQ_TABLE_OF(avx512, KernelTable, table)
ATTNSEQ_TABLE_OF(q8_sse2, Q8Table, q8_table)
ATTNSEQ_TABLE_OF(q8_avx2, Q8Table, q8_table)
ATTNSEQ_TABLE_OF(q8_avx512vnni, Q8Table, q8_table)
#else
ATTNSEQ_TABLE_OF(native, KernelTable, table)
ATTNSEQ_TABLE_OF(q8_native, Q8Table, q8_table)
#endif
#undef ATTNSEQ_TABLE_OF

const std::vector<const KernelTable*>& runnable_tables() {
  static const std::vector<const KernelTable*> tables = [] {
    std::vector<const KernelTable*> v;
#if defined(ATTNSEQ_DISPATCH_X86)
    const auto cpu = xsimd::available_architectures();
    if (cpu.avx512f) v.push_back(&avx512::table());
    if (cpu.fma3_avx2) v.push_back(&avx2::table());
    v.push_back(&sse2::table());  // the x86-64 baseline
#else
    v.push_back(&native::table());
#endif
    return v;
  }();
  return tables;
}

const std::vector<const Q8Table*>& runnable_q8_tables() {
  static const std::vector<const Q8Table*> tables = [] {
    std::vector<const Q8Table*> v;
#if defined(ATTNSEQ_DISPATCH_X86)
    const auto cpu = xsimd::available_architectures();
    if (cpu.avx512bw && cpu.avx512vnni_bw) v.push_back(&q8_avx512vnni::q8_table());
    if (cpu.avx2) v.push_back(&q8_avx2::q8_table());
    v.push_back(&q8_sse2::q8_table());
#else
    v.push_back(&q8_native::q8_table());
#endif
    return v;
  }();
  return tables;
}

const Q8Table& active_q8() {
  static const Q8Table& t = [&]() -> const Q8Table& {
    const auto& q8 = runnable_q8_tables();
#if defined(ATTNSEQ_DISPATCH_X86)
    // The float table's level decides (so ATTNSEQ_ARCH lowers both): the best int8 table of that
    // level or below (VNNI only within AVX-512).
    const int level = x86_level(active().isa);
    for (const Q8Table* t : q8)
      if (x86_level(t->isa) <= level) return *t;
    return *q8.back();  // sse2
#else
    return *q8.front();
#endif
  }();
  return t;
}

bool arch_matches(const KernelTable& t, const std::string& wanted) {
  const std::string name = t.name;
  if (wanted == name) return true;
  return (wanted == "avx2" && name == "fma3+avx2") || (wanted == "avx512" && name == "avx512f");
}

namespace {
const KernelTable& choose() {
  const auto& tables = runnable_tables();
  const char* env = std::getenv("ATTNSEQ_ARCH");
  if (!env || !*env) return *tables.front();
  for (const KernelTable* t : tables)
    if (arch_matches(*t, env)) return *t;
  std::string choices;
  for (const KernelTable* t : tables) choices += std::string(choices.empty() ? "" : ", ") + t->name;
  std::fprintf(stderr,
               "attnseq: ATTNSEQ_ARCH=%s is not an instruction set this binary runs on this CPU (%s); using %s\n", env,
               choices.c_str(), tables.front()->name);
  return *tables.front();
}
}  // namespace

const KernelTable& active() {
  static const KernelTable& t = choose();
  return t;
}

}  // namespace attnseq::simd
