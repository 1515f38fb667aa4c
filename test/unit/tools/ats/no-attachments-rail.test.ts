/**
 * The ATS tools' no-attachments rail, proved over the code (as the snapshot
 * tools' no-content rail is): no module an ATS tool loads names an endpoint that
 * serves resumes, files or attachments, reads an attachment's or resume's field
 * (its URL) from an answer, or sends HTTP by any means but the platform's REST
 * session (whose origin check refuses an attachment URL on another host).
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { toolCatalog } from '../../../../functions/tools/catalog';
import { reachableModules } from '../../../helpers/import-graph';

const ROOT = path.resolve(__dirname, '../../../..');
const ATS = path.join(ROOT, 'functions/tools/ats');

/** The ATS tools' entry modules, from the catalog (no hand-kept list). */
const entries = toolCatalog
  .functionTools()
  .filter((entry) => entry.spec.name.startsWith('ats_'))
  .map((entry) => path.join(ROOT, 'functions/tools', `${entry.implementation}.ts`));

const modules = reachableModules([
  ...entries,
  ...readdirSync(ATS)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(ATS, f)),
]);
const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

/** A path to an endpoint that serves a candidate's documents (resumes, files, attachments, offers). */
const DOCUMENT_TEXT = /\/(?:resumes?|files?|attachments?|downloads?|documents?|offers?)\b/i;
/** Fields of an answer that carry a document or where to fetch it. */
const DOCUMENT_FIELDS = new Set([
  'attachments',
  'resume',
  'resumes',
  'files',
  'url',
  'photo_url',
  'urls',
  'download_url',
]);
/** Ways to send HTTP besides the runtime's client. */
const RAW_HTTP = ['node:http', 'node:https', 'http', 'https', 'undici', 'axios', 'node-fetch'];

function isText(node: ts.Node): node is ts.LiteralLikeNode {
  return (
    ts.isStringLiteral(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    ts.isTemplateHead(node) ||
    ts.isTemplateMiddle(node) ||
    ts.isTemplateTail(node)
  );
}

/** What one ATS module does that the rail forbids. */
function offences(source: ts.SourceFile, file: string): string[] {
  if (!file.startsWith(ATS)) return [];
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isText(node) && !ts.isImportDeclaration(node.parent) && DOCUMENT_TEXT.test(node.text)) {
      found.push(`${rel(file)}: "${node.text}"`);
    }
    if (ts.isPropertyAccessExpression(node) && DOCUMENT_FIELDS.has(node.name.text)) {
      found.push(`${rel(file)}: reads .${node.name.text}`);
    }
    if (
      ts.isElementAccessExpression(node) &&
      ts.isStringLiteral(node.argumentExpression) &&
      DOCUMENT_FIELDS.has(node.argumentExpression.text)
    ) {
      found.push(`${rel(file)}: reads ['${node.argumentExpression.text}']`);
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'fetch') {
      found.push(`${rel(file)}: calls fetch`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the ATS no-attachments rail, in code', () => {
  it('follows every ATS tool into its modules (providers and runtime included)', () => {
    const files = modules.map((m) => rel(m.file));

    expect(entries.length).toBeGreaterThan(0);
    expect(files).toEqual(
      expect.arrayContaining([
        'functions/tools/ats/greenhouse.ts',
        'functions/tools/ats/lever.ts',
        'functions/runtime/http/connector.ts',
        'functions/runtime/http/client.ts',
      ]),
    );
  });

  it('names no document endpoint and reads no document field anywhere in the ATS modules', () => {
    expect(modules.flatMap((m) => offences(m.source, m.file))).toEqual([]);
  });

  it('sends HTTP only through the runtime client, in every module the tools load', () => {
    const raw = modules.flatMap((m) =>
      [...m.imports.keys()].filter((s) => RAW_HTTP.includes(s)).map((s) => `${rel(m.file)} imports ${s}`),
    );
    expect(raw).toEqual([]);
  });

  it('would catch a provider that read a resume', () => {
    const file = path.join(ATS, 'probe.ts');
    const probe = ts.createSourceFile(
      file,
      `const r = await session.json({ path: \`/v1/opportunities/\${id}/resumes\` }); const u = c.attachments[0].url;`,
      ts.ScriptTarget.ES2023,
      true,
    );
    expect(offences(probe, file).sort()).toEqual(
      [
        'functions/tools/ats/probe.ts: "/resumes"',
        'functions/tools/ats/probe.ts: reads .attachments',
        'functions/tools/ats/probe.ts: reads .url',
      ].sort(),
    );
  });
});
