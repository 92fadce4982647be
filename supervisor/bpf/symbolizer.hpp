// Turns user-space addresses of a live process into "function+0xoff (binary)" using
// /proc/<pid>/maps and the ELF symbol tables (.symtab, else .dynsym) of each mapped file,
// demangled. Symbol tables are read once per file and kept.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ruvio::supervisor {

class Symbolizer {
 public:
  // Reads the process's executable mappings; call again after the process changed.
  bool load_maps(pid_t pid);
  std::string symbolize(std::uint64_t address);

  // File offset of each named function of the ELF file at `path` (what a uprobe attaches
  // to); names it does not define are left out.
  std::map<std::string, std::uint64_t> function_offsets(const std::string& path,
                                                        const std::vector<std::string>& names);

 private:
  struct Mapping {
    std::uint64_t start = 0, end = 0, offset = 0;
    std::string path;
  };
  struct Symbol {
    std::uint64_t addr = 0, size = 0;
    std::string name;
  };
  struct Elf {
    bool loaded = false;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> loads;       // (p_offset, p_vaddr) pairs
    std::vector<std::pair<std::uint64_t, std::uint64_t>> load_sizes;  // (p_offset, p_filesz)
    std::vector<Symbol> symbols;                                      // sorted by addr
  };
  const Elf& elf(const std::string& path);

  std::vector<Mapping> maps_;
  std::map<std::string, Elf> elves_;
};

}  // namespace ruvio::supervisor
