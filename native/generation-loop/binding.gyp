{
  "includes": ["build-inputs.gypi"],
  "targets": [
    {
      "target_name": "spark_generation_loop",
      "sources": ["src/addon.cpp", "src/generation-context.cpp"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "<@(llama_include_dirs)"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-O3"],
      "libraries": ["<@(llama_libraries)", "-Wl,-rpath,<(llama_binaries)"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "OTHER_LDFLAGS": ["-Wl,-rpath,<(llama_binaries)"]
      }
    }
  ]
}
