// The work `etp tools list` does, and nothing else (bench/startup.ts): load the tool catalog
// through tsx, as bin/etp.js does, and print one line per tool. Its time is the baseline the
// CLI's start-up is compared with.
require('tsx/cjs/api').register();
const { toolCatalog } = require('../functions/tools/catalog.ts');
process.stdout.write(
  `${toolCatalog
    .list()
    .map(
      (spec) => `${spec.name} ${spec.sideEffects} ${spec.tags.join(', ')} ${spec.description.slice(0, 80)}`,
    )
    .join('\n')}\n`,
);
