{
  "includes": ["build-inputs.gypi"],
  "targets": [
    {
      "target_name": "spark_chat_format",
      "sources": ["src/addon.cpp", "src/common-shims.cpp", "<@(llama_chat_sources)"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "<@(llama_include_dirs)"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "cflags": ["-fvisibility=hidden"],
      "cflags_cc": ["-std=c++17", "-O2", "-fvisibility=hidden"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "GCC_ENABLE_CPP_RTTI": "YES",
        "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "MACOSX_DEPLOYMENT_TARGET": "11.0"
      }
    }
  ]
}
