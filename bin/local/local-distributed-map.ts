/**
 * Distributed Map states for the local interpreter. aws-local-stepfunctions
 * (its MapStateAction) runs every Map inline: it reads `ItemsPath`,
 * `ItemSelector`/`Parameters`, `MaxConcurrency(Path)` and `ItemProcessor`, and
 * ignores `ProcessorConfig`, `ItemReader`, `ItemBatcher`, `ResultWriter`,
 * `ToleratedFailurePercentage`/`Count` and `Label`; one failed iteration fails
 * the whole Map. So before a definition runs locally, each Map whose
 * `ProcessorConfig.Mode` is `DISTRIBUTED` becomes a Task state routed here, which
 * does what the service does with those fields (docs/organizations-runs.md,
 * "Running locally" lists what still differs):
 *
 * - `ItemReader` with `arn:aws:states:::s3:getObject` and `ReaderConfig.InputType`
 *   `JSON` reads a JSON array from the {@link LocalObjectStore}; otherwise `ItemsPath`;
 * - `ItemSelector` per item (`$$.Map.Item.Index`/`Value`), then `ItemBatcher`
 *   (`MaxItemsPerBatch`, `MaxInputBytesPerBatch`, `BatchInput`): `{ Items, BatchInput }`;
 * - each item or batch a child execution of the `ItemProcessor` (run by the same
 *   local interpreter, its Tasks routed like the parent's), `MaxConcurrency` at once;
 * - a failed child is recorded, not thrown; past `ToleratedFailurePercentage` or
 *   `ToleratedFailureCount` the state fails with `States.ExceedToleratedFailureThreshold`;
 * - `ResultWriter` (`arn:aws:states:::s3:putObject`) writes `manifest.json`,
 *   `SUCCEEDED_0.json` and `FAILED_0.json` under `<Prefix>/<map run id>/` in the
 *   service's format, and the state's result is `{ MapRunArn, ResultWriterDetails }`;
 *   without it, the array of the children's outputs.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

type LocalStepFunctions = typeof import('aws-local-stepfunctions', { with: { 'resolution-mode': 'require' }});
const { StateMachine }: LocalStepFunctions = require('aws-local-stepfunctions');
type StateMachineDefinition = ConstructorParameters<LocalStepFunctions['StateMachine']>[0];
type Json = Parameters<InstanceType<LocalStepFunctions['StateMachine']>['run']>[0];

/** The Task resource a Distributed Map is routed under locally (no such resource exists in the service). */
export const LOCAL_DISTRIBUTED_MAP_RESOURCE = 'arn:aws:states:::local:distributedMap';

/** S3 objects as a local Distributed Map reads and writes them (`ItemReader`, `ResultWriter`). */
export interface LocalObjectStore {
  /** @throws Error when the object does not exist (the state fails as the service's `States.ItemReaderFailed`). */
  get(bucket: string, key: string): Promise<string>;
  put(bucket: string, key: string, body: string): Promise<void>;
}

/**
 * Objects of one bucket kept under a directory, at `<dir>/<key>`: the layout of
 * bin/local/local-workspace.ts, so `runs/<tenant>/<scenario>/<runId>/…` keys are
 * the run workspaces' files.
 *
 * @throws Error (from `get`/`put`) for another bucket, or a key leaving the directory.
 */
export function directoryObjectStore(dir: string, bucket: string): LocalObjectStore {
  const file = (name: string, key: string) => {
    if (name !== bucket) throw new Error(`Local S3 holds bucket ${bucket} only, not ${name}`);
    const target = path.resolve(dir, ...key.split('/'));
    if (!target.startsWith(`${path.resolve(dir)}${path.sep}`)) throw new Error(`Key ${key} leaves ${dir}`);
    return target;
  };
  return {
    get: async (name, key) => readFile(file(name, key), 'utf8'),
    put: async (name, key, body) => {
      const target = file(name, key);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, body);
    },
  };
}

