#include "cache/pins.hpp"

#include "util/kernel_identity.hpp"

#include <bit>

namespace d4r::cache::pins {

namespace {

static constexpr char k_insert_pin[] =
    "INSERT INTO pins (kernel, any_hash, module_hash, label, created_ms) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (kernel, any_hash, module_hash) DO UPDATE SET label = excluded.label";
static constexpr char k_delete_pin[] =
    "DELETE FROM pins WHERE kernel = ? AND any_hash = ? AND module_hash = ?";
static constexpr char k_select_pins[] =
    "SELECT kernel, any_hash, module_hash, label, created_ms FROM pins "
    "ORDER BY kernel, any_hash, module_hash";
// The same match as D4R_CACHE_ENTRY_PINNED, for one rule given by its fields.
static constexpr char k_count_matching[] =
    "SELECT COUNT(id) FROM entries WHERE (?1 = '' OR kernel = ?1) AND (?2 = 1 OR module_hash = ?3)";

// Binds kernel, any_hash and module_hash at 1..3, as every statement above takes them.
void bind_rule(db::Statement& statement, const PinRule& rule)
{
  statement.bind_text(1, rule.kernel);
  statement.bind_int64(2, rule.module_hash ? 0 : 1);
  statement.bind_int64(3, std::bit_cast<int64_t>(rule.module_hash.value_or(0)));
}

} // namespace

Expected<void> validate(const PinRule& rule)
{
  if (rule.kernel.empty() && !rule.module_hash) {
    return make_error(ErrorCode::invalid_argument,
                      "cache: a pin names a kernel, a module hash or both (not neither: that "
                      "would pin every object)");
  }
  if (!rule.kernel.empty()) {
    TRY(validate_kernel_name(rule.kernel));
  }
  return {};
}

Expected<int64_t> add(db::Database& database, const PinRule& rule, int64_t now_ms)
{
  TRY(validate(rule));
  TRY_ASSIGN(db::Statement* insert, database.cached(k_insert_pin));
  bind_rule(*insert, rule);
  insert->bind_text(4, rule.label);
  insert->bind_int64(5, now_ms);
  TRY(insert->run());
  TRY_ASSIGN(db::Statement* count, database.cached(k_count_matching));
  bind_rule(*count, rule);
  TRY_ASSIGN(const bool row, count->step());
  const int64_t matched = row ? count->column_int64(0) : 0;
  count->reset();
  return matched;
}

Expected<bool> remove(db::Database& database, const PinRule& rule)
{
  TRY(validate(rule));
  TRY_ASSIGN(db::Statement* remove, database.cached(k_delete_pin));
  bind_rule(*remove, rule);
  TRY(remove->run());
  return database.changes() > 0;
}

Expected<std::vector<PinRule>> list(db::Database& database)
{
  TRY_ASSIGN(db::Statement* select, database.cached(k_select_pins));
  std::vector<PinRule> rules;
  while (true) {
    TRY_ASSIGN(const bool row, select->step());
    if (!row) {
      break;
    }
    PinRule rule;
    rule.kernel = select->column_text(0);
    if (select->column_int64(1) == 0) {
      rule.module_hash = std::bit_cast<uint64_t>(select->column_int64(2));
    }
    rule.label = select->column_text(3);
    rule.created_unix_ms = select->column_int64(4);
    rules.push_back(std::move(rule));
  }
  select->reset();
  return rules;
}

} // namespace d4r::cache::pins
