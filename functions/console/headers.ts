/**
 * The console page's security headers, in one place: CloudFront's response
 * headers policy (lib/console.ts) and `etp console` (bin/local/console-server.ts)
 * send the same. The page is one HTML file, one script and one stylesheet from
 * its own origin, with no inline script or style, so the policy allows nothing else.
 */

/**
 * The Content-Security-Policy of the page.
 *
 * @param connectSources - origins the page may call besides its own (the Cognito
 *   domain's token endpoint), e.g. `https://etp-console.auth.eu-west-1.amazoncognito.com`.
 */
export function contentSecurityPolicy(connectSources: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src ${["'self'", ...connectSources].join(' ')}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Every security header besides the CSP, as `etp console` sends them (names as HTTP writes them). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

/** HSTS max-age, in seconds: two years (the preload list's minimum is one). */
export const HSTS_MAX_AGE_SECONDS = 63_072_000;
