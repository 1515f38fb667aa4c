/**
 * Text for Slack's mrkdwn, safe by construction: `&`, `<` and `>` are escaped
 * ("Formatting text for app surfaces", "Escaping text"), so a tag value such as
 * `<!channel>` from AWS data reaches Slack as text and notifies nobody. Links and
 * mentions come only from explicit segments, never from raw text.
 */

import { wholeCharCut } from '../../runtime/text';

/** A piece of mrkdwn text: plain text (escaped), or an explicit link or mention. */
export type TextSegment =
  | string
  | { readonly link: string; readonly label?: string }
  | { readonly user: string }
  | { readonly channel: string }
  | { readonly usergroup: string }
  | { readonly broadcast: 'here' | 'channel' | 'everyone' };

/** Text as the tools take it: a string (escaped) or a list of segments. */
export type SlackText = string | readonly TextSegment[];

/**
 * Escapes Slack's three control characters; nothing else is touched (Slack
 * decodes only these, so `'` or `"` must stay as they are).
 *
 * @example escapeMrkdwn('a < b & <!channel>') // 'a &lt; b &amp; &lt;!channel&gt;'
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A link's URL inside `<url|label>`: `|` and `>` would end it early, so they are percent-encoded. */
function linkTarget(url: string): string {
  return url.replace(/\|/g, '%7C').replace(/>/g, '%3E').replace(/</g, '%3C');
}

/**
 * Renders text to mrkdwn: strings escaped, segments as Slack's control sequences
 * (`<https://…|label>`, `<@U…>`, `<#C…>`, `<!subteam^S…>`, `<!here>`). The
 * segments' ids and URLs are checked by the tools' schemas before this runs.
 *
 * @example renderText(['CPU at 95% on ', { link: 'https://console.aws.amazon.com/ec2', label: 'i-0abc' }, ' cc ', { user: 'U0123ABCD' }])
 * // 'CPU at 95% on <https://console.aws.amazon.com/ec2|i-0abc> cc <@U0123ABCD>'
 */
export function renderText(text: SlackText): string {
  if (typeof text === 'string') return escapeMrkdwn(text);
  return text.map(renderSegment).join('');
}

function renderSegment(segment: TextSegment): string {
  if (typeof segment === 'string') return escapeMrkdwn(segment);
  if ('link' in segment) {
    const label = segment.label ? `|${escapeMrkdwn(segment.label).replace(/\|/g, '¦')}` : '';
    return `<${linkTarget(segment.link)}${label}>`;
  }
  if ('user' in segment) return `<@${segment.user}>`;
  if ('channel' in segment) return `<#${segment.channel}>`;
  if ('usergroup' in segment) return `<!subteam^${segment.usergroup}>`;
  return `<!${segment.broadcast}>`;
}

/**
 * Splits rendered mrkdwn into pieces of at most `max` characters, at a paragraph,
 * line or word boundary when one lies in the second half of the window, and never
 * inside an entity (`&amp;`), a control sequence (`<…>`) or a surrogate pair.
 *
 * @example splitText('a'.repeat(9_000), 4_000).map((p) => p.length) // [4000, 4000, 1000]
 */
export function splitText(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const cut = cutPoint(rest, max);
    // The separator it was cut at belongs to neither message.
    parts.push(rest.slice(0, cut).replace(/\s+$/, ''));
    rest = rest.slice(cut).replace(/^\s+/, '');
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

function cutPoint(text: string, max: number): number {
  const window = text.slice(0, max);
  let cut = max;
  for (const separator of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(separator);
    if (at >= max / 2) {
      cut = at + separator.length;
      break;
    }
  }
  // Not inside a control sequence or an entity: cut before its start.
  const open = text.lastIndexOf('<', cut - 1);
  if (open >= 0 && text.lastIndexOf('>', cut - 1) < open && open > 0) cut = open;
  const amp = text.lastIndexOf('&', cut - 1);
  if (amp >= 0 && cut - amp < 6 && !text.slice(amp, cut).includes(';') && amp > 0) cut = amp;
  // Not between the halves of a surrogate pair.
  return wholeCharCut(text, cut);
}
