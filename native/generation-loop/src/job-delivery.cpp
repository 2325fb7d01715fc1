// Handing a job's tokens and its end to JavaScript: the decode thread queues them on the job and
// schedules at most one call of its thread-safe function at a time; tokens sampled meanwhile go
// over together, and a fast model's tokens are held up to kDeliveryInterval.
#include "generation-context.h"

#include <algorithm>

namespace {

/** Hands the job's pending tokens (and its end, once) to JS. Runs on the JS thread. */
void call_javascript(Napi::Env env, Napi::Function callback, const std::shared_ptr<GenerationJob> & job) {
    std::vector<llama_token> tokens;
    bool finished = false;
    {
        std::lock_guard<std::mutex> lock(job->mutex);
        tokens.swap(job->pending);
        job->call_scheduled = false;
        if (job->finished && !job->finish_delivered) {
            job->finish_delivered = true;
            finished = true;
        }
    }
    if (env == nullptr || callback.IsEmpty()) return;
    auto array = Napi::Uint32Array::New(env, tokens.size());
    std::copy(tokens.begin(), tokens.end(), array.Data());
    Napi::Value end = env.Undefined();
    if (finished) {
        auto object = Napi::Object::New(env);
        object.Set("reason", job->finish_reason);
        object.Set("cacheTokens", job->cache_tokens);
        object.Set("reused", job->reused);
        object.Set("steps", job->steps);
        if (job->grammar != nullptr) object.Set("grammarResamples", job->grammar_resamples(env));
        // Where its tokens were sampled (a prefill samples none).
        if (job->max_tokens > 0) object.Set("sampling", job->device_sampled ? "device" : "host");
        if (job->host_samples > 0) object.Set("hostSampling", job->host_sampling(env));
        if (!job->error.empty()) object.Set("error", job->error);
        if (job->stop_token != LLAMA_TOKEN_NULL) object.Set("stopToken", job->stop_token);
        end = object;
    }
    callback.Call({array, end});
    if (finished) job->deliver.Release();
}

void schedule_call(const std::shared_ptr<GenerationJob> & job) {
    // Called with job->mutex held. At most one call is queued per job: tokens sampled while JS is
    // busy accumulate in `pending` and go over together.
    // After the end went over, the thread-safe function is released: nothing may be queued on it.
    if (job->call_scheduled || job->finish_delivered) return;
    job->call_scheduled = true;
    job->deliver.NonBlockingCall([job](Napi::Env env, Napi::Function callback) {
        call_javascript(env, callback, job);
    });
}

}  // namespace

void GenerationContext::finish(const std::shared_ptr<GenerationJob> & job, const char * reason, const std::string & error) {
    std::lock_guard<std::mutex> lock(job->mutex);
    if (job->finished) return;
    job->finished = true;
    job->finish_reason = reason;
    job->error = error;
    job->cache_tokens = job->position;
    schedule_call(job);
}

void GenerationContext::deliver(const std::shared_ptr<GenerationJob> & job, const std::vector<llama_token> & tokens, bool last, bool await_draft) {
    std::lock_guard<std::mutex> lock(job->mutex);
    job->pending.insert(job->pending.end(), tokens.begin(), tokens.end());
    // The job's last tokens go over with its end, which finish() schedules next.
    if (last) return;
    if (await_draft) {
        // A draft was just verified: the copy is likely running, so the next draft is worth a
        // round trip to JS; the job sits out the batches until it comes back. (Waiting after
        // every step instead cost text the lookup cannot draft a JS round trip per token.)
        job->awaiting_draft.store(true, std::memory_order_release);
        job->has_pending = false;
        schedule_call(job);
        return;
    }
    // The first token goes at once (time to first token); later ones wait up to
    // kDeliveryInterval so a fast model wakes the JS thread once per few tokens, not per token.
    if (job->generated == static_cast<int32_t>(tokens.size())) {
        schedule_call(job);
    } else if (!job->has_pending) {
        job->has_pending = true;
        job->oldest_pending = std::chrono::steady_clock::now();
    }
}

void GenerationContext::flush(const std::vector<std::shared_ptr<GenerationJob>> & jobs, bool all) {
    const auto now = std::chrono::steady_clock::now();
    for (const auto & job : jobs) {
        // A finished job's last tokens went over with its end.
        if (!job->has_pending || (!all && now - job->oldest_pending < kDeliveryInterval)) continue;
        job->has_pending = false;
        std::lock_guard<std::mutex> lock(job->mutex);
        schedule_call(job);
    }
}
