/**
 * A realistic log of the platform's own output, for the redaction scan bench
 * (issue 22, "Redaction"; issue 18, item 5): what a CloudWatch Logs export of a
 * deployment holds, one event per line.
 *
 * - Powertools JSON lines as `functions/runtime/logger.ts` writes them: the
 *   dispatcher's `tool call` / `tool result`, the engine's `agent turn` (model
 *   usage counts), `plan level done`, `tool failed` with normalized AWS and Slack
 *   errors (`ExpiredToken`, `ThrottlingException`), the Slack SDK's debug lines;
 * - Lambda's own `START` / `END` / `REPORT` lines;
 * - the CLI's progress and summary lines on stderr, with `key=value` usage
 *   figures (`tokens=1532 turns=6 cost_usd=0.0421`), pagination cursors
 *   (`NextToken=…`) and HTTP request lines of the REST connectors.
 *
 * `secrets` lines carry one credential each, taken in turn from the redaction
 * corpus (`test/unit/runtime/redaction-corpus.ts`, every form it holds), half in
 * a JSON log line (serialized, as a logger that did not redact would write it)
 * and half in a plain text line. Deterministic: the same bytes every run.
 */
import { fakeText } from '../test/helpers/fake-text';
import { SECRET_FORMS } from '../test/unit/runtime/redaction-corpus';

const HEX = '0123456789abcdef';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = `${ALNUM}+/`;
const TOOLS = [
  'aws_ec2_inventory',
  'aws_cost_breakdown',
  'aws_s3_inventory',
  'aws_iam_credential_report',
  'slack_post_message',
  'slack_channel_history',
  'snapshot_stats',
  'diff_snapshots',
  'read_file',
  'write_file',
  'finish',
];
const REGIONS = ['us-east-1', 'eu-west-1', 'eu-central-1', 'ap-southeast-2'];
const SCENARIOS = ['aws_pulse', 'snapshot_forensics', 'lead_qualifier'];
const LEVELS = ['collect', 'analyze', 'report'];

/** One planted credential: its line and the secret part that must not survive. */
export interface PlantedSecret {
  readonly line: number;
  readonly form: string;
  readonly secret: string;
}

/** The generated log. */
export interface PlatformLog {
  readonly lines: readonly string[];
  /** The lines joined by `\n`, as the file holds them. */
  readonly text: string;
  readonly planted: readonly PlantedSecret[];
}

function uuid(seed: number): string {
  const h = fakeText(32, HEX, seed);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
}

function timestamp(i: number): string {
  return new Date(Date.UTC(2026, 10, 30, 8) + i * 137).toISOString();
}

/** The standard Powertools keys (logger.ts) and the event's own. */
function jsonLine(i: number, level: string, message: string, fields: Record<string, unknown>): string {
  const service = fields.tool === undefined ? 'etp-engine' : 'etp-dispatcher';
  return JSON.stringify({
    level,
    message,
    timestamp: timestamp(i),
    service,
    cold_start: i % 97 === 0,
    function_name: service,
    function_request_id: uuid(i >> 3),
    xray_trace_id: `1-${fakeText(8, HEX, i >> 4)}-${fakeText(24, HEX, i >> 4)}`,
    ...fields,
  });
}

function run(i: number): Record<string, string> {
  const scenario = SCENARIOS[(i >> 6) % SCENARIOS.length] as string;
  return { tenant: i % 5 === 0 ? 'acme' : 'default', scenario, runId: `run-${fakeText(12, HEX, i >> 6)}` };
}

