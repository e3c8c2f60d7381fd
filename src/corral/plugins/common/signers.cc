#include "corral/plugins/common/signers.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "corral/api/storage.h"
#include "corral/api/strconv.h"

namespace corral::plugins::signers {

namespace {

std::string_view EffectName(api::TaintEffect e) {
  switch (e) {
    case api::TaintEffect::kNone:
      return "";
    case api::TaintEffect::kNoSchedule:
      return "NoSchedule";
    case api::TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case api::TaintEffect::kNoExecute:
      return "NoExecute";
  }
  return "";
}

// Appends a JSON array of strings, each element encoded as a JSON string.
void AppendStringArray(std::string& out, const std::vector<std::string>& elems) {
  out += '[';
  for (size_t i = 0; i < elems.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, elems[i]);
  }
  out += ']';
}

// One NodeSelectorRequirement with its values sorted: {"key":..,"operator":..,"values":[..]}.
std::string Requirement(const api::NodeSelectorRequirement& r, const Interner& in) {
  std::vector<std::string_view> values;
  values.reserve(r.values.size());
  for (Symbol v : r.values) values.push_back(in.Str(v));
  std::sort(values.begin(), values.end());
  std::string out = "{\"key\":";
  AppendJsonString(out, in.Str(r.key));
  out += ",\"operator\":";
  AppendJsonString(out, api::NodeSelectorOpName(r.op));
  if (!values.empty()) {
    out += ",\"values\":[";
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += ',';
      AppendJsonString(out, values[i]);
    }
    out += ']';
  }
  out += '}';
  return out;
}

// Sorted encodings of a requirement list.
std::vector<std::string> Requirements(const std::vector<api::NodeSelectorRequirement>& reqs,
                                      const Interner& in) {
  std::vector<std::string> out;
  out.reserve(reqs.size());
  for (const auto& r : reqs) out.push_back(Requirement(r, in));
  std::sort(out.begin(), out.end());
  return out;
}

// {"MatchExpressions":[...],"MatchFields":[...]} with every list sorted; elements are
// encoded strings.
std::string Term(const api::NodeSelectorTerm& t, const Interner& in) {
  std::string out = "{\"MatchExpressions\":";
  AppendStringArray(out, Requirements(t.match_expressions, in));
  out += ",\"MatchFields\":";
  AppendStringArray(out, Requirements(t.match_fields, in));
  out += '}';
  return out;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
      continue;
    }
    // U+2028 and U+2029 (E2 80 A8 / E2 80 A9) are escaped by Go too.
    if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xA8) {
      out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
      continue;
    }
    out += static_cast<char>(c);
  }
  out += '"';
}

std::string NodeName(const api::Pod& pod, const Interner& in) {
  std::string out;
  AppendJsonString(out, in.Str(pod.node_name));
  return out;
}

std::string Tolerations(const api::Pod& pod, const Interner& in) {
  std::vector<const api::Toleration*> sorted;
  sorted.reserve(pod.tolerations.size());
  for (const auto& t : pod.tolerations) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const api::Toleration* a, const api::Toleration* b) {
                     std::string_view ak = in.Str(a->key), bk = in.Str(b->key);
                     if (ak != bk) return ak < bk;
                     return in.Str(a->value) < in.Str(b->value);
                   });
  std::string out = "[";
  for (size_t i = 0; i < sorted.size(); ++i) {
    const api::Toleration& t = *sorted[i];
    if (i > 0) out += ',';
    out += '{';
    bool first = true;
    auto field = [&](std::string_view name) {
      if (!first) out += ',';
      first = false;
      AppendJsonString(out, name);
      out += ':';
    };
    if (!t.key.empty()) {
      field("key");
      AppendJsonString(out, in.Str(t.key));
    }
    field("operator");
    AppendJsonString(out, t.op == api::TolerationOp::kExists ? "Exists" : "Equal");
    if (!t.value.empty()) {
      field("value");
      AppendJsonString(out, in.Str(t.value));
    }
    if (t.effect != api::TaintEffect::kNone) {
      field("effect");
      AppendJsonString(out, EffectName(t.effect));
    }
    if (t.toleration_seconds.has_value()) {
      field("tolerationSeconds");
      out += std::to_string(*t.toleration_seconds);
    }
    out += '}';
  }
  out += ']';
  return out;
}

std::string HostPorts(const api::Pod& pod) {
  std::vector<int32_t> ports;
  auto add = [&](const std::vector<api::Container>& cs) {
    for (const auto& c : cs) {
      for (const auto& p : c.ports) {
        if (p.host_port != 0) ports.push_back(p.host_port);
      }
    }
  };
  add(pod.containers);
  add(pod.init_containers);
  std::sort(ports.begin(), ports.end());
  ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
  std::string out = "[";
  for (size_t i = 0; i < ports.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(ports[i]);
  }
  out += ']';
  return out;
}

