#include "worker/engine/scan_options.hpp"

#include "worker/engine/common.hpp"

namespace ruvio::worker {

std::optional<ScanOptions> parse_scan_options(Context& ctx, std::size_t first, bool allow_type) {
  ScanOptions o;
  for (std::size_t i = first; i < ctx.argc(); i += 2) {
    const bool has_value = i + 1 < ctx.argc();
    if (iequals(ctx.args[i], "count") && has_value) {
      const auto v = parse_int64(ctx.args[i + 1]);
      if (!v) {
        ctx.out.error(err::kNotInt);
        return std::nullopt;
      }
      if (*v < 1) {
        ctx.out.error(err::kSyntax);
        return std::nullopt;
      }
      o.count = *v;
    } else if (iequals(ctx.args[i], "match") && has_value) {
      o.pattern = ctx.args[i + 1];
      o.use_pattern = o.pattern != "*";
    } else if (allow_type && iequals(ctx.args[i], "type") && has_value) {
      o.type = ctx.args[i + 1];
      o.use_type = true;
    } else {
      ctx.out.error(err::kSyntax);
      return std::nullopt;
    }
  }
  return o;
}

}  // namespace ruvio::worker
