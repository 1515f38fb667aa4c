import { PlatformError, UnknownToolError } from './errors';
import { isStrictObject, type ToolSpec } from './spec';

const TOOL_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * The tool registry: unique snake_case names, lookups that fail loudly.
 * Holds specs (metadata + schema) only, so it is safe to load in the dispatcher.
 *
 * @example
 * const registry = new ToolRegistry([ec2InventorySpec, slackPostMessageSpec]);
 * registry.get('aws_ec2_inventory');            // the spec
 * registry.get('nope');                          // throws UnknownToolError listing every name
 * registry.subset(['slack_post_message']).names(); // ['slack_post_message']
 */
export class ToolRegistry<T extends ToolSpec = ToolSpec> {
  readonly #tools = new Map<string, T>();

  /** @throws PlatformError (`internal_error`) on a duplicate or malformed name, or a non-strict schema. */
  constructor(tools: Iterable<T> = []) {
    for (const tool of tools) this.register(tool);
  }

  /**
   * Adds a tool.
   *
   * @throws PlatformError (`internal_error`) when the name is taken or not snake_case, or the
   *   schema's JSON Schema does not set `additionalProperties: false`.
   */
  register(tool: T): void {
    if (!TOOL_NAME.test(tool.name)) {
      throw new PlatformError('internal_error', `Tool name "${tool.name}" is not snake_case`);
    }
    if (this.#tools.has(tool.name)) {
      throw new PlatformError('internal_error', `Tool "${tool.name}" is already registered`);
    }
    // A schema built on first use (defineToolSpec with a factory) checks itself then;
    // reading it here would build every schema when the catalog loads.
    const schema = Object.getOwnPropertyDescriptor(tool, 'inputSchema');
    if (schema && 'value' in schema && !isStrictObject(schema.value)) {
      throw new PlatformError('internal_error', `Tool "${tool.name}" must use a strict object schema`);
    }
    this.#tools.set(tool.name, tool);
  }

  /** Whether a tool has the name. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /**
   * The tool with the name.
   *
   * @throws UnknownToolError (`unknown_tool`) whose message lists every registered name.
   */
  get(name: string): T {
    const tool = this.#tools.get(name);
    if (!tool) throw new UnknownToolError(name, this.names());
    return tool;
  }

  /** Registered names, sorted. A new array each call. */
  names(): string[] {
    return [...this.#tools.keys()].sort();
  }

  /** Registered tools sorted by name. A new array each call: changing it leaves the registry as it was. */
  list(): T[] {
    return this.names().map((name) => this.#tools.get(name) as T);
  }

  /**
   * A new registry holding only `names` (a level's whitelist).
   *
   * @throws UnknownToolError for the first name not registered, listing every registered name.
   */
  subset(names: Iterable<string>): ToolRegistry<T> {
    return new ToolRegistry([...new Set(names)].map((name) => this.get(name)));
  }
}
