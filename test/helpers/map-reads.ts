/**
 * The opening of a child script (run in a fresh `node -e`, no flags) that records
 * every `.map` path the process opens through `fs` in `reads`: what the
 * source-map tests use to prove no map is read when a bundle loads.
 */
export const RECORD_MAP_READS = `
const fs = require('node:fs');
const reads = [];
for (const name of ['readFileSync', 'openSync', 'readFile', 'open', 'createReadStream']) {
  const original = fs[name];
  fs[name] = function (file, ...rest) {
    if (String(file).endsWith('.map')) reads.push(String(file));
    return original.call(this, file, ...rest);
  };
}
`;
