// The N-API surface: `bindLlama(bindingPath)` (which llama.cpp to call: node-llama-cpp's loaded
// binding; required before any load), `backendDevices()`, `new GenerationContext()`,
// `load(options)` (a promise; the model loads off the JS thread), `generate(options, onTokens)`
// returning `{abort(), draft(tokens)}` (it throws when the options' grammar does not parse) and
// `saveSequence(sequence, maxBytes, answer)` / `restoreSequence(sequence, buffer, answer)` (a
// sequence's KV state for the prefix cache on disk, on the decode thread) and `dispose()`;
// `mapFile(path, offset, length)` maps a saved state for restoreSequence (mapped-file.cpp).
#include <memory>
#include <string>
#include <vector>

#include <napi.h>

#include "generation-context.h"
#include "llama-library.h"
#include "mapped-file.h"

namespace {

Napi::Array devices_array(Napi::Env env) {
    const std::vector<LlamaBackendDevice> devices = llama_backend_devices();
    Napi::Array array = Napi::Array::New(env, devices.size());
    for (size_t index = 0; index < devices.size(); index++) {
        Napi::Object device = Napi::Object::New(env);
        device.Set("name", devices[index].name);
        device.Set("description", devices[index].description);
        device.Set("type", devices[index].type);
        array.Set(static_cast<uint32_t>(index), device);
    }
    return array;
}

/** bindLlama(bindingPath): {llamaLibrary, ggmlLibrary, devices}; throws with the reason. */
Napi::Value BindLlama(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    if (!info[0].IsString()) {
        Napi::TypeError::New(env, "bindLlama takes the path of node-llama-cpp's loaded binding").ThrowAsJavaScriptException();
        return env.Undefined();
    }
    LlamaLibraryBinding binding;
    const std::string error = bind_llama_library(info[0].As<Napi::String>().Utf8Value(), binding);
    if (!error.empty()) {
        Napi::Error::New(env, error).ThrowAsJavaScriptException();
        return env.Undefined();
    }
    Napi::Object result = Napi::Object::New(env);
    result.Set("llamaLibrary", binding.llama_library);
    result.Set("ggmlLibrary", binding.ggml_library);
    result.Set("devices", devices_array(env));
    return result;
}

Napi::Value BackendDevices(const Napi::CallbackInfo & info) { return devices_array(info.Env()); }

int32_t integer_option(const Napi::Object & options, const char * name, int32_t fallback) {
    Napi::Value value = options.Get(name);
    return value.IsNumber() ? value.As<Napi::Number>().Int32Value() : fallback;
}

// Seeds are whole numbers up to 2^32: read through a float they would lose their low bits above
// 2^24, so nearby seeds would sample the same text.
uint32_t unsigned_option(const Napi::Object & options, const char * name, uint32_t fallback) {
    Napi::Value value = options.Get(name);
    return value.IsNumber() ? value.As<Napi::Number>().Uint32Value() : fallback;
}

float float_option(const Napi::Object & options, const char * name, float fallback) {
    Napi::Value value = options.Get(name);
    return value.IsNumber() ? value.As<Napi::Number>().FloatValue() : fallback;
}

std::vector<llama_token> tokens_option(const Napi::Value & value) {
    if (!value.IsTypedArray()) return {};
    Napi::Uint32Array array = value.As<Napi::Uint32Array>();
    return std::vector<llama_token>(array.Data(), array.Data() + array.ElementLength());
}

/**
 * A lazy grammar's reasoning tags (thinkingStart, thinkingEnds: token ids, as llama-server
 * tokenizes reasoning_budget_start_tag and _end_tags) and the generation prompt the gate reads
 * first (thinkingPrefill: a prompt ending `<think>\n` opens the block, as common_sampler_init).
 */
void read_thinking_gate(const Napi::Object & options, ThinkingGate & gate) {
    std::vector<llama_token> start = tokens_option(options.Get("thinkingStart"));
    if (start.empty() || !options.Get("thinkingEnds").IsArray()) return;
    Napi::Array ends = options.Get("thinkingEnds").As<Napi::Array>();
    for (uint32_t index = 0; index < ends.Length(); index++) {
        std::vector<llama_token> end = tokens_option(ends.Get(index));
        if (!end.empty()) gate.ends.push_back(std::move(end));
    }
    if (gate.ends.empty()) return;
    gate.starts.push_back(std::move(start));
    for (const llama_token token : tokens_option(options.Get("thinkingPrefill"))) gate.advance(token);
}

class LoadWorker : public Napi::AsyncWorker {
  public:
    LoadWorker(Napi::Env env, std::shared_ptr<GenerationContext> context, ContextOptions options)
        : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), context_(std::move(context)), options_(std::move(options)) {}

