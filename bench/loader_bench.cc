// Loader throughput on a large cluster dump: 5,000 nodes and 100,000 pods as one `kind: List`, the
// way `kubectl get nodes,pods -A -o json|yaml` prints it. Pods look like real ones: labels, owner
// references, requests and limits, the default NoExecute tolerations, affinity or topology spread
// on some, status.
//
//   cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DCORRAL_BUILD_BENCHMARKS=ON
//   -DCORRAL_BUILD_TESTS=OFF cmake --build build/bench -j2 --target corral_loader_bench
//   && build/bench/bench/corral_loader_bench
//
// Goals (docs/performance.md): JSON < 2 s, YAML < 10 s for the whole dump.
// CORRAL_LOADER_BENCH_SAVE=DIR writes the data set to DIR/dump.{json,yaml};
// CORRAL_LOADER_BENCH_NODES/_PODS change its size.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include "corral/api/well_known.h"
#include "corral/doc/parse.h"
#include "corral/loader/loader.h"

namespace {

// CORRAL_LOADER_BENCH_NODES / _PODS override the sizes (for quick runs and profiling).
int EnvInt(const char* name, int def) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : def;
}
const int kNodes = EnvInt("CORRAL_LOADER_BENCH_NODES", 5000);
const int kPods = EnvInt("CORRAL_LOADER_BENCH_PODS", 100000);
constexpr int kNamespaces = 20;
constexpr int kZones = 3;

// A minimal JSON writer (commas and indentation handled here); YAML is produced from the
// parsed tree.
class Emitter {
 public:
  std::string& out() { return out_; }
  void BeginMap() { Open('{'); }
  void EndMap() { Close('}'); }
  void BeginSeq() { Open('['); }
  void EndSeq() { Close(']'); }
  void Key(std::string_view k) {
    Sep();
    fmt::format_to(std::back_inserter(out_), "\"{}\": ", k);
    after_key_ = true;
  }
  void Str(std::string_view v) { Raw(fmt::format("\"{}\"", v)); }
  void Num(int64_t v) { Raw(std::to_string(v)); }
  void Bool(bool v) { Raw(v ? "true" : "false"); }
  void Null() { Raw("null"); }
  void KStr(std::string_view k, std::string_view v) { Key(k), Str(v); }
  void KNum(std::string_view k, int64_t v) { Key(k), Num(v); }

 private:
  void Sep() {
    if (after_key_ || counts_.empty()) return;
    if (counts_.back()++ > 0) out_ += ',';
    out_ += '\n';
    out_.append(counts_.size() * 4, ' ');
  }
  void Open(char c) {
    Sep();
    after_key_ = false;
    out_ += c;
    counts_.push_back(0);
  }
  void Close(char c) {
    bool any = counts_.back() > 0;
    counts_.pop_back();
    if (any) {
      out_ += '\n';
      out_.append(counts_.size() * 4, ' ');
    }
    out_ += c;
  }
  void Raw(std::string_view v) {
    Sep();
    after_key_ = false;
    out_ += v;
  }

  std::string out_;
  std::vector<int> counts_;
  bool after_key_ = false;
};

void Labels(Emitter& e, std::initializer_list<std::pair<std::string_view, std::string>> kv) {
  e.Key("labels");
  e.BeginMap();
  for (const auto& [k, v] : kv) e.KStr(k, v);
  e.EndMap();
}

