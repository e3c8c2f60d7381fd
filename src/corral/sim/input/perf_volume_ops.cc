// scheduler_perf's volume inputs: createPods with a PersistentVolume and a PersistentVolumeClaim
// template (kube's CreatePodWithPersistentVolume with bindVolume, the pairs bound before the pod
// is created), and the CSINode objects of nodeAllocatableStrategy (csiNodeAllocatable,
// migratedPlugins), as kube's NodeAllocatableStrategy prepares them for each node.

#include <filesystem>

#include <fmt/format.h>

#include "corral/doc/input.h"
#include "corral/doc/parse.h"
#include "corral/sim/input/object_set.h"
#include "corral/sim/input/perf_config_internal.h"

namespace corral::sim::perf_detail {

namespace fs = std::filesystem;

namespace {

// kube reads these templates as plain YAML (no Go template); Corral renders them without
// parameters, which is the same for a file without actions.
template <typename T>
bool LoadOne(OpCompiler* /*unused*/, const std::string& text, const std::string& file, Interner& in,
             std::string_view want, T& out, std::string* error,
             std::vector<T> api::StorageObjects::*list) {
  auto obj = LoadRendered(text, file, in);
  if (!obj.ok()) {
    *error = obj.error().message;
    return false;
  }
  if (obj->objects.storage == nullptr || ((*obj->objects.storage).*list).size() != 1) {
    *error = fmt::format("{}: template is a {:?}, want a {}", file, obj->kind, want);
    return false;
  }
  out = std::move(((*obj->objects.storage).*list)[0]);
  return true;
}

// kube's volume factory fills in a CSI volume's handle, so its template leaves it out, which the
// loader (as the API server) rejects: the rendered template gets a placeholder handle, replaced
// per volume below.
std::string WithCsiHandle(const std::string& text, const std::string& file) {
  Diagnostics diags;
  doc::Stream st = doc::ParseYaml(text, file, diags);
  if (diags.has_errors() || st.documents().empty() || !st.documents()[0].is_map()) return text;
  const Node& root = st.documents()[0];
  const Node* spec = root.Find("spec");
  if (spec == nullptr || !spec->is_map()) return text;
  const Node* csi = spec->Find("csi");
  if (csi == nullptr || !csi->is_map() || csi->Find("volumeHandle") != nullptr) return text;
  auto map_json = [](const Node& m, std::string_view key, const std::string& replacement) {
    std::string j = "{";
    for (size_t i = 0; i < m.size(); ++i) {
      if (i > 0) j += ",";
      j += JsonString(m.key(i).text()) + ":";
      j += m.key(i).text() == key ? replacement : NodeToJson(m.value(i));
    }
    return j + "}";
  };
  std::string csi_json = NodeToJson(*csi);
  csi_json.pop_back();
  csi_json += std::string(csi->empty() ? "" : ",") + "\"volumeHandle\":\"vol-0\"}";
  return map_json(root, "spec", map_json(*spec, "csi", csi_json));
}

}  // namespace

bool OpCompiler::AddPersistentVolumes(const Node& op, const std::string& ns, int64_t count,
                                      uint32_t tmpl) {
  auto pv_path = String(op, "persistentVolumeTemplatePath");
  auto pvc_path = String(op, "persistentVolumeClaimTemplatePath");
  // kube uses the pair only when both are set; one alone would be ignored there, which Corral
  // does not do quietly.
  if (!pv_path) {
    d_.Required(op, "persistentVolumeTemplatePath", "with persistentVolumeClaimTemplatePath");
    return false;
  }
  if (!pvc_path) {
    d_.Required(op, "persistentVolumeClaimTemplatePath", "with persistentVolumeTemplatePath");
    return false;
  }
  auto render = [&](const std::string& rel, std::string_view key) -> std::optional<std::string> {
    auto scope = d_.Field(key);
    auto t = Template(rel, *op.Find(key));
    if (!t.ok()) return std::nullopt;
    auto text = (*t)->tmpl.Execute(Env(op, 0, count));
    if (!text.ok()) {
      diags_.Error((*t)->path, 0, "", fmt::format("template: {}", text.error().message));
      return std::nullopt;
    }
    return *text;
  };
  auto pv_text = render(*pv_path, "persistentVolumeTemplatePath");
  auto pvc_text = render(*pvc_path, "persistentVolumeClaimTemplatePath");
  if (!pv_text || !pvc_text) return false;
  api::PersistentVolume pv_tmpl;
  api::PersistentVolumeClaim pvc_tmpl;
  std::string error;
  if (!LoadOne(this, WithCsiHandle(*pv_text, *pv_path), *pv_path, in_, "PersistentVolume", pv_tmpl,
               &error, &api::StorageObjects::volumes) ||
      !LoadOne(this, *pvc_text, *pvc_path, in_, "PersistentVolumeClaim", pvc_tmpl, &error,
               &api::StorageObjects::claims)) {
    d_.Error(op, error);
    return false;
  }
  if (storage_ == nullptr) storage_ = std::make_shared<api::StorageObjects>();
  const Symbol ns_sym = in_.Intern(ns);
  auto claims = std::make_shared<std::vector<Symbol>>();
  claims->reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    // kube's getCustomVolumeFactory names the volume "vol-<i>" (its AWS volumeID too); the
    // namespace is prepended to make the cluster-wide name unique, and a CSI volume's handle is
    // that name.
    api::PersistentVolume pv = pv_tmpl;
    const std::string volume_id = fmt::format("vol-{}", i);
    const std::string pv_name = fmt::format("{}-{}", ns, volume_id);
    pv.meta.name = in_.Intern(pv_name);
    if (pv.source_kind == api::VolumeKind::kCsi) {
      pv.source.id = pv.meta.name;
    } else if (pv.source_kind == api::VolumeKind::kAwsElasticBlockStore) {
      pv.source.id = in_.Intern(volume_id);
    }
    api::PersistentVolumeClaim pvc = pvc_tmpl;
    pvc.meta.name = in_.Intern(fmt::format("pvc-{}", i));
    pvc.meta.namespace_ = ns_sym;
    // bindVolume: the volume names the claim, the claim the volume, both Bound.
    pv.claim_ref = api::ClaimReference{ns_sym, pvc.meta.name, Symbol{}};
    pv.phase = api::PersistentVolumePhase::kBound;
    pvc.volume_name = pv.meta.name;
    pvc.phase = api::ClaimPhase::kBound;
    claims->push_back(pvc.meta.name);
    storage_->volumes.push_back(std::move(pv));
    storage_->claims.push_back(std::move(pvc));
  }
  // Pod i's volumes are one volume "vol" naming claim "pvc-<i>".
  PodTemplate& pt = spec_.pod_templates[tmpl];
  struct State {
    std::function<Result<const api::Pod*>(int64_t, int64_t)> inner;
    api::Pod base;
    api::Pod last;
    Symbol vol;
    std::shared_ptr<std::vector<Symbol>> claims;
  };
  auto st = std::make_shared<State>(State{pt.render, pt.pod, {}, in_.Intern("vol"), claims});
  pt.render = [st](int64_t index, int64_t cnt) -> Result<const api::Pod*> {
    const api::Pod* src = &st->base;
    if (st->inner) {
      auto r = st->inner(index, cnt);
      if (!r.ok()) return r.error();
      src = *r;
    }
    if (index < 0 || static_cast<size_t>(index) >= st->claims->size()) {
      return Error::Invalid(fmt::format("pod {} of a createPods op with {} persistent volumes",
                                        index, st->claims->size()));
    }
    st->last = *src;
    api::Volume v;
    v.name = st->vol;
    v.kind = api::VolumeKind::kPersistentVolumeClaim;
    v.claim_name = (*st->claims)[static_cast<size_t>(index)];
    st->last.volumes.assign(1, std::move(v));
    return &st->last;
  };
  return true;
}

