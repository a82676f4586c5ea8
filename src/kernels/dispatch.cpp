// Chooses the kernel table once: the best instruction set that is both built into this binary and
// run by this CPU (xsimd's cpuid), unless ATTNSEQ_ARCH names a lower one. Compiled without any
// -m flag, so this file runs on every CPU of its target.
#include "kernels/dispatch.hpp"

#include <cstdio>
#include <cstdlib>

#include <xsimd/xsimd.hpp>

namespace attnseq::simd {

#if defined(ATTNSEQ_DISPATCH_X86)
namespace sse2 { const KernelTable& table(); }
namespace avx2 { const KernelTable& table(); }
namespace avx512 { const KernelTable& table(); }
#else
namespace native { const KernelTable& table(); }
#endif

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
  std::fprintf(stderr, "attnseq: ATTNSEQ_ARCH=%s is not an instruction set this binary runs on this CPU (%s); using %s\n",
               env, choices.c_str(), tables.front()->name);
  return *tables.front();
}
}  // namespace

const KernelTable& active() {
  static const KernelTable& t = choose();
  return t;
}

}  // namespace attnseq::simd
