// Where a lazy grammar sleeps: inside the model's reasoning block, as llama.cpp's reasoning-budget
// sampler (common/reasoning-budget.cpp, with no budget) gates llama-server's lazy grammar.
#pragma once

#include <cstddef>
#include <vector>

#include "llama.h"

/**
 * Between a thinking start tag and one of the end tags (token sequences, matched by id as
 * llama.cpp's token_matcher does) the lazy grammar is neither applied nor fed, so a trigger the
 * model writes while it reasons does not start the call grammar; the end tag that closes the block
 * is then fed to it (where the end tag is itself a trigger, Qwen3.5's `<tool_call>`, the call starts
 * there). A new start tag after the block opens another (llama.cpp re-arms on it).
 */
struct ThinkingGate {
    std::vector<std::vector<llama_token>> starts;
    std::vector<std::vector<llama_token>> ends;
    bool inside = false;

    bool enabled() const { return !starts.empty() && !ends.empty(); }

    /**
     * Reads one token (of the prompt's generation prefix or of the output); returns the end tag
     * this token completed, or nullptr.
     */
    const std::vector<llama_token> * advance(llama_token token) {
        recent_.push_back(token);
        // Only the last (longest tag) tokens can end a match: a long reasoning block keeps no more.
        size_t longest = 0;
        for (const std::vector<llama_token> & tag : inside ? ends : starts) longest = tag.size() > longest ? tag.size() : longest;
        if (recent_.size() > 2 * longest + 16) recent_.erase(recent_.begin(), recent_.end() - static_cast<std::ptrdiff_t>(longest));
        const std::vector<llama_token> * match = longest_suffix(inside ? ends : starts);
        if (match == nullptr) return nullptr;
        // A match starts the other matcher afresh (token_matcher resets its state after a match).
        recent_.clear();
        inside = !inside;
        return inside ? nullptr : match;
    }

  private:
    /** Tokens since the last match: a tag counts only when all of it came after that match. */
    std::vector<llama_token> recent_;

    /** The longest of `tags` that the tokens since the last match end with (as match_pattern). */
    const std::vector<llama_token> * longest_suffix(const std::vector<std::vector<llama_token>> & tags) const {
        const std::vector<llama_token> * best = nullptr;
        for (const std::vector<llama_token> & tag : tags) {
            if (tag.empty() || tag.size() > recent_.size()) continue;
            if (best != nullptr && tag.size() <= best->size()) continue;
            bool matches = true;
            const size_t offset = recent_.size() - tag.size();
            for (size_t index = 0; index < tag.size() && matches; index += 1) matches = recent_[offset + index] == tag[index];
            if (matches) best = &tag;
        }
        return best;
    }
};
