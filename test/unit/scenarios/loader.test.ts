import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { toolCatalog } from '../../../functions/tools/catalog';
import { checkScenarioDocument } from '../../../lib/scenarios/document-check';
import { levelWhitelists } from '../../../lib/scenarios/level-tables';
import {
  levelPins,
  loadScenarios,
  SCENARIOS_DIR,
  ScenarioValidationError,
} from '../../../lib/scenarios/loader';
import { shippedScenarioNames } from '../../helpers/scenarios';

const REGISTERED = `Registered tools: ${toolCatalog.names().join(', ')}`;

/** A scenario document as parsed YAML, edited freely by the tests. */
// biome-ignore lint/suspicious/noExplicitAny: the tests write every shape a YAML file may hold, typos included.
type Document = Record<string, any>;

/** A valid scenario of three levels (plan, agent, plan), changed by `edit`. */
function scenario(edit: (document: Document) => void = () => {}): Record<string, unknown> {
  const document: Document = {
    name: 'check',
    description: 'A scenario for the loader tests.',
    inputs: {
      tenant: { type: 'string', description: 'Tenant.', default: 'default' },
      regions: { type: 'regions', description: 'Regions.', default: 'all' },
      channel: { type: 'string', description: 'Channel.', default: 'C0123ABCD' },
    },
    levels: [
      {
        name: 'collect',
        intra_tools: ['aws_ec2_inventory'],
        track_findings: true,
        calls: [{ tool: 'aws_ec2_inventory', args: { regions: '{{input.regions}}', topN: 5 } }],
      },
      {
        name: 'analyze',
        model: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
        prompt: 'Results: {{levels.collect.results}}\nFindings: {{findings.collect}}',
        intra_tools: [],
      },
      {
        name: 'report',
        intra_tools: ['slack_post_message'],
        calls: [
          {
            tool: 'slack_post_message',
            args: { channel: '{{input.channel}}', text: '{{levels.analyze.summary}}' },
          },
        ],
      },
    ],
  };
  edit(document);
  return document;
}

/** The problems of a document checked as `check.yaml` in `dir`. */
function problemsOf(document: unknown, dir = SCENARIOS_DIR): readonly string[] {
  return checkScenarioDocument(document, path.join(dir, 'check.yaml'), toolCatalog).problems;
}

describe('the shipped scenarios', () => {
  it.each(readdirSync(SCENARIOS_DIR).filter((file) => file.endsWith('.yaml')))(
    '%s loads without a problem',
    (file) => {
      // Act
      const check = checkScenarioDocument(
        require('yaml').parse(require('node:fs').readFileSync(path.join(SCENARIOS_DIR, file), 'utf8')),
        path.join(SCENARIOS_DIR, file),
        toolCatalog,
      );

      // Assess
      expect(check.problems).toEqual([]);
      expect(`${check.scenario?.name}.yaml`).toBe(file);
    },
  );

  it('load together, each agent prompt read from its file', () => {
    // Act
    const scenarios = loadScenarios(toolCatalog);

    // Assess
    expect(scenarios.map((s) => s.name)).toEqual(shippedScenarioNames());
    const analyze = scenarios.find((s) => s.name === 'aws_pulse')?.levels[1];
    expect(analyze?.kind === 'agent' && analyze.prompt).toContain('{{findings.collect}}');
  });

  it('gives aws_pulse AWS audits only, each called once, in parallel, bounded', () => {
    // Act
    const pulse = loadScenarios(toolCatalog).find((s) => s.name === 'aws_pulse');
    const collect = pulse?.levels[0];

    // Assess: which audits the pulse runs is the YAML's choice; a new AWS tool joins it by a line there
    const tools = collect?.kind === 'plan' ? collect.calls.map((call) => call.tool) : [];
    const audits = new Set(
      toolCatalog
        .functionTools()
        .filter((entry) => entry.implementation.startsWith('aws/'))
        .map((entry) => entry.spec.name),
    );
    expect(tools.filter((tool) => !audits.has(tool))).toEqual([]);
    expect(new Set(tools).size).toBe(tools.length);
    expect(tools.length).toBeGreaterThan(0);
    expect(collect?.kind === 'plan' && collect.concurrency).toBe(4);
  });
});

