import { logger } from '../../../functions/runtime/logger';
import { normalizeError } from '../../../functions/runtime/normalize-error';
import { REDACTED, redact, redactString } from '../../../functions/runtime/redact';
import { HARMLESS_EXCEPTIONS, HARMLESS_VALUES, SECRET_FORMS, type SecretForm } from './redaction-corpus';

/**
 * The first piece of `secret` (8 characters, or all of a shorter one) still in
 * `out`, or undefined: a partial leak (a prefix left before a cut) counts too.
 */
function leakedPiece(out: string, secret: string): string | undefined {
  const size = Math.min(8, secret.length);
  for (let i = 0; i + size <= secret.length; i++) {
    const piece = secret.slice(i, i + size);
    if (out.includes(piece)) return piece;
  }
  return undefined;
}

/** Each way a credential reaches an output, as the text that leaves the platform. */
const CONTEXTS: readonly (readonly [string, (form: SecretForm) => string])[] = [
  ['as a bare string', (form) => redactString(form.text)],
  [
    'embedded in prose',
    (form) => redactString(`Deploy failed while calling ${form.text} (see the runbook).`),
  ],
  [
    'under a harmless key',
    (form) => JSON.stringify(redact({ items: [{ note: form.text, region: 'eu-west-1' }] })),
  ],
  [
    'in an error message',
    (form) => JSON.stringify(normalizeError('probe_tool', new Error(`request failed: ${form.text}`))),
  ],
];

describe('secret corpus: no form survives', () => {
  it('holds at least 100 forms with distinct names and secrets', () => {
    expect(SECRET_FORMS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(SECRET_FORMS.map((f) => f.name)).size).toBe(SECRET_FORMS.length);
    for (const form of SECRET_FORMS) expect(form.text).toContain(form.secret);
  });

  it.each(CONTEXTS)('masks every form %s', (_context, output) => {
    // Act
    const leaks = SECRET_FORMS.flatMap((form) => {
      const out = output(form);
      const piece = leakedPiece(out, form.secret);
      return piece === undefined ? [] : [`${form.name}: "${piece}" in ${out.slice(0, 200)}`];
    });

    // Assess
    expect(leaks).toEqual([]);
  });

  describe('through a Powertools log line', () => {
    let lines: string[];

    beforeEach(() => {
      lines = [];
      for (const stream of [process.stdout, process.stderr]) {
        jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
          lines.push(String(chunk));
          return true;
        });
      }
    });

    afterEach(() => {
      jest.restoreAllMocks();
    });

    it('masks every form in the message, in attributes and in a logged Error', () => {
      // Act
      const leaks = SECRET_FORMS.flatMap((form) => {
        lines = [];
        logger.info(`call failed: ${form.text}`, { detail: form.text, nested: { notes: [form.text] } });
        logger.error('tool threw', new Error(`upstream said ${form.text}`));
        const output = lines.join('\n');
        const piece = leakedPiece(output, form.secret);
        return lines.length === 2 && output.includes(REDACTED) && piece === undefined
          ? []
          : [`${form.name}: ${lines.length} lines, "${piece}" in ${output.slice(0, 200)}`];
      });

      // Assess
      expect(leaks).toEqual([]);
    });
  });
});

describe('harmless corpus: data stays readable', () => {
  it('holds at least 50 values', () => {
    expect(HARMLESS_VALUES.length).toBeGreaterThanOrEqual(50);
  });

  it('alters at most one value, and only a documented exception', () => {
    // Act
    const altered = HARMLESS_VALUES.filter(
      ([, value]) => JSON.stringify(redact({ value })) !== JSON.stringify({ value }),
    ).map(([name]) => name);

    // Assess
    expect(altered.length).toBeLessThanOrEqual(1);
    for (const name of altered) expect(HARMLESS_EXCEPTIONS.has(name)).toBe(true);
    expect(HARMLESS_EXCEPTIONS.size).toBeLessThanOrEqual(1);
  });

  it('leaves every harmless string unchanged inside prose and log-like lines too', () => {
    // Act
    const altered = HARMLESS_VALUES.filter(([, value]) => typeof value === 'string')
      .map(([name, value]) => [name, `note: ${value as string} (seen 2024-05-01)`] as const)
      .filter(([, line]) => redactString(line) !== line)
      .map(([name]) => name);

    // Assess
    expect(altered).toEqual([]);
  });
});
