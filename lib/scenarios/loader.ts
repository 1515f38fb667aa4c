import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { AccountLevels, LevelWhitelists } from '../../functions/dispatcher/levels';
import { ASK_USER_LEVEL, type ScenarioLevel } from '../../functions/engine/definition';
import { inputValueProblem } from '../../functions/engine/inputs';
import { DEFAULT_ASK_TIMEOUT_SECONDS } from '../../functions/engine/limits';
import { BUDGET_INPUT } from '../../functions/engine/run-budget';
import { soleRef, stringsIn, templateRefs } from '../../functions/engine/template';
import type { ToolCatalog } from '../../functions/runtime/catalog';
import { PlatformError, UnknownScenarioError } from '../../functions/runtime/errors';
import { ORG_ACCOUNTS_TOOL } from '../../functions/runtime/ids';
import { DEFAULT_RESULT_MAX_BYTES } from '../../functions/runtime/result-limits';
import { violationsOf } from '../../functions/runtime/schema-violations';
import { inlineResultBudget, STATE_BUDGET_BYTES, worstCaseState } from './budget';
import { type Scenario, type ScenarioFile, scenarioSchema } from './model';
import { checkPins, pinRefProblem } from './pins';
import { type RefUse, resolveRef } from './references';

export { levelPins } from './pins';

/** The folder holding the scenario YAML files. */
export const SCENARIOS_DIR = path.join(__dirname, '../../functions/scenarios');

/**
 * Scenario files with problems: every problem of every file, one per line,
 * each naming its file and place and saying what is accepted.
 */
export class ScenarioValidationError extends PlatformError {
  override readonly name = 'ScenarioValidationError';
  /** `<file>: <where>: <problem>` lines. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      'internal_error',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the scenario files:\n${problems.map((p) => `- ${p}`).join('\n')}`,
    );
    this.problems = problems;
  }
}

/** A scenario file read and checked: the scenario, or its problems. */
export interface ScenarioCheck {
  readonly file: string;
  readonly scenario?: Scenario;
  readonly problems: readonly string[];
  /** Risks that do not stop the scenario (a write tool whose destination the model chooses). */
  readonly warnings?: readonly string[];
}

/** The `*.yaml` / `*.yml` files of a folder, sorted. */
function scenarioFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml') || file.endsWith('.yml'))
    .sort()
    .map((file) => path.join(dir, file));
}

/**
 * Loads and checks every scenario file of `dir`.
 *
 * @param resultMaxBytes - the platform's result bound, for the state budget check.
 * @throws ScenarioValidationError listing every problem of every file (see {@link checkScenarioFile}),
 *   and scenario names defined twice.
 */
export function loadScenarios(
  catalog: ToolCatalog,
  dir: string = SCENARIOS_DIR,
  resultMaxBytes: number = DEFAULT_RESULT_MAX_BYTES,
): Scenario[] {
  const checks = scenarioFiles(dir).map((file) => checkScenarioFile(file, catalog));
  const problems = checks.flatMap((check) => check.problems);
  const scenarios = checks.flatMap((check) => (check.scenario ? [check.scenario] : []));
  const seen = new Map<string, string>();
  for (const check of checks) {
    const name = check.scenario?.name;
    if (!name) continue;
    const first = seen.get(name);
    if (first)
      problems.push(`${path.basename(check.file)}: scenario "${name}" is already defined in ${first}`);
    else seen.set(name, path.basename(check.file));
  }
  problems.push(...budgetProblems(scenarios, resultMaxBytes));
  if (problems.length > 0) throw new ScenarioValidationError(problems);
  return scenarios;
}

