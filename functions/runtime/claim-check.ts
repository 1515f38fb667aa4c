import { jsonByteLength, shrinkToFit } from './bound';
import type { ToolSuccess } from './result';
import { READ_FILE_MAX_BYTES } from './result-limits';
import type { ResultRef, Workspace } from './workspace';
import { sha256Hex } from './workspace-content';

/** Folder of a run's workspace holding claim-checked results. */
export const RESULTS_FOLDER = 'results';

/**
 * Where the full result of a call is stored in the run's workspace:
 * `results/<level>/<index>.json` from its call id `<level>/<index>`, and for a
 * per-account call (`for_each_account`, where `(runId, account, callId)` names a
 * call: each account's children reuse the level's call ids)
 * `results/accounts/<account>/<level>/<index>.json`. The same call, retried,
 * writes the same file, so a retry leaves one file, not two.
 *
 * @example claimCheckPath('collect/3') // 'results/collect/3.json'
 * @example claimCheckPath('collect/3', '111122223333') // 'results/accounts/111122223333/collect/3.json'
 */
export function claimCheckPath(callId: string, account?: string): string {
  return account === undefined
    ? `${RESULTS_FOLDER}/${callId}.json`
    : `${RESULTS_FOLDER}/accounts/${account}/${callId}.json`;
}

/** Bytes kept free for the stand-in's fields when sizing its preview. */
const STAND_IN_RESERVE_BYTES = 256;

/**
 * What a claim-checked result carries as its `value`: enough for a model or a
 * report to go on, and the way to the rest.
 */
export interface ClaimCheckValue {
  /** The tool's one-line summary. */
  readonly summary: string;
  /** Where the full result is, relative to the run's workspace, and its size. */
  readonly stored: { readonly path: string; readonly bytes: number };
  /** The value cut to fit the inline budget (arrays keep their first items, strings their start). */
  readonly preview: unknown;
  /** For a model: how to read the rest with `read_file`. */
  readonly note: string;
}

function noteFor(path: string, bytes: number): string {
  return (
    `This result is ${bytes.toLocaleString('en-US')} bytes of JSON, more than fits inline: preview shows its start. ` +
    `The whole result is the file ${path} of this run's workspace: read it in slices with read_file ` +
    `{"path":"${path}","offset":0} (up to ${READ_FILE_MAX_BYTES.toLocaleString('en-US')} bytes a call; ` +
    'each slice gives the next offset).'
  );
}

/**
 * The claim-check (docs/design.md, "Workspace, file tools and claim-check"): writes
 * the full, already redacted result to the run's workspace as compact JSON (half
 * the size of an indented one, so half the `read_file` slices)
 * (`{ ok, tool, callId, summary, truncated, shrunk?, value }`, value last so
 * the first slice a model reads starts with the summary) and returns it with
 * `resultRef` (`uri`, `bytes`, `sha256` of the stored file) and a
 * {@link ClaimCheckValue} instead of its value, at most `inlineBytes` of JSON in all.
 * `truncated` stays the tool's own: the stored value is whole.
 *
 * @param inlineBytes - the inline budget (`resultInlineBytes()`).
 * @param account - a per-account call's member account ({@link claimCheckPath}).
 * @throws whatever the workspace's write throws; the post-call work (post-call.ts) then shrinks the result instead.
 * @example
 * const checked = await claimCheck(result, workspace, 8192);
 * checked.resultRef; // { uri: 's3://etp-runs/runs/acme/aws_pulse/r1/results/collect/0.json', bytes: 312345, sha256: '…' }
 */
export async function claimCheck(
  result: ToolSuccess,
  workspace: Workspace,
  inlineBytes: number,
  account?: string,
): Promise<ToolSuccess<ClaimCheckValue>> {
  const path = claimCheckPath(result.callId, account);
  // No duration (nor any time): the same call retried stores the same bytes.
  const { ok, tool, callId, summary, truncated, shrunk, value } = result;
  // `shrunk` only when the tool's function already shrank it (boundResult), as on the result itself.
  const text = JSON.stringify({ ok, tool, callId, summary, truncated, ...(shrunk ? { shrunk } : {}), value });
  const file = await workspace.write(path, text, 'application/json');
  const resultRef: ResultRef = {
    uri: `${workspace.uri}${file.path}`,
    bytes: file.bytes,
    sha256: file.sha256 ?? sha256Hex(text),
  };
  const standIn = (preview: unknown): ToolSuccess<ClaimCheckValue> => ({
    ...result,
    resultRef,
    value: {
      summary,
      stored: { path: file.path, bytes: file.bytes },
      preview,
      note: noteFor(path, file.bytes),
    },
  });
  const budget = inlineBytes - jsonByteLength(standIn(null)) - STAND_IN_RESERVE_BYTES;
  const fitted = standIn(shrinkToFit(value, Math.max(64, budget)).value);
  return jsonByteLength(fitted) <= inlineBytes ? fitted : standIn(null);
}
