/**
 * `redact()` cost (issue 8, "Benchmark"): it runs on every tool result, error and
 * log line, so it must stay cheap.
 *
 * 1. A realistic 64 KiB tool result (an inventory: nested objects and arrays,
 *    ARNs, resource ids, tags, dates, digests, and a few secrets in tags and user
 *    data): p50 and p99 of `redact()` over many runs (target p50 ≤ 2 ms), with no
 *    resolved secret and with 50 resolved secret values masked by exact match.
 * 2. Adversarial 1 MB strings aimed at each pattern's repetition (long runs of
 *    key characters, separators, scheme prefixes, unclosed PEM blocks, base64):
 *    the time of one `redactString()` each (linear patterns finish in tens or hundreds of ms;
 *    catastrophic backtracking would take minutes).
 *
 * Standalone: `npx tsx bench/redact.ts` prints the figures. bench/run.ts can call
 * {@link measureRedaction} and print {@link redactionSection}.
 */
import * as os from 'node:os';
import { REDACTED, redact, redactString } from '../functions/runtime/redact';
import { SecretValues } from '../functions/runtime/secret-values';
import { fakeText } from '../test/helpers/fake-text';
import { atMost, type Figure, formatReport, quantile, type Section } from './report';

/** Target of issue 8: p50 of one `redact()` of a 64 KiB result, in ms. */
export const REDACT_P50_TARGET_MS = 2;
/** Bytes of the benchmark's tool result (the default result bound, harness.ts). */
const RESULT_BYTES = 64 * 1024;
const WARM_UP_RUNS = 200;
const MEASURED_RUNS = 2_000;
/** An adversarial string's size: 1 MB. */
const ADVERSARIAL_CHARS = 1024 * 1024;
/** A 1 MB string taking longer than this is a backtracking bug, not a slow machine. */
const ADVERSARIAL_LIMIT_MS = 1_000;

const HEX = '0123456789abcdef';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const REGIONS = ['us-east-1', 'eu-west-1', 'eu-central-1', 'ap-southeast-2'];
const STATES = ['running', 'stopped', 'running', 'running'];

/** One instance as an inventory tool reports it; every 10th carries a secret in a tag or its user data. */
function instance(i: number): Record<string, unknown> {
  const region = REGIONS[i % REGIONS.length] as string;
  const id = `i-0${fakeText(16, HEX, i + 1)}`;
  const tags: { Key: string; Value: string }[] = [
    { Key: 'Name', Value: `web-${i}` },
    { Key: 'team', Value: i % 2 ? 'platform' : 'payments' },
    {
      Key: 'aws:cloudformation:stack-id',
      Value: `arn:aws:cloudformation:${region}:123456789012:stack/app/${fakeText(8, HEX, i)}-0000-11ef-8000-${fakeText(12, HEX, i + 7)}`,
    },
  ];
  if (i % 10 === 3)
    tags.push({ Key: 'db', Value: `postgres://app:Fk${fakeText(14, ALNUM, i)}@db.internal:5432/app` });
  if (i % 10 === 7)
    tags.push({
      Key: 'deploy-note',
      Value: `bot xoxb-${fakeText(11, '0123456789', i)}-${fakeText(12, '0123456789', i + 1)}-${fakeText(24, ALNUM, i + 2)}`,
    });
  return {
    InstanceId: id,
    Arn: `arn:aws:ec2:${region}:123456789012:instance/${id}`,
    InstanceType: i % 3 ? 'm5.large' : 't3.micro',
    State: STATES[i % STATES.length],
    Region: region,
    LaunchTime: new Date(Date.UTC(2024, 0, 1 + (i % 28), i % 24)).toISOString(),
    ImageId: `ami-0${fakeText(16, HEX, i + 2)}`,
    SubnetId: `subnet-0${fakeText(16, HEX, i + 3)}`,
    SecurityGroups: [{ GroupId: `sg-0${fakeText(16, HEX, i + 4)}`, GroupName: 'web' }],
    Volumes: [
      { VolumeId: `vol-0${fakeText(16, HEX, i + 5)}`, SizeGiB: 8 + (i % 5) * 10, Encrypted: i % 4 !== 0 },
    ],
    Monitoring: i % 5 ? 'Basic monitoring' : 'Detailed monitoring',
    UserDataSha256: fakeText(64, HEX, i + 6),
    ...(i % 25 === 11
      ? { UserData: `export AWS_ACCESS_KEY_ID=AKIA${fakeText(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', i)}` }
      : {}),
    Tags: tags,
    MonthlyCostUsd: Math.round((i % 7) * 1234.5) / 100,
  };
}