/** How a routed Distributed Map runs its children: one local execution of the processor each. */
export type ChildRunner = (
  processor: Record<string, unknown>,
  input: unknown,
  name: string,
  /** The child's place among the Map's children, from 0. */
  index: number,
) => Promise<unknown>;

/** The parent execution's context object (`$$`), for the fields' paths. */
export type ContextObject = Record<string, unknown>;

/** Whether a state is a Distributed Map. */
function isDistributedMap(state: Record<string, unknown>): boolean {
  const processor = state.ItemProcessor as { ProcessorConfig?: { Mode?: string } } | undefined;
  return state.Type === 'Map' && processor?.ProcessorConfig?.Mode === 'DISTRIBUTED';
}

/** Fields the routed Task keeps from the Map; the rest are read by the route. */
const KEPT_FIELDS = [
  'Comment',
  'InputPath',
  'ResultPath',
  'ResultSelector',
  'OutputPath',
  'Retry',
  'Catch',
  'Next',
  'End',
];

/**
 * The definition with each top-level Distributed Map replaced by a Task state
 * ({@link LOCAL_DISTRIBUTED_MAP_RESOURCE}), and those Maps by state name.
 */
export function routeDistributedMaps(definition: { States: Record<string, Record<string, unknown>> }): {
  readonly states: Record<string, Record<string, unknown>>;
  readonly maps: Readonly<Record<string, Record<string, unknown>>>;
} {
  const maps: Record<string, Record<string, unknown>> = {};
  const states = Object.fromEntries(
    Object.entries(definition.States).map(([name, state]) => {
      if (!isDistributedMap(state)) return [name, state];
      maps[name] = state;
      return [
        name,
        {
          Type: 'Task',
          Resource: LOCAL_DISTRIBUTED_MAP_RESOURCE,
          ...Object.fromEntries(
            KEPT_FIELDS.filter((field) => field in state).map((field) => [field, state[field]]),
          ),
        },
      ];
    }),
  );
  return { states, maps };
}

/** A payload template (`.$` paths, intrinsic functions) evaluated by the interpreter itself, as a Pass state's `Parameters`. */
async function evaluate(template: unknown, input: unknown, context: ContextObject): Promise<unknown> {
  if (template === undefined) return input;
  const machine = new StateMachine(
    {
      StartAt: 'e',
      States: { e: { Type: 'Pass', Parameters: template, End: true } },
    } as unknown as StateMachineDefinition,
    { validationOptions: { noValidate: true } },
  );
  return machine.run(input as Json, { context: context as Record<string, Json> }).result;
}

/** Thrown when more children failed than the Map tolerates; its name is the service's error. */
class ToleratedFailureError extends Error {
  override readonly name = 'States.ExceedToleratedFailureThreshold';
}

interface ChildOutcome {
  readonly name: string;
  readonly input: unknown;
  readonly output?: unknown;
  readonly error?: string;
  readonly cause?: string;
  readonly startDate: string;
  readonly stopDate: string;
}

/** Items of the Map: from `ItemReader` (a JSON array in the object store) or `ItemsPath`. */
async function itemsOf(
  state: Record<string, unknown>,
  input: unknown,
  context: ContextObject,
  objects: LocalObjectStore | undefined,
): Promise<unknown[]> {
  const reader = state.ItemReader as
    | { Resource?: string; ReaderConfig?: { InputType?: string }; Parameters?: Record<string, unknown> }
    | undefined;
  if (!reader) {
    const items = await evaluate({ 'items.$': state.ItemsPath ?? '$' }, input, context);
    const list = (items as { items?: unknown }).items;
    if (!Array.isArray(list)) throw new Error("The Map's ItemsPath does not name an array");
    return list;
  }
  if (reader.Resource !== 'arn:aws:states:::s3:getObject' || reader.ReaderConfig?.InputType !== 'JSON') {
    throw new Error(
      `Locally, ItemReader reads a JSON array with arn:aws:states:::s3:getObject only (got ${reader.Resource}, ${reader.ReaderConfig?.InputType})`,
    );
  }
  if (!objects)
    throw new Error('This Distributed Map reads its items from S3: give the local run an object store');
  const { Bucket, Key } = (await evaluate(reader.Parameters, input, context)) as {
    Bucket: string;
    Key: string;
  };
  const items = JSON.parse(await objects.get(Bucket, Key)) as unknown;
  if (!Array.isArray(items))
    throw Object.assign(new Error(`s3://${Bucket}/${Key} is not a JSON array`), {
      name: 'States.ItemReaderFailed',
    });
  return items;
}

