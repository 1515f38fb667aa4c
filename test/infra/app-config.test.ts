import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { configuredProps, platformConfig } from '../../bin/app-config';
import { ExternalToolsStack } from '../../lib/external-tools-stack';
import { newApp } from '../helpers/cdk';

/** A context lookup over `values`, as `app.node.tryGetContext` reads cdk.json and `-c`. */
const context =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    values[key];

const SCHEDULE = { scenario: 'aws_pulse', tenant: 'acme', expression: 'rate(1 day)' };

describe('the CDK app configuration (bin/app-config.ts)', () => {
  it('reads the platform object of cdk.json and the JSON string of -c platform=…', () => {
    // Act
    const fromCdkJson = platformConfig(context({ platform: { schedules: [SCHEDULE] } }));
    const fromFlag = platformConfig(context({ platform: JSON.stringify({ schedules: [SCHEDULE] }) }));

    // Assess
    expect(fromCdkJson).toEqual({ schedules: [SCHEDULE] });
    expect(fromFlag).toEqual(fromCdkJson);
  });

  it('reads a file named by -c platformConfig=…, relative to the working directory, over platform', () => {
    // Prepare
    const dir = mkdtempSync(path.join(os.tmpdir(), 'etp-config-'));
    writeFileSync(
      path.join(dir, 'etp.config.json'),
      JSON.stringify({ schedules: [{ ...SCHEDULE, tenant: 'globex' }] }),
    );

    // Act
    const config = platformConfig(
      context({ platform: { schedules: [SCHEDULE] }, platformConfig: 'etp.config.json' }),
      dir,
    );

    // Assess
    expect(config.schedules?.[0]?.tenant).toBe('globex');
  });

  it.each([
    [
      { platform: { schedule: [] } },
      'context platform: (root): Unrecognized key: "schedule"; accepted keys: accessProfiles,',
    ],
    [
      { platform: { snapshotAthena: { bogus: 1 } } },
      'context platform: snapshotAthena: Unrecognized key: "bogus"; accepted keys: mode, workGroup, database, minReportBytes',
    ],
    [{ platform: '{"schedules": [' }, 'context platform is not JSON'],
    [
      { platform: { schedules: [{ scenario: 'aws_pulse', tenant: 'acme' }] } },
      'schedules[0].expression: Required: expected string',
    ],
    [
      { platform: { mcpFunctionUrl: { profile: 'ops', invokers: ['ops-role'] } } },
      'an IAM role, user or root ARN',
    ],
    [{ platformConfig: 'no-such-file.json' }, 'context platformConfig: cannot read'],
  ])('refuses %j naming what is wrong', (values, words) => {
    // Act, Assess
    expect(() => platformConfig(context(values), os.tmpdir())).toThrow(words);
  });

  it("checks snapshotAthena by the functions' own rules, in their words", () => {
    // Prepare
    const config = platformConfig(context({ platform: { snapshotAthena: { mode: 'sometimes' } } }));

    // Act, Assess
    expect(() => configuredProps(config)).toThrow(
      'snapshotAthena.mode ("sometimes" is not valid: auto, off or always)',
    );
  });

  it('is one line and exit 1 from the app itself (cdk synth), not a stack trace', () => {
    // Act: the app as cdk.json runs it, with the context the CDK CLI passes
    const app = spawnSync(path.join('node_modules', '.bin', 'tsx'), ['bin/app.ts'], {
      encoding: 'utf8',
      env: {
        ...process.env,
        CDK_DEBUG: '',
        CDK_CONTEXT_JSON: JSON.stringify({ platform: { snapshotAthena: { minReportBytes: -1 } } }),
      },
    });

    // Assess
    expect(app.status).toBe(1);
    expect(app.stderr).toBe(
      'error: snapshotAthena.minReportBytes ("-1" is not valid: a whole number of bytes, at least 1)\n',
    );
  });

  it('builds the configured schedule and function URL into the stack', () => {
    // Prepare
    const props = configuredProps(
      platformConfig(
        context({
          platform: {
            accessProfiles: { ops: { tenant: 'acme', tools: ['aws_ec2_inventory'] } },
            mcpFunctionUrl: { profile: 'ops', invokers: ['arn:aws:iam::123456789012:role/ops-agents'] },
            schedules: [SCHEDULE],
          },
        }),
      ),
    );

    // Act
    const template = Template.fromStack(new ExternalToolsStack(newApp(), 'ExternalToolsPlatform', props));

    // Assess
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    template.resourceCountIs('AWS::Lambda::Url', 1);
    expect(Object.keys(template.findOutputs('McpUrl'))).toEqual(['McpUrl']);
  });
});
