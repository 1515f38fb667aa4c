/**
 * What an AWS tool's API-call case is made of (exported by `test/unit/tools/aws/<tool>.test.ts`,
 * beside the tool's test): one representative run of the tool against an
 * account answered in the shapes of the AWS API references. The account: the 17
 * regions enabled by default (`regions: "all"`), workloads in two home regions
 * (us-east-1, eu-west-1). `bench/api-call-cases.ts` collects every tool's cases.
 */
import { DescribeRegionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { ACCOUNT_ID } from '../../bench/aws-fixtures';
import { DEFAULT_ENABLED_REGIONS, mockedClientRegion } from './ec2-pages';

/** An SDK v3 client class, as `mockClient` takes it. */
export type ClientClass = Parameters<typeof mockClient>[0];

/** Returns the stub of a client class, reset before each case (a class is mocked once per process). */
export type StubOf = (client: ClientClass) => ReturnType<typeof mockClient>;

/** One tool's representative run. */
export interface ApiCallCase {
  readonly tool: string;
  /** What the responses describe, in a few words. */
  readonly account: string;
  readonly args: Record<string, unknown>;
  /** Every SDK client class the tool sends commands with: stubbed before the run, so no call leaves the process. */
  readonly clients: readonly ClientClass[];
  /** Sets the responses of every call the tool makes. */
  arrange(stubOf: StubOf): void;
}

/**
 * Stubs of SDK client classes (aws-sdk-client-mock): `clients` stubbed at once,
 * so no call of theirs can leave the process, any other on first `stubOf`.
 *
 * @param clients - stubbed at once.
 * @returns the stubs made so far (to reset or count) and `stubOf`.
 */
export function clientStubs(clients: readonly ClientClass[]): {
  readonly stubs: ReadonlyMap<ClientClass, ReturnType<typeof mockClient>>;
  readonly stubOf: StubOf;
} {
  const stubs = new Map(clients.map((client) => [client, mockClient(client)]));
  const stubOf: StubOf = (client) => {
    let stub = stubs.get(client);
    if (!stub) {
      stub = mockClient(client);
      stubs.set(client, stub);
    }
    return stub;
  };
  return { stubs, stubOf };
}

/** The regions where the cases' accounts keep their resources; the other enabled regions are empty. */
export const HOME_REGIONS: readonly string[] = ['us-east-1', 'eu-west-1'];

/** A `callsFake` answering `home(region)` in the home regions and `elsewhere` in the others. */
export function byRegion<T>(home: (region: string) => T, elsewhere: T) {
  return async (_input: unknown, getClient: () => unknown): Promise<T> => {
    const region = await mockedClientRegion(getClient);
    return HOME_REGIONS.includes(region) ? home(region) : elsewhere;
  };
}

/** EC2 DescribeRegions (EC2 API reference, "DescribeRegions"): the 17 default regions. Returns the EC2 stub. */
export function arrangeRegions(stubOf: StubOf): ReturnType<StubOf> {
  return stubOf(EC2Client)
    .on(DescribeRegionsCommand)
    .resolves({
      Regions: DEFAULT_ENABLED_REGIONS.map((region) => ({
        RegionName: region,
        Endpoint: `ec2.${region}.amazonaws.com`,
        OptInStatus: 'opt-in-not-required',
      })),
    });
}

/** STS GetCallerIdentity (STS API reference) for the audit role. */
export function arrangeCaller(stubOf: StubOf): void {
  stubOf(STSClient)
    .on(GetCallerIdentityCommand)
    .callsFake(async (_input: unknown, getClient: () => unknown) => {
      await resolveCredentials(getClient);
      return {
        Account: ACCOUNT_ID,
        Arn: `arn:aws:sts::${ACCOUNT_ID}:assumed-role/etp-audit/etp-run-1`,
        UserId: 'AROAEXAMPLEROLEID:etp-run-1',
      };
    });
}

/**
 * Resolves the credentials of the client that sent a mocked request, as the SDK
 * does before signing it (aws-sdk-client-mock answers before the middleware that
 * would): a session whose AssumeRole is refused or throttled then fails the
 * request, as it would the real one.
 *
 * @returns the access key id that would have signed the request.
 */
export async function resolveCredentials(getClient: () => unknown): Promise<string> {
  const { credentials } = (getClient() as { config: { credentials: () => Promise<{ accessKeyId: string }> } })
    .config;
  return (await credentials()).accessKeyId;
}

/** The test framework's functions a test file calls at its top level. */
const TEST_FRAMEWORK_GLOBALS = [
  'describe',
  'fdescribe',
  'xdescribe',
  'it',
  'fit',
  'xit',
  'test',
  'xtest',
  'beforeAll',
  'beforeEach',
  'afterAll',
  'afterEach',
] as const;

/** Accepts any call and any property (`it.each(...)(...)`, `describe.skip`), and does nothing. */
const silenced: unknown = new Proxy(() => undefined, {
  get: (_target, key) => (typeof key === 'symbol' ? undefined : silenced),
  apply: () => silenced,
});

/**
 * The exports of a test file (a tool's `apiCallCases`) without registering its
 * tests: `describe`, `it`, the hooks… do nothing while it loads, inside Jest (the
 * IAM check, the e2e runs) as outside it (the bench). A test file read this way
 * keeps its top level to declarations (creating SDK mocks there is fine: a later
 * `mockClient` of the same class replaces them).
 */
export function requireTestExports(file: string): Record<string, unknown> {
  const scope = globalThis as Record<string, unknown>;
  const saved = TEST_FRAMEWORK_GLOBALS.map(
    (name) => [name, Object.getOwnPropertyDescriptor(scope, name)] as const,
  );
  for (const name of TEST_FRAMEWORK_GLOBALS) {
    Object.defineProperty(scope, name, { value: silenced, configurable: true, writable: true });
  }
  try {
    return require(file) as Record<string, unknown>;
  } finally {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(scope, name, descriptor);
      else delete scope[name];
    }
  }
}
