/**
 * docs/scenarios.md names the shipped scenarios in its "Shipped:" paragraph, one
 * `name` (description) each: the list is the folder's (functions/scenarios), read
 * by the loader, so a scenario added or removed shows up here.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { shippedScenarioNames } from '../../helpers/scenarios';

/** The scenario names the "Shipped:" paragraph of docs/scenarios.md describes, in its order. */
function documentedScenarios(): string[] {
  const page = readFileSync(path.join(__dirname, '../../../docs/scenarios.md'), 'utf8');
  const start = page.indexOf('\nShipped: ');
  expect(start).toBeGreaterThan(-1);
  const paragraph = page.slice(start + 1, page.indexOf('\n\n', start + 1));
  // Each entry opens a line (the first after "Shipped: ") with its name and a parenthesis.
  return [...paragraph.matchAll(/(?:^|Shipped: )`([a-z][a-z0-9_]*)` \(/gm)].map(
    (match) => match[1] as string,
  );
}

describe('docs/scenarios.md', () => {
  it('names every shipped scenario in its "Shipped:" paragraph, and no other', () => {
    expect([...documentedScenarios()].sort()).toEqual(shippedScenarioNames());
  });
});
