/**
 * Reads a JSON-valued environment variable of the dispatcher (`TOOL_FUNCTIONS`,
 * `SCENARIO_LEVELS`, written by the CDK), once at load time.
 *
 * @returns the parsed value; its shape is the caller's to check.
 * @throws Error naming the variable when it is missing, empty or not JSON, so a
 *   broken deployment fails the init with a message that says what to fix.
 * @example
 * const parsed = readJsonVariable(process.env, 'TOOL_FUNCTIONS'); // { aws_ec2_inventory: 'etp-…' }
 */
export function readJsonVariable(env: NodeJS.ProcessEnv, name: string): unknown {
  const raw = env[name];
  if (!raw) throw new Error(`${name} is not set for the dispatcher`);
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new Error(`${name} is not JSON: ${(err as Error).message}`);
  }
}
