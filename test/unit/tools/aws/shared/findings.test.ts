import {
  buildFinding,
  type Finding,
  FirstSeen,
  findingId,
  rankFindings,
  SEVERITIES,
  type Severity,
  summarizeFindings,
} from '../../../../../functions/tools/aws/shared/findings';

const PRICE = 'Amazon EC2 pricing, Elastic IP addresses (2024-05)';

function finding(resource: string, severity: Severity, usd?: number, check = 'eip_unattached'): Finding {
  return {
    id: findingId(check, 'eu-west-1', resource, '123456789012'),
    check,
    severity,
    resource,
    region: 'eu-west-1',
    title: `${resource} is idle`,
    ...(usd === undefined ? {} : { monthlyCost: { usd, priceSource: PRICE } }),
  };
}

describe('findingId()', () => {
  it('is stable: the same inputs give the same id on every call', () => {
    // Act
    const first = findingId('ebs_unattached_volume', 'us-east-1', 'vol-0abc', '123456789012');
    const second = findingId('ebs_unattached_volume', 'us-east-1', 'vol-0abc', '123456789012');

    // Assess
    expect(first).toBe(second);
    expect(first).toMatch(/^ebs_unattached_volume:[0-9a-f]{16}$/);
  });

  it('pins the algorithm: sha256 of check|account|region|resource, first 16 hex', () => {
    // printf 'ebs_unattached_volume||us-east-1|vol-0abc' | sha256sum, computed outside the code under test.
    expect(findingId('ebs_unattached_volume', 'us-east-1', 'vol-0abc')).toBe(
      'ebs_unattached_volume:0f7911d46fecf9bd',
    );
  });

  it('differs when any input differs', () => {
    // Act
    const ids = [
      findingId('ebs_unattached_volume', 'us-east-1', 'vol-0abc', '111111111111'),
      findingId('ebs_unattached_volume', 'us-east-1', 'vol-0abc', '222222222222'),
      findingId('ebs_unattached_volume', 'us-east-2', 'vol-0abc', '111111111111'),
      findingId('ebs_unattached_volume', 'us-east-1', 'vol-0abd', '111111111111'),
      findingId('ebs_gp2_volume', 'us-east-1', 'vol-0abc', '111111111111'),
    ];

    // Assess
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('rankFindings()', () => {
  it('orders by severity, then monthly cost (highest first), then id; returns a new array', () => {
    // Prepare
    const findings = [
      finding('eipalloc-low', 'low', 100),
      finding('eipalloc-high-cheap', 'high', 3.65),
      finding('eipalloc-critical', 'critical'),
      finding('eipalloc-high-dear', 'high', 36.5),
      finding('eipalloc-high-free-b', 'high'),
      finding('eipalloc-high-free-a', 'high'),
      finding('eipalloc-info', 'info', 1000),
    ];
    const before = [...findings];

    // Act
    const ranked = rankFindings(findings);

    // Assess
    // Same severity and no cost: ordered by id, whatever order they came in.
    const freeHigh = findings
      .filter((f) => f.resource.startsWith('eipalloc-high-free'))
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((f) => f.resource);
    expect(ranked.map((f) => f.resource)).toEqual([
      'eipalloc-critical',
      'eipalloc-high-dear',
      'eipalloc-high-cheap',
      ...freeHigh,
      'eipalloc-low',
      'eipalloc-info',
    ]);
    expect(findings).toEqual(before);
    expect(ranked).not.toBe(findings);
  });
});

describe('summarizeFindings()', () => {
  it('counts every finding, keeps the top N ranked and sums the cost to the cent', () => {
    // Prepare
    const findings = [
      finding('a', 'medium', 0.1),
      finding('b', 'high', 0.2),
      finding('c', 'low'),
      finding('d', 'medium', 3.65, 'ebs_unattached_volume'),
      finding('e', 'critical', 0.004),
    ];

    // Act
    const summary = summarizeFindings(findings, 2);

    // Assess
    expect(summary.total).toBe(5);
    expect(summary.bySeverity).toEqual({ critical: 1, high: 1, medium: 2, low: 1, info: 0 });
    expect(Object.keys(summary.bySeverity)).toEqual([...SEVERITIES]);
    expect(summary.byCheck).toEqual({ eip_unattached: 4, ebs_unattached_volume: 1 });
    expect(summary.estimatedMonthlyCostUsd).toBe(3.95);
    expect(summary.top.map((f) => f.resource)).toEqual(['e', 'b']);
    expect(summary.truncated).toBe(true);
  });

  it('is not truncated when every finding fits, and is empty for none', () => {
    // Act
    const all = summarizeFindings([finding('a', 'low', 1)], 20);
    const none = summarizeFindings([], 20);

    // Assess
    expect(all).toMatchObject({ total: 1, truncated: false, estimatedMonthlyCostUsd: 1 });
    expect(all.top).toHaveLength(1);
    expect(none).toEqual({
      total: 0,
      bySeverity: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
      byCheck: {},
      byControl: {},
      estimatedMonthlyCostUsd: 0,
      top: [],
      truncated: false,
    });
  });

  it('counts a finding listed twice once (same check, same resource: same id)', () => {
    // Prepare: a credential report row, or an instance, listed twice.
    const twice = finding('vol-1', 'medium', 4);

    // Act
    const summary = summarizeFindings([twice, finding('vol-2', 'low'), { ...twice }], 20);

    // Assess
    expect(summary).toMatchObject({
      total: 2,
      bySeverity: { medium: 1, low: 1 },
      estimatedMonthlyCostUsd: 4,
    });
    expect(summary.top.map((f) => f.resource)).toEqual(['vol-1', 'vol-2']);
  });

  it('counts findings by the controls they evidence, CIS keys carrying the version', () => {
    // Prepare
    const evidence = buildFinding(
      findingId('s3_bucket_block_public_access_off', 'eu-west-1', 'arn:aws:s3:::logs'),
      {
        check: 's3_bucket_block_public_access_off',
        severity: 'medium',
        resource: 'arn:aws:s3:::logs',
        region: 'eu-west-1',
        title: 'Block Public Access leaves restrictPublicBuckets off for bucket logs',
      },
    );

    // Act
    const summary = summarizeFindings([evidence, finding('a', 'low')], 20);

    // Assess
    expect(evidence.controls).toEqual({ securityHub: ['S3.8'], cis: ['2.1.4'] });
    expect(summary.byControl).toEqual({ 'SecurityHub:S3.8': 1, 'CIS-3.0.0:2.1.4': 1 });
  });
});

describe('FirstSeen', () => {
  it('passes each key once and counts the repeats; rows without a key always pass', () => {
    // Prepare
    const once = new FirstSeen();

    // Act
    const passed = ['i-1', 'i-2', 'i-1', undefined, undefined, '', 'i-1'].map((key) => once.first(key));

    // Assess
    expect(passed).toEqual([true, true, false, true, true, true, false]);
    expect(once.duplicates).toBe(2);
  });
  it('visits each item of a page whose key it has not seen, across pages, and counts the rest', () => {
    // Prepare
    const once = new FirstSeen();
    const visited: string[] = [];
    const visit = (volume: { VolumeId?: string; Size: number }) =>
      visited.push(`${volume.VolumeId}:${volume.Size}`);

    // Act: the second page repeats vol-2 (a page boundary that moved), a third page is absent
    once.each(
      [
        { VolumeId: 'vol-1', Size: 8 },
        { VolumeId: 'vol-2', Size: 20 },
      ],
      (v) => v.VolumeId,
      visit,
    );
    once.each(
      [
        { VolumeId: 'vol-2', Size: 99 },
        { VolumeId: 'vol-3', Size: 1 },
      ],
      (v) => v.VolumeId,
      visit,
    );
    once.each(undefined, (v: { VolumeId?: string }) => v.VolumeId, visit);

    // Assess: the first vol-2 wins
    expect(visited).toEqual(['vol-1:8', 'vol-2:20', 'vol-3:1']);
    expect(once.duplicates).toBe(1);
  });
});
