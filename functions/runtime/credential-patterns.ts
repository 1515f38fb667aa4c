/**
 * The text layers of redaction (docs/redaction.md): credentials recognized in a
 * string whatever its key.
 *
 * 1. **Self-identifying formats** ({@link TOKEN_RULES}): tokens whose prefix or
 *    shape says what they are (Slack, AWS, GitHub, GitLab, Stripe, Google, model
 *    providers, PEM/PGP private keys, JWTs…), plus HTTP auth schemes that carry a
 *    credential after their name (Bearer, Basic, Digest, Negotiate).
 * 2. **Syntax that carries a credential**: a password in a URL
 *    (`scheme://user:pass@host`), and `key=value` / `key: value` / `"key":"value"`
 *    whose key is sensitive by the key rule (`sensitive-keys.ts`) — which covers
 *    `Authorization:` and `Proxy-Authorization:` headers of every scheme,
 *    `Cookie:`/`Set-Cookie:`, and sensitive query parameters (`X-Amz-Signature`,
 *    `sig`, `access_token`, `client_secret`…).
 *
 * The patterns are written for this platform (not copied from a scanner), listed
 * against gitleaks' rule set and detect-secrets' plugins for coverage. Every
 * pattern starts with a literal or a bounded class and uses bounded or possessive-
 * like repetition, so a string is scanned in linear time (bench/redact.ts runs a
 * 1 MB adversarial string).
 */
import { REDACTED } from './secret-values';
import { isSensitiveKey } from './sensitive-keys';

/** One self-identifying credential format. */
export interface TokenRule {
  /** What it is (`github-token`); tests and docs list them by name. */
  readonly name: string;
  /** Regular expression source without capturing groups or flags (all rules form one case-sensitive regex). */
  readonly source: string;
  /** A check on the whole match (a decoding, a mix of characters); masked when absent or true. */
  readonly accept?: (match: string) => boolean;
  /**
   * Literals one of which every match contains, for the prefilter that skips the
   * combined regex on strings holding none. @default the literal the source starts with
   */
  readonly anchors?: readonly string[];
  /**
   * A literal every match contains. A rule that starts with a character class
   * (it would be tried at almost every position of every string) runs in its own
   * pass, only on strings that contain its guard.
   */
  readonly guard?: string;
}

/** The three usual casings of a word (HTTP scheme names are case-insensitive). */
function casings(word: string): string[] {
  return [word, word[0]?.toUpperCase() + word.slice(1), word.toUpperCase()];
}

/** Case-insensitive letters without the `i` flag (the rules share one regex): `ci('ab')` is `[Aa][Bb]`. */
function ci(word: string): string {
  return word.replace(/[a-z]/g, (c) => `[${c.toUpperCase()}${c}]`);
}

const raw = String.raw;

/** HTTP Basic credentials are base64 of `user:password` (RFC 7617): prose such as "Basic monitoring" is not. */
function isBasicCredential(match: string): boolean {
  const encoded = match.replace(/^\S+\s+/, '');
  const decoded = Buffer.from(encoded, 'base64').toString('latin1');
  return decoded.includes(':') && /^[\x20-\x7e]+$/.test(decoded);
}

/** A bearer credential (8+ characters) is long or has a digit, so "Bearer authentication" in prose stays. */
function isBearerCredential(match: string): boolean {
  const credential = match.replace(/^\S+\s+/, '');
  return credential.length >= 16 || /\d/.test(credential);
}

/** Generated keys mix letters and digits; a name such as `sk-this-is-a-long-setting` does not. */
function mixesLettersAndDigits(match: string): boolean {
  return /[A-Za-z]/.test(match) && /\d/.test(match);
}

/** A JWS (`header.payload.signature`, RFC 7515) or JWE (five parts): base64url parts, the first two substantial. */
function isJwt(match: string): boolean {
  const parts = match.replace(/\.+$/, '').split('.');
  return (
    (parts.length === 3 || parts.length === 5) &&
    (parts[0] as string).length >= 10 &&
    (parts[1] as string).length >= 10
  );
}

/** A Discord bot token's first part is the bot's user id (a 17–20 digit snowflake) in base64. */
function startsWithSnowflake(match: string): boolean {
  const first = match.slice(0, match.indexOf('.'));
  return /^\d{17,20}$/.test(Buffer.from(first, 'base64').toString('latin1'));
}