describe('a document the schema refuses', () => {
  it('still reports its unknown tools, and names a kind that is not one, in the same round', () => {
    // Prepare
    const document = scenario((d) => {
      d.levels[1].kind = 'agnt';
      d.levels[1].intra_tools = ['aws_ec2_inventorz'];
      d.levels[2].max_turnz = 3;
      d.levels[2].calls = [{ tool: 'slack_post_mesage' }];
    });

    // Act
    const problems = problemsOf(document);

    // Assess
    expect(problems).toEqual(
      expect.arrayContaining([
        'check.yaml: levels[1].kind: "agnt" is not a kind: plan or agent',
        `check.yaml: levels[1]: Unknown tool "aws_ec2_inventorz". ${REGISTERED}`,
        `check.yaml: levels[2]: Unknown tool "slack_post_mesage". ${REGISTERED}`,
      ]),
    );
    expect(problems.some((problem) => problem.includes('max_turnz'))).toBe(true);
  });

  it('reports in the same round a misspelt input reference, a missing prompt file and a level name used twice', () => {
    // Prepare: a schema error (max_turnz) beside three problems the schema does not see.
    const document = scenario((d) => {
      d.levels[1].max_turnz = 3;
      d.levels[1].prompt = undefined;
      d.levels[1].prompt_file = 'no-such-prompt.md';
      d.levels[2].name = 'collect';
      d.levels[2].calls[0].args.channel = '{{input.chanel}}';
    });

    // Act
    const problems = problemsOf(document);

    // Assess
    expect(problems.some((problem) => problem.includes('max_turnz'))).toBe(true);
    expect(problems).toEqual(
      expect.arrayContaining([
        'check.yaml: levels[2]: level name "collect" is used twice',
        'check.yaml: levels[1] (analyze).prompt_file: no-such-prompt.md does not exist beside check.yaml',
        expect.stringMatching(
          /^check\.yaml: levels\[2\] \(collect\)\.calls\[0\]\.args\.channel: .*input\.chanel/,
        ),
      ]),
    );
  });
});

describe('snapshot_forensics', () => {
  it('scans once in a plan level, then offers the agent the content-free snapshot tools only', () => {
    // Act
    const forensics = loadScenarios(toolCatalog).find((s) => s.name === 'snapshot_forensics');
    const [scan, investigate, report] = forensics?.levels ?? [];

    // Assess
    expect(scan?.kind === 'plan' && scan.calls.map((call) => call.tool)).toEqual(['scan_snapshots']);
    expect(investigate?.kind).toBe('agent');
    expect([...(investigate?.intra_tools ?? [])].sort()).toEqual([
      'diff_snapshots',
      'inspect_finding',
      'list_snapshots',
      'snapshot_stats',
    ]);
    for (const tool of investigate?.intra_tools ?? []) {
      expect(toolCatalog.get(tool)?.tags).toContain('no_content');
    }
    expect(report?.kind === 'plan' && report.calls.map((call) => call.tool)).toEqual(['slack_post_message']);
  });
});

