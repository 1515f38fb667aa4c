/**
 * `{{…}}` references in scenario files: plan call args, agent prompts and the
 * `ask_user` Slack channel. One parser for the loader (which checks every
 * reference at synth), the ASL generator (which turns args into JSONPath) and
 * the engine (which renders prompts).
 *
 * A reference is a dotted path: `{{input.regions}}`, `{{levels.analyze.summary}}`,
 * `{{levels.collect.results.0.summary}}`, `{{findings.collect}}`, `{{run.id}}`.
 */

/** One `{{…}}` reference. */
export interface TemplateRef {
  /** The text between the braces, trimmed (`input.regions`). */
  readonly expression: string;
  /** Its dotted path split (`['input', 'regions']`). */
  readonly path: readonly string[];
}

/** Literal text or a reference, in the order they appear. */
export type TemplatePart = string | TemplateRef;

const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** A path segment: a snake_case-ish name or an index. */
const SEGMENT = /^(?:[A-Za-z_][A-Za-z0-9_]*|\d+)$/;

/**
 * Splits `text` into literal parts and references.
 *
 * @example parseTemplate('Pulse for {{run.tenant}}') // ['Pulse for ', { expression: 'run.tenant', path: ['run', 'tenant'] }]
 */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of text.matchAll(REFERENCE)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    const expression = match[1] ?? '';
    parts.push({ expression, path: expression === '' ? [] : expression.split('.') });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** The references of `text`, in order. */
export function templateRefs(text: string): TemplateRef[] {
  return parseTemplate(text).filter((part): part is TemplateRef => typeof part !== 'string');
}

/** The reference when `text` is exactly one reference (`"{{input.regions}}"`), which keeps the value's JSON type. */
export function soleRef(text: string): TemplateRef | undefined {
  const parts = parseTemplate(text);
  const [only] = parts;
  return parts.length === 1 && typeof only !== 'string' ? only : undefined;
}

/** Whether every segment of the path is a name or an index (no empty segment, no `..`). */
export function isWellFormedPath(ref: TemplateRef): boolean {
  return ref.path.length > 0 && ref.path.every((segment) => SEGMENT.test(segment));
}

/**
 * Every string inside a JSON value, with where it is (`args.text`, `args.tags[0]`),
 * for checking the references in call args.
 */
export function stringsIn(
  value: unknown,
  where: string,
): { readonly where: string; readonly text: string }[] {
  if (typeof value === 'string') return [{ where, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringsIn(item, `${where}[${index}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => stringsIn(item, `${where}.${key}`));
  }
  return [];
}
