{
  "includes": ["build-inputs.gypi"],
  "targets": [
    {
      "target_name": "spark_generation_loop",
      "sources": ["src/addon.cpp", "src/device-sampling.cpp", "src/first-maximum-sampler.cpp", "src/generation-context.cpp", "src/grammar-compile.cpp", "src/job-delivery.cpp", "src/job-sampling.cpp", "src/llama-library.cpp", "src/mapped-file.cpp", "src/sequence-state.cpp"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "<@(llama_include_dirs)"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags": ["-fvisibility=hidden"],
      "cflags_cc": ["-std=c++17", "-O3", "-fvisibility=hidden"],
      "conditions": [["OS=='linux'", {"libraries": ["-ldl"]}]],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17"
      }
    }
  ]
}