describe('a valid scenario', () => {
  it('has no problem, kinds filled in and the agent defaults applied', () => {
    // Act
    const check = checkScenarioDocument(scenario(), path.join(SCENARIOS_DIR, 'check.yaml'), toolCatalog);

    // Assess
    expect(check.problems).toEqual([]);
    expect(check.scenario?.levels[1]).toMatchObject({
      kind: 'agent',
      max_turns: 8,
      max_tokens: 2000,
      ask_user: false,
    });
    expect(check.scenario?.levels[0]).toMatchObject({ kind: 'plan', concurrency: 4, track_findings: true });
  });

  it('gives the dispatcher each level’s whitelist, and the engine’s ask_user level where questions go to Slack', () => {
    // Prepare
    const asking = checkScenarioDocument(
      scenario((d) => {
        d.levels[1].ask_user = { slack_channel: '{{input.channel}}' };
      }),
      path.join(SCENARIOS_DIR, 'check.yaml'),
      toolCatalog,
    ).scenario;

    // Act
    const whitelists = levelWhitelists(asking ? [asking] : []);

    // Assess
    expect(whitelists).toEqual({
      check: {
        collect: ['aws_ec2_inventory'],
        analyze: [],
        report: ['slack_post_message'],
        ask_user: ['slack_post_message'],
      },
    });
    expect(asking?.levels[1]).toMatchObject({
      ask_user: { timeout_seconds: 86_400, slack_channel: '{{input.channel}}' },
    });
  });
});

describe('ask_user.slack_channel is checked as the question post’s channel argument', () => {
  it.each(['#공지사항', '#お知らせ', '#объявления', '#ops-alerts', 'C0123ABCD', '{{input.channel}}'])(
    'accepts %s',
    (channel) => {
      // Act
      const problems = problemsOf(
        scenario((d) => {
          d.levels[1].ask_user = { slack_channel: channel };
        }),
      );

      // Assess
      expect(problems).toEqual([]);
    },
  );

  it.each([
    ['a literal with a space', '#ops alerts', (_d: Document) => {}],
    [
      'an input default with a slash',
      '{{input.channel}}',
      (d: Document) => {
        d.inputs.channel.default = '#ops/alerts';
      },
    ],
  ])('refuses %s, saying what a channel is', (_name, channel, edit) => {
    // Act
    const problems = problemsOf(
      scenario((d) => {
        edit(d);
        d.levels[1].ask_user = { slack_channel: channel };
      }),
    );

    // Assess: named at the level, with what Slack accepts
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /levels\[1\] \(analyze\)\.ask_user\.slack_channel: .*a channel ID \(C0123ABCD\) or #name \(letters of any script, digits, - or _\)/,
        ),
      ]),
    );
  });
});

