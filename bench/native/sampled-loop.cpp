// The fair anchor for Spark's decode speed: llama.cpp's own sampled generation loop (as in
// examples/simple and llama-cli: a persistent ggml threadpool attached, decode then sample with a
// sampler chain), built at bench time against node-llama-cpp's prebuilt libllama.
//
// Usage: sampled-loop --model file.gguf --backends <dir> --threads N --tokens N
//                     --prompt-tokens 1,2,3 [--temperature T] [--top-k K] [--top-p P] [--seed S]
//                     [--backend-sampling 1] [--gpu-layers N]
// Prints one JSON line: {"decodeTokensPerSecond": ..., "outputTokens": ..., "promptTokens": ...}.
// The chain is Spark's (node-llama-cpp's): greedy at temperature <= 0, otherwise
// top-k -> top-p -> temperature -> dist(seed). --backend-sampling 1 runs that chain on llama.cpp's
// backend (llama_set_sampler, as llama-cli's --backend-sampling), greedy as llama.cpp's own
// backend greedy (ggml_argmax).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "llama.h"

namespace {

struct Arguments {
    std::string model;
    std::string backends;
    int threads = 1;
    int gpu_layers = 0;
    int tokens = 256;
    int context = 2048;
    float temperature = 0.0f;
    int top_k = 40;
    float top_p = 0.95f;
    uint32_t seed = 1;
    bool threadpool = true;
    bool backend_sampling = false;
    std::vector<llama_token> prompt;
};

std::vector<llama_token> parse_tokens(const std::string & list) {
    std::vector<llama_token> tokens;
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ',')) {
        if (!item.empty()) tokens.push_back(static_cast<llama_token>(std::stoi(item)));
    }
    return tokens;
}

bool parse(int argc, char ** argv, Arguments & arguments) {
    for (int index = 1; index + 1 < argc; index += 2) {
        const std::string name = argv[index];
        const std::string value = argv[index + 1];
        if (name == "--model") arguments.model = value;
        else if (name == "--backends") arguments.backends = value;
        else if (name == "--threads") arguments.threads = std::stoi(value);
        else if (name == "--gpu-layers") arguments.gpu_layers = std::stoi(value);
        else if (name == "--tokens") arguments.tokens = std::stoi(value);
        else if (name == "--context") arguments.context = std::stoi(value);
        else if (name == "--temperature") arguments.temperature = std::stof(value);
        else if (name == "--top-k") arguments.top_k = std::stoi(value);
        else if (name == "--top-p") arguments.top_p = std::stof(value);
        else if (name == "--seed") arguments.seed = static_cast<uint32_t>(std::stoul(value));
        else if (name == "--threadpool") arguments.threadpool = value != "0";
        else if (name == "--backend-sampling") arguments.backend_sampling = value != "0";
        else if (name == "--prompt-tokens") arguments.prompt = parse_tokens(value);
        else {
            fprintf(stderr, "unknown argument %s\n", name.c_str());
            return false;
        }
    }
    return !arguments.model.empty() && !arguments.prompt.empty() && arguments.tokens > 1;
}

llama_sampler * make_sampler(const Arguments & arguments, const llama_vocab * vocab) {
    llama_sampler * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    if (arguments.temperature <= 0.0f) {
        llama_sampler_chain_add(chain, llama_sampler_init_greedy());
        return chain;
    }
    const int vocabulary = llama_vocab_n_tokens(vocab);
    const int top_k = arguments.top_k <= 0 ? vocabulary : std::min(arguments.top_k, vocabulary);
    llama_sampler_chain_add(chain, llama_sampler_init_top_k(top_k));
    llama_sampler_chain_add(chain, llama_sampler_init_top_p(arguments.top_p, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_temp(arguments.temperature));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(arguments.seed));
    return chain;
}

void quiet_log(ggml_log_level level, const char * text, void *) {
    if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

}  // namespace