/** Self-identifying credential formats, matched anywhere in any string. */
export const TOKEN_RULES: readonly TokenRule[] = [
  // Private keys: PEM (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted) and PGP blocks, to their end or the end of the text.
  {
    name: 'private-key-block',
    source: raw`-----BEGIN[ A-Z0-9]{0,40}(?:PRIVATE|SECRET) KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]{0,40}(?:PRIVATE|SECRET) KEY(?: BLOCK)?-----|$)`,
  },
  {
    name: 'putty-private-key',
    source: raw`PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC:\s*[0-9a-fA-F]+|$)`,
  },
  { name: 'age-secret-key', source: raw`\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b` },
  // Slack: bot, user, app, legacy and configuration tokens, rotating refresh tokens (xoxe-, xoxe.xoxb-), webhooks.
  { name: 'slack-token', source: raw`\bxox(?:e\.xox)?[a-z]-[0-9A-Za-z-]{6,}` },
  { name: 'slack-app-token', source: raw`\bxapp-\d-[0-9A-Za-z-]{10,}` },
  {
    name: 'slack-webhook',
    source: raw`https?://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/[^\s"'<>\\]+`,
    anchors: ['hooks.slack'],
  },
  {
    name: 'discord-webhook',
    source: raw`https?://(?:(?:canary|ptb)\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]+`,
    anchors: ['discord'],
  },
  {
    name: 'teams-webhook',
    source: raw`https?://[\w.-]{1,100}\.webhook\.office\.com/webhookb2/[^\s"'<>\\]+`,
    anchors: ['.webhook.office.com/'],
  },
  // AWS: access key ids (long-term, STS, service bearer, context), session tokens; Alibaba key ids.
  {
    name: 'aws-access-key-id',
    source: raw`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`,
    anchors: ['A3T', 'AKIA', 'ASIA', 'ABIA', 'ACCA'],
  },
  {
    name: 'aws-session-token',
    source: raw`\b[A-Za-z]{2}oJb3JpZ2lu[A-Za-z0-9+/]{40,}={0,2}`,
    guard: 'oJb3JpZ2lu',
  },
  {
    name: 'aws-session-token-legacy',
    source: raw`\b(?:F[wQ]oGZXIvYXdz|AQoDYXdz)[A-Za-z0-9+/]{40,}={0,2}`,
    anchors: ['oGZXIvYXdz', 'AQoDYXdz'],
  },
  { name: 'alibaba-access-key-id', source: raw`\bLTAI[A-Za-z0-9]{12,20}\b` },
  // Source hosting and CI.
  { name: 'github-token', source: raw`\bgh[pousr]_[A-Za-z0-9]{30,}` },
  { name: 'github-fine-grained-token', source: raw`\bgithub_pat_[A-Za-z0-9_]{50,}` },
  {
    name: 'gitlab-token',
    source: raw`\bgl(?:pat|dt|rt|ptt|ft|imt|agent|oas|soat|cbt|ffct|wt)-[0-9A-Za-z_.-]{20,}`,
  },
  { name: 'gitlab-runner-registration-token', source: raw`\bGR1348941[\w-]{20,}` },
  { name: 'bitbucket-app-password', source: raw`\bATBB[A-Za-z0-9_=.-]{28,}` },
  { name: 'atlassian-api-token', source: raw`\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{40,}` },
  { name: 'buildkite-token', source: raw`\bbkua_[a-f0-9]{40}\b` },
  { name: 'circleci-token', source: raw`\bCCIPAT_[A-Za-z0-9]{20,}_[a-f0-9]{40}\b` },
  // Payments and commerce.
  {
    name: 'stripe-secret-key',
    source: raw`\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}`,
    anchors: ['k_live_', 'k_test_'],
  },
  { name: 'stripe-webhook-secret', source: raw`\bwhsec_[0-9A-Za-z+/=]{24,}` },
  { name: 'shopify-token', source: raw`\bshp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b` },
  { name: 'square-token', source: raw`\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,}` },
  { name: 'square-or-meta-access-token', source: raw`\bEAA[A-Za-z0-9_-]{60,}` },
  // Google.
  { name: 'google-api-key', source: raw`\bAIza[0-9A-Za-z_-]{35}` },
  { name: 'google-oauth-access-token', source: raw`\bya29\.[0-9A-Za-z_-]{20,}` },
  { name: 'google-oauth-client-secret', source: raw`\bGOCSPX-[0-9A-Za-z_-]{20,}` },
  { name: 'google-oauth-refresh-token', source: raw`\b1//0[0-9A-Za-z_-]{40,}` },
  // Model providers: OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-), Anthropic (sk-ant-), OpenRouter, and others.
  { name: 'sk-api-key', source: raw`\bsk-[A-Za-z0-9_-]{20,}`, accept: mixesLettersAndDigits },
  { name: 'hugging-face-token', source: raw`\bhf_[A-Za-z0-9]{30,}` },
  { name: 'groq-api-key', source: raw`\bgsk_[A-Za-z0-9]{40,}` },
  { name: 'perplexity-api-key', source: raw`\bpplx-[A-Za-z0-9]{40,}` },
  { name: 'xai-api-key', source: raw`\bxai-[A-Za-z0-9]{40,}` },
  { name: 'replicate-token', source: raw`\br8_[A-Za-z0-9]{30,}` },
  { name: 'langsmith-api-key', source: raw`\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b` },
  // Signed tokens.
  // The whole dotted run is taken and its shape checked after, so a long run without dots is read once.
  { name: 'jwt', source: raw`\beyJ[A-Za-z0-9_.-]{16,}`, accept: isJwt },
  // Package registries.
  { name: 'npm-token', source: raw`\bnpm_[A-Za-z0-9]{36}\b` },
  { name: 'pypi-token', source: raw`\bpypi-AgE[A-Za-z0-9_-]{50,}` },
  { name: 'rubygems-key', source: raw`\brubygems_[a-f0-9]{48}\b` },
  { name: 'docker-hub-token', source: raw`\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}` },
  // Messaging and email.
  { name: 'twilio-api-key', source: raw`\bSK[0-9a-fA-F]{32}\b` },
  { name: 'sendgrid-api-key', source: raw`\bSG\.[\w-]{16,32}\.[\w-]{16,64}` },
  { name: 'mailgun-api-key', source: raw`\bkey-[0-9a-f]{32}\b` },
  { name: 'mailchimp-api-key', source: raw`\b[0-9a-f]{32}-us\d{1,2}\b`, guard: '-us' },
  { name: 'telegram-bot-token', source: raw`\b\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])`, guard: ':AA' },
  {
    name: 'discord-bot-token',
    source: raw`\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}(?![\w-])`,
    accept: startsWithSnowflake,
    guard: '.',
  },
  // Cloud and infrastructure platforms.
  { name: 'vault-token', source: raw`\bhv[sbr]\.[A-Za-z0-9_-]{24,}` },
  {
    name: 'terraform-cloud-token',
    source: raw`\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}`,
    guard: '.atlasv1.',
  },
  { name: 'heroku-api-key', source: raw`\bHRKU-[0-9A-Za-z_-]{20,}` },
  { name: 'digitalocean-token', source: raw`\bdo[por]_v1_[a-f0-9]{64}\b` },
  { name: 'databricks-token', source: raw`\bdapi[a-f0-9]{32}(?:-\d+)?\b` },
  {
    name: 'azure-ad-client-secret',
    source: raw`(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`,
    guard: 'Q~',
  },
  { name: 'cloudflare-origin-ca-key', source: raw`\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b` },
  {
    name: 'doppler-token',
    source: raw`\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,}`,
  },
  { name: 'onepassword-service-account-token', source: raw`\bops_eyJ[A-Za-z0-9_-]{20,}` },
  { name: 'pulumi-token', source: raw`\bpul-[a-f0-9]{40}\b` },
  { name: 'planetscale-token', source: raw`\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}` },
  { name: 'supabase-token', source: raw`\bsbp_[a-f0-9]{40}\b` },
  { name: 'fly-token', source: raw`\bfm[12][ar]?_[A-Za-z0-9+/=_-]{50,}` },
  { name: 'tailscale-key', source: raw`\btskey-(?:auth|api|client|webhook|scim)-[A-Za-z0-9-]{20,}` },
  // Observability and SaaS.
  { name: 'grafana-token', source: raw`\bgl(?:sa|c)_[A-Za-z0-9_+/=-]{32,}` },
  { name: 'sentry-token', source: raw`\bsntry[su]_[A-Za-z0-9+/=_-]{30,}` },
  { name: 'new-relic-key', source: raw`\bNR(?:AK|AA|II|JS)-[A-Za-z0-9]{20,}` },
  { name: 'dynatrace-token', source: raw`\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b` },
  { name: 'linear-api-key', source: raw`\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b` },
  { name: 'postman-api-key', source: raw`\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b` },
  { name: 'notion-token', source: raw`\b(?:secret|ntn)_[A-Za-z0-9]{40,}\b`, anchors: ['secret_', 'ntn_'] },
  { name: 'airtable-token', source: raw`\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b` },
  {
    name: 'hubspot-token',
    source: raw`\bpat-(?:na|eu)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`,
  },
  { name: 'mapbox-secret-token', source: raw`\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}` },
  { name: 'figma-token', source: raw`\bfig[dhu]_[A-Za-z0-9_-]{30,}` },
  { name: 'contentful-token', source: raw`\bCFPAT-[A-Za-z0-9_-]{40,}` },
  { name: 'twitter-bearer-token', source: raw`\bA{22}[A-Za-z0-9%]{30,}`, anchors: ['A'.repeat(22)] },
  // Command lines and .netrc: a password after a flag or keyword rather than a separator.
  { name: 'netrc-password', source: raw`\blogin\s+\S+\s+password\s+\S+` },
  {
    name: 'cli-secret-flag',
    source: raw`--[A-Za-z-]{0,30}(?:password|passwd|token|secret|api-key|apikey)\s+[^\s-]\S*`,
  },
  { name: 'cli-user-password', source: raw`\B-(?:u|-user)\s+[^\s:'"]+:[^\s'"]+`, anchors: ['-u', '--user'] },
  // HTTP auth schemes that carry the credential after their name (RFC 7235 and the schemes' RFCs).
  {
    name: 'bearer-credential',
    source: raw`\b${ci('bearer')}\s+[A-Za-z0-9\-._~+/]{8,}=*`,
    accept: isBearerCredential,
    anchors: casings('bearer'),
  },
  {
    name: 'basic-credential',
    source: raw`\b${ci('basic')}\s+[A-Za-z0-9+/]{8,}={0,2}(?![A-Za-z0-9+/=])`,
    accept: isBasicCredential,
    anchors: casings('basic'),
  },
  {
    name: 'digest-credential',
    source: raw`\b${ci('digest')}\s+(?:username|realm|nonce|uri|response|opaque|qop|cnonce)\s*=[^\r\n]*`,
    anchors: casings('digest'),
  },
  {
    name: 'negotiate-credential',
    source: raw`\b(?:${ci('negotiate')}|NTLM|${ci('kerberos')})\s+[A-Za-z0-9+/]{16,}={0,2}`,
    anchors: [...casings('negotiate'), 'NTLM', ...casings('kerberos')],
  },
];