    Napi::Promise promise() { return deferred_.Promise(); }

  protected:
    void Execute() override {
        const std::string error = context_->load(options_);
        if (!error.empty()) SetError(error);
    }
    void OnOK() override {
        context_->start();
        deferred_.Resolve(Env().Undefined());
    }
    void OnError(const Napi::Error & error) override { deferred_.Reject(error.Value()); }

  private:
    Napi::Promise::Deferred deferred_;
    std::shared_ptr<GenerationContext> context_;
    ContextOptions options_;
};

class GenerationContextWrap : public Napi::ObjectWrap<GenerationContextWrap> {
  public:
    static Napi::Function Define(Napi::Env env) {
        return DefineClass(env, "GenerationContext",
                           {
                               InstanceMethod<&GenerationContextWrap::Load>("load"),
                               InstanceMethod<&GenerationContextWrap::Generate>("generate"),
                               InstanceMethod<&GenerationContextWrap::SaveSequence>("saveSequence"),
                               InstanceMethod<&GenerationContextWrap::RestoreSequence>("restoreSequence"),
                               InstanceMethod<&GenerationContextWrap::Dispose>("dispose"),
                           });
    }

    explicit GenerationContextWrap(const Napi::CallbackInfo & info)
        : Napi::ObjectWrap<GenerationContextWrap>(info), context_(std::make_shared<GenerationContext>()), env_(info.Env()) {
        // A process that exits without dispose() must still stop the decode thread first. Raw
        // N-API: node-addon-api's CleanupHook frees its data both when it runs and on Remove().
        napi_add_env_cleanup_hook(env_, DisposeAtExit, context_.get());
    }

    ~GenerationContextWrap() override {
        napi_remove_env_cleanup_hook(env_, DisposeAtExit, context_.get());
        context_->dispose();
    }

  private:
    Napi::Value Load(const Napi::CallbackInfo & info) {
        // Every llama.cpp call goes through the bound library: unbound, there is nothing to call.
        if (!llama_library_bound()) {
            Napi::Error::New(info.Env(), "the native loop is not bound to node-llama-cpp's llama.cpp (bindLlama)").ThrowAsJavaScriptException();
            return info.Env().Undefined();
        }
        Napi::Object options = info[0].As<Napi::Object>();
        ContextOptions parsed;
        parsed.model_path = options.Get("modelPath").As<Napi::String>().Utf8Value();
        parsed.context_size = integer_option(options, "contextSize", parsed.context_size);
        parsed.sequences = integer_option(options, "sequences", parsed.sequences);
        parsed.threads = integer_option(options, "threads", parsed.threads);
        parsed.batch_size = integer_option(options, "batchSize", parsed.batch_size);
        parsed.gpu_layers = integer_option(options, "gpuLayers", parsed.gpu_layers);
        Napi::Value flash_attention = options.Get("flashAttention");
        if (flash_attention.IsBoolean()) parsed.flash_attention = flash_attention.As<Napi::Boolean>().Value() ? 1 : 0;
        Napi::Value device_sampling = options.Get("deviceSampling");
        if (device_sampling.IsBoolean()) parsed.device_sampling = device_sampling.As<Napi::Boolean>().Value();
        auto * worker = new LoadWorker(info.Env(), context_, parsed);
        Napi::Promise promise = worker->promise();
        worker->Queue();
        return promise;
    }

