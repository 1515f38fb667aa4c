/**
 * Argument schemas shared by the Slack tools' spec files (zod/mini, no SDK).
 */
import * as z from 'zod/mini';
import { builtOnce } from '../../runtime/built-once';
import { SLACK_LIMITS } from './limits';

/** Longest text a post tool takes, characters: more than one message holds; split into a thread (see limits). */
export const MAX_POST_TEXT_CHARS = 50_000;

/**
 * A channel name as Slack defines it, in every script: up to 80 letters, marks and
 * digits of any script (Slack's "Create a channel": lowercase letters, numbers,
 * hyphens and underscores; non-Latin names such as Hangul or Kanji are letters
 * too), `-` and `_` (and `.`, which older workspaces hold), optionally after `#`.
 * A channel ID (C0123ABCD) matches too.
 */
export const SLACK_CHANNEL_NAME = /^#?[\p{L}\p{M}\p{N}_.-]{1,80}$/u;

/** Channel to post to: an ID, or a public channel's `#name` (chat.postMessage resolves names). */
export const postChannelArg = builtOnce(() =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(81),
      z.regex(
        SLACK_CHANNEL_NAME,
        'a channel ID (C0123ABCD) or #name (letters of any script, digits, - or _)',
      ),
      z.describe(
        'Channel ID (C0123ABCD) or #channel-name. Ignored through an incoming webhook (it posts to its own channel).',
      ),
    ),
);

/** A conversation ID: public (C), private (G) or direct (D) ("Conversations API"). */
export const channelIdArg = builtOnce(() =>
  z
    .string()
    .check(
      z.regex(
        /^[CGD][A-Z0-9]{6,}$/,
        'a channel ID such as C0123ABCD (find it in the channel details; #names are not accepted here)',
      ),
      z.describe('Channel ID (C0123ABCD), not a #name.'),
    ),
);

/**
 * A message ts exactly as Slack returns it: a string of 10 digits, a dot, 6
 * digits. A number would lose digits (1712345678.0001 is not 1712345678.000100)
 * and name another message, or none.
 */
export const messageTsArg = builtOnce(() =>
  z
    .string({
      error:
        'Expected a message ts as a string exactly as Slack returns it, such as "1712345678.000100" (a number loses digits)',
    })
    .check(
      z.regex(
        /^\d{10}\.\d{6}$/,
        'a message ts exactly as Slack returns it, a string such as "1712345678.000100" (10 digits, a dot, 6 digits)',
      ),
    ),
);

const slackId = (prefix: string, what: string) =>
  z.string().check(z.regex(new RegExp(`^${prefix}[A-Z0-9]{6,}$`), `${what} ID such as ${prefix}0123ABCD`));

/** One explicit piece of text: the only way to produce a link or a mention. */
const textSegment = builtOnce(() =>
  z.union(
    [
      z.string().check(z.maxLength(MAX_POST_TEXT_CHARS)),
      z.strictObject({
        link: z.url({ protocol: /^(https?|mailto)$/ }).check(z.maxLength(2_000)),
        label: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
      }),
      z.strictObject({ user: slackId('[UW]', 'a user') }),
      z.strictObject({ channel: slackId('[CG]', 'a channel') }),
      z.strictObject({ usergroup: slackId('S', 'a user group') }),
      z.strictObject({ broadcast: z.enum(['here', 'channel', 'everyone']) }),
    ],
    {
      error:
        'Expected a string, or one of { link: "https://…", label? }, { user: "U…" }, { channel: "C…" }, { usergroup: "S…" }, { broadcast: "here" | "channel" | "everyone" }',
    },
  ),
);

/** Text: a string (its `&`, `<`, `>` escaped), or segments for links and mentions. */
export const textArg = builtOnce(() =>
  z.union(
    [
      z.string().check(z.minLength(1), z.maxLength(MAX_POST_TEXT_CHARS)),
      z.array(textSegment()).check(z.minLength(1), z.maxLength(500)),
    ],
    {
      error: (issue) =>
        issue.input === undefined
          ? 'Required: expected a string or a list of text segments'
          : `Expected a string of 1-${MAX_POST_TEXT_CHARS} characters, or a list of text segments`,
    },
  ),
);

/** How text is described to the model, once. */
export const TEXT_DESCRIPTION =
  'Message text (mrkdwn: *bold*, _italic_, `code`). Its &, < and > are escaped, so raw <!channel>, <@U…> or ' +
  '<https://…> do nothing: give links and mentions as segments in a list instead, e.g. ' +
  '["Disk full on ", {"link": "https://…", "label": "i-0abc"}, " cc ", {"user": "U0123ABCD"}] ' +
  `(also {"channel"}, {"usergroup"}, {"broadcast": "here"}). Longer than ${SLACK_LIMITS.textChunkChars} characters: ` +
  'split into a first message and replies in its thread.';

/** Block Kit blocks as given; checked in full (limits, text objects) by the tool before any call. */
export const blocksArg = builtOnce(() =>
  z
    .array(z.looseObject({ type: z.string().check(z.minLength(1)) }))
    .check(z.minLength(1), z.maxLength(SLACK_LIMITS.blocksPerMessage * SLACK_LIMITS.messagesPerCall)),
);

/**
 * What every posting tool declares besides its name, description and schema: a
 * write (exactly once through the idempotency table) with the tenant's
 * `slack_default` secret, no AWS permissions, 256 MB and 30 s.
 */
export const SLACK_POST_SETTINGS = {
  tags: ['slack', 'write'],
  service: 'slack',
  requiresSecrets: ['slack_default'],
  sideEffects: 'write',
  destinationArgs: ['channel'],
  iam: [],
  runtime: { memorySizeMb: 256, timeoutSeconds: 30 },
} as const;
