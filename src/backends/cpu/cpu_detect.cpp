#include "backends/cpu/cpu_detect.hpp"

#include <algorithm>
#include <cstdlib>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <fmt/format.h>

#include "backends/cpu/fma_table.hpp"
#include "backends/cpu/cpu_uarch.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"

#ifdef ROOFLINE_HAVE_CPUINFO
#include <cpuinfo.h>
#endif

namespace roofline::cpu {

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

/// "32K" / "1024K" / "32M" (sysfs cache sizes) in bytes, 0 when unreadable.
std::int64_t parse_size(const std::string& s) {
  if (s.empty()) return 0;
  try {
    std::size_t pos = 0;
    const double v = std::stod(s, &pos);
    const char u = pos < s.size() ? s[pos] : ' ';
    const double m = u == 'K' ? 1024.0 : u == 'M' ? 1048576.0 : u == 'G' ? 1073741824.0 : 1.0;
    return static_cast<std::int64_t>(v * m);
  } catch (...) {
    return 0;
  }
}

std::string proc_cpuinfo_field(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) return "";
      auto v = line.substr(colon + 1);
      const auto b = v.find_first_not_of(" \t");
      return b == std::string::npos ? "" : v.substr(b);
    }
  }
  return "";
}

/// Distinct (package, core) pairs of the online CPUs: sysfs topology, else /proc/cpuinfo's
/// "physical id" / "core id"; 0 when neither is readable.
int os_core_count() {
  std::set<std::string> ids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/devices/system/cpu", ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 4 || name.rfind("cpu", 0) != 0 || name.find_first_not_of("0123456789", 3) != std::string::npos) continue;
    const std::string core = read_first_line((e.path() / "topology/core_id").string());  // absent when offline
    if (!core.empty()) ids.insert(read_first_line((e.path() / "topology/physical_package_id").string()) + "/" + core);
  }
  if (!ids.empty()) return static_cast<int>(ids.size());
  std::ifstream f("/proc/cpuinfo");
  std::string line, phys;
  while (std::getline(f, line)) {
    if (line.rfind("physical id", 0) == 0) phys = line.substr(line.find(':') + 1);
    if (line.rfind("core id", 0) == 0) ids.insert(phys + "/" + line.substr(line.find(':') + 1));
  }
  return static_cast<int>(ids.size());
}

/// Caches from /sys/devices/system/cpu/cpu0/cache: L1d and L2 per core, L3 total (one instance per
/// distinct shared_cpu_list is approximated by the instance cpu0 sees times the number of packages).
void sysfs_caches(cpu_description& d) {
  for (int i = 0; i < 8; ++i) {
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = read_first_line(base + "level");
    if (level.empty()) break;
    const std::string type = read_first_line(base + "type");
    const std::int64_t size = parse_size(read_first_line(base + "size"));
    if (level == "1" && type == "Data") d.l1d_bytes = size;
    if (level == "2") d.l2_bytes = size;
    if (level == "3") d.l3_bytes = size;
  }
}

#ifdef ROOFLINE_HAVE_CPUINFO
std::string uarch_name(cpuinfo_uarch u) {
  switch (u) {
    case cpuinfo_uarch_zen: return "zen";
    case cpuinfo_uarch_zen2: return "zen2";
    case cpuinfo_uarch_zen3: return "zen3";
    case cpuinfo_uarch_haswell: return "haswell";
    case cpuinfo_uarch_broadwell: return "broadwell";
    case cpuinfo_uarch_sky_lake: return "sky_lake";
    case cpuinfo_uarch_palm_cove: return "palm_cove";
    case cpuinfo_uarch_sunny_cove: return "sunny_cove";
    case cpuinfo_uarch_sandy_bridge: return "sandy_bridge";
    case cpuinfo_uarch_ivy_bridge: return "ivy_bridge";
    case cpuinfo_uarch_bulldozer: return "bulldozer";
    case cpuinfo_uarch_piledriver: return "piledriver";
    case cpuinfo_uarch_steamroller: return "steamroller";
    case cpuinfo_uarch_excavator: return "excavator";
    case cpuinfo_uarch_goldmont: return "goldmont";
    case cpuinfo_uarch_goldmont_plus: return "goldmont_plus";
    case cpuinfo_uarch_neoverse_n1: return "neoverse_n1";
    case cpuinfo_uarch_neoverse_v1: return "neoverse_v1";
    case cpuinfo_uarch_neoverse_n2: return "neoverse_n2";
    case cpuinfo_uarch_unknown: return "";
    default: return fmt::format("cpuinfo uarch 0x{:08x}", static_cast<unsigned>(u));
  }
}

