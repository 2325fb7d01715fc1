// Top-k for one sampled token, two ways, on the same logits: llama.cpp's (a candidate per
// vocabulary entry, then its top-k sampler's partial sort) and the native loop's select_top_k (two
// reads of the logits). Checks that both leave the same k tokens in the same order, and counts
// how often ties send select_top_k to llama.cpp's path. Greedy too: llama.cpp's greedy sampler
// (over the candidates) against the native loop's first_maximum, same token checked. Prints one
// JSON line.
// Usage: top-k-cost <vocabulary> <k> <rounds> <tie-step (0: continuous logits)> [nonzero]
// nonzero > 0: only that many logits are drawn, the rest are 0 (a model whose unused tokens'
// output rows are zero, as the project's random-weight test models).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "llama.h"
#include "top-k-selection.h"

int main(int argc, char ** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: top-k-cost <vocabulary> <k> <rounds> <tie-step>\n");
        return 2;
    }
    const int32_t vocabulary = std::atoi(argv[1]);
    const int32_t k = std::atoi(argv[2]);
    const int rounds = std::atoi(argv[3]);
    const float tie_step = static_cast<float>(std::atof(argv[4]));
    const int32_t nonzero = argc > 5 ? std::atoi(argv[5]) : 0;
    std::mt19937 random(1234);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    std::vector<float> logits(static_cast<size_t>(vocabulary));
    std::vector<llama_token_data> candidates(static_cast<size_t>(vocabulary));
    std::vector<llama_token_data> selected;
    TopKScratch scratch;
    llama_sampler * top_k = llama_sampler_init_top_k(k);
    double llama_ns = 0;
    double selection_ns = 0;
    double native_ns = 0;
    int fallbacks = 0;
    int mismatches = 0;
    double llama_greedy_ns = 0;
    double native_greedy_ns = 0;
    int greedy_mismatches = 0;
    llama_sampler * greedy = llama_sampler_init_greedy();
    using clock = std::chrono::steady_clock;
    for (int round = 0; round < rounds; round += 1) {
        for (size_t index = 0; index < logits.size(); index += 1) {
            float logit = normal(random);
            if (tie_step > 0) logit = std::round(logit / tie_step) * tie_step;
            // Sparse: the drawn logits spread over the vocabulary, every other one 0.
            const bool drawn = nonzero <= 0 || index % static_cast<size_t>(vocabulary / nonzero) == 0;
            logits[index] = drawn ? logit : 0.0f;
        }
        {
            const auto greedy_start = clock::now();
            for (int32_t token = 0; token < vocabulary; token += 1) candidates[static_cast<size_t>(token)] = {token, logits[static_cast<size_t>(token)], 0.0f};
            llama_token_data_array array{candidates.data(), candidates.size(), -1, false};
            llama_sampler_apply(greedy, &array);
            const auto native_start = clock::now();
            const llama_token native = first_maximum(logits.data(), vocabulary, scratch.block_maxima);
            const auto native_end = clock::now();
            llama_greedy_ns += std::chrono::duration<double, std::nano>(native_start - greedy_start).count();
            native_greedy_ns += std::chrono::duration<double, std::nano>(native_end - native_start).count();
            if (native != array.data[array.selected].id) greedy_mismatches += 1;
        }
        const auto llama_start = clock::now();
        for (int32_t token = 0; token < vocabulary; token += 1) candidates[static_cast<size_t>(token)] = {token, logits[static_cast<size_t>(token)], 0.0f};
        llama_token_data_array array{candidates.data(), candidates.size(), -1, false};
        llama_sampler_apply(top_k, &array);
        const auto selection_start = clock::now();
        const bool decided = select_top_k(logits.data(), vocabulary, k, scratch, selected);
        const auto selection_end = clock::now();
        const double llama_round = std::chrono::duration<double, std::nano>(selection_start - llama_start).count();
        llama_ns += llama_round;
        selection_ns += std::chrono::duration<double, std::nano>(selection_end - selection_start).count();
        if (!decided) {
            // The native loop then pays llama.cpp's top-k too.
            native_ns += llama_round;
            fallbacks += 1;
            continue;
        }
        for (int32_t index = 0; index < k; index += 1) {
            if (selected[static_cast<size_t>(index)].id != array.data[index].id) {
                mismatches += 1;
                break;
            }
        }
    }
    llama_sampler_free(top_k);
    llama_sampler_free(greedy);
    std::printf(
        "{\"vocabulary\":%d,\"k\":%d,\"rounds\":%d,\"tieStep\":%g,\"nonzero\":%d,\"llamaMicroseconds\":%.2f,\"selectionMicroseconds\":%.2f,\"nativeMicroseconds\":%.2f,\"fallbacks\":%d,\"mismatches\":%d,"
        "\"llamaGreedyMicroseconds\":%.2f,\"nativeGreedyMicroseconds\":%.2f,\"greedyMismatches\":%d}\n",
        vocabulary, k, rounds, tie_step, nonzero, llama_ns / rounds / 1000.0, selection_ns / rounds / 1000.0, (selection_ns + native_ns) / rounds / 1000.0, fallbacks, mismatches,
        llama_greedy_ns / rounds / 1000.0, native_greedy_ns / rounds / 1000.0, greedy_mismatches);
    return mismatches == 0 && greedy_mismatches == 0 ? 0 : 1;
}
