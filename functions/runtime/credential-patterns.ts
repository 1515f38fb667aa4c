/**
 * The self-identifying credential formats of redaction (docs/redaction.md):
 * tokens whose prefix or shape says what they are (Slack, AWS, GitHub, GitLab,
 * Stripe, Google, model providers, PEM/PGP private keys, JWTs…), plus HTTP auth
 * schemes that carry a credential after their name (Bearer, Basic, Digest,
 * Negotiate). `mask-credentials.ts` applies them with the other text layers.
 *
 * Adding a format is one entry in {@link TOKEN_RULES}: its anchors (the literals
 * every match holds) are derived from its source, and a line holding none of a
 * rule's anchors never runs that rule's regex.
 *
 * The patterns are written for this platform (not copied from a scanner), listed
 * against gitleaks' rule set and detect-secrets' plugins for coverage. Every
 * pattern starts with a literal or a bounded class and uses bounded or possessive-
 * like repetition, so a string is scanned in linear time (bench/redact.ts runs a
 * 1 MB adversarial string).
 */

/** One self-identifying credential format. */
export interface TokenRule {
  /** What it is (`github-token`); tests and docs list them by name. */
  readonly name: string;
  /** Regular expression source without capturing groups or flags (the rules a string's anchors name form one case-sensitive regex). */
  readonly source: string;
  /** A check on the whole match (a decoding, a mix of characters); masked when absent or true. */
  readonly accept?: (match: string) => boolean;
  /**
   * Literals (2+ characters) one of which every match contains, for the prefilter:
   * the rule runs only on strings holding one. @default its {@link leadingLiterals}
   */
  readonly anchors?: readonly string[];
  /**
   * A literal every match contains, for a rule that starts with a character class
   * (it has no leading literal): the rule runs only on strings that hold it. A
   * guard of 2+ characters is found by the prefilter like an anchor; a 1-character
   * one (`.`) by `includes`, in a pass of its own.
   */
  readonly guard?: string;
  /**
   * Anchors found without regard to letter case (HTTP scheme names: RFC 9110
   * §11.1); the source must match every case itself (write it with `ci()`).
   */
  readonly ignoreCase?: true;
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
    source: raw`\bpat-[a-z]{2}\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`,
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
    anchors: ['bearer'],
    ignoreCase: true,
  },
  {
    name: 'basic-credential',
    source: raw`\b${ci('basic')}\s+[A-Za-z0-9+/]{8,}={0,2}(?![A-Za-z0-9+/=])`,
    accept: isBasicCredential,
    anchors: ['basic'],
    ignoreCase: true,
  },
  {
    name: 'digest-credential',
    source: raw`\b${ci('digest')}\s+(?:username|realm|nonce|uri|response|opaque|qop|cnonce)\s*=[^\r\n]*`,
    anchors: ['digest'],
    ignoreCase: true,
  },
  {
    name: 'negotiate-credential',
    source: raw`\b(?:${ci('negotiate')}|${ci('ntlm')}|${ci('kerberos')})\s+[A-Za-z0-9+/]{16,}={0,2}`,
    anchors: ['negotiate', 'ntlm', 'kerberos'],
    ignoreCase: true,
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

/** One character of a literal in a rule's source: plain, or escaped. */
const LITERAL_CHAR = String.raw`(?:[A-Za-z0-9_\-:/~]|\\[./-])`;
const ONE_LITERAL_CHAR = new RegExp(`^${LITERAL_CHAR}`);
/** A `(?:ab|cd)` group of literals only. */
const LITERAL_GROUP = new RegExp(String.raw`^\(\?:(${LITERAL_CHAR}+(?:\|${LITERAL_CHAR}+)*)\)`);
/** A `[pousr]` class of a few single characters (no range). */
const SMALL_CLASS = /^\[([A-Za-z0-9_:~]{1,8})\]/;
/** Most anchors one rule expands to. */
const MAX_ANCHORS = 32;

/**
 * The literals a rule's source starts with (after `\b`): its leading literal,
 * continued through small character classes (`gh[pousr]_` gives `ghp_`, `gho_`…)
 * and groups of literals (`(?:sk|rk)_` gives `sk_`, `rk_`), up to the first other
 * metacharacter; a unit followed by a quantifier ends the literals before it.
 *
 * @example leadingLiterals(String.raw`\bdo[por]_v1_[a-f0-9]{64}`) // ['dop_v1_', 'doo_v1_', 'dor_v1_']
 */
export function leadingLiterals(source: string): string[] {
  const body = source.replace(/^\\[bB]/, '');
  let literals = [''];
  let i = 0;
  while (i < body.length) {
    const rest = body.slice(i);
    let unit: string[] | undefined;
    let width = 0;
    const char = ONE_LITERAL_CHAR.exec(rest);
    const group = LITERAL_GROUP.exec(rest);
    const small = SMALL_CLASS.exec(rest);
    if (char) [unit, width] = [[(char[0] as string).replace(/^\\/, '')], char[0].length];
    else if (group)
      [unit, width] = [
        (group[1] as string).split('|').map((a) => a.replace(/\\(.)/g, '$1')),
        group[0].length,
      ];
    else if (small) [unit, width] = [[...(small[1] as string)], small[0].length];
    if (unit === undefined || /^[?*+{]/.test(rest.slice(width))) break;
    if (literals.length * unit.length > MAX_ANCHORS) break;
    const units = unit;
    literals = literals.flatMap((prefix) => units.map((u) => prefix + u));
    i += width;
  }
  return literals;
}

/** A rule's anchors: declared, else its {@link leadingLiterals}. */
export function anchorsOf(rule: TokenRule): readonly string[] {
  return rule.anchors ?? leadingLiterals(rule.source);
}
