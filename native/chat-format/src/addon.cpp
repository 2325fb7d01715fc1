// N-API surface of llama.cpp's chat formats (common/chat.cpp, its PEG parsers, the auto-parser
// and json-schema-to-grammar, compiled from the release node-llama-cpp ships): render a Chat
// Completions request with a model's own template into the prompt, its tool-call grammar, lazy
// triggers, preserved tokens and stops; parse a model's output (partial or final) into content,
// reasoning and tool calls. Requests and results cross as JSON text, as llama-server's do.
#include <napi.h>

#include <chrono>
#include <memory>
#include <string>

#include "chat.h"
#include "json.h"

namespace {

struct TemplatesHandle {
    common_chat_templates_ptr templates;
};

struct ParserHandle {
    common_chat_parser_params parameters;
};

std::string string_or(const common_json & object, const char * key, const std::string & fallback) {
    return object.contains(key) && object.at(key).is_string() ? object.at(key).get<std::string>() : fallback;
}

bool bool_or(const common_json & object, const char * key, bool fallback) {
    return object.contains(key) && object.at(key).is_boolean() ? object.at(key).get<bool>() : fallback;
}

const char * trigger_type_name(common_grammar_trigger_type type) {
    switch (type) {
        case COMMON_GRAMMAR_TRIGGER_TYPE_TOKEN: return "token";
        case COMMON_GRAMMAR_TRIGGER_TYPE_WORD: return "word";
        case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN: return "pattern";
        case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN_FULL: return "pattern-full";
    }
    return "word";
}

template <typename Handle> Handle & handle_of(const Napi::Value & value, const char * what) {
    if (!value.IsExternal()) throw std::invalid_argument(std::string("expected ") + what);
    return *value.As<Napi::External<Handle>>().Data();
}

// (templateSource, bosToken, eosToken) → templates; throws when the template does not parse.
Napi::Value OpenTemplates(const Napi::CallbackInfo & info) {
    auto handle = std::make_unique<TemplatesHandle>();
    handle->templates = common_chat_templates_init(nullptr, info[0].As<Napi::String>().Utf8Value(),
                                                   info[1].As<Napi::String>().Utf8Value(),
                                                   info[2].As<Napi::String>().Utf8Value());
    auto * raw = handle.release();
    return Napi::External<TemplatesHandle>::New(info.Env(), raw,
                                                [](Napi::Env, TemplatesHandle * data) { delete data; });
}

// templates → JSON object of the template's capabilities (supports_tools, supports_tool_calls, …).
Napi::Value TemplateCapabilities(const Napi::CallbackInfo & info) {
    auto & handle = handle_of<TemplatesHandle>(info[0], "chat templates");
    common_json result = common_json::object();
    for (const auto & [name, value] : common_chat_templates_get_caps(handle.templates.get())) result[name] = value;
    return Napi::String::New(info.Env(), result.dump());
}

// (templates, request JSON) → JSON of the rendered prompt and what generating from it needs. The
// request is a Chat Completions body (messages, tools, tool_choice "auto"|"none"|"required",
// parallel_tool_calls, add_generation_prompt, json_schema, chat_template_kwargs, enable_thinking,
// reasoning_format) plus `now` (epoch milliseconds, for templates that print the date).
Napi::Value ApplyTemplate(const Napi::CallbackInfo & info) {
    auto & handle = handle_of<TemplatesHandle>(info[0], "chat templates");
    const common_json request = common_json::parse(info[1].As<Napi::String>().Utf8Value());
    auto capabilities = common_chat_templates_get_caps(handle.templates.get());

    common_chat_templates_inputs inputs;
    inputs.messages = common_chat_msgs_parse_oaicompat(request.at("messages"));
    inputs.tools = common_chat_tools_parse_oaicompat(request.value("tools", common_json()));
    inputs.tool_choice = common_chat_tool_choice_parse_oaicompat(string_or(request, "tool_choice", "auto"));
    inputs.parallel_tool_calls = bool_or(request, "parallel_tool_calls", capabilities["supports_parallel_tool_calls"]);
    inputs.add_generation_prompt = bool_or(request, "add_generation_prompt", true);
    if (request.contains("continue_final_message")) {
        inputs.continue_final_message = common_chat_continuation_parse(request.at("continue_final_message"));
    }
    if (request.contains("json_schema") && !request.at("json_schema").is_null()) {
        inputs.json_schema = request.at("json_schema").dump();
    }
    inputs.reasoning_format = common_reasoning_format_from_name(string_or(request, "reasoning_format", "auto"));
    inputs.enable_thinking = bool_or(request, "enable_thinking", true);
    if (request.contains("chat_template_kwargs")) {
        for (const auto & [key, value] : request.at("chat_template_kwargs").items()) {
            inputs.chat_template_kwargs[key] = value.dump();
        }
    }
    if (request.contains("now") && request.at("now").is_number()) {
        inputs.now = std::chrono::system_clock::time_point(
            std::chrono::milliseconds(static_cast<int64_t>(request.at("now").get<double>())));
    }

    const common_chat_params params = common_chat_templates_apply(handle.templates.get(), inputs);

    common_json result = common_json::object();
    result["format"] = common_chat_format_name(params.format);
    result["formatId"] = static_cast<int64_t>(params.format);
    result["prompt"] = params.prompt;
    result["grammar"] = params.grammar;
    result["grammarLazy"] = params.grammar_lazy;
    common_json triggers = common_json::array();
    for (const auto & trigger : params.grammar_triggers) {
        common_json entry = common_json::object();
        entry["type"] = trigger_type_name(trigger.type);
        entry["value"] = trigger.value;
        triggers.push_back(entry);
    }
    result["grammarTriggers"] = triggers;
    common_json preserved = common_json::array();
    for (const auto & token : params.preserved_tokens) preserved.push_back(token);
    result["preservedTokens"] = preserved;
    common_json stops = common_json::array();
    for (const auto & stop : params.additional_stops) stops.push_back(stop);
    result["additionalStops"] = stops;
    result["parser"] = params.parser;
    result["generationPrompt"] = params.generation_prompt;
    result["supportsThinking"] = params.supports_thinking;
    result["thinkingStartTag"] = params.thinking_start_tag;
    common_json end_tags = common_json::array();
    for (const auto & tag : params.thinking_end_tags) end_tags.push_back(tag);
    result["thinkingEndTags"] = end_tags;
    return Napi::String::New(info.Env(), result.dump());
}

// (JSON {formatId, parser, generationPrompt, reasoningFormat, parseToolCalls}) → parser.
Napi::Value OpenParser(const Napi::CallbackInfo & info) {
    const common_json options = common_json::parse(info[0].As<Napi::String>().Utf8Value());
    auto handle = std::make_unique<ParserHandle>();
    auto & parameters = handle->parameters;
    parameters.format = static_cast<common_chat_format>(options.at("formatId").get<int64_t>());
    parameters.generation_prompt = string_or(options, "generationPrompt", "");
    parameters.reasoning_format = common_reasoning_format_from_name(string_or(options, "reasoningFormat", "auto"));
    parameters.parse_tool_calls = bool_or(options, "parseToolCalls", true);
    const std::string parser = string_or(options, "parser", "");
    if (!parser.empty()) parameters.parser.load(parser);
    auto * raw = handle.release();
    return Napi::External<ParserHandle>::New(info.Env(), raw, [](Napi::Env, ParserHandle * data) { delete data; });
}

// (parser, text, isPartial) → JSON {content, reasoning_content, tool_calls: [{id, name, arguments}]}.
Napi::Value ParseOutput(const Napi::CallbackInfo & info) {
    auto & handle = handle_of<ParserHandle>(info[0], "a chat parser");
    const common_chat_msg message =
        common_chat_parse(info[1].As<Napi::String>().Utf8Value(), info[2].As<Napi::Boolean>().Value(), handle.parameters);
    common_json result = common_json::object();
    result["content"] = message.content;
    result["reasoning_content"] = message.reasoning_content;
    common_json calls = common_json::array();
    for (const auto & call : message.tool_calls) {
        common_json entry = common_json::object();
        entry["id"] = call.id;
        entry["name"] = call.name;
        entry["arguments"] = call.arguments;
        calls.push_back(entry);
    }
    result["tool_calls"] = calls;
    return Napi::String::New(info.Env(), result.dump());
}

// Wraps each function so a C++ exception (a template error, a failed assertion) reaches JS as an
// Error with its message instead of terminating the process.
Napi::Function guarded(Napi::Env env, const char * name, Napi::Value (*function)(const Napi::CallbackInfo &)) {
    return Napi::Function::New(
        env,
        [function](const Napi::CallbackInfo & info) -> Napi::Value {
            try {
                return function(info);
            } catch (const Napi::Error &) {
                throw;
            } catch (const std::exception & error) {
                throw Napi::Error::New(info.Env(), error.what());
            }
        },
        name);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
    exports.Set("openTemplates", guarded(env, "openTemplates", OpenTemplates));
    exports.Set("templateCapabilities", guarded(env, "templateCapabilities", TemplateCapabilities));
    exports.Set("applyTemplate", guarded(env, "applyTemplate", ApplyTemplate));
    exports.Set("openParser", guarded(env, "openParser", OpenParser));
    exports.Set("parseOutput", guarded(env, "parseOutput", ParseOutput));
    return exports;
}

}  // namespace

NODE_API_MODULE(spark_chat_format, Init)
