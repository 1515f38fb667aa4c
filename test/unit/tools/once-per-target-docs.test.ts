/**
 * docs/rest-connectors.md, "Once per target", tables each write tool that declares
 * `oncePerRunArgs` with those arguments: the table is the catalog's, so a tool that
 * gains, loses or changes its target shows up here.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { toolCatalog } from '../../../functions/tools/catalog';

/** Tool → target arguments, as the section's table gives them (the backquoted names of its second column). */
function documentedTargets(): Record<string, string[]> {
  const page = readFileSync(path.join(__dirname, '../../../docs/rest-connectors.md'), 'utf8');
  const start = page.indexOf('### Once per target');
  expect(start).toBeGreaterThan(-1);
  const section = page.slice(start, page.indexOf('\n#', start + 1));
  const rows = [...section.matchAll(/^\| `([a-z][a-z0-9_]*)` \| (.*) \|$/gm)];
  return Object.fromEntries(
    rows.map((row) => [
      row[1] as string,
      [...(row[2] as string).matchAll(/`([a-z][a-z0-9_]*)`/g)].map((name) => name[1] as string),
    ]),
  );
}

describe('docs/rest-connectors.md, Once per target', () => {
  it("tables every tool's oncePerRunArgs, and no other tool", () => {
    const declared = Object.fromEntries(
      toolCatalog
        .functionTools()
        .filter((entry) => entry.spec.oncePerRunArgs !== undefined)
        .map((entry) => [entry.spec.name, [...(entry.spec.oncePerRunArgs ?? [])]]),
    );

    expect(Object.keys(declared).length).toBeGreaterThan(0);
    expect(documentedTargets()).toEqual(declared);
  });
});
