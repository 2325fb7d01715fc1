// Which tokens a grammar could allow, found without checking the whole vocabulary: llama.cpp's
// grammar sampler walks every candidate's text against the grammar's stacks (~100 ns a token,
// 15-17 ms for Qwen's 151,936), and where a tool call's JSON needs `"` or `:` next almost every
// token is refused at its first character. A grammar over characters accepts a token only if it
// accepts every prefix of it (the same stacks match the same characters), so tokens sharing a
// first character are refused together when the one-character token is refused; after it, the
// grammar advanced past that character (a clone that accepted that token) decides their second
// one by the one-character tokens again, and so on. Exact only for a grammar without token
// references (`<...>`, matched by id), which the caller checks; while the grammar holds part of a
// UTF-8 character only tokens continuing it can be accepted, and those are listed apart.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "llama.h"
#include "top-k-selection.h"

/** The vocabulary as a tree of shared character prefixes, built once per model. */
struct VocabularyPrefixes {
    struct Node {
        /** Its tokens: sorted[begin, end), every piece starting with the node's prefix. */
        int32_t begin = 0;
        int32_t end = 0;
        /** The one-character token of the character the node's prefix adds to its parent's. */
        llama_token head = LLAMA_TOKEN_NULL;
        /** Tokens of the node not under a child: checked one by one. */
        std::vector<llama_token> direct;
        std::vector<int32_t> children;
    };
    /** Every token but end of generation and pieceless ones, by piece bytes. */
    std::vector<llama_token> sorted;
    std::vector<Node> nodes;
    /** End of generation, empty pieces: always checked (the grammar decides them). */
    std::vector<llama_token> always;
    /**
     * Tokens whose piece starts with a UTF-8 continuation byte: while the grammar holds part of a
     * character, the only ones (with `always`) it can accept; otherwise it refuses them all.
     */
    std::vector<llama_token> continuations;
};

namespace grammar_candidates {

/** A node with this many tokens is split by its next character (a grammar clone is ~100 checks). */
constexpr int32_t kSplitAt = 256;
/** A run of tokens sharing a next character gets a node (its head checked once) from this size. */
constexpr int32_t kChildAt = 4;

/** Bytes of a valid UTF-8 character starting at `offset`, 0 when it is not one (partial, invalid). */
inline size_t character_length(const std::string & piece, size_t offset) {
    const auto byte = static_cast<uint8_t>(piece[offset]);
    const size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || byte == 0 || offset + length > piece.size()) return 0;
    for (size_t index = offset + 1; index < offset + length; index += 1) {
        if ((static_cast<uint8_t>(piece[index]) >> 6) != 0x2) return 0;
    }
    return length;
}

inline std::string piece_of(const llama_vocab * vocab, llama_token token) {
    // As llama.cpp's grammar reads it: the cached piece with special tokens written out.
    std::string piece(15, '\0');  // within the small-string buffer: most pieces allocate nothing
    int32_t length = llama_token_to_piece(vocab, token, piece.data(), static_cast<int32_t>(piece.size()), 0, true);
    if (length < 0) {
        piece.resize(static_cast<size_t>(-length));
        length = llama_token_to_piece(vocab, token, piece.data(), static_cast<int32_t>(piece.size()), 0, true);
    }
    piece.resize(static_cast<size_t>(std::max(length, 0)));
    return piece;
}

