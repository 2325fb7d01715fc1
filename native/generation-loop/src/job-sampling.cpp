// Sampling one job's next token from the logits of one batch position, on the decode thread:
// greedy straight from the logits, or node-llama-cpp's chain (top-k -> top-p -> temperature ->
// dist, top-k found without a candidate per vocabulary entry where that gives llama.cpp's result).
// Under a grammar the unconstrained sample is checked first; when the grammar refuses it, the
// sample is drawn again among the tokens the grammar allows, found from the top candidates by
// logit or by the prefixes it accepts (grammar-candidates.h), and the whole vocabulary is paid for
// only where neither settles the token llama.cpp's order (grammar, then top-k) would give.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <exception>
#include <string>

#include "generation-context.h"
#include "grammar-candidates.h"
#include "top-k-selection.h"

namespace {

/** The chain after top-k: top-p -> min-p -> temperature -> dist (node-llama-cpp's order). */
llama_sampler * make_sampler(const SamplingOptions & sampling) {
    llama_sampler_chain_params parameters = llama_sampler_chain_default_params();
    parameters.no_perf = true;
    llama_sampler * chain = llama_sampler_chain_init(parameters);
    if (sampling.top_p >= 0.0f && sampling.top_p <= 1.0f) {
        llama_sampler_chain_add(chain, llama_sampler_init_top_p(sampling.top_p, 1));
    }
    if (sampling.min_p > 0.0f) llama_sampler_chain_add(chain, llama_sampler_init_min_p(sampling.min_p, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_temp(sampling.temperature));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(sampling.seed));
    return chain;
}

/** The k top-k keeps: all of the vocabulary when the option is 0 or less. */
int32_t top_k_of(const SamplingOptions & sampling, const llama_vocab * vocab) {
    const int32_t vocabulary = llama_vocab_n_tokens(vocab);
    return sampling.top_k <= 0 ? vocabulary : std::min(sampling.top_k, vocabulary);
}

/** CPU time of the calling thread: the grammar's cost, untouched by other threads on the machine. */
std::chrono::nanoseconds thread_cpu_time() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

/** The first top candidates checked against the grammar; then 8x that while no prefix walk can run. */
constexpr int32_t kFirstCandidates = 64;

bool all_finite(const float * logits, int32_t vocabulary) {
    // x - x is NaN exactly for an infinite or NaN x; eight sums so the compiler vectorizes it.
    float sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int32_t index = 0;
    for (; index + 8 <= vocabulary; index += 8) {
        for (int32_t lane = 0; lane < 8; lane += 1) sums[lane] += logits[index + lane] - logits[index + lane];
    }
    for (; index < vocabulary; index += 1) sums[0] += logits[index] - logits[index];
    return std::all_of(sums, sums + 8, [](float sum) { return sum == 0.0f; });
}

/** Orders candidates as greedy breaks ties: logit descending, then the lowest id. */
bool greedy_order(const llama_token_data & left, const llama_token_data & right) {
    return left.logit != right.logit ? left.logit > right.logit : left.id < right.id;
}

/**
 * Bytes still owed after the grammar accepted `token`, as llama.cpp's grammar decodes UTF-8
 * (-1 when unknown or invalid): the prefix walk is exact only between whole characters.
 */
int32_t pending_utf8_after(const llama_vocab * vocab, llama_token token, int32_t pending) {
    static constexpr int32_t kLength[16] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4};
    if (pending < 0) return -1;
    const std::string piece = grammar_candidates::piece_of(vocab, token);
    for (const char character : piece) {
        const auto byte = static_cast<uint8_t>(character);
        if (pending > 0) {
            if ((byte >> 6) != 0x2) return -1;
            pending -= 1;
        } else {
            pending = kLength[byte >> 4] - 1;
        }
    }
    return pending;
}

/**
 * The token llama.cpp would sample from `allowed` (the grammar's allowed tokens, in greedy order),
 * or false when `allowed` cannot settle it. `complete`: every allowed token of the vocabulary is
 * there; else those with a logit above `bound` are, and the rest are at or below it.
 */
bool sample_allowed(GenerationJob & job, const llama_vocab * vocab, std::vector<llama_token_data> & allowed,
                    bool complete, float bound, llama_token & token) {
    if (job.sampling.temperature <= 0.0f) {
        if (allowed.empty() && !complete) return false;
        token = allowed.empty() ? LLAMA_TOKEN_NULL : allowed.front().id;
        return true;
    }
    // llama.cpp's top-k runs over the grammar's output: it keeps the k highest allowed tokens
    // (refused ones, at -INFINITY, only behind every allowed one, where they weigh nothing).
    const size_t k = static_cast<size_t>(top_k_of(job.sampling, vocab));
    if (!complete && allowed.size() < k) return false;
    const size_t kept = std::min(k, allowed.size());
    if (kept == 0) {
        token = LLAMA_TOKEN_NULL;
        return true;
    }
    // Equal logits among the kept or at the k-th place: llama.cpp's partial sort orders them, so
    // only its own path gives its order. An unchecked token could tie the last one kept.
    for (size_t index = 1; index < kept; index += 1) {
        if (allowed[index - 1].logit == allowed[index].logit) return false;
    }
    if (allowed.size() > kept && allowed[kept - 1].logit == allowed[kept].logit) return false;
    if (!complete && allowed.size() == kept && !(allowed[kept - 1].logit > bound)) return false;
    allowed.resize(kept);
    llama_token_data_array array{allowed.data(), allowed.size(), -1, true};
    llama_sampler_apply(job.sampler, &array);
    token = array.selected >= 0 ? array.data[array.selected].id : LLAMA_TOKEN_NULL;
    return true;
}

