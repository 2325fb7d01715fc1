// The prefix cache's native half: a sequence's KV state copied out to a Buffer JS writes to disk
// off the decode thread, or a file's state copied into a sequence before the job that reuses it.
#include "sequence-state.h"

namespace {

void answer(const std::shared_ptr<SequenceStateOperation> & operation) {
    operation->answer.NonBlockingCall([operation](Napi::Env env, Napi::Function callback) {
        Napi::Value error = operation->error.empty() ? env.Null() : Napi::String::New(env, operation->error);
        Napi::Value result = env.Undefined();
        if (operation->kind == SequenceStateOperation::Kind::save && operation->saved != nullptr) {
            // The bytes move into the Buffer without a copy; its finalizer frees them.
            auto * bytes = operation->saved.release();
            result = Napi::Buffer<uint8_t>::New(env, bytes->data(), bytes->size(),
                                                [](Napi::Env, uint8_t *, std::vector<uint8_t> * owned) { delete owned; }, bytes);
        } else {
            result = Napi::Number::New(env, static_cast<double>(operation->bytes));
        }
        if (!operation->source_reference.IsEmpty()) operation->source_reference.Reset();
        callback.Call({error, result});
    });
    operation->answer.Release();
}

}  // namespace

void run_sequence_state_operation(llama_context * context, const std::shared_ptr<SequenceStateOperation> & operation) {
    SequenceStateOperation & state = *operation;
    if (state.kind == SequenceStateOperation::Kind::save) {
        const size_t size = llama_state_seq_get_size(context, state.sequence);
        if (size == 0) {
            state.error = "the sequence's state is empty";
        } else if (state.max_bytes > 0 && size > state.max_bytes) {
            state.error = "the sequence's state (" + std::to_string(size) + " bytes) is larger than the cache allows";
        } else {
            state.saved = std::make_unique<std::vector<uint8_t>>(size);
            state.bytes = llama_state_seq_get_data(context, state.saved->data(), size, state.sequence);
            if (state.bytes == 0) {
                state.saved.reset();
                state.error = "llama.cpp could not copy the sequence's state";
            } else {
                state.saved->resize(state.bytes);
            }
        }
    } else {
        // The sequence starts from the file's state alone: what it held is dropped first.
        llama_memory_seq_rm(llama_get_memory(context), state.sequence, -1, -1);
        state.bytes = llama_state_seq_set_data(context, state.source, state.source_size, state.sequence);
        if (state.bytes == 0) {
            llama_memory_seq_rm(llama_get_memory(context), state.sequence, -1, -1);
            state.error = "llama.cpp refused the saved state (it does not fit this model and context)";
        }
    }
    answer(operation);
}

void refuse_sequence_state_operation(const std::shared_ptr<SequenceStateOperation> & operation, const std::string & error) {
    operation->error = error;
    answer(operation);
}
