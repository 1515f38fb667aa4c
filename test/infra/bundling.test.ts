import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { toolCatalog } from '../../functions/tools/catalog';
import { DISPATCHER_LAZY_PACKAGES } from '../../lib/lazy-packages';
import { SOURCE_MAP_STACKS_MODULE } from '../../lib/platform-function';
import { toolEntryPath } from '../../lib/tool-function';
import { synthesizePlatform } from '../helpers/cdk';
import { RECORD_MAP_READS } from '../helpers/map-reads';

const DISPATCHER_ENTRY = path.join(__dirname, '../../functions/dispatcher/handler.ts');
const ENGINE_ENTRY = path.join(__dirname, '../../functions/engine/handler.ts');

const functionTools = toolCatalog.functionTools();

/** esbuild bundling every function on a shared 2-core machine: allow minutes, not seconds. */
const BUNDLING_TIMEOUT_MS = 180_000;

/** Every asset required in a fresh process of its own, on the same shared machine. */
const LOADING_TIMEOUT_MS = 300_000;

type FunctionResource = {
  Properties: { Code: { S3Key: string }; Environment: { Variables: Record<string, unknown> } };
};

/**
 * A variable's value as Lambda would see it, from its template form: a `Ref` is
 * the resource's name (a table, bucket or function name), `Fn::GetAtt … Arn` a
 * role ARN, `Fn::Join` the joined parts.
 *
 * @throws Error on another intrinsic function, so a new one is handled here.
 */
function deployedValue(value: unknown): string {
  if (typeof value === 'string') return value;
  const intrinsic = value as {
    Ref?: string;
    'Fn::GetAtt'?: [string, string];
    'Fn::Join'?: [string, unknown[]];
  };
  if (intrinsic.Ref !== undefined) return intrinsic.Ref.toLowerCase();
  if (intrinsic['Fn::GetAtt']?.[1] === 'Arn')
    return `arn:aws:iam::123456789012:role/${intrinsic['Fn::GetAtt'][0]}`;
  if (intrinsic['Fn::Join'])
    return intrinsic['Fn::Join'][1].map(deployedValue).join(intrinsic['Fn::Join'][0]);
  throw new Error(`No deployed value for ${JSON.stringify(value)}`);
}

/**
 * Runs in a fresh node (no flags) in an asset's folder: requires its `index.js`
 * while recording every `.map` path opened through `fs`, and prints those paths
 * and whether stack traces are then formatted by the injected module.
 */
const MAP_READS_AT_LOAD = `${RECORD_MAP_READS}require(require('node:path').resolve('index.js'));
process.stdout.write(JSON.stringify({ reads, hook: Error.prepareStackTrace.name, mapping: process.sourceMapsEnabled }));
`;

/** A function's bundle as written to the cloud assembly. */
interface Bundle {
  /** POWERTOOLS_SERVICE_NAME: `dispatcher` or the tool's name. */
  readonly service: string;
  readonly code: string;
  readonly sourcesContent: unknown;
  /** Absolute paths of the files bundled, from the source map. */
  readonly sources: string[];
  /** npm packages bundled (`@aws-sdk/client-ec2`, `zod`). */
  readonly packages: Set<string>;
  /** The asset's directory in the cloud assembly. */
  readonly assetDir: string;
}

