// The first-maximum sampler: on the backend, a few element-wise passes over the logits in the
// decode graph (nothing the host waits for beyond one token); on the host, one scan.
#include "first-maximum-sampler.h"

#include <cmath>

#include "ggml-backend.h"
#include "ggml.h"

namespace {

struct FirstMaximum {
    /** backend_init ran; `supported`: the device runs every op of the graph below. */
    bool initialized = false;
    bool supported = false;
};

const char * name(const llama_sampler * sampler) {
    const auto * state = static_cast<const FirstMaximum *>(sampler->ctx);
    // The "+"/"-" prefix is llama.cpp's convention for "runs on the backend" / "cannot".
    if (!state->initialized) return "first-maximum";
    return state->supported ? "+first-maximum" : "-first-maximum";
}

void apply(llama_sampler *, llama_token_data_array * candidates) {
    // The host fallback, as llama.cpp's greedy: the first maximum in candidate order.
    if (candidates->size == 0) return;
    size_t best = 0;
    for (size_t index = 1; index < candidates->size; index += 1) {
        if (candidates->data[index].logit > candidates->data[best].logit) best = index;
    }
    candidates->selected = static_cast<int64_t>(best);
}

void free_state(llama_sampler * sampler) { delete static_cast<FirstMaximum *>(sampler->ctx); }

llama_sampler * clone(const llama_sampler *) { return first_maximum_sampler_init(); }

/**
 * The index of the first maximum of `logits` (n floats), exactly, with ops every backend has:
 *   maximum  = logits[argmax(logits)]            (any maximal index: the value is what counts)
 *   at_max   = 1 - step(maximum - logits)        (1 exactly where logits == maximum: x - y is 0
 *                                                 only when x == y for finite floats)
 *   reached  = step(cumsum(at_max))              (1 from the first maximum on)
 *   first    = n - sum(reached)
 * Every value is a small whole number, exact in f32 for n < 2^24 (Qwen's vocabulary is 151,936).
 */
ggml_tensor * first_maximum_index(ggml_context * context, ggml_tensor * logits) {
    const int64_t count = ggml_nelements(logits);
    ggml_tensor * flat = ggml_reshape_1d(context, logits, count);
    ggml_tensor * any_maximum = ggml_argmax(context, flat);
    ggml_tensor * maximum = ggml_get_rows(context, ggml_reshape_2d(context, flat, 1, count), any_maximum);
    ggml_tensor * below = ggml_step(context, ggml_scale(context, ggml_sub(context, flat, maximum), -1.0f));
    ggml_tensor * at_maximum = ggml_scale_bias(context, below, -1.0f, 1.0f);
    ggml_tensor * reached = ggml_step(context, ggml_cumsum(context, at_maximum));
    ggml_tensor * first = ggml_scale_bias(context, ggml_sum(context, reached), -1.0f, static_cast<float>(count));
    return ggml_cast(context, first, GGML_TYPE_I32);
}

void backend_apply(llama_sampler *, ggml_context * context, ggml_cgraph *, llama_sampler_data * data) {
    ggml_tensor * index = first_maximum_index(context, data->logits);
    // After a sampler that narrowed the candidates, the index is into them: map it to the token.
    if (data->candidates != nullptr) {
        ggml_tensor * rows = ggml_reshape_2d(context, data->candidates, 1, ggml_nelements(data->candidates));
        index = ggml_get_rows(context, rows, index);
    }
    data->sampled = index;
    // Only the token comes back: left set, the whole row of logits would be copied to the host as
    // "sampled logits" after every step, the very copy device sampling is for avoiding.
    data->logits = nullptr;
}

/** Whether the device behind `buffer_type` runs every op of the graph (as llama.cpp's samplers check). */
bool device_supports(ggml_backend_buffer_type_t buffer_type) {
    ggml_backend_dev_t device = ggml_backend_buft_get_device(buffer_type);
    if (device == nullptr) return true;  // the CPU backend runs every op
    constexpr size_t kNodes = 64;
    ggml_init_params parameters{kNodes * ggml_tensor_overhead() + ggml_graph_overhead_custom(kNodes, false), nullptr, true};
    ggml_context * context = ggml_init(parameters);
    if (context == nullptr) return false;
    ggml_cgraph * graph = ggml_new_graph_custom(context, kNodes, false);
    // Qwen's vocabulary: ops whose support depends on the size (cumsum, argmax) see a real one.
    llama_sampler_data data{ggml_new_tensor_1d(context, GGML_TYPE_F32, 151936), nullptr, nullptr, nullptr};
    backend_apply(nullptr, context, graph, &data);
    ggml_build_forward_expand(graph, data.sampled);
    bool supported = true;
    for (int index = 0; index < ggml_graph_n_nodes(graph) && supported; index += 1) {
        supported = ggml_backend_dev_supports_op(device, ggml_graph_node(graph, index));
    }
    ggml_free(context);
    return supported;
}

bool backend_init(llama_sampler * sampler, ggml_backend_buffer_type_t buffer_type, uint32_t) {
    auto * state = static_cast<FirstMaximum *>(sampler->ctx);
    state->supported = device_supports(buffer_type);
    state->initialized = true;
    return state->supported;
}

llama_sampler_i first_maximum_interface = {
    /* .name              = */ name,
    /* .accept            = */ nullptr,
    /* .apply             = */ apply,
    /* .reset             = */ nullptr,
    /* .clone             = */ clone,
    /* .free              = */ free_state,
    /* .backend_init      = */ backend_init,
    /* .backend_accept    = */ nullptr,
    /* .backend_apply     = */ backend_apply,
    /* .backend_set_input = */ nullptr,
    /* .backend_reset     = */ nullptr,
    /* .copy_state        = */ nullptr,
};

}  // namespace

llama_sampler * first_maximum_sampler_init() { return llama_sampler_init(&first_maximum_interface, new FirstMaximum()); }