/** An inventory result of about {@link RESULT_BYTES} bytes of JSON. */
export function realisticResult(bytes = RESULT_BYTES): Record<string, unknown> {
  const instances: Record<string, unknown>[] = [];
  const result = {
    ok: true,
    tool: 'aws_ec2_inventory',
    callId: 'collect/0',
    value: {
      account: '123456789012',
      regions: REGIONS,
      instances,
      findings: [] as Record<string, unknown>[],
      NextToken: null,
      partialErrors: [],
    },
    truncated: false,
    resultRef: null,
    durationMs: 412,
    summary: 'inventory',
  };
  for (let i = 0; JSON.stringify(result).length < bytes; i++) {
    instances.push(instance(i));
    if (i % 8 === 0) {
      result.value.findings.push({
        id: `ec2-stopped:${fakeText(16, HEX, i)}`,
        severity: 'medium',
        resource: instances[i]?.Arn,
        detail: `Instance stopped since 2024-01-${String(1 + (i % 28)).padStart(2, '0')}; its volumes still cost money.`,
      });
    }
  }
  return result;
}

/** Wall-clock p50 and p99 of one run, and the mean CPU time of one run, in ms. */
export interface Latency {
  readonly p50Ms: number;
  readonly p99Ms: number;
  /**
   * User + system CPU time over the measured runs, per run: what the work costs
   * whatever else the machine runs (wall time grows with the machine's load).
   */
  readonly cpuMeanMs: number;
}

/** What {@link measureRedaction} reports. */
export interface RedactionBench {
  readonly resultBytes: number;
  readonly runs: number;
  /** Secrets the result holds, and how many survived redaction (must be 0). */
  readonly planted: number;
  readonly survived: number;
  readonly plain: Latency;
  /** With 50 resolved secret values masked by exact match. */
  readonly withSecretValues: Latency;
  /** One `redactString()` of each 1 MB adversarial string, in ms. */
  readonly adversarial: readonly { readonly name: string; readonly ms: number }[];
}

function latency(run: () => unknown): Latency {
  for (let i = 0; i < WARM_UP_RUNS; i++) run();
  const samples: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < MEASURED_RUNS; i++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  return {
    p50Ms: quantile(samples, 0.5),
    p99Ms: quantile(samples, 0.99),
    cpuMeanMs: (used.user + used.system) / 1000 / MEASURED_RUNS,
  };
}

