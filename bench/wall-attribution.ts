/**
 * Where a run's wall time goes, by who was on the JavaScript thread: a V8
 * sampling profile (node:inspector, "Profiler" domain) taken while `work` runs,
 * each sample's time (its `timeDeltas` entry: wall-clock microseconds since the
 * previous sample) given to the nearest frame of the stack whose script
 * `partOf` names, deepest first. Native frames (a `lstat`, a `JSON.parse`) thus
 * count for the JavaScript that called them. Samples V8 tags itself are their own
 * parts: `(garbage collector)`, `(idle)` (the thread waiting: timers, I/O) and
 * `(program)` (V8 and Node.js outside any script). With one JavaScript thread, a
 * part's time is wall time the rest of the run could not use: on a loaded machine
 * it includes the slices the OS gave to other processes while that part ran.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import * as path from 'node:path';

/** What {@link attributeWall} measured: ms per part, and the ms sampled in all. */
export interface WallAttribution<T> {
  readonly result: T;
  readonly ms: ReadonlyMap<string, number>;
  readonly sampledMs: number;
}

/** Sampling interval of the profile, in µs: 1 ms (V8's default is 1 ms too). */
const SAMPLING_INTERVAL_US = 1000;

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

/** Samples V8 names itself, not any script's. */
const V8_PARTS = new Set(['(garbage collector)', '(idle)', '(program)']);

/**
 * Runs `work` under the sampling profiler and returns its result with the wall
 * time of each part.
 *
 * @param partOf - a script's part from its URL (`file:///…`), or undefined to look further up the stack.
 * @param other - the part of a sample no frame of which `partOf` names.
 */
export async function attributeWall<T>(
  work: () => Promise<T>,
  partOf: (url: string) => string | undefined,
  other = 'other',
): Promise<WallAttribution<T>> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    const nodes = new Map<number, ProfileNode>(profile.nodes.map((node) => [node.id, node as ProfileNode]));
    const parentOf = new Map<number, number>();
    for (const node of nodes.values()) for (const child of node.children ?? []) parentOf.set(child, node.id);
    const partOfNode = new Map<number, string>();
    const resolve = (id: number): string => {
      const known = partOfNode.get(id);
      if (known) return known;
      const node = nodes.get(id) as ProfileNode;
      const name = node.callFrame.functionName;
      const own = V8_PARTS.has(name) ? name : node.callFrame.url ? partOf(node.callFrame.url) : undefined;
      const parent = parentOf.get(id);
      const part = own ?? (parent === undefined ? other : resolve(parent));
      partOfNode.set(id, part);
      return part;
    };
    const ms = new Map<string, number>();
    let sampledUs = 0;
    const samples = profile.samples ?? [];
    const deltas = profile.timeDeltas ?? [];
    samples.forEach((id, index) => {
      const us = deltas[index] ?? 0;
      sampledUs += us;
      const part = resolve(id);
      ms.set(part, (ms.get(part) ?? 0) + us / 1000);
    });
    return { result, ms, sampledMs: sampledUs / 1000 };
  } finally {
    await session.post('Profiler.disable').catch(() => undefined);
    session.disconnect();
  }
}

/**
 * The packages a package is made of at run time: itself and its `dependencies`
 * (from its package.json, not a hand-written list), by name.
 */
export function packageWithDependencies(name: string): readonly string[] {
  // The package.json above its entry point (packages with `exports` do not export their manifest).
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const read = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: string;
        dependencies?: Record<string, string>;
      };
      if (read.name === name) return [name, ...Object.keys(read.dependencies ?? {})];
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json of ${name} above ${require.resolve(name)}`);
    dir = up;
  }
}

/** The package a script URL belongs to (its last `node_modules/<name>` or `node_modules/@scope/<name>`), or undefined. */
export function packageOfUrl(url: string): string | undefined {
  const match = /.*node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(url);
  return match?.[1]?.split(path.sep).join('/');
}