    Napi::Value Generate(const Napi::CallbackInfo & info) {
        Napi::Env env = info.Env();
        Napi::Object options = info[0].As<Napi::Object>();
        auto job = std::make_shared<GenerationJob>();
        job->sequence = integer_option(options, "sequence", 0);
        Napi::Uint32Array tokens = options.Get("tokens").As<Napi::Uint32Array>();
        job->prompt.assign(tokens.Data(), tokens.Data() + tokens.ElementLength());
        job->reuse = integer_option(options, "reuse", 0);
        job->max_tokens = integer_option(options, "maxTokens", 0);
        job->sampling.temperature = float_option(options, "temperature", job->sampling.temperature);
        job->sampling.top_k = integer_option(options, "topK", job->sampling.top_k);
        job->sampling.top_p = float_option(options, "topP", job->sampling.top_p);
        job->sampling.min_p = float_option(options, "minP", job->sampling.min_p);
        job->sampling.seed = unsigned_option(options, "seed", 0);
        job->speculative = options.Get("speculative").ToBoolean().Value();
        Napi::Value device_sampling = options.Get("deviceSampling");
        if (device_sampling.IsBoolean()) job->device_sampling = device_sampling.As<Napi::Boolean>().Value();
        // The first draft (from the prompt alone) is verified together with the prompt.
        if (options.Get("draft").IsTypedArray()) {
            Napi::Uint32Array draft = options.Get("draft").As<Napi::Uint32Array>();
            job->draft.assign(draft.Data(), draft.Data() + draft.ElementLength());
        }
        if (options.Get("stopTokens").IsTypedArray()) {
            Napi::Uint32Array stop_tokens = options.Get("stopTokens").As<Napi::Uint32Array>();
            job->stop_tokens.assign(stop_tokens.Data(), stop_tokens.Data() + stop_tokens.ElementLength());
        }
        if (options.Get("grammar").IsString()) {
            Napi::Value root = options.Get("grammarRoot");
            const std::string text = options.Get("grammar").As<Napi::String>().Utf8Value();
            const std::string search = options.Get("grammarSearch").IsString() ? options.Get("grammarSearch").As<Napi::String>().Utf8Value() : "";
            job->grammar_search = search == "full-vocabulary" ? GrammarSearch::full_vocabulary
                                  : search == "top-candidates" ? GrammarSearch::top_candidates
                                                               : GrammarSearch::token_prefixes;
            const bool lazy = options.Get("grammarLazy").ToBoolean().Value();
            // GBNF writes a token reference with `<`; without one anywhere the grammar reads only
            // characters. A lazy grammar starts mid-output (where its trigger matched), so where its
            // UTF-8 stands is not known from the tokens accepted: no prefix walk for it.
            job->grammar_reads_characters = !lazy && text.find('<') == std::string::npos;
            const std::string root_name = root.IsString() ? root.As<Napi::String>().Utf8Value() : "root";
            std::string error;
            if (lazy) {
                std::vector<std::string> patterns;
                Napi::Value pattern_values = options.Get("grammarTriggerPatterns");
                if (pattern_values.IsArray()) {
                    Napi::Array array = pattern_values.As<Napi::Array>();
                    for (uint32_t index = 0; index < array.Length(); index++)
                        patterns.push_back(array.Get(index).As<Napi::String>().Utf8Value());
                }
                std::vector<llama_token> trigger_tokens;
                if (options.Get("grammarTriggerTokens").IsTypedArray()) {
                    Napi::Uint32Array values = options.Get("grammarTriggerTokens").As<Napi::Uint32Array>();
                    trigger_tokens.assign(values.Data(), values.Data() + values.ElementLength());
                }
                job->grammar = context_->compile_lazy_grammar(text, root_name, patterns, trigger_tokens, error);
                read_thinking_gate(options, job->thinking);
            } else {
                job->grammar = context_->compile_grammar(text, root_name, error);
            }
            if (job->grammar == nullptr) {
                Napi::Error::New(env, error).ThrowAsJavaScriptException();
                return env.Undefined();
            }
            // What the prompt already holds of the grammar's text (llama-server feeds a tool-call
            // grammar the generation prompt, `<|im_start|>assistant\n`, that its root opens with).
            if (options.Get("grammarPrefill").IsTypedArray()) {
                Napi::Uint32Array prefill = options.Get("grammarPrefill").As<Napi::Uint32Array>();
                try {
                    for (size_t index = 0; index < prefill.ElementLength(); index++) llama_sampler_accept(job->grammar, prefill[index]);
                } catch (const std::exception & refused) {
                    Napi::Error::New(env, std::string("the grammar refused its prefill: ") + refused.what()).ThrowAsJavaScriptException();
                    return env.Undefined();
                }
            }
        }
        job->deliver = Napi::ThreadSafeFunction::New(env, info[1].As<Napi::Function>(), "spark-generation-loop", 0, 1);
        context_->enqueue(job);

        Napi::Object handle = Napi::Object::New(env);
        std::shared_ptr<GenerationContext> context = context_;
        handle.Set("abort", Napi::Function::New(env, [context, job](const Napi::CallbackInfo & call) {
                       context->abort(job);
                       return call.Env().Undefined();
                   }));
        handle.Set("draft", Napi::Function::New(env, [context, job](const Napi::CallbackInfo & call) {
                       Napi::Uint32Array tokens = call[0].As<Napi::Uint32Array>();
                       const int32_t at = call[1].IsNumber() ? call[1].As<Napi::Number>().Int32Value() : 0;
                       context->post_draft(job, std::vector<llama_token>(tokens.Data(), tokens.Data() + tokens.ElementLength()), at);
                       return call.Env().Undefined();
                   }));
        return handle;
    }