/** Problems of scenarios whose worst-case state exceeds the budget with the inline budget these scenarios get. */
function budgetProblems(scenarios: readonly Scenario[], resultMaxBytes: number): string[] {
  const inline = inlineResultBudget(scenarios, resultMaxBytes);
  return scenarios.flatMap((scenario) => {
    const worst = worstCaseState(scenario, inline);
    if (worst.bytes <= STATE_BUDGET_BYTES) return [];
    const parts = worst.parts.map((part) => `${part.part} ${Math.ceil(part.bytes / 1024)} KiB`).join(', ');
    return [
      `${scenario.name}: a run's state could reach ${Math.ceil(worst.bytes / 1024)} KiB (${parts}), over the ${STATE_BUDGET_BYTES / 1024} KiB budget: split large levels or lower max_tokens`,
    ];
  });
}

/**
 * Loads one scenario file.
 *
 * @throws ScenarioValidationError listing its problems.
 */
export function parseScenarioFile(file: string, catalog: ToolCatalog): Scenario {
  const check = checkScenarioFile(file, catalog);
  if (!check.scenario || check.problems.length > 0) throw new ScenarioValidationError(check.problems);
  return check.scenario;
}

/** A level's `kind` when it leaves it out: `calls` make a plan, `model` an agent. */
/**
 * Tool names of a document the schema refused, checked against the catalog:
 * each level's `intra_tools` and `calls[].tool` that are strings.
 */
function unknownToolsIn(levels: unknown, catalog: ToolCatalog): string[] {
  if (!Array.isArray(levels)) return [];
  const problems: string[] = [];
  const unknown = (name: unknown) => typeof name === 'string' && !catalog.has(name);
  levels.forEach((level: unknown, index) => {
    if (level === null || typeof level !== 'object') return;
    const { intra_tools: intra, calls } = level as { intra_tools?: unknown; calls?: unknown };
    const names = [
      ...(Array.isArray(intra) ? intra : []),
      ...(Array.isArray(calls) ? calls.map((call) => (call as { tool?: unknown } | null)?.tool) : []),
    ].filter(unknown);
    for (const name of new Set(names)) {
      problems.push(
        `levels[${index}]: Unknown tool "${String(name)}". Registered tools: ${catalog.names().join(', ')}`,
      );
    }
  });
  return problems;
}

/**
 * What a document the schema refused still shows, checked on its levels as
 * written: level names used twice, prompt files that do not exist, and
 * references that resolve to nothing (a misspelt input, a later level). A level
 * too malformed to read is skipped: the schema's problems already name it.
 */
function problemsAsWritten(document: unknown, file: string): string[] {
  const levels = (document as { levels?: unknown } | null)?.levels;
  if (!Array.isArray(levels)) return [];
  const problems: string[] = [];
  const names = levels.map((level) => (level as { name?: unknown } | null)?.name);
  levels.forEach((raw: unknown, index) => {
    if (raw === null || typeof raw !== 'object') return;
    const level = raw as { name?: unknown; prompt?: unknown; prompt_file?: unknown; calls?: unknown };
    const at = `levels[${index}]${typeof level.name === 'string' ? ` (${level.name})` : ''}`;
    if (typeof level.name === 'string' && names.indexOf(level.name) !== index) {
      problems.push(`levels[${index}]: level name "${level.name}" is used twice`);
    }
    if (typeof level.prompt_file === 'string') {
      const promptPath = path.resolve(path.dirname(file), level.prompt_file);
      if (!existsSync(promptPath) || !statSync(promptPath).isFile()) {
        problems.push(`${at}.prompt_file: ${level.prompt_file} does not exist beside ${path.basename(file)}`);
      }
    }
    const texts = [
      ...(typeof level.prompt === 'string'
        ? [{ where: 'prompt', text: level.prompt, use: 'prompt' as const }]
        : []),
      ...stringsIn(level.calls, 'calls').map((text) => ({ ...text, use: 'args' as const })),
    ];
    for (const text of texts) {
      for (const ref of templateRefs(text.text)) {
        try {
          const resolution = resolveRef(ref, {
            scenario: document as Scenario,
            levelIndex: index,
            use: text.use,
          });
          if ('problem' in resolution) problems.push(`${at}.${text.where}: ${resolution.problem}`);
        } catch {
          // The document is too malformed around this reference to resolve it.
        }
      }
    }
  });
  return problems;
}

