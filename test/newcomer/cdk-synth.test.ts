import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  DEPLOYING_DOC,
  deploymentSummary,
  generatedSection,
  type TemplateJson,
} from '../../bin/deployment-docs';
import { elsewhere, README, ROOT, run, userEnv } from './readme';

/**
 * `cdk synth` as the README runs it, offline and without credentials, with the
 * counts and lists of docs/deploying.md checked against what it wrote.
 * `--exclusively ExternalToolsCustomerAccess` keeps the platform's functions from
 * being bundled (the CDK bundles only the stacks a command selects;
 * test/infra/bundling.test.ts bundles them); every stack's template is written all the same.
 */
describe('npx cdk synth, offline', () => {
  const out = elsewhere();
  let synth: Awaited<ReturnType<typeof run>>;

  beforeAll(async () => {
    synth = await run(
      'npx',
      [
        'cdk',
        'synth',
        '--quiet',
        '--no-notices',
        '--exclusively',
        '--output',
        out,
        'ExternalToolsCustomerAccess',
      ],
      { cwd: ROOT, env: userEnv(), timeoutMs: 240_000 },
    );
  }, 250_000);

  it('is what the README says to run, and succeeds', () => {
    expect(README).toContain('npx cdk synth --quiet');
    expect({ code: synth.code, stderr: synth.code === 0 ? '' : synth.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
  });

  it('writes the platform template docs/deploying.md counts: its functions, state machines, tables and outputs', () => {
    // Prepare
    const template = JSON.parse(
      readFileSync(path.join(out, 'ExternalToolsPlatform.template.json'), 'utf8'),
    ) as TemplateJson;

    // Act
    const documented = generatedSection(readFileSync(DEPLOYING_DOC, 'utf8'));

    // Assess
    expect(documented).toBe(deploymentSummary(template));
  });

  it('writes the customer stack as a template alone: no asset manifest for it', () => {
    // Prepare
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as {
      artifacts: Record<
        string,
        { type: string; properties?: Record<string, unknown>; dependencies?: string[] }
      >;
    };

    // Act
    const customer = manifest.artifacts.ExternalToolsCustomerAccess;

    // Assess
    expect(customer?.type).toBe('aws:cloudformation:stack');
    expect(customer?.dependencies ?? []).toEqual([]);
    expect(customer?.properties).not.toHaveProperty('assumeRoleArn');
    expect(customer?.properties).not.toHaveProperty('requiresBootstrapStackVersion');
    expect(customer?.properties).not.toHaveProperty('stackTemplateAssetObjectUrl');
  });
});
