/**
 * Every REST tool of the catalog has a request case (bench/rest-request-cases.ts),
 * and its typical call sends no more HTTP requests than its documented page
 * budget allows: the counts `npm run bench` prints ("API requests per call"),
 * held here so a change that adds requests fails a test, not only a figure.
 */

import { loadRequestCases, restTools } from '../../../bench/rest-request-cases';
import { loadTool } from '../../../bin/local/load-tool';
import { toolCatalog } from '../../../functions/tools/catalog';
import { runRequestCase } from '../../helpers/request-case';
import { useQuietRestCalls } from '../../helpers/rest-tool';

useQuietRestCalls();
const { cases, problems } = loadRequestCases(toolCatalog);

describe('REST request cases', () => {
  it('cover every REST tool of the catalog, or name the file each missing one goes in', () => {
    expect(problems).toEqual([]);
    expect(cases.map((c) => c.tool).sort()).toEqual(
      restTools(toolCatalog)
        .map((e) => e.spec.name)
        .sort(),
    );
  });

  it('name the connector test a missing case goes in', () => {
    // A new tool in the PagerDuty folder, with no case yet.
    const entry = restTools(toolCatalog).find((e) => e.implementation.startsWith('pagerduty/'));
    if (!entry) throw new Error('no PagerDuty tool in the catalog');
    const catalog = {
      functionTools: () => [{ ...entry, spec: { ...entry.spec, name: 'pagerduty_new_tool' } }],
    } as unknown as typeof toolCatalog;

    expect(loadRequestCases(catalog).problems).toEqual([
      'pagerduty_new_tool has no request case of its own in test/integration/pagerduty/pagerduty-tools.test.ts: ' +
        'export from it `requestCases: readonly RequestCase[]` (test/helpers/request-case.ts; ' +
        'test/integration/pagerduty/pagerduty-tools.test.ts is an example)',
    ]);
  });

  it("name the tool's own test to write for a tool of a new connector", () => {
    // A tool declaring token scopes in a folder no test covers yet (as `etp dev new-tool --kind rest` starts one).
    const entry = restTools(toolCatalog).find((e) => e.spec.tokenScopes !== undefined);
    if (!entry) throw new Error('no REST tool with token scopes in the catalog');
    const catalog = {
      functionTools: () => [
        { ...entry, implementation: 'zz/probe-items', spec: { ...entry.spec, name: 'zz_probe_items' } },
      ],
    } as unknown as typeof toolCatalog;

    expect(loadRequestCases(catalog).problems).toEqual([
      'zz_probe_items has no test with its request case: add test/unit/tools/zz/probe-items.test.ts exporting ' +
        '`requestCases: readonly RequestCase[]` (test/helpers/request-case.ts; ' +
        'test/integration/pagerduty/pagerduty-tools.test.ts is an example)',
    ]);
  });

  it.each(cases.map((c) => [c.tool, c] as const))(
    '%s: one typical call succeeds within its ceiling',
    async (_name, testCase) => {
      const run = await runRequestCase(testCase, await loadTool(toolCatalog, testCase.tool));

      expect(run.result).toMatchObject({ ok: true });
      expect(run.requests).toBeGreaterThan(0);
      expect(run.requests).toBeLessThanOrEqual(testCase.ceiling);
    },
  );
});
