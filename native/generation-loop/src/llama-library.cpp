// Forwarders for the llama.cpp functions the addon calls, resolved with dlsym through the binding
// node-llama-cpp loaded. Linking libllama instead bound the addon to one package's file names
// (libllama.v0.5.0.so): where node-llama-cpp had loaded CUDA's or Vulkan's libllama.<gpu>.v0.5.0.so,
// a second, CPU-only libllama came in with an empty backend registry and the loop could not load.
// Each forwarder's signature is checked by the compiler against llama.h / ggml's headers.
#include "llama-library.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "ggml-backend.h"
#include "ggml.h"
#include "llama.h"

// (return type, name, parameters, arguments)
#define SPARK_LLAMA_FUNCTIONS(X)                                                                                         \
    X(llama_model_params, llama_model_default_params, (), ())                                                            \
    X(llama_context_params, llama_context_default_params, (), ())                                                        \
    X(llama_sampler_chain_params, llama_sampler_chain_default_params, (), ())                                            \
    X(llama_model *, llama_model_load_from_file, (const char * path, llama_model_params params), (path, params))         \
    X(void, llama_model_free, (llama_model * model), (model))                                                            \
    X(const llama_vocab *, llama_model_get_vocab, (const llama_model * model), (model))                                  \
    X(bool, llama_model_is_recurrent, (const llama_model * model), (model))                                              \
    X(bool, llama_model_is_hybrid, (const llama_model * model), (model))                                                 \
    X(llama_context *, llama_init_from_model, (llama_model * model, llama_context_params params), (model, params))       \
    X(void, llama_free, (llama_context * context), (context))                                                            \
    X(void, llama_attach_threadpool, (llama_context * context, ggml_threadpool_t pool, ggml_threadpool_t batch_pool),   \
      (context, pool, batch_pool))                                                                                       \
    X(llama_memory_t, llama_get_memory, (const llama_context * context), (context))                                      \
    X(bool, llama_memory_seq_rm, (llama_memory_t memory, llama_seq_id sequence, llama_pos from, llama_pos to),          \
      (memory, sequence, from, to))                                                                                      \
    X(size_t, llama_state_seq_get_size, (llama_context * context, llama_seq_id sequence), (context, sequence))            \
    X(size_t, llama_state_seq_get_data, (llama_context * context, uint8_t * destination, size_t size, llama_seq_id sequence), \
      (context, destination, size, sequence))                                                                            \
    X(size_t, llama_state_seq_set_data, (llama_context * context, const uint8_t * source, size_t size, llama_seq_id sequence), \
      (context, source, size, sequence))                                                                                 \
    X(llama_batch, llama_batch_init, (int32_t tokens, int32_t embeddings, int32_t sequences),                           \
      (tokens, embeddings, sequences))                                                                                   \
    X(void, llama_batch_free, (llama_batch batch), (batch))                                                              \
    X(int32_t, llama_decode, (llama_context * context, llama_batch batch), (context, batch))                            \
    X(float *, llama_get_logits_ith, (llama_context * context, int32_t index), (context, index))                        \
    X(int32_t, llama_vocab_n_tokens, (const llama_vocab * vocab), (vocab))                                               \
    X(bool, llama_vocab_is_eog, (const llama_vocab * vocab, llama_token token), (vocab, token))                         \
    X(llama_sampler *, llama_sampler_chain_init, (llama_sampler_chain_params params), (params))                         \
    X(void, llama_sampler_chain_add, (llama_sampler * chain, llama_sampler * sampler), (chain, sampler))                \
    X(llama_sampler *, llama_sampler_init_top_k, (int32_t k), (k))                                                       \
    X(llama_sampler *, llama_sampler_init_top_p, (float p, size_t min_keep), (p, min_keep))                             \
    X(llama_sampler *, llama_sampler_init_min_p, (float p, size_t min_keep), (p, min_keep))                             \
    X(llama_sampler *, llama_sampler_init_temp, (float temperature), (temperature))                                     \
    X(llama_sampler *, llama_sampler_init_dist, (uint32_t seed), (seed))                                                 \
    X(llama_sampler *, llama_sampler_init_grammar, (const llama_vocab * vocab, const char * text, const char * root),   \
      (vocab, text, root))                                                                                               \
    X(llama_sampler *, llama_sampler_init_grammar_lazy_patterns,                                                        \
      (const llama_vocab * vocab, const char * text, const char * root, const char ** trigger_patterns,                 \
       size_t trigger_pattern_count, const llama_token * trigger_tokens, size_t trigger_token_count),                  \
      (vocab, text, root, trigger_patterns, trigger_pattern_count, trigger_tokens, trigger_token_count))                \
    X(void, llama_sampler_apply, (llama_sampler * sampler, llama_token_data_array * candidates), (sampler, candidates)) \
    X(void, llama_sampler_accept, (llama_sampler * sampler, llama_token token), (sampler, token))                       \
    X(void, llama_sampler_free, (llama_sampler * sampler), (sampler))                                                    \
    X(llama_sampler *, llama_sampler_init, (llama_sampler_i * interface, llama_sampler_context_t state), (interface, state)) \
    X(const char *, llama_sampler_name, (const llama_sampler * sampler), (sampler))                                    \
    X(void, llama_sampler_reset, (llama_sampler * sampler), (sampler))                                                   \
    X(llama_sampler *, llama_sampler_chain_get, (llama_sampler * chain, int32_t index), (chain, index))                 \
    X(int32_t, llama_sampler_chain_n, (const llama_sampler * chain), (chain))                                            \
    X(bool, llama_set_sampler, (llama_context * context, llama_seq_id sequence, llama_sampler * sampler),               \
      (context, sequence, sampler))                                                                                      \
    X(llama_token, llama_get_sampled_token_ith, (llama_context * context, int32_t index), (context, index))             \
    X(void, llama_synchronize, (llama_context * context), (context))                                                     \
    X(ggml_backend_dev_t, ggml_backend_buft_get_device, (ggml_backend_buffer_type_t type), (type))                       \
    X(bool, ggml_backend_dev_supports_op, (ggml_backend_dev_t device, const ggml_tensor * op), (device, op))            \
    X(ggml_context *, ggml_init, (ggml_init_params parameters), (parameters))                                            \
    X(void, ggml_free, (ggml_context * context), (context))                                                              \
    X(size_t, ggml_tensor_overhead, (), ())                                                                              \
    X(size_t, ggml_graph_overhead_custom, (size_t size, bool grads), (size, grads))                                      \
    X(ggml_cgraph *, ggml_new_graph_custom, (ggml_context * context, size_t size, bool grads), (context, size, grads))  \
    X(int, ggml_graph_n_nodes, (ggml_cgraph * graph), (graph))                                                           \
    X(ggml_tensor *, ggml_graph_node, (ggml_cgraph * graph, int index), (graph, index))                                  \
    X(void, ggml_build_forward_expand, (ggml_cgraph * graph, ggml_tensor * tensor), (graph, tensor))                    \
    X(ggml_tensor *, ggml_new_tensor_1d, (ggml_context * context, enum ggml_type type, int64_t size),                  \
      (context, type, size))                                                                                             \
    X(int64_t, ggml_nelements, (const ggml_tensor * tensor), (tensor))                                                   \
    X(ggml_tensor *, ggml_reshape_1d, (ggml_context * context, ggml_tensor * a, int64_t size), (context, a, size))      \
    X(ggml_tensor *, ggml_reshape_2d, (ggml_context * context, ggml_tensor * a, int64_t size0, int64_t size1),         \
      (context, a, size0, size1))                                                                                        \
    X(ggml_tensor *, ggml_argmax, (ggml_context * context, ggml_tensor * a), (context, a))                              \
    X(ggml_tensor *, ggml_get_rows, (ggml_context * context, ggml_tensor * a, ggml_tensor * rows), (context, a, rows))  \
    X(ggml_tensor *, ggml_sub, (ggml_context * context, ggml_tensor * a, ggml_tensor * b), (context, a, b))             \
    X(ggml_tensor *, ggml_scale, (ggml_context * context, ggml_tensor * a, float scale), (context, a, scale))           \
    X(ggml_tensor *, ggml_scale_bias, (ggml_context * context, ggml_tensor * a, float scale, float bias),               \
      (context, a, scale, bias))                                                                                         \
    X(ggml_tensor *, ggml_step, (ggml_context * context, ggml_tensor * a), (context, a))                                \
    X(ggml_tensor *, ggml_cumsum, (ggml_context * context, ggml_tensor * a), (context, a))                              \
    X(ggml_tensor *, ggml_sum, (ggml_context * context, ggml_tensor * a), (context, a))                                 \
    X(ggml_tensor *, ggml_cast, (ggml_context * context, ggml_tensor * a, enum ggml_type type), (context, a, type))     \
    X(llama_sampler *, llama_sampler_clone, (const llama_sampler * sampler), (sampler))                                 \
    X(int32_t, llama_token_to_piece,                                                                                     \
      (const llama_vocab * vocab, llama_token token, char * buffer, int32_t length, int32_t lstrip, bool special),        \
      (vocab, token, buffer, length, lstrip, special))                                                                   \
    X(ggml_threadpool_params, ggml_threadpool_params_default, (int threads), (threads))                                 \
    X(size_t, ggml_backend_dev_count, (), ())                                                                            \
    X(ggml_backend_dev_t, ggml_backend_dev_get, (size_t index), (index))                                                 \
    X(ggml_backend_dev_t, ggml_backend_dev_by_type, (enum ggml_backend_dev_type type), (type))                           \
    X(const char *, ggml_backend_dev_name, (ggml_backend_dev_t device), (device))                                        \
    X(const char *, ggml_backend_dev_description, (ggml_backend_dev_t device), (device))                                 \
    X(enum ggml_backend_dev_type, ggml_backend_dev_type, (ggml_backend_dev_t device), (device))                          \
    X(ggml_backend_reg_t, ggml_backend_dev_backend_reg, (ggml_backend_dev_t device), (device))                           \
    X(void *, ggml_backend_reg_get_proc_address, (ggml_backend_reg_t registry, const char * name), (registry, name))

