import { redact, redactString, rememberSecretValues } from '../../../functions/runtime/redact';
import { oneLineSummary } from '../../../functions/runtime/result';

describe('rememberSecretValues', () => {
  it('masks a resolved secret value by exact match wherever it appears, not its region', () => {
    // Prepare: a fake secret access key no pattern recognises.
    const fakeKey = 'fake-test-Zq8mK2pX9vL4nR7tW1yB';
    rememberSecretValues({ secret_access_key: fakeKey, access_key_id: 'short', region: 'eu-west-1' });

    // Act
    const inTag = redact({ instances: [{ name: `${fakeKey}-1`, region: 'eu-west-1' }] });
    const inMessage = redactString(`SignatureDoesNotMatch: key ${fakeKey} rejected`);

    // Assess
    expect(inTag).toEqual({ instances: [{ name: '<redacted>-1', region: 'eu-west-1' }] });
    expect(inMessage).toBe('SignatureDoesNotMatch: key <redacted> rejected');
  });
});

describe('oneLineSummary', () => {
  it('folds line breaks and white space into one line and cuts it at 300 characters', () => {
    expect(oneLineSummary('XML parse error.\n  Deserialization error: inspect $response')).toBe(
      'XML parse error. Deserialization error: inspect $response',
    );
    const long = oneLineSummary('x'.repeat(500));
    expect(long).toHaveLength(300);
    expect(long.endsWith('…')).toBe(true);
  });
});
