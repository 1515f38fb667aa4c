import * as path from 'node:path';
import * as z from 'zod/mini';
import {
  DOCS_DIR,
  familyToolTable,
  pagesWithToolTables,
  withFamilyToolTables,
} from '../../../bin/cli/family-tool-tables';
import { defineToolSpec } from '../../../functions/runtime/spec';
import { toolCatalog } from '../../../functions/tools/catalog';

const spec = (name: string, tags: string[], description: string, tokenScopes?: Record<string, string[]>) =>
  defineToolSpec({
    name,
    description,
    inputSchema: z.strictObject({}),
    tags,
    requiresSecrets: [],
    sideEffects: tags.includes('write') ? 'write' : 'none',
    iam: [],
    ...(tokenScopes ? { tokenScopes } : {}),
  });

const demoSpecs = [
  spec('demo_list', ['demo', 'read_only'], 'Lists demo items. Two requests.', { demo: ['items.read'] }),
  spec('demo_write', ['demo', 'write'], 'Writes a | piped item. Once.', { demo: ['items.write'] }),
  spec('other_ping', ['other'], 'Answers pong.'),
];

const BEGIN = '<!-- tools:demo begin (generated; do not edit) -->';
const END = '<!-- tools:demo end -->';

describe('family tool tables', () => {
  it('rewrites only what stands between the markers, one row per tool of the family', () => {
    // Prepare: a stale, hand-written table between the markers
    const page = `# Demo\n\nIntro.\n\n${BEGIN}\n| Tool |\n| --- |\n| \`demo_gone\` |\n${END}\n\n## Set-up\n`;

    // Act
    const generated = withFamilyToolTables(page, demoSpecs);

    // Assess
    expect(generated).toBe(
      [
        '# Demo',
        '',
        'Intro.',
        '',
        BEGIN,
        '| Tool | Side effects | Token scopes | What it does |',
        '| --- | --- | --- | --- |',
        '| [`demo_list`](tools.md#demo_list) | none | demo: `items.read` | Lists demo items. |',
        '| [`demo_write`](tools.md#demo_write) | write | demo: `items.write` | Writes a \\| piped item. |',
        END,
        '',
        '## Set-up',
        '',
      ].join('\n'),
    );
    expect(withFamilyToolTables(generated, demoSpecs)).toBe(generated);
  });

  it('leaves out the scopes column for a family that declares none', () => {
    // Act
    const table = familyToolTable(demoSpecs, 'other');

    // Assess
    expect(table).toEqual([
      '| Tool | Side effects | What it does |',
      '| --- | --- | --- |',
      '| [`other_ping`](tools.md#other_ping) | none | Answers pong. |',
    ]);
  });

  it('refuses a family no tool has and a begin marker without its end', () => {
    // Act / Assess
    expect(() =>
      withFamilyToolTables('<!-- tools:demos begin -->\n<!-- tools:demos end -->', demoSpecs),
    ).toThrow('No tool of the catalog is tagged "demos"');
    expect(() => withFamilyToolTables(`${BEGIN}\n| stale |\n`, demoSpecs)).toThrow(
      '<!-- tools:demo begin --> has no <!-- tools:demo end -->',
    );
  });

  // The pages' tables are generated: when a tool changes, regenerate them rather than edit them.
  it('every docs page with a marked table matches the catalog (if not, run npm run -s docs:tools)', () => {
    // Prepare
    const pages = pagesWithToolTables(path.join(__dirname, '../../..', DOCS_DIR));

    // Act
    const stale = [...pages]
      .filter(([, text]) => withFamilyToolTables(text, toolCatalog.list()) !== text)
      .map(([name]) => `${DOCS_DIR}/${name}`);

    // Assess
    expect(pages.size).toBeGreaterThan(0);
    expect(stale).toEqual([]);
  });

  it("lists in a family's table every catalog tool with that tag", () => {
    // Prepare: the families the pages mark
    const pages = pagesWithToolTables(path.join(__dirname, '../../..', DOCS_DIR));
    const families = [...pages.values()].flatMap((text) =>
      [...text.matchAll(/<!-- tools:([a-z0-9_]+) begin/g)].map((m) => m[1] as string),
    );

    // Act / Assess
    for (const family of families) {
      const tagged = toolCatalog
        .list()
        .filter((tool) => tool.tags.includes(family))
        .map((tool) => tool.name);
      const rows = familyToolTable(toolCatalog.list(), family).slice(2);
      expect(rows.map((row) => /\[`([a-z0-9_]+)`\]/.exec(row)?.[1])).toEqual(tagged);
    }
  });
});
