/**
 * A Vite plugin that lets tfjs-backend-wasm's threaded build survive minification. tfjs starts its
 * pthread workers from source text: `new Blob(['var WasmBackendModuleThreadedSimd = ' +
 * factory.toString()])`, so the factory must not refer to anything outside itself. Emscripten's
 * factory does refer to one outer variable, `_scriptDir`, guarded by `typeof _scriptDir !==
 * "undefined"`; a minifier renames it (to `e`) and, seeing it declared, drops the guard, and every
 * pthread worker dies with "ReferenceError: e is not defined" (docs/backends.md#workers-and-wasm-threads). In a browser
 * `_scriptDir` is always undefined (it is `document.currentScript.src`, null for ES modules and
 * absent in workers), so its two uses inside the factory are replaced by that value here.
 */
import type { Plugin } from 'vite';

const FILE = /tfjs-backend-wasm-threaded-simd\.js($|\?)/;
const USES: [string, string][] = [
  ['if(typeof _scriptDir !== "undefined" && _scriptDir){scriptDirectory=_scriptDir}', ''],
  ['"urlOrBlob":Module["mainScriptUrlOrBlob"]||_scriptDir,', '"urlOrBlob":Module["mainScriptUrlOrBlob"],'],
];

export const tfjsThreadedFactory = (): Plugin => ({
  name: 'agentwise-tfjs-threaded-factory',
  enforce: 'pre',
  transform(code, id) {
    if (!FILE.test(id)) return null;
    let out = code;
    for (const [use, value] of USES) {
      // tfjs is pinned exactly; a new version that words these differently must be looked at again.
      if (!out.includes(use))
        throw new Error(`tfjs-threaded-factory: ${id} no longer contains ${JSON.stringify(use)}`);
      out = out.replace(use, value);
    }
    return { code: out, map: null };
  },
});
