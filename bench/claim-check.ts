/**
 * Claim-check cost: the dispatcher's work on a large result — redaction, JSON
 * serialization, SHA-256, the write to a local-directory workspace and the
 * stand-in's preview — against the same result shrunk without a workspace, and
 * the sizes that reach the state. S3 request latency is not included (no AWS
 * here): add one PutObject per claim-checked call, tens of ms in-region.
 *
 * `npx tsx bench/claim-check.ts` prints the figures; `measureClaimCheck()` returns
 * them for a report.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { localWorkspaceProvider } from '../bin/local/local-workspace';
import { createDispatcher } from '../functions/dispatcher/dispatch';
import { jsonByteLength } from '../functions/runtime/bound';
import { functionTool, ToolCatalog } from '../functions/runtime/catalog';
import { deadlineIn } from '../functions/runtime/deadline';
import { runTool } from '../functions/runtime/harness';
import { logger } from '../functions/runtime/logger';
import { DEFAULT_RESULT_INLINE_BYTES, FULL_RESULT_MAX_BYTES } from '../functions/runtime/result-limits';
import { defineTool, defineToolSpec, type Tool } from '../functions/runtime/spec';
import { nativeEnvelope } from '../test/helpers/events';
import { quantile } from './report';

/** Runs per size: enough for a stable median of calls taking milliseconds. */
const RUNS = 15;

/** One measured size. */
export interface ClaimCheckFigure {
  /** JSON bytes of the tool's value. */
  readonly valueBytes: number;
  /** Median ms per dispatcher call, claim-checked to a local directory. */
  readonly claimCheckMs: number;
  /** Median ms per call without a workspace (shrunk to 64 KiB). */
  readonly shrinkMs: number;
  /** JSON bytes of the result the state receives, claim-checked. */
  readonly inlineBytes: number;
  /** Bytes of the stored file. */
  readonly storedBytes: number;
}

/** Rows of about 150 bytes, as inventories return them. */
function rowsOfAbout(bytes: number) {
  const rows = Math.ceil(bytes / 150);
  return {
    total: rows,
    rows: Array.from({ length: rows }, (_, i) => ({
      id: `i-${String(i).padStart(17, '0')}`,
      type: 'm5.large',
      state: i % 7 === 0 ? 'stopped' : 'running',
      tags: { team: `team-${i % 13}`, env: 'prod' },
    })),
  };
}

async function median(call: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return quantile(times, 0.5);
}

/** Measures the claim-check for values of about 300 KB and 1 MB. */
export async function measureClaimCheck(
  sizes: readonly number[] = [450_000, 1_450_000],
): Promise<ClaimCheckFigure[]> {
  // What is measured is the claim-check, not logging; log lines would also mix with the report on stdout.
  logger.setLogLevel('SILENT');
  const baseDir = await mkdtemp(path.join(tmpdir(), 'etp-bench-claim-check-'));
  const figures: ClaimCheckFigure[] = [];
  try {
    for (const size of sizes) {
      const value = rowsOfAbout(size);
      const tool = defineTool(
        defineToolSpec({
          name: 'bench_big',
          description: 'Returns a large value. Benchmark only.',
          inputSchema: z.strictObject({}),
          tags: ['bench'],
          requiresSecrets: [],
          sideEffects: 'none',
          iam: [],
        }),
        async () => ({ value, summary: `${value.total} rows` }),
      ) as unknown as Tool;
      const options = {
        catalog: new ToolCatalog([functionTool(tool, 'bench/big')]),
        whitelists: { bench: { collect: ['bench_big'] } },
        invoker: {
          invoke: async (_spec: unknown, invocation: Parameters<typeof runTool>[1]) =>
            runTool(tool, invocation, deadlineIn(60_000), { logger }, FULL_RESULT_MAX_BYTES),
        },
        services: { logger },
        logger,
        maxResultBytes: 64 * 1024,
        requireLevel: true,
      };
      const withWorkspace = createDispatcher({ ...options, workspaces: localWorkspaceProvider(baseDir) });
      const without = createDispatcher(options);
      const envelope = nativeEnvelope({ scenario: 'bench', level: 'collect', tool: 'bench_big', args: {} });
      const checked = await withWorkspace(envelope, deadlineIn(60_000));
      figures.push({
        valueBytes: jsonByteLength(value),
        claimCheckMs: await median(() => withWorkspace(envelope, deadlineIn(60_000))),
        shrinkMs: await median(() => without(envelope, deadlineIn(60_000))),
        inlineBytes: jsonByteLength(checked),
        storedBytes: checked.ok ? (checked.resultRef?.bytes ?? 0) : 0,
      });
    }
  } finally {
    await rm(baseDir, { recursive: true, force: true });
  }
  return figures;
}

if (require.main === module) {
  measureClaimCheck().then(
    (figures) => {
      process.stdout.write(`inline budget: ${DEFAULT_RESULT_INLINE_BYTES} bytes; median of ${RUNS} calls\n`);
      for (const figure of figures) process.stdout.write(`${JSON.stringify(figure)}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
