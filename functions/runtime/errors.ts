/**
 * The platform's normalized error codes and the typed errors tool code throws.
 *
 * Every failure that leaves the platform carries one of {@link ERROR_CODES}: an
 * agent reads the code to tell "fix your arguments" (`invalid_args`) from "stop
 * retrying" (`access_denied`) from "try again later" (`throttled`). Each code is
 * documented in `docs/errors.md`.
 */

/** Every normalized error code, in the order `docs/errors.md` documents them. */
export const ERROR_CODES = [
  'invalid_args',
  'unknown_tool',
  'tool_not_allowed',
  'unknown_scenario',
  'unknown_level',
  'secret_not_found',
  'secret_invalid',
  'unsupported_ref_kind',
  'auth_failed',
  'access_denied',
  'opt_in_required',
  'data_unavailable',
  'throttled',
  'not_found',
  'timeout',
  'upstream_error',
  'network_error',
  'limit_exceeded',
  'internal_error',
] as const;

/** One normalized error code; see {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Whether `value` is one of the {@link ERROR_CODES}. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return (ERROR_CODES as readonly unknown[]).includes(value);
}

/** Options shared by every {@link PlatformError}. */
export interface PlatformErrorOptions {
  /** Whether the same call may succeed when retried later. @default false */
  readonly retryable?: boolean;
  /** The remote service involved (`ec2`, `slack`, `sts`…), when there is one. */
  readonly service?: string;
  /** Extra facts for the caller; passed through `redact()` before leaving the platform. */
  readonly details?: Record<string, unknown>;
  /** The underlying error. */
  readonly cause?: unknown;
}

/**
 * Base of every error the platform throws on purpose. `normalizeError` keeps its
 * `code`, `message`, `retryable`, `service` and `details` as they are.
 *
 * Subclasses set a literal `name`: bundles are minified, so `constructor.name`
 * cannot be trusted.
 */
export class PlatformError extends Error {
  override readonly name: string = 'PlatformError';
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly service?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: PlatformErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.service = options.service;
    this.details = options.details;
  }
}

/** Tool arguments (or a CLI option) do not match what is accepted. */
export class InvalidArgsError extends PlatformError {
  override readonly name = 'InvalidArgsError';
  constructor(message: string, options: PlatformErrorOptions = {}) {
    super('invalid_args', message, options);
  }
}

/** No tool is registered under the name. The message lists every registered name. */
export class UnknownToolError extends PlatformError {
  override readonly name = 'UnknownToolError';
  constructor(tool: string, registered: readonly string[]) {
    super('unknown_tool', `Unknown tool "${tool}". Registered tools: ${registered.join(', ')}`, {
      details: { registered: [...registered] },
    });
  }
}

/** The tool exists but the scenario level's `intra_tools` does not list it. */
export class ToolNotAllowedError extends PlatformError {
  override readonly name = 'ToolNotAllowedError';
  constructor(tool: string, scenario: string, level: string, allowed: readonly string[]) {
    super(
      'tool_not_allowed',
      `Tool "${tool}" is not allowed at level "${level}" of scenario "${scenario}". Allowed: ${allowed.join(', ')}`,
      { details: { allowed: [...allowed] } },
    );
  }
}

/** No scenario has the name. */
export class UnknownScenarioError extends PlatformError {
  override readonly name = 'UnknownScenarioError';
  constructor(scenario: string, known: readonly string[]) {
    super('unknown_scenario', `Unknown scenario "${scenario}". Known scenarios: ${known.join(', ')}`);
  }
}

/** The scenario has no level with the name. */
export class UnknownLevelError extends PlatformError {
  override readonly name = 'UnknownLevelError';
  constructor(scenario: string, level: string, known: readonly string[]) {
    super('unknown_level', `Scenario "${scenario}" has no level "${level}". Levels: ${known.join(', ')}`);
  }
}

/** The tenant has no reference for the secret, or the referenced value does not exist. */
export class SecretNotFoundError extends PlatformError {
  override readonly name = 'SecretNotFoundError';
  constructor(message: string, options: PlatformErrorOptions = {}) {
    super('secret_not_found', message, options);
  }
}

/** The secret exists but its value does not have the shape the tool needs. */
export class SecretInvalidError extends PlatformError {
  override readonly name = 'SecretInvalidError';
  constructor(message: string, options: PlatformErrorOptions = {}) {
    super('secret_invalid', message, options);
  }
}

/** A secret reference row names a `ref_kind` no provider handles. */
export class UnsupportedRefKindError extends PlatformError {
  override readonly name = 'UnsupportedRefKindError';
  constructor(refKind: string, supported: readonly string[]) {
    super('unsupported_ref_kind', `Unsupported ref_kind "${refKind}". Supported: ${supported.join(', ')}`);
  }
}

/** A size, count or time budget of the platform was exceeded. */
export class LimitExceededError extends PlatformError {
  override readonly name = 'LimitExceededError';
  constructor(message: string, options: PlatformErrorOptions = {}) {
    super('limit_exceeded', message, options);
  }
}

/** The call ran out of time (its deadline, or a remote timeout). Retryable. */
export class DeadlineExceededError extends PlatformError {
  override readonly name = 'DeadlineExceededError';
  constructor(message: string, options: PlatformErrorOptions = {}) {
    super('timeout', message, { retryable: true, ...options });
  }
}

/**
 * A failure of a call the platform made to another service on a tool's behalf,
 * e.g. STS AssumeRole for the tenant's credentials while the tool called EC2.
 * `normalizeError` maps its `cause` as that service's error, so the result is
 * labeled `sts`, not with the tool's own service.
 */
export class ServiceCallError extends Error {
  override readonly name = 'ServiceCallError';
  /** The service called (`sts`). */
  readonly service: string;

  constructor(service: string, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.service = service;
  }
}
