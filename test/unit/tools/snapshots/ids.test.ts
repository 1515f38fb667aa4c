import { InvalidArgsError } from '../../../../functions/runtime/errors';
import {
  ebsSnapshotId,
  formatSnapshotId,
  inventoryReportId,
  inventorySourceId,
  parseSnapshotId,
  parseSourceId,
  reportTimeToIso,
} from '../../../../functions/tools/snapshots/ids';

describe('snapshot ids', () => {
  it('formats and parses an EBS snapshot id', () => {
    const id = ebsSnapshotId('eu-west-1', 'snap-0123456789abcdef0');

    expect(id).toBe('ebs:eu-west-1:snap-0123456789abcdef0');
    expect(parseSnapshotId(id)).toEqual({
      kind: 'ebs',
      region: 'eu-west-1',
      snapshotId: 'snap-0123456789abcdef0',
    });
  });

  it('formats and parses an inventory report id, percent-encoding the configuration id', () => {
    const id = inventoryReportId('photos', 'daily report/v2', '2026-03-01T01-00Z');

    expect(id).toBe('s3_inventory:photos/daily%20report%2Fv2/2026-03-01T01-00Z');
    expect(parseSnapshotId(id)).toEqual({
      kind: 's3_inventory',
      bucket: 'photos',
      configurationId: 'daily report/v2',
      reportTime: '2026-03-01T01-00Z',
    });
    expect(formatSnapshotId(parseSnapshotId(id))).toBe(id);
  });

  it('parses the three source forms', () => {
    expect(parseSourceId('ebs:us-east-1:vol-049df61146c4d7901')).toEqual({
      kind: 'ebs',
      region: 'us-east-1',
      volumeId: 'vol-049df61146c4d7901',
    });
    expect(parseSourceId(inventorySourceId('photos', 'daily'))).toEqual({
      kind: 's3_inventory',
      bucket: 'photos',
      configurationId: 'daily',
    });
    expect(parseSourceId('s3_inventory:photos')).toEqual({ kind: 's3_inventory', bucket: 'photos' });
  });

  it.each([
    ['ebs:eu-west-1:vol-0123456789abcdef0', 'is not an EBS snapshot id'],
    ['ebs:Europe:snap-0123456789abcdef0', 'is not an AWS region name'],
    ['s3_inventory:photos/daily/2026-03-01', 'is not a report time YYYY-MM-DDTHH-MMZ'],
    ['s3_inventory:Photos_Bucket/daily/2026-03-01T01-00Z', 'is not an S3 bucket name'],
    ['s3_inventory:photos/%E0%A4%A/2026-03-01T01-00Z', 'malformed configuration id'],
    // Ids S3 cannot have: control characters, `..` segments, non-ASCII; bucket names S3 refuses; times to come.
    ['s3_inventory:photos/daily%00/2026-03-01T01-00Z', 'printable ASCII'],
    ['s3_inventory:photos/..%2F..%2Fx/2026-03-01T01-00Z', 'printable ASCII'],
    ['s3_inventory:photos/d%C3%A4ily/2026-03-01T01-00Z', 'printable ASCII'],
    ['s3_inventory:192.168.1.1/daily/2026-03-01T01-00Z', 'is not an S3 bucket name'],
    ['s3_inventory:a..b/daily/2026-03-01T01-00Z', 'is not an S3 bucket name'],
    ['s3_inventory:xn--photos/daily/2026-03-01T01-00Z', 'is not an S3 bucket name'],
    ['s3_inventory:photos-s3alias/daily/2026-03-01T01-00Z', 'is not an S3 bucket name'],
    ['s3_inventory:photos/daily/2999-03-01T01-00Z', '"2999-03-01T01-00Z" is a report time in the future'],
    ['s3_inventory:photos/daily/2026-02-30T01-00Z', '"2026-02-30T01-00Z" is not a time that exists'],
    ['s3_inventory:photos/daily/2026-03-01T24-00Z', '"2026-03-01T24-00Z" is not a time that exists'],
    ['snap-0123456789abcdef0', 'unknown form'],
  ])('refuses %s naming the problem and the accepted forms', (id, problem) => {
    const attempt = () => parseSnapshotId(id);

    expect(attempt).toThrow(InvalidArgsError);
    expect(attempt).toThrow(problem);
    expect(attempt).toThrow('ebs:<region>:snap-<hex>');
  });

  it('tells the same report apart from a look-alike by its canonical form', () => {
    expect(formatSnapshotId(parseSnapshotId('s3_inventory:photos/d%61ily/2026-03-01T01-00Z'))).toBe(
      's3_inventory:photos/daily/2026-03-01T01-00Z',
    );
  });

  it('refuses a source with too many parts', () => {
    expect(() => parseSourceId('s3_inventory:photos/daily/2026-03-01T01-00Z')).toThrow(
      'expected bucket or bucket/configuration',
    );
  });

  it('turns a report folder time into ISO-8601', () => {
    expect(reportTimeToIso('2016-11-06T21-32Z')).toBe('2016-11-06T21:32:00.000Z');
  });
});