/** Applies the grammar to `candidates` and keeps the allowed ones, in greedy order. */
void keep_allowed(llama_sampler * grammar, std::vector<llama_token_data> & candidates) {
    llama_token_data_array array{candidates.data(), candidates.size(), -1, false};
    llama_sampler_apply(grammar, &array);
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                    [](const llama_token_data & candidate) { return std::isinf(candidate.logit); }),
                     candidates.end());
    std::sort(candidates.begin(), candidates.end(), greedy_order);
}

/** Among the top `count` candidates by logit; false when they do not settle the token. */
bool sample_among_top(GenerationJob & job, const llama_vocab * vocab, const float * logits, int32_t count, llama_token & token) {
    const int32_t vocabulary = llama_vocab_n_tokens(vocab);
    std::vector<llama_token_data> & candidates = job.grammar_candidates;
    select_top_ordered(logits, vocabulary, count, job.grammar_block_maxima, candidates);
    if (candidates.empty()) return false;
    const float bound = candidates.back().logit;
    const bool complete = candidates.size() == static_cast<size_t>(vocabulary);
    keep_allowed(job.grammar, candidates);
    return sample_allowed(job, vocab, candidates, complete, bound, token);
}

/**
 * Among every token whose prefixes the grammar accepts, or while it holds part of a UTF-8
 * character every token continuing one; false when the walk gives up.
 */
bool sample_among_prefixes(GenerationJob & job, const llama_vocab * vocab, const VocabularyPrefixes & prefixes,
                           const float * logits, llama_token & token) {
    const int32_t vocabulary = llama_vocab_n_tokens(vocab);
    std::vector<llama_token> & tokens = job.grammar_tokens;
    tokens.assign(prefixes.always.begin(), prefixes.always.end());
    if (job.grammar_pending_utf8 > 0) {
        tokens.insert(tokens.end(), prefixes.continuations.begin(), prefixes.continuations.end());
    } else {
        // Past three quarters of the vocabulary the walk saves little over checking every token.
        const auto limit = static_cast<size_t>(vocabulary - vocabulary / 4);
        if (!collect_grammar_candidates(prefixes, 0, job.grammar, limit, job.grammar_heads, tokens)) return false;
    }
    std::vector<llama_token_data> & candidates = job.grammar_candidates;
    candidates.clear();
    for (const llama_token candidate : tokens) candidates.push_back({candidate, logits[candidate], 0.0f});
    keep_allowed(job.grammar, candidates);
    if (sample_allowed(job, vocab, candidates, true, -INFINITY, token)) return true;
    // Ties at a temperature: llama.cpp's top-k orders the whole array. Every token's fate is known,
    // so that array is written as the grammar would leave it (refused ones at -INFINITY) without
    // checking each token, and llama.cpp's own top-k sorts it.
    std::vector<llama_token_data> & array_data = job.candidates;
    array_data.assign(static_cast<size_t>(vocabulary), {0, -INFINITY, 0.0f});
    for (int32_t index = 0; index < vocabulary; index += 1) array_data[static_cast<size_t>(index)].id = index;
    for (const llama_token_data & allowed : candidates) array_data[static_cast<size_t>(allowed.id)].logit = allowed.logit;
    llama_token_data_array array{array_data.data(), array_data.size(), -1, false};
    llama_sampler_apply(job.top_k, &array);
    llama_sampler_apply(job.sampler, &array);
    token = array.selected >= 0 ? array.data[array.selected].id : LLAMA_TOKEN_NULL;
    return true;
}

/** The grammar accepts `tokens`; false (the job's error set) when it throws. */
bool feed_grammar(GenerationJob & job, const std::vector<llama_token> & tokens) {
    try {
        for (const llama_token token : tokens) llama_sampler_accept(job.grammar, token);
    } catch (const std::exception & exception) {
        // A lazy grammar's trigger pattern can match inside a token whose rest the grammar
        // refuses (`<tool_call>\n` then `here` in one token): llama.cpp throws from its
        // replay. The job ends with the reason instead of the process.
        job.error = std::string("the tool-call grammar refused the output at its trigger: ") + exception.what();
        return false;
    }
    return true;
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
    // The logits first: reading them waits for the backend to finish the decode, not the sampler.
    const float * logits = llama_get_logits_ith(context_, logits_index);
    const auto started = std::chrono::steady_clock::now();
    const llama_token token = sample_host(job, logits);
    job.host_sampling_time += std::chrono::steady_clock::now() - started;
    job.host_samples += 1;
    return token;
}

