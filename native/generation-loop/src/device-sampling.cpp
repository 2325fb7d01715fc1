// Which sequences sample on the backend, and with which chain. Changing a sequence's chain makes
// llama.cpp rebuild its graph reservation at the next decode (about a millisecond on the CPU
// backend, more on a GPU), so a chain stays on its sequence while jobs sample alike: a greedy
// chain has no state, and a seeded one is reset to its seed.
#include "device-sampling.h"

#include <algorithm>

#include "first-maximum-sampler.h"

namespace {

bool greedy(const SamplingOptions & sampling) { return sampling.temperature <= 0.0f; }

bool samples_alike(const SamplingOptions & left, const SamplingOptions & right) {
    if (greedy(left) || greedy(right)) return greedy(left) && greedy(right);
    return left.temperature == right.temperature && left.top_k == right.top_k && left.top_p == right.top_p &&
           left.min_p == right.min_p && left.seed == right.seed;
}

/**
 * The host's chain (job-sampling.cpp) as backend samplers: greedy, or top-k -> top-p -> min-p ->
 * temperature -> dist(seed). The backend's dist draws from the same seeded RNG over the same
 * sorted candidates, but its softmax and cumulative sum are in f32 where the host sums in double,
 * so a draw that lands within rounding of a boundary can pick the neighbouring token.
 */
llama_sampler * make_chain(const SamplingOptions & sampling, const llama_vocab * vocab) {
    llama_sampler_chain_params parameters = llama_sampler_chain_default_params();
    parameters.no_perf = true;
    llama_sampler * chain = llama_sampler_chain_init(parameters);
    if (greedy(sampling)) {
        llama_sampler_chain_add(chain, first_maximum_sampler_init());
        return chain;
    }
    const int32_t vocabulary = llama_vocab_n_tokens(vocab);
    // top_k 0 keeps every token, as on the host: no top-k over the whole vocabulary.
    if (sampling.top_k > 0 && sampling.top_k < vocabulary) llama_sampler_chain_add(chain, llama_sampler_init_top_k(sampling.top_k));
    // As the host: top-p only for p in [0, 1); at 1 it keeps everything (llama.cpp's would be a no-op).
    if (sampling.top_p >= 0.0f && sampling.top_p < 1.0f) llama_sampler_chain_add(chain, llama_sampler_init_top_p(sampling.top_p, 1));
    if (sampling.min_p > 0.0f) llama_sampler_chain_add(chain, llama_sampler_init_min_p(sampling.min_p, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_temp(sampling.temperature));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(sampling.seed));
    return chain;
}

/** Whether the backend took every sampler of the chain (llama.cpp names those "+name"). */
bool fully_offloaded(llama_sampler * chain) {
    const int32_t count = llama_sampler_chain_n(chain);
    for (int32_t index = 0; index < count; index += 1) {
        const char * name = llama_sampler_name(llama_sampler_chain_get(chain, index));
        if (name == nullptr || name[0] != '+') return false;
    }
    return count > 0;
}

}  // namespace

void DeviceSampling::configure(llama_context * context, const llama_vocab * vocab, int32_t sequences, bool enabled) {
    context_ = context;
    vocab_ = vocab;
    enabled_ = enabled;
    sequences_.assign(static_cast<size_t>(std::max(sequences, 0)), SequenceChain{});
    if (!enabled_) return;
    // Every sequence starts with the greedy chain, before the first decode: llama.cpp then sizes
    // its output buffers for backend sampling from the start.
    SamplingOptions greedy_sampling;
    greedy_sampling.temperature = 0.0f;
    for (size_t index = 0; index < sequences_.size(); index += 1) {
        attach(sequences_[index], static_cast<llama_seq_id>(index), make_chain(greedy_sampling, vocab_), greedy_sampling);
    }
}

bool DeviceSampling::eligible(const GenerationJob & job) const {
    // A grammar checks every sample on the host; a draft needs a sample at every position, and the
    // context allows one backend output per sequence and batch (n_outputs_max_per_seq = 1).
    // llama.cpp's backend min-p keeps only logits strictly above its threshold, so at p = 1 it
    // drops the most likely token too (the host keeps it): such a job samples on the host.
    return enabled_ && job.device_sampling && job.grammar == nullptr && !job.speculative && job.sampling.min_p < 1.0f;
}

void DeviceSampling::begin(GenerationJob & job) {
    job.device_sampled = false;
    if (job.max_tokens <= 0 || job.sequence < 0 || static_cast<size_t>(job.sequence) >= sequences_.size()) return;
    SequenceChain & entry = sequences_[static_cast<size_t>(job.sequence)];
    if (!eligible(job)) {
        clear(entry, job.sequence);
        return;
    }
    if (entry.chain != nullptr && samples_alike(entry.sampling, job.sampling)) {
        // Back to the seed: a new job draws what a fresh chain would.
        llama_sampler_reset(entry.chain);
        job.device_sampled = true;
        return;
    }
    llama_sampler * chain = make_chain(job.sampling, vocab_);
    job.device_sampled = attach(entry, job.sequence, chain, job.sampling);
}

bool DeviceSampling::attach(SequenceChain & entry, llama_seq_id sequence, llama_sampler * chain, const SamplingOptions & sampling) {
    // llama.cpp keeps the pointer; the chain it replaces is unused from here (the graph that
    // referred to it is rebuilt at the next decode).
    llama_synchronize(context_);
    const bool set = llama_set_sampler(context_, sequence, chain);
    if (entry.chain != nullptr) llama_sampler_free(entry.chain);
    entry.chain = chain;
    entry.sampling = sampling;
    if (set && fully_offloaded(chain)) return true;
    // Part of the chain would run on the host from the backend's candidates: sample it all there
    // instead, where the tokens are the host's own.
    clear(entry, sequence);
    return false;
}

void DeviceSampling::clear(SequenceChain & entry, llama_seq_id sequence) {
    if (entry.chain == nullptr) return;
    llama_synchronize(context_);
    llama_set_sampler(context_, sequence, nullptr);
    llama_sampler_free(entry.chain);
    entry.chain = nullptr;
}

llama_token DeviceSampling::sampled(int32_t logits_index) const { return llama_get_sampled_token_ith(context_, logits_index); }

void DeviceSampling::release() {
    for (SequenceChain & entry : sequences_) {
        if (entry.chain != nullptr) llama_sampler_free(entry.chain);
        entry.chain = nullptr;
    }
    context_ = nullptr;
}
