#include "supervisor/bpf/symbolizer.hpp"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ruvio::supervisor {
namespace {

std::string demangle(const std::string& name) {
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string text(out);
  std::free(out);
  return text;
}

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool Symbolizer::load_maps(pid_t pid) {
  maps_.clear();
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    // start-end perms offset dev inode path
    unsigned long long start = 0, end = 0, offset = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &offset,
                    &path_at) < 4) {
      continue;
    }
    if (perms[2] != 'x' || path_at <= 0 || static_cast<std::size_t>(path_at) >= line.size() ||
        line[static_cast<std::size_t>(path_at)] != '/') {
      continue;
    }
    maps_.push_back({start, end, offset, line.substr(static_cast<std::size_t>(path_at))});
  }
  return true;
}

const Symbolizer::Elf& Symbolizer::elf(const std::string& path) {
  Elf& e = elves_[path];
  if (e.loaded) return e;
  e.loaded = true;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return e;
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr))) {
    close(fd);
    return e;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return e;
  const auto* base = static_cast<const unsigned char*>(map);
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
  const auto in_file = [&](std::uint64_t off, std::uint64_t len) {
    return off <= size && len <= size - off;
  };
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      !in_file(eh->e_phoff, std::uint64_t{eh->e_phnum} * sizeof(Elf64_Phdr)) ||
      !in_file(eh->e_shoff, std::uint64_t{eh->e_shnum} * sizeof(Elf64_Shdr))) {
    munmap(map, size);
    return e;
  }
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(base + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type == PT_LOAD) {
      e.loads.emplace_back(ph[i].p_offset, ph[i].p_vaddr);
      e.load_sizes.emplace_back(ph[i].p_offset, ph[i].p_filesz);
    }
  }
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
  // .symtab has the static functions too; .dynsym is what a stripped library keeps.
  for (const std::uint32_t want : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (int i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != want || sh[i].sh_link >= eh->e_shnum) continue;
      const Elf64_Shdr& strtab = sh[sh[i].sh_link];
      if (!in_file(sh[i].sh_offset, sh[i].sh_size) || !in_file(strtab.sh_offset, strtab.sh_size)) {
        continue;
      }
      const auto* syms = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
      const std::size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
      const char* strings = reinterpret_cast<const char*>(base + strtab.sh_offset);
      for (std::size_t j = 0; j < n; ++j) {
        if (ELF64_ST_TYPE(syms[j].st_info) != STT_FUNC || syms[j].st_value == 0 ||
            syms[j].st_name >= strtab.sh_size) {
          continue;
        }
        const char* name = strings + syms[j].st_name;
        const std::size_t max = strtab.sh_size - syms[j].st_name;
        e.symbols.push_back(
            {syms[j].st_value, syms[j].st_size, std::string(name, strnlen(name, max))});
      }
    }
    if (!e.symbols.empty()) break;
  }
  std::sort(e.symbols.begin(), e.symbols.end(),
            [](const Symbol& a, const Symbol& b) { return a.addr < b.addr; });
  munmap(map, size);
  return e;
}

std::string Symbolizer::symbolize(std::uint64_t address) {
  char hex[32];
  std::snprintf(hex, sizeof(hex), "0x%llx", static_cast<unsigned long long>(address));
  for (const auto& m : maps_) {
    if (address < m.start || address >= m.end) continue;
    const std::uint64_t file_off = address - m.start + m.offset;
    const Elf& e = elf(m.path);
    std::uint64_t vaddr = 0;
    bool found = false;
    for (std::size_t i = 0; i < e.loads.size(); ++i) {
      const auto [off, filesz] = e.load_sizes[i];
      if (file_off >= off && file_off < off + filesz) {
        vaddr = file_off - off + e.loads[i].second;
        found = true;
        break;
      }
    }
    const std::string where = " (" + basename_of(m.path) + ")";
    if (!found) return std::string(hex) + where;
    auto it = std::upper_bound(e.symbols.begin(), e.symbols.end(), vaddr,
                               [](std::uint64_t v, const Symbol& s) { return v < s.addr; });
    if (it == e.symbols.begin()) return std::string(hex) + where;
    --it;
    if (it->size != 0 && vaddr >= it->addr + it->size) return std::string(hex) + where;
    char off[32];
    std::snprintf(off, sizeof(off), "+0x%llx", static_cast<unsigned long long>(vaddr - it->addr));
    return demangle(it->name) + off + where;
  }
  return hex;
}

std::map<std::string, std::uint64_t> Symbolizer::function_offsets(
    const std::string& path, const std::vector<std::string>& names) {
  std::map<std::string, std::uint64_t> out;
  const Elf& e = elf(path);
  for (const auto& sym : e.symbols) {
    if (std::find(names.begin(), names.end(), sym.name) == names.end()) continue;
    for (std::size_t i = 0; i < e.loads.size(); ++i) {
      const auto [off, vaddr] = e.loads[i];
      const auto filesz = e.load_sizes[i].second;
      if (sym.addr >= vaddr && sym.addr < vaddr + filesz) {
        out[sym.name] = sym.addr - vaddr + off;
        break;
      }
    }
  }
  return out;
}

}  // namespace ruvio::supervisor
