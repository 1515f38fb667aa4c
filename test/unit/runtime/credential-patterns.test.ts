import {
  anchorsOf,
  leadingLiteral,
  leadingLiterals,
  TOKEN_RULES,
} from '../../../functions/runtime/credential-patterns';
import { maskCredentials } from '../../../functions/runtime/mask-credentials';
import { SECRET_FORMS } from './redaction-corpus';

const R = '<redacted>';

describe('TOKEN_RULES', () => {
  it('have unique names, no capturing group (they share one regex) and at least one anchor of 2+ characters', () => {
    expect(new Set(TOKEN_RULES.map((rule) => rule.name)).size).toBe(TOKEN_RULES.length);
    for (const rule of TOKEN_RULES) {
      expect({
        rule: rule.name,
        groups: (new RegExp(`${rule.source}|`).exec('') as RegExpExecArray).length,
      }).toEqual({
        rule: rule.name,
        groups: 1,
      });
      if (rule.guard === undefined) {
        expect({ rule: rule.name, short: anchorsOf(rule).filter((a) => a.length < 2) }).toEqual({
          rule: rule.name,
          short: [],
        });
      }
    }
  });

  it('find an anchor (or guard) in every corpus form their own regex matches, so the prefilter never hides one', () => {
    // Act
    const misses = TOKEN_RULES.flatMap((rule) => {
      const pattern = new RegExp(rule.source, 'g');
      return SECRET_FORMS.flatMap((form) =>
        [...form.text.matchAll(pattern)]
          .map((m) => m[0])
          .filter((match) =>
            rule.guard === undefined
              ? !anchorsOf(rule).some((a) =>
                  rule.ignoreCase ? match.toLowerCase().includes(a.toLowerCase()) : match.includes(a),
                )
              : !match.includes(rule.guard),
          )
          .map((match) => `${rule.name}: ${match.slice(0, 40)}`),
      );
    });

    // Assess
    expect(misses).toEqual([]);
  });

  it('every rule masks at least one corpus form on its own', () => {
    const unused = TOKEN_RULES.filter((rule) => {
      const pattern = new RegExp(rule.source);
      return !SECRET_FORMS.some((form) => pattern.test(form.text));
    }).map((rule) => rule.name);

    expect(unused).toEqual([]);
  });

  it.each([
    [String.raw`\bxox(?:e\.xox)?[a-z]-`, 'xox'],
    ['https?://hooks', 'http'],
    [String.raw`\bya29\.[0-9]`, 'ya29.'],
    [String.raw`\b1//0[0-9]`, '1//0'],
    [String.raw`\bA{22}`, ''],
  ])('leadingLiteral(%s) is %s', (source, literal) => {
    expect(leadingLiteral(source)).toBe(literal);
  });
});

