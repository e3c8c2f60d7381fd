#include "corral/scheduler/filter_memo.h"

#include "corral/core/check.h"

namespace corral::scheduler {

namespace {
// Identity of a reason or plugin name: the same bytes at the same address. Never dereferences, so
// it is safe on statuses whose reasons are no longer current; equal views of distinct buffers just
// do not deduplicate.
bool SameView(std::string_view a, std::string_view b) {
  return a.data() == b.data() && a.size() == b.size();
}

bool SameStatus(const framework::Status& a, const framework::Status& b) {
  if (a.code() != b.code() || !SameView(a.plugin(), b.plugin())) return false;
  const auto& ra = a.reasons();
  const auto& rb = b.reasons();
  if (ra.size() != rb.size()) return false;
  for (size_t i = 0; i < ra.size(); ++i) {
    if (!SameView(ra[i], rb[i])) return false;
  }
  return true;
}
}  // namespace

void FilterMemo::Table::Resize(size_t num_nodes) {
  if (slots_.size() != num_nodes) slots_.resize(num_nodes);
}

uint32_t FilterMemo::Table::Intern(const framework::Status& status) {
  // Few distinct statuses per table (one per reason combination); the most recent is the likeliest.
  for (size_t i = statuses_.size(); i-- > 0;) {
    if (SameStatus(statuses_[i], status)) return static_cast<uint32_t>(i);
  }
  if (statuses_.size() >= kMaxStatuses) {
    statuses_.clear();
    for (Slot& s : slots_) s.status = kNone;
  }
  statuses_.push_back(status);
  return static_cast<uint32_t>(statuses_.size() - 1);
}

void FilterMemo::Table::Store(size_t pos, const framework::NodeInfo* node,
                              uint64_t nomination_clock, const framework::Status& status) {
  CORRAL_DCHECK(status.code() != framework::Code::kError);
  if (pos >= slots_.size()) return;
  const uint32_t index = Intern(status);
  Slot& s = slots_[pos];
  s.node = node;
  s.api_node = node->node();
  s.generation = node->generation();
  s.nominations_at = nomination_clock;
  s.status = index;
}

FilterMemo::Table* FilterMemo::Get(const Key& key, size_t num_nodes, bool create) {
  auto it = tables_.find(key);
  if (it != tables_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.lru_);
    it->second.Resize(num_nodes);
    return &it->second;
  }
  if (!create) return nullptr;
  // Evict the least recently used tables so that the new one fits the budget.
  while (!tables_.empty() && (tables_.size() + 1) * num_nodes > slot_budget_) {
    tables_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(key);
  Table& t = tables_[key];
  t.lru_ = lru_.begin();
  t.Resize(num_nodes);
  return &t;
}

}  // namespace corral::scheduler
