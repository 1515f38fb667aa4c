/**
 * Block Kit checked and made safe before anything is sent: Slack's limits
 * (functions/tools/slack/limits.ts) with a JSON pointer per violation, mrkdwn
 * text objects escaped (or rendered from segments), and a list of blocks too
 * long for one message cut into messages.
 */
import { InvalidArgsError } from '../../runtime/errors';
import { escapeMrkdwn, renderText, type SlackText, splitText } from './escape';
import { SLACK_LIMITS } from './limits';

/** A Block Kit block as sent. */
export type Block = Record<string, unknown> & { readonly type: string };

/** One violation: where (RFC 6901 JSON pointer into the tool's args) and what is accepted. */
export interface BlockViolation {
  readonly path: string;
  readonly message: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Copies the blocks with every `mrkdwn` text object's `text` rendered
 * (`renderText`: a string escaped, segments turned into links and mentions),
 * at any depth (section text and fields, context elements, accessories).
 * `plain_text` objects are left as they are: Slack parses no markup there.
 */
export function escapeBlocks(blocks: readonly Json[]): Block[] {
  return blocks.map((block) => escapeNode(block) as Block);
}

function escapeNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(escapeNode);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = escapeNode(value);
  if (node.type === 'mrkdwn' && (typeof node.text === 'string' || Array.isArray(node.text))) {
    out.text = renderText(node.text as SlackText);
  }
  return out;
}

/** Characters of every `text` string in a block, at any depth: what Slack counts against a message. */
export function blockTextLength(node: unknown): number {
  if (Array.isArray(node)) return node.reduce<number>((sum, item) => sum + blockTextLength(item), 0);
  if (!isObject(node)) return 0;
  let sum = 0;
  for (const [key, value] of Object.entries(node)) {
    sum += key === 'text' && typeof value === 'string' ? value.length : blockTextLength(value);
  }
  return sum;
}

function textOf(value: unknown): string | undefined {
  return isObject(value) && typeof value.text === 'string' ? value.text : undefined;
}

/**
 * Every limit violation of already escaped blocks (pointers under `/blocks`).
 * Unknown block types pass: Slack checks them and its `invalid_blocks` detail
 * reaches the caller.
 */
export function blockViolations(blocks: readonly Block[]): BlockViolation[] {
  const violations: BlockViolation[] = [];
  const add = (path: string, message: string) => violations.push({ path, message });
  /** `value` is a string longer than `max`: one violation at `path`. */
  const atMost = (path: string, what: string, value: unknown, max: number) => {
    if (typeof value === 'string' && value.length > max)
      add(path, `${what} is ${value.length} characters; at most ${max}`);
  };
  blocks.forEach((block, i) => {
    const at = `/blocks/${i}`;
    walkTextObjects(block, at, add);
    atMost(`${at}/block_id`, 'block_id', block.block_id, SLACK_LIMITS.blockId);
    if (block.type === 'section') {
      const text = textOf(block.text);
      const fields = block.fields;
      if (text === undefined && !Array.isArray(fields)) add(at, 'a section needs text or fields');
      if (text !== undefined && text.length > SLACK_LIMITS.sectionText) {
        add(
          `${at}/text/text`,
          `section text is ${text.length} characters; at most ${SLACK_LIMITS.sectionText}`,
        );
      }
      if (Array.isArray(fields)) {
        if (fields.length > SLACK_LIMITS.sectionFields) {
          add(`${at}/fields`, `a section has ${fields.length} fields; at most ${SLACK_LIMITS.sectionFields}`);
        }
        fields.forEach((field, j) => {
          const fieldText = textOf(field);
          if (fieldText !== undefined && fieldText.length > SLACK_LIMITS.sectionFieldText) {
            add(
              `${at}/fields/${j}/text`,
              `a field is ${fieldText.length} characters; at most ${SLACK_LIMITS.sectionFieldText}`,
            );
          }
        });
      }
    } else if (block.type === 'header') {
      const text = textOf(block.text);
      if (!isObject(block.text) || block.text.type !== 'plain_text') {
        add(`${at}/text`, 'a header takes a plain_text text object');
      } else if (text !== undefined && text.length > SLACK_LIMITS.headerText) {
        add(
          `${at}/text/text`,
          `header text is ${text.length} characters; at most ${SLACK_LIMITS.headerText}`,
        );
      }
    } else if (block.type === 'actions') {
      const elements = block.elements;
      if (Array.isArray(elements) && elements.length > SLACK_LIMITS.actionsElements) {
        add(
          `${at}/elements`,
          `an actions block has ${elements.length} elements; at most ${SLACK_LIMITS.actionsElements}`,
        );
      }
    } else if (block.type === 'image') {
      atMost(`${at}/image_url`, 'image_url', block.image_url, SLACK_LIMITS.imageUrl);
      atMost(`${at}/alt_text`, 'image alt_text', block.alt_text, SLACK_LIMITS.imageAltText);
      atMost(`${at}/title/text`, 'image title', textOf(block.title), SLACK_LIMITS.imageTitle);
    } else if (block.type === 'context') {
      const elements = block.elements;
      if (Array.isArray(elements) && elements.length > SLACK_LIMITS.contextElements) {
        add(
          `${at}/elements`,
          `a context has ${elements.length} elements; at most ${SLACK_LIMITS.contextElements}`,
        );
      }
    }
    const length = blockTextLength(block);
    if (length > SLACK_LIMITS.messageBlocksText) {
      add(
        at,
        `the block holds ${length} characters of text; a message holds at most ${SLACK_LIMITS.messageBlocksText}`,
      );
    }
  });
  return violations;
}

