// The decode thread: batches every active generation's next tokens into one llama_decode, samples
// each sequence with its own chain (job-sampling.cpp), and checks each job's abort flag before
// every step. A speculative job's entry carries the
// draft JS posted after its previous step; the samples that follow the draft are kept.
#include "generation-context.h"

#include <algorithm>
#include <cmath>

#include "ggml-backend.h"

GenerationContext::~GenerationContext() { dispose(); }

std::string GenerationContext::load(const ContextOptions & options) {
    options_ = options;
    llama_model_params model_parameters = llama_model_default_params();
    model_parameters.n_gpu_layers = options.gpu_layers;
    model_ = llama_model_load_from_file(options.model_path.c_str(), model_parameters);
    if (model_ == nullptr) return "llama.cpp could not load " + options.model_path;
    vocab_ = llama_model_get_vocab(model_);

    llama_context_params context_parameters = llama_context_default_params();
    // As node-llama-cpp does: one KV cache per sequence, each of context_size tokens.
    context_parameters.n_ctx = static_cast<uint32_t>(options.context_size * options.sequences);
    context_parameters.n_seq_max = static_cast<uint32_t>(options.sequences);
    context_parameters.kv_unified = false;
    context_parameters.n_batch = static_cast<uint32_t>(options.batch_size);
    context_parameters.n_ubatch = static_cast<uint32_t>(options.batch_size);
    context_parameters.n_threads = options.threads;
    context_parameters.n_threads_batch = options.threads;
    context_parameters.no_perf = true;
    // As node-llama-cpp's context: llama.cpp's default (auto) turns flash attention on for the CPU,
    // where it made verification batches about 20% slower (bench/speculative-step-cost.ts).
    if (options.flash_attention >= 0) {
        context_parameters.flash_attn_type = options.flash_attention == 1 ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    }
    context_ = llama_init_from_model(model_, context_parameters);
    if (context_ == nullptr) return "llama.cpp could not create a context for " + options.model_path;

    // A persistent threadpool, as llama-cli and llama-bench attach: without one, ggml starts and
    // joins worker threads for every graph (docs/per-token-overhead.md).
    ggml_backend_dev_t cpu_device = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ggml_backend_reg_t cpu_registry = cpu_device == nullptr ? nullptr : ggml_backend_dev_backend_reg(cpu_device);
    if (cpu_registry != nullptr) {
        auto * threadpool_new = (decltype(ggml_threadpool_new) *) ggml_backend_reg_get_proc_address(cpu_registry, "ggml_threadpool_new");
        threadpool_free_ = (decltype(ggml_threadpool_free) *) ggml_backend_reg_get_proc_address(cpu_registry, "ggml_threadpool_free");
        if (threadpool_new != nullptr && threadpool_free_ != nullptr) {
            ggml_threadpool_params parameters = ggml_threadpool_params_default(options.threads);
            threadpool_ = threadpool_new(&parameters);
            if (threadpool_ != nullptr) llama_attach_threadpool(context_, threadpool_, nullptr);
        }
    }
    can_speculate_ = !llama_model_is_recurrent(model_) && !llama_model_is_hybrid(model_);
    device_sampling_.configure(context_, vocab_, options.sequences, options.device_sampling);
    batch_ = llama_batch_init(options.batch_size, 0, 1);
    batch_allocated_ = true;
    return "";
}

void GenerationContext::start() { worker_ = std::thread([this] { run(); }); }

void GenerationContext::enqueue(std::shared_ptr<GenerationJob> job) {
    {
        std::lock_guard<std::mutex> lock(queue_mutex_);
        if (!stopping_) {
            incoming_.push_back(std::move(job));
            queue_changed_.notify_one();
            return;
        }
    }
    finish(job, "disposed");
}

void GenerationContext::enqueue_state(std::shared_ptr<SequenceStateOperation> operation) {
    {
        std::lock_guard<std::mutex> lock(queue_mutex_);
        if (!stopping_ && context_ != nullptr) {
            state_operations_.push_back(std::move(operation));
            queue_changed_.notify_one();
            return;
        }
    }
    refuse_sequence_state_operation(operation, "the native generation loop was disposed");
}