function withKinds(document: unknown): unknown {
  const levels = (document as { levels?: unknown } | null)?.levels;
  if (!Array.isArray(levels)) return document;
  return {
    ...(document as object),
    levels: levels.map((level: unknown) => {
      if (level === null || typeof level !== 'object' || Array.isArray(level) || 'kind' in level)
        return level;
      if ('calls' in level) return { kind: 'plan', ...level };
      if ('model' in level) return { kind: 'agent', ...level };
      return level;
    }),
  };
}

/**
 * Reads and checks one scenario file, collecting every problem rather than
 * stopping at the first:
 * - YAML syntax; the schema (unknown keys with the accepted ones, wrong types,
 *   bounds, a level without `kind`, `calls` or `model`);
 * - duplicate level names, the reserved level name `ask_user`;
 * - tools: an `intra_tools` name or a call's tool that is not registered (with
 *   every registered name), a call to a tool its level does not list;
 * - agent prompts: neither or both of `prompt` and `prompt_file`, a prompt file
 *   that is missing or outside the scenario's folder;
 * - `{{…}}` references: unknown inputs, unknown or later levels, fields a run
 *   may not have (see lib/scenarios/references.ts), references inside lists,
 *   lists or objects formatted into text;
 * - inputs: a default of the wrong type, `enum` on a non-string input;
 * - `watermark`: an input that is not a declared string input, a value that is
 *   not one reference to what the run has when it ends;
 * - call args, with input defaults in place, against the tool's schema.
 */
export function checkScenarioFile(file: string, catalog: ToolCatalog): ScenarioCheck {
  let document: unknown;
  try {
    document = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return {
      file,
      problems: [`${path.basename(file)}: not valid YAML: ${(err as Error).message.replace(/\s+/g, ' ')}`],
    };
  }
  return checkScenarioDocument(document, file, catalog);
}

/**
 * Checks a parsed scenario document as {@link checkScenarioFile} does; prompt
 * files are read relative to `file`'s folder, and problems name its base name.
 */