void EmitNode(Emitter& e, int i) {
  std::string name = fmt::format("node-{:05d}", i);
  std::string zone = fmt::format("zone-{}", i % kZones);
  e.BeginMap();
  e.KStr("apiVersion", "v1");
  e.KStr("kind", "Node");
  e.Key("metadata");
  e.BeginMap();
  e.Key("annotations");
  e.BeginMap();
  e.KStr("node.alpha.kubernetes.io/ttl", "0");
  e.KStr("volumes.kubernetes.io/controller-managed-attach-detach", "true");
  e.EndMap();
  e.KStr("creationTimestamp", "2026-11-20T09:14:03Z");
  Labels(e, {{"beta.kubernetes.io/arch", "amd64"},
             {"kubernetes.io/arch", "amd64"},
             {"kubernetes.io/hostname", name},
             {"kubernetes.io/os", "linux"},
             {"node.kubernetes.io/instance-type", i % 10 == 0 ? "p4d.24xlarge" : "m5.4xlarge"},
             {"topology.kubernetes.io/region", "us-east-1"},
             {"topology.kubernetes.io/zone", zone}});
  e.KStr("name", name);
  e.KStr("resourceVersion", std::to_string(100000 + i));
  e.KStr("uid", fmt::format("6f1c2a9e-0d4b-4b7a-9c51-{:012d}", i));
  e.EndMap();
  e.Key("spec");
  e.BeginMap();
  e.KStr("podCIDR", fmt::format("10.{}.{}.0/24", i / 256, i % 256));
  e.KStr("providerID", fmt::format("aws:///us-east-1a/i-{:017x}", i));
  if (i % 10 == 0) {
    e.Key("taints");
    e.BeginSeq();
    e.BeginMap();
    e.KStr("effect", "NoSchedule");
    e.KStr("key", "nvidia.com/gpu");
    e.KStr("value", "present");
    e.EndMap();
    e.EndSeq();
  }
  e.EndMap();
  e.Key("status");
  e.BeginMap();
  for (std::string_view key : {"allocatable", "capacity"}) {
    e.Key(key);
    e.BeginMap();
    e.KStr("cpu", key == "capacity" ? "16" : "15890m");
    e.KStr("ephemeral-storage", "263174212Ki");
    e.KStr("hugepages-2Mi", "0");
    e.KStr("memory", key == "capacity" ? "65023000Ki" : "63846000Ki");
    if (i % 10 == 0) e.KStr("nvidia.com/gpu", "8");
    e.KStr("pods", "110");
    e.EndMap();
  }
  e.Key("conditions");
  e.BeginSeq();
  for (std::string_view t : {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
    e.BeginMap();
    e.KStr("lastHeartbeatTime", "2026-11-21T14:01:12Z");
    e.KStr("lastTransitionTime", "2026-11-20T09:14:03Z");
    e.KStr("message", "kubelet is posting ready status");
    e.KStr("reason", "KubeletReady");
    e.KStr("status", t == "Ready" ? "True" : "False");
    e.KStr("type", t);
    e.EndMap();
  }
  e.EndSeq();
  e.Key("images");
  e.BeginSeq();
  for (int k = 0; k < 4; ++k) {
    e.BeginMap();
    e.Key("names");
    e.BeginSeq();
    e.Str(fmt::format("registry.example.com/team-{}/service-{}@sha256:{:064x}", k, k, k + i));
    e.Str(fmt::format("registry.example.com/team-{}/service-{}:v1.{}", k, k, k));
    e.EndSeq();
    e.KNum("sizeBytes", 10000000 + k * 12345);
    e.EndMap();
  }
  e.EndSeq();
  e.Key("nodeInfo");
  e.BeginMap();
  e.KStr("architecture", "amd64");
  e.KStr("containerRuntimeVersion", "containerd://2.1.4");
  e.KStr("kernelVersion", "6.1.0-27-amd64");
  e.KStr("kubeletVersion", "v1.37.0");
  e.KStr("operatingSystem", "linux");
  e.EndMap();
  e.EndMap();
  e.EndMap();
}

void EmitPod(Emitter& e, int i) {
  int ns = i % kNamespaces;
  int app = i % 500;
  std::string hash = fmt::format("{:010x}", app * 7919);
  std::string name = fmt::format("app-{}-{}-{:05d}", app, hash.substr(0, 5), i);
  bool bound = i % 5 != 0;
  e.BeginMap();
  e.KStr("apiVersion", "v1");
  e.KStr("kind", "Pod");
  e.Key("metadata");
  e.BeginMap();
  e.KStr("creationTimestamp", "2026-11-20T09:14:03Z");
  e.KStr("generateName", fmt::format("app-{}-{}-", app, hash.substr(0, 5)));
  Labels(e, {{"app", fmt::format("app-{}", app)},
             {"pod-template-hash", hash},
             {"team", fmt::format("team-{}", app % 17)},
             {"tier", app % 3 == 0 ? "frontend" : "backend"}});
  e.KStr("name", name);
  e.KStr("namespace", fmt::format("ns-{}", ns));
  e.Key("ownerReferences");
  e.BeginSeq();
  e.BeginMap();
  e.KStr("apiVersion", "apps/v1");
  e.Key("blockOwnerDeletion");
  e.Bool(true);
  e.Key("controller");
  e.Bool(true);
  e.KStr("kind", "ReplicaSet");
  e.KStr("name", fmt::format("app-{}-{}", app, hash.substr(0, 5)));
  e.KStr("uid", fmt::format("b1b2c3d4-0000-4000-8000-{:012d}", app));
  e.EndMap();
  e.EndSeq();
  e.KStr("resourceVersion", std::to_string(500000 + i));
  e.KStr("uid", fmt::format("a1b2c3d4-0000-4000-8000-{:012d}", i));
  e.EndMap();

  e.Key("spec");
  e.BeginMap();
  if (i % 5 == 1) {
    e.Key("affinity");
    e.BeginMap();
    e.Key("nodeAffinity");
    e.BeginMap();
    e.Key("requiredDuringSchedulingIgnoredDuringExecution");
    e.BeginMap();
    e.Key("nodeSelectorTerms");
    e.BeginSeq();
    e.BeginMap();
    e.Key("matchExpressions");
    e.BeginSeq();
    e.BeginMap();
    e.KStr("key", "topology.kubernetes.io/zone");
    e.KStr("operator", "In");
    e.Key("values");
    e.BeginSeq();
    e.Str("zone-0");
    e.Str("zone-1");
    e.EndSeq();
    e.EndMap();
    e.EndSeq();
    e.EndMap();
    e.EndSeq();
    e.EndMap();
    e.EndMap();
    e.Key("podAntiAffinity");
    e.BeginMap();
    e.Key("preferredDuringSchedulingIgnoredDuringExecution");
    e.BeginSeq();
    e.BeginMap();
    e.Key("podAffinityTerm");
    e.BeginMap();
    e.Key("labelSelector");
    e.BeginMap();
    e.Key("matchLabels");
    e.BeginMap();
    e.KStr("app", fmt::format("app-{}", app));
    e.EndMap();
    e.EndMap();
    e.KStr("topologyKey", "kubernetes.io/hostname");
    e.EndMap();
    e.KNum("weight", 100);
    e.EndMap();
    e.EndSeq();
    e.EndMap();
    e.EndMap();
  }
  e.Key("containers");
  e.BeginSeq();
  for (int c = 0; c < (i % 4 == 0 ? 2 : 1); ++c) {
    e.BeginMap();
    e.Key("env");
    e.BeginSeq();
    e.BeginMap();
    e.KStr("name", "LOG_LEVEL");
    e.KStr("value", "info");
    e.EndMap();
    e.EndSeq();
    e.KStr("image", fmt::format("registry.example.com/team-{}/app-{}:v2.{}", app % 17, app, c));
    e.KStr("imagePullPolicy", "IfNotPresent");
    e.KStr("name", c == 0 ? "app" : "sidecar");
    e.Key("ports");
    e.BeginSeq();
    e.BeginMap();
    e.KNum("containerPort", 8080 + c);
    e.KStr("protocol", "TCP");
    e.EndMap();
    e.EndSeq();
    e.Key("resources");
    e.BeginMap();
    e.Key("limits");
    e.BeginMap();
    e.KStr("memory", c == 0 ? "1Gi" : "128Mi");
    e.EndMap();
    e.Key("requests");
    e.BeginMap();
    e.KStr("cpu", c == 0 ? fmt::format("{}m", 100 + (i % 10) * 50) : "50m");
    e.KStr("memory", c == 0 ? "512Mi" : "64Mi");
    e.EndMap();
    e.EndMap();
    e.KStr("terminationMessagePath", "/dev/termination-log");
    e.KStr("terminationMessagePolicy", "File");
    e.Key("volumeMounts");
    e.BeginSeq();
    e.BeginMap();
    e.KStr("mountPath", "/var/run/secrets/kubernetes.io/serviceaccount");
    e.KStr("name", "kube-api-access-x7k2p");
    e.Key("readOnly");
    e.Bool(true);
    e.EndMap();
    e.EndSeq();
    e.EndMap();
  }
  e.EndSeq();
  e.KStr("dnsPolicy", "ClusterFirst");
  e.Key("enableServiceLinks");
  e.Bool(true);
  if (bound) e.KStr("nodeName", fmt::format("node-{:05d}", (i * 7) % kNodes));
  e.KStr("preemptionPolicy", "PreemptLowerPriority");
  e.KNum("priority", 0);
  e.KStr("restartPolicy", "Always");
  e.KStr("schedulerName", "default-scheduler");
  e.Key("securityContext");
  e.BeginMap();
  e.EndMap();
  e.KStr("serviceAccountName", "default");
  e.KNum("terminationGracePeriodSeconds", 30);
  e.Key("tolerations");
  e.BeginSeq();
  for (std::string_view key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    e.BeginMap();
    e.KStr("effect", "NoExecute");
    e.KStr("key", key);
    e.KStr("operator", "Exists");
    e.KNum("tolerationSeconds", 300);
    e.EndMap();
  }
  e.EndSeq();
  if (i % 10 == 3) {
    e.Key("topologySpreadConstraints");
    e.BeginSeq();
    e.BeginMap();
    e.Key("labelSelector");
    e.BeginMap();
    e.Key("matchLabels");
    e.BeginMap();
    e.KStr("app", fmt::format("app-{}", app));
    e.EndMap();
    e.EndMap();
    e.KNum("maxSkew", 1);
    e.KStr("topologyKey", "topology.kubernetes.io/zone");
    e.KStr("whenUnsatisfiable", "DoNotSchedule");
    e.EndMap();
    e.EndSeq();
  }
  e.Key("volumes");
  e.BeginSeq();
  e.BeginMap();
  e.KStr("name", "kube-api-access-x7k2p");
  e.Key("projected");
  e.BeginMap();
  e.KNum("defaultMode", 420);
  e.EndMap();
  e.EndMap();
  e.EndSeq();
  e.EndMap();

  e.Key("status");
  e.BeginMap();
  e.Key("conditions");
  e.BeginSeq();
  e.BeginMap();
  e.Key("lastProbeTime");
  e.Null();
  e.KStr("lastTransitionTime", "2026-11-20T09:14:03Z");
  e.KStr("status", bound ? "True" : "False");
  e.KStr("type", "PodScheduled");
  e.EndMap();
  e.EndSeq();
  e.KStr("phase", bound ? "Running" : "Pending");
  e.KStr("qosClass", "Burstable");
  if (bound) e.KStr("startTime", "2026-11-20T09:14:20Z");
  e.EndMap();
  e.EndMap();
}

}  // namespace

