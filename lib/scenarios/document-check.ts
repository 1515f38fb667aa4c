/**
 * The checks of one parsed scenario document (lib/scenarios/loader.ts reads the file): the
 * schema, the levels, tools, prompts, references, inputs, watermark and call args, every
 * problem collected rather than the first.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ASK_USER_LEVEL, type ScenarioLevel } from '../../functions/engine/definition';
import { inputValueProblem } from '../../functions/engine/inputs';
import { DEFAULT_ASK_TIMEOUT_SECONDS } from '../../functions/engine/limits';
import { BUDGET_INPUT } from '../../functions/engine/run-budget';
import { soleRef, stringsIn, templateRefs } from '../../functions/engine/template';
import type { ToolCatalog } from '../../functions/runtime/catalog';
import { violationsOf } from '../../functions/runtime/schema-violations';
import { type Scenario, type ScenarioFile, scenarioSchema } from './model';
import { checkPins, pinRefProblem } from './pins';
import { type RefUse, resolveRef } from './references';
import { problemsAsWritten, unknownToolsIn, withKinds } from './refused-document';

/** A scenario file read and checked: the scenario, or its problems. */
export interface ScenarioCheck {
  readonly file: string;
  readonly scenario?: Scenario;
  readonly problems: readonly string[];
  /** Risks that do not stop the scenario (a write tool whose destination the model chooses). */
  readonly warnings?: readonly string[];
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
  return violationsOf(parsed.error, args, tool.inputSchema, { sayReceived: true })
    .filter(
      (violation) => !runtimeOnly.has(violation.path.split(/[.[]/)[0] ?? '') && !crossArg(violation.path),
    )
    .map((violation) => `${violation.path}: ${violation.message}`);
}