/** Splits sorted[begin, end), whose pieces share their first `offset` bytes; returns the node's index. */
inline int32_t build_node(VocabularyPrefixes & prefixes, const std::vector<std::string> & pieces,
                          const std::unordered_map<std::string, llama_token> & heads, int32_t begin, int32_t end,
                          size_t offset, llama_token head) {
    const auto index = static_cast<int32_t>(prefixes.nodes.size());
    prefixes.nodes.push_back({begin, end, head, {}, {}});
    if (end - begin < kSplitAt) return index;
    std::vector<llama_token> direct;
    std::vector<int32_t> children;
    int32_t position = begin;
    while (position < end) {
        const std::string & piece = pieces[static_cast<size_t>(prefixes.sorted[static_cast<size_t>(position)])];
        const size_t length = piece.size() > offset ? character_length(piece, offset) : 0;
        if (length == 0) {
            direct.push_back(prefixes.sorted[static_cast<size_t>(position)]);
            position += 1;
            continue;
        }
        // Sorted by bytes: the tokens continuing with this character are the run from here.
        int32_t run_end = position + 1;
        while (run_end < end) {
            const std::string & next = pieces[static_cast<size_t>(prefixes.sorted[static_cast<size_t>(run_end)])];
            if (next.size() < offset + length || next.compare(offset, length, piece, offset, length) != 0) break;
            run_end += 1;
        }
        const auto found = heads.find(piece.substr(offset, length));
        if (found == heads.end() || run_end - position < kChildAt) {
            for (int32_t member = position; member < run_end; member += 1) direct.push_back(prefixes.sorted[static_cast<size_t>(member)]);
        } else {
            children.push_back(build_node(prefixes, pieces, heads, position, run_end, offset + length, found->second));
        }
        position = run_end;
    }
    prefixes.nodes[static_cast<size_t>(index)].direct = std::move(direct);
    prefixes.nodes[static_cast<size_t>(index)].children = std::move(children);
    return index;
}

}  // namespace grammar_candidates

/** Reads every token's piece (a few ms for Qwen's vocabulary) and builds the prefix tree. */
inline VocabularyPrefixes build_vocabulary_prefixes(const llama_vocab * vocab) {
    using namespace grammar_candidates;
    VocabularyPrefixes prefixes;
    const int32_t vocabulary = llama_vocab_n_tokens(vocab);
    std::vector<std::string> pieces(static_cast<size_t>(vocabulary));
    std::unordered_map<std::string, llama_token> heads;
    for (llama_token token = 0; token < vocabulary; token += 1) {
        std::string & piece = pieces[static_cast<size_t>(token)];
        piece = piece_of(vocab, token);
        if (llama_vocab_is_eog(vocab, token) || piece.empty() || piece[0] == 0) {
            prefixes.always.push_back(token);
            continue;
        }
        prefixes.sorted.push_back(token);
        if ((static_cast<uint8_t>(piece[0]) >> 6) == 0x2) prefixes.continuations.push_back(token);
        // A head stands for the one character it is: the lowest id when two tokens share a piece.
        if (character_length(piece, 0) == piece.size()) heads.emplace(piece, token);
    }
    std::sort(prefixes.sorted.begin(), prefixes.sorted.end(), [&pieces](llama_token left, llama_token right) {
        const int order = pieces[static_cast<size_t>(left)].compare(pieces[static_cast<size_t>(right)]);
        return order != 0 ? order < 0 : left < right;
    });
    build_node(prefixes, pieces, heads, 0, static_cast<int32_t>(prefixes.sorted.size()), 0, LLAMA_TOKEN_NULL);
    return prefixes;
}

/**
 * Appends to `out` a superset of the tokens `grammar` allows now (never one it would allow left
 * out), walking only the prefixes it accepts. `grammar` is not changed (each step down works on a
 * clone). False when that would gather more than `limit` tokens (the caller checks all instead)
 * or llama.cpp threw.
 */