std::string vendor_name(cpuinfo_vendor v) {
  switch (v) {
    case cpuinfo_vendor_intel: return "Intel";
    case cpuinfo_vendor_amd: return "AMD";
    case cpuinfo_vendor_arm: return "ARM";
    case cpuinfo_vendor_qualcomm: return "Qualcomm";
    case cpuinfo_vendor_apple: return "Apple";
    case cpuinfo_vendor_hygon: return "Hygon";
    default: return "";
  }
}
#endif

/// SMBIOS type-17 (memory device) entries, read without dmidecode. Channels are not in SMBIOS (it
/// lists DIMM slots), so the DRAM peak stays unknown with the reason; what is found goes to the
/// properties. Spec: DMTF SMBIOS 3.x, §7.18 (type 17: speed at offset 15h, configured speed 20h).
void smbios_memory(cpu_description& d, json& props) {
  std::ifstream f("/sys/firmware/dmi/tables/DMI", std::ios::binary);
  if (!f) {
    d.memory_reason = "DRAM channels and transfer rate unknown: DMI/SMBIOS tables not readable "
                      "(/sys/firmware/dmi/tables/DMI absent or not permitted; typical in a VM)";
    return;
  }
  const std::string t((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::size_t i = 0;
  int dimms = 0;
  std::set<int> speeds;
  while (i + 4 <= t.size()) {
    const auto type = static_cast<unsigned char>(t[i]);
    const auto len = static_cast<unsigned char>(t[i + 1]);
    if (len < 4 || i + len > t.size()) break;
    if (type == 17 && len >= 0x17) {
      const auto rd16 = [&](std::size_t off) {
        return static_cast<int>(static_cast<unsigned char>(t[i + off]) | (static_cast<unsigned char>(t[i + off + 1]) << 8));
      };
      const int size = rd16(0x0C);
      if (size != 0 && size != 0xFFFF) {
        ++dimms;
        int speed = len >= 0x22 ? rd16(0x20) : 0;
        if (speed == 0) speed = rd16(0x15);
        if (speed != 0 && speed != 0xFFFF) speeds.insert(speed);
      }
    }
    if (type == 127) break;
    std::size_t j = i + len;  // skip the string set (ends with two NULs)
    while (j + 1 < t.size() && !(t[j] == 0 && t[j + 1] == 0)) ++j;
    i = j + 2;
  }
  props["smbios_dimms"] = dimms;
  if (speeds.size() == 1) {
    d.memory_mt_per_s = *speeds.begin();
    props["smbios_memory_mt_per_s"] = *speeds.begin();
  }
  d.memory_reason = fmt::format(
      "DRAM channel count unknown: SMBIOS lists {} populated DIMM(s){}, not how they map to channels",
      dimms, speeds.size() == 1 ? fmt::format(" at {} MT/s", *speeds.begin()) : std::string(" (speed unknown)"));
}

/// Everything detection reads from the machine (the impure half; resolve_cpu decides from it).
cpu_facts read_facts() {
  cpu_facts f;
  cpu_description& d = f.desc;
  json& p = f.properties;
  f.id = read_cpu_identity();
#ifdef ROOFLINE_HAVE_CPUINFO
  if (cpuinfo_initialize()) {
    const cpuinfo_package* pkg = cpuinfo_get_package(0);
    if (pkg) d.model = pkg->name;
    d.cores = static_cast<int>(cpuinfo_get_cores_count());
    d.threads = static_cast<int>(cpuinfo_get_processors_count());
    if (const cpuinfo_core* c = cpuinfo_get_core(0)) {
      f.cpuinfo_uarch = uarch_name(c->uarch);
      d.vendor = vendor_name(c->vendor);
    }
    if (const cpuinfo_cache* c = cpuinfo_get_l1d_cache(0)) d.l1d_bytes = c->size;
    if (const cpuinfo_cache* c = cpuinfo_get_l2_cache(0))
      d.l2_bytes = static_cast<std::int64_t>(c->size) * cpuinfo_get_l2_caches_count() / std::max(1, d.cores);
    if (const cpuinfo_cache* c = cpuinfo_get_l3_cache(0))
      d.l3_bytes = static_cast<std::int64_t>(c->size) * cpuinfo_get_l3_caches_count();
    p["detected_by"] = "cpuinfo";
  }
#endif
  const std::string proc_model = proc_cpuinfo_field("model name");
  if (!proc_model.empty()) d.model = proc_model;  // the full brand string; cpuinfo's is shortened
  if (d.vendor.empty()) d.vendor = f.id.vendor;
  if (d.threads <= 0) d.threads = static_cast<int>(std::thread::hardware_concurrency());
  // Physical cores: the kernel's topology first (it is what the scheduler uses, and it is right in
  // VMs where an old cpuinfo misreads a newer part's CPUID topology leaves: Debian 12's cpuinfo
  // counts one core on a 2-vCPU Zen 5 guest), cpuinfo's count only where the kernel says nothing.
  if (const int os = os_core_count(); os > 0) {
    if (d.cores > 0 && d.cores != os) p["cpuinfo_cores"] = d.cores;
    d.cores = os;
    p["cores_source"] = "Linux topology (/sys/devices/system/cpu/cpu*/topology or /proc/cpuinfo core id)";
  } else if (d.cores <= 0) {
    d.cores = d.threads;
    p["cores_source"] = "logical processors (no topology readable)";
  }
  if (d.l1d_bytes == 0 && d.l2_bytes == 0 && d.l3_bytes == 0) {
    sysfs_caches(d);
    p["caches_source"] = "sysfs (/sys/devices/system/cpu/cpu0/cache)";
  }
  if (d.l1d_bytes == 0 && d.l2_bytes == 0 && d.l3_bytes == 0) {
    // A VM may hide both cpuinfo's cache leaves and sysfs: glibc reads the legacy CPUID cache
    // leaves (AMD 0x80000005/6, Intel 4). Its L3 is the processor's, which can be several times
    // what these cores share (one CCX of an EPYC): a larger LLC only makes the DRAM sizes larger.
    d.l1d_bytes = std::max(0L, ::sysconf(_SC_LEVEL1_DCACHE_SIZE));
    d.l2_bytes = std::max(0L, ::sysconf(_SC_LEVEL2_CACHE_SIZE));
    d.l3_bytes = std::max(0L, ::sysconf(_SC_LEVEL3_CACHE_SIZE));
    p["caches_source"] = "glibc sysconf(_SC_LEVEL*_CACHE_SIZE): CPUID cache leaves";
  }
  // A VM can report its host's whole L3 (this project's 2-vCPU Zen 5 guest: 508 MiB) where its cores
  // share one CCX's; the L3 sizes the device-memory working sets (4 × the caches per array, STREAM's rule),
  // so a smaller true value is honoured when given. Tests set it so that their runs' sizes do not
  // depend on the host.
  if (const char* v = std::getenv("ROOFLINE_CPU_LLC_BYTES"); v && *v) {
    char* end = nullptr;
    const long long bytes = std::strtoll(v, &end, 10);
    if (!end || *end || bytes <= 0)
      throw input_error("", "ROOFLINE_CPU_LLC_BYTES", fmt::format("'{}': expected the L3 size in bytes, > 0", v));
    if (d.l3_bytes > 0) p["l3_bytes_reported"] = d.l3_bytes;
    d.l3_bytes = bytes;
    p["caches_source"] = p.value("caches_source", std::string("cpuinfo")) + "; L3 from ROOFLINE_CPU_LLC_BYTES";
  }
  if (d.model.empty()) d.model = "unknown CPU";
  f.isa = detect_simd_isa();

  // Clock: cpufreq max when present, else measured.
  if (const double hz = cpufreq_max_hz(); hz > 0) {
    d.clock_hz = hz;
    d.clock_source = "cpufreq max (/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq)";
  } else {
    try {
      timing_options t{3, 50, 400, 0.05, 0.3};
      d.clock_hz = measure_clock_hz(t);
      d.clock_source = "measured: dependent-add chain (one core, best of repeats; no cpufreq in this OS)";
    } catch (const probe_error& e) {
      d.clock_hz = 0;
      d.clock_source = std::string("unknown (no cpufreq; ") + e.what() + ")";
    }
  }
  smbios_memory(d, p);
  if (d.memory_channels && d.memory_mt_per_s) d.memory_source = "detected: SMBIOS";
  if (const double mhz = proc_cpuinfo_mhz_hz(); mhz > 0) p["proc_cpuinfo_mhz"] = mhz / 1e6;
  if (proc_cpuinfo_field("flags").find("hypervisor") != std::string::npos) p["virtualized"] = true;
  return f;
}

}  // namespace

simd_isa detect_simd_isa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {"avx512f", 512, true};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {"avx2+fma", 256, true};
  return {"sse2", 128, false};
#else
  return {"generic", 128, false};
#endif
}