describe('every kind of typo, each reported with what is accepted', () => {
  it.each<[string, (document: Document) => void, string]>([
    [
      'an unknown key',
      (d) => {
        d.levles = d.levels;
      },
      'check.yaml: (root): Unrecognized key: "levles"; accepted keys: name, description, inputs, budget_usd, levels, watermark',
    ],
    [
      'a budget that is not a positive number of dollars',
      (d) => {
        d.budget_usd = 0;
      },
      'check.yaml: budget_usd: a number of US dollars greater than 0 and at most 10000, such as 0.05',
    ],
    [
      'budget_usd declared as an input',
      (d) => {
        d.inputs.budget_usd = { type: 'number', description: 'Budget.' };
      },
      "check.yaml: inputs.budget_usd: every run has this input; set the scenario's default with the top-level budget_usd field",
    ],
    [
      'a level that is neither plan nor agent',
      (d) => {
        d.levels[2] = { name: 'report', intra_tools: [] };
      },
      'check.yaml: levels[2].kind: a level needs kind (plan or agent), or calls (a plan) or model (an agent)',
    ],
    [
      'an unknown tool in intra_tools',
      (d) => {
        d.levels[0].intra_tools = ['aws_ec2_inventroy', 'aws_ec2_inventory'];
      },
      `check.yaml: levels[0] (collect).intra_tools: Unknown tool "aws_ec2_inventroy". ${REGISTERED}`,
    ],
    [
      'a call to an unknown tool',
      (d) => {
        d.levels[0].calls.push({ tool: 'aws_nope' });
      },
      `check.yaml: levels[0] (collect).calls[1].tool: Unknown tool "aws_nope". ${REGISTERED}`,
    ],
    [
      'a call to a tool the level does not list',
      (d) => {
        d.levels[2].calls.push({ tool: 'aws_ec2_inventory' });
      },
      "check.yaml: levels[2] (report).calls[1]: calls aws_ec2_inventory, which the level's intra_tools (slack_post_message) does not list",
    ],
    [
      'a level name used twice',
      (d) => {
        d.levels[2].name = 'collect';
      },
      'check.yaml: levels[2]: level name "collect" is used twice',
    ],
    [
      'the reserved level name',
      (d) => {
        d.levels[2].name = 'ask_user';
      },
      'check.yaml: levels[2]: "ask_user" is reserved for the engine',
    ],
    [
      'an unknown input',
      (d) => {
        d.levels[2].calls[0].args.channel = '{{input.chanel}}';
      },
      'check.yaml: levels[2] (report).calls[0].args.channel: {{input.chanel}}: no input "chanel". Declared inputs: tenant, regions, channel',
    ],
    [
      'an unknown level',
      (d) => {
        d.levels[2].calls[0].args.text = '{{levels.analysis.summary}}';
      },
      'check.yaml: levels[2] (report).calls[0].args.text: {{levels.analysis.summary}}: no level "analysis". Earlier levels: collect, analyze',
    ],
    [
      'a later level',
      (d) => {
        d.levels[1].prompt = '{{levels.report.summary}}';
      },
      'check.yaml: levels[1] (analyze).prompt: {{levels.report.summary}}: level report runs after this one. Earlier levels: collect',
    ],
    [
      "a call's value, absent when the call fails",
      (d) => {
        d.levels[2].calls[0].args.text = '{{levels.collect.results.0.value.totalInstances}}';
      },
      "check.yaml: levels[2] (report).calls[0].args.text: {{levels.collect.results.0.value.totalInstances}}: a call's value is absent when the call fails; reference its summary, or let an agent level read the full result",
    ],
    [
      'a call index out of range',
      (d) => {
        d.levels[2].calls[0].args.text = '{{levels.collect.results.3.summary}}';
      },
      'check.yaml: levels[2] (report).calls[0].args.text: {{levels.collect.results.3.summary}}: level collect has calls 0 to 0',
    ],
    [
      "a field of an agent's data",
      (d) => {
        d.levels[2].calls[0].args.text = '{{levels.analyze.data.top}}';
      },
      'check.yaml: levels[2] (report).calls[0].args.text: {{levels.analyze.data.top}}: an agent level offers summary, outcome and data (whole: its fields are absent when the model did not finish)',
    ],
    [
      'findings of a level that does not track them',
      (d) => {
        d.levels[0].track_findings = false;
      },
      'check.yaml: levels[1] (analyze).prompt: {{findings.collect}}: level collect does not track findings (track_findings: true)',
    ],
    [
      'a prompt-only reference in args',
      (d) => {
        d.levels[2].calls[0].args.text = '{{findings.collect}}';
      },
      'check.yaml: levels[2] (report).calls[0].args.text: {{findings.collect}}: a findings listing can be used in a prompt only',
    ],
    [
      'a list formatted into text',
      (d) => {
        d.levels[2].calls[0].args.text = 'Regions: {{input.regions}}';
      },
      'check.yaml: levels[2] (report).calls[0].args.text: {{input.regions}} is a list or an object: use it as the whole value, not inside text',
    ],
    [
      'a reference inside a list',
      (d) => {
        d.levels[0].calls[0].args.regions = ['{{input.channel}}'];
      },
      'check.yaml: levels[0] (collect).calls[0].args.regions[0]: references inside lists are not supported: reference a list input whole',
    ],
    [
      'a malformed reference',
      (d) => {
        d.levels[1].prompt = 'Hello {{ input..regions }}';
      },
      'check.yaml: levels[1] (analyze).prompt: {{input..regions}} is not a dotted path such as {{input.regions}}',
    ],
    [
      'an unknown run field',
      (d) => {
        d.levels[2].calls[0].args.text = '{{run.name}}';
      },
      'check.yaml: levels[2] (report).calls[0].args.text: {{run.name}}: run fields are run.id, run.tenant, run.scenario',
    ],
    [
      'an input default of the wrong type',
      (d) => {
        d.inputs.regions.default = 5;
      },
      'check.yaml: inputs.regions.default: expected "all" or a list of 1-40 AWS region names such as ["eu-west-1"], got number 5',
    ],
    [
      'enum on an input that is not a string',
      (d) => {
        d.inputs.regions.enum = ['all'];
      },
      'check.yaml: inputs.regions.enum: only string inputs take enum',
    ],
    [
      'args the tool refuses',
      (d) => {
        d.levels[0].calls[0].args.topn = 5;
      },
      'check.yaml: levels[0] (collect).calls[0].args: (root): Unrecognized key: "topn"; accepted keys: regions, topN',
    ],
    [
      'a model id that is none',
      (d) => {
        d.levels[1].model = 'claude haiku';
      },
      'check.yaml: levels[1].model: a Bedrock model id, inference profile id or ARN (anthropic.claude-3-5-haiku-20241022-v1:0)',
    ],
    [
      'both prompt and prompt_file',
      (d) => {
        d.levels[1].prompt_file = 'prompts/aws_pulse_analyze.md';
      },
      'check.yaml: levels[1] (analyze): give exactly one of prompt (inline text) and prompt_file (a file beside the scenario)',
    ],
    [
      'a missing prompt file',
      (d) => {
        delete d.levels[1].prompt;
        d.levels[1].prompt_file = 'prompts/nope.md';
      },
      'check.yaml: levels[1] (analyze).prompt_file: prompts/nope.md does not exist beside check.yaml',
    ],
    [
      'a prompt file outside the folder',
      (d) => {
        delete d.levels[1].prompt;
        d.levels[1].prompt_file = '../README.md';
      },
      'check.yaml: levels[1] (analyze).prompt_file: "../README.md" must be a relative path inside scenarios/',
    ],
    [
      'an ask_user channel naming an unknown input',
      (d) => {
        d.levels[1].ask_user = { slack_channel: '{{input.slack}}' };
      },
      'check.yaml: levels[1] (analyze).ask_user.slack_channel: {{input.slack}}: no input "slack". Declared inputs: tenant, regions, channel',
    ],
    [
      'a watermark of an undeclared input',
      (d) => {
        d.watermark = { input: 'since', value: '{{levels.collect.results.0.value.next}}' };
      },
      'check.yaml: watermark.input: no input "since". Declared inputs: tenant, regions, channel',
    ],
    [
      'a watermark of an input that is not a string',
      (d) => {
        d.watermark = { input: 'regions', value: '{{levels.collect.results.0.value.next}}' };
      },
      'check.yaml: watermark.input: regions is a regions input; a watermark fills a string input',
    ],
    [
      'a watermark value that is text, not one reference',
      (d) => {
        d.watermark = { input: 'channel', value: 'since {{levels.collect.summary}}' };
      },
      'check.yaml: watermark.value: one {{reference}} such as {{levels.read.results.0.value.next_since}}, not "since {{levels.collect.summary}}"',
    ],
    [
      'a watermark value naming a call the level does not have',
      (d) => {
        d.watermark = { input: 'channel', value: '{{levels.collect.results.3.value.next}}' };
      },
      'check.yaml: watermark.value: {{levels.collect.results.3.value.next}}: level collect has calls 0 to 0',
    ],
  ])('%s', (_kind, edit, problem) => {
    // Act
    const problems = problemsOf(scenario(edit));

    // Assess
    expect(problems).toContain(problem);
  });

  it('reports every problem of a file at once', () => {
    // Act
    const problems = problemsOf(
      scenario((d) => {
        d.levels[0].intra_tools = ['aws_ec2_inventroy'];
        d.levels[2].calls[0].args.channel = '{{input.chanel}}';
        d.inputs.regions.default = 5;
      }),
    );

    // Assess
    expect(problems).toHaveLength(4);
  });
});

