// Grammars for a job, compiled from JS against the loaded model's vocabulary before the job is
// queued: a plain one that constrains every token, and a lazy one that waits for a trigger
// (llama-server's grammar_lazy). nullptr with the reason in `error` when llama.cpp refuses one.
#include "generation-context.h"

llama_sampler * GenerationContext::compile_grammar(const std::string & text, const std::string & root, std::string & error) const {
    if (vocab_ == nullptr) {
        error = "the native generation loop has no model loaded";
        return nullptr;
    }
    llama_sampler * grammar = llama_sampler_init_grammar(vocab_, text.c_str(), root.c_str());
    if (grammar == nullptr) error = "llama.cpp could not parse the tool-call grammar (root \"" + root + "\")";
    return grammar;
}

llama_sampler * GenerationContext::compile_lazy_grammar(const std::string & text, const std::string & root,
                                                        const std::vector<std::string> & trigger_patterns,
                                                        const std::vector<llama_token> & trigger_tokens,
                                                        std::string & error) const {
    if (vocab_ == nullptr) {
        error = "the native generation loop has no model loaded";
        return nullptr;
    }
    std::vector<const char *> patterns;
    patterns.reserve(trigger_patterns.size());
    for (const auto & pattern : trigger_patterns) patterns.push_back(pattern.c_str());
    llama_sampler * grammar = llama_sampler_init_grammar_lazy_patterns(
        vocab_, text.c_str(), root.c_str(), patterns.data(), patterns.size(), trigger_tokens.data(), trigger_tokens.size());
    if (grammar == nullptr) error = "llama.cpp could not parse the lazy tool-call grammar (root \"" + root + "\")";
    return grammar;
}