namespace {

// ---- YAML, written from the parsed JSON tree in kubectl's style ---------------------------------

bool NeedsQuotes(std::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ') return true;
  if (s.find_first_of(":#{}[],&*!|>'\"%@`") != std::string_view::npos) return true;
  char c = s.front();
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == '~') return true;
  for (std::string_view w :
       {"true", "false", "yes", "no",  "on",   "off",  "y",    "n",     "null", "True", "False",
        "Yes",  "No",    "On",  "Off", "Null", "NULL", "TRUE", "FALSE", "Y",    "N"}) {
    if (s == w) return true;
  }
  return false;
}

void Scalar(const corral::doc::Node& n, std::string& out) {
  if (n.is_string() && NeedsQuotes(n.text())) {
    out += '\'';
    for (char c : n.text()) {
      if (c == '\'') out += '\'';
      out += c;
    }
    out += '\'';
  } else if (n.is_null()) {
    out += "null";
  } else {
    out += n.text();
  }
}

void WriteYaml(const corral::doc::Node& n, size_t indent, std::string& out);

// Writes the value of a map entry or sequence item that follows "key:" or "- " on the current line.
void WriteValue(const corral::doc::Node& v, size_t indent, std::string& out) {
  if (v.is_scalar()) {
    out += ' ';
    Scalar(v, out);
    out += '\n';
  } else if (v.empty()) {
    out += v.is_map() ? " {}\n" : " []\n";
  } else {
    out += '\n';
    WriteYaml(v, indent, out);
  }
}

