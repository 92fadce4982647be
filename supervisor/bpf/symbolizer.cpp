#include "supervisor/bpf/symbolizer.hpp"

#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ruvio::supervisor {
namespace {

// The file's own .symtab/.dynsym only (see the header): no separate debuginfo file.
int no_debuginfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*, GElf_Word,
                 char**) {
  return -1;
}

const Dwfl_Callbacks kProcCallbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = no_debuginfo,
    .section_address = nullptr,
    .debuginfo_path = nullptr,
};

const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = nullptr,
    .find_debuginfo = no_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

std::string demangle(const char* name) {
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string text(out);
  std::free(out);
  return text;
}

std::string basename_of(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash == nullptr ? path : slash + 1;
}

// Whether `a` is the better of two names of one address (the header's rule).
bool better_alias(const char* a, const char* b) {
  const bool a_reserved = a[0] == '_', b_reserved = b[0] == '_';
  if (a_reserved != b_reserved) return b_reserved;
  return std::strlen(a) > std::strlen(b);
}

bool is_function(const GElf_Sym& s) {
  return GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_value != 0 && s.st_shndx != SHN_UNDEF;
}

}  // namespace

Symbolizer::~Symbolizer() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

bool Symbolizer::load_maps(pid_t pid) {
  aliases_.clear();
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
  dwfl_ = dwfl_begin(&kProcCallbacks);
  if (dwfl_ == nullptr) return false;
  dwfl_report_begin(dwfl_);
  const int rc = dwfl_linux_proc_report(dwfl_, pid);
  dwfl_report_end(dwfl_, nullptr, nullptr);
  return rc == 0;
}

const std::unordered_map<std::uint64_t, std::string>& Symbolizer::aliases(Dwfl_Module* m) {
  const auto [it, fresh] = aliases_.try_emplace(m);
  if (!fresh) return it->second;
  std::unordered_map<std::uint64_t, std::string> first;  // address -> one name seen
  const int n = dwfl_module_getsymtab(m);
  for (int i = 1; i < n; ++i) {
    GElf_Sym sym;
    GElf_Addr addr = 0;
    const char* name = dwfl_module_getsym_info(m, i, &sym, &addr, nullptr, nullptr, nullptr);
    if (name == nullptr || name[0] == '\0' || !is_function(sym)) continue;
    const auto [seen, added] = first.try_emplace(addr, name);
    if (added) continue;
    auto& best = it->second.try_emplace(addr, seen->second).first->second;
    if (better_alias(name, best.c_str())) best = name;
  }
  return it->second;
}

std::string Symbolizer::symbolize(std::uint64_t address) {
  char hex[32];
  std::snprintf(hex, sizeof(hex), "0x%llx", static_cast<unsigned long long>(address));
  Dwfl_Module* m = dwfl_ == nullptr ? nullptr : dwfl_addrmodule(dwfl_, address);
  if (m == nullptr) return hex;
  const char* path = nullptr;
  const char* name =
      dwfl_module_info(m, nullptr, nullptr, nullptr, nullptr, nullptr, &path, nullptr);
  const std::string where = " (" + basename_of(path != nullptr ? path : name) + ")";
  GElf_Off off = 0;
  GElf_Sym sym;
  const char* fn = dwfl_module_addrinfo(m, address, &off, &sym, nullptr, nullptr, nullptr);
  if (fn == nullptr) return hex + where;
  const auto& alias = aliases(m);
  if (const auto a = alias.find(address - off); a != alias.end()) fn = a->second.c_str();
  char plus[32];
  std::snprintf(plus, sizeof(plus), "+0x%llx", static_cast<unsigned long long>(off));
  return demangle(fn) + plus + where;
}

std::map<std::string, std::uint64_t> Symbolizer::function_offsets(
    const std::string& path, const std::vector<std::string>& names) {
  std::map<std::string, std::uint64_t> out;
  Dwfl* dwfl = dwfl_begin(&kOfflineCallbacks);
  if (dwfl == nullptr) return out;
  dwfl_report_begin(dwfl);
  Dwfl_Module* m = dwfl_report_offline(dwfl, path.c_str(), path.c_str(), -1);
  dwfl_report_end(dwfl, nullptr, nullptr);
  GElf_Addr bias = 0;
  Elf* elf = m == nullptr ? nullptr : dwfl_module_getelf(m, &bias);
  std::size_t nph = 0;
  if (elf != nullptr && elf_getphdrnum(elf, &nph) == 0) {
    const int n = dwfl_module_getsymtab(m);
    for (int i = 1; i < n; ++i) {
      GElf_Sym sym;
      const char* name = dwfl_module_getsym(m, i, &sym, nullptr);
      if (name == nullptr || !is_function(sym)) continue;
      bool wanted = false;
      for (const auto& w : names) wanted = wanted || w == name;
      if (!wanted) continue;
      // The symbol's link-time address (dwfl adds the module's bias) to its file offset
      // through the PT_LOAD segment that holds it.
      const GElf_Addr vaddr = sym.st_value - bias;
      for (std::size_t p = 0; p < nph; ++p) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, static_cast<int>(p), &ph) == nullptr || ph.p_type != PT_LOAD)
          continue;
        if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
          out[name] = vaddr - ph.p_vaddr + ph.p_offset;
          break;
        }
      }
    }
  }
  dwfl_end(dwfl);
  return out;
}

}  // namespace ruvio::supervisor