cpu_detection resolve_cpu(const cpu_facts& f, const cpu_overrides& o) {
  cpu_detection r;
  r.desc = f.desc;
  r.properties = f.properties;
  cpu_description& d = r.desc;
  d.isa = f.isa.name;
  d.simd_bits = f.isa.bits;

  // Microarchitecture: the user's word, else the CPUID table, else cpuinfo, else unknown.
  if (!o.uarch.empty()) {
    require_known_uarch(o.uarch);
    d.uarch = o.uarch;
    d.uarch_source = "given by the user (--uarch " + o.uarch + ")";
  } else if (const auto a = uarch_from_identity(f.id)) {
    d.uarch = a->name;
    d.uarch_source = a->source;
  } else if (!f.cpuinfo_uarch.empty()) {
    d.uarch = f.cpuinfo_uarch;
    d.uarch_source = "cpuinfo library (CPUID family/model not in roofline's table)";
  }
  if (o.uarch.empty())
    if (const auto a = uarch_from_features(f.id, d.uarch)) {
      d.uarch = a->name;
      d.uarch_source = a->source;
    }
  r.uarch = d.uarch;
  if (!f.isa.fma) {
    d.fma_units = 0;
    d.fma_units_source = "unknown (" + f.isa.name + " has no FMA instructions: the peak model assumes FMA)";
  } else if (d.uarch.empty()) {
    d.fma_units = 0;
    d.fma_units_source = fmt::format("unknown (microarchitecture not known: CPUID {} family {:#x} model {:#x} is in "
                                     "neither roofline's table nor cpuinfo's; --uarch names it)",
                                     f.id.vendor.empty() ? "?" : f.id.vendor, f.id.family, f.id.model);
  } else {
    const fma_units_answer a = fma_units_for(d.uarch, f.isa.bits, d.model);
    d.fma_units = a.units.value_or(0);
    d.fma_units_source = d.uarch + " [" + d.uarch_source + "]; " + a.source;
  }

  // Memory: the user's word replaces what SMBIOS said (or could not say).
  if (o.memory) {
    d.memory_channels = o.memory->channels;
    d.memory_mt_per_s = o.memory->mt_per_s;
    d.memory_source = "given by the user (--memory " + o.memory->text + ")";
    d.memory_reason.clear();
  }

  json& p = r.properties;
  p["model"] = d.model;
  p["vendor"] = d.vendor;
  p["cpuid"] = {{"vendor", f.id.vendor}, {"family", f.id.family}, {"model", f.id.model}};
  p["uarch"] = d.uarch.empty() ? json(nullptr) : json(d.uarch);
  p["uarch_source"] = d.uarch_source;
  if (!f.cpuinfo_uarch.empty() && f.cpuinfo_uarch != d.uarch) p["cpuinfo_uarch"] = f.cpuinfo_uarch;
  p["cores"] = d.cores;
  p["threads"] = d.threads;
  p["isa"] = d.isa;
  p["simd_bits"] = d.simd_bits;
  p["fma_units"] = d.fma_units > 0 ? json(d.fma_units) : json(nullptr);
  p["fma_units_source"] = d.fma_units_source;
  p["clock_hz"] = d.clock_hz > 0 ? json(d.clock_hz) : json(nullptr);
  p["clock_source"] = d.clock_source;
  p["caches"] = {{"l1d_bytes_per_core", d.l1d_bytes}, {"l2_bytes_per_core", d.l2_bytes}, {"l3_bytes_total", d.l3_bytes}};
  p["memory_channels"] = d.memory_channels ? json(*d.memory_channels) : json(nullptr);
  p["memory_mt_per_s"] = d.memory_mt_per_s ? json(*d.memory_mt_per_s) : json(nullptr);
  if (!d.memory_source.empty()) p["memory_source"] = d.memory_source;
  if (!d.memory_reason.empty()) p["memory_reason"] = d.memory_reason;
  return r;
}

const cpu_facts& cpu_facts_cached() {
  static std::once_flag once;
  static cpu_facts cached;
  std::call_once(once, [] { cached = read_facts(); });
  return cached;
}

const cpu_detection& detect_cpu() {
  static std::once_flag once;
  static cpu_detection cached;
  std::call_once(once, [] { cached = resolve_cpu(cpu_facts_cached()); });
  return cached;
}

}  // namespace roofline::cpu