llama_token GenerationContext::sample_host(GenerationJob & job, const float * logits) {
    const llama_token token = job.sampling.temperature > 0.0f ? sample_distribution(job, logits) : greedy(job, logits);
    if (job.grammar == nullptr) return token;
    const std::chrono::nanoseconds grammar_start = thread_cpu_time();
    if (job.thinking.inside) {
        // llama.cpp's grammar_should_apply: the lazy grammar neither constrains nor reads reasoning;
        // the end tag that closes it is fed to it then (it may be the call's trigger).
        const std::vector<llama_token> * end = job.thinking.advance(token);
        const bool fed = end == nullptr || feed_grammar(job, *end);
        job.grammar_time += thread_cpu_time() - grammar_start;
        return fed ? token : LLAMA_TOKEN_NULL;
    }
    // As llama.cpp's common sampler: check the unconstrained sample against the grammar (one
    // candidate), and pay for the whole vocabulary only when the grammar refuses it.
    llama_token_data single{token, 1.0f, 0.0f};
    llama_token_data_array one{&single, 1, -1, false};
    llama_sampler_apply(job.grammar, &one);
    const llama_token chosen = std::isinf(single.logit) ? sample_within_grammar(job, logits) : token;
    // A complete grammar allows only end of generation, which ends the job instead.
    if (chosen != LLAMA_TOKEN_NULL && !llama_vocab_is_eog(vocab_, chosen)) {
        if (!feed_grammar(job, {chosen})) {
            job.grammar_time += thread_cpu_time() - grammar_start;
            return LLAMA_TOKEN_NULL;
        }
        job.grammar_pending_utf8 = pending_utf8_after(vocab_, chosen, job.grammar_pending_utf8);
        if (job.thinking.enabled()) job.thinking.advance(chosen);
    }
    job.grammar_time += thread_cpu_time() - grammar_start;
    return chosen;
}

llama_token GenerationContext::greedy(GenerationJob & job, const float * logits) const {
    // Straight from the logits, never writing a candidate per token (151,936 x 12 bytes for
    // Qwen): first_maximum's vectorized read of block maxima.
    return first_maximum(logits, llama_vocab_n_tokens(vocab_), job.top_k_scratch.block_maxima);
}

llama_token GenerationContext::sample_distribution(GenerationJob & job, const float * logits) {
    const int32_t vocabulary = llama_vocab_n_tokens(vocab_);
    const int32_t k = top_k_of(job.sampling, vocab_);
    llama_token_data_array array{nullptr, 0, -1, false};
    if (select_top_k(logits, vocabulary, k, job.top_k_scratch, job.candidates)) {
        // What llama.cpp's top-k leaves: the k largest, sorted.
        array = {job.candidates.data(), job.candidates.size(), -1, true};
    } else if (k < vocabulary) {
        job.top_k_fallbacks += 1;
        array = all_candidates(job, logits);
        llama_sampler_apply(job.top_k, &array);
    } else {
        // top_k 0 keeps every token: no sort of the whole vocabulary (top-p sorts what it keeps).
        array = all_candidates(job, logits);
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
    const int32_t vocabulary = llama_vocab_n_tokens(vocab_);
    llama_token token = LLAMA_TOKEN_NULL;
    // Infinite or NaN logits: llama.cpp's own path says what they mean.
    if (job.grammar_search != GrammarSearch::full_vocabulary && all_finite(logits, vocabulary)) {
        const int32_t first = std::max(kFirstCandidates, 2 * top_k_of(job.sampling, vocab_));
        if (first < vocabulary && sample_among_top(job, vocab_, logits, first, token)) {
            job.resampled_among_top += 1;
            return token;
        }
        // The prefix walk needs a grammar of characters and to know where its UTF-8 stands; in a
        // vocabulary of a few hundred tokens it would check most of them anyway.
        const bool walk = job.grammar_search == GrammarSearch::token_prefixes && job.grammar_reads_characters &&
                          job.grammar_pending_utf8 >= 0 && vocabulary >= 4 * grammar_candidates::kSplitAt;
        if (walk) {
            // Built once per model, on the decode thread (a few ms for Qwen's vocabulary).
            if (vocabulary_prefixes_ == nullptr) vocabulary_prefixes_ = std::make_shared<const VocabularyPrefixes>(build_vocabulary_prefixes(vocab_));
            if (sample_among_prefixes(job, vocab_, *vocabulary_prefixes_, logits, token)) {
                job.resampled_among_prefixes += 1;
                return token;
            }
        } else {
            for (int32_t count = first * 8; count < vocabulary / 8; count *= 8) {
                if (sample_among_top(job, vocab_, logits, count, token)) {
                    job.resampled_among_top += 1;
                    return token;
                }
            }
        }
    }
    job.resampled_over_vocabulary += 1;
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

