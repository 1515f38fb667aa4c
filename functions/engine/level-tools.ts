/**
 * What the model of an agent level is shown: the system prompt, and the
 * level's tools as Converse toolSpecs, with the level's pins applied to their
 * schemas (a fixed argument removed, a restricted one narrowed to its values).
 */
import type { ResolvedPin, ResolvedPins } from '../dispatcher/pins';
import type { ToolCatalog } from '../runtime/catalog';
import { toJsonSchema } from '../runtime/spec';
import { type AgentLevel, ASK_USER_TOOL, type ScenarioDefinition } from './definition';
import { MAX_LEVEL_SUMMARY_CHARS, MAX_PIN_ENUM_VALUES, MAX_TOOL_CALLS_PER_TURN } from './limits';
import type { ModelTool } from './model-client';

/** The most characters of a question `ask_user` accepts. */
export const MAX_QUESTION_CHARS = 1000;

/** A property schema narrowed to a restricted pin's values (`enum`, or `items.enum` for a list). */
function narrowed(property: Record<string, unknown>, pin: ResolvedPin): Record<string, unknown> {
  const values = 'one_of' in pin ? pin.one_of : [];
  const note =
    values.length === 0
      ? 'Pinned by the scenario: no value is allowed in this run.'
      : `Pinned by the scenario: only ${values.length <= MAX_PIN_ENUM_VALUES ? 'the listed values' : `${values.length} values the scenario allows`} are accepted.`;
  const description = [property.description, note].filter(Boolean).join(' ');
  if (values.length === 0 || values.length > MAX_PIN_ENUM_VALUES) return { ...property, description };
  if (property.type === 'array') {
    const items = (property.items ?? {}) as Record<string, unknown>;
    return { ...property, items: { ...items, enum: [...values] }, description };
  }
  return { ...property, enum: [...values], description };
}

/** A JSON Schema object with the tool's pins applied. */
function pinnedSchema(
  schema: Record<string, unknown>,
  pins: Readonly<Record<string, ResolvedPin>>,
): Record<string, unknown> {
  const properties = { ...((schema.properties ?? {}) as Record<string, Record<string, unknown>>) };
  let required = Array.isArray(schema.required) ? [...(schema.required as string[])] : undefined;
  for (const [name, pin] of Object.entries(pins)) {
    const property = properties[name];
    if (!property) continue;
    if ('one_of' in pin) properties[name] = narrowed(property, pin);
    else {
      delete properties[name];
      required = required?.filter((key) => key !== name);
    }
  }
  return { ...schema, properties, ...(required ? { required } : {}) };
}

/** A tool spec as a Converse toolSpec (`$schema` dropped: models want the schema itself), pins applied. */
export function modelToolOf(catalog: ToolCatalog, name: string, pins?: ResolvedPins): ModelTool {
  const spec = catalog.get(name);
  const { $schema: _schema, ...inputSchema } = toJsonSchema(spec.inputSchema);
  const own = pins && Object.hasOwn(pins, name) ? pins[name] : undefined;
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: own ? pinnedSchema(inputSchema, own) : inputSchema,
  };
}

/** The engine's own `ask_user` tool. */
export function askUserTool(timeoutSeconds: number): ModelTool {
  const hours = Math.round((timeoutSeconds / 3600) * 10) / 10;
  return {
    name: ASK_USER_TOOL,
    description:
      `Asks a person one question and waits for the answer (up to ${hours} hours; the run pauses meanwhile). ` +
      'Use it only when you cannot go on without a decision or a fact only a person has. ' +
      'If nobody answers in time you get "no answer" and go on without it.',
    inputSchema: {
      type: 'object',
      properties: {
        question: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_QUESTION_CHARS,
          description: 'The question, self-contained: the person sees only this text.',
        },
      },
      required: ['question'],
      additionalProperties: false,
    },
  };
}

/** Every tool the level's model is offered: its `intra_tools`, the file tools, and `ask_user` where allowed. */
export function levelTools(catalog: ToolCatalog, level: AgentLevel, pins?: ResolvedPins): ModelTool[] {
  const tools = [
    ...level.intra_tools,
    ...catalog.fileToolNames().filter((name) => !level.intra_tools.includes(name)),
  ].map((name) => modelToolOf(catalog, name, pins));
  if (level.ask_user) tools.push(askUserTool(level.ask_user.timeout_seconds));
  return tools;
}

/** The level's system prompt. */
export function systemPrompt(scenario: ScenarioDefinition, level: AgentLevel, tenant: string): string {
  return [
    `You are the "${level.name}" step of the "${scenario.name}" scenario (${scenario.description}), run by the External Tools Platform for tenant "${tenant}".`,
    'Use only the tools offered. A tool result with "ok": false carries an error code and a message saying what was wrong and what is accepted: correct your call or work around it. Never invent data.',
    'Large results are shortened; where a result says where its full value is, read it with read_file if that tool is offered.',
    `When you are done, call finish with your final answer in "summary" (at most ${MAX_LEVEL_SUMMARY_CHARS} characters, written for people) and optional structured "data". You have at most ${level.max_turns} turns; one turn may call up to ${MAX_TOOL_CALLS_PER_TURN} tools at once.`,
    ...(level.ask_user
      ? ['If you cannot go on without a person, call ask_user with one self-contained question.']
      : []),
  ].join('\n');
}