function readBundle(outdir: string, fn: FunctionResource): Bundle {
  const assetDir = path.join(outdir, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
  const map = JSON.parse(readFileSync(path.join(assetDir, 'index.js.map'), 'utf8')) as {
    sources: string[];
    sourcesContent?: unknown;
  };
  const sources = map.sources.map((source) => path.resolve(assetDir, source));
  return {
    assetDir,
    service: String(fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME),
    code: readFileSync(path.join(assetDir, 'index.js'), 'utf8'),
    sourcesContent: map.sourcesContent,
    sources,
    packages: new Set(
      sources.flatMap((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1] ?? []),
    ),
  };
}

// The one place functions are really bundled: once for the whole describe, since
// esbuild is what costs here; every other infra test skips bundling.
describe('bundling (local esbuild, offline, no Docker)', () => {
  let bundles: Bundle[];
  let functions: FunctionResource[];

  beforeAll(() => {
    // With the MCP function URL on, so the dispatcher's asset can answer an MCP request.
    const { app, template } = synthesizePlatform(
      {
        accessProfiles: { mcp: { tenant: 'acme', tools: [functionTools[0]?.spec.name ?? ''] } },
        mcpFunctionUrl: { profile: 'mcp' },
      },
      { bundle: true },
    );
    functions = Object.values(template.findResources('AWS::Lambda::Function')) as FunctionResource[];
    bundles = functions.map((fn) => readBundle(app.outdir, fn));
  }, BUNDLING_TIMEOUT_MS);

  it('bundles the dispatcher, the engine and every function tool from its own entry', () => {
    // Prepare
    const entries = Object.fromEntries([
      ['dispatcher', DISPATCHER_ENTRY],
      ['engine', ENGINE_ENTRY],
      ...functionTools.map((tool) => [tool.spec.name, toolEntryPath(tool)]),
    ]);

    // Act
    const services = bundles.map((bundle) => bundle.service).sort();

    // Assess
    expect(services).toEqual(Object.keys(entries).sort());
    for (const bundle of bundles) expect(bundle.sources).toContain(entries[bundle.service]);
  });

  it('ships source maps without the sources content', () => {
    // Prepare, Act
    const maps = bundles.map((bundle) => ({
      service: bundle.service,
      sourcesContent: bundle.sourcesContent,
    }));

    // Assess
    expect(maps).toEqual(bundles.map((bundle) => ({ service: bundle.service, sourcesContent: undefined })));
    for (const bundle of bundles) expect(bundle.code).toMatch(/\/\/# sourceMappingURL=index\.js\.map\s*$/);
  });

  it(
    'injects the stack mapping into every bundle and reads no source map when a function is loaded',
    () => {
      // Prepare: each function's own variables, CloudFormation references resolved to values of their form.
      const loads = functions.map((fn, i) => {
        const variables = Object.entries(fn.Properties.Environment.Variables).map(([key, value]) => [
          key,
          deployedValue(value),
        ]);
        const env = { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', ...Object.fromEntries(variables) };
        const bundle = bundles[i] as Bundle;

        // Act
        const out = execFileSync(process.execPath, ['-e', MAP_READS_AT_LOAD], { cwd: bundle.assetDir, env });
        return {
          service: bundle.service,
          injected: bundle.sources.includes(SOURCE_MAP_STACKS_MODULE),
          ...JSON.parse(out.toString()),
        };
      });

      // Assess
      expect(loads).toEqual(
        bundles.map((bundle) => ({
          service: bundle.service,
          injected: true,
          reads: [],
          hook: 'prepareStackTrace',
          mapping: false,
        })),
      );
    },
    LOADING_TIMEOUT_MS,
  );

  it('bundles the AWS SDK v3 instead of taking the runtime’s', () => {
    // Prepare, Act
    const withoutSdk = bundles.filter(
      (bundle) => ![...bundle.packages].some((name) => name === '@aws-sdk/core'),
    );

    // Assess
    expect(withoutSdk.map((bundle) => bundle.service)).toEqual([]);
  });

  it('bundles zod’s English locale and no other (functions/runtime/zod-locale.ts)', () => {
    // Prepare: a value use of zod/mini's namespace (`const { x } = z`) keeps all of it, every locale
    // included: 430 KB more in each bundle file, compiled at every cold start.
    // Each locale is a module named by its language tag (`en.js`, `zh-CN.js`); `index.js` re-exports them.
    const localeOf = (source: string) =>
      /node_modules\/zod\/v4\/locales\/(?!index\.js$)([^/]+)$/.exec(source)?.[1];

    // Act
    const locales = bundles.map((bundle) => ({
      service: bundle.service,
      locales: bundle.sources.flatMap((source) => localeOf(source) ?? []).sort(),
    }));

    // Assess
    expect(locales).toEqual(bundles.map((bundle) => ({ service: bundle.service, locales: ['en.js'] })));
  });

  it('keeps every tool implementation and its service client out of the dispatcher', () => {
    // Prepare
    const dispatcher = bundles.find((bundle) => bundle.service === 'dispatcher');
    const implementations = functionTools.map(toolEntryPath);

    // Act
    const clients = [...(dispatcher?.packages ?? [])].filter(
      (name) => name.startsWith('@aws-sdk/client-') || name.startsWith('@slack/'),
    );

    // Assess
    expect(dispatcher?.sources.filter((source) => implementations.includes(source))).toEqual([]);
    // Lambda, S3 (the run workspaces), Step Functions (answering the task token of a plan call that
    // ends in the dispatcher) and STS (the tenant sessions it vends, docs/tenant-isolation.md)
    // are the only services the dispatcher calls.
    expect(clients.sort()).toEqual([
      '@aws-sdk/client-lambda',
      '@aws-sdk/client-s3',
      '@aws-sdk/client-sfn',
      '@aws-sdk/client-sts',
    ]);
  });

  it('keeps the MCP SDK out of the dispatcher’s bundle file and requires only the modules bundled apart', () => {
    // Prepare
    const dispatcher = bundles.find((bundle) => bundle.service === 'dispatcher') as Bundle;
    const apart = DISPATCHER_LAZY_PACKAGES.map((pkg) => pkg.name);

    // Act
    const required = [...dispatcher.code.matchAll(/require\("(@modelcontextprotocol\/sdk\/[^"]+)"\)/g)].map(
      (match) => match[1],
    );

    // Assess
    expect([...dispatcher.packages].filter((name) => apart.includes(name) || name.startsWith('ajv'))).toEqual(
      [],
    );
    expect([...new Set(required)].sort()).toEqual(
      DISPATCHER_LAZY_PACKAGES.flatMap((pkg) => pkg.modules.map((module) => `${pkg.name}/${module}`)).sort(),
    );
  });

  it('answers MCP initialize from the shipped dispatcher asset, the SDK loaded from its node_modules', () => {
    // Prepare: a function URL request (payload 2.0) as Lambda sends it, with the bundled configuration.
    const dispatcher = bundles.find((bundle) => bundle.service === 'dispatcher') as Bundle;
    const event = {
      version: '2.0',
      rawPath: '/mcp',
      rawQueryString: '',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      requestContext: { http: { method: 'POST', path: '/mcp' } },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'test', version: '1' },
        },
      }),
      isBase64Encoded: false,
    };
    const script = `
      const file = require('node:path').join(${JSON.stringify(dispatcher.assetDir)}, 'index.js');
      const before = new Set(Object.keys(require.cache));
      const { handler } = require(file);
      const loadedAtInit = Object.keys(require.cache).filter((f) => !before.has(f) && f !== file);
      const context = { getRemainingTimeInMillis: () => 30000, functionName: 'd', awsRequestId: 'r' };
      handler(${JSON.stringify(event)}, context).then((response) => {
        const sdk = Object.keys(require.cache).filter((f) => f.includes('node_modules/@modelcontextprotocol/sdk/'));
        process.stdout.write(JSON.stringify({ loadedAtInit, status: response.statusCode, body: JSON.parse(response.body), sdk }));
      });`;

    // Act
    const out = JSON.parse(
      execFileSync(process.execPath, ['-e', script], {
        cwd: dispatcher.assetDir,
        env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', POWERTOOLS_LOG_LEVEL: 'ERROR' },
      }).toString(),
    ) as {
      loadedAtInit: string[];
      status: number;
      body: { result?: { serverInfo?: { name?: string } } };
      sdk: string[];
    };

    // Assess
    expect(out.loadedAtInit).toEqual([]);
    expect(out.status).toBe(200);
    expect(out.body.result?.serverInfo?.name).toBe('external-tools-platform');
    expect(out.sdk.every((file) => file.startsWith(path.join(dispatcher.assetDir, 'node_modules')))).toBe(
      true,
    );
    expect(out.sdk.map((file) => path.basename(file))).toContain('etp-lazy-bundle.js');
  });
});
