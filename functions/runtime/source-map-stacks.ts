/**
 * Stack traces that name the TypeScript sources, with a bundle's source map read
 * only when a stack trace is first formatted.
 *
 * The functions' bundles are minified, so an unmapped frame says
 * `/var/task/index.js:1:48213`. Node's `--enable-source-maps` maps frames, but
 * reads and parses every bundle's map when the bundle is compiled (Node.js
 * "Command-line API", `--enable-source-maps`; `maybeCacheSourceMap` in Node's
 * `internal/source_map/source_map_cache`): for a 1 MB bundle, tens of ms of each
 * cold start spent on a map most containers never use. This module maps frames
 * itself instead: {@link installSourceMapStacks} sets `Error.prepareStackTrace`
 * (V8's "Stack trace API"), which V8 calls the first time an error's `stack` is
 * read; the map of a frame's file is its sibling `<file>.map` (esbuild's linked
 * source map, `//# sourceMappingURL=index.js.map`), read and parsed by Node's
 * public `SourceMap` class (Node.js "Modules: `node:module` API", "Class:
 * `module.SourceMap`") the first time a frame of that file is formatted, and kept
 * for the container's life.
 *
 * Every bundle the platform deploys runs it first: the CDK injects
 * `functions/runtime/source-map-stacks-install.ts` (esbuild `inject`,
 * lib/platform-function.ts), and the benchmarks bundle the same way.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** V8's `Error.prepareStackTrace` hook: the error and its structured frames in, the `stack` value out. */
type PrepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => unknown;

/**
 * Parsed maps by the absolute path of the file they map, `null` for a file with
 * no readable, parsable sibling `.map` (its frames stay as V8 prints them).
 */
const sourceMaps = new Map<string, SourceMap | null>();

/**
 * The parsed map of `file` (`<file>.map`), read on the first call for that file.
 *
 * @returns null when the map is missing or not a source map: a stack trace is
 *   formatted while an error is being reported, and must never fail itself.
 */
function sourceMapOf(file: string): SourceMap | null {
  let map = sourceMaps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    sourceMaps.set(file, map);
  }
  return map;
}

/** The absolute path of a frame's file, or undefined for Node's own modules, eval code and native frames. */
function framePath(fileName: string | null | undefined): string | undefined {
  if (!fileName) return undefined;
  const file = fileName.startsWith('file://') ? fileURLToPath(fileName) : fileName;
  return path.isAbsolute(file) ? file : undefined;
}

/**
 * One frame as V8 prints it (`fn (/var/task/index.js:1:48213)`), its location
 * replaced by the original source's (`fn (/src/functions/x.ts:42:7)`: the source
 * path resolved against the map's folder, 1-based line and column) when the
 * frame's file has a map with an entry for that position; otherwise unchanged.
 */
export function mapStackFrame(frame: NodeJS.CallSite): string {
  const text = String(frame);
  const file = framePath(frame.getFileName());
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if (file === undefined || line === null || column === null) return text;
  const map = sourceMapOf(file);
  if (map === null) return text;
  const origin = map.findOrigin(line, column);
  if (!('fileName' in origin)) return text;
  const location = `${frame.getFileName()}:${line}:${column}`;
  const at = text.lastIndexOf(location);
  if (at < 0) return text;
  const source = path.resolve(path.dirname(file), origin.fileName);
  const mapped = `${source}:${origin.lineNumber}:${origin.columnNumber}`;
  return `${text.slice(0, at)}${mapped}${text.slice(at + location.length)}`;
}

/**
 * Sets `Error.prepareStackTrace` to format stacks as V8 does (Node's header line,
 * then `    at <frame>` per frame) with each frame mapped by
 * {@link mapStackFrame}; the header comes from the hook it replaces (Node's own
 * formatter since Node 20). Does nothing when Node already maps stacks
 * (`process.sourceMapsEnabled`, i.e. run with `--enable-source-maps`). A stack
 * formatted while one is being formatted (an error inside the mapping) is left
 * unmapped.
 */
export function installSourceMapStacks(): void {
  if (process.sourceMapsEnabled) return;
  const nodeDefault: PrepareStackTrace | undefined = Error.prepareStackTrace;
  let formatting = false;
  Error.prepareStackTrace = function prepareStackTrace(error: Error, frames: NodeJS.CallSite[]): unknown {
    // Node's header (`name [code]: message` for its own errors) without frames.
    const header = nodeDefault ? String(nodeDefault(error, [])) : Error.prototype.toString.call(error);
    if (frames.length === 0) return header;
    let lines: string[];
    if (formatting) {
      lines = frames.map(String);
    } else {
      formatting = true;
      try {
        lines = frames.map(mapStackFrame);
      } finally {
        formatting = false;
      }
    }
    return `${header}\n    at ${lines.join('\n    at ')}`;
  };
}