void GenerationContext::post_draft(const std::shared_ptr<GenerationJob> & job, std::vector<llama_token> draft, int32_t at) {
    bool was_waiting = false;
    {
        std::lock_guard<std::mutex> lock(job->mutex);
        if (job->finished) return;
        job->draft = std::move(draft);
        job->draft_at = at;
        was_waiting = job->awaiting_draft.exchange(false, std::memory_order_acq_rel);
    }
    // A job decoding on (no draft last step) picks the draft up in its next batch by itself.
    if (was_waiting) wake();
}

void GenerationContext::abort(const std::shared_ptr<GenerationJob> & job) {
    job->abort_requested.store(true, std::memory_order_relaxed);
    wake();
}

void GenerationContext::wake() {
    // Taking the lock orders this after a decode thread that is between its predicate and its
    // wait: the notification cannot fall in that gap and be lost.
    std::lock_guard<std::mutex> lock(queue_mutex_);
    queue_changed_.notify_one();
}

void GenerationContext::dispose() {
    {
        std::lock_guard<std::mutex> lock(queue_mutex_);
        stopping_ = true;
        queue_changed_.notify_one();
    }
    if (worker_.joinable()) worker_.join();
    if (batch_allocated_) llama_batch_free(batch_);
    batch_allocated_ = false;
    if (context_ != nullptr) llama_free(context_);
    context_ = nullptr;
    device_sampling_.release();
    if (threadpool_ != nullptr && threadpool_free_ != nullptr) threadpool_free_(threadpool_);
    threadpool_ = nullptr;
    if (model_ != nullptr) llama_model_free(model_);
    model_ = nullptr;
}

void GenerationContext::begin(GenerationJob & job) {
    prepare_sampling(job);
    // Without a way to erase rejected drafts the job decodes plainly; JS's drafts are ignored.
    // Under a grammar a draft is verified too: accept() samples each position in order and keeps
    // every token it sampled (the first one off the draft included), so the grammar, which
    // accepts each sample, never holds a token the output does not.
    job.speculative = job.speculative && can_speculate_;
    device_sampling_.begin(job);
    llama_memory_t memory = llama_get_memory(context_);
    job.reused = std::min<int32_t>(job.reuse, static_cast<int32_t>(job.prompt.size()));
    // Some memories (recurrent models) cannot drop a tail: start the sequence over instead.
    if (!llama_memory_seq_rm(memory, job.sequence, job.reused, -1)) {
        llama_memory_seq_rm(memory, job.sequence, -1, -1);
        job.reused = 0;
    }
    job.prompt_cursor = static_cast<size_t>(job.reused);
    job.position = job.reused;
}

namespace {

/** Where one job's tokens went in the batch, to sample it after the decode. */
struct BatchEntry {
    std::shared_ptr<GenerationJob> job;
    int32_t tokens = 0;
    /** Prompt tokens among `tokens` (a prompt's last chunk may carry a draft after them). */
    int32_t prompt_tokens = 0;
    int32_t logits_index = -1;
};

void add_token(llama_batch & batch, llama_token token, llama_pos position, llama_seq_id sequence, bool logits) {
    const int32_t index = batch.n_tokens;
    batch.token[index] = token;
    batch.pos[index] = position;
    batch.n_seq_id[index] = 1;
    batch.seq_id[index][0] = sequence;
    batch.logits[index] = logits ? 1 : 0;
    batch.n_tokens += 1;
}

}  // namespace

int32_t GenerationContext::add_draft(GenerationJob & job, llama_pos first_position) {
    job.verifying.clear();
    if (!job.speculative) return 0;
    int32_t at = 0;
    {
        std::lock_guard<std::mutex> lock(job.mutex);
        job.verifying.swap(job.draft);
        at = job.draft_at;
    }
    // A draft JS made a few tokens ago (the job decoded on meanwhile): it is still worth
    // verifying from here if it foresaw the tokens generated since.
    const size_t since = job.output.size() - static_cast<size_t>(std::clamp<int32_t>(at, 0, static_cast<int32_t>(job.output.size())));
    if (since > 0) {
        const bool foreseen = job.verifying.size() > since &&
                              std::equal(job.output.end() - static_cast<std::ptrdiff_t>(since), job.output.end(), job.verifying.begin());
        if (foreseen) {
            job.verifying.erase(job.verifying.begin(), job.verifying.begin() + static_cast<std::ptrdiff_t>(since));
        } else {
            job.verifying.clear();
        }
    }
    // A draft of n tokens yields up to n + 1: cut it to what the batch, the sequence's context
    // and max_tokens leave.
    const int64_t room = std::min<int64_t>({
        static_cast<int64_t>(options_.batch_size) - batch_.n_tokens,
        static_cast<int64_t>(options_.context_size) - first_position,
        static_cast<int64_t>(job.max_tokens) - job.generated - 1,
    });
    if (static_cast<int64_t>(job.verifying.size()) > room) {
        job.verifying.resize(static_cast<size_t>(std::max<int64_t>(0, room)));
    }
    for (size_t offset = 0; offset < job.verifying.size(); offset += 1) {
        add_token(batch_, job.verifying[offset], first_position + static_cast<llama_pos>(offset), job.sequence, true);
    }
    return static_cast<int32_t>(job.verifying.size());
}