/** The i-th ordinary line of the log (no credential in it). */
function ordinaryLine(i: number): string {
  const tool = TOOLS[i % TOOLS.length] as string;
  const level = LEVELS[(i >> 2) % LEVELS.length] as string;
  const callId = `${level}/${i % 13}`;
  const region = REGIONS[i % REGIONS.length] as string;
  const requestId = uuid(i);
  const tokens = 200 + ((i * 7919) % 9000);
  switch (i % 16) {
    case 0:
      return jsonLine(i, 'INFO', 'tool call', {
        ...run(i),
        scenarioLevel: level,
        tool,
        callId,
        args: { regions: [region], max_results: 100, since: '2026-11-01' },
      });
    case 1:
      return jsonLine(i, 'INFO', 'tool result', {
        tool,
        callId,
        ok: true,
        truncated: i % 9 === 0,
        durationMs: 40 + (i % 900),
      });
    case 2:
      return jsonLine(i, 'INFO', 'agent turn', {
        ...run(i),
        scenarioLevel: level,
        turn: i % 8,
        tools: [tool, 'read_file'],
        asked: false,
        inputTokens: tokens,
        outputTokens: tokens >> 4,
      });
    case 3:
      return `START RequestId: ${requestId} Version: $LATEST`;
    case 4:
      return `END RequestId: ${requestId}`;
    case 5:
      return (
        `REPORT RequestId: ${requestId}\tDuration: ${(i % 1000) + 0.37} ms\tBilled Duration: ${(i % 1000) + 1} ms\t` +
        `Memory Size: 512 MB\tMax Memory Used: ${80 + (i % 90)} MB`
      );
    case 6:
      return `etp: ${run(i).scenario} ${level}: turn ${i % 8} tokens=${tokens} in=${tokens - 120} out=120 cached=0 tools=${tool}`;
    case 7:
      return `etp: run ${run(i).runId} done: levels=3 turns=${i % 12} tokens=${tokens * 3} cost_usd=0.${fakeText(4, '0123456789', i)} duration_ms=${i % 60000}`;
    case 8:
      return jsonLine(i, 'WARN', 'tool failed', {
        tool,
        callId,
        error: {
          code: i % 3 === 0 ? 'auth_failed' : 'throttled',
          message:
            i % 3 === 0
              ? 'ExpiredToken: The security token included in the request is expired'
              : 'Rate exceeded',
          retryable: i % 3 !== 0,
          service: 'ec2',
          details: { awsError: i % 3 === 0 ? 'ExpiredToken' : 'ThrottlingException', requestId },
        },
      });
    case 9:
      return `DescribeInstances ${region} page ${i % 20}: 1000 instances NextToken=${fakeText(48, B64, i)}`;
    case 10:
      return jsonLine(i, 'DEBUG', 'slack sdk', {
        tool: 'slack_channel_history',
        sdk: `http request result: {"ok":true,"has_more":true,"response_metadata":{"next_cursor":"${fakeText(20, ALNUM, i)}"}}`,
      });
    case 11:
      return `GET https://api.github.com/repos/acme/app/issues?state=open&per_page=100&page=${i % 9} -> 200 (x-ratelimit-remaining=${4999 - (i % 4000)}, ${i % 300} ms)`;
    case 12:
      return jsonLine(i, 'INFO', 'plan level done', {
        ...run(i),
        scenarioLevel: level,
        outcome: { calls: i % 9, failed: i % 2, usage: { input_tokens: tokens, output_tokens: tokens >> 3 } },
        usage: { tokens, cacheReadTokens: 0, secrets: i % 3, NextToken: fakeText(24, B64, i) },
      });
    case 13:
      return `etp secrets list --tenant acme: secret_name=slack_default ref_kind=secrets_manager updated_at=${timestamp(i)}`;
    case 14:
      return jsonLine(i, 'INFO', 'credentials renewed after an auth failure; running the call once more', {
        tool,
        callId,
        failures: [{ secretName: 'aws_default', code: 'ExpiredToken' }],
        renewed: ['aws_default'],
      });
    default:
      return `bench: snapshot_stats over ${1000 + i} objects: ${(i % 5000) / 10} ms, rows=${i * 13} bytes=${i * 4096}`;
  }
}

/** How `text` appears in a line: JSON-escaped in a JSON log line, its line breaks escaped in a text line. */
function asWritten(i: number, text: string): string {
  return i % 2 === 0 ? JSON.stringify(text).slice(1, -1) : text.replace(/\r?\n/g, '\\n');
}

/** A line carrying `text` (a corpus form), as a JSON log line or a CLI line. */
function secretLine(i: number, text: string): string {
  return i % 2 === 0
    ? jsonLine(i, 'ERROR', 'tool threw', {
        tool: TOOLS[i % TOOLS.length],
        error: { name: 'Error', message: `upstream said ${text}` },
      })
    : `etp: call failed: ${asWritten(i, text)} (see the runbook)`;
}

/**
 * Generates about `bytes` of log with `secrets` planted credentials spread evenly.
 *
 * @param bytes - target size of the text, in bytes (UTF-8; the lines are ASCII).
 * @param secrets - credentials to plant, taken in turn from the corpus.
 */
export function platformLog(bytes = 10 * 1024 * 1024, secrets = 200): PlatformLog {
  const ordinary: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = ordinaryLine(i);
    ordinary.push(line);
    size += line.length + 1;
  }
  const every = Math.max(1, Math.floor(ordinary.length / secrets));
  const lines: string[] = [];
  const planted: PlantedSecret[] = [];
  for (let i = 0; i < ordinary.length; i++) {
    const k = i / every;
    if (i % every === 0 && planted.length < secrets) {
      const form = SECRET_FORMS[k % SECRET_FORMS.length] as (typeof SECRET_FORMS)[number];
      planted.push({ line: lines.length, form: form.name, secret: asWritten(k, form.secret) });
      lines.push(secretLine(k, form.text));
    }
    lines.push(ordinary[i] as string);
  }
  return { lines, text: lines.join('\n'), planted };
}
