/**
 * Inputs to `redact()` and what it must return. Every credential below is FAKE:
 * shaped like the real thing so the patterns fire, and marked fake/test/example
 * on its line so secret scanners recognise it.
 */

/** One corpus entry. */
export interface RedactionCase {
  readonly name: string;
  readonly input: unknown;
  readonly expected: unknown;
}

const R = '<redacted>';

// Slack tokens: bot (xoxb-), user (xoxp-), app-level (xapp-). All fake.
const SLACK_BOT_TOKEN = 'xoxb-1111111111-2222222222-FAKEtestEXAMPLEtoken'; // fake test example
const SLACK_USER_TOKEN = 'xoxp-1111111111-2222222222-3333333333-fakeTESTexample'; // fake test example
const SLACK_APP_TOKEN = 'xapp-1-A0FAKE0TEST-4444444444-fakeexampletest'; // fake test example
const SLACK_WEBHOOK = 'https://hooks.slack.com/services/T0FAKE000/B0TEST000/fakeEXAMPLEwebhookTEST'; // fake test example
// AWS's documented example key id, and a fake STS one: AKIA/ASIA + 16 upper-case letters or digits.
const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE'; // AWS docs example, fake
const AWS_STS_KEY_ID = 'ASIAFAKETESTEXAMPLE1'; // fake test example
const BEARER = 'Bearer eyJhbGciOiJub25lIn0.fakeTESTexample.sig'; // fake test example
const PEM_KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIEfakeTESTexampleKEY==\n-----END RSA PRIVATE KEY-----'; // fake test example
const BASIC = 'Basic ZmFrZS11c2VyOmV4YW1wbGUtcGFzcw=='; // base64("fake-user:example-pass"), fake test example

/** Cases whose input `structuredClone` can copy (the test checks the input is left as it was). */
export const REDACTION_CORPUS: readonly RedactionCase[] = [
  {
    name: 'an array of objects with passwords, in any case',
    input: {
      users: [
        { name: 'ana', password: 'fake-test-pass-1' },
        { name: 'bo', Password: 'fake-test-pass-2', PASSWORD: 'fake-test-pass-3' },
      ],
    },
    expected: {
      users: [
        { name: 'ana', password: R },
        { name: 'bo', Password: R, PASSWORD: R },
      ],
    },
  },
  {
    name: 'a sensitive key whose value is an object or an array is masked whole',
    input: {
      client_secret: { value: 'fake-test', rotated: true },
      api_keys: ['fake-test-key-1', 'fake-test-key-2'],
      access_key: [{ id: AWS_KEY_ID }],
      keep: { nested: 1 },
    },
    expected: { client_secret: R, api_keys: R, access_key: R, keep: { nested: 1 } },
  },
  {
    name: 'Authorization headers in every case',
    input: {
      headers: {
        Authorization: 'token fake-test-1',
        authorization: 'fake-test-2',
        AUTHORIZATION: 'fake-test-3',
        accept: 'application/json',
      },
    },
    expected: {
      headers: { Authorization: R, authorization: R, AUTHORIZATION: R, accept: 'application/json' },
    },
  },
  {
    name: 'Slack tokens inside ordinary strings',
    input: {
      note: `bot ${SLACK_BOT_TOKEN} user ${SLACK_USER_TOKEN}.`,
      log: [`app token ${SLACK_APP_TOKEN} rejected`],
    },
    expected: { note: `bot ${R} user ${R}.`, log: [`app token ${R} rejected`] },
  },
  {
    name: 'a Slack webhook URL inside a sentence',
    input: { message: `posting to ${SLACK_WEBHOOK} failed` },
    expected: { message: `posting to ${R} failed` },
  },
  {
    name: 'AWS access key ids (long-term and STS) inside strings',
    input: { message: `keys ${AWS_KEY_ID} and ${AWS_STS_KEY_ID} are not allowed`, kept: 'AKIA-short' },
    expected: { message: `keys ${R} and ${R} are not allowed`, kept: 'AKIA-short' },
  },
  {
    name: 'a bearer credential',
    input: { detail: `upstream refused ${BEARER}` },
    expected: { detail: `upstream refused ${R}` },
  },
  {
    name: 'a PEM private key',
    input: { body: `key:\n${PEM_KEY}\nend` },
    expected: { body: `key:\n${R}\nend` },
  },
  {
    name: 'HTTP Basic credentials, but not the word "Basic" in prose',
    input: { header: `sent ${BASIC}`, finding: 'Basic monitoring only; detailed monitoring is off' },
    expected: { header: `sent ${R}`, finding: 'Basic monitoring only; detailed monitoring is off' },
  },
  {
    name: 'an access_token query parameter keeps its name',
    input: { url: 'https://example.com/cb?access_token=fake-test-123&page=2' },
    expected: { url: `https://example.com/cb?access_token=${R}&page=2` },
  },
  {
    name: 'a presigned S3 URL keeps its shape',
    input: `https://example-bucket.s3.amazonaws.com/k?X-Amz-Credential=${AWS_KEY_ID}%2F20240101&X-Amz-Signature=fake0test&x-id=GetObject`,
    expected: `https://example-bucket.s3.amazonaws.com/k?X-Amz-Credential=${R}&X-Amz-Signature=${R}&x-id=GetObject`,
  },
  {
    name: 'keys of the visible list stay visible',
    input: {
      secret_name: 'slack_default',
      SecretName: 'aws_default',
      NextToken: 'page-2-test',
      next_token: 'page-3-test',
      nextToken: 'page-4-test',
      input_tokens: 1200,
      output_tokens: 80,
      password_last_used: '2024-05-01T10:00:00Z',
      PasswordLastUsed: '2024-05-02T10:00:00Z',
      requires_secrets: ['aws_default'],
    },
    expected: {
      secret_name: 'slack_default',
      SecretName: 'aws_default',
      NextToken: 'page-2-test',
      next_token: 'page-3-test',
      nextToken: 'page-4-test',
      input_tokens: 1200,
      output_tokens: 80,
      password_last_used: '2024-05-01T10:00:00Z',
      PasswordLastUsed: '2024-05-02T10:00:00Z',
      requires_secrets: ['aws_default'],
    },
  },
  {
    name: 'a Date becomes its ISO string, an invalid Date null',
    input: { at: new Date('2024-05-01T12:30:00.000Z'), never: new Date(Number.NaN) },
    expected: { at: '2024-05-01T12:30:00.000Z', never: null },
  },
  {
    name: 'values nested in arrays of arrays',
    input: [[[SLACK_BOT_TOKEN, { token: 'fake-test', id: 7 }], ['plain']], [[{ list: [[AWS_KEY_ID]] }]]],
    expected: [[[R, { token: R, id: 7 }], ['plain']], [[{ list: [[R]] }]]],
  },
  {
    name: 'primitives pass through; undefined members are dropped',
    input: { n: 3, b: false, z: null, u: undefined, s: 'ok' },
    expected: { n: 3, b: false, z: null, s: 'ok' },
  },
];