namespace {

struct LlamaFunctions {
#define SPARK_POINTER(result, name, parameters, arguments) result(*name) parameters = nullptr;
    SPARK_LLAMA_FUNCTIONS(SPARK_POINTER)
#undef SPARK_POINTER
};

// Written once on the JS thread before any context exists (bound_ is released after); the decode
// threads start later and only read it.
LlamaFunctions functions;
std::atomic<bool> bound{false};
std::mutex bind_mutex;
LlamaLibraryBinding current;

std::string library_of(void * address) {
    Dl_info info{};
    if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
    return info.dli_fname;
}

}  // namespace

std::string bind_llama_library(const std::string & binding_path, LlamaLibraryBinding & binding) {
    std::lock_guard<std::mutex> lock(bind_mutex);
    // RTLD_NOLOAD: only a binding node-llama-cpp already loaded counts; nothing new is mapped.
    void * handle = dlopen(binding_path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (handle == nullptr) {
        const char * reason = dlerror();
        return "node-llama-cpp's binding " + binding_path + " is not loaded in this process" +
               (reason == nullptr ? std::string() : std::string(" (") + reason + ")");
    }
    // dlsym on the binding's handle searches it and the libraries it depends on, in its load order:
    // the libllama and libggml node-llama-cpp itself calls.
    LlamaFunctions resolved;
    std::string missing;
#define SPARK_RESOLVE(result, name, parameters, arguments)                                       \
    resolved.name = reinterpret_cast<decltype(resolved.name)>(dlsym(handle, #name));             \
    if (resolved.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + #name;
    SPARK_LLAMA_FUNCTIONS(SPARK_RESOLVE)
#undef SPARK_RESOLVE
    // The binding stays loaded for the life of the process (Node never unloads addons); this only
    // drops the reference dlopen just took.
    dlclose(handle);
    if (!missing.empty()) {
        return "node-llama-cpp's binding " + binding_path + " does not lead to llama.cpp's " + missing +
               " (a llama.cpp release other than the one the native loop was built for?)";
    }
    LlamaLibraryBinding found;
    found.llama_library = library_of(reinterpret_cast<void *>(resolved.llama_decode));
    found.ggml_library = library_of(reinterpret_cast<void *>(resolved.ggml_backend_dev_count));
    if (bound.load(std::memory_order_acquire)) {
        if (resolved.llama_decode != functions.llama_decode || resolved.ggml_backend_dev_count != functions.ggml_backend_dev_count) {
            return "the native loop is already bound to " + current.llama_library + " in this process; " +
                   "node-llama-cpp's binding " + binding_path + " uses " + found.llama_library;
        }
        binding = current;
        return "";
    }
    functions = resolved;
    current = found;
    bound.store(true, std::memory_order_release);
    binding = found;
    return "";
}

bool llama_library_bound() { return bound.load(std::memory_order_acquire); }

std::vector<LlamaBackendDevice> llama_backend_devices() {
    std::vector<LlamaBackendDevice> devices;
    if (!llama_library_bound()) return devices;
    const size_t count = functions.ggml_backend_dev_count();
    for (size_t index = 0; index < count; index++) {
        ggml_backend_dev_t device = functions.ggml_backend_dev_get(index);
        const char * name = functions.ggml_backend_dev_name(device);
        const char * description = functions.ggml_backend_dev_description(device);
        const char * type = "cpu";
        switch (functions.ggml_backend_dev_type(device)) {
            case GGML_BACKEND_DEVICE_TYPE_GPU: type = "gpu"; break;
            case GGML_BACKEND_DEVICE_TYPE_IGPU: type = "igpu"; break;
            case GGML_BACKEND_DEVICE_TYPE_ACCEL: type = "accel"; break;
            default: break;
        }
        devices.push_back({name == nullptr ? "" : name, description == nullptr ? "" : description, type});
    }
    return devices;
}

// The definitions llama.h and ggml's headers declare, each forwarding to the bound library. Hidden
// (-fvisibility=hidden): nothing outside the addon can bind to them.
extern "C" {
#define SPARK_FORWARD(result, name, parameters, arguments) \
    result name parameters { return functions.name arguments; }
SPARK_LLAMA_FUNCTIONS(SPARK_FORWARD)
#undef SPARK_FORWARD
}