std::string NodeAffinity(const api::Pod& pod, const Interner& in) {
  if (!pod.affinity.has_value() || !pod.affinity->node_affinity.has_value()) return "null";
  const api::NodeAffinity& na = *pod.affinity->node_affinity;
  std::vector<std::string> preferred;
  preferred.reserve(na.preferred.size());
  for (const auto& p : na.preferred) {
    std::string term = "{\"Weight\":" + std::to_string(p.weight) + ",\"Preference\":";
    term += Term(p.preference, in);
    term += '}';
    preferred.push_back(std::move(term));
  }
  std::sort(preferred.begin(), preferred.end());
  std::vector<std::string> required;
  if (na.required.has_value()) {
    required.reserve(na.required->node_selector_terms.size());
    for (const auto& t : na.required->node_selector_terms) required.push_back(Term(t, in));
    std::sort(required.begin(), required.end());
  }
  std::string out = "{\"Required\":";
  AppendStringArray(out, required);
  out += ",\"Preferred\":";
  AppendStringArray(out, preferred);
  out += '}';
  return out;
}

std::string NodeSelector(const api::Pod& pod, const Interner& in) {
  if (pod.node_selector.empty()) return "null";
  std::vector<std::pair<std::string_view, std::string_view>> items;
  items.reserve(pod.node_selector.size());
  for (const auto& [k, v] : pod.node_selector.items()) items.emplace_back(in.Str(k), in.Str(v));
  std::sort(items.begin(), items.end());
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, items[i].first);
    out += ':';
    AppendJsonString(out, items[i].second);
  }
  out += '}';
  return out;
}

std::string Volumes(const api::Pod& pod, const Interner& in) {
  std::vector<std::string> sources;
  for (const auto& v : pod.volumes) {
    switch (v.kind) {
      case api::VolumeKind::kPersistentVolumeClaim: {
        std::string s = "{\"persistentVolumeClaim\":{\"claimName\":";
        AppendJsonString(s, in.Str(v.claim_name));
        s += "}}";
        sources.push_back(std::move(s));
        break;
      }
      case api::VolumeKind::kEphemeral: {
        // The claim template's scheduling-relevant fields (the claim itself is per pod).
        std::string s = "{\"ephemeral\":{";
        if (v.claim_template != nullptr) {
          const api::PersistentVolumeClaim& c = *v.claim_template;
          s += "\"accessModes\":" + std::to_string(c.access_modes) + ",\"storageClassName\":";
          AppendJsonString(s, in.Str(c.storage_class_name));
          s += ",\"storage\":";
          AppendJsonString(s, c.storage_request.String());
        }
        s += "}}";
        sources.push_back(std::move(s));
        break;
      }
      case api::VolumeKind::kCsi:
      case api::VolumeKind::kGcePersistentDisk:
      case api::VolumeKind::kAwsElasticBlockStore:
      case api::VolumeKind::kAzureDisk:
      case api::VolumeKind::kCinder:
      case api::VolumeKind::kRbd:
      case api::VolumeKind::kIscsi: {
        std::string s = "{\"kind\":" + std::to_string(static_cast<int>(v.kind)) + ",\"id\":";
        AppendJsonString(s, in.Str(v.source.id));
        s += ",\"driver\":";
        AppendJsonString(s, in.Str(v.source.driver));
        s += ",\"pool\":";
        AppendJsonString(s, in.Str(v.source.pool));
        for (Symbol m : v.source.monitors) {
          s += ",\"monitor\":";
          AppendJsonString(s, in.Str(m));
        }
        s += v.source.read_only ? ",\"readOnly\":true}" : "}";
        sources.push_back(std::move(s));
        break;
      }
      case api::VolumeKind::kOther:
        break;
    }
  }
  std::sort(sources.begin(), sources.end());
  std::string out;
  AppendStringArray(out, sources);
  return out;
}

void AppendSelectorIds(std::string& out, const std::optional<api::LabelSelector>& selector) {
  if (!selector.has_value()) {
    out += "nil;";
    return;
  }
  out += '{';
  for (const auto& [k, v] : selector->match_labels.items()) {
    out += std::to_string(k.id());
    out += '=';
    out += std::to_string(v.id());
    out += ',';
  }
  out += '|';
  for (const auto& r : selector->match_expressions) {
    out += std::to_string(r.key.id());
    out += ' ';
    out += std::to_string(static_cast<int>(r.op));
    out += '(';
    for (Symbol v : r.values) {
      out += std::to_string(v.id());
      out += ',';
    }
    out += ')';
  }
  out += "};";
}

}  // namespace corral::plugins::signers
