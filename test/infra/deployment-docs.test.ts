import { readFileSync } from 'node:fs';
import {
  DEPLOYING_DOC,
  deploymentSummary,
  generatedSection,
  synthesizedPlatformTemplate,
} from '../../bin/deployment-docs';
import { toolCatalog } from '../../functions/tools/catalog';
import { loadScenarios } from '../../lib/scenarios/loader';

/**
 * docs/deploying.md's counts and lists come from the app: the section between its
 * markers is what `npm run docs:deploying` writes from a fresh synthesis, so a
 * new tool, scenario, table or output without the page regenerated fails here.
 */
describe('docs/deploying.md, "What a synthesis holds"', () => {
  const template = synthesizedPlatformTemplate();

  it('is the summary of the synthesized platform stack (npm run docs:deploying)', () => {
    // Act
    const documented = generatedSection(readFileSync(DEPLOYING_DOC, 'utf8'));

    // Assess
    expect(documented).toBe(deploymentSummary(template));
  });

  it('counts a function per function tool plus the dispatcher and the engine, and a state machine per scenario', () => {
    // Act
    const summary = deploymentSummary(template);

    // Assess: the counts follow the catalog and the scenarios folder, whatever they hold.
    const functions = toolCatalog.functionTools().length + 2;
    expect(summary).toContain(`| Lambda functions | ${functions} |`);
    expect(summary).toContain(`| Step Functions state machines | ${loadScenarios(toolCatalog).length} |`);
    for (const output of ['SecretReferenceTableName', 'RunRecordsTableName', 'RunEventBusName']) {
      expect(summary).toContain(`\`${output}\``);
    }
  });

  it('accounts for every IAM role: the functions, the state machines and each tenant-scoped session role by name', () => {
    // Prepare
    const resources = Object.entries(template.Resources ?? {});
    const roles = resources.filter(([, resource]) => resource.Type === 'AWS::IAM::Role');
    const tenantRoles = roles.filter(([, resource]) =>
      JSON.stringify(resource.Properties).includes('"aws:RequestTag/etp-tenant"'),
    );
    const functions = toolCatalog.functionTools().length + 2;
    const machines = loadScenarios(toolCatalog).length;

    // Act
    const row = deploymentSummary(template)
      .split('\n')
      .find((line) => line.startsWith('| IAM roles |'));

    // Assess: nothing left out of the sentence, nothing counted twice
    expect(roles).toHaveLength(functions + machines + tenantRoles.length);
    expect(row).toContain(
      `| ${roles.length} | one per function (${functions}) and per state machine (${machines}); ${tenantRoles.length} tenant-scoped session roles`,
    );
    expect(row).not.toContain(' other: ');
    for (const role of [
      'PlatformRunDataRole',
      'PlatformIdempotencyRecordsRole',
      'PlatformTenantSecretReadersReaderslackdefault',
    ]) {
      expect(row).toContain(`\`${role}\``);
    }
  });
});
