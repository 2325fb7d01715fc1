// Top-k without a candidate per vocabulary entry: llama.cpp's top-k sampler writes all 151,936
// candidates of a Qwen vocabulary and partially sorts them for every sampled token. One
// vectorized read of the logits and a second read of a few blocks find the k largest instead. The result must be the array llama.cpp's
// std::partial_sort would leave, so where ties make that order depend on its heap (equal logits
// at the k-th place or among the k), this says so and the caller takes llama.cpp's path.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "llama.h"

/** Scratch space for select_top_k, kept per job so sampling allocates nothing. */
struct TopKScratch {
    std::vector<float> block_maxima;
    std::vector<float> order;
    std::vector<llama_token_data> pool;
};

constexpr int32_t kTopKBlock = 64;

/**
 * Each block of `block_size` logits' maximum, into `block_maxima` (resized to the block count), in
 * one read with eight lanes so the compiler vectorizes it. NaN may or may not propagate.
 */
inline void fill_block_maxima(const float * logits, int32_t vocabulary, int32_t block_size, std::vector<float> & block_maxima) {
    const int32_t blocks = (vocabulary + block_size - 1) / block_size;
    block_maxima.resize(static_cast<size_t>(blocks));
    for (int32_t block = 0; block < blocks; block += 1) {
        const int32_t start = block * block_size;
        const int32_t end = std::min(start + block_size, vocabulary);
        float lanes[8] = {logits[start], logits[start], logits[start], logits[start],
                          logits[start], logits[start], logits[start], logits[start]};
        int32_t index = start;
        for (; index + 8 <= end; index += 8) {
            for (int32_t lane = 0; lane < 8; lane += 1) lanes[lane] = std::max(lanes[lane], logits[index + lane]);
        }
        for (; index < end; index += 1) lanes[0] = std::max(lanes[0], logits[index]);
        float maximum = lanes[0];
        for (int32_t lane = 1; lane < 8; lane += 1) maximum = std::max(maximum, lanes[lane]);
        block_maxima[static_cast<size_t>(block)] = maximum;
    }
}

/**
 * The token of the first highest logit, as llama.cpp's greedy sampler (and a plain scan keeping
 * the first strict maximum) picks it: NaN never wins, unless it is the first logit. One vectorized
 * read of block maxima, then a scan of the first block holding the maximum.
 */
inline llama_token first_maximum(const float * logits, int32_t vocabulary, std::vector<float> & block_maxima) {
    const auto scan = [&](int32_t start, int32_t end) {
        int32_t best = start;
        for (int32_t token = start + 1; token < end; token += 1) {
            if (logits[token] > logits[best]) best = token;
        }
        return best;
    };
    if (vocabulary <= 0) return 0;
    // A block's maximum is NaN only when its first logit is; the plain scan then decides.
    if (logits[0] != logits[0]) return scan(0, vocabulary);
    fill_block_maxima(logits, vocabulary, kTopKBlock, block_maxima);
    size_t best_block = 0;
    for (size_t block = 1; block < block_maxima.size(); block += 1) {
        if (block_maxima[block] != block_maxima[block]) return scan(0, vocabulary);
        if (block_maxima[block] > block_maxima[best_block]) best_block = block;
    }
    const auto start = static_cast<int32_t>(best_block) * kTopKBlock;
    return scan(start, std::min(start + kTopKBlock, vocabulary));
}

/**
 * Fills `selected` with the k largest logits' tokens, sorted by logit, descending. False (and
 * `selected` unspecified) when k is not below the vocabulary or ties leave the order to llama.cpp's
 * sort. One pass takes each block of 64 logits' maximum (eight lanes, so the compiler vectorizes
 * it); the k-th largest block maximum is a threshold at least k logits reach, and only the blocks
 * reaching it are read again.
 */
inline bool select_top_k(const float * logits, int32_t vocabulary, int32_t k, TopKScratch & scratch,
                         std::vector<llama_token_data> & selected) {
    if (k <= 0 || k >= vocabulary) return false;
    // Blocks of 64, smaller for a small vocabulary, so that there are k blocks or more.
    const int32_t block_size = std::clamp(vocabulary / (4 * k), 1, kTopKBlock);
    const int32_t blocks = (vocabulary + block_size - 1) / block_size;
    if (blocks < k) return false;
    fill_block_maxima(logits, vocabulary, block_size, scratch.block_maxima);
    // NaN never compares: give up rather than reason about it.
    for (const float maximum : scratch.block_maxima) {
        if (maximum != maximum) return false;
    }
    scratch.order.assign(scratch.block_maxima.begin(), scratch.block_maxima.end());
    std::nth_element(scratch.order.begin(), scratch.order.begin() + (k - 1), scratch.order.end(), std::greater<float>());
    const float bound = scratch.order[static_cast<size_t>(k - 1)];
    // Every logit above `bound` is in a block whose maximum is above it: fewer than k blocks. When
    // they hold k logits or more, the top k are among them; otherwise the k-th largest is `bound`
    // itself, shared by at least the logits still missing (k logits reach it), so decided only when
    // exactly one is missing and exactly one logit equals `bound`. A vector where most logits share
    // one value (a model whose unused tokens' output rows are zero) is thus never pooled whole.
    scratch.pool.clear();
    for (int32_t block = 0; block < blocks; block += 1) {
        if (!(scratch.block_maxima[static_cast<size_t>(block)] > bound)) continue;
        const int32_t start = block * block_size;
        const int32_t end = std::min(start + block_size, vocabulary);
        for (int32_t token = start; token < end; token += 1) {
            if (logits[token] > bound) scratch.pool.push_back({token, logits[token], 0.0f});
        }
    }
    if (scratch.pool.size() < static_cast<size_t>(k)) {
        if (scratch.pool.size() + 1 != static_cast<size_t>(k)) return false;
        int32_t at_bound = 0;
        llama_token holder = 0;
        for (int32_t block = 0; block < blocks && at_bound < 2; block += 1) {
            if (scratch.block_maxima[static_cast<size_t>(block)] < bound) continue;
            const int32_t start = block * block_size;
            const int32_t end = std::min(start + block_size, vocabulary);
            for (int32_t token = start; token < end && at_bound < 2; token += 1) {
                if (logits[token] == bound) {
                    at_bound += 1;
                    holder = token;
                }
            }
        }
        if (at_bound != 1) return false;
        scratch.pool.push_back({holder, bound, 0.0f});
    }
    const auto by_logit = [](const llama_token_data & left, const llama_token_data & right) { return left.logit > right.logit; };
    std::nth_element(scratch.pool.begin(), scratch.pool.begin() + (k - 1), scratch.pool.end(), by_logit);
    const float threshold = scratch.pool[static_cast<size_t>(k - 1)].logit;
    // More than k at or above the k-th largest: a tie at the threshold.
    int32_t reaching = 0;
    for (const auto & candidate : scratch.pool) reaching += candidate.logit >= threshold ? 1 : 0;
    if (reaching != k) return false;
    selected.assign(scratch.pool.begin(), scratch.pool.begin() + k);
    std::sort(selected.begin(), selected.end(), by_logit);
    for (size_t index = 1; index < selected.size(); index += 1) {
        if (selected[index - 1].logit == selected[index].logit) return false;
    }
    return true;
}