export function checkScenarioDocument(document: unknown, file: string, catalog: ToolCatalog): ScenarioCheck {
  const where = path.basename(file);
  const problems: string[] = [];
  const warnings: string[] = [];
  const report = (text: string) => problems.push(`${where}: ${text}`);
  const candidate = withKinds(document);
  const parsed = scenarioSchema.safeParse(candidate);
  if (!parsed.success) {
    const levels = (candidate as { levels?: unknown } | null)?.levels;
    for (const violation of violationsOf(parsed.error, candidate, scenarioSchema)) {
      const kind = /^levels\[(\d+)\]\.kind$/.exec(violation.path);
      if (kind) {
        const given = Array.isArray(levels)
          ? (levels[Number(kind[1])] as { kind?: unknown } | null)?.kind
          : undefined;
        report(
          given === undefined
            ? `${violation.path}: a level needs kind (plan or agent), or calls (a plan) or model (an agent)`
            : `${violation.path}: ${JSON.stringify(given)} is not a kind: plan or agent`,
        );
      } else report(`${violation.path}: ${violation.message}`);
    }
    // Unknown tools, and what the checks below find on the levels as written, are found without the
    // schema, so one round of fixes covers them too.
    for (const problem of unknownToolsIn(levels, catalog)) report(problem);
    for (const problem of problemsAsWritten(candidate, file)) report(problem);
    return { file, problems };
  }
  const spec = parsed.data;
  const registered = catalog.names();
  const levelNames = spec.levels.map((level) => level.name);
  for (const [index, name] of levelNames.entries()) {
    if (levelNames.indexOf(name) !== index) report(`levels[${index}]: level name "${name}" is used twice`);
    if (name === ASK_USER_LEVEL) report(`levels[${index}]: "${ASK_USER_LEVEL}" is reserved for the engine`);
  }
  if (Object.hasOwn(spec.inputs, BUDGET_INPUT)) {
    report(
      `inputs.${BUDGET_INPUT}: every run has this input; set the scenario's default with the top-level ${BUDGET_INPUT} field`,
    );
  }
  for (const [inputName, input] of Object.entries(spec.inputs)) {
    if (input.enum && input.type !== 'string')
      report(`inputs.${inputName}.enum: only string inputs take enum`);
    if (input.default !== undefined) {
      const problem = inputValueProblem(input, input.default);
      if (problem) report(`inputs.${inputName}.default: ${problem}`);
    }
  }

  const levels: ScenarioLevel[] = [];
  spec.levels.forEach((level, index) => {
    const at = `levels[${index}] (${level.name})`;
    const unknown = level.intra_tools.filter((tool) => !catalog.has(tool));
    if (unknown.length > 0) {
      report(
        `${at}.intra_tools: ${unknown.map((tool) => `Unknown tool "${tool}"`).join(', ')}. Registered tools: ${registered.join(', ')}`,
      );
    }
    const checkText = (text: string, place: string, use: RefUse) => {
      for (const ref of templateRefs(text)) {
        const resolution = resolveRef(ref, { scenario: spec as unknown as Scenario, levelIndex: index, use });
        if ('problem' in resolution) {
          report(`${at}.${place}: ${resolution.problem}`);
          continue;
        }
        const target = resolution.target;
        if (use === 'args' && !soleRef(text) && target.kind === 'path' && !target.scalar) {
          report(
            `${at}.${place}: {{${ref.expression}}} is a list or an object: use it as the whole value, not inside text`,
          );
        }
      }
    };
    if (level.kind === 'plan') {
      level.calls.forEach((call, position) => {
        const place = `calls[${position}]`;
        if (!catalog.has(call.tool)) {
          // Reported once, with intra_tools, when the level lists it too.
          if (!level.intra_tools.includes(call.tool)) {
            report(
              `${at}.${place}.tool: Unknown tool "${call.tool}". Registered tools: ${registered.join(', ')}`,
            );
          }
          return;
        }
        if (!level.intra_tools.includes(call.tool) && !catalog.isFileTool(call.tool)) {
          report(
            `${at}.${place}: calls ${call.tool}, which the level's intra_tools (${level.intra_tools.join(', ') || 'none'}) does not list`,
          );
        }
        for (const text of stringsIn(call.args, 'args')) {
          checkText(text.text, `${place}.${text.where}`, 'args');
          if (/\[\d+\]/.test(text.where) && templateRefs(text.text).length > 0) {
            report(
              `${at}.${place}.${text.where}: references inside lists are not supported: reference a list input whole`,
            );
          }
        }
        for (const violation of argsViolations(catalog, spec, call))
          report(`${at}.${place}.args: ${violation}`);
      });
      levels.push({ ...level });
      return;
    }
    if (level.ask_user && typeof level.ask_user === 'object' && level.ask_user.slack_channel) {
      checkText(level.ask_user.slack_channel, 'ask_user.slack_channel', 'args');
      // The question is posted with slack_post_message: a literal channel, or an input's default,
      // is checked as that post's argument is, so a name Slack refuses fails here, not mid-run.
      const channel = level.ask_user.slack_channel;
      if (templateRefs(channel).length === 0 || soleRef(channel)) {
        const post = { tool: 'slack_post_message', args: { channel, text: '?' } };
        for (const violation of argsViolations(catalog, spec, post))
          report(`${at}.ask_user.slack_${violation}`);
      }
    }
    const pinned = checkPins(level, index, spec as unknown as Scenario, catalog, at);
    for (const problem of pinned.problems) report(problem);
    warnings.push(...pinned.warnings.map((warning) => `${where}: ${warning}`));
    const prompt = promptOf(file, level, report, at);
    if (prompt !== undefined)
      checkText(prompt, level.prompt_file ? `prompt_file (${level.prompt_file})` : 'prompt', 'prompt');
    const { pin: _written, ...settings } = level;
    levels.push({
      ...settings,
      prompt: prompt ?? '',
      ask_user: level.ask_user === false ? false : askSettings(level.ask_user),
      ...(pinned.pins ? { pin: pinned.pins } : {}),
    });
  });
  if (spec.watermark) for (const problem of watermarkProblems(spec.watermark, spec)) report(problem);
  if (problems.length > 0) return { file, problems, warnings };
  return {
    file,
    problems,
    warnings,
    scenario: {
      name: spec.name,
      description: spec.description,
      inputs: spec.inputs,
      levels,
      ...(spec.budget_usd !== undefined ? { budget_usd: spec.budget_usd } : {}),
      ...(spec.watermark ? { watermark: spec.watermark } : {}),
    },
  };
}

