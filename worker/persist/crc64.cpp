#include "worker/persist/crc64.hpp"

#include <isa-l/crc64.h>

namespace ruvio::persist {

std::uint64_t crc64(std::uint64_t crc, std::string_view data) {
  // ISA-L computes ~f(~seed): Redis's form, with no inversion at either end, is ~f'(~crc).
  return ~crc64_jones_refl(~crc, reinterpret_cast<const unsigned char*>(data.data()), data.size());
}

}  // namespace ruvio::persist
