import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { TOOL_DOCS_PATH, toolCatalogMarkdown } from '../../../bin/cli/tool-docs';
import { defineToolSpec } from '../../../functions/runtime/spec';
import { toolCatalog } from '../../../functions/tools/catalog';

const demoSpec = defineToolSpec({
  name: 'demo_report',
  description: 'Builds a demo report. Writes | pipes | safely.',
  inputSchema: z.strictObject({
    format: z.enum(['csv', 'json']).check(z.describe('Output format.')),
    title: z.string().check(z.minLength(3), z.maxLength(80), z.describe('Title\nover two lines.')),
    separator: z.optional(z.string().check(z.regex(/^(,|;)$/))),
    limit: z._default(z.number().check(z.maximum(500)), 100),
    since: z.optional(z.int().check(z.minimum(0))),
    ids: z.optional(z.array(z.string()).check(z.minLength(1))),
    options: z.optional(z.record(z.string(), z.unknown())),
    dryRun: z.optional(z.boolean()),
    day: z.optional(z.iso.date()),
  }),
  tags: ['demo', 'write'],
  requiresSecrets: ['demo_default', 'aws_default'],
  sideEffects: 'write',
  iam: [{ actions: ['s3:PutObject'], resources: ['arn:aws:s3:::reports/*'] }, { actions: ['s3:ListBucket'] }],
});

const noArgsSpec = defineToolSpec({
  name: 'demo_ping',
  description: 'Answers pong.',
  inputSchema: z.strictObject({}),
  tags: [],
  requiresSecrets: [],
  sideEffects: 'none',
  iam: [],
});

describe('toolCatalogMarkdown', () => {
  it('documents each argument with its type, constraints, requirement, default and description', () => {
    // Act
    const markdown = toolCatalogMarkdown([demoSpec]);

    // Assess
    const table = markdown.split('\n').filter((line) => line.startsWith('| `'));
    expect(table).toEqual([
      '| `format` | `"csv"` or `"json"` | yes |  | Output format. |',
      '| `title` | string, 3–80 chars | yes |  | Title over two lines. |',
      '| `separator` | string, pattern `^(,\\|;)$` | no |  |  |',
      '| `limit` | number, at most 500 | no | `100` |  |',
      '| `since` | integer, at least 0 | no |  |  |',
      '| `ids` | array of string (at least 1 items) | no |  |  |',
      '| `options` | object | no |  |  |',
      '| `dryRun` | boolean | no |  |  |',
      // A format, not the regex zod writes for it.
      '| `day` | string, format date | no |  |  |',
    ]);
  });

  it("lists the tool's secrets, side effects and IAM actions with their resources", () => {
    // Act
    const markdown = toolCatalogMarkdown([demoSpec, noArgsSpec]);

    // Assess
    expect(markdown).toContain(
      '## demo_report\n\nBuilds a demo report. Writes | pipes | safely.\n\n| Argument | Type | Required | Default | Description |',
    );
    expect(markdown).toContain(
      '- Secrets: `demo_default`, `aws_default`\n' +
        '- Side effects: write\n' +
        '- IAM actions: `s3:PutObject` on `arn:aws:s3:::reports/*`; `s3:ListBucket` on `*`\n',
    );
    expect(markdown).toContain(
      '## demo_ping\n\nAnswers pong.\n\nArguments: none.\n\n' +
        '- Secrets: none\n- Side effects: none (read-only)\n- IAM actions: none (calls no AWS API)\n',
    );
  });

  it('starts with an index of every tool: link, side effects, tags and first sentence', () => {
    // Act
    const markdown = toolCatalogMarkdown([demoSpec, noArgsSpec]);

    // Assess
    expect(markdown.startsWith('# Tool catalog\n')).toBe(true);
    expect(markdown).toContain(
      '| [`demo_report`](#demo_report) | write | demo, write | Builds a demo report. |\n' +
        '| [`demo_ping`](#demo_ping) | none |  | Answers pong. |\n',
    );
  });

  it('renders the registered aws_ec2_inventory arguments from its schema', () => {
    // Act
    const markdown = toolCatalogMarkdown(toolCatalog.list());

    // Assess
    expect(markdown).toContain(
      '| `topN` | integer, 1–100 | no | `20` | How many items to list in full (1-100, default 20). |',
    );
    expect(markdown).toContain(
      '| `regions` | `"all"` or array of string, pattern `^[a-z]{2}(-[a-z]+)+-\\d+$` (1–40 items) | no |',
    );
  });

  // The catalog is generated: when a tool changes, regenerate it rather than edit it.
  it(`${TOOL_DOCS_PATH} matches the registry (if not, run npm run docs:tools)`, () => {
    // Prepare
    const committed = readFileSync(path.join(__dirname, '../../..', TOOL_DOCS_PATH), 'utf8');

    // Act
    const generated = toolCatalogMarkdown(toolCatalog.list());

    // Assess
    expect(committed).toBe(generated);
  });
});