describe('a folder of scenario files', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'etp-loader-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a YAML syntax error, a scenario defined twice, and the problems of every file', () => {
    // Prepare
    writeFileSync(path.join(dir, 'a.yaml'), stringify(scenario()));
    writeFileSync(path.join(dir, 'b.yaml'), stringify(scenario()));
    writeFileSync(path.join(dir, 'c.yaml'), 'name: broken\nlevels: [\n');

    // Act
    const load = () => loadScenarios(toolCatalog, dir);

    // Assess
    expect(load).toThrow(ScenarioValidationError);
    const problems = (() => {
      try {
        load();
        return [];
      } catch (err) {
        return [...(err as ScenarioValidationError).problems];
      }
    })();
    expect(problems).toEqual([
      expect.stringMatching(/^c\.yaml: not valid YAML: /),
      'b.yaml: scenario "check" is already defined in a.yaml',
    ]);
  });

  it('reads a prompt file beside the scenario', () => {
    // Prepare
    mkdirSync(path.join(dir, 'prompts'));
    writeFileSync(
      path.join(dir, 'prompts', 'analyze.md'),
      'Read {{levels.collect.results}} for {{run.tenant}}.',
    );
    writeFileSync(
      path.join(dir, 'check.yaml'),
      stringify(
        scenario((d) => {
          delete d.levels[1].prompt;
          d.levels[1].prompt_file = 'prompts/analyze.md';
        }),
      ),
    );

    // Act
    const [loaded] = loadScenarios(toolCatalog, dir);

    // Assess
    expect(loaded?.levels[1]).toMatchObject({
      prompt: 'Read {{levels.collect.results}} for {{run.tenant}}.',
      prompt_file: 'prompts/analyze.md',
    });
  });

  it('refuses a scenario whose state could outgrow the budget, saying by how much and why', () => {
    // Prepare: four agent levels keep four records of up to 32 KiB each in the state.
    writeFileSync(
      path.join(dir, 'check.yaml'),
      stringify(
        scenario((d) => {
          const agent = d.levels[1];
          d.levels.splice(1, 1, ...['one', 'two', 'three', 'four'].map((name) => ({ ...agent, name })));
          d.levels.at(-1).calls[0].args.text = '{{levels.four.summary}}';
        }),
      ),
    );

    // Act
    const load = () => loadScenarios(toolCatalog, dir);

    // Assess
    expect(load).toThrow(
      /check: a run's state could reach \d+ KiB \(input 8 KiB, collect record 2 KiB, one record 32 KiB, .*\), over the 180 KiB budget/,
    );
  });
});

