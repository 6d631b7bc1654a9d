/**
 * This page's build: its commit, `+dirty` where the tree had changes, or `unversioned` (vite.config.ts
 * defines __LAB_BUILD__; a test or a tool that runs this code unbuilt has none). A stored session
 * keeps the builds that recorded into it (recorder.ts), so a result shared from it names them,
 * not the build that shares it (result.ts).
 */
declare const __LAB_BUILD__: string;

export const labBuild = (): string => (typeof __LAB_BUILD__ === 'string' ? __LAB_BUILD__ : 'unversioned');
