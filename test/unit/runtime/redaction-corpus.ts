/**
 * Inputs to `redact()` and what it must return. Every credential below is FAKE:
 * shaped like the real thing so the patterns fire, and marked fake/test/example
 * on its line so secret scanners recognize it.
 */

import { fakeText } from '../../helpers/fake-text';

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

// --- Secret forms (issue 8): every one must come out with no trace of its secret. ----------

/** One credential as it appears in the wild: `text` holds `secret`, which must not survive redaction. */
export interface SecretForm {
  readonly name: string;
  /** The credential in its usual syntax (a header, a URL, a token alone). */
  readonly text: string;
  /** The part that must disappear (the whole token, or the password part of a URL). */
  readonly secret: string;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const HEX = '0123456789abcdef';
const B64 = `${ALNUM}+/`;
const B64URL = `${ALNUM}-_`;

const b64 = (text: string) => Buffer.from(text).toString('base64');
/** A fake password with digits, symbols and a space-free shape. */
const pw = (seed: number) => `Fk${fakeText(14, ALNUM, seed)}-9`;
const hex = (n: number, seed: number) => fakeText(n, HEX, seed);
const alnum = (n: number, seed: number) => fakeText(n, ALNUM, seed);
const b64url = (n: number, seed: number) => fakeText(n, B64URL, seed);
const akia = (seed: number) => `AKIA${fakeText(16, UPPER_DIGITS, seed)}`;
const awsSecret = (seed: number) =>
  `${fakeText(18, ALNUM, seed)}/${fakeText(11, ALNUM, seed + 1)}+${fakeText(9, ALNUM, seed + 2)}`;
const pem = (label: string, seed: number) =>
  `-----BEGIN ${label}-----\n${fakeText(64, B64, seed)}\n${fakeText(40, B64, seed + 1)}==\n-----END ${label}-----`;
const jwt = (seed: number) =>
  `${b64url(20, seed).replace(/^.../, 'eyJ')}.${b64url(40, seed + 1).replace(/^.../, 'eyJ')}.${b64url(43, seed + 2)}`;
const sessionToken = (prefix: string, seed: number) => `${prefix}${fakeText(300, B64, seed)}==`;
const uuid = (seed: number) =>
  `${hex(8, seed)}-${hex(4, seed + 1)}-4${hex(3, seed + 2)}-a${hex(3, seed + 3)}-${hex(12, seed + 4)}`;
/** A Discord bot token: base64 of an 18-digit user id, a timestamp part, an HMAC part. */
const discordToken = (seed: number) =>
  `${Buffer.from(`1${fakeText(17, '0123456789', seed)}`)
    .toString('base64')
    .replace(/=+$/, '')}.${b64url(6, seed + 1)}.${b64url(38, seed + 2)}`;

/** Forms where the credential is carried by syntax: URLs, key=value, headers, cookies, query strings. */
function syntaxForms(): SecretForm[] {
  const forms: SecretForm[] = [];
  const add = (name: string, secret: string, text: string) => forms.push({ name, text, secret });
  let seed = 100;
  const p = () => pw(seed++);
  let s: string;
  s = p();
  add('password in an https URL', s, `https://admin:${s}@db.example.com/x`);
  s = p();
  add('password in a postgres URL', s, `postgres://app:${s}@db.internal:5432/app`);
  s = p();
  add('password in a postgresql URL with a query', s, `postgresql://app:${s}@db/app?sslmode=require`);
  s = p();
  add(
    'password in a mongodb+srv URL',
    s,
    `mongodb+srv://svc:${s}@cluster0.ab1cd.mongodb.net/db?retryWrites=true`,
  );
  s = p();
  add('password in a redis URL without user', s, `redis://:${s}@cache.internal:6379/0`);
  s = p();
  add('password in a rediss URL', s, `rediss://default:${s}@cache.example.com:6380`);
  s = p();
  add('password in an amqps URL', s, `amqps://guest:${s}@mq.example.com/vhost`);
  s = p();
  add('password in a mysql URL', s, `mysql://root:${s}@127.0.0.1:3306/app`);
  s = p();
  add('password in an ftp URL', s, `ftp://user:${s}@files.example.com/`);
  s = p();
  add('password in an smtp URL', s, `smtp://mailer:${s}@smtp.example.com:587`);
  s = `Fk/${alnum(6, seed++)}@${alnum(6, seed++)}`;
  add('unencoded / and @ in a URL password', s, `postgres://app:${s}@db.example.com/app`);
  s = `ghs_${alnum(36, seed++)}`;
  add('token as a git URL password', s, `https://x-access-token:${s}@github.com/org/repo.git`);
  s = p();
  add('password= in a JDBC URL', s, `jdbc:postgresql://db:5432/app?user=app&password=${s}`);
  s = p();
  add('password= at the start of a string', s, `password=${s}`);
  s = p();
  add('DB_PASSWORD= env line', s, `DB_PASSWORD=${s}`);
  s = p();
  add('MYSQL_PWD= env', s, `MYSQL_PWD=${s} mysql -u root`);
  s = p();
  add('db_pass=', s, `db_pass=${s}`);
  s = p();
  add('passphrase: value', s, `passphrase: ${s}`);
  s = `correct horse ${alnum(8, seed++)} staple`;
  add('password: value with spaces at line start', s, `password: ${s}`);
  s = p();
  add('nested YAML password', s, `db:\n  host: db.internal\n  password: ${s}\n  user: app`);
  s = p();
  add('double-quoted value', s, `password = "${s}"`);
  s = p();
  add('single-quoted value', s, `secret='${s}'`);
  s = p();
  add('JSON in a string', s, `{"user":"app","password":"${s}"}`);
  s = p();
  add('escaped JSON in a string', s, `{\\"client_secret\\":\\"${s}\\",\\"id\\":1}`);
  s = alnum(32, seed++);
  add('api_key=', s, `api_key=${s}`);
  s = alnum(32, seed++);
  add('x-api-key header', s, `x-api-key: ${s}`);
  s = p();
  add('credentials=', s, `credentials=${s}`);
  s = p();
  add('auth: value', s, `auth: ${s}`);
  s = `https://${hex(32, seed++)}@o12345.ingest.sentry.io/67890`;
  add('SENTRY_DSN=', s, `SENTRY_DSN=${s}`);
  s = fakeText(64, B64, seed++);
  add('private_key=', s, `private_key=${s}`);
  s = p();
  add('client_secret in a form body', s, `grant_type=client_credentials&client_id=app-1&client_secret=${s}`);
  s = p();
  add('cookie=', s, `cookie=${s}`);
  s = b64(`app:${p()}`);
  add('Authorization: Basic', s, `Authorization: Basic ${s}`);
  s = b64url(48, seed++);
  add('Authorization: Bearer', s, `Authorization: Bearer ${s}`);
  s = hex(32, seed++);
  add(
    'Authorization: Digest',
    s,
    `Authorization: Digest username="app", realm="api", nonce="${hex(16, seed++)}", uri="/x", response="${s}"`,
  );
  s = hex(64, seed++);
  add(
    'Authorization: AWS4-HMAC-SHA256 signature',
    s,
    `Authorization: AWS4-HMAC-SHA256 Credential=${akia(seed++)}/20240501/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${s}`,
  );
  s = hex(40, seed++);
  add('Authorization: Token', s, `Authorization: Token ${s}`);
  s = fakeText(60, B64, seed++);
  add('Authorization: Negotiate', s, `Authorization: Negotiate ${s}`);
  s = `00${b64url(40, seed++)}`;
  add('Authorization with a custom scheme (Okta SSWS)', s, `Authorization: SSWS ${s}`);
  s = b64(`proxy:${p()}`);
  add('Proxy-Authorization: Basic', s, `Proxy-Authorization: Basic ${s}`);
  s = b64url(48, seed++);
  add('Authorization header in JSON', s, `{"headers":{"Authorization":"Bearer ${s}","Accept":"*/*"}}`);
  s = b64url(48, seed++);
  add('bare Bearer credential', s, `sent Bearer ${s}`);
  s = alnum(32, seed++);
  add('second cookie of a Cookie header', s, `Cookie: sessionid=${alnum(32, seed++)}; csrftoken=${s}`);
  s = alnum(40, seed++);
  add('Set-Cookie header', s, `Set-Cookie: __Host-session=${s}; Path=/; Secure; HttpOnly`);
  s = hex(64, seed++);
  add(
    'X-Amz-Signature in a presigned URL',
    s,
    `https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240501T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=${s}`,
  );
  s = encodeURIComponent(sessionToken('IQoJb3JpZ2luX2Vj', seed++));
  add(
    'X-Amz-Security-Token in a URL',
    s,
    `https://b.s3.amazonaws.com/k?X-Amz-Security-Token=${s}&x-id=GetObject`,
  );
  s = encodeURIComponent(fakeText(43, B64, seed++));
  add(
    'sig in an Azure SAS URL',
    s,
    `https://acct.blob.core.windows.net/c/b?sv=2022-11-02&ss=b&srt=co&sp=r&se=2024-06-01T00:00:00Z&sig=${s}`,
  );
  s = b64url(40, seed++);
  add('access_token query parameter', s, `https://graph.example.com/me?access_token=${s}&fields=id`);
  s = b64url(40, seed++);
  add('token query parameter', s, `https://api.example.com/export?token=${s}`);
  s = p();
  add('client_secret query parameter', s, `https://login.example.com/token?client_id=a&client_secret=${s}`);
  s = hex(256, seed++);
  add(
    'X-Goog-Signature query parameter',
    s,
    `https://storage.googleapis.com/b/o?X-Goog-Signature=${s}&X-Goog-Date=x`,
  );
  s = b64url(120, seed++);
  add(
    'CloudFront signed URL Signature',
    s,
    `https://d1.cloudfront.net/v.mp4?Expires=1714557600&Signature=${s}&Key-Pair-Id=K2JCJMDEHXQW5F`,
  );
  s = p();
  add('.netrc entry', s, `machine api.example.com login app password ${s}`);
  s = p();
  add('--password flag', s, `psql --password ${s} --host db`);
  s = p();
  add('curl -u user:password', s, `curl -u admin:${s} https://api.example.com/x`);
  s = awsSecret(seed++);
  add(
    'aws_secret_access_key in a credentials file',
    s,
    `[default]\naws_access_key_id = ${akia(seed++)}\naws_secret_access_key = ${s}`,
  );
  s = awsSecret(seed++);
  add('AWS_SECRET_ACCESS_KEY export', s, `export AWS_SECRET_ACCESS_KEY=${s}`);
  s = fakeText(86, B64, seed++);
  add(
    'AccountKey in an Azure storage connection string',
    s,
    `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${s}==;EndpointSuffix=core.windows.net`,
  );
  s = fakeText(43, B64, seed++);
  add(
    'SharedAccessKey in an Azure Service Bus connection string',
    s,
    `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${s}=`,
  );
  s = hex(32, seed++);
  add('Datadog DD_API_KEY', s, `DD_API_KEY=${s}`);
  s = hex(40, seed++);
  add('Datadog application key header', s, `DD-APPLICATION-KEY: ${s}`);
  s = hex(32, seed++);
  add('Twilio auth token env', s, `TWILIO_AUTH_TOKEN=${s}`);
  s = uuid(seed++);
  add('Heroku API key env', s, `HEROKU_API_KEY=${s}`);
  s = fakeText(1200, B64, seed++);
  add('kubeconfig client-key-data', s, `users:\n- name: admin\n  user:\n    client-key-data: ${s}`);
  return forms;
}

/** Tokens that say what they are, whatever surrounds them. */
function tokenForms(): SecretForm[] {
  let seed = 500;
  const n = () => seed++;
  const token = (name: string, secret: string): SecretForm => ({ name, text: secret, secret });
  return [
    token(
      'Slack bot token (xoxb)',
      `xoxb-${fakeText(12, '0123456789', n())}-${fakeText(13, '0123456789', n())}-${alnum(24, n())}`,
    ),
    token(
      'Slack user token (xoxp)',
      `xoxp-${fakeText(12, '0123456789', n())}-${fakeText(12, '0123456789', n())}-${fakeText(13, '0123456789', n())}-${hex(32, n())}`,
    ),
    token('Slack workspace token (xoxa)', `xoxa-2-${fakeText(12, '0123456789', n())}-${hex(32, n())}`),
    token('Slack refresh token (xoxr)', `xoxr-${fakeText(12, '0123456789', n())}-${alnum(40, n())}`),
    token(
      'Slack legacy token (xoxs)',
      `xoxs-${fakeText(10, '0123456789', n())}-${fakeText(10, '0123456789', n())}-${fakeText(10, '0123456789', n())}-${hex(10, n())}`,
    ),
    token(
      'Slack app-level token (xapp)',
      `xapp-1-A${fakeText(10, UPPER_DIGITS, n())}-${fakeText(13, '0123456789', n())}-${hex(64, n())}`,
    ),
    token('Slack rotating access token (xoxe.xoxb)', `xoxe.xoxb-1-${alnum(165, n())}`),
    token('Slack rotating access token (xoxe.xoxp)', `xoxe.xoxp-1-${alnum(163, n())}`),
    token('Slack rotating refresh token (xoxe-)', `xoxe-1-${alnum(146, n())}`),
    token(
      'Slack incoming webhook',
      `https://hooks.slack.com/services/T${fakeText(8, UPPER_DIGITS, n())}/B${fakeText(10, UPPER_DIGITS, n())}/${alnum(24, n())}`,
    ),
    token(
      'Slack workflow webhook',
      `https://hooks.slack.com/workflows/T${fakeText(8, UPPER_DIGITS, n())}/A${fakeText(10, UPPER_DIGITS, n())}/${fakeText(18, '0123456789', n())}/${alnum(24, n())}`,
    ),
    token(
      'Slack trigger webhook',
      `https://hooks.slack.com/triggers/T${fakeText(8, UPPER_DIGITS, n())}/${fakeText(13, '0123456789', n())}/${hex(32, n())}`,
    ),
    token('AWS access key id (AKIA)', akia(n())),
    token('AWS temporary access key id (ASIA)', `ASIA${fakeText(16, UPPER_DIGITS, n())}`),
    token('AWS session token (IQoJb3JpZ2lu…)', sessionToken('IQoJb3JpZ2luX2Vj', n())),
    token('AWS session token (FwoGZXIvYXdz…)', sessionToken('FwoGZXIvYXdzE', n())),
    token('Alibaba access key id', `LTAI${alnum(20, n())}`),
    token('GitHub personal access token (ghp_)', `ghp_${alnum(36, n())}`),
    token('GitHub OAuth token (gho_)', `gho_${alnum(36, n())}`),
    token('GitHub user-to-server token (ghu_)', `ghu_${alnum(36, n())}`),
    token('GitHub server-to-server token (ghs_)', `ghs_${alnum(36, n())}`),
    token('GitHub refresh token (ghr_)', `ghr_${alnum(76, n())}`),
    token('GitHub fine-grained token', `github_pat_${alnum(22, n())}_${alnum(59, n())}`),
    token('GitLab personal access token', `glpat-${b64url(20, n())}`),
    token('GitLab deploy token', `gldt-${b64url(20, n())}`),
    token('GitLab runner token', `glrt-${b64url(20, n())}`),
    token('GitLab pipeline trigger token', `glptt-${hex(40, n())}`),
    token('GitLab runner registration token', `GR1348941${b64url(20, n())}`),
    token('Bitbucket app password', `ATBB${alnum(32, n())}`),
    token('Atlassian API token', `ATATT3xFfGF0${b64url(180, n())}`),
    token('Stripe live secret key', `sk_live_${alnum(99, n())}`),
    token('Stripe restricted key', `rk_live_${alnum(99, n())}`),
    token('Stripe test secret key', `sk_test_${alnum(99, n())}`),
    token('Stripe webhook secret', `whsec_${alnum(32, n())}`),
    token('Shopify access token', `shpat_${hex(32, n())}`),
    token('Shopify shared secret', `shpss_${hex(32, n())}`),
    token('Square access token', `EAAA${b64url(60, n())}`),
    token('Square OAuth secret', `sq0csp-${b64url(43, n())}`),
    token('Google API key', `AIza${b64url(35, n())}`),
    token('Google OAuth access token', `ya29.${b64url(120, n())}`),
    token('Google OAuth client secret', `GOCSPX-${b64url(28, n())}`),
    token('Google OAuth refresh token', `1//0${b64url(100, n())}`),
    token('OpenAI legacy key', `sk-${alnum(20, n())}T3BlbkFJ${alnum(20, n())}`),
    token('OpenAI project key', `sk-proj-${b64url(156, n())}`),
    token('OpenAI service account key', `sk-svcacct-${b64url(156, n())}`),
    token('Anthropic API key', `sk-ant-api03-${b64url(93, n())}AA`),
    token('Anthropic admin key', `sk-ant-admin01-${b64url(93, n())}AA`),
    token('OpenRouter key', `sk-or-v1-${hex(64, n())}`),
    token('Hugging Face token', `hf_${alnum(34, n())}`),
    token('Groq API key', `gsk_${alnum(52, n())}`),
    token('Replicate token', `r8_${alnum(37, n())}`),
    token('Perplexity API key', `pplx-${alnum(48, n())}`),
    token('xAI API key', `xai-${alnum(80, n())}`),
    token('LangSmith API key', `lsv2_pt_${hex(32, n())}_${hex(10, n())}`),
    token('CircleCI token', `CCIPAT_${alnum(22, n())}_${hex(40, n())}`),
    token('Contentful token', `CFPAT-${b64url(43, n())}`),
    token('RSA private key (PEM)', pem('RSA PRIVATE KEY', n())),
    token('PKCS#8 private key (PEM)', pem('PRIVATE KEY', n())),
    token('EC private key (PEM)', pem('EC PRIVATE KEY', n())),
    token('OpenSSH private key', pem('OPENSSH PRIVATE KEY', n())),
    token('encrypted private key (PEM)', pem('ENCRYPTED PRIVATE KEY', n())),
    token('PGP private key block', pem('PGP PRIVATE KEY BLOCK', n())),
    token('private key with escaped line breaks (JSON)', pem('PRIVATE KEY', n()).replace(/\n/g, '\\n')),
    token(
      'PuTTY private key',
      `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 2\n${fakeText(64, B64, n())}\nPrivate-Lines: 1\n${fakeText(48, B64, n())}\nPrivate-MAC: ${hex(64, n())}`,
    ),
    token(
      'age secret key',
      `AGE-SECRET-KEY-1${fakeText(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L'.toUpperCase(), n())}`,
    ),
    token('JWT', jwt(n())),
    token('npm token', `npm_${alnum(36, n())}`),
    token('PyPI token', `pypi-AgEIcHlwaS5vcmc${b64url(70, n())}`),
    token('RubyGems key', `rubygems_${hex(48, n())}`),
    token('Docker Hub token', `dckr_pat_${b64url(27, n())}`),
    token('Twilio API key', `SK${hex(32, n())}`),
    token('SendGrid API key', `SG.${b64url(22, n())}.${b64url(43, n())}`),
    token('Mailgun API key', `key-${hex(32, n())}`),
    token('Mailchimp API key', `${hex(32, n())}-us21`),
    token('Telegram bot token', `${fakeText(10, '123456789', n())}:AA${b64url(33, n())}`),
    token('Discord bot token', discordToken(n())),
    token(
      'Discord webhook',
      `https://discord.com/api/webhooks/${fakeText(18, '0123456789', n())}/${b64url(68, n())}`,
    ),
    token(
      'Microsoft Teams webhook',
      `https://contoso.webhook.office.com/webhookb2/${uuid(n())}@${uuid(n())}/IncomingWebhook/${hex(32, n())}/${uuid(n())}`,
    ),
    token('HashiCorp Vault token', `hvs.${b64url(90, n())}`),
    token('Terraform Cloud token', `${alnum(14, n())}.atlasv1.${b64url(67, n())}`),
    token('Heroku API key (HRKU-)', `HRKU-AA${b64url(58, n())}`),
    token('DigitalOcean token', `dop_v1_${hex(64, n())}`),
    token('Databricks token', `dapi${hex(32, n())}`),
    token('Azure AD client secret', `${alnum(3, n())}8Q~${b64url(31, n()).replace(/-/g, '.')}`),
    token('Doppler token', `dp.st.prd.${alnum(43, n())}`),
    token('1Password service account token', `ops_eyJ${b64url(200, n())}`),
    token('Pulumi token', `pul-${hex(40, n())}`),
    token('PlanetScale token', `pscale_tkn_${b64url(43, n())}`),
    token('Supabase token', `sbp_${hex(40, n())}`),
    token('Fly.io token', `fm2_${fakeText(120, B64, n())}`),
    token('Tailscale key', `tskey-auth-k${alnum(16, n())}-${alnum(32, n())}`),
    token('Grafana service account token', `glsa_${alnum(32, n())}_${hex(8, n())}`),
    token('Sentry token', `sntrys_${b64url(160, n())}`),
    token('New Relic user key', `NRAK-${fakeText(27, UPPER_DIGITS, n())}`),
    token('Dynatrace token', `dt0c01.${fakeText(24, UPPER_DIGITS, n())}.${fakeText(64, UPPER_DIGITS, n())}`),
    token('Linear API key', `lin_api_${alnum(40, n())}`),
    token('Postman API key', `PMAK-${hex(24, n())}-${hex(34, n())}`),
    token('Notion token', `ntn_${alnum(46, n())}`),
    token('Airtable token', `pat${alnum(14, n())}.${hex(64, n())}`),
    token('HubSpot private app token', `pat-na1-${uuid(n())}`),
    token('Mapbox secret token', `sk.eyJ${b64url(60, n())}.${b64url(22, n())}`),
    token('Figma token', `figd_${b64url(40, n())}`),
    token('Buildkite token', `bkua_${hex(40, n())}`),
    token('Cloudflare origin CA key', `v1.0-${hex(24, n())}-${hex(146, n())}`),
    token('Twitter bearer token', `${'A'.repeat(22)}${alnum(80, n())}`),
  ];
}

/** At least 100 credential forms, syntax layer then self-identifying formats. */
export const SECRET_FORMS: readonly SecretForm[] = [...syntaxForms(), ...tokenForms()];

// --- Harmless values: they come out unchanged. ------------------------------------------------

/**
 * Data tools return that no layer may alter. Exceptions (altered on purpose) are
 * listed in {@link HARMLESS_EXCEPTIONS}, each with its reason.
 */
export const HARMLESS_VALUES: readonly (readonly [string, unknown])[] = [
  ['IAM role ARN', 'arn:aws:iam::123456789012:role/etp-audit'],
  [
    'Secrets Manager secret ARN',
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-password-AbCdEf',
  ],
  ['SSM parameter ARN naming a password', 'arn:aws:ssm:eu-west-1:123456789012:parameter/app/db-password'],
  ['KMS key ARN', 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab'],
  ['STS assumed-role ARN', 'arn:aws:sts::123456789012:assumed-role/etp-audit/run-2024-05-01'],
  ['Lambda function ARN', 'arn:aws:lambda:eu-west-1:123456789012:function:etp-aws_ec2_inventory'],
  ['S3 bucket ARN', 'arn:aws:s3:::my-bucket'],
  ['API Gateway authorizer ARN', 'arn:aws:apigateway:us-east-1::/restapis/a1b2c3/authorizers/xyz123'],
  ['EC2 instance id', 'i-0abc1234def567890'],
  ['EBS volume id', 'vol-0123456789abcdef0'],
  ['security group id', 'sg-0a1b2c3d4e5f67890'],
  ['snapshot id', 'snap-0123456789abcdef0'],
  ['AMI id', 'ami-0c55b159cbfafe1f0'],
  ['Elastic IP allocation id', 'eipalloc-0a1b2c3d4e5f67890'],
  ['NAT gateway id', 'nat-0a1b2c3d4e5f67890'],
  ['sha256 hex digest', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
  ['container image digest', 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
  ['git commit sha', 'e83c5163316f89bfbde7d9ab23ca2e25604af290'],
  ['S3 ETag', '"9b2cf535f27731c974343645a3985328"'],
  ['S3 multipart ETag', '"d41d8cd98f00b204e9800998ecf8427e-38"'],
  ['UUID', '3f2504e0-4f89-41d3-9a0c-0305e82c3301'],
  ['ISO date', '2024-05-01T10:00:00.000Z'],
  ['ISO date with offset', '2024-05-01T10:00:00+00:00'],
  ['HTTP date', 'Wed, 01 May 2024 10:00:00 GMT'],
  ['region name', 'eu-west-1'],
  ['GovCloud region', 'us-gov-west-1'],
  ['prose: Basic monitoring', 'Basic monitoring only; detailed monitoring is off'],
  [
    'prose: a message about a token',
    "slack_channel_history needs a bot token: the tenant's slack_default has only webhook_url",
  ],
  ['prose: a validation message about a password', 'password: must be at least 14 characters long'],
  ['prose: a setting that is missing', 'api key: not set for this tenant'],
  ['prose: bearer token', 'The API expects a Bearer token in the header'],
  ['prose: secret name', 'The secret name is prod/db'],
  ['prose: token count', 'Token count: 42'],
  ['password policy line', 'MinimumPasswordLength: 14, PasswordReusePrevention=24, RequireSymbols: true'],
  ['pagination cursor', 'NextToken=AAMA-EFRSDdWclJDWVdXV0FBQUFBQUFBQUFBQUFBQUFBQUFBQUFB'],
  [
    'IAM credential report row',
    'alice,arn:aws:iam::123456789012:user/alice,2024-01-01T00:00:00+00:00,true,2024-05-01T10:00:00+00:00,N/A,N/A,false,true,2024-01-02T00:00:00+00:00,2024-04-30T10:00:00+00:00,us-east-1,s3,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A',
  ],
  [
    'IAM credential report header',
    'user,arn,user_creation_time,password_enabled,password_last_used,password_last_changed,password_next_rotation,mfa_active,access_key_1_active,access_key_1_last_rotated,access_key_1_last_used_date',
  ],
  ['console URL', 'https://console.aws.amazon.com/ec2/home?region=eu-west-1#Instances:'],
  ['search URL mentioning a password', 'https://example.com/search?q=password+reset&page=2'],
  ['S3 URI', 's3://my-bucket/runs/default/aws_pulse/run-1/result.json'],
  ['S3 object key', 'logs/2024/05/01/app.log.gz'],
  ['ECR image', '123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:1.4.2'],
  ['CIDR', '10.0.0.0/16'],
  ['IPv6 address', '2001:db8::1'],
  ['email address', 'alice@example.com'],
  ['Slack channel id and ts', 'C0123456789 at 1714557600.123456'],
  ['CloudTrail event names', 'GetSecretValue, CreateAccessKey, GetSessionToken'],
  ['short AKIA-like word', 'AKIA-short'],
  ['base64 of plain text', 'aGVsbG8gd29ybGQ='],
  ['instance type', 'm5.large'],
  ['disk alert name', 'disk-usage-alert-high-priority'],
  [
    'IAM password policy object',
    {
      MinimumPasswordLength: 14,
      RequireSymbols: true,
      RequireNumbers: true,
      AllowUsersToChangePassword: true,
      ExpirePasswords: false,
      MaxPasswordAge: 90,
      PasswordReusePrevention: 24,
      HardExpiry: false,
    },
  ],
  [
    'IAM credential report entry object',
    {
      user: 'alice',
      password_enabled: 'true',
      password_last_used: '2024-05-01T10:00:00+00:00',
      password_last_changed: 'N/A',
      password_next_rotation: 'N/A',
      access_key_1_active: 'true',
      access_key_1_last_rotated: '2024-01-02T00:00:00+00:00',
      access_key_1_last_used_date: '2024-04-30T10:00:00+00:00',
      access_key_1_last_used_region: 'us-east-1',
      access_key_1_last_used_service: 's3',
    },
  ],
  [
    'Secrets Manager ListSecrets entry',
    {
      ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf',
      Name: 'prod/db',
      SecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf',
      KmsKeyId: 'alias/aws/secretsmanager',
      RotationEnabled: true,
      LastAccessedDate: '2024-05-01T00:00:00Z',
    },
  ],
  [
    'model usage counts',
    { input_tokens: 1200, output_tokens: 80, max_tokens: 4096, cache_read_input_tokens: 0, TokenCount: 7 },
  ],
  [
    'API Gateway method and secret reference row',
    {
      AuthorizationType: 'AWS_IAM',
      ApiKeyRequired: false,
      secret_name: 'slack_default',
      SecretId: 'prod/slack',
      token_type: 'Bearer',
      NextPageToken: 'page-2',
      ContinuationToken: '1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=',
      SignatureVersion: 'v4',
    },
  ],
  [
    'tags',
    [
      { Key: 'Name', Value: 'web-1' },
      { Key: 'team', Value: 'platform' },
    ],
  ],
];

/**
 * Harmless values the redactor alters on purpose, with the reason. At most one
 * (issue 8): a second would mean the rules are too eager.
 */
export const HARMLESS_EXCEPTIONS: ReadonlyMap<string, string> = new Map();
