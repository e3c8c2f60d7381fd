#include "corral/scheduler/filter_memo.h"

#include <absl/hash/hash.h>

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

void LoggedNominator::Log(Symbol node) {
  Entry& e = log_[next_];
  if (size_ == kLogSize) {
    floor_ = e.version;  // the oldest change leaves the log
  } else {
    ++size_;
  }
  e = {clock(), node};
  next_ = next_ + 1 == kLogSize ? 0 : next_ + 1;
}

bool LoggedNominator::ChangedSince(uint64_t since, size_t max, std::vector<Symbol>* out) const {
  out->clear();
  if (since < floor_) return false;
  // Newest first; versions increase along the log.
  size_t i = next_;
  for (size_t k = 0; k < size_; ++k) {
    i = i == 0 ? kLogSize - 1 : i - 1;
    if (log_[i].version <= since) break;
    if (out->size() == max) return false;
    out->push_back(log_[i].node);
  }
  return true;
}

void FilterMemo::Table::Resize(size_t num_nodes) {
  if (slots_.size() != num_nodes) slots_.resize(num_nodes);
}

uint32_t FilterMemo::Table::Intern(const framework::Status& status) {
  // Few distinct statuses per table (one per reason combination); the most recent is the likeliest.
  for (size_t i = statuses_.size(); i-- > 0;) {
    if (SameStatus(statuses_[i], status)) return static_cast<uint32_t>(i);
  }
  if (statuses_.size() >= kMaxStatuses) return kNone;  // FilterMemo::Get starts over
  if (statuses_.capacity() < kMaxStatuses) statuses_.reserve(kMaxStatuses);
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
    Table& t = it->second;
    lru_.splice(lru_.begin(), lru_, t.lru_);
    t.Resize(num_nodes);
    if (t.statuses_.size() >= Table::kMaxStatuses) {
      t.statuses_.clear();
      for (Table::Slot& s : t.slots_) s.status = Table::kNone;
    }
    return &t;
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

bool FilterMemo::AdmitAfterFeasiblePass(const Key& key) {
  const size_t h = absl::Hash<Key>{}(key);
  if (remembered_.erase(h) > 0) return true;
  if (remembered_.size() >= kMaxRemembered) remembered_.clear();
  remembered_.insert(h);
  return false;
}

}  // namespace corral::scheduler