void GenerationContext::accept(const std::shared_ptr<GenerationJob> & job, int32_t logits_index) {
    GenerationJob & generation = *job;
    const std::vector<llama_token> & draft = generation.verifying;
    // The batch held next_token (or the prompt's last token) at `start`, then the draft; the
    // position is past the draft now.
    const llama_pos start = generation.position - 1 - static_cast<llama_pos>(draft.size());
    std::vector<llama_token> kept;
    const char * reason = nullptr;
    std::string error;
    size_t index = 0;
    for (;; index += 1) {
        // The logits after next_token and after each accepted drafted token are what plain
        // decoding would have seen, so each kept token is a sample of the model's own
        // distribution (greedy: the same token; seeded sampling draws once per kept token, as
        // the plain loop does, but a batch's logits differ from a single token's in the last
        // bits, so a draw near a boundary can go the other way).
        // A device-sampled job has no draft: one output, whose token the backend sampled.
        const llama_token token = generation.device_sampled ? device_sampling_.sampled(logits_index)
                                                            : sample(generation, logits_index + static_cast<int32_t>(index));
        if (token == LLAMA_TOKEN_NULL) {
            reason = "error";
            error = generation.device_sampled ? "llama.cpp's backend sampled no token"
                    : generation.error.empty()  ? "the tool-call grammar allows no next token"
                                                : generation.error;
            break;
        }
        const bool stop_token =
            std::find(generation.stop_tokens.begin(), generation.stop_tokens.end(), token) != generation.stop_tokens.end();
        if (stop_token || llama_vocab_is_eog(vocab_, token)) {
            // Neither goes into the cache or to JS: the job ends before them, and says which.
            if (stop_token) generation.stop_token = token;
            reason = "stop";
            break;
        }
        kept.push_back(token);
        generation.generated += 1;
        if (generation.generated >= generation.max_tokens) {
            reason = "length";
            break;
        }
        // The first sample that differs from the draft (or the one after a whole draft) is kept
        // too: it is the next token, not yet in the cache.
        if (index >= draft.size() || token != draft[index]) break;
    }
    generation.steps += 1;
    // The cache keeps next_token and the drafted tokens accepted before `index`; whatever ended
    // the step (a differing sample, the end of generation, max_tokens) is not in it.
    const llama_pos kept_end = start + 1 + static_cast<llama_pos>(index);
    if (kept_end < generation.position) {
        if (!llama_memory_seq_rm(llama_get_memory(context_), generation.sequence, kept_end, -1)) {
            llama_memory_seq_rm(llama_get_memory(context_), generation.sequence, -1, -1);
            generation.position = 0;
            finish(job, "error", "llama.cpp could not erase a rejected draft from the KV cache");
            return;
        }
        generation.position = kept_end;
    }
    if (!kept.empty()) {
        generation.next_token = kept.back();
        generation.output.insert(generation.output.end(), kept.begin(), kept.end());
        deliver(job, kept, reason != nullptr, generation.speculative && !draft.empty());
    }
    if (reason != nullptr) finish(job, reason, error);
}