describe('leadingLiterals()', () => {
  it.each([
    [String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}`, ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_']],
    [String.raw`\b(?:sk|rk)_(?:live|test)_[0-9]`, ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_']],
    [String.raw`\bdo[por]_v1_[a-f0-9]{64}`, ['dop_v1_', 'doo_v1_', 'dor_v1_']],
    [String.raw`\bxox(?:e\.xox)?[a-z]-`, ['xox']],
    [String.raw`\bpat[A-Za-z0-9]{14}\.`, ['pat']],
    [String.raw`\bA{22}`, ['']],
  ])('leadingLiterals(%s)', (source, literals) => {
    expect(leadingLiterals(source)).toEqual(literals);
  });

  it('gives every anchored rule anchors of 3 characters or more, but for a few uppercase prefixes', () => {
    const short = TOKEN_RULES.filter((rule) => rule.guard === undefined)
      .flatMap((rule) =>
        anchorsOf(rule)
          .filter((a) => a.length < 3)
          .map((a) => `${rule.name}: ${a}`),
      )
      .sort();

    expect(short).toEqual(['cli-secret-flag: --', 'cli-user-password: -u', 'twilio-api-key: SK']);
  });
});

describe('maskCredentials()', () => {
  it.each([
    // URL passwords: the user stays, the password goes, the host stays
    ['https://admin:fake-pw-1@db.example.com/x', `https://admin:${R}@db.example.com/x`],
    ['redis://:fake-pw-2@cache:6379/0', `redis://:${R}@cache:6379/0`],
    ['postgres://app:p@ss/w0rd?x@db:5432/app', `postgres://app:${R}@db:5432/app`],
    ['https://u:fake-pw-3@host/p?email=a@b.com', `https://u:${R}@host/p?email=a@b.com`],
    ['https://medium.com/@user and https://host:8443/x', 'https://medium.com/@user and https://host:8443/x'],
    // key=value and key: value
    ['password=fake-1 next', `password=${R} next`],
    ['user=app;Password=fake-2;Host=db', `user=app;Password=${R};Host=db`],
    ['"password" : "fake 3", "user": "app"', `"password" : "${R}", "user": "app"`],
    ["secret: 'fake-4'", `secret: '${R}'`],
    ['token:fake5 ok', `token:${R} ok`],
    ['credentials: {"a":"b","c":["d"]} tail', `credentials: ${R} tail`],
    ['auth: {"user": "x", never closed', `auth: ${R}`],
    ['pass: true, pwd=null, password_length=12', 'pass: true, pwd=null, password_length=12'],
    // placeholders in messages that show what is accepted; a cut real token stays masked
    [
      'Accepted: { "bot_token": "xoxb-…" } or { "webhook_url": "https://hooks.slack.com/…" }, password=***',
      'Accepted: { "bot_token": "xoxb-…" } or { "webhook_url": "https://hooks.slack.com/…" }, password=***',
    ],
    ['token=<your-token> secret: <app secret>', 'token=<your-token> secret: <app secret>'],
    ['"bot_token": "xoxb-12345678…"', `"bot_token": "${R}"`],
    // normalized error codes before their message
    ['secret_not_found: Tenant "acme" has no reference', 'secret_not_found: Tenant "acme" has no reference'],
    ['Authorization: Token fake6 extra words', `Authorization: ${R}`],
    ['x Cookie: a=1; b=2\nnext line', `x Cookie: ${R}\nnext line`],
    // percent-encoded inside a query parameter
    [
      'https://app.test/login?next=https%3A%2F%2Fapi.test%2Fcb%3Fpassword%3Dfake-enc-1%26page%3D2',
      `https://app.test/login?next=https%3A%2F%2Fapi.test%2Fcb%3Fpassword%3D${R}%26page%3D2`,
    ],
    // YAML block scalars and values on the next line
    [
      'db:\n  password: |\n    fake line one\n    fake line two\n  host: db.internal',
      `db:\n  password: ${R}\n  host: db.internal`,
    ],
    ['credentials:\n  user: app\n  pass: fake-2\nregion: eu-west-1', `credentials:${R}\nregion: eu-west-1`],
    // colon chains and URLs are not key: value
    [
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf',
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf',
    ],
    [
      'https://token.actions.githubusercontent.com:443/x',
      'https://token.actions.githubusercontent.com:443/x',
    ],
    // auth schemes in prose
    [
      'Basic monitoring; Bearer authentication; Digest auth',
      'Basic monitoring; Bearer authentication; Digest auth',
    ],
    // a token at the end of a sentence keeps the full stop
    ['sent ghp_abcdefghijklmnopqrstuvwxyz0123456789.', `sent ${R}.`],
  ])('%s', (input, expected) => {
    expect(maskCredentials(input)).toBe(expected);
  });

  it('masks a 40-character AWS secret key only in a text that holds an access key id', () => {
    const secret = 'Fk9sPq2LmN8vB4xZ/tR6yW1cH3jK7dG5fA0eQ+uY'; // fake test value

    expect(maskCredentials(`AKIAIOSFODNN7EXAMPLE,${secret}`)).toBe(`${R},${R}`);
    expect(maskCredentials(`commit ${secret}`)).toBe(`commit ${secret}`);
    expect(maskCredentials('AKIAIOSFODNN7EXAMPLE e83c5163316f89bfbde7d9ab23ca2e25604af290')).toBe(
      `${R} e83c5163316f89bfbde7d9ab23ca2e25604af290`,
    );
  });

  it('finds a token inside a match its rule rejects (an access key id after the word Basic)', () => {
    expect(maskCredentials('Basic AKIAIOSFODNN7EXAMPLE')).toBe(`Basic ${R}`);
  });

  it('keeps the keys it is told to keep', () => {
    expect(maskCredentials('SessionId=ssm-user-0a1b2c', new Set(['sessionid']))).toBe(
      'SessionId=ssm-user-0a1b2c',
    );
    expect(maskCredentials('SessionId=ssm-user-0a1b2c')).toBe(`SessionId=${R}`);
  });

  it.each([
    ['aUtHoRiZaTiOn: Basic ZmFrZS11c2VyOmV4YW1wbGUtcGFzcw==', `aUtHoRiZaTiOn: ${R}`], // fake test
    ['PROXY-AUTHORIZATION: SSWS 00fakeTESTexample', `PROXY-AUTHORIZATION: ${R}`],
    ['sent bEaReR fakeTESTexampleTOKEN12345', `sent ${R}`],
    ['sent BASIC ZmFrZS11c2VyOmV4YW1wbGUtcGFzcw==', `sent ${R}`],
    ['X-aUtH-tOkEn=fakeTESTvalue&page=2', `X-aUtH-tOkEn=${R}&page=2`],
    ['{"PaSsWoRd":"fake-test-pw"}', `{"PaSsWoRd":"${R}"}`],
  ])('matches names without regard to case: %s', (input, expected) => {
    expect(maskCredentials(input)).toBe(expected);
  });

  it.each([
    'turn 6 tokens=1532 in=1412 out=120',
    'tokens: 1532, secrets: 3',
    '{"tokens":1532,"api_keys":2}',
    'run done: Tokens=15320 cost_usd=0.0421',
  ])('keeps counts under plural keys visible: %s', (line) => {
    expect(maskCredentials(line)).toBe(line);
  });

  it.each([
    ['otp=123456', `otp=${R}`],
    ['token=1532', `token=${R}`],
    ['password: 12345678', `password: ${R}`],
    ['tokens=abc123def456', `tokens=${R}`],
  ])('masks a number under a singular key, and a non-number under a plural one: %s', (input, expected) => {
    expect(maskCredentials(input)).toBe(expected);
  });

  it('masks JSON in a string logged as JSON again (quotes escaped twice)', () => {
    const line = JSON.stringify({ message: `upstream said {"client_secret":"fake-test-value","id":1}` });

    expect(maskCredentials(line)).toBe(
      JSON.stringify({ message: `upstream said {"client_secret":"${R}","id":1}` }),
    );
  });

  it('masks an unterminated PEM private key to the end of the text', () => {
    expect(maskCredentials('cut -----BEGIN PRIVATE KEY-----\nMIIfakeTEST')).toBe(`cut ${R}`); // fake test
  });
});