int main(int argc, char ** argv) {
    Arguments arguments;
    if (!parse(argc, argv, arguments)) {
        fprintf(stderr, "usage: sampled-loop --model file.gguf --backends dir --prompt-tokens 1,2 [--threads N] [--tokens N] [--gpu-layers N]\n");
        return 2;
    }
    llama_log_set(quiet_log, nullptr);
    if (arguments.backends.empty()) ggml_backend_load_all();
    else ggml_backend_load_all_from_path(arguments.backends.c_str());

    llama_model_params model_params = llama_model_default_params();
    model_params.n_gpu_layers = arguments.gpu_layers;
    llama_model * model = llama_model_load_from_file(arguments.model.c_str(), model_params);
    if (model == nullptr) {
        fprintf(stderr, "could not load %s\n", arguments.model.c_str());
        return 1;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    llama_context_params context_params = llama_context_default_params();
    context_params.n_ctx = static_cast<uint32_t>(arguments.context);
    context_params.n_batch = 512;
    context_params.n_seq_max = 1;
    context_params.n_threads = arguments.threads;
    context_params.n_threads_batch = arguments.threads;
    context_params.no_perf = true;
    llama_context * context = llama_init_from_model(model, context_params);
    if (context == nullptr) {
        fprintf(stderr, "could not create a context\n");
        return 1;
    }

    // As llama-cli (common_init_from_params) and llama-bench do: one persistent threadpool.
    ggml_threadpool * threadpool = nullptr;
    decltype(ggml_threadpool_free) * threadpool_free = nullptr;
    if (arguments.threadpool) {
        ggml_backend_dev_t cpu_device = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
        ggml_backend_reg_t cpu_registry = cpu_device == nullptr ? nullptr : ggml_backend_dev_backend_reg(cpu_device);
        if (cpu_registry != nullptr) {
            auto * threadpool_new = (decltype(ggml_threadpool_new) *) ggml_backend_reg_get_proc_address(cpu_registry, "ggml_threadpool_new");
            threadpool_free = (decltype(ggml_threadpool_free) *) ggml_backend_reg_get_proc_address(cpu_registry, "ggml_threadpool_free");
            ggml_threadpool_params parameters = ggml_threadpool_params_default(arguments.threads);
            if (threadpool_new != nullptr) threadpool = threadpool_new(&parameters);
            if (threadpool != nullptr) llama_attach_threadpool(context, threadpool, nullptr);
        }
    }

    llama_sampler * sampler = make_sampler(arguments, vocab);
    // llama_sampler_sample then returns the token the backend sampled.
    if (arguments.backend_sampling && !llama_set_sampler(context, 0, sampler)) {
        fprintf(stderr, "the backend cannot run the sampler chain\n");
        return 1;
    }
    llama_batch batch = llama_batch_get_one(arguments.prompt.data(), static_cast<int32_t>(arguments.prompt.size()));
    using clock = std::chrono::steady_clock;
    clock::time_point first;
    clock::time_point last;
    // CPU time too: on a shared machine wall time says how much CPU the process was given, CPU
    // time what each token cost.
    timespec cpu_first{};
    timespec cpu_last{};
    llama_token token = 0;
    int produced = 0;
    // Where a step's time goes after the first token: llama_decode, then the sampler chain.
    double decode_seconds = 0;
    double sample_seconds = 0;
    while (produced < arguments.tokens) {
        const clock::time_point decode_start = clock::now();
        if (llama_decode(context, batch) != 0) {
            fprintf(stderr, "decode failed after %d tokens\n", produced);
            return 1;
        }
        const clock::time_point sample_start = clock::now();
        token = llama_sampler_sample(sampler, context, -1);
        if (produced > 0) {
            decode_seconds += std::chrono::duration<double>(sample_start - decode_start).count();
            sample_seconds += std::chrono::duration<double>(clock::now() - sample_start).count();
        }
        produced += 1;
        last = clock::now();
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu_last);
        if (produced == 1) {
            first = last;
            cpu_first = cpu_last;
        }
        if (llama_vocab_is_eog(vocab, token)) break;
        batch = llama_batch_get_one(&token, 1);
    }
    const double seconds = std::chrono::duration<double>(last - first).count();
    const double cpu_seconds = (cpu_last.tv_sec - cpu_first.tv_sec) + (cpu_last.tv_nsec - cpu_first.tv_nsec) / 1e9;
    const int steps = produced > 1 ? produced - 1 : 1;
    printf("{\"decodeTokensPerSecond\":%.3f,\"cpuMicrosecondsPerToken\":%.3f,\"decodeMicrosecondsPerToken\":%.3f,"
           "\"sampleMicrosecondsPerToken\":%.3f,\"outputTokens\":%d,\"promptTokens\":%zu,\"threadpool\":%s,\"backendSampling\":%s}\n",
           seconds > 0 ? (produced - 1) / seconds : 0.0, cpu_seconds * 1e6 / steps, decode_seconds * 1e6 / steps,
           sample_seconds * 1e6 / steps, produced, arguments.prompt.size(), threadpool != nullptr ? "true" : "false",
           arguments.backend_sampling ? "true" : "false");

    llama_sampler_free(sampler);
    llama_free(context);
    if (threadpool != nullptr && threadpool_free != nullptr) threadpool_free(threadpool);
    llama_model_free(model);
    return 0;
}