void WriteYaml(const corral::doc::Node& n, size_t indent, std::string& out) {
  if (n.is_map()) {
    for (size_t i = 0; i < n.size(); ++i) {
      out.append(indent, ' ');
      out += n.key(i).text();
      out += ':';
      const corral::doc::Node& v = n.value(i);
      WriteValue(v, v.is_sequence() ? indent : indent + 2, out);
    }
  } else if (n.is_sequence()) {
    for (const auto& item : n.items()) {
      out.append(indent, ' ');
      out += '-';
      if (item.is_map() && !item.empty()) {
        // First entry on the dash line, the others aligned under it.
        std::string sub;
        WriteYaml(item, indent + 2, sub);
        out += ' ';
        out.append(sub, indent + 2, std::string::npos);
      } else {
        WriteValue(item, indent + 2, out);
      }
    }
  }
}

// ---- the data set -------------------------------------------------------------------------------

struct Dataset {
  std::string json;
  std::string yaml;
};

const Dataset& Data() {
  static const Dataset* d = [] {
    auto* ds = new Dataset;  // NOLINT(cppcoreguidelines-owning-memory): lives for the process
    Emitter e;
    e.BeginMap();
    e.KStr("apiVersion", "v1");
    e.Key("items");
    e.BeginSeq();
    for (int i = 0; i < kNodes; ++i) EmitNode(e, i);
    for (int i = 0; i < kPods; ++i) EmitPod(e, i);
    e.EndSeq();
    e.KStr("kind", "List");
    e.Key("metadata");
    e.BeginMap();
    e.KStr("resourceVersion", "");
    e.EndMap();
    e.EndMap();
    e.out() += '\n';
    ds->json = std::move(e.out());
    corral::Diagnostics diags;
    corral::doc::Stream s = corral::doc::ParseJson(ds->json, "dump.json", diags);
    WriteYaml(s.documents()[0], 0, ds->yaml);
    // CORRAL_LOADER_BENCH_SAVE=DIR keeps the data set as DIR/dump.json and DIR/dump.yaml (for
    // profiling or `corral validate`).
    if (const char* dir = std::getenv("CORRAL_LOADER_BENCH_SAVE")) {
      std::ofstream(std::string(dir) + "/dump.json", std::ios::binary) << ds->json;
      std::ofstream(std::string(dir) + "/dump.yaml", std::ios::binary) << ds->yaml;
    }
    return ds;
  }();
  return *d;
}