inline bool collect_grammar_candidates(const VocabularyPrefixes & prefixes, int32_t node_index, llama_sampler * grammar,
                                       size_t limit, std::vector<llama_token_data> & heads_scratch,
                                       std::vector<llama_token> & out) {
    const VocabularyPrefixes::Node & node = prefixes.nodes[static_cast<size_t>(node_index)];
    if (node.children.empty()) {
        out.insert(out.end(), prefixes.sorted.begin() + node.begin, prefixes.sorted.begin() + node.end);
        return out.size() <= limit;
    }
    out.insert(out.end(), node.direct.begin(), node.direct.end());
    if (out.size() > limit) return false;
    // One check per child: the one-character token of its next character, at the grammar past
    // this node's prefix (accepting a token's characters one by one is accepting the token).
    heads_scratch.clear();
    for (const int32_t child : node.children) heads_scratch.push_back({prefixes.nodes[static_cast<size_t>(child)].head, 0.0f, 0.0f});
    llama_token_data_array array{heads_scratch.data(), heads_scratch.size(), -1, false};
    llama_sampler_apply(grammar, &array);
    std::vector<int32_t> accepted;
    for (size_t index = 0; index < node.children.size(); index += 1) {
        if (!std::isinf(heads_scratch[index].logit)) accepted.push_back(node.children[index]);
    }
    for (const int32_t child : accepted) {
        const VocabularyPrefixes::Node & next = prefixes.nodes[static_cast<size_t>(child)];
        if (next.children.empty()) {
            out.insert(out.end(), prefixes.sorted.begin() + next.begin, prefixes.sorted.begin() + next.end);
            if (out.size() > limit) return false;
            continue;
        }
        llama_sampler * advanced = llama_sampler_clone(grammar);
        if (advanced == nullptr) return false;
        bool complete = false;
        try {
            llama_sampler_accept(advanced, next.head);
            complete = collect_grammar_candidates(prefixes, child, advanced, limit, heads_scratch, out);
        } catch (...) {
            complete = false;
        }
        llama_sampler_free(advanced);
        if (!complete) return false;
    }
    return true;
}

/**
 * The `count` largest logits' tokens in llama.cpp's greedy order (logit descending, then id
 * ascending: a total order, so ties need no special care), into `selected`. The logits must
 * all be finite (NaN would never compare).
 */
inline void select_top_ordered(const float * logits, int32_t vocabulary, int32_t count, std::vector<float> & block_maxima,
                               std::vector<llama_token_data> & selected) {
    constexpr int32_t kBlock = 64;
    count = std::min(count, vocabulary);
    const int32_t block_size = std::clamp(vocabulary / (4 * std::max(count, 1)), 1, kBlock);
    const int32_t blocks = (vocabulary + block_size - 1) / block_size;
    // One vectorized read (the caller checked for NaN).
    fill_block_maxima(logits, vocabulary, block_size, block_maxima);
    // Every logit of the top `count` reaches the count-th largest block maximum (count blocks do).
    float bound = -INFINITY;
    if (blocks > count) {
        std::vector<float> order(block_maxima);
        std::nth_element(order.begin(), order.begin() + (count - 1), order.end(), std::greater<float>());
        bound = order[static_cast<size_t>(count - 1)];
    }
    // Those above the bound, then as many at it as are missing, lowest ids first: most of a
    // vocabulary can tie there (the noise test models give most tokens a logit of exactly 0).
    selected.clear();
    for (int32_t block = 0; block < blocks; block += 1) {
        if (!(block_maxima[static_cast<size_t>(block)] > bound)) continue;
        const int32_t start = block * block_size;
        const int32_t end = std::min(start + block_size, vocabulary);
        for (int32_t token = start; token < end; token += 1) {
            if (logits[token] > bound) selected.push_back({token, logits[token], 0.0f});
        }
    }
    for (int32_t block = 0; block < blocks && selected.size() < static_cast<size_t>(count); block += 1) {
        if (block_maxima[static_cast<size_t>(block)] < bound) continue;
        const int32_t start = block * block_size;
        const int32_t end = std::min(start + block_size, vocabulary);
        for (int32_t token = start; token < end && selected.size() < static_cast<size_t>(count); token += 1) {
            if (logits[token] == bound) selected.push_back({token, logits[token], 0.0f});
        }
    }
    const auto greedy_order = [](const llama_token_data & left, const llama_token_data & right) {
        return left.logit != right.logit ? left.logit > right.logit : left.id < right.id;
    };
    const auto kept = std::min(static_cast<size_t>(count), selected.size());
    std::partial_sort(selected.begin(), selected.begin() + static_cast<std::ptrdiff_t>(kept), selected.end(), greedy_order);
    selected.resize(kept);
}