/** 1 MB strings built to make a backtracking pattern go quadratic or worse. */
function adversarialInputs(): readonly { readonly name: string; readonly text: string }[] {
  const fill = (unit: string) =>
    unit.repeat(Math.ceil(ADVERSARIAL_CHARS / unit.length)).slice(0, ADVERSARIAL_CHARS);
  return [
    { name: 'one long key-character run', text: fill('a') },
    { name: 'dotted run (a.a.a…)', text: fill('a.') },
    { name: 'separators only (=:=:…)', text: fill('=:') },
    { name: 'sensitive keys without values (password=…)', text: fill('password=') },
    { name: 'key: { never closed', text: fill('secret: {[') },
    { name: 'YAML keys without values (password:⏎ …)', text: fill('password:\n ') },
    { name: 'percent-encoded separators (%3D%3A…)', text: fill('token%3D%3A') },
    { name: 'scheme prefixes (a://a:…)', text: fill('a://a:') },
    { name: 'one URL, many @ hosts', text: `a://u:${fill('@x/')}` },
    { name: 'unclosed PEM headers', text: fill('-----BEGIN PRIVATE KEY-----') },
    { name: 'base64 run', text: fill('AbC1+/') },
    { name: 'token prefixes (xoxb-ghp_sk-…)', text: fill('xoxb-ghp_sk-eyJ') },
    { name: 'quotes and escapes ("\\"…)', text: fill('"password":\\"') },
    { name: 'Bearer / Basic words', text: fill('Bearer Basic ') },
    { name: 'AWS key id then base64', text: `AKIAABCDEFGHIJKLMNOP ${fill('A/b+')}` },
  ];
}

/**
 * Runs the measurements.
 *
 * @throws Error when a planted secret survives (the figures would be meaningless).
 */
export async function measureRedaction(): Promise<RedactionBench> {
  const result = realisticResult();
  const json = JSON.stringify(result);
  const planted = (json.match(/postgres:\/\/|xoxb-|AKIA/g) ?? []).length;
  const once = JSON.stringify(redact(result));
  const survived = (once.match(/:Fk[A-Za-z0-9]{14}@|xoxb-\d|AKIA[A-Z2-7]{16}/g) ?? []).length;
  if (survived > 0 || !once.includes(REDACTED))
    throw new Error(`${survived} planted secrets survived redaction`);

  const secretValues = new SecretValues();
  for (let i = 0; i < 50; i++) secretValues.add({ value: `Fk${fakeText(30, ALNUM, 9_000 + i)}` });

  const adversarial = adversarialInputs().map(({ name, text }) => {
    const started = performance.now();
    redactString(text);
    return { name, ms: performance.now() - started };
  });

  return {
    resultBytes: json.length,
    runs: MEASURED_RUNS,
    planted,
    survived,
    plain: latency(() => redact(result)),
    withSecretValues: latency(() => redact(result, { secretValues })),
    adversarial,
  };
}

/** The figures as a report section, with their targets. */
export function redactionSection(bench: RedactionBench): Section {
  const figures: Figure[] = [
    atMost('redact() 64 KiB result p50', bench.plain.p50Ms, REDACT_P50_TARGET_MS, 'ms', 3),
    { name: 'redact() 64 KiB result p99', value: `${bench.plain.p99Ms.toFixed(3)} ms` },
    { name: 'redact() 64 KiB result CPU per run', value: `${bench.plain.cpuMeanMs.toFixed(3)} ms` },
    atMost('redact() + 50 secret values p50', bench.withSecretValues.p50Ms, REDACT_P50_TARGET_MS, 'ms', 3),
    { name: 'redact() + 50 secret values p99', value: `${bench.withSecretValues.p99Ms.toFixed(3)} ms` },
    {
      name: 'redact() + 50 secret values CPU per run',
      value: `${bench.withSecretValues.cpuMeanMs.toFixed(3)} ms`,
    },
    ...bench.adversarial.map((a) =>
      atMost(`1 MB adversarial: ${a.name}`, a.ms, ADVERSARIAL_LIMIT_MS, 'ms', 1),
    ),
  ];
  return {
    title: `redact() (${(bench.resultBytes / 1024).toFixed(1)} KiB result, ${bench.runs} runs)`,
    figures,
    notes: [
      `${bench.planted} planted secrets, ${bench.survived} survived`,
      `load average ${os.loadavg()[0]?.toFixed(1)} on ${os.availableParallelism()} CPUs: wall times grow with it, CPU times do not`,
    ],
  };
}

if (require.main === module) {
  measureRedaction()
    .then((bench) =>
      process.stdout.write(formatReport([`node ${process.version}`], [redactionSection(bench)])),
    )
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
