// The few functions llama.cpp's common/chat* call outside the files compiled here. The chat
// format addon links no llama.cpp library: templates are built from the template text and the
// BOS/EOS strings Spark reads from the GGUF (common_chat_templates_init with no model), so the
// llama_* vocabulary calls below are never reached, and an assertion becomes a C++ exception the
// N-API boundary turns into a JS error instead of aborting Node.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.h"
#include "log.h"

namespace {
bool log_enabled() {
    static const bool enabled = [] {
        const char * value = std::getenv("SPARK_CHAT_FORMAT_LOG");
        return value != nullptr && value[0] != '\0' && value[0] != '0';
    }();
    return enabled;
}

[[noreturn]] void not_available(const char * name) {
    throw std::runtime_error(std::string("spark chat format: ") + name +
                             " is not available (templates are built without a model)");
}
}  // namespace

// Logging goes to stderr only when SPARK_CHAT_FORMAT_LOG is set: llama.cpp logs each template's
// analysis at debug level, which would otherwise flood the serve log.
int common_log_get_verbosity_thold(void) { return log_enabled() ? 99 : -1; }

struct common_log * common_log_main() { return nullptr; }

void common_log_add(struct common_log *, enum ggml_log_level, const char * format, ...) {
    if (!log_enabled()) return;
    va_list arguments;
    va_start(arguments, format);
    std::vfprintf(stderr, format, arguments);
    va_end(arguments);
}

void ggml_abort(const char * file, int line, const char * format, ...) {
    char message[1024];
    va_list arguments;
    va_start(arguments, format);
    std::vsnprintf(message, sizeof(message), format, arguments);
    va_end(arguments);
    throw std::runtime_error(std::string("llama.cpp assertion at ") + file + ":" + std::to_string(line) + ": " +
                             message);
}

std::string common_token_to_piece(const struct llama_vocab *, llama_token, bool) {
    not_available("common_token_to_piece");
}

int32_t llama_chat_apply_template(const char *, const struct llama_chat_message *, size_t, bool, char *, int32_t) {
    not_available("llama_chat_apply_template");
}

const char * llama_model_chat_template(const struct llama_model *, const char *) {
    not_available("llama_model_chat_template");
}

const struct llama_vocab * llama_model_get_vocab(const struct llama_model *) { not_available("llama_model_get_vocab"); }

llama_token llama_vocab_bos(const struct llama_vocab *) { not_available("llama_vocab_bos"); }

llama_token llama_vocab_eos(const struct llama_vocab *) { not_available("llama_vocab_eos"); }

bool llama_vocab_get_add_bos(const struct llama_vocab *) { not_available("llama_vocab_get_add_bos"); }

bool llama_vocab_get_add_eos(const struct llama_vocab *) { not_available("llama_vocab_get_add_eos"); }

std::vector<llama_token> common_tokenize(const struct llama_vocab *, const std::string &, bool, bool) {
    not_available("common_tokenize");
}

// String helpers of common.cpp (which as a whole pulls in sampling, files and the network),
// copied from the same llama.cpp release.
void string_replace_all(std::string & s, const std::string & search, const std::string & replace) {
    if (search.empty()) return;
    std::string builder;
    builder.reserve(s.length());
    size_t pos = 0;
    size_t last_pos = 0;
    while ((pos = s.find(search, last_pos)) != std::string::npos) {
        builder.append(s, last_pos, pos - last_pos);
        builder.append(replace);
        last_pos = pos + search.length();
    }
    builder.append(s, last_pos, std::string::npos);
    s = std::move(builder);
}

std::string string_join(const std::vector<std::string> & values, const std::string & separator) {
    std::ostringstream result;
    for (size_t i = 0; i < values.size(); ++i) {
        if (i > 0) result << separator;
        result << values[i];
    }
    return result.str();
}

std::vector<std::string> string_split(const std::string & str, const std::string & delimiter) {
    std::vector<std::string> parts;
    size_t start = 0;
    size_t end = str.find(delimiter);
    while (end != std::string::npos) {
        parts.push_back(str.substr(start, end - start));
        start = end + delimiter.length();
        end = str.find(delimiter, start);
    }
    parts.push_back(str.substr(start));
    return parts;
}

std::string string_repeat(const std::string & str, size_t n) {
    std::string result;
    result.reserve(str.length() * n);
    for (size_t i = 0; i < n; ++i) result += str;
    return result;
}
