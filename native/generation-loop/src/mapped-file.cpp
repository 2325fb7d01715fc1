// mapFile: a fresh process restoring a saved prefix read ~15 MB into a new JS Buffer, whose first
// touch of fresh pages cost more than the copy itself (~7 ms of page faults for 15 MB here). Mapped
// instead, the bytes are the page cache's own: llama.cpp copies them straight into the KV cache,
// and JS checks their CRC over the same pages. Entries are replaced by rename and evicted by
// unlink, never rewritten in place, so a mapping never sees its file shrink under it.
#include "mapped-file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

namespace {

struct Mapping {
    void * base = nullptr;
    size_t size = 0;
};

class MapFileWorker : public Napi::AsyncWorker {
  public:
    MapFileWorker(Napi::Env env, std::string path, size_t offset, size_t length)
        : Napi::AsyncWorker(env, "spark-map-file"),
          deferred_(Napi::Promise::Deferred::New(env)),
          path_(std::move(path)),
          offset_(offset),
          length_(length) {}

    Napi::Promise Promise() const { return deferred_.Promise(); }

  protected:
    void Execute() override {
        const int file = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (file < 0) return SetError(std::string("cannot open: ") + std::strerror(errno));
        struct stat info {};
        if (fstat(file, &info) != 0) {
            const int error = errno;
            close(file);
            return SetError(std::string("cannot stat: ") + std::strerror(error));
        }
        if (static_cast<uint64_t>(info.st_size) < static_cast<uint64_t>(offset_) + length_) {
            close(file);
            return SetError("truncated state");
        }
        if (length_ == 0) {
            close(file);
            return;
        }
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t aligned = offset_ - offset_ % page;
        const size_t size = length_ + (offset_ - aligned);
        int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
        // The page tables filled in one call, not one fault per page as llama.cpp reads them.
        flags |= MAP_POPULATE;
#endif
        void * base = mmap(nullptr, size, PROT_READ, flags, file, static_cast<off_t>(aligned));
        const int error = errno;
        close(file);
        if (base == MAP_FAILED) return SetError(std::string("cannot map: ") + std::strerror(error));
#ifndef MAP_POPULATE
        madvise(base, size, MADV_WILLNEED);
#endif
        mapping_ = {base, size};
        data_ = static_cast<uint8_t *>(base) + (offset_ - aligned);
    }

    void OnOK() override {
        if (mapping_.base == nullptr) return deferred_.Resolve(Napi::Buffer<uint8_t>::New(Env(), 0));
        auto * mapping = new Mapping(mapping_);
        // Where a runtime allows no external buffers, NewOrCopy copies and unmaps at once.
        deferred_.Resolve(Napi::Buffer<uint8_t>::NewOrCopy(
            Env(), data_, length_,
            [](Napi::Env, uint8_t *, Mapping * hint) {
                munmap(hint->base, hint->size);
                delete hint;
            },
            mapping));
    }

    void OnError(const Napi::Error & error) override { deferred_.Reject(error.Value()); }

  private:
    Napi::Promise::Deferred deferred_;
    std::string path_;
    size_t offset_;
    size_t length_;
    Mapping mapping_;
    uint8_t * data_ = nullptr;
};

}  // namespace

Napi::Value MapFile(const Napi::CallbackInfo & info) {
    const Napi::Env env = info.Env();
    if (info.Length() < 3 || !info[0].IsString() || !info[1].IsNumber() || !info[2].IsNumber())
        throw Napi::TypeError::New(env, "mapFile(path, offset, length)");
    const int64_t offset = info[1].As<Napi::Number>().Int64Value();
    const int64_t length = info[2].As<Napi::Number>().Int64Value();
    if (offset < 0 || length < 0) throw Napi::RangeError::New(env, "mapFile: negative offset or length");
    auto * worker = new MapFileWorker(env, info[0].As<Napi::String>().Utf8Value(), static_cast<size_t>(offset),
                                      static_cast<size_t>(length));
    const Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
}
