// Saving and restoring one sequence's KV state (llama_state_seq_get_data / set_data) for the
// prefix cache on disk: queued by JS, run on the decode thread between two batches (llama.cpp's
// context is not safe to read while a decode runs), answered on the JS thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <napi.h>

#include "llama.h"

struct SequenceStateOperation {
    enum class Kind { save, restore };
    Kind kind = Kind::save;
    llama_seq_id sequence = 0;
    /** save: a state larger than this is not copied (the answer says so; 0: no limit). */
    size_t max_bytes = 0;
    /** restore: the state's bytes, owned by a JS Buffer kept alive by `source` until the answer. */
    const uint8_t * source = nullptr;
    size_t source_size = 0;
    Napi::Reference<Napi::Value> source_reference;
    /** Answered once on the JS thread: (error | null, Buffer | bytes read). */
    Napi::ThreadSafeFunction answer;

    // Decode thread, then read on the JS thread once answered.
    std::unique_ptr<std::vector<uint8_t>> saved;
    size_t bytes = 0;
    std::string error;
};

/** Runs the operation on `context` (decode thread) and queues its answer to JS. */
void run_sequence_state_operation(llama_context * context, const std::shared_ptr<SequenceStateOperation> & operation);

/** Answers without running: the context is gone (or was never loaded). */
void refuse_sequence_state_operation(const std::shared_ptr<SequenceStateOperation> & operation, const std::string & error);
