import { boundResult, jsonByteLength, shrinkToFit } from '../../../functions/runtime/bound';
import type { ToolSuccess } from '../../../functions/runtime/result';
import {
  LAMBDA_SYNC_PAYLOAD_BYTES,
  RESULT_ENVELOPE_RESERVE_BYTES,
  STEP_FUNCTIONS_PAYLOAD_BYTES,
} from '../../../functions/runtime/result-limits';

/** An EC2 DescribeInstances-like inventory of `count` instances, about 100 bytes each. */
function inventory(count: number) {
  return {
    account: '123456789012',
    regions: ['eu-west-1', 'us-east-1'],
    instances: Array.from({ length: count }, (_, i) => ({
      InstanceId: `i-${i.toString(16).padStart(17, '0')}`,
      State: 'running',
      Tags: [{ Key: 'Name', Value: `web-${i}` }],
    })),
    summary: 'all instances',
  };
}

function nested(depth: number, leaf: unknown): unknown {
  let node = leaf;
  for (let i = 0; i < depth; i++) node = { level: i, child: node };
  return node;
}

describe('shrinkToFit()', () => {
  it('returns a value that already fits as is (same reference)', () => {
    // Prepare
    const value = inventory(3);

    // Act
    const bounded = shrinkToFit(value, 4096);

    // Assess
    expect(bounded.truncated).toBe(false);
    expect(bounded.value).toBe(value);
  });

  it('bounds a 7 MB value to the Step Functions limit: valid JSON, same top-level shape, prefix kept', () => {
    // Prepare
    const value = inventory(70_000);
    const before = JSON.stringify(value);

    // Act
    const bounded = shrinkToFit(value, STEP_FUNCTIONS_PAYLOAD_BYTES);

    // Assess
    expect(Buffer.byteLength(before)).toBeGreaterThan(LAMBDA_SYNC_PAYLOAD_BYTES);
    expect(bounded.truncated).toBe(true);
    const text = JSON.stringify(bounded.value);
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(STEP_FUNCTIONS_PAYLOAD_BYTES);
    const out = JSON.parse(text) as ReturnType<typeof inventory>;
    expect(Object.keys(out)).toEqual(['account', 'regions', 'instances', 'summary']);
    expect(out.account).toBe('123456789012');
    expect(out.regions).toEqual(['eu-west-1', 'us-east-1']);
    expect(out.summary).toBe('all instances');
    expect(out.instances.length).toBeGreaterThan(1000);
    expect(out.instances.length).toBeLessThan(70_000);
    // Compared as JSON text: toEqual over 70,000 objects takes seconds.
    expect(JSON.stringify(out.instances)).toBe(
      JSON.stringify(value.instances.slice(0, out.instances.length)),
    );
    expect(JSON.stringify(value)).toBe(before);
  });

  it('uses most of the budget (the cut is not wasteful)', () => {
    // Act
    const bounded = shrinkToFit(inventory(5_000), 64 * 1024);

    // Assess
    expect(jsonByteLength(bounded.value)).toBeGreaterThan(60 * 1024);
    expect(jsonByteLength(bounded.value)).toBeLessThanOrEqual(64 * 1024);
  });

  it('cuts a top-level string to a prefix followed by an ellipsis', () => {
    // Prepare
    const text = 'abcdefghij'.repeat(1_000);

    // Act
    const bounded = shrinkToFit(text, 100);

    // Assess
    expect(bounded.truncated).toBe(true);
    const out = bounded.value as string;
    expect(jsonByteLength(out)).toBeLessThanOrEqual(100);
    expect(out.endsWith('…')).toBe(true);
    expect(text.startsWith(out.slice(0, -1))).toBe(true);
    expect(out.length).toBeGreaterThan(90);
  });

  it('keeps small members whole and cuts the large ones of an object', () => {
    // Prepare
    const value = { id: 'vol-0abc', log: 'x'.repeat(50_000), lines: Array(5_000).fill('line'), size: 8 };

    // Act
    const bounded = shrinkToFit(value, 2_048);

    // Assess
    const out = bounded.value as typeof value;
    expect(jsonByteLength(out)).toBeLessThanOrEqual(2_048);
    expect(out.id).toBe('vol-0abc');
    expect(out.size).toBe(8);
    expect(out.log.length).toBeGreaterThan(400);
    expect(out.lines.length).toBeGreaterThan(50);
    expect(out.lines.every((line) => line === 'line')).toBe(true);
  });

  it('counts multibyte UTF-8 in bytes and never splits a surrogate pair', () => {
    // Prepare: "é" takes 2 bytes, "€" 3, "😀" 4 (two UTF-16 units).
    const value = { fr: 'é'.repeat(2_000), eur: '€'.repeat(2_000), emoji: '😀'.repeat(2_000) };

    // Act
    const bounded = shrinkToFit(value, 1_000);

    // Assess
    const text = JSON.stringify(bounded.value);
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(1_000);
    expect(text.length).toBeLessThan(1_000);
    expect(text).not.toMatch(/\\ud[89a-f]/i);
    const out = bounded.value as typeof value;
    expect(out.emoji).toMatch(/^(😀)+…$/u);
    expect(out.fr).toMatch(/^é+…$/);
    expect(out.eur).toMatch(/^€+…$/);
  });

  it('bounds deep nesting without overflowing the stack', () => {
    // Prepare: 3,000 levels (JSON.stringify itself fails a little deeper).
    const value = nested(3_000, 'x'.repeat(100_000));

    // Act
    const bounded = shrinkToFit(value, 4_096);

    // Assess: the first 100 levels keep their shape; below, the subtree becomes a prefix of its JSON.
    expect(bounded.truncated).toBe(true);
    expect(jsonByteLength(bounded.value)).toBeLessThanOrEqual(4_096);
    let node = bounded.value as { level: number; child: unknown };
    for (let level = 2_999; level > 2_899; level--) {
      expect(node.level).toBe(level);
      node = node.child as typeof node;
    }
    expect(node).toMatch(/^\{"level":2899,"child":\{"level":2898,.*…$/);
  });

  it('cuts a long string a few levels down', () => {
    // Act
    const bounded = shrinkToFit(nested(5, 'y'.repeat(10_000)), 500);

    // Assess
    const text = JSON.stringify(bounded.value);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(500);
    expect(text).toMatch(/"child":"y+…"/);
  });

  it('falls back to a preview for an object of 100k small keys, quickly', () => {
    // Prepare
    const value: Record<string, string> = {};
    for (let i = 0; i < 100_000; i++) value[`k${i}`] = `v${i}`;
    const started = performance.now();

    // Act
    const bounded = shrinkToFit(value, 4_096);

    // Assess
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(bounded.truncated).toBe(true);
    const out = bounded.value as { preview: string };
    expect(Object.keys(out)).toEqual(['preview']);
    expect(out.preview.startsWith('{"k0":"v0","k1":"v1",')).toBe(true);
    expect(jsonByteLength(out)).toBeLessThanOrEqual(4_096);
  });

  it('never mutates its input', () => {
    // Prepare
    const value = {
      items: Array.from({ length: 2_000 }, (_, i) => ({ i, text: 'z'.repeat(40) })),
      note: 'n',
    };
    const before = structuredClone(value);

    // Act
    shrinkToFit(value, 1_024);

    // Assess
    expect(value).toEqual(before);
  });

  it('keeps the first items of a top-level array', () => {
    // Prepare
    const value = Array.from({ length: 1_000 }, (_, i) => i);

    // Act
    const bounded = shrinkToFit(value, 200);

    // Assess
    const out = bounded.value as number[];
    expect(jsonByteLength(out)).toBeLessThanOrEqual(200);
    expect(out).toEqual(value.slice(0, out.length));
    expect(out.length).toBeGreaterThan(40);
  });
});

describe('boundResult()', () => {
  const result = (instances: number): ToolSuccess => ({
    ok: true,
    tool: 'aws_ec2_inventory',
    callId: 'collect/0',
    durationMs: 3,
    summary: `${instances} instances`,
    truncated: false,
    resultRef: null,
    value: inventory(instances),
  });

  it('returns a result whose JSON fits as is, even when its value alone passes the budget less the envelope reserve', () => {
    // Prepare: a result of at most 8 KiB whose value is over 8 KiB less the 2 KiB reserve
    let instances = 1;
    while (jsonByteLength(result(instances + 1)) <= 8 * 1024) instances++;
    const fitting = result(instances);

    // Act
    const bounded = boundResult(fitting, 8 * 1024);

    // Assess
    expect(jsonByteLength(fitting.value)).toBeGreaterThan(8 * 1024 - RESULT_ENVELOPE_RESERVE_BYTES);
    expect(bounded).toBe(fitting);
  });

  it('shrinks a result over the bound to within it and marks it truncated', () => {
    // Prepare
    const large = result(500);

    // Act
    const bounded = boundResult(large, 8 * 1024) as ToolSuccess;

    // Assess
    expect(jsonByteLength(large)).toBeGreaterThan(8 * 1024);
    expect(bounded.truncated).toBe(true);
    expect(jsonByteLength(bounded)).toBeLessThanOrEqual(8 * 1024);
  });
});
