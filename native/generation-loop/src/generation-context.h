// A llama.cpp model, context and persistent ggml threadpool, with one decode thread that runs
// every queued generation: each step decodes one batch holding every active sequence's next
// tokens, samples each, and hands the tokens to JavaScript through a thread-safe function. A
// speculative job's step verifies the draft JS posted: one batch entry, sampled at every position.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "device-sampling.h"
#include "generation-job.h"
#include "ggml-cpu.h"
#include "llama.h"
#include "sequence-state.h"

struct VocabularyPrefixes;

struct ContextOptions {
    std::string model_path;
    int32_t context_size = 2048;
    int32_t sequences = 1;
    int32_t threads = 1;
    int32_t batch_size = 512;
    int32_t gpu_layers = 0;
    /** -1: llama.cpp decides; 0 / 1: off / on, as node-llama-cpp's context was created. */
    int32_t flash_attention = -1;
    /** Whether jobs may sample on llama.cpp's backend (device-sampling.h); false: all on the host. */
    bool device_sampling = true;
};

class GenerationContext {
  public:
    GenerationContext() = default;
    ~GenerationContext();
    GenerationContext(const GenerationContext &) = delete;
    GenerationContext & operator=(const GenerationContext &) = delete;

    /** Loads the model and creates the context; returns an error message, empty on success. */
    std::string load(const ContextOptions & options);
    void start();
    void enqueue(std::shared_ptr<GenerationJob> job);
    /**
     * From JS: saves or restores a sequence's state on the decode thread, between two batches and
     * before any job queued after it begins (sequence-state.h). The sequence must have no job.
     */
    void enqueue_state(std::shared_ptr<SequenceStateOperation> operation);
    /**
     * From JS, after load: compiles a GBNF grammar for a job; nullptr (with a message in `error`)
     * when the text does not parse.
     */
    llama_sampler * compile_grammar(const std::string & text, const std::string & root, std::string & error) const;
    /**
     * From JS, after load: a lazy grammar (llama-server's grammar_lazy): it allows every token until
     * a trigger pattern matches the output (from its first group on) or a trigger token is sampled,
     * then constrains the rest. nullptr (with a message in `error`) when the text does not parse.
     */
    llama_sampler * compile_lazy_grammar(const std::string & text, const std::string & root,
                                         const std::vector<std::string> & trigger_patterns,
                                         const std::vector<llama_token> & trigger_tokens, std::string & error) const;
    /**
     * From JS: the draft a speculative job's next step verifies (empty: a plain step), made after
     * `at` generated tokens.
     */
    void post_draft(const std::shared_ptr<GenerationJob> & job, std::vector<llama_token> draft, int32_t at);
    /** From JS: ends the job at the start of the next step, waiting for a draft or not. */
    void abort(const std::shared_ptr<GenerationJob> & job);
    /** Ends every job ("disposed"), joins the decode thread and frees everything. */
    void dispose();

  private:
    void run();
    void begin(GenerationJob & job);
    /** Creates the job's sampler chain (with a temperature); job-sampling.cpp, as the samplers below. */
    void prepare_sampling(GenerationJob & job) const;
    /** The job's next token; LLAMA_TOKEN_NULL when its grammar allows none. */
    llama_token sample(GenerationJob & job, int32_t logits_index);
    /** sample() from the logits, without its clock. */
    llama_token sample_host(GenerationJob & job, const float * logits);
    /** The first highest logit's token, among those a grammar left (not -INFINITY). */
    llama_token greedy(GenerationJob & job, const float * logits) const;
    /** Samples with a temperature: top-k (select_top_k, else llama.cpp's), then the job's chain. */
    llama_token sample_distribution(GenerationJob & job, const float * logits);
    /** Every token of the vocabulary as a candidate, in token order (the job's buffer). */
    llama_token_data_array all_candidates(GenerationJob & job, const float * logits) const;
    /** Samples again after the grammar refused the unconstrained sample (same token as over the whole vocabulary). */
    llama_token sample_within_grammar(GenerationJob & job, const float * logits);
    /** Adds a speculative job's draft to the batch from first_position on; returns its length. */
    int32_t add_draft(GenerationJob & job, llama_pos first_position);
    /**
     * Samples after next_token and after each drafted token while the samples follow the draft,
     * erases the rejected positions from the KV cache and hands the kept tokens to JS.
     */
    void accept(const std::shared_ptr<GenerationJob> & job, int32_t logits_index);
    /** Wakes the decode thread after a job's state changed outside it. */
    void wake();
    // job-delivery.cpp: finish, deliver and flush.
    void finish(const std::shared_ptr<GenerationJob> & job, const char * reason, const std::string & error = "");
    /**
     * Queues tokens for JS; `last` when finish() follows and hands them over with the end,
     * `await_draft` when the job waits for JS's next draft (it just verified one).
     */
    void deliver(const std::shared_ptr<GenerationJob> & job, const std::vector<llama_token> & tokens, bool last, bool await_draft);
    /** Hands over tokens waiting longer than kDeliveryInterval (all waiting ones when `all`). */
    void flush(const std::vector<std::shared_ptr<GenerationJob>> & jobs, bool all);

    static constexpr std::chrono::microseconds kDeliveryInterval{4000};

    ContextOptions options_;
    llama_model * model_ = nullptr;
    llama_context * context_ = nullptr;
    const llama_vocab * vocab_ = nullptr;
    ggml_threadpool * threadpool_ = nullptr;
    decltype(ggml_threadpool_free) * threadpool_free_ = nullptr;
    llama_batch batch_{};
    bool batch_allocated_ = false;
    DeviceSampling device_sampling_;
    /** Recurrent and hybrid memories cannot drop a tail: rejected drafts could not be erased. */
    bool can_speculate_ = false;
    /** The vocabulary by shared prefixes, built on the first refused sample (job-sampling.cpp). */
    std::shared_ptr<const VocabularyPrefixes> vocabulary_prefixes_;

    std::thread worker_;
    std::mutex queue_mutex_;
    std::condition_variable queue_changed_;
    std::deque<std::shared_ptr<GenerationJob>> incoming_;
    std::deque<std::shared_ptr<SequenceStateOperation>> state_operations_;
    bool stopping_ = false;
};
