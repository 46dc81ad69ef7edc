#include "prefill/gpu_bench.hpp"

#include "prefill/flop_model.hpp"
#include "prefill/gpu_module_abi.h"

#include <fmt/format.h>

#include <cstdint>
#include <dlfcn.h>
#include <filesystem>
#include <system_error>

namespace cachewise::prefill {

namespace {

constexpr const char* k_module_name = "cachewise-cuda.so";

// The module's entry point, or why there is none. The library is never
// closed: the CUDA runtime registers exit handlers that must outlive it.
struct LoadedModule {
    cw_gpu_bench_fn entry = nullptr;
    std::string error;
};

std::vector<std::filesystem::path>
module_candidates()
{
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        out.push_back(self.parent_path() / k_module_name);
#ifdef CACHEWISE_MODULE_LIBDIR
        // An installed tree moved elsewhere (cmake --install --prefix P).
        out.push_back(self.parent_path().parent_path() / CACHEWISE_MODULE_LIBDIR / "cachewise" /
                      k_module_name);
#endif
    }
#ifdef CACHEWISE_MODULE_DIR
    out.push_back(std::filesystem::path(CACHEWISE_MODULE_DIR) / k_module_name);
#endif
    return out;
}

LoadedModule
load_module()
{
    LoadedModule module;
    std::string tried;
    for (const auto& path : module_candidates()) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            tried += (tried.empty() ? "" : ", ") + path.string();
            continue;
        }
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            module.error =
                fmt::format("the CUDA module {} cannot be loaded: {}", path.string(), dlerror());
            return module;
        }
        module.entry = reinterpret_cast<cw_gpu_bench_fn>(dlsym(handle, CACHEWISE_GPU_MODULE_ENTRY));
        if (module.entry == nullptr) {
            module.error = fmt::format("{} is not a cachewise CUDA module (no {})", path.string(),
                                       CACHEWISE_GPU_MODULE_ENTRY);
        }
        return module;
    }
    module.error =
        fmt::format("the CUDA module {} was not found (looked for {})", k_module_name, tried);
    return module;
}

const LoadedModule&
module()
{
    static const LoadedModule loaded = load_module();
    return loaded;
}

// The profile of the module's timings: FLOPs and rates from the FLOP model.
Profile
measured_profile(const BenchRequest& request, const cw_gpu_bench_result& result,
                 const std::vector<cw_gpu_bench_point>& points)
{
    const FlopModel flops(request.model);
    Profile p;
    p.gpu = result.gpu;
    p.driver = result.driver;
    p.model = request.model.id;
    p.dtype = request.bf16 ? "bf16" : "fp16";
    p.model_layers = request.model.layers;
    p.layers_benchmarked = request.layers;
    p.measured = true;
    p.max_relative_error = result.max_relative_error;
    for (std::size_t i = 0; i < points.size(); ++i) {
        ProfilePoint point;
        point.tokens = request.tokens[i];
        point.projection_seconds = points[i].projection_seconds;
        point.attention_seconds = points[i].attention_seconds;
        point.seconds_per_layer = point.projection_seconds + point.attention_seconds;
        point.tflops = flops.full_layer_flops(point.tokens) / point.seconds_per_layer / 1e12;
        point.fraction_of_peak = request.peak_tflops > 0 ? point.tflops / request.peak_tflops : 0;
        p.points.push_back(point);
    }
    p.fit();
    return p;
}

} // namespace

bool
gpu_module_built()
{
#ifdef CACHEWISE_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

BenchOutcome
run_gpu_bench(const BenchRequest& request)
{
    BenchOutcome outcome;
    const auto& loaded = module();
    if (loaded.entry == nullptr) {
        outcome.status = BenchOutcome::Status::unavailable;
        outcome.message = loaded.error;
        return outcome;
    }
    const FlopModel flops(request.model);
    std::vector<cw_gemm_shape> gemms;
    for (const auto& g : flops.projection_gemms()) {
        gemms.push_back({g.in, g.out});
    }
    const std::vector<std::int32_t> tokens(request.tokens.begin(), request.tokens.end());
    const auto& m = request.model;
    const cw_gpu_bench_request abi_request{CACHEWISE_GPU_MODULE_ABI,
                                           gemms.data(),
                                           static_cast<std::uint32_t>(gemms.size()),
                                           m.heads,
                                           m.kv_heads,
                                           m.head_dim,
                                           tokens.data(),
                                           static_cast<std::uint32_t>(tokens.size()),
                                           request.bf16 ? 1 : 0,
                                           request.layers,
                                           request.repeats};
    std::vector<cw_gpu_bench_point> points(tokens.size());
    cw_gpu_bench_result result{};
    result.points = points.data();
    loaded.entry(&abi_request, &result);
    result.message[sizeof(result.message) - 1] = '\0';
    result.gpu[sizeof(result.gpu) - 1] = '\0';
    result.driver[sizeof(result.driver) - 1] = '\0';
    outcome.message = result.message;
    if (result.status == CW_GPU_BENCH_NO_DEVICE) {
        outcome.status = BenchOutcome::Status::unavailable;
    } else if (result.status != CW_GPU_BENCH_OK) {
        outcome.status = BenchOutcome::Status::failed;
    } else {
        outcome.status = BenchOutcome::Status::ok;
        outcome.profile = measured_profile(request, result, points);
    }
    return outcome;
}

} // namespace cachewise::prefill