void CheckLoaded(benchmark::State& state, const corral::loader::LoadResult& r) {
  if (!r.ok() || r.objects.nodes.size() != static_cast<size_t>(kNodes) ||
      r.objects.pods.size() != static_cast<size_t>(kPods)) {
    std::string first = r.diagnostics.items().empty() ? "" : r.diagnostics.items()[0].ToString();
    state.SkipWithError(("unexpected load result: " + first).c_str());
  }
}

void Report(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(state.iterations() * (kNodes + kPods));
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
}

void BM_LoadJson(benchmark::State& state) {
  const Dataset& d = Data();
  for (auto _ : state) {
    corral::Interner in = corral::api::NewInterner();
    corral::loader::LoadResult r = corral::loader::LoadString(d.json, "dump.json", in);
    CheckLoaded(state, r);
    benchmark::DoNotOptimize(r);
  }
  Report(state, d.json.size());
}

void BM_LoadYaml(benchmark::State& state) {
  const Dataset& d = Data();
  for (auto _ : state) {
    corral::Interner in = corral::api::NewInterner();
    corral::loader::LoadResult r = corral::loader::LoadString(d.yaml, "dump.yaml", in);
    CheckLoaded(state, r);
    benchmark::DoNotOptimize(r);
  }
  Report(state, d.yaml.size());
}

// From a temporary file, through LoadPaths (reading included).
void BM_LoadJsonFile(benchmark::State& state) {
  const Dataset& d = Data();
  std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("corral-bench-{}.json", ::getpid()))
          .string();
  std::ofstream(path, std::ios::binary) << d.json;
  std::vector<std::string> paths = {path};
  for (auto _ : state) {
    corral::Interner in = corral::api::NewInterner();
    corral::loader::LoadResult r = corral::loader::LoadPaths(paths, in);
    CheckLoaded(state, r);
    benchmark::DoNotOptimize(r);
  }
  std::filesystem::remove(path);
  Report(state, d.json.size());
}

// The document tree alone, to separate parsing from decoding.
void BM_ParseJsonTree(benchmark::State& state) {
  const Dataset& d = Data();
  for (auto _ : state) {
    corral::Diagnostics diags;
    corral::doc::Stream s = corral::doc::ParseJson(d.json, "dump.json", diags);
    benchmark::DoNotOptimize(s);
  }
  Report(state, d.json.size());
}

void BM_ParseYamlTree(benchmark::State& state) {
  const Dataset& d = Data();
  for (auto _ : state) {
    corral::Diagnostics diags;
    corral::doc::Stream s = corral::doc::ParseYaml(d.yaml, "dump.yaml", diags);
    benchmark::DoNotOptimize(s);
  }
  Report(state, d.yaml.size());
}

BENCHMARK(BM_LoadJson)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_LoadJsonFile)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_LoadYaml)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_ParseJsonTree)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_ParseYamlTree)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
