/**
 * Slack's message limits, each with its source on api.slack.com / docs.slack.dev.
 * Shared by the tools' schemas (spec files) and the Block Kit checks, with no SDK.
 */
export const SLACK_LIMITS = {
  /** "Blocks" reference: a message holds up to 50 blocks. */
  blocksPerMessage: 50,
  /** Section block: `text` at most 3,000 characters. */
  sectionText: 3_000,
  /** Section block: at most 10 `fields`. */
  sectionFields: 10,
  /** Section block: each field's text at most 2,000 characters. */
  sectionFieldText: 2_000,
  /** Header block: `text` (plain_text) at most 150 characters. */
  headerText: 150,
  /** Context block: at most 10 elements. */
  contextElements: 10,
  /** Every block's `block_id` ("Blocks" reference, each block's page): at most 255 characters. */
  blockId: 255,
  /** Actions block: at most 25 elements. */
  actionsElements: 25,
  /** Image block: `image_url` at most 3,000 characters. */
  imageUrl: 3_000,
  /** Image block: `alt_text` at most 2,000 characters. */
  imageAltText: 2_000,
  /** Image block: `title` (plain_text) text at most 2,000 characters. */
  imageTitle: 2_000,
  /**
   * Cumulative text of a message's blocks: Slack answers `msg_blocks_too_long`
   * from about 13,000 characters (observed, slackapi/bolt-js#2509; the markdown
   * block documents 12,000): we keep each message at 12,000.
   */
  messageBlocksText: 12_000,
  /** chat.postMessage, "Truncating content": Slack truncates `text` past 40,000 characters. */
  textChars: 40_000,
  /** chat.postMessage, "Truncating content": for best results keep `text` under 4,000 characters; longer text is split. */
  textChunkChars: 4_000,
  /** Messages one call may post (a parent and its follow-ups): bounds the time a split takes at ~1 message/s per channel. */
  messagesPerCall: 20,
} as const;
