// Turns user-space addresses of a live process into "function+0xoff (binary)" with elfutils'
// libdwfl (libdw-dev): dwfl_linux_proc_report reads /proc/<pid>/maps, dwfl_addrmodule finds
// the mapped file, dwfl_module_addrinfo the symbol (.symtab, else .dynsym), demangled here.
// Only each file's own symbol tables are read: no separate debuginfo is searched, so no
// lookup can go out to debuginfod from the supervisor's loop.
//
// Aliases: a library may export several names for one function (libmimalloc's malloc,
// __libc_malloc and mi_malloc are one address). dwfl names the first in the table; this
// prefers a name that is not implementation-reserved (no leading '_'), then the longest,
// whose prefix says which implementation ran (mi_malloc over malloc).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

struct Dwfl;
struct Dwfl_Module;

namespace ruvio::supervisor {

class Symbolizer {
 public:
  Symbolizer() = default;
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // Reads the process's mappings; call again after the process changed.
  bool load_maps(pid_t pid);
  std::string symbolize(std::uint64_t address);

  // File offset of each named function of the ELF file at `path` (what a uprobe attaches
  // to); names it does not define are left out.
  std::map<std::string, std::uint64_t> function_offsets(const std::string& path,
                                                        const std::vector<std::string>& names);

 private:
  // The preferred name of each address of `m` that has more than one function symbol.
  const std::unordered_map<std::uint64_t, std::string>& aliases(Dwfl_Module* m);

  Dwfl* dwfl_ = nullptr;
  std::map<Dwfl_Module*, std::unordered_map<std::uint64_t, std::string>> aliases_;
};

}  // namespace ruvio::supervisor
