/** The `start` action, the run's first state: its input checked and merged, the watermark input filled. */
import { identifierProblem, TENANT_ID } from '../../runtime/ids';
import type { EngineContext } from '../engine-context';
import type { EngineEvent } from '../events';
import { resolveInput } from '../inputs';
import type { RunState } from '../records';

/**
 * The run's `$.input` ({@link resolveInput}). When the scenario keeps a
 * watermark and the input leaves its input out, the tenant's kept mark fills it
 * (read once; an explicit value wins and reads nothing).
 *
 * @throws InvalidArgsError for a rejected input; a records read that fails rises as is
 *   (the Start state's retries, then `StartFailed`).
 */
export async function start(
  ctx: EngineContext,
  event: Extract<EngineEvent, { action: 'start' }>,
): Promise<RunState> {
  const scenario = ctx.scenarioOf(event.scenario);
  const given =
    event.input !== null && typeof event.input === 'object' && !Array.isArray(event.input)
      ? (event.input as Record<string, unknown>)
      : undefined;
  const watermark = scenario.watermark;
  let mark: string | undefined;
  if (watermark && given && !Object.hasOwn(given, watermark.input)) {
    const tenant = Object.hasOwn(given, 'tenant') ? given.tenant : scenario.inputs.tenant?.default;
    // A bad tenant is reported by resolveInput, with every other problem.
    if (identifierProblem(TENANT_ID, tenant, 'tenant') === undefined) {
      mark = (await ctx.records.readWatermark(tenant as string, scenario.name))?.value;
    }
  }
  return {
    input: resolveInput(scenario, event.input, { stage: 'start', ...(mark === undefined ? {} : { mark }) }),
    levels: {},
  };
}