void GenerationContext::run() {
    std::vector<std::shared_ptr<GenerationJob>> active;
    std::vector<BatchEntry> entries;
    std::deque<std::shared_ptr<SequenceStateOperation>> operations;
    std::vector<std::shared_ptr<GenerationJob>> arriving;
    llama_memory_t memory = llama_get_memory(context_);
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(queue_mutex_);
            // A speculative job waiting for its draft gives the thread nothing to do: JS's answer
            // (or an abort) wakes it.
            queue_changed_.wait(lock, [&] {
                return stopping_ || !incoming_.empty() || !state_operations_.empty() ||
                       std::any_of(active.begin(), active.end(), [](const std::shared_ptr<GenerationJob> & job) { return job->runnable(); });
            });
            if (stopping_) break;
            operations.swap(state_operations_);
            while (!incoming_.empty()) {
                arriving.push_back(std::move(incoming_.front()));
                incoming_.pop_front();
            }
        }
        // Outside the lock (a state copy takes a while; JS must not wait on the lock meanwhile),
        // and before the jobs queued after them begin: a save sees the cache its turn left.
        for (auto & operation : operations) run_sequence_state_operation(context_, operation);
        operations.clear();
        for (auto & job : arriving) {
            active.push_back(std::move(job));
            begin(*active.back());
        }
        arriving.clear();

        // One batch: first every generating job's next token (a long prompt must not stall the
        // streams already running), then prompt chunks in the room left.
        batch_.n_tokens = 0;
        entries.clear();
        bool prompt_in_batch = false;
        for (auto & job : active) {
            if (job->abort_requested.load(std::memory_order_relaxed)) {
                finish(job, "aborted");
            } else if (job->prompt_cursor >= job->prompt.size() && job->runnable()) {
                if (job->next_token == LLAMA_TOKEN_NULL) {
                    // Nothing left to evaluate: a prefill whose prompt was cached, or a clear.
                    finish(job, "stop");
                } else if (batch_.n_tokens < options_.batch_size) {
                    BatchEntry entry{job};
                    entry.logits_index = batch_.n_tokens;
                    add_token(batch_, job->next_token, job->position, job->sequence, true);
                    entry.tokens = 1 + add_draft(*job, job->position + 1);
                    entries.push_back(std::move(entry));
                }
            }
        }
        for (auto & job : active) {
            const int32_t room = options_.batch_size - batch_.n_tokens;
            if (room <= 0) break;
            if (job->prompt_cursor >= job->prompt.size() || job->finished_flag()) continue;
            BatchEntry entry{job};
            const size_t left = job->prompt.size() - job->prompt_cursor;
            const int32_t count = static_cast<int32_t>(std::min<size_t>(left, static_cast<size_t>(room)));
            const bool last_chunk = static_cast<size_t>(count) == left;
            for (int32_t offset = 0; offset < count; offset += 1) {
                const bool logits = last_chunk && offset == count - 1 && job->max_tokens > 0;
                if (logits) entry.logits_index = batch_.n_tokens;
                add_token(batch_, job->prompt[job->prompt_cursor + offset], job->position + offset, job->sequence, logits);
            }
            entry.prompt_tokens = count;
            // The draft JS made from the prompt (the prediction's start) is verified with it.
            entry.tokens = count + (last_chunk && job->max_tokens > 0 ? add_draft(*job, job->position + count) : 0);
            entries.push_back(std::move(entry));
            prompt_in_batch = true;
        }

        // A step with prompt tokens may take long: hand over what is waiting first.
        flush(active, prompt_in_batch);
        if (batch_.n_tokens > 0) {
            const int32_t status = llama_decode(context_, batch_);
            for (auto & entry : entries) {
                GenerationJob & job = *entry.job;
                if (status != 0) {
                    // The sequence's cache is in an unknown state: empty it, and say so.
                    llama_memory_seq_rm(memory, job.sequence, -1, -1);
                    job.position = 0;
                    finish(entry.job, "error",
                           status == 1 ? "no room in the KV cache for this batch" : "llama_decode failed (" + std::to_string(status) + ")");
                    continue;
                }
                job.position += entry.tokens;
                if (job.prompt_cursor < job.prompt.size()) {
                    job.prompt_cursor += static_cast<size_t>(entry.prompt_tokens);
                    if (job.prompt_cursor < job.prompt.size()) continue;
                    if (job.max_tokens == 0) {
                        finish(entry.job, "stop");
                        continue;
                    }
                }
                accept(entry.job, entry.logits_index);
            }
        }

        active.erase(std::remove_if(active.begin(), active.end(),
                                    [](const std::shared_ptr<GenerationJob> & job) {
                                        std::lock_guard<std::mutex> lock(job->mutex);
                                        return job->finished;
                                    }),
                     active.end());
    }
    for (auto & job : active) finish(job, "disposed");
    std::lock_guard<std::mutex> lock(queue_mutex_);
    for (auto & job : incoming_) finish(job, "disposed");
    incoming_.clear();
    for (auto & operation : state_operations_) refuse_sequence_state_operation(operation, "the native generation loop was disposed");
    state_operations_.clear();
}