/**
 * The problems of a scenario's `watermark:`: its input must be a declared string
 * input, its value one reference to what the run has when it ends (what a pin may
 * name, any level).
 */
function watermarkProblems(watermark: { input: string; value: string }, spec: ScenarioFile): string[] {
  const problems: string[] = [];
  const input = Object.hasOwn(spec.inputs, watermark.input) ? spec.inputs[watermark.input] : undefined;
  if (!input) {
    problems.push(
      `watermark.input: no input "${watermark.input}". Declared inputs: ${Object.keys(spec.inputs).join(', ') || 'none'}`,
    );
  } else if (input.type !== 'string') {
    problems.push(
      `watermark.input: ${watermark.input} is a ${input.type} input; a watermark fills a string input`,
    );
  }
  const sole = soleRef(watermark.value);
  if (!sole) {
    problems.push(
      `watermark.value: one {{reference}} such as {{levels.read.results.0.value.next_since}}, not ${JSON.stringify(watermark.value)}`,
    );
    return problems;
  }
  const problem = pinRefProblem(sole, spec as unknown as Scenario, spec.levels.length);
  if (problem) problems.push(`watermark.value: ${problem}`);
  return problems;
}

/** `ask_user: true` or its settings, with the default timeout (24 h) filled in. */
function askSettings(ask: { timeout_seconds: number; slack_channel?: string | undefined } | true) {
  if (ask === true) return { timeout_seconds: DEFAULT_ASK_TIMEOUT_SECONDS };
  return {
    timeout_seconds: ask.timeout_seconds,
    ...(ask.slack_channel ? { slack_channel: ask.slack_channel } : {}),
  };
}

/** The prompt text of an agent level, reporting a missing, ambiguous or escaping prompt file. */
function promptOf(
  file: string,
  level: Extract<ScenarioFile['levels'][number], { kind: 'agent' }>,
  report: (text: string) => void,
  at: string,
): string | undefined {
  if ((level.prompt === undefined) === (level.prompt_file === undefined)) {
    report(`${at}: give exactly one of prompt (inline text) and prompt_file (a file beside the scenario)`);
    return undefined;
  }
  if (level.prompt !== undefined) return level.prompt;
  const dir = path.dirname(file);
  const promptPath = path.resolve(dir, level.prompt_file ?? '');
  if (path.isAbsolute(level.prompt_file ?? '') || !promptPath.startsWith(`${dir}${path.sep}`)) {
    report(`${at}.prompt_file: "${level.prompt_file}" must be a relative path inside ${path.basename(dir)}/`);
    return undefined;
  }
  if (!existsSync(promptPath) || !statSync(promptPath).isFile()) {
    report(`${at}.prompt_file: ${level.prompt_file} does not exist beside ${path.basename(file)}`);
    return undefined;
  }
  return readFileSync(promptPath, 'utf8');
}

/**
 * Violations of a call's args against its tool's schema, with input defaults in
 * place of `{{input.…}}` and args that reference levels (known only at run time) left out.
 */