/** Items → child inputs: `ItemSelector` per item, then `ItemBatcher`. */
async function childInputsOf(
  state: Record<string, unknown>,
  items: readonly unknown[],
  input: unknown,
  context: ContextObject,
): Promise<unknown[]> {
  const selected: unknown[] = [];
  for (const [index, value] of items.entries()) {
    selected.push(
      state.ItemSelector === undefined
        ? value
        : await evaluate(state.ItemSelector, input, {
            ...context,
            Map: { Item: { Index: index, Value: value } },
          }),
    );
  }
  const batcher = state.ItemBatcher as
    | { MaxItemsPerBatch?: number; MaxInputBytesPerBatch?: number; BatchInput?: Record<string, unknown> }
    | undefined;
  if (!batcher) return selected;
  const batchInput =
    batcher.BatchInput === undefined ? undefined : await evaluate(batcher.BatchInput, input, context);
  const maxItems = batcher.MaxItemsPerBatch ?? Number.POSITIVE_INFINITY;
  // The service's default and ceiling: 256 KiB per batch (Step Functions developer guide, "ItemBatcher").
  const maxBytes = batcher.MaxInputBytesPerBatch ?? 256 * 1024;
  const batches: unknown[][] = [];
  let bytes = 0;
  for (const item of selected) {
    const size = Buffer.byteLength(JSON.stringify(item));
    const last = batches.at(-1);
    if (!last || last.length >= maxItems || bytes + size > maxBytes) {
      batches.push([item]);
      bytes = size;
    } else {
      last.push(item);
      bytes += size;
    }
  }
  return batches.map((batch) => ({
    Items: batch,
    ...(batchInput === undefined ? {} : { BatchInput: batchInput }),
  }));
}

/** Runs `tasks` with at most `limit` at once (0: unbounded, as `MaxConcurrency: 0` means). */
async function pool<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit || tasks.length, tasks.length) }, worker));
  return results;
}

/**
 * Runs one routed Distributed Map: what the Task state's handler does with the
 * state's effective input (module header). Children that fail are kept as
 * `FAILED` results; the route throws only past the tolerated failures, or when
 * the items or the results cannot be read or written.
 *
 * @throws Error named `States.ExceedToleratedFailureThreshold` past `ToleratedFailurePercentage`/`Count`.
 */
