{
  "targets": [
    {
      "target_name": "loom_native",
      "sources": [
        "src/addon.cc",
        "src/common.cc",
        "src/library.cc",
        "src/device.cc",
        "src/device_js.cc",
        "src/opencl_api.cc",
        "src/opencl.cc",
        "src/cuda_api.cc",
        "src/cuda.cc"
      ],
      "dependencies": [
        "<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except_all"
      ],
      "defines": ["NAPI_VERSION=8", "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"],
      "libraries": ["-ldl"]
    }
  ]
}
