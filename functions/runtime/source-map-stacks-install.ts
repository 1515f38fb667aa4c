/**
 * Injected first into every function bundle (esbuild `inject`,
 * lib/platform-function.ts): stack traces name the TypeScript sources, the
 * bundle's map read on the first stack formatted (source-map-stacks.ts).
 */
import { installSourceMapStacks } from './source-map-stacks';

installSourceMapStacks();
