// attnseq::simd in a build with run-time choice: each kernel forwards to the table of the instruction
// set chosen at start-up (kernels/dispatch.hpp), one indirect call per kernel. Builds with one arch
// define these in simd_default.cpp instead. The kernels themselves are in simd_impl.inc.
#include "kernels/dispatch.hpp"

namespace attnseq::simd {

#define ATTNSEQ_FORWARD_ACTIVE(ret, name, params, args) \
  ret name params { return active().name args; }
ATTNSEQ_KERNEL_LIST(ATTNSEQ_FORWARD_ACTIVE)
#undef ATTNSEQ_FORWARD_ACTIVE

#define ATTNSEQ_FORWARD_Q8(ret, name, params, args) \
  ret name params { return active_q8().name args; }
ATTNSEQ_Q8_KERNEL_LIST(ATTNSEQ_FORWARD_Q8)
#undef ATTNSEQ_FORWARD_Q8

const char* arch_name() { return active().name; }
const char* q8_arch_name() { return active_q8().name; }
std::size_t pack_width() { return active().pack_width; }

}  // namespace attnseq::simd