    /** saveSequence(sequence, maxBytes, answer(error, buffer)): the sequence's state, copied. */
    Napi::Value SaveSequence(const Napi::CallbackInfo & info) {
        auto operation = std::make_shared<SequenceStateOperation>();
        operation->kind = SequenceStateOperation::Kind::save;
        operation->sequence = info[0].As<Napi::Number>().Int32Value();
        operation->max_bytes = static_cast<size_t>(info[1].As<Napi::Number>().Int64Value());
        operation->answer = Napi::ThreadSafeFunction::New(info.Env(), info[2].As<Napi::Function>(), "spark-sequence-save", 0, 1);
        context_->enqueue_state(operation);
        return info.Env().Undefined();
    }

    /** restoreSequence(sequence, buffer, answer(error, bytesRead)): the buffer stays referenced until answered. */
    Napi::Value RestoreSequence(const Napi::CallbackInfo & info) {
        auto operation = std::make_shared<SequenceStateOperation>();
        operation->kind = SequenceStateOperation::Kind::restore;
        operation->sequence = info[0].As<Napi::Number>().Int32Value();
        Napi::Buffer<uint8_t> source = info[1].As<Napi::Buffer<uint8_t>>();
        operation->source = source.Data();
        operation->source_size = source.Length();
        operation->source_reference = Napi::Persistent(info[1]);
        operation->answer = Napi::ThreadSafeFunction::New(info.Env(), info[2].As<Napi::Function>(), "spark-sequence-restore", 0, 1);
        context_->enqueue_state(operation);
        return info.Env().Undefined();
    }

    Napi::Value Dispose(const Napi::CallbackInfo & info) {
        context_->dispose();
        return info.Env().Undefined();
    }

    static void DisposeAtExit(void * context) { static_cast<GenerationContext *>(context)->dispose(); }

    std::shared_ptr<GenerationContext> context_;
    napi_env env_;
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("bindLlama", Napi::Function::New(env, BindLlama, "bindLlama"));
    exports.Set("backendDevices", Napi::Function::New(env, BackendDevices, "backendDevices"));
    exports.Set("GenerationContext", GenerationContextWrap::Define(env));
    exports.Set("mapFile", Napi::Function::New(env, MapFile, "mapFile"));
    return exports;
}

}  // namespace

NODE_API_MODULE(spark_generation_loop, Init)
