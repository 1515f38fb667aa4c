import {
  formatInlineBlob,
  inlineFingerprint,
  isInlineBlobText,
  parseInlineBlob,
} from '../../../../functions/runtime/secrets/inline-blob';
import { validateReference } from '../../../../functions/runtime/secrets/reference';

const KMS_BLOB = formatInlineBlob({ form: 'kms', ciphertextBlob: Buffer.from('ciphertext-bytes') });
const ENVELOPE_BLOB = formatInlineBlob({
  form: 'envelope',
  encryptedDataKey: Buffer.from('data-key'),
  iv: Buffer.alloc(12, 1),
  sealed: Buffer.alloc(40, 2),
});

describe('inline blobs', () => {
  it.each([
    ['the KMS form', KMS_BLOB, 'kms'],
    ['the envelope form', ENVELOPE_BLOB, 'envelope'],
  ])('parses %s back to its parts', (_, text, form) => {
    // Act
    const blob = parseInlineBlob(text, 'acme', 'slack_default');

    // Assess
    expect(blob.form).toBe(form);
    expect(formatInlineBlob(blob)).toBe(text);
  });

  it.each([
    ['an empty text', ''],
    ['a plain token', 'xoxb-1111-2222-abcdefabcdef'],
    ['an unknown version', KMS_BLOB.replace('.v1.', '.v2.')],
    ['padding and other base64 characters', `${KMS_BLOB}==`],
    [
      'an envelope with a short nonce',
      ENVELOPE_BLOB.replace(/\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/, '.AQEB.$2'),
    ],
    ['an envelope without its tag', ENVELOPE_BLOB.replace(/[A-Za-z0-9_-]+$/, 'AgIC')],
  ])('refuses %s, naming the reference and never the text', (_, text) => {
    // Act
    const attempt = () => parseInlineBlob(text, 'acme', 'slack_default');

    // Assess
    expect(attempt).toThrow(
      'Inline secret "slack_default" of tenant "acme" is not a well-formed ciphertext (truncated or edited?)',
    );
    expect(isInlineBlobText(text)).toBe(false);
  });

  it('fingerprints the value per tenant and name: 16 hex digits that differ across tenants', () => {
    // Act
    const acme = inlineFingerprint('acme', 'slack_default', 'same value');
    const globex = inlineFingerprint('globex', 'slack_default', 'same value');

    // Assess
    expect(acme).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(acme).toBe(inlineFingerprint('acme', 'slack_default', 'same value'));
    expect(acme).not.toBe(globex);
  });
});

describe('validateReference() of inline rows', () => {
  const row = { tenant_id: 'acme', secret_name: 'slack_default', ref_kind: 'inline' as const };

  it('accepts a blob with its fingerprint', () => {
    // Act
    const valid = validateReference({ ...row, ref_value: KMS_BLOB, fingerprint: 'sha256:0123456789abcdef' });

    // Assess
    expect(valid).toMatchObject({ ref_kind: 'inline', fingerprint: 'sha256:0123456789abcdef' });
  });

  it.each([
    [
      'a value pasted where the ciphertext belongs',
      { ref_value: '{"bot_token":"xoxb-1111-2222-abcdefabcdef"}', fingerprint: 'sha256:0123456789abcdef' },
      'ref_value for ref_kind inline must be the ciphertext etp secrets seed --ref-kind inline writes',
    ],
    ['a blob without its fingerprint', { ref_value: KMS_BLOB }, 'an inline reference needs its fingerprint'],
    [
      'a malformed fingerprint',
      { ref_value: KMS_BLOB, fingerprint: 'md5:abc' },
      'fingerprint: sha256: and 16 hex digits',
    ],
  ])('refuses %s', (_, fields, words) => {
    // Act
    const attempt = () => validateReference({ ...row, ...fields });

    // Assess
    expect(attempt).toThrow(words);
    try {
      attempt();
    } catch (err) {
      expect((err as Error).message).not.toContain('xoxb');
    }
  });

  it('refuses a fingerprint on another kind', () => {
    // Act
    const attempt = () =>
      validateReference({
        ...row,
        ref_kind: 'env',
        ref_value: 'ACME_SLACK',
        fingerprint: 'sha256:0123456789abcdef',
      });

    // Assess
    expect(attempt).toThrow('fingerprint belongs to inline references only, not to ref_kind env');
  });
});
