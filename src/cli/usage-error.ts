/** A wrong command line: main.ts prints `error: <message>` and exits with code 2 (any other error: 1). */
export class UsageError extends Error {}
