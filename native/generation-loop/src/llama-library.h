// Which llama.cpp this addon calls: the very libllama/libggml that node-llama-cpp's binding loaded
// in this process (CPU, CUDA, Vulkan or a local build), found at run time. The addon links no
// llama.cpp library: every llama_*/ggml_* function it calls is a forwarder resolved by bind.
#pragma once

#include <string>
#include <vector>

struct LlamaBackendDevice {
    std::string name;
    std::string description;
    /** "cpu", "gpu", "igpu" or "accel", as ggml types it. */
    std::string type;
};

struct LlamaLibraryBinding {
    /** The library llama_decode was resolved from (dladdr), e.g. .../libllama.cuda.v0.5.0.so. */
    std::string llama_library;
    /** The one ggml_backend_dev_count came from: it holds the backend registry. */
    std::string ggml_library;
};

/**
 * Resolves every function through `binding_path`, node-llama-cpp's llama-addon.node, which must
 * already be loaded (so the search covers exactly the libraries it uses). Binding again to the
 * same libraries succeeds; to others fails (a second libllama's registry would be empty). Returns
 * an error message, empty on success. Call on the JS thread.
 */
std::string bind_llama_library(const std::string & binding_path, LlamaLibraryBinding & binding);

/** Whether bind_llama_library succeeded: until then no llama.cpp function may be called. */
bool llama_library_bound();

/** The devices in the bound libggml's backend registry (empty: llama.cpp has no backend loaded). */
std::vector<LlamaBackendDevice> llama_backend_devices();
