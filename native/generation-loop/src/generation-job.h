// One generation on one sequence: what to decode, how to sample, how far to go, and the tokens
// waiting to be handed to JavaScript. Shared by the decode thread and the JS thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <napi.h>

#include "llama.h"
#include "thinking-gate.h"
#include "top-k-selection.h"

/**
 * How a sample the grammar refused is drawn again, each giving the same token: the top candidates
 * by logit, then the tokens whose prefixes the grammar accepts, then the whole vocabulary
 * (token_prefixes, the default); the top candidates, then the vocabulary; or straight away the whole
 * vocabulary (what every refusal paid before; kept for tests and the bench to compare against).
 */
enum class GrammarSearch { token_prefixes, top_candidates, full_vocabulary };

struct SamplingOptions {
    float temperature = 0.7f;
    int32_t top_k = 40;
    float top_p = 0.95f;
    /** 0: none; else after top-p, as node-llama-cpp's chain. */
    float min_p = 0.0f;
    uint32_t seed = 0;
};

struct GenerationJob {
    // Set on the JS thread before the job is queued; read-only afterwards.
    llama_seq_id sequence = 0;
    std::vector<llama_token> prompt;
    /** Prompt tokens already in the sequence's KV cache (decided by JS, which mirrors it). */
    int32_t reuse = 0;
    /** 0: evaluate the prompt and generate nothing (a prefill, or a clear with no prompt). */
    int32_t max_tokens = 0;
    SamplingOptions sampling;
    /**
     * Prompt lookup: after a step that verified a draft, its tokens go to JS at once and the job
     * sits out the following batches until JS answers with the next draft (possibly empty). After
     * a step without one it decodes on, and a draft JS posts meanwhile joins a later step.
     */
    bool speculative = false;
    /** Sampling one of these ends the job ("stop"), like end of generation: a tool call's opening tag. */
    std::vector<llama_token> stop_tokens;
    /**
     * Constrains every sample (a tool call's JSON); compiled on the JS thread, owned by the job. A
     * grammar that is complete allows only end of generation, which ends the job.
     */
    llama_sampler * grammar = nullptr;
    /** false: sample on the host even where the backend could (device-sampling.h decides). */
    bool device_sampling = true;
    GrammarSearch grammar_search = GrammarSearch::token_prefixes;
    /** No token references (`<...>`, matched by id) in the grammar: it reads characters only. */
    bool grammar_reads_characters = false;
    /** A lazy grammar sleeps inside the reasoning block (llama-server's reasoning-budget gate). */
    ThinkingGate thinking;
    Napi::ThreadSafeFunction deliver;

    // Decode thread only.
    /**
     * With a temperature: node-llama-cpp's chain split in two, the top-k sampler (used when
     * select_top_k cannot decide) and the rest, top-p -> temperature -> dist, which owns the RNG.
     */
    llama_sampler * top_k = nullptr;
    llama_sampler * sampler = nullptr;
    /** The backend samples this job's tokens (its sequence's chain); else the samplers above. */
    bool device_sampled = false;
    size_t prompt_cursor = 0;
    llama_pos position = 0;
    llama_token next_token = LLAMA_TOKEN_NULL;
    int32_t generated = 0;
    /** Decode steps that sampled for this job (a verify step counts once). */
    int32_t steps = 0;
    /** The draft in this step's batch, after next_token. */
    std::vector<llama_token> verifying;
    /** Every token generated, to align a draft JS made a few tokens ago. */
    std::vector<llama_token> output;
    /** Candidates: the top k, or the whole vocabulary (top-k undecided, or a grammar refused). */
    std::vector<llama_token_data> candidates;
    TopKScratch top_k_scratch;
    /** Samples the grammar refused, by where the token was drawn again (see grammar_resamples()). */
    int32_t resampled_among_top = 0;
    int32_t resampled_among_prefixes = 0;
    int32_t resampled_over_vocabulary = 0;
    /** CPU time the grammar took on the decode thread: checks, samples drawn again, accepting. */
    std::chrono::nanoseconds grammar_time{0};
    /** Host sampling on the decode thread (wall time, grammar included), samples drawn, and
     * samples whose top-k select_top_k left to llama.cpp's sort of the whole vocabulary (ties). */
    std::chrono::nanoseconds host_sampling_time{0};
    int32_t host_samples = 0;
    int32_t top_k_fallbacks = 0;
    /** Bytes still owed by a UTF-8 character the grammar accepted part of (-1: unknown). */
    int32_t grammar_pending_utf8 = 0;
    /** Scratch for sampling within the grammar (job-sampling.cpp). */
    std::vector<llama_token_data> grammar_candidates;
    std::vector<llama_token_data> grammar_heads;
    std::vector<llama_token> grammar_tokens;
    std::vector<float> grammar_block_maxima;

    std::atomic<bool> abort_requested{false};
    /** A speculative job's tokens went to JS and its next draft has not come back yet. */
    std::atomic<bool> awaiting_draft{false};

    /** When the oldest token not yet handed to JS was sampled (decode thread only). */
    std::chrono::steady_clock::time_point oldest_pending{};
    bool has_pending = false;

    // Guarded by mutex: tokens not yet handed to JS, and how the job ended.
    std::mutex mutex;
    std::vector<llama_token> pending;
    /** The draft JS answered with, taken by the next batch, and how many generated tokens JS had seen. */
    std::vector<llama_token> draft;
    int32_t draft_at = 0;
    bool call_scheduled = false;
    bool finished = false;
    bool finish_delivered = false;
    std::string finish_reason;
    std::string error;
    /** Tokens the sequence's KV cache holds once the job ended. */
    int32_t cache_tokens = 0;
    /** Prompt tokens reused from the cache (reuse, or 0 when the cache could not be trimmed). */
    int32_t reused = 0;
    /** The stop token that ended the job, if one did. */
    llama_token stop_token = LLAMA_TOKEN_NULL;

    /**
     * For the job's end: {top, prefixes, vocabulary}, refused samples drawn again each way, and
     * microseconds, the grammar's CPU time in all.
     */
    Napi::Object grammar_resamples(Napi::Env env) const {
        Napi::Object counts = Napi::Object::New(env);
        counts.Set("top", resampled_among_top);
        counts.Set("prefixes", resampled_among_prefixes);
        counts.Set("vocabulary", resampled_over_vocabulary);
        counts.Set("microseconds", static_cast<double>(grammar_time.count()) / 1000.0);
        return counts;
    }

    /** For the job's end: {samples, microseconds, topKFallbacks} of host sampling. */
    Napi::Object host_sampling(Napi::Env env) const {
        Napi::Object counts = Napi::Object::New(env);
        counts.Set("samples", host_samples);
        counts.Set("microseconds", static_cast<double>(host_sampling_time.count()) / 1000.0);
        counts.Set("topKFallbacks", top_k_fallbacks);
        return counts;
    }

    bool finished_flag() {
        std::lock_guard<std::mutex> lock(mutex);
        return finished;
    }

    /** Whether the decode thread has work for it: a speculative job waits for its draft. */
    bool runnable() const {
        return !awaiting_draft.load(std::memory_order_acquire) || abort_requested.load(std::memory_order_relaxed);
    }

    ~GenerationJob() {
        if (top_k != nullptr) llama_sampler_free(top_k);
        if (sampler != nullptr) llama_sampler_free(sampler);
        if (grammar != nullptr) llama_sampler_free(grammar);
    }
};
