// Greedy sampling on the backend that picks exactly the host's token: the first (lowest id) of the
// highest logits. llama.cpp's backend greedy is ggml_argmax, whose ties go to the last index on the
// CPU and to whichever thread wins on Vulkan and CUDA; the host's greedy (job-sampling.cpp, as
// llama.cpp's greedy sampler) keeps the first.
#pragma once

#include "llama.h"

/** A sampler for a llama_sampler_chain; "+first-maximum" once the backend runs it. */
llama_sampler * first_maximum_sampler_init();