/**
 * The literal a rule's source starts with (after `\b`), up to the first
 * metacharacter; a literal followed by a quantifier loses its last character.
 */
export function leadingLiteral(source: string): string {
  const body = source.replace(/^\\[bB]/, '');
  const literal = /^(?:[A-Za-z0-9_\-:/~]|\\[./-])*/.exec(body)?.[0] ?? '';
  const quantified = /^[?*+{]/.test(body.slice(literal.length));
  return (quantified ? literal.replace(/(?:\\.|.)$/, '') : literal).replace(/\\(.)/g, '$1');
}

/** A rule's anchors: declared, else its leading literal. */
export function anchorsOf(rule: TokenRule): readonly string[] {
  return rule.anchors ?? [leadingLiteral(rule.source)];
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Rules scanned together: one regex, each rule in its own group, so a string is scanned once. */
const COMBINED_RULES = TOKEN_RULES.filter((rule) => rule.guard === undefined);
const AWS_KEY_ID_RULE = COMBINED_RULES.findIndex((rule) => rule.name === 'aws-access-key-id');
const TOKENS = new RegExp(COMBINED_RULES.map((rule) => `(${rule.source})`).join('|'), 'g');

/**
 * Every anchor of the combined rules: a string holding none of them cannot match
 * any, and most strings of a result (ids, ARNs, dates, names) hold none. Testing
 * these literals costs a fraction of the combined regex.
 */
const ANCHORS = new RegExp([...new Set(COMBINED_RULES.flatMap(anchorsOf))].map(escapeRegExp).join('|'));

/** Rules led by a character class, each run alone on strings holding its guard. */
const GUARDED_RULES = TOKEN_RULES.filter((rule) => rule.guard !== undefined).map((rule) => ({
  guard: rule.guard as string,
  pattern: new RegExp(rule.source, 'g'),
  accept: rule.accept,
}));

/**
 * A 40-character AWS secret access key, masked only in a text that also held an
 * access key id (a CSV line, a CLI dump): alone it is indistinguishable from
 * other base64. Elsewhere the key rule (`aws_secret_access_key=`) or the exact
 * match of resolved secrets masks it.
 */
const AWS_SECRET_ACCESS_KEY = /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

function looksLikeAwsSecretKey(candidate: string): boolean {
  return /[A-Z]/.test(candidate) && /[a-z]/.test(candidate) && /[0-9/+]/.test(candidate);
}

/**
 * A URL, from its scheme to the next space or quote (RFC 3986 §3). Taken whole
 * (nothing is required after the greedy part, so nothing backtracks) and parsed
 * by {@link maskUrlPassword}.
 */
const URL_TOKEN = /\b[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s"'<>]*/g;

/** What follows a userinfo `@`: a host and optional port, then the path, query, fragment or end. */
const HOST_AFTER_AT = /^[A-Za-z0-9.[\]:%-]*?(?::\d+)?(?:[/?#]|$)/;

/**
 * Index of the `@` that ends the userinfo in `rest` (the URL after `://`), or -1:
 * the last `@` a host follows, skipping those inside the query (after a `?` and
 * a later `=`, as in `?email=a@b.com`); when all are, the last one (masking too
 * much rather than too little).
 */
function userinfoEnd(rest: string): number {
  const question = rest.indexOf('?');
  const queryEquals = question < 0 ? -1 : rest.indexOf('=', question);
  let fallback = -1;
  for (let at = rest.lastIndexOf('@'); at >= 0; at = at > 0 ? rest.lastIndexOf('@', at - 1) : -1) {
    if (!HOST_AFTER_AT.test(rest.slice(at + 1, at + 300))) continue;
    if (queryEquals < 0 || queryEquals > at) return at;
    if (fallback < 0) fallback = at;
  }
  return fallback;
}

/**
 * Masks the password of a URL's userinfo (RFC 3986 §3.2.1), any scheme:
 * `postgres://`, `mongodb+srv://`, `redis://:pass@`, `amqps://`, `https://`. The
 * password runs to the last `@` a host follows outside the query, so an
 * unencoded `@`, `/` or `?` in it is masked too. The user name stays.
 */
function maskUrlPassword(url: string): string {
  const schemeEnd = url.indexOf('://') + 3;
  const rest = url.slice(schemeEnd);
  const at = userinfoEnd(rest);
  if (at < 0) return url;
  const colon = rest.indexOf(':');
  if (colon < 0 || colon > at || rest.slice(0, colon).includes('/')) return url;
  const password = rest.slice(colon + 1, at);
  if (password.length === 0 || password === REDACTED) return url;
  return `${url.slice(0, schemeEnd)}${rest.slice(0, colon + 1)}${REDACTED}${rest.slice(at)}`;
}

/** One regex per depth: a rejected match is scanned again once (see {@link maskTokens}). */
const TOKENS_AGAIN = new RegExp(TOKENS.source, 'g');

/**
 * Masks the self-identifying formats; tells whether an AWS access key id was
 * among them. A match its rule's `accept` rejects is kept, and scanned once more
 * from its second character, so a token inside it (an access key id after the
 * word "Basic") is still found; that second scan does not recurse, which keeps
 * the work linear.
 */
function maskTokens(text: string, again = false): { readonly text: string; readonly sawAwsKeyId: boolean } {
  let sawAwsKeyId = false;
  const masked = !ANCHORS.test(text)
    ? text
    : text.replace(again ? TOKENS_AGAIN : TOKENS, (match: string, ...groups: unknown[]) => {
        const index = groups.findIndex((group) => group !== undefined);
        if (index === AWS_KEY_ID_RULE) sawAwsKeyId = true;
        const accept = COMBINED_RULES[index]?.accept;
        if (accept === undefined || accept(match)) {
          // A sentence's full stop after a token is not part of it.
          const dots = /\.*$/.exec(match)?.[0] ?? '';
          return `${REDACTED}${dots}`;
        }
        if (again) return match;
        const inner = maskTokens(match.slice(1), true);
        sawAwsKeyId ||= inner.sawAwsKeyId;
        return match[0] + inner.text;
      });
  let out = masked;
  if (!again) {
    for (const { guard, pattern, accept } of GUARDED_RULES) {
      if (!out.includes(guard)) continue;
      out = out.replace(pattern, (match) => (accept === undefined || accept(match) ? REDACTED : match));
    }
  }
  return { text: out, sawAwsKeyId };
}

/**
 * Masks the credential-looking parts of one string: self-identifying formats,
 * URL passwords, and values of sensitive `key=value` / `key: value` pairs.
 *
 * @param keepKeys - normalized keys kept visible (a tool spec's `visibleOutputKeys`).
 * @example maskCredentials('postgres://app:fake-test-pw@db.example.com/x')
 * // => 'postgres://app:<redacted>@db.example.com/x'
 */
export function maskCredentials(text: string, keepKeys?: ReadonlySet<string>): string {
  const tokens = maskTokens(text);
  let out = tokens.text;
  if (tokens.sawAwsKeyId) {
    out = out.replace(AWS_SECRET_ACCESS_KEY, (match) => (looksLikeAwsSecretKey(match) ? REDACTED : match));
  }
  if (out.includes('://')) out = out.replace(URL_TOKEN, maskUrlPassword);
  return maskKeyValues(out, keepKeys);
}

// --- key=value, key: value and "key": "value" ---------------------------------------

/** Longest key looked for before a separator: longer runs are data, not a key. */
const MAX_KEY_CHARS = 64;
/** Spaces allowed around a separator (`password = x`, `"password" : "x"`). */
const MAX_PAD_CHARS = 8;

/** Headers whose whole value is a credential, spaces and `;` included (RFC 9110 §11.6.2, RFC 6265). */
const WHOLE_LINE_KEYS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

/** Values that carry no secret: nothing to mask. */
const NOT_SECRET = /^(?:true|false|null|none|undefined|<redacted>)$/i;

/**
 * A spaced value that reads as a sentence about the key, not as the key's value:
 * it opens with an English function word or a verdict and goes on with more words
 * (`bot token: the tenant's slack_default has only webhook_url`, `password: must be
 * at least 8 characters`, `api key: not set`). Error messages say such things of
 * credentials all the time; masking them hides what went wrong. A credential that
 * follows such a word is still caught by its own format (the second layer).
 */
const READS_AS_PROSE =
  /^(?:the|a|an|this|that|these|those|it|its|is|are|was|were|be|been|has|have|had|not|no|none|missing|required|invalid|expired|revoked|must|should|may|can|cannot|could|would|will|does|did|do|only|see|set|unset|empty|unknown|please|use|check|expected|got|from|for|of|in|on|at|to|with|without)\s+\S/i;

/**
 * A placeholder rather than a value: an elided example (`"xoxb-…"`,
 * `"https://hooks.slack.com/…"`) with no run of 8 letters or digits (a cut real
 * token keeps one, and stays masked), `***` or `<your-token>`.
 */
function isPlaceholder(value: string): boolean {
  if (value.endsWith('…') || value.endsWith('...')) return !/[A-Za-z0-9]{8}/.test(value);
  return /^(?:\*+|<[A-Za-z _-]{1,40}>)$/.test(value);
}

/** A YAML block scalar header (`|`, `>-`, `|2`): the value is on the lines below. */
const YAML_BLOCK = /^[|>][-+]?\d?$/;

function isKeyChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || // a-z
    (code >= 65 && code <= 90) || // A-Z
    (code >= 48 && code <= 57) || // 0-9
    code === 95 || // _
    code === 45 || // -
    code === 46 // .
  );
}

function isPad(char: string | undefined): boolean {
  return char === ' ' || char === '\t';
}

/** A `:` or `=` (plain or percent-encoded) at `index`, `length` characters long. */
interface Separator {
  readonly index: number;
  readonly length: number;
  readonly colon: boolean;
}

interface KeyBefore {
  readonly name: string;
  /** Where the key's name starts. */
  readonly start: number;
  /** The quote around the key (`"`, `'`, `\"`), or '' for a bare key. */
  readonly quote: string;
  /** The character before the key (and its opening quote); '' at the start. */
  readonly before: string;
}

/** The key ending just before the separator at `sep`, if there is one. */
function keyBefore(text: string, sep: number): KeyBefore | undefined {
  let i = sep - 1;
  for (let pad = 0; pad < MAX_PAD_CHARS && isPad(text[i]); pad++) i--;
  let quote = '';
  if (text[i] === '"' || text[i] === "'") {
    quote = text[i] as string;
    i--;
    if (text[i] === '\\') {
      quote = `\\${quote}`;
      i--;
    }
  }
  const end = i + 1;
  while (i >= 0 && end - i <= MAX_KEY_CHARS && isKeyChar(text.charCodeAt(i))) i--;
  const start = i + 1;
  if (start === end || end - start > MAX_KEY_CHARS || (i >= 0 && isKeyChar(text.charCodeAt(i))))
    return undefined;
  if (quote) {
    if (!text.startsWith(quote, start - quote.length)) return undefined;
    i = start - quote.length - 1;
  }
  return { name: text.slice(start, end), start, quote, before: i >= 0 ? (text[i] as string) : '' };
}

/**
 * Whether `key:` introduces a value. A quoted key (JSON) or a colon followed by a
 * space (YAML, HTTP headers) does; a bare `a:b` does only when it is not part of
 * a colon or slash chain (`arn:aws:secretsmanager:…`, `host:port`).
 */
function colonStartsValue(text: string, sep: Separator, key: KeyBefore): boolean {
  if (key.quote) return true;
  const next = text[sep.index + sep.length];
  if (next === ' ' || next === '\t' || next === '\n' || next === '\r') return true;
  return key.before !== ':' && key.before !== '/' && !key.name.includes('.');
}

/** Where a value starting at `from` ends, given the characters that end it. */
function scanTo(text: string, from: number, stops: RegExp): number {
  stops.lastIndex = from;
  const stop = stops.exec(text);
  return stop ? stop.index : text.length;
}

/** A value's end for `key=value` and `key:value` (query strings, env, connection strings), also percent-encoded. */
const EQUALS_VALUE_END = /[\s"'&;,)\]}]|\\[nrt"\\]|%2[026Cc]|%3[Bb]/g;
/** A value's end for `key: value` (YAML, headers: may hold spaces). */
const COLON_VALUE_END = /[\r\n"',;}\]]|\\[nrt"\\]/g;
/** A header's end: the line. */
const LINE_END = /[\r\n"]|\\[nr"]/g;

/** Deepest nesting followed in a bracketed value before giving up (the rest of the text is masked). */
const MAX_BRACKET_DEPTH = 64;

/**
 * Just past the bracket closing the one at `open` (`{…}` or `[…]`, JSON strings
 * skipped), or the end of the text when it is not closed: a sensitive key's
 * whole structured value is masked, as an object key's would be.
 */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') {
      depth++;
      if (depth > MAX_BRACKET_DEPTH) break;
    } else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  // Unclosed (or deeper than followed): all that follows belongs to the sensitive key.
  return text.length;
}

/** Width of the indentation of the line holding `index`. */
function indentOf(text: string, index: number): number {
  let start = text.lastIndexOf('\n', index - 1) + 1;
  let width = 0;
  while (isPad(text[start++])) width++;
  return width;
}

/**
 * The end of a YAML block scalar (`password: |` then indented lines): the
 * following lines that are blank or indented deeper than the key.
 */
function blockEnd(text: string, key: KeyBefore, from: number): number {
  const keyIndent = indentOf(text, key.start);
  let end = from;
  for (let line = text.indexOf('\n', from); line >= 0 && line + 1 < text.length; ) {
    const next = text.indexOf('\n', line + 1);
    const lineEnd = next < 0 ? text.length : next;
    const content = text.slice(line + 1, lineEnd);
    if (content.trim() !== '' && indentOf(text, line + 1) <= keyIndent) break;
    end = lineEnd;
    line = next;
  }
  return end;
}

/** The range of the value after the separator (empty when there is none). */
function valueAfter(text: string, sep: Separator, key: KeyBefore): { start: number; end: number } {
  let start = sep.index + sep.length;
  for (let pad = 0; pad < MAX_PAD_CHARS && isPad(text[start]); pad++) start++;
  const open = text[start] === '\\' && text[start + 1] === '"' ? '\\"' : text[start];
  if (open === '"' || open === "'" || open === '\\"') {
    start += open.length;
    let end = text.indexOf(open, start);
    // A JSON string ends at an unescaped quote.
    while (open === '"' && end > 0 && text[end - 1] === '\\') end = text.indexOf(open, end + 1);
    return { start, end: end < 0 ? scanTo(text, start, LINE_END) : end };
  }
  if (text[start] === '{' || text[start] === '[') return { start, end: closingBracket(text, start) };
  const name = key.name.toLowerCase();
  // `key: value` (a space after the colon) may hold spaces; `key=value` and `key:value` end at one.
  const spaced = sep.colon && start > sep.index + sep.length;
  const stops = WHOLE_LINE_KEYS.has(name) ? LINE_END : spaced ? COLON_VALUE_END : EQUALS_VALUE_END;
  const end = scanTo(text, start, stops);
  // YAML: `key: |` or `key:` alone on its line holds the indented lines below.
  const inline = text.slice(start, end).trim();
  const nextLine = inline === '' && /^[ \t]*\r?\n/.test(text.slice(start, start + MAX_PAD_CHARS + 2));
  if (sep.colon && (YAML_BLOCK.test(inline) || nextLine)) return { start, end: blockEnd(text, key, end) };
  return { start, end };
}

const COLON = 58;
const EQUALS = 61;
const PERCENT = 37;

/**
 * The next `=` or `:` at or after `from`, also percent-encoded (`%3D`, `%3A`: a
 * query string inside a query parameter). A character loop, not a regex: a text
 * of separators only costs no allocation per separator.
 */
function nextSeparator(text: string, from: number): Separator | undefined {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === COLON || code === EQUALS) return { index: i, length: 1, colon: code === COLON };
    if (code === PERCENT && text[i + 1] === '3') {
      const kind = text[i + 2];
      if (kind === 'D' || kind === 'd') return { index: i, length: 3, colon: false };
      if (kind === 'A' || kind === 'a') return { index: i, length: 3, colon: true };
    }
  }
  return undefined;
}

/** Masks the value of every sensitive `key=value`, `key: value` and `"key": "value"` in `text`. */
export function maskKeyValues(text: string, keepKeys?: ReadonlySet<string>): string {
  if (!text.includes('=') && !text.includes(':') && !text.includes('%3')) return text;
  const parts: string[] = [];
  let copied = 0;
  for (let sep = nextSeparator(text, 0); sep; sep = nextSeparator(text, sep.index + sep.length)) {
    const key = keyBefore(text, sep.index);
    if (!key || !isSensitiveKey(key.name, keepKeys)) continue;
    if (sep.colon && !colonStartsValue(text, sep, key)) continue;
    const value = valueAfter(text, sep, key);
    // Trailing spaces of a `key: value` stay.
    let end = value.end;
    while (end > value.start && isPad(text[end - 1])) end--;
    const found = text.slice(value.start, end);
    if (found.length === 0 || NOT_SECRET.test(found) || isPlaceholder(found)) continue;
    if (!key.quote && READS_AS_PROSE.test(found)) continue;
    parts.push(text.slice(copied, value.start), REDACTED);
    copied = end;
    // Go on after the value (the loop steps past the separator found there).
    sep = { index: end, length: 0, colon: false };
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}
