/**
 * The platform stack's default name (bin/app.ts). Its state machines are named
 * `<stack>-<scenario>` and its tool functions `<stack>-<tool>` (the default
 * `functionNamePrefix`, lib/external-tools-platform.ts), so it bounds a tool's name:
 * a Lambda function name is at most 64 characters (Lambda API reference, "CreateFunction", FunctionName).
 */
export const DEFAULT_STACK_NAME = 'ExternalToolsPlatform';
