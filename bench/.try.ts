import { runCli } from '../bin/cli/program';
const cases: string[][] = JSON.parse(process.argv[2] as string);
(async () => {
  for (const argv of cases) {
    let out = '', err = '';
    const code = await runCli(argv, { out: (t) => { out += t; }, err: (t) => { err += t; }, env: {} });
    console.log(JSON.stringify(argv), '=>', code, '|', err.trim().slice(0, 300), '|', out.slice(0, 80).trim());
  }
  process.exit(0);
})();
