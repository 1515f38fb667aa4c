/**
 * commander, typed. commander 15 ships only ES modules; this project compiles to
 * CommonJS (`module: node16`), where TypeScript refuses a value import of an ES
 * module although Node 24 `require()`s it natively. The types come through a
 * type-only import, the values through `require`.
 */
type CommanderModule = typeof import('commander', { with: { 'resolution-mode': 'import' }});

export const {
  Command,
  CommanderError,
  InvalidArgumentError,
  Option,
}: CommanderModule = require('commander');

/** A command (or the program) of the CLI. */
export type Command = InstanceType<CommanderModule['Command']>;
/** What commander throws with `exitOverride()`: `code` (`commander.unknownCommand`…) and `exitCode`. */
export type CommanderError = InstanceType<CommanderModule['CommanderError']>;
