// A region of a file mapped read-only into memory as a Buffer, for the prefix cache's saved states.
#pragma once

#include <napi.h>

/**
 * mapFile(path, offset, length): Promise<Buffer> whose bytes are the file's from `offset`, mapped
 * (not copied) on the threadpool and unmapped when the Buffer is collected. Rejects when the file
 * cannot be opened or mapped, or is shorter than offset + length ("truncated state").
 */
Napi::Value MapFile(const Napi::CallbackInfo & info);
