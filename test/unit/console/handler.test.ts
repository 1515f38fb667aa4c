import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { userOfClaims } from '../../../functions/console/authz';

// What lib/console.ts gives the function: its variables, and the catalog defined at bundle time.
process.env.RUN_BUCKET = 'etp-runs';
process.env.SECRET_REFS_TABLE = 'etp-secret-refs';
process.env.RUN_RECORDS_TABLE = 'etp-run-records';
process.env.CONSOLE_TENANT_ROLE = 'arn:aws:iam::111122223333:role/ExternalToolsPlatform-ConsoleTenantRole';
process.env.SCENARIO_STATE_MACHINES = JSON.stringify({
  aws_pulse: 'arn:aws:states:eu-west-1:111122223333:stateMachine:ExternalToolsPlatform-aws_pulse',
});
(globalThis as Record<string, unknown>).ETP_CONSOLE_CATALOG = { tools: [], scenarios: [] };
const { handler } =
  require('../../../functions/console/handler') as typeof import('../../../functions/console/handler');

/** An HTTP API (payload 2.0) event whose JWT authorizer passed `claims`. */
function eventOf(path: string, claims?: Record<string, unknown>): APIGatewayProxyEventV2WithJWTAuthorizer {
  return {
    rawPath: path,
    requestContext: {
      http: { method: 'GET' },
      ...(claims ? { authorizer: { jwt: { claims, scopes: [] } } } : {}),
    },
  } as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;
}

describe('the console API function', () => {
  it("takes the user and the tenants from the ID token's claims", () => {
    expect(userOfClaims({ 'cognito:username': 'alice', 'cognito:groups': '[tenant-acme admins]' })).toEqual({
      name: 'alice',
      tenants: ['acme'],
    });
    expect(userOfClaims({ 'cognito:groups': ['tenant-acme'] })).toBeUndefined();
  });

  it('answers 401 without a signed-in user, and 403 for a tenant the groups do not name', async () => {
    // Act
    const anonymous = await handler(eventOf('/api/session'));
    const other = await handler(
      eventOf('/api/tenants/globex/secrets', {
        'cognito:username': 'alice',
        'cognito:groups': ['tenant-acme'],
      }),
    );

    // Assess
    expect(anonymous.statusCode).toBe(401);
    expect(other).toEqual({
      statusCode: 403,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
      body: JSON.stringify({
        error: { code: 'access_denied', message: 'Your groups do not name this tenant' },
      }),
    });
  });

  it('lists the tenants of the groups only', async () => {
    // Act
    const session = await handler(
      eventOf('/api/session', {
        'cognito:username': 'bob',
        'cognito:groups': ['tenant-globex', 'tenant-acme'],
      }),
    );

    // Assess
    expect(JSON.parse(session.body ?? '')).toEqual({
      user: 'bob',
      mode: 'deployed',
      tenants: ['acme', 'globex'],
      // Deployed, runs start from the page (StartExecution on the scenarios' state machines).
      canStartRuns: true,
    });
  });
});
