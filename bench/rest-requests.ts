/**
 * `npm run bench`, "API requests per call": for each REST tool of the catalog
 * (GitHub, PagerDuty, CRM, ATS), the HTTP requests one typical call sends to the
 * loopback fake of its API (bench/rest-request-cases.ts), against the most its
 * documented page budget allows. Run alone: `npx tsx bench/rest-requests.ts`.
 */
import { loadTool } from '../bin/local/load-tool';
import { logger } from '../functions/runtime/logger';
import { toolCatalog } from '../functions/tools/catalog';
import { runRequestCase } from '../test/helpers/request-case';
import { type Figure, formatReport, type Section } from './report';
import { loadRequestCases } from './rest-request-cases';

/** The section: one figure per case (requests ≤ ceiling), the endpoints and the ceiling's source in the notes. */
export async function restRequestsSection(): Promise<Section> {
  const { cases, problems } = loadRequestCases();
  const figures: Figure[] = [];
  const notes: string[] = [];
  const level = logger.getLevelName();
  // The harness logs each failure; the report on stdout stays clean.
  logger.setLogLevel('SILENT');
  try {
    for (const testCase of cases) {
      const tool = await loadTool(toolCatalog, testCase.tool);
      const run = await runRequestCase(testCase, tool);
      figures.push({
        name: testCase.tool,
        value: `${run.requests}`,
        target: `≤ ${testCase.ceiling}`,
        pass: run.result.ok && run.requests <= testCase.ceiling,
      });
      const endpoints = Object.entries(run.byEndpoint)
        .map(([endpoint, n]) => `${endpoint} ${n}`)
        .join(', ');
      notes.push(
        `${testCase.tool} (${testCase.call}): ${endpoints}; ceiling: ${testCase.ceilingSource}` +
          (run.result.ok ? '' : `; FAILED: ${run.result.error.code}: ${run.result.error.message}`),
      );
    }
  } finally {
    logger.setLogLevel(level);
  }
  return {
    title: 'API requests per call, REST tools (loopback fakes; requests ≤ the documented page budget)',
    figures,
    notes: [...notes, ...problems],
  };
}

if (require.main === module) {
  restRequestsSection().then(
    (section) => process.stdout.write(formatReport([], [section])),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
