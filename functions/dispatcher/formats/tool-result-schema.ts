import { ERROR_CODES } from '../../runtime/errors';

/**
 * The ToolResult every tool call returns (docs/design.md, "ToolResult";
 * functions/runtime/result.ts), as JSON Schema draft 2020-12: the `outputSchema`
 * of every MCP tool and the response schema of the OpenAPI document. One object
 * schema for success and failure (MCP requires `type: "object"` at the root of an
 * `outputSchema`: MCP specification 2025-11-25, "Tools", Output Schema), `ok`
 * telling them apart; `value` is the tool's own JSON, any shape.
 */
export function toolResultJsonSchema(): Record<string, unknown> {
  return {
    type: 'object',
    description:
      'ToolResult: ok true with value (the tool output), or ok false with error (a normalized error).',
    properties: {
      ok: { type: 'boolean', description: 'Whether the call succeeded.' },
      tool: { type: 'string', description: 'The tool called.' },
      callId: { type: 'string', description: 'The call id.' },
      summary: { type: 'string', description: 'One line: the tool summary, or code: message on failure.' },
      durationMs: { type: 'number', description: 'Wall time of the call, ms.' },
      value: { description: 'The tool output (ok true).' },
      truncated: { type: 'boolean', description: 'Whether value was shrunk to fit the size bound.' },
      resultRef: {
        description: 'Where the full value was stored when too large, else null.',
        type: ['string', 'null'],
      },
      error: {
        type: 'object',
        description: 'The normalized error (ok false).',
        properties: {
          code: { type: 'string', enum: [...ERROR_CODES], description: 'docs/errors.md' },
          message: { type: 'string' },
          retryable: { type: 'boolean' },
          service: { type: 'string' },
          details: { type: 'object' },
        },
        required: ['code', 'message', 'retryable'],
      },
    },
    required: ['ok', 'tool', 'callId', 'summary', 'durationMs'],
  };
}
