/**
 * docs/console.md's "Pages" names the page's own routes (functions/console/web/app.js
 * ROUTES), one bullet each, and no count of them anywhere: the routes are the one list.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '../../..');
const doc = readFileSync(path.join(ROOT, 'docs/console.md'), 'utf8');
const app = readFileSync(path.join(ROOT, 'functions/console/web/app.js'), 'utf8');

/** Each route's hash up to its first parameter: `#/secrets`, `#/run/`. */
function routeHashes(): string[] {
  const table = /const ROUTES = \[([\s\S]*?)\n\];/.exec(app)?.[1] ?? '';
  return [...table.matchAll(/\[\/\^(#[^$(]*?)(?:\(|\$)/g)].map((match) =>
    (match[1] ?? '').replace(/\\\//g, '/'),
  );
}

describe("docs/console.md's pages", () => {
  it('lists each route of the page once, by its hash', () => {
    // Prepare
    const pages = /\n## Pages\n([\s\S]*?)\n## /.exec(doc)?.[1] ?? '';
    const bullets = pages.split('\n').filter((line) => line.startsWith('- **'));
    const hashes = routeHashes();

    // Assess
    expect(hashes.length).toBeGreaterThan(0);
    expect(bullets.map((line) => /\(`(#\/[a-z]+\/?)/.exec(line)?.[1])).toEqual(hashes);
  });

  it('counts the pages nowhere', () => {
    const counted = /\b(one|two|three|four|five|six|seven|eight|nine|ten|\d+) (small pages|pages are)\b/i;
    expect([counted.exec(doc)?.[0], counted.exec(app)?.[0]]).toEqual([undefined, undefined]);
  });
});
