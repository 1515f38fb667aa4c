// Sign-in (deployed): Cognito's authorization code flow with PKCE; the ID token stays in this tab.

function base64Url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

export async function signIn(config) {
  const stored = sessionStorage.getItem('etp-token');
  const expires = Number(sessionStorage.getItem('etp-token-expires') ?? 0);
  if (stored && expires > Date.now() + 60_000) return stored;
  const query = new URLSearchParams(location.search);
  const code = query.get('code');
  // Only the code of this tab's own sign-in is exchanged: its state must be the one stored here
  // (a link carrying someone else's code, with no state, found none stored and matched null).
  const expected = sessionStorage.getItem('etp-state');
  const verifier = sessionStorage.getItem('etp-verifier');
  sessionStorage.removeItem('etp-state');
  sessionStorage.removeItem('etp-verifier');
  // The hosted UI sent this tab's sign-in back refused (RFC 6749 §4.1.2.1: access_denied, a user
  // not allowed): said, not started again (a new sign-in is refused the same way, in a loop).
  // With this tab's state, or with none: Cognito sends many errors back without it ("Managed
  // login and federation error responses": `?error_description=…&error=…`, a Lambda trigger's
  // or an IdP's failure). Only an error of a sign-in this tab started is said.
  const error = query.get('error');
  const errorState = query.get('state');
  if (error && expected && (errorState === expected || errorState === null)) {
    const description = query.get('error_description');
    history.replaceState(null, '', `${location.pathname}${sessionStorage.getItem('etp-hash') ?? ''}`);
    throw new Error(
      `Sign-in failed: ${error}${description ? ` (${description})` : ''}; reload the page to try again`,
    );
  }
  if (code && expected && verifier && query.get('state') === expected) {
    const response = await fetch(`${config.domain}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: config.clientId,
        code,
        redirect_uri: config.redirectUri,
        code_verifier: verifier,
      }),
    });
    const tokens = await response.json();
    if (!response.ok) throw new Error(`Sign-in failed: ${tokens.error ?? response.status}`);
    sessionStorage.setItem('etp-token', tokens.id_token);
    sessionStorage.setItem('etp-token-expires', String(Date.now() + tokens.expires_in * 1000));
    history.replaceState(null, '', `${location.pathname}${sessionStorage.getItem('etp-hash') ?? ''}`);
    return tokens.id_token;
  }
  const fresh = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64Url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(fresh)));
  const nonce = base64Url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem('etp-verifier', fresh);
  sessionStorage.setItem('etp-state', nonce);
  sessionStorage.setItem('etp-hash', location.hash);
  const authorize = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: 'openid email',
    state: nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  location.assign(`${config.domain}/oauth2/authorize?${authorize}`);
  return new Promise(() => {});
}