export async function runDistributedMap(
  stateName: string,
  state: Record<string, unknown>,
  input: unknown,
  context: ContextObject,
  runChild: ChildRunner,
  objects?: LocalObjectStore,
): Promise<unknown> {
  const items = await itemsOf(state, input, context, objects);
  const childInputs = await childInputsOf(state, items, input, context);
  const processor = state.ItemProcessor as Record<string, unknown>;
  const { ProcessorConfig: _config, ...definition } = processor;
  const mapRunId = randomUUID();
  const execution = context.Execution as { Id: string; Name: string };
  const machineName = execution.Id.split(':')[6] ?? 'local';
  const label = typeof state.Label === 'string' ? state.Label : stateName;
  const outcomes = await pool(
    childInputs.map((childInput, index) => async (): Promise<ChildOutcome> => {
      const name = `${mapRunId.slice(0, 8)}-${index}`;
      const startDate = new Date().toISOString();
      try {
        const output = await runChild(definition, childInput, name, index);
        return { name, input: childInput, output, startDate, stopDate: new Date().toISOString() };
      } catch (err) {
        const failure = err as {
          name?: string;
          message?: string;
          cause?: { name?: string; message?: string };
        };
        const inner = failure.cause ?? failure;
        return {
          name,
          input: childInput,
          error: inner.name ?? 'Error',
          cause: inner.message ?? String(err),
          startDate,
          stopDate: new Date().toISOString(),
        };
      }
    }),
    Number(state.MaxConcurrency ?? 0),
  );
  const failed = outcomes.filter((outcome) => outcome.error !== undefined);
  // Without either field no failure is tolerated; with both, passing either fails the Map.
  const percentage =
    state.ToleratedFailurePercentage === undefined ? undefined : Number(state.ToleratedFailurePercentage);
  const count = state.ToleratedFailureCount === undefined ? undefined : Number(state.ToleratedFailureCount);
  const tolerated =
    failed.length === 0 ||
    ((percentage !== undefined || count !== undefined) &&
      !(percentage !== undefined && (failed.length / outcomes.length) * 100 > percentage) &&
      !(count !== undefined && failed.length > count));
  const mapRunArn = `arn:aws:states:local:000000000000:mapRun:${machineName}/${label}:${mapRunId}`;
  const writer = state.ResultWriter as
    | { Resource?: string; Parameters?: Record<string, unknown> }
    | undefined;
  let result: unknown = outcomes.map((outcome) => outcome.output ?? null);
  if (writer) {
    if (!objects)
      throw new Error('This Distributed Map writes its results to S3: give the local run an object store');
    const { Bucket, Prefix } = (await evaluate(writer.Parameters, input, context)) as {
      Bucket: string;
      Prefix?: string;
    };
    const base = `${(Prefix ?? '').replace(/\/$/, '')}/${mapRunId}`;
    const entry = (outcome: ChildOutcome) => ({
      ExecutionArn: `arn:aws:states:local:000000000000:execution:${machineName}/${label}:${outcome.name}`,
      Input: JSON.stringify(outcome.input),
      InputDetails: { Included: true },
      Name: outcome.name,
      ...(outcome.error === undefined
        ? { Output: JSON.stringify(outcome.output), OutputDetails: { Included: true } }
        : { Error: outcome.error, Cause: outcome.cause }),
      RedriveCount: 0,
      RedriveStatus: 'NOT_REDRIVABLE',
      StartDate: outcome.startDate,
      StateMachineArn: `arn:aws:states:local:000000000000:stateMachine:${machineName}/${label}`,
      Status: outcome.error === undefined ? 'SUCCEEDED' : 'FAILED',
      StopDate: outcome.stopDate,
    });
    const files: Record<string, { Key: string; Size: number }[]> = { FAILED: [], PENDING: [], SUCCEEDED: [] };
    for (const [status, list] of [
      ['SUCCEEDED', outcomes.filter((outcome) => outcome.error === undefined)],
      ['FAILED', failed],
    ] as const) {
      if (list.length === 0) continue;
      const key = `${base}/${status}_0.json`;
      const body = JSON.stringify(list.map(entry));
      await objects.put(Bucket, key, body);
      files[status]?.push({ Key: key, Size: Buffer.byteLength(body) });
    }
    const manifestKey = `${base}/manifest.json`;
    await objects.put(
      Bucket,
      manifestKey,
      JSON.stringify({ DestinationBucket: Bucket, MapRunArn: mapRunArn, ResultFiles: files }),
    );
    result = { MapRunArn: mapRunArn, ResultWriterDetails: { Bucket, Key: manifestKey } };
  }
  if (!tolerated) {
    throw new ToleratedFailureError(
      `${failed.length} of ${outcomes.length} child executions failed, more than the Map tolerates (ToleratedFailurePercentage ${percentage ?? 'unset'}, ToleratedFailureCount ${count ?? 'unset'})`,
    );
  }
  return result;
}
