// Sampling one job's next token from the logits of one batch position, on the decode thread:
// greedy straight from the logits, or node-llama-cpp's chain (top-k -> top-p -> temperature ->
// dist, top-k found without a candidate per vocabulary entry where that gives llama.cpp's result);
// under a grammar the unconstrained sample is checked first and the whole vocabulary only paid
// for when the grammar refuses it.
#include <algorithm>
#include <cmath>

#include "generation-context.h"
#include "top-k-selection.h"

namespace {

/** The chain after top-k: top-p -> temperature -> dist (node-llama-cpp's order). */
llama_sampler * make_sampler(const SamplingOptions & sampling) {
    llama_sampler_chain_params parameters = llama_sampler_chain_default_params();
    parameters.no_perf = true;
    llama_sampler * chain = llama_sampler_chain_init(parameters);
    if (sampling.top_p >= 0.0f && sampling.top_p <= 1.0f) {
        llama_sampler_chain_add(chain, llama_sampler_init_top_p(sampling.top_p, 1));
    }
    llama_sampler_chain_add(chain, llama_sampler_init_temp(sampling.temperature));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(sampling.seed));
    return chain;
}

/** The k top-k keeps: all of the vocabulary when the option is 0 or less. */
int32_t top_k_of(const SamplingOptions & sampling, const llama_vocab * vocab) {
    const int32_t vocabulary = llama_vocab_n_tokens(vocab);
    return sampling.top_k <= 0 ? vocabulary : std::min(sampling.top_k, vocabulary);
}

}  // namespace

void GenerationContext::prepare_sampling(GenerationJob & job) const {
    // Greedy reads the logits itself (greedy()); the chain is for sampling with a temperature.
    if (job.sampling.temperature > 0.0f) {
        job.top_k = llama_sampler_init_top_k(top_k_of(job.sampling, vocab_));
        job.sampler = make_sampler(job.sampling);
    }
}

llama_token GenerationContext::sample(GenerationJob & job, int32_t logits_index) {
    const float * logits = llama_get_logits_ith(context_, logits_index);
    const llama_token token = job.sampling.temperature > 0.0f ? sample_distribution(job, logits) : greedy(logits);
    if (job.grammar == nullptr) return token;
    // As llama.cpp's common sampler: check the unconstrained sample against the grammar (one
    // candidate), and pay for the whole vocabulary only when the grammar refuses it.
    llama_token_data single{token, 1.0f, 0.0f};
    llama_token_data_array one{&single, 1, -1, false};
    llama_sampler_apply(job.grammar, &one);
    const llama_token chosen = std::isinf(single.logit) ? sample_within_grammar(job, logits) : token;
    // A complete grammar allows only end of generation, which ends the job instead.
    if (chosen != LLAMA_TOKEN_NULL && !llama_vocab_is_eog(vocab_, chosen)) llama_sampler_accept(job.grammar, chosen);
    return chosen;
}

llama_token GenerationContext::greedy(const float * logits) const {
    // Straight from the logits: one read of the vocabulary instead of writing a candidate per
    // token (151,936 x 12 bytes for Qwen) and scanning that. The first maximum wins, as in
    // llama.cpp's greedy sampler, so the tokens are the same.
    const int32_t vocabulary = llama_vocab_n_tokens(vocab_);
    int32_t best = 0;
    for (int32_t token = 1; token < vocabulary; token += 1) {
        if (logits[token] > logits[best]) best = token;
    }
    return best;
}

llama_token GenerationContext::sample_distribution(GenerationJob & job, const float * logits) {
    const int32_t vocabulary = llama_vocab_n_tokens(vocab_);
    const int32_t k = top_k_of(job.sampling, vocab_);
    llama_token_data_array array{nullptr, 0, -1, false};
    if (select_top_k(logits, vocabulary, k, job.top_k_scratch, job.candidates)) {
        // What llama.cpp's top-k leaves: the k largest, sorted.
        array = {job.candidates.data(), job.candidates.size(), -1, true};
    } else {
        array = all_candidates(job, logits);
        llama_sampler_apply(job.top_k, &array);
    }
    llama_sampler_apply(job.sampler, &array);
    return array.selected >= 0 ? array.data[array.selected].id : LLAMA_TOKEN_NULL;
}

llama_token_data_array GenerationContext::all_candidates(GenerationJob & job, const float * logits) const {
    const int32_t vocabulary = llama_vocab_n_tokens(vocab_);
    job.candidates.resize(static_cast<size_t>(vocabulary));
    for (int32_t token = 0; token < vocabulary; token += 1) job.candidates[static_cast<size_t>(token)] = {token, logits[token], 0.0f};
    return {job.candidates.data(), job.candidates.size(), -1, false};
}

llama_token GenerationContext::sample_within_grammar(GenerationJob & job, const float * logits) {
    llama_token_data_array array = all_candidates(job, logits);
    llama_sampler_apply(job.grammar, &array);
    const bool any_allowed = std::any_of(array.data, array.data + array.size, [](const llama_token_data & candidate) { return !std::isinf(candidate.logit); });
    if (!any_allowed) return LLAMA_TOKEN_NULL;
    if (job.sampling.temperature <= 0.0f) {
        // Candidates are in token order here, so the first maximum is the lowest id, as above.
        size_t best = 0;
        for (size_t index = 1; index < array.size; index += 1) {
            if (array.data[index].logit > array.data[best].logit) best = index;
        }
        return array.data[best].id;
    }
    llama_sampler_apply(job.top_k, &array);
    llama_sampler_apply(job.sampler, &array);
    return array.selected >= 0 ? array.data[array.selected].id : LLAMA_TOKEN_NULL;
}