function argsViolations(
  catalog: ToolCatalog,
  spec: ScenarioFile,
  call: { tool: string; args: Record<string, unknown> },
): string[] {
  const runtimeOnly = new Set<string>();
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(call.args)) {
    const sole = typeof value === 'string' ? soleRef(value) : undefined;
    const input = sole?.path[0] === 'input' ? spec.inputs[sole.path[1] ?? ''] : undefined;
    if (sole?.path[0] === 'input' && sole.path[1] === 'tenant') args[key] = 'tenant';
    // A default of the wrong type is reported with the inputs, not again here.
    else if (input?.default !== undefined && inputValueProblem(input, input.default)) runtimeOnly.add(key);
    else if (input?.default !== undefined) args[key] = input.default;
    else if (typeof value === 'string' && templateRefs(value).length > 0) {
      if (sole) runtimeOnly.add(key);
      else args[key] = value;
    } else args[key] = value;
  }
  const tool = catalog.get(call.tool);
  const parsed = tool.inputSchema.safeParse(args);
  if (parsed.success) return [];
  // A rule across args (exactly one of repo and org) cannot be judged while one of them is known only at run time.
  const crossArg = (path: string) => runtimeOnly.size > 0 && (path === '' || path === '(root)');
  return violationsOf(parsed.error, args, tool.inputSchema)
    .filter(
      (violation) => !runtimeOnly.has(violation.path.split(/[.[]/)[0] ?? '') && !crossArg(violation.path),
    )
    .map((violation) => `${violation.path}: ${violation.message}`);
}

/** Finds a scenario by name. @throws UnknownScenarioError listing the known names. */
export function findScenario(scenarios: readonly Scenario[], name: string): Scenario {
  const scenario = scenarios.find((s) => s.name === name);
  if (!scenario)
    throw new UnknownScenarioError(
      name,
      scenarios.map((s) => s.name),
    );
  return scenario;
}

/**
 * `{ scenario: { level: intra_tools } }` for the dispatcher, plus, for scenarios
 * with an `ask_user` level posting to Slack, the engine's `ask_user` level
 * allowed `slack_post_message` only (the question's post).
 */
export function levelWhitelists(scenarios: readonly Scenario[]): LevelWhitelists {
  return Object.fromEntries(
    scenarios.map((scenario) => {
      // A per-account level also lists its accounts (the engine's org_targets, through the dispatcher).
      const levels: [string, string[]][] = scenario.levels.map((l) => [
        l.name,
        l.kind === 'plan' && l.for_each_account ? [...l.intra_tools, ORG_ACCOUNTS_TOOL] : [...l.intra_tools],
      ]);
      if (scenario.levels.some((l) => l.kind === 'agent' && l.ask_user && l.ask_user.slack_channel)) {
        levels.push([ASK_USER_LEVEL, ['slack_post_message']]);
      }
      return [scenario.name, Object.fromEntries(levels)];
    }),
  );
}

/**
 * `{ scenario: { level: org_secret } }` of the per-account levels (`for_each_account`),
 * for the dispatcher: their calls carry the member `account`, and their AWS tools
 * assume the member role of that organization secret.
 */
export function accountLevels(scenarios: readonly Scenario[]): AccountLevels {
  return Object.fromEntries(
    scenarios.flatMap((scenario) => {
      const levels = scenario.levels.flatMap((l) =>
        l.kind === 'plan' && l.for_each_account ? [[l.name, l.for_each_account.org_secret] as const] : [],
      );
      return levels.length > 0 ? [[scenario.name, Object.fromEntries(levels)]] : [];
    }),
  );
}

/** The organization secrets the per-account levels read (each tenant's reader role per name). */
export function accountLevelSecrets(scenarios: readonly Scenario[]): string[] {
  return [
    ...new Set(Object.values(accountLevels(scenarios)).flatMap((levels) => Object.values(levels))),
  ].sort();
}

/** The warnings of loaded scenarios (see {@link ScenarioCheck.warnings}), each naming its scenario and level. */
export function scenarioWarnings(scenario: Scenario, catalog: ToolCatalog): string[] {
  return scenario.levels.flatMap((level, index) =>
    level.kind === 'agent'
      ? checkPins(level, index, scenario, catalog, `levels[${index}] (${level.name})`).warnings.map(
          (warning) => `${scenario.name}: ${warning}`,
        )
      : [],
  );
}
