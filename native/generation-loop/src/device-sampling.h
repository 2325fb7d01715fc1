// Sampling on llama.cpp's backend (the device that computes the logits), per sequence: the
// sequence's chain runs at the end of the decode graph, so the vocabulary's logits never leave the
// device and the host reads one token. A job samples there when the context allows it, it has no
// grammar and no draft to verify, and the backend runs its whole chain; otherwise on the host
// (job-sampling.cpp), with the sequence's chain cleared.
#pragma once

#include <cstdint>
#include <vector>

#include "generation-job.h"
#include "llama.h"

class DeviceSampling {
  public:
    DeviceSampling() = default;
    DeviceSampling(const DeviceSampling &) = delete;
    DeviceSampling & operator=(const DeviceSampling &) = delete;

    /** After the context is created; `enabled` false keeps every job on the host. */
    void configure(llama_context * context, const llama_vocab * vocab, int32_t sequences, bool enabled);
    /**
     * At a job's start, on the decode thread: gives the job's sequence the job's chain (reused when
     * it samples alike) or clears it, and sets job.device_sampled. A prefill changes nothing.
     */
    void begin(GenerationJob & job);
    /** The token the backend sampled at a batch output; LLAMA_TOKEN_NULL if none. */
    llama_token sampled(int32_t logits_index) const;
    /** Frees the chains; call once the context is freed (it refers to them). */
    void release();

  private:
    struct SequenceChain {
        llama_sampler * chain = nullptr;
        /** What the chain samples: greedy when temperature <= 0, else top-k, top-p, seed too. */
        SamplingOptions sampling;
    };

    /** Whether the job may sample on the device at all (the backend decides the rest). */
    bool eligible(const GenerationJob & job) const;
    /** Sets `chain` for the sequence; false (and the sequence cleared) when not all of it offloads. */
    bool attach(SequenceChain & entry, llama_seq_id sequence, llama_sampler * chain, const SamplingOptions & sampling);
    void clear(SequenceChain & entry, llama_seq_id sequence);

    llama_context * context_ = nullptr;
    const llama_vocab * vocab_ = nullptr;
    bool enabled_ = false;
    std::vector<SequenceChain> sequences_;
};