/** Text objects (`{ type: 'mrkdwn' | 'plain_text', text }`) must have a string text of at least one character. */
function walkTextObjects(node: unknown, path: string, add: (path: string, message: string) => void): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      walkTextObjects(item, `${path}/${i}`, add);
    });
    return;
  }
  if (!isObject(node)) return;
  if ((node.type === 'mrkdwn' || node.type === 'plain_text') && 'text' in node) {
    if (typeof node.text !== 'string' || node.text.length === 0) {
      add(`${path}/text`, `a ${node.type} text object needs a non-empty string text`);
    }
    return;
  }
  for (const [key, value] of Object.entries(node)) walkTextObjects(value, `${path}/${key}`, add);
}

/**
 * Renders and checks blocks for sending.
 *
 * @throws InvalidArgsError with `details.violations` (`{ path, message }`, a JSON
 *   pointer per violation) when a block breaks a limit no split can fix.
 */
export function prepareBlocks(blocks: readonly Json[]): Block[] {
  const escaped = escapeBlocks(blocks);
  const violations = blockViolations(escaped);
  if (violations.length > 0) {
    const first = violations[0] as BlockViolation;
    throw new InvalidArgsError(
      `Invalid blocks: ${first.path}: ${first.message}${violations.length > 1 ? ` (and ${violations.length - 1} more)` : ''}`,
      { details: { violations: violations.slice(0, 20) } },
    );
  }
  return escaped;
}

/**
 * Cuts blocks into messages of at most 50 blocks and 12,000 characters of text
 * each (`SLACK_LIMITS`), keeping their order; each block is assumed to fit alone
 * ({@link prepareBlocks} checks that).
 *
 * @example chunkBlocks(fiftyOneBlocks).map((c) => c.length) // [50, 1]
 */
export function chunkBlocks(blocks: readonly Block[]): Block[][] {
  const chunks: Block[][] = [];
  let current: Block[] = [];
  let chars = 0;
  for (const block of blocks) {
    const length = blockTextLength(block);
    if (
      current.length > 0 &&
      (current.length >= SLACK_LIMITS.blocksPerMessage || chars + length > SLACK_LIMITS.messageBlocksText)
    ) {
      chunks.push(current);
      current = [];
      chars = 0;
    }
    current.push(block);
    chars += length;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * A notification fallback for blocks (`text` is what notifications and screen
 * readers show): the first header, section or markdown text that is not blank, trimmed,
 * at most 150 characters; `Message` when none.
 */
export function fallbackText(blocks: readonly Block[]): string {
  for (const block of blocks) {
    const source = block.text;
    const raw = textOf(source) ?? (typeof source === 'string' ? source : undefined);
    // A text of only white space shows nothing in a notification either (a blank `text` is refused).
    if (!raw?.trim()) continue;
    // `text` is parsed as mrkdwn: plain text (a header) must be escaped like any text; mrkdwn already is.
    const text = isObject(source) && source.type === 'mrkdwn' ? raw : escapeMrkdwn(raw);
    // Trimmed first: a text that opens with more than 150 characters of white space would cut to a blank first part.
    return splitText(text.trim(), 150)[0] as string;
  }
  return 'Message';
}
