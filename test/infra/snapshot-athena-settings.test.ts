import { Template } from 'aws-cdk-lib/assertions';
import { configuredProps, platformConfig } from '../../bin/app-config';
import { toolCatalog } from '../../functions/tools/catalog';
import {
  athenaRouteSettings,
  DEFAULT_DATABASE,
  DEFAULT_MIN_REPORT_BYTES,
  DEFAULT_WORKGROUP,
} from '../../functions/tools/snapshots/athena/settings';
import { ATHENA_ROUTE_GRANTS } from '../../functions/tools/snapshots/iam';
import { CustomerAccessStack } from '../../lib/customer-access-stack';
import { ExternalToolsStack } from '../../lib/external-tools-stack';
import { snapshotAthenaEnvironment, takesAthenaRoute } from '../../lib/snapshot-athena-settings';
import { logicalIdOf, newApp, synthesizePlatform } from '../helpers/cdk';

/**
 * The snapshot tools' Athena settings as CDK props and context
 * (lib/snapshot-athena-settings.ts): checked at synth by the functions' own
 * rules, in the environment of exactly the functions whose tools declare the
 * route, and the customer stack's workgroup and database named alike.
 */
const ROUTE_TOOLS = toolCatalog
  .functionTools()
  .map((entry) => entry.spec)
  .filter((spec) => ATHENA_ROUTE_GRANTS.every((grant) => spec.iam.includes(grant)))
  .map((spec) => spec.name);

function environments(props: ConstructorParameters<typeof ExternalToolsStack>[2] = {}) {
  const { stack, template } = synthesizePlatform(props);
  const functions = template.findResources('AWS::Lambda::Function');
  return Object.fromEntries(
    Object.entries(stack.platform.toolFunctions).map(([name, tool]) => [
      name,
      (functions[logicalIdOf(tool.lambdaFunction)]?.Properties.Environment?.Variables ?? {}) as Record<
        string,
        unknown
      >,
    ]),
  );
}

const ATHENA_VARIABLES = /^ETP_ATHENA_/;

describe('snapshotAthena on the platform stack', () => {
  it('sets the four settings, defaults filled in, on the functions of the tools with the route only', () => {
    // Act
    const byTool = environments();

    // Assess
    expect(ROUTE_TOOLS).toEqual(expect.arrayContaining(['scan_snapshots']));
    for (const [tool, variables] of Object.entries(byTool)) {
      const athena = Object.fromEntries(Object.entries(variables).filter(([k]) => ATHENA_VARIABLES.test(k)));
      expect([tool, athena]).toEqual([
        tool,
        ROUTE_TOOLS.includes(tool)
          ? {
              ETP_ATHENA_ROUTE: 'auto',
              ETP_ATHENA_WORKGROUP: DEFAULT_WORKGROUP,
              ETP_ATHENA_DATABASE: DEFAULT_DATABASE,
              ETP_ATHENA_MIN_REPORT_BYTES: String(DEFAULT_MIN_REPORT_BYTES),
            }
          : {},
      ]);
      // The functions read back exactly what the CDK wrote.
      if (ROUTE_TOOLS.includes(tool)) {
        expect(athenaRouteSettings(athena as NodeJS.ProcessEnv)).toEqual({
          mode: 'auto',
          workGroup: DEFAULT_WORKGROUP,
          database: DEFAULT_DATABASE,
          minReportBytes: DEFAULT_MIN_REPORT_BYTES,
        });
      }
    }
  });

  it('hands the configured settings, read from the CDK context, to the functions', () => {
    // Prepare: cdk.json's "platform" object, as bin/app.ts reads it
    const config = platformConfig((key) =>
      key === 'platform'
        ? {
            snapshotAthena: {
              mode: 'always',
              workGroup: 'etp-acme',
              database: 'etp_acme',
              minReportBytes: 1_000_000_000,
            },
          }
        : undefined,
    );

    // Act
    const byTool = environments(configuredProps(config));

    // Assess
    for (const tool of ROUTE_TOOLS) {
      expect(byTool[tool]).toMatchObject({
        ETP_ATHENA_ROUTE: 'always',
        ETP_ATHENA_WORKGROUP: 'etp-acme',
        ETP_ATHENA_DATABASE: 'etp_acme',
        ETP_ATHENA_MIN_REPORT_BYTES: '1000000000',
      });
    }
  });

  it.each([
    [{ mode: 'sometimes' }, 'snapshotAthena.mode ("sometimes" is not valid: auto, off or always)'],
    [{ workGroup: 'primary' }, /^snapshotAthena\.workGroup \(.*"primary" is not valid: .*starting etp-/],
    [{ database: 'etp-db' }, /^snapshotAthena\.database \(.*"etp-db" is not valid: .*starting etp_/],
    [
      { minReportBytes: 0 },
      /^snapshotAthena\.minReportBytes \(.*"0" is not valid: a whole number of bytes, at least 1/,
    ],
    [{ minReportBytes: 1.5 }, /^snapshotAthena\.minReportBytes \(.*"1\.5" is not valid/],
  ])('fails synth on %j, saying what is accepted', (snapshotAthena, message) => {
    expect(
      () =>
        new ExternalToolsStack(newApp(), 'ExternalToolsPlatform', {
          snapshotAthena: snapshotAthena as never,
        }),
    ).toThrow(message);
  });

  it('refuses an unknown key or a mistyped value in the context before any construct', () => {
    const config = (snapshotAthena: unknown) => () =>
      platformConfig((key) => (key === 'platform' ? { snapshotAthena } : undefined));
    expect(config({ workgroup: 'etp-x' })).toThrow(/snapshotAthena: Unrecognized key: "workgroup"/);
    expect(config({ minReportBytes: '2GB' })).toThrow(/snapshotAthena\.minReportBytes/);
  });

  it('takes no secret: names and a byte count only', () => {
    expect(Object.values(snapshotAthenaEnvironment({ workGroup: 'etp-acme' }))).toEqual([
      'auto',
      'etp-acme',
      DEFAULT_DATABASE,
      String(DEFAULT_MIN_REPORT_BYTES),
    ]);
    expect(takesAthenaRoute(toolCatalog.get('scan_snapshots'))).toBe(true);
    expect(takesAthenaRoute(toolCatalog.get('list_snapshots'))).toBe(false);
  });
});

describe('snapshotAthena on the customer stack', () => {
  it('creates the workgroup and database under the names the platform uses', () => {
    const template = Template.fromStack(
      new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess', {
        snapshotAthena: { workGroup: 'etp-acme', database: 'etp_acme' },
      }),
    );
    template.hasResourceProperties('AWS::Athena::WorkGroup', { Name: 'etp-acme' });
    template.hasResourceProperties('AWS::Glue::Database', { DatabaseInput: { Name: 'etp_acme' } });
  });

  it('fails synth on a name the customer role may not use', () => {
    expect(
      () =>
        new CustomerAccessStack(newApp(), 'ExternalToolsCustomerAccess', {
          snapshotAthena: { workGroup: 'primary' },
        }),
    ).toThrow(/^snapshotAthena\.workGroup \(.*starting etp-/);
  });
});
