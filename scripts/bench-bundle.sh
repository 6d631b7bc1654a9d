#!/bin/sh
# Bundles scripts/bench.ts and everything it imports (tfjs, both backends, the model) into one file,
# out/bench/bench.mjs, with tfjs-backend-wasm's .wasm files beside it, so that a machine with Node
# but no node_modules (a lent GPU machine) can run the benchmark:
#   node out/bench/bench.mjs --backends webgpu,wasm --dawn PATH/dawn.node --wasm-dir out/bench
# dawn.node is the `webgpu` npm package's dist/linux-x64/dawn.node (needs a Vulkan loader and driver).
# The banner gives the ES module the CommonJS names that tfjs's Node code paths use.
set -e
mkdir -p out/bench
npx esbuild scripts/bench.ts --bundle --platform=node --format=esm --target=node20 --log-level=warning \
  --outfile=out/bench/bench.mjs \
  --banner:js="import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; import { dirname as __dn } from 'node:path'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); const __dirname = __dn(__filename);"
cp node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm out/bench/
echo "out/bench/bench.mjs"