bool OpCompiler::AddCsiNodes(const Node& strategy, int64_t count) {
  std::vector<api::CSINodeDriver> drivers;
  if (const Node* m = strategy.Find("csiNodeAllocatable")) {
    auto sc = d_.Field("csiNodeAllocatable");
    bool ok = true;
    d_.ForEachEntry(*m, [&](const Node& key, const Node& v) {
      auto sk = d_.Field(key.text());
      if (!v.is_map()) {
        d_.Error(v, "want a map with count");
        ok = false;
        return;
      }
      CheckKeys(v, {"count"});
      api::CSINodeDriver drv;
      drv.name = in_.Intern(key.text());
      if (const Node* c = v.Find("count")) {
        int64_t n = 0;
        auto sc2 = d_.Field("count");
        if (!d_.ReadInt64(*c, n, 0, INT32_MAX)) {
          ok = false;
          return;
        }
        drv.allocatable_count = static_cast<int32_t>(n);
      }
      drivers.push_back(std::move(drv));
    });
    if (!ok) return false;
  }
  std::string migrated;
  if (const Node* m = strategy.Find("migratedPlugins")) {
    auto sc = d_.Field("migratedPlugins");
    std::vector<Symbol> plugins;
    if (!d_.ReadSymbolList(*m, plugins)) return false;
    for (size_t i = 0; i < plugins.size(); ++i) {
      migrated += (i == 0 ? "" : ",") + std::string(in_.Str(plugins[i]));
    }
  }
  std::vector<PlannedNode> planned;
  if (!PlannedNodes(strategy, planned)) return false;
  if (storage_ == nullptr) storage_ = std::make_shared<api::StorageObjects>();
  const Symbol annotation = in_.Intern(api::kAnnMigratedPlugins);
  // kube sorts nothing here: its drivers come from a map, so their order is Go's map order; the
  // scheduler looks drivers up by name, so the order does not matter.
  for (size_t k = planned.size() - static_cast<size_t>(count); k < planned.size(); ++k) {
    api::CSINode n;
    n.meta.name = planned[k].node.meta.name;
    n.meta.annotations.emplace_back(annotation, migrated);
    for (const api::CSINodeDriver& d : drivers) {
      api::CSINodeDriver nd = d;
      nd.node_id = n.meta.name;
      n.drivers.push_back(std::move(nd));
    }
    storage_->csi_nodes.push_back(std::move(n));
  }
  return true;
}

}  // namespace corral::sim::perf_detail