describe('pin: in agent levels', () => {
  /** The scenario with the agent level offering the Slack tools, pinned by `pin`. */
  const pinned = (pin: unknown) =>
    scenario((document) => {
      document.levels[1].intra_tools = ['slack_post_message', 'slack_post_threaded'];
      document.levels[1].pin = pin;
    });
  const AT = 'check.yaml: levels[1] (analyze)';

  it.each([
    ['a restricted pin', { one_of: '{{levels.colect.results.0.value.instances.*.id}}' }],
    ['a fixed pin', '{{levels.colect.results.0.value.instances.*.id}}'],
  ])('names a misspelt level in %s, whatever the value path after it', (_, pin) => {
    // Act
    const problems = problemsOf(pinned({ slack_post_threaded: { channel: 'C0123ABCD', thread_ts: pin } }));

    // Assess
    expect(problems.join('\n')).toContain(
      '{{levels.colect.results.0.value.instances.*.id}}: no level "colect". Earlier levels: collect',
    );
    expect(problems.join('\n')).not.toContain('is not a dotted path');
  });

  it('loads fixed and restricted pins, references to earlier results included, into the dispatcher’s table', () => {
    // Act
    const check = checkScenarioDocument(
      pinned({
        slack_post_message: { channel: '{{input.channel}}' },
        slack_post_threaded: {
          channel: { value: 'C0123ABCD' },
          thread_ts: { one_of: '{{levels.collect.results.0.value.instances.*.id}}' },
        },
      }),
      path.join(SCENARIOS_DIR, 'check.yaml'),
      toolCatalog,
    );

    // Assess
    expect(check.problems).toEqual([]);
    expect(check.warnings).toEqual([]);
    const level = check.scenario?.levels[1];
    expect(level?.kind === 'agent' && level.pin).toEqual({
      slack_post_message: { channel: { value: '{{input.channel}}' } },
      slack_post_threaded: {
        channel: { value: 'C0123ABCD' },
        thread_ts: { one_of: '{{levels.collect.results.0.value.instances.*.id}}' },
      },
    });
    expect(levelPins(check.scenario ? [check.scenario] : [])).toEqual({
      check: { analyze: { slack_post_message: ['channel'], slack_post_threaded: ['channel', 'thread_ts'] } },
    });
  });

  it('reports a pin on a tool the level does not offer, an unknown argument, a bad form, a bad literal and a bad reference', () => {
    // Act
    const problems = problemsOf(
      pinned({
        aws_ec2_inventory: { regions: 'all' },
        slack_post_message: { chanel: 'C0123ABCD', text: { fixed: 'x' } },
        slack_post_threaded: {
          channel: 'not a channel!',
          thread_ts: { one_of: '{{levels.report.summary}}' },
        },
      }),
    );

    // Assess
    expect(problems).toEqual(
      expect.arrayContaining([
        `${AT}.pin.aws_ec2_inventory: the level does not offer aws_ec2_inventory (its intra_tools: slack_post_message, slack_post_threaded)`,
        `${AT}.pin.slack_post_message.chanel: slack_post_message has no argument "chanel". Its arguments: channel, text`,
        `${AT}.pin.slack_post_message.text: an object pin is { value: <fixed value> } or { one_of: <list or {{reference}}> }, not { fixed }`,
        `${AT}.pin.slack_post_threaded.channel: "not a channel!" is not a value slack_post_threaded's channel accepts`,
        `${AT}.pin.slack_post_threaded.thread_ts: {{levels.report.summary}}: level report runs after this one. Earlier levels: collect`,
      ]),
    );
  });

  it('warns about a write tool whose destination the model chooses, naming the risk and the argument', () => {
    // Act
    const check = checkScenarioDocument(
      pinned({ slack_post_message: { channel: 'C0123ABCD' } }),
      path.join(SCENARIOS_DIR, 'check.yaml'),
      toolCatalog,
    );

    // Assess: valid, with one warning for the unpinned tool
    expect(check.problems).toEqual([]);
    expect(check.warnings).toEqual([
      `${AT}: slack_post_threaded writes outside the run and its destination argument channel is not pinned: a model obeying text injected into what it reads (a tool result, a file, a message) can redirect the write; pin slack_post_threaded.channel (pin: { slack_post_threaded: { channel: … } })`,
    ]);
  });

  it('lets no write tool of the catalog offered by an agent level go unwarned without its pins', () => {
    // Every write tool of the catalog that writes outside the run's workspace, offered unpinned, gets its warning.
    const writes = toolCatalog
      .list()
      .filter(
        (spec) =>
          spec.sideEffects === 'write' &&
          !toolCatalog.isFileTool(spec.name) &&
          (!toolCatalog.get(spec.name).workspaceAccess || spec.destinationArgs),
      )
      .map((spec) => spec.name);
    const check = checkScenarioDocument(
      scenario((document) => {
        document.levels[1].intra_tools = writes;
      }),
      path.join(SCENARIOS_DIR, 'check.yaml'),
      toolCatalog,
    );
    expect(
      check.warnings?.map((warning) => writes.find((tool) => warning.includes(`: ${tool} writes`))),
    ).toEqual(writes);
  });
});
