/**
 * Cold start of a few functions only (`npx tsx bench/cold-start-some.ts dispatcher aws_s3_inventory …`):
 * the same measurement as `npm run bench`'s cold-start section (bench/cold-start.ts),
 * for checking one change without bundling every function.
 */
import { bundle, lambdaEntries } from './bundles';
import { baselineBundle, DEFAULT_COLD_START_RUNS, measureColdStart } from './cold-start';
import { loadTimeEnvironment } from './load-time-environment';

async function main(names: readonly string[]): Promise<void> {
  const runs = Number(process.env.COLD_START_RUNS ?? DEFAULT_COLD_START_RUNS);
  for (const entry of lambdaEntries().filter((e) => names.length === 0 || names.includes(e.name))) {
    const bundled = await bundle(entry.name, entry);
    const baseline = await baselineBundle(bundled);
    const m = await measureColdStart(bundled, baseline.bundle, loadTimeEnvironment(), runs);
    process.stdout.write(
      `${entry.name}: ratio ${m.ratio.toFixed(3)} (${m.functionMs.toFixed(1)} ms vs ${m.baselineMs.toFixed(1)} ms; baseline ${baseline.clients.join(', ') || 'no client'}; ${runs} runs)\n`,
    );
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
