/**
 * pino logger. Keys are never logged (lines carry the key's id); as a second line of defence, anything that
 * looks like a credential field is redacted.
 */
import pino from 'pino'

export type Logger = pino.Logger

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['key', 'apiKey', 'secret', 'password', 'mnemonic', 'privateKey', 'authorization', '*.key', '*.secret', '*.password', '*.authorization'],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  )
}

/**
 * A logger for the gateway's one line per request: same destination and level, no redaction pass. Only for
 * lines built from ids and numbers (never a key, header or body).
 */
export function requestLogger(logger: Logger): Logger {
  const stream = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym]
  return stream ? pino({ level: logger.level, base: undefined }, stream) : logger
}
